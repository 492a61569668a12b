"""Longest road (§15): the longest trail in a seat's road network, from scratch or after
one new road. Compiled (setup.py), apart from board.py, whose tables it reads: the
engine calls it whenever a road is placed, in every search playout.
"""

from __future__ import annotations

from typing import Final

from games.catan import board as B

# The board's tables, bound here once (board.py stays interpreted: a compiled module
# reads these as C statics instead of looking them up on the board module each time).
_EDGE_NODES: Final = B.EDGE_NODES
_NODE_ADJ: Final = B.NODE_ADJ
_NODE_EDGE_MASK: Final = B.NODE_EDGE_MASK


def longest_road(roads: int, blocked: int) -> int:
    """Length of the longest trail in the road set ``roads`` (edge bitmask).

    A trail uses each path at most once and may revisit intersections (loops
    count), but never passes through an intersection in ``blocked`` (node
    bitmask: the opponents' buildings); it may end there.
    """
    if not roads:
        return 0
    degree: dict[int, int] = {}
    m = roads
    count = 0
    while m:
        low = m & -m
        a, b = _EDGE_NODES[low.bit_length() - 1]
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
        m ^= low
        count += 1
    if count == 1:
        return 1
    # A longest trail starts at a dead end, a fork or a blocked node, unless
    # its whole component is a plain cycle (then anywhere on it will do).
    starts = [v for v, d in degree.items() if d != 2 or (blocked >> v) & 1]
    if count >= 6:
        reached = 0
        stack = list(starts)
        seen_nodes = 0
        for v in starts:
            seen_nodes |= 1 << v
        while stack:
            v = stack.pop()
            for bit, w in _NODE_ADJ[v]:
                if roads & bit and not reached & bit:
                    reached |= bit
                    if not (blocked >> w) & 1 and not (seen_nodes >> w) & 1:
                        seen_nodes |= 1 << w
                        stack.append(w)
        left = roads & ~reached
        while left:
            # A plain cycle no start reached: walk it once from one of its nodes.
            v = _EDGE_NODES[(left & -left).bit_length() - 1][0]
            starts.append(v)
            stack = [v]
            while stack:
                u = stack.pop()
                for bit, w in _NODE_ADJ[u]:
                    if left & bit:
                        left ^= bit
                        stack.append(w)
    best = 0
    for v in starts:
        length = _trail(v, 0, roads, blocked)
        if length > best:
            best = length
            if best == count:
                break
    return best


def longest_road_after(roads: int, blocked: int, edge: int, before: int) -> int:
    """``longest_road(roads, blocked)`` once ``edge`` (already in ``roads``) was added to
    a road set whose longest trail was ``before``, with the same ``blocked`` nodes.

    Most new roads extend a dead end: then the new edge can only end a trail, and the
    longest trail through it is the edge plus the longest trail from its other end,
    one search from one node instead of from every start (the engine's hot path).
    """
    a, b = _EDGE_NODES[edge]
    if (roads & _NODE_EDGE_MASK[b]).bit_count() == 1:
        inner = a
    elif (roads & _NODE_EDGE_MASK[a]).bit_count() == 1:
        inner = b
    else:
        return longest_road(roads, blocked)
    through = 1 if (blocked >> inner) & 1 else 1 + _trail(inner, 1 << edge, roads, blocked)
    return through if through > before else before


def _trail(v: int, used: int, roads: int, blocked: int) -> int:
    best = 0
    for bit, w in _NODE_ADJ[v]:
        if roads & bit and not used & bit:
            length = 1 if blocked >> w & 1 else 1 + _trail(w, used | bit, roads, blocked)
            if length > best:
                best = length
    return best
