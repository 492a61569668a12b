"""Catan board geometry: 19 hexes, 54 intersections, 72 paths, 9 harbors.

Every table is computed once at import from one coordinate model and is
immutable (tuples), so states share them freely.

Coordinates: pointy-top hexes in rows of 3-4-5-4-3, numbered 0..18 row by row
(top row left to right first). A hex in row ``r`` at column ``c`` has its centre
at ``x = 2c + (5 - len(row))``, ``y = 3r``; its corners are at offsets
N (0,-2), NE (1,-1), SE (1,1), S (0,2), SW (-1,1), NW (-1,-1). Intersections
(nodes) are numbered by position, top to bottom then left to right; paths
(edges) by their midpoint in the same order. ``gamehost board catan`` prints them all.
"""

from __future__ import annotations

from typing import Final

ROW_LENGTHS = (3, 4, 5, 4, 3)
NUM_HEXES: Final = 19
NUM_NODES: Final = 54
NUM_EDGES: Final = 72
NUM_HARBORS: Final = 9

_CORNERS = ((0, -2), (1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1))


def _hex_centres() -> tuple[tuple[int, int], ...]:
    centres = []
    for row, length in enumerate(ROW_LENGTHS):
        for col in range(length):
            centres.append((2 * col + (5 - length), 3 * row))
    return tuple(centres)


HEX_CENTRE = _hex_centres()


def _build() -> tuple[
    tuple[tuple[int, int], ...], tuple[tuple[int, ...], ...], tuple[tuple[int, int], ...]
]:
    points: set[tuple[int, int]] = set()
    for cx, cy in HEX_CENTRE:
        for dx, dy in _CORNERS:
            points.add((cx + dx, cy + dy))
    node_xy = sorted(points, key=lambda p: (p[1], p[0]))
    node_id = {p: i for i, p in enumerate(node_xy)}
    hex_nodes = tuple(
        tuple(node_id[(cx + dx, cy + dy)] for dx, dy in _CORNERS) for cx, cy in HEX_CENTRE
    )
    pairs: set[tuple[int, int]] = set()
    for nodes in hex_nodes:
        for k in range(6):
            a, b = nodes[k], nodes[(k + 1) % 6]
            pairs.add((min(a, b), max(a, b)))

    def midpoint(pair: tuple[int, int]) -> tuple[int, int]:
        (ax, ay), (bx, by) = node_xy[pair[0]], node_xy[pair[1]]
        return (ay + by, ax + bx)

    edge_nodes = tuple(sorted(pairs, key=midpoint))
    return tuple(node_xy), hex_nodes, edge_nodes


NODE_XY, HEX_NODES, EDGE_NODES = _build()
assert len(NODE_XY) == NUM_NODES and len(EDGE_NODES) == NUM_EDGES

EDGE_ID = {pair: e for e, pair in enumerate(EDGE_NODES)}
NODE_HEXES = tuple(
    tuple(h for h in range(NUM_HEXES) if v in HEX_NODES[h]) for v in range(NUM_NODES)
)
NODE_EDGES = tuple(
    tuple(e for e, (a, b) in enumerate(EDGE_NODES) if v in (a, b)) for v in range(NUM_NODES)
)
NODE_NEIGHBORS = tuple(
    tuple(b if a == v else a for a, b in (EDGE_NODES[e] for e in NODE_EDGES[v]))
    for v in range(NUM_NODES)
)
# (edge bit, other node) for each path leaving a node: the longest-road walk.
NODE_ADJ = tuple(
    tuple((1 << e, b if a == v else a) for e in NODE_EDGES[v] for a, b in (EDGE_NODES[e],))
    for v in range(NUM_NODES)
)
NODE_HEX_MASK = tuple(sum(1 << h for h in NODE_HEXES[v]) for v in range(NUM_NODES))
NODE_EDGE_MASK = tuple(sum(1 << e for e in NODE_EDGES[v]) for v in range(NUM_NODES))
# A settlement on v blocks v and its neighbours (the distance rule).
NODE_BLOCK_MASK = tuple((1 << v) | sum(1 << w for w in NODE_NEIGHBORS[v]) for v in range(NUM_NODES))
EDGE_NODE_MASK = tuple((1 << a) | (1 << b) for a, b in EDGE_NODES)
ALL_NODES: Final = (1 << NUM_NODES) - 1
ALL_EDGES: Final = (1 << NUM_EDGES) - 1
COAST_NODES = tuple(v for v in range(NUM_NODES) if len(NODE_HEXES[v]) < 3)
COAST_EDGES = tuple(
    e for e, (a, b) in enumerate(EDGE_NODES) if len(set(NODE_HEXES[a]) & set(NODE_HEXES[b])) == 1
)
HEX_NEIGHBORS = tuple(
    tuple(g for g in range(NUM_HEXES) if g != h and len(set(HEX_NODES[h]) & set(HEX_NODES[g])) == 2)
    for h in range(NUM_HEXES)
)

