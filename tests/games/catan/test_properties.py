"""Properties over thousands of random games (the fast path, as bots use it).

Checked along the way and at the end: 19 cards of each resource and 25
development cards conserved; VP, supply and Longest Road recomputed from
scratch agree with the tracked values; the distance rule always holds; the
log replays to the same final state; ``determinize`` never changes what the
seat sees.
"""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from games.catan import board as B
from games.catan import rules as R
from games.catan.engine import Catan, CatanState

from .helpers import random_game

GAMES_PER_CHUNK = 500
CHUNKS = 4  # 2000 games


def brute_longest(edges: list[tuple[int, int]], blocked: set[int]) -> int:
    """Longest trail by plain search, independent of the engine's bitmask walk."""
    adj: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for i, (a, b) in enumerate(edges):
        adj[a].append((i, b))
        adj[b].append((i, a))
    best = 0

    def walk(v: int, used: frozenset, length: int) -> None:
        nonlocal best
        best = max(best, length)
        if length and v in blocked:
            return  # may end at an opponent's building, not pass it
        for i, w in adj[v]:
            if i not in used:
                walk(w, used | {i}, length + 1)

    for v in list(adj):
        walk(v, frozenset(), 0)
    return best


def check_invariants(s: CatanState, roads: bool = True) -> None:
    n = s.n
    for r in range(5):
        assert sum(s.hand[5 * p + r] for p in range(n)) + s.bank[r] == 19
    for t in range(5):
        held = sum(s.dev[5 * p + t] for p in range(n))
        assert s.deck[t] + held + s.played[t] == R.DEV_DECK[t]
    assert sum(s.deck) + sum(s.dev) + sum(s.played) == 25
    assert all(0 <= h <= c for h, c in zip(s.hidden, s.hand, strict=True))
    assert all(0 <= k <= d for k, d in zip(s.dev_new, s.dev, strict=True))
    owner, city = s.node_owner, s.node_city
    for v in range(B.NUM_NODES):
        if owner[v] >= 0:
            assert all(owner[w] < 0 for w in B.NODE_NEIGHBORS[v]), "two buildings adjacent"
    for p in range(n):
        settlements = sum(1 for v in range(B.NUM_NODES) if owner[v] == p and not city[v])
        cities = sum(1 for v in range(B.NUM_NODES) if owner[v] == p and city[v])
        road_count = s.edge_owner.count(p)
        assert s.settles_left[p] == 5 - settlements and s.cities_left[p] == 4 - cities
        assert s.roads_left[p] == 15 - road_count
        vp = settlements + 2 * cities + 2 * (s.lr_holder == p) + 2 * (s.la_holder == p)
        assert s.vp[p] == vp
        assert s.actual_vp(p) == vp + s.dev[5 * p + R.VICTORY_POINT]
    # Largest Army: the holder has 3+ knights and nobody has more
    if s.la_holder >= 0:
        assert s.knights[s.la_holder] >= 3 and s.knights[s.la_holder] == max(s.knights)
    else:
        assert max(s.knights) < 3
    if roads:
        lengths = []
        for p in range(n):
            edges = [B.EDGE_NODES[e] for e in range(B.NUM_EDGES) if s.edge_owner[e] == p]
            blocked = {v for v in range(B.NUM_NODES) if owner[v] >= 0 and owner[v] != p}
            lengths.append(brute_longest(edges, blocked))
        assert lengths == s.road_len
        top = max(lengths)
        if s.lr_holder >= 0:
            assert lengths[s.lr_holder] == top >= 5
        else:
            assert top < 5 or lengths.count(top) > 1
        if top >= 5 and lengths.count(top) == 1:
            assert s.lr_holder == lengths.index(top)


# `make test-fast` plays the first chunk; the full suite all of them.
@pytest.mark.parametrize(
    "chunk", [0, *(pytest.param(c, marks=pytest.mark.slow) for c in range(1, CHUNKS))]
)
def test_random_games_keep_every_invariant_and_replay(chunk):
    winners = defaultdict(int)
    for k in range(GAMES_PER_CHUNK):
        seed = chunk * GAMES_PER_CHUNK + k
        players = 3 + seed % 2
        options = {"tokens": "shuffled"} if seed % 5 == 0 else None
        rng = random.Random(seed)
        state = Catan.new_game(players, seed, options)
        initial = state.clone()
        log = []
        while not state.is_terminal():
            if state.is_chance_node():
                action = state.sample_chance(rng)
            else:
                actions = state.legal_actions()
                cut = len(actions)
                while actions[cut - 1] >= R.OFFER_BASE and cut > 1:
                    cut -= 1
                action = actions[int(rng.random() * cut)]
            state.apply_unchecked(action)
            log.append(action)
            if len(log) % 211 == 0:
                check_invariants(state, roads=len(log) % 633 == 0)
        check_invariants(state)
        assert sum(state.returns()) == pytest.approx(1.0)
        for w in state.winners:
            winners[w] += 1
        if state.turn_no < state.turn_limit:
            (winner,) = state.winners
            assert state.actual_vp(winner) >= 10 and state.turn == winner
        replay = initial.clone()
        for action in log:
            replay.apply_unchecked(action)
        assert replay.to_dict() == state.to_dict()
        if k % 25 == 0:  # the checked path, from the stored bytes
            again = Catan.replay(CatanState.from_bytes(initial.to_bytes()), log)
            assert again == state
    assert len(winners) >= 3  # every seat can win


def test_random_games_with_domestic_offers():
    """Random play including offers, answers and confirmations."""
    trades = drafted = 0
    for seed in range(150):
        initial, log, final = random_game(10_000 + seed, players=4, offers=True)
        check_invariants(final)
        trades += sum(1 for a in log if R.CONFIRM_BASE <= a < R.ROAD_BASE)
        drafted += log.count(R.DRAFT_MAKE)  # offers of any terms (§19a.8)
        state = initial.clone()
        for i, action in enumerate(log):
            if i % 301 == 0:
                copy = CatanState.from_bytes(state.to_bytes())
                assert copy.legal_actions() == state.legal_actions()
                check_invariants(state, roads=False)
            state.apply_unchecked(action)
        assert state == final
    assert trades > 50 and drafted > 50


def test_determinize_never_changes_what_the_seat_sees():
    for seed in range(40):
        initial, log, _ = random_game(20_000 + seed, players=3 + seed % 2, offers=seed % 3 == 0)
        state = initial.clone()
        for i, action in enumerate(log):
            if i % 41 == 0:
                for seat in range(state.n):
                    d = state.determinize(seat, random.Random(i))
                    assert d.observation(seat) == state.observation(seat)
                    check_invariants(d, roads=False)
                    if state.current_player() == seat:
                        assert d.legal_actions() == state.legal_actions()
            state.apply_unchecked(action)
