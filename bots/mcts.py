"""UCT for n players on one determinized state (pure: no I/O, no global randomness).

Tree
    A decision node belongs to the seat to move there. Each edge (child) keeps
    its visit count and the sum of the returns of the seat that chose it: the
    one component of the max^n value vector that seat's selection reads. Every
    seat thus maximizes its own mean + c * sqrt(ln N / n) (max^n UCT).

Chance
    Explicit chance nodes with one child per outcome seen so far ("outcome
    children", closed loop): each visit draws an outcome with the node's
    probabilities (``sample_chance``), so visit counts follow them. Chance
    nodes are passed through: the iteration goes on to expand a decision below.

Leaf values
    ``returns()`` at a terminal state; otherwise a playout (over the bots'
    action set) of at most ``depth`` plies, chance plies included, then the
    game's heuristic ``evaluate`` (shares in [0, 1] that sum to 1). Playouts
    are uniformly random, or, with ``playout_epsilon`` set, epsilon-greedy on
    the heuristic: each seat plays the action whose resulting state
    ``evaluate`` rates best for it, or a random one with that probability (a
    game whose evaluation is cheap and whose random play is suicidal gets
    playouts that look like games, at one evaluation per legal action).

Budget
    ``iterations`` and/or ``seconds``; whichever runs out first ends the search.
    With ``seconds=None`` the search is a pure function of its inputs and ``rng``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from games import CHANCE, TERMINAL, State

# How often (in iterations) a time-limited search reads the clock.
_CLOCK_EVERY: Final = 8


class Node:
    """One state reached in the tree: ``mover`` is its current_player(), ``action`` the
    action or chance outcome that led here from its parent."""

    __slots__ = ("action", "mover", "visits", "value", "untried", "children", "outcomes")

    def __init__(self, action: int, mover: int, untried: list[int] | None) -> None:
        self.action = action
        self.mover = mover
        self.visits = 0
        self.value = 0.0  # summed returns of the seat that moved into this node
        self.untried = untried  # decision nodes: actions not expanded yet
        self.children: list[Node] = []  # decision nodes: expanded, in expansion order
        self.outcomes: dict[int, Node] | None = {} if mover == CHANCE else None

    def edges(self) -> list[tuple[int, Node]]:
        """(action, child) of each expanded child, in expansion order (for inspection)."""
        return [(child.action, child) for child in self.children]


@dataclass
class SearchResult:
    visits: dict[int, int]
    values: dict[int, float]
    iterations: int
    seconds: float
    root: Node  # the whole tree, for tests and inspection


def new_node(
    action: int, state: State, actions: Callable[[State], list[int]], rng: random.Random
) -> Node:
    mover = state.current_player()
    if mover < 0:
        return Node(action, mover, None)
    untried = actions(state)
    shuffle(untried, rng)  # expansion order must not favour low action ids
    return Node(action, mover, untried)


def shuffle(items: list[int], rng: random.Random) -> None:
    """``rng.shuffle(items)``, the same permutation from the same draws (CPython's
    Fisher-Yates over ``getrandbits``; tests/bots/test_mcts.py checks they agree), written
    out so that the compiled build runs it as C: it is one call per expanded node."""
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


def uct_search(
    root_state: State,
    evaluate: Callable[[State], list[float]],
    actions: Callable[[State], list[int]],
    rng: random.Random,
    *,
    iterations: int | None,
    seconds: float | None,
    depth: int,
    c: float,
    playout_epsilon: float | None = None,
) -> SearchResult:
    """Search from ``root_state`` (a decision node) and return the root's edge statistics."""
    if iterations is None and seconds is None:
        raise ValueError("a search needs an iteration or a time budget")
    start = time.perf_counter()
    deadline = None if seconds is None else start + seconds
    limit = iterations if iterations is not None else 1 << 62
    root = new_node(-1, root_state, actions, rng)
    if root.mover < 0:
        raise ValueError("the root of a search must be a decision node")
    rand = rng.random
    done = 0
    while done < limit:
        if deadline is not None and done % _CLOCK_EVERY == 0 and time.perf_counter() >= deadline:
            break
        state = root_state.clone()
        node = root
        path = [root]
        # Selection and expansion.
        while True:
            mover = node.mover
            if mover >= 0:
                untried = node.untried
                if untried:
                    action = untried.pop()
                    state.apply_unchecked(action)
                    child = new_node(action, state, actions, rng)
                    node.children.append(child)
                    path.append(child)
                    node = child
                    if child.mover != CHANCE:
                        break
                    continue  # a chance node is passed through to a decision below
                children = node.children
                if len(children) == 1:
                    node = children[0]
                else:
                    k = c * math.sqrt(math.log(node.visits))
                    best = -1.0
                    for ch in children:
                        n = ch.visits
                        score = ch.value / n + k / math.sqrt(n)
                        if score > best:
                            best = score
                            node = ch
                state.apply_unchecked(node.action)
                path.append(node)
            elif mover == CHANCE:
                outcome = state.sample_chance(rng)
                state.apply_unchecked(outcome)
                outcomes = node.outcomes
                assert outcomes is not None  # a chance node has its outcome children
                found = outcomes.get(outcome)
                if found is None:
                    child = new_node(outcome, state, actions, rng)
                    outcomes[outcome] = child
                else:
                    child = found
                path.append(child)
                node = child
            else:  # terminal
                break
        # Leaf value: the result, or a cut-off random playout scored by the heuristic.
        player = state.current_player()
        steps = depth
        while player != TERMINAL and steps > 0:
            if player == CHANCE:
                state.apply_unchecked(state.sample_chance(rng))
            else:
                legal = actions(state)
                if playout_epsilon is None or len(legal) == 1 or rand() < playout_epsilon:
                    state.apply_unchecked(legal[int(rand() * len(legal))])
                else:
                    state.apply_unchecked(_best_for(state, player, legal, evaluate))
            steps -= 1
            player = state.current_player()
        result = state.returns() if player == TERMINAL else evaluate(state)
        # Backup: each node adds the return of the seat that moved into it.
        parent_mover = root.mover
        root.visits += 1
        for nd in path[1:]:
            nd.visits += 1
            if parent_mover >= 0:
                nd.value += result[parent_mover]
            parent_mover = nd.mover
        done += 1
    return SearchResult(
        visits={ch.action: ch.visits for ch in root.children},
        values={ch.action: ch.value for ch in root.children},
        iterations=done,
        seconds=time.perf_counter() - start,
        root=root,
    )


def _best_for(
    state: State, seat: int, legal: list[int], evaluate: Callable[[State], list[float]]
) -> int:
    """The action whose resulting state is best for ``seat`` (first of equals)."""
    best_value = -1.0
    best = legal[0]
    for action in legal:
        child = state.clone()
        child.apply_unchecked(action)
        value = (
            child.returns()[seat] if child.current_player() == TERMINAL else evaluate(child)[seat]
        )
        if value > best_value:
            best_value = value
            best = action
    return best