# Rings for the token spiral: the outer ring clockwise from the top-left corner
# hex, the inner ring clockwise from its top-left hex, then the centre.
OUTER_RING = (0, 1, 2, 6, 11, 15, 18, 17, 16, 12, 7, 3)
INNER_RING = (4, 5, 10, 14, 13, 8)
CENTRE: Final = 9
OUTER_CORNERS = (0, 2, 4, 6, 8, 10)  # indices into OUTER_RING of the 6 corner hexes


def spiral_order(corner: int, clockwise: bool) -> tuple[int, ...]:
    """The 19 hexes along the inward spiral that starts at outer corner ``corner``
    (0..5, clockwise from the top-left) and turns in the given direction.

    The inner ring starts at the inner hex next to the starting corner (the
    facts file's check: any other start can put red tokens side by side)."""
    step = 1 if clockwise else -1
    start = OUTER_CORNERS[corner]
    outer = tuple(OUTER_RING[(start + step * k) % 12] for k in range(12))
    first_inner = next(h for h in INNER_RING if h in HEX_NEIGHBORS[outer[0]])
    i = INNER_RING.index(first_inner)
    inner = tuple(INNER_RING[(i + step * k) % 6] for k in range(6))
    return (*outer, *inner, CENTRE)


def _harbor_nodes() -> tuple[tuple[int, int], ...]:
    """The 9 fixed harbor spots of the frame (each a coastal path and its two
    intersections), clockwise from the top-left of the island.

    Positions are the standard frame ones, as catanatron's base map template
    places them: sea hex (cube coordinates) and the direction of the land hex it
    faces."""
    # (sea hex in cube coordinates x, y, z) -> cube direction towards the land
    sea = (
        ((-1, -2, 3), (0, 1, -1)),
        ((1, -3, 2), (0, 1, -1)),
        ((3, -3, 0), (-1, 1, 0)),
        ((2, 1, -3), (-1, 0, 1)),
        ((3, -1, -2), (-1, 0, 1)),
        ((0, 3, -3), (0, -1, 1)),
        ((-2, 3, -1), (1, -1, 0)),
        ((-3, 2, 1), (1, -1, 0)),
        ((-3, 0, 3), (1, 0, -1)),
    )
    spots = []
    for (x, _y, z), (dx, _dy, dz) in sea:
        sea_xy = (2 * x + z + 4, 3 * z + 6)
        land_xy = (2 * (x + dx) + (z + dz) + 4, 3 * (z + dz) + 6)
        assert land_xy in HEX_CENTRE
        land_corners = {(land_xy[0] + ox, land_xy[1] + oy) for ox, oy in _CORNERS}
        shared = sorted(
            (sea_xy[0] + ox, sea_xy[1] + oy)
            for ox, oy in _CORNERS
            if (sea_xy[0] + ox, sea_xy[1] + oy) in land_corners
        )
        assert len(shared) == 2
        a, b = (NODE_XY.index(p) for p in shared)
        spots.append((min(a, b), max(a, b)))
    # Clockwise from the top-left: sort by angle around the island centre (8, 6).
    import math

    def angle(spot: tuple[int, int]) -> float:
        (ax, ay), (bx, by) = NODE_XY[spot[0]], NODE_XY[spot[1]]
        mx, my = (ax + bx) / 2 - 8, ((ay + by) / 2 - 6) * 1.15
        return (math.atan2(my, mx) + math.pi * 0.8) % (2 * math.pi)

    return tuple(sorted(spots, key=angle))


HARBOR_NODES = _harbor_nodes()
HARBOR_EDGES = tuple(EDGE_ID[spot] for spot in HARBOR_NODES)
assert len(set(v for spot in HARBOR_NODES for v in spot)) == 18
