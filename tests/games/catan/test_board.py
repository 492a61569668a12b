"""§1-§6: components, geometry, terrain, number tokens, harbors, beginner layout."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.base import OptionsError
from games.catan import board as B
from games.catan import rules as R
from games.catan.engine import BEGINNER_HARBORS, Catan, make_board, red_neighbours
from games.catan.roads import longest_road, longest_road_after

from .helpers import act, hand, legal


# ---------------------------------------------------------------- §1 components
def test_s1_components_of_a_new_game():
    s = Catan.new_game(4, 1)
    assert s.bank == [19] * 5 and sum(s.bank) == 95
    assert s.deck == [14, 2, 2, 2, 5] and sum(s.deck) == 25
    assert Counter(s.hex_terrain) == {0: 3, 1: 4, 2: 4, 3: 4, 4: 3, 5: 1}
    assert sorted(Counter(s.harbor_type).items()) == [
        (0, 1),
        (1, 1),
        (2, 1),
        (3, 1),
        (4, 1),
        (5, 4),
    ]
    assert s.roads_left == [15] * 4 and s.settles_left == [5] * 4 and s.cities_left == [4] * 4
    assert s.hex_terrain[s.robber] == R.DESERT  # the robber starts on the desert
    assert s.lr_holder == s.la_holder == -1


# ---------------------------------------------------------------- §2 geometry
def test_s2_geometry_counts():
    assert len(B.HEX_NODES) == 19 and B.NUM_NODES == 54 and B.NUM_EDGES == 72
    assert len(B.COAST_NODES) == 30 and len(B.COAST_EDGES) == 30
    assert all(1 <= len(hexes) <= 3 for hexes in B.NODE_HEXES)
    assert {len(hexes) for v, hexes in enumerate(B.NODE_HEXES) if v in B.COAST_NODES} == {1, 2}
    # every path joins two intersections that are neighbours
    for a, b in B.EDGE_NODES:
        assert b in B.NODE_NEIGHBORS[a] and a in B.NODE_NEIGHBORS[b]
    assert sum(len(n) for n in B.NODE_NEIGHBORS) == 2 * 72
    # rows of 3-4-5-4-3: hex 9 is the centre with 6 neighbours
    assert B.ROW_LENGTHS == (3, 4, 5, 4, 3) and len(B.HEX_NEIGHBORS[9]) == 6


def test_s2_harbors_serve_two_coastal_intersections_each():
    nodes = [v for spot in B.HARBOR_NODES for v in spot]
    assert len(B.HARBOR_NODES) == 9 and len(set(nodes)) == 18
    assert set(nodes) <= set(B.COAST_NODES)
    assert set(B.HARBOR_EDGES) <= set(B.COAST_EDGES)


# ---------------------------------------------------------------- §3 terrain
@pytest.mark.parametrize("terrain", range(5))
def test_s3_each_terrain_produces_its_resource(terrain):
    # find a beginner hex of this terrain and put a settlement on its corner
    s = Catan.new_game(3, 0, {"board": "beginner"})
    hx = s.hex_terrain.index(terrain)
    number = s.hex_number[hx]
    from .helpers import position

    node = B.HEX_NODES[hx][0]
    p = position(3, phase="roll", settlements={0: [node]})
    p.apply_action(R.DICE_BASE + number - 2)
    got = {r: k for r, k in hand(p, 0).items()}
    assert got.get(R.RESOURCE_NAMES[terrain], 0) >= 1
    assert set(got) <= {R.RESOURCE_NAMES[s.hex_terrain[h]] for h in B.NODE_HEXES[node]}


def test_s3_desert_gives_nothing_in_setup():
    s = Catan.new_game(3, 0, {"board": "beginner"})
    # node 29 touches H8 (forest), H9 (desert), H13 (mountains)
    order = [s.setup_seat(i) for i in range(6)]
    spots = [(0, 0), (2, 4), (11, 18), (44, 63), (29, 42), (51, 66)]
    for (v, e), seat in zip(spots, order, strict=True):
        assert s.current_player() == seat
        act(s, f"settle {v}", f"road {e}")
    assert hand(s, order[4]) == {"lumber": 1, "ore": 1}


# ---------------------------------------------------------------- §4 tokens
def test_s4_token_distribution_and_letter_order():
    assert Counter(R.TOKEN_LETTER_ORDER) == {
        2: 1,
        12: 1,
        3: 2,
        4: 2,
        5: 2,
        6: 2,
        8: 2,
        9: 2,
        10: 2,
        11: 2,
    }
    assert sum(R.DICE_WAYS[k] for k in R.TOKEN_LETTER_ORDER) == 58  # pips on the board
    assert sum(R.DICE_WAYS) == 36


def test_s4_spiral_never_puts_reds_side_by_side():
    """All 6 corners x 2 directions x 19 desert spots: 228 layouts, none with adjacent reds."""
    layouts = 0
    for corner in range(6):
        for clockwise in (True, False):
            order = B.spiral_order(corner, clockwise)
            assert sorted(order) == list(range(19))
            for desert in range(19):
                numbers = [0] * 19
                tokens = iter(R.TOKEN_LETTER_ORDER)
                for hx in order:
                    if hx != desert:
                        numbers[hx] = next(tokens)
                assert not red_neighbours(numbers)
                layouts += 1
    assert layouts == 228


def test_s4_wrong_inner_start_would_put_reds_together():
    """The check that makes the spiral test meaningful: starting the inner ring at
    the other inner neighbour of the 12th hex gives adjacent reds on some boards."""
    bad = 0
    for corner in range(6):
        for clockwise in (True, False):
            order = B.spiral_order(corner, clockwise)
            outer, inner = order[:12], order[12:18]
            twelfth = outer[-1]
            other = next(h for h in B.INNER_RING if h in B.HEX_NEIGHBORS[twelfth] and h != inner[0])
            step = 1 if clockwise else -1
            i = B.INNER_RING.index(other)
            wrong = (*outer, *(B.INNER_RING[(i + step * k) % 6] for k in range(6)), B.CENTRE)
            for desert in range(19):
                numbers = [0] * 19
                tokens = iter(R.TOKEN_LETTER_ORDER)
                for hx in wrong:
                    if hx != desert:
                        numbers[hx] = next(tokens)
                bad += red_neighbours(numbers)
    assert bad > 0


def test_s4_spiral_boards_follow_letter_order():
    for seed in range(40):
        s = Catan.new_game(4, seed)
        matches = []
        for corner in range(6):
            for clockwise in (True, False):
                seq = [
                    s.hex_number[h] for h in B.spiral_order(corner, clockwise) if s.hex_number[h]
                ]
                matches.append(seq == list(R.TOKEN_LETTER_ORDER))
        assert any(matches)
        assert s.hex_number[s.hex_terrain.index(R.DESERT)] == 0


@pytest.mark.parametrize("tokens", ["spiral", "shuffled"])
def test_s4_random_boards_are_valid(tokens):
    seen = set()
    for seed in range(150):
        terrain, numbers, harbors = make_board(random.Random(seed), "random", tokens)
        assert Counter(terrain) == Counter(
            t for t, c in enumerate(R.TERRAIN_COUNTS) for _ in range(c)
        )
        assert sorted(k for k in numbers if k) == sorted(R.TOKEN_LETTER_ORDER)
        assert numbers[terrain.index(R.DESERT)] == 0
        assert not red_neighbours(numbers)
        assert sorted(harbors) == sorted(R.HARBOR_TYPES)
        seen.add((terrain, numbers, harbors))
    assert len(seen) == 150  # boards really vary with the seed


def test_s4_shuffled_tokens_are_not_the_spiral_sequence():
    off_spiral = 0
    for seed in range(30):
        s = Catan.new_game(4, seed, {"tokens": "shuffled"})
        seqs = [
            [s.hex_number[h] for h in B.spiral_order(c, cw) if s.hex_number[h]]
            for c in range(6)
            for cw in (True, False)
        ]
        off_spiral += list(R.TOKEN_LETTER_ORDER) not in seqs
    assert off_spiral >= 25


# ---------------------------------------------------------------- §5 harbors
def test_s5_harbor_positions_fixed_types_shuffled():
    types = {Catan.new_game(4, seed).harbor_type for seed in range(20)}
    assert len(types) > 1
    for t in types:
        assert sorted(t) == sorted(R.HARBOR_TYPES)


# ---------------------------------------------------------------- §6 beginner layout
def test_s6_beginner_layout():
    s = Catan.new_game(3, 7, {"board": "beginner"})
    rows = [
        "mountains 10, pasture 2, forest 9",
        "fields 12, hills 6, pasture 4, hills 10",
        "fields 9, forest 11, desert 0, forest 3, mountains 8",
        "forest 8, mountains 3, fields 4, pasture 5",
        "hills 5, fields 6, pasture 11",
    ]
    got = [f"{R.TERRAIN_NAMES[t]} {k}" for t, k in zip(s.hex_terrain, s.hex_number, strict=True)]
    want = [cell for row in rows for cell in row.split(", ")]
    assert got == want
    assert s.robber == 9 == B.CENTRE and s.hex_terrain[9] == R.DESERT
    assert s.harbor_type == BEGINNER_HARBORS
    assert not red_neighbours(s.hex_number)
    # the same board whatever the seed; set-up is the normal snake
    assert Catan.new_game(3, 99, {"board": "beginner"}).hex_number == s.hex_number
    assert s.phase == R.SETUP_SETTLE and len(legal(s)) == 54


def test_options_are_checked():
    with pytest.raises(OptionsError):
        Catan.new_game(4, 0, {"board": "hexagonal"})
    with pytest.raises(OptionsError):
        Catan.new_game(4, 0, {"tokens": "sorted"})
    with pytest.raises(OptionsError):
        Catan.new_game(4, 0, {"turn_limit": "0"})
    with pytest.raises(OptionsError):
        Catan.new_game(2, 0)
    s = Catan.new_game(3, 0, {"turn_limit": "50", "board": "beginner"})
    assert s.turn_limit == 50 and s.board_kind == "beginner"


def test_longest_road_after_a_new_road_equals_the_full_count():
    """The incremental count (one new edge) agrees with counting from scratch, on random
    road networks grown edge by edge with random blocked intersections."""
    rng = random.Random(5)
    for _ in range(300):
        blocked = sum(1 << v for v in rng.sample(range(B.NUM_NODES), rng.randrange(0, 8)))
        roads = 0
        length = 0
        start = rng.randrange(B.NUM_EDGES)
        frontier = {start}
        for _ in range(rng.randrange(1, 16)):
            edge = rng.choice(sorted(frontier))
            roads |= 1 << edge
            length = longest_road_after(roads, blocked, edge, length)
            assert length == longest_road(roads, blocked)
            a, b = B.EDGE_NODES[edge]
            frontier |= {e for v in (a, b) for e in B.NODE_EDGES[v] if not roads >> e & 1}
            frontier.discard(edge)
            if not frontier:
                break
