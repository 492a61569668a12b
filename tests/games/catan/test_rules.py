"""§7-§16 of catan-facts.md, each rule as a concrete position on the beginner board."""

from __future__ import annotations

import pytest

from games.base import CHANCE, TERMINAL, IllegalActionError
from games.catan import board as B
from games.catan import rules as R
from games.catan.engine import Catan

from .helpers import act, hand, legal, position

# Left coast of the board: intersections 0-3-7-11-16-21-27-33-38 along paths
# 0, 6, 10, 18, 23, 33, 39, 49.
LEFT_COAST = [0, 6, 10, 18, 23, 33, 39, 49]
# Bottom-right coast 42-46-50-53-49-52-48 along paths 61, 65, 71, 70, 69, 68.
BOTTOM_COAST = [61, 65, 71, 70, 69, 68]
# Right coast 2-6-10-15-20-26-32 along paths 5, 9, 17, 22, 32, 38.
RIGHT_COAST = [5, 9, 17, 22, 32, 38]
# The ring of paths round H0 (intersections 0, 4, 8, 12, 7, 3).
RING_H0 = [0, 1, 7, 12, 11, 6]
ROLL = {k: R.DICE_BASE + k - 2 for k in range(2, 13)}


def roll(state, total: int) -> None:
    assert state.is_chance_node()
    state.apply_action(ROLL[total])


# ---------------------------------------------------------------- §7 costs, supply, VP
def test_s7_settlement_costs_and_scores():
    s = position(
        settlements={0: [12]},
        roads={0: [11, 10]},
        hands={0: {"brick": 1, "lumber": 1, "wool": 1, "grain": 1}},
    )
    assert "settle 11" in legal(s)
    act(s, "settle 11")
    assert hand(s, 0) == {} and s.bank == [19] * 5  # spent cards return to the bank
    assert s.vp[0] == 2 and s.settles_left[0] == 3


def test_s7_city_costs_scores_and_returns_the_settlement():
    s = position(settlements={0: [12]}, hands={0: {"grain": 2, "ore": 3}})
    act(s, "city 12")
    assert hand(s, 0) == {} and s.vp[0] == 2
    assert s.settles_left[0] == 5 and s.cities_left[0] == 3 and s.node_city[12] == 1


def test_s7_road_and_dev_card_costs():
    s = position(
        settlements={0: [12]}, hands={0: {"brick": 1, "lumber": 1, "wool": 1, "grain": 1, "ore": 1}}
    )
    act(s, "road 11")
    assert hand(s, 0) == {"wool": 1, "grain": 1, "ore": 1} and s.roads_left[0] == 14
    act(s, "buy dev")
    assert s.is_chance_node() and hand(s, 0) == {}
    act(s, "draw monopoly")
    assert s.dev[3] == 1 and s.dev_count[0] == 1 and sum(s.deck) == 24


def test_s7_city_only_on_own_settlement_and_not_directly():
    s = position(settlements={0: [12], 1: [40]}, roads={0: [11]}, hands={0: {"grain": 4, "ore": 6}})
    assert {a for a in legal(s) if a.startswith("city")} == {"city 12"}
    with pytest.raises(IllegalActionError):
        act(s, "city 40")
    with pytest.raises(IllegalActionError):
        act(s, "city 7")


def test_s7_settlement_then_city_in_one_turn():
    s = position(
        settlements={0: [12]},
        roads={0: [11, 10]},
        hands={0: {"brick": 1, "lumber": 1, "wool": 1, "grain": 3, "ore": 3}},
    )
    act(s, "settle 11", "city 11")
    assert s.node_city[11] == 1 and s.vp[0] == 3


# ---------------------------------------------------------------- §8 set-up
def test_s8_snake_order_and_second_settlement_resources():
    s = Catan.new_game(4, 3, {"board": "beginner"})
    start = s.start_seat
    order = [s.setup_seat(i) for i in range(8)]
    assert order == [(start + k) % 4 for k in (0, 1, 2, 3, 3, 2, 1, 0)]
    spots = [(12, 19), (18, 27), (30, 36), (40, 57), (1, 2), (25, 30), (43, 62), (49, 69)]
    for i, ((v, e), seat) in enumerate(zip(spots, order, strict=True)):
        assert s.current_player() == seat and s.phase == R.SETUP_SETTLE
        act(s, f"settle {v}")
        assert s.phase == R.SETUP_ROAD
        assert legal(s) == {f"road {p}" for p in B.NODE_EDGES[v]}  # touching that settlement
        act(s, f"road {e}")
        if i < 4:
            assert sum(s.hand) == 0  # the first settlement yields nothing
    # second settlements: 1 (H1 pasture), 25 (H6 hills, H10 forest, H11 mountains),
    # 43 (H12 forest, H16 hills), 49 (H17 fields, H18 pasture)
    assert hand(s, order[4]) == {"wool": 1}
    assert hand(s, order[5]) == {"brick": 1, "lumber": 1, "ore": 1}
    assert hand(s, order[6]) == {"brick": 1, "lumber": 1}
    assert hand(s, order[7]) == {"wool": 1, "grain": 1}
    # the starting player takes the first normal turn
    assert s.turn == start and s.turn_no == 1 and s.current_player() == CHANCE


def test_s8_setup_distance_rule_and_no_connection_needed():
    s = Catan.new_game(3, 0, {"board": "beginner"})
    act(s, "settle 12", "road 19")
    spots = legal(s)
    for w in (12, 7, 8, 17):
        assert f"settle {w}" not in spots
    assert "settle 53" in spots  # anywhere else, no road needed


# ---------------------------------------------------------------- §9 turn structure
def test_s9_before_the_roll_only_roll_or_a_card():
    s = position(
        phase="pre-roll",
        settlements={0: [12]},
        roads={0: [11]},
        hands={0: {"brick": 5, "lumber": 5, "wool": 5, "grain": 5, "ore": 5}},
        dev={0: {"knight": 1}},
    )
    assert legal(s) == {"roll", "play knight"}


def test_s9_no_dev_card_goes_straight_to_the_dice():
    s = position(settlements={0: [12], 1: [40]}, roads={0: [11]})
    act(s, "end")
    assert s.turn == 1 and s.current_player() == CHANCE and s.phase == R.ROLL_DICE


def test_s9_trade_and_build_interleave_after_the_roll():
    s = position(
        settlements={0: [0]},  # 3:1 harbor at intersections 0/3
        roads={0: [0]},
        hands={0: {"ore": 3, "lumber": 1, "wool": 3}},
    )
    act(s, "bank 3 ore for brick", "road 6", "bank 3 wool for brick")
    assert hand(s, 0) == {"brick": 1} and s.edge_owner[6] == 0
    act(s, "end")
    assert s.turn == 1  # the dice pass to the left


# ---------------------------------------------------------------- §10 production
def test_s10_settlements_cities_and_every_player_collect():
    # a 6: H4 (hills) and H17 (fields)
    s = position(
        phase="roll",
        settlements={0: [12, 44], 2: [45]},
        cities={1: [18]},
    )
    roll(s, 6)
    assert hand(s, 0) == {"brick": 1, "grain": 1}
    assert hand(s, 1) == {"brick": 2}
    assert hand(s, 2) == {"grain": 1}
    assert s.phase == R.MAIN and s.current_player() == 0


def test_s10_robber_blocks_only_its_hex():
    s = position(phase="roll", settlements={0: [12, 44]}, robber=4)
    roll(s, 6)
    assert hand(s, 0) == {"grain": 1}


def test_s10_city_yields_two_per_hex():
    # intersection 25: H6 hills 10, H10 forest 3, H11 mountains 8
    s = position(phase="roll", cities={0: [25]})
    roll(s, 10)
    assert hand(s, 0) == {"brick": 2}


# ---------------------------------------------------------------- §11 a seven
def test_s11_seven_discards_half_rounded_down_roller_included():
    s = position(
        phase="roll",
        settlements={0: [12], 1: [18], 2: [40]},
        hands={0: {"brick": 9}, 1: {"ore": 4, "wool": 4}, 2: {"grain": 7}},
        dev={2: {"knight": 3}},  # development cards do not count
    )
    roll(s, 7)
    assert s.phase == R.DISCARD and s.current_player() == 0 and s.discard_left == 4
    assert s.discard_queue == [0, 1]
    act(s, *["discard brick"] * 4)
    assert s.current_player() == 1 and s.discard_left == 4
    assert legal(s) == {"discard ore", "discard wool"}
    act(s, "discard ore", "discard ore", "discard wool", "discard ore")
    assert (
        hand(s, 1) == {"wool": 3, "ore": 1}
        and hand(s, 2) == {"grain": 7}
        and hand(s, 0) == {"brick": 5}
    )
    assert s.phase == R.ROBBER and s.current_player() == 0


def test_s11_no_production_on_a_seven_and_robber_must_move():
    s = position(phase="roll", settlements={0: [12]}, robber=4)
    roll(s, 7)
    assert sum(s.hand) == 0 and s.phase == R.ROBBER
    moves = legal(s)
    assert "robber 4" not in moves and not any(m.startswith("robber 4 ") for m in moves)
    assert "robber 9" in moves  # the desert is allowed
    assert len(moves) == 18


def test_s11_steal_from_an_adjacent_opponent_of_the_rollers_choice():
    # H4 touches 8, 13, 18, 23, 17, 12
    s = position(
        phase="robber",
        settlements={0: [40], 1: [18], 2: [12]},
        hands={1: {"ore": 2}, 2: {"wool": 1}},
    )
    moves = legal(s)
    assert {"robber 4 rob 1", "robber 4 rob 2"} <= moves and "robber 4" not in moves
    assert "robber 4 rob 0" not in moves  # never from oneself
    act(s, "robber 4 rob 1")
    assert s.is_chance_node() and s.chance_outcomes() == [(R.STEAL_BASE + R.ORE, 1.0)]
    act(s, "steal ore from 1")
    assert hand(s, 0) == {"ore": 1} and hand(s, 1) == {"ore": 1}
    assert s.phase == R.MAIN and s.robber == 4


def test_s11_victim_without_cards_gives_nothing():
    s = position(phase="robber", settlements={0: [40], 1: [18]})
    assert "robber 4" in legal(s)  # seat 1 holds no card: no one to rob
    act(s, "robber 4")
    assert s.phase == R.MAIN


# ---------------------------------------------------------------- §12 trading
def test_s12_maritime_rates():
    base = {"settlements": {0: [40]}, "hands": {0: {"wool": 4, "ore": 2}}}
    s = position(**base)
    assert {a for a in legal(s) if a.startswith("bank")} == {
        f"bank 4 wool for {r}" for r in ("brick", "lumber", "grain", "ore")
    }
    # generic harbor at 0/3
    s = position(settlements={0: [40, 3]}, hands={0: {"wool": 3, "ore": 2}})
    assert "bank 3 wool for brick" in legal(s) and not any("ore for" in a for a in legal(s))
    # wool 2:1 harbor at 1/5 (beginner board) helps wool only
    s = position(settlements={0: [40, 5]}, hands={0: {"wool": 2, "ore": 3}})
    moves = legal(s)
    assert "bank 2 wool for ore" in moves and not any(a.startswith("bank 4 ore") for a in moves)
    act(s, "bank 2 wool for grain")
    assert hand(s, 0) == {"grain": 1, "ore": 3}


def test_s12_maritime_repeats_and_needs_identical_cards():
    s = position(settlements={0: [40]}, hands={0: {"brick": 8, "lumber": 3, "wool": 1}})
    moves = legal(s)
    assert not any(a.startswith("bank 4 lumber") or a.startswith("bank 4 wool") for a in moves)
    act(s, "bank 4 brick for ore", "bank 4 brick for ore")
    assert hand(s, 0) == {"lumber": 3, "wool": 1, "ore": 2}


def test_s12_domestic_trade_full_protocol():
    s = position(
        settlements={0: [40], 1: [18], 2: [12], 3: [25]},
        hands={0: {"wool": 2}, 1: {"ore": 1}, 2: {"ore": 2}, 3: {"grain": 1}},
    )
    act(s, "give 2 wool get 1 ore")
    assert s.phase == R.TRADE_ANSWER and s.current_player() == 1
    act(s, "accept")
    assert s.current_player() == 2
    act(s, "accept")
    assert s.current_player() == 3
    assert legal(s) == {"decline"}  # holds no ore
    act(s, "decline")
    assert s.current_player() == 0 and legal(s) == {"cancel", "trade with 1", "trade with 2"}
    act(s, "trade with 2")
    assert hand(s, 0) == {"ore": 1} and hand(s, 2) == {"wool": 2, "ore": 1}
    assert s.phase == R.MAIN and s.offers_made == 1


# ---------------------------------------------------------------- §13 building
def test_s13_road_must_connect_and_not_through_opponents():
    # seat 0: settlement 12, roads 11 (12-7), 10 (7-11); seat 1 has a settlement on 7? no:
    # seat 1's settlement on 16 caps the road 18 (11-16) for seat 0.
    s = position(
        settlements={0: [12], 1: [16]},
        roads={0: [11, 10, 18]},
        hands={0: {"brick": 3, "lumber": 3}},
    )
    roads = {a for a in legal(s) if a.startswith("road")}
    # from 12: 12 (8-12), 19 (12-17); from 7: 6 (3-7); from 11: none new; 16 is seat 1's
    assert roads == {"road 12", "road 19", "road 6"}
    assert "road 23" not in roads and "road 24" not in roads


def test_s13_settlement_needs_own_road_and_distance():
    s = position(
        settlements={0: [12], 1: [22]},
        roads={0: [11, 10, 19, 25]},
        hands={0: {"brick": 2, "lumber": 2, "wool": 2, "grain": 2}},
    )
    spots = {a for a in legal(s) if a.startswith("settle")}
    # road nodes: 12, 7, 11, 17, 22: 7 and 17 are next to 12, 22 is taken,
    # 11 is fine; 17 is also next to 22
    assert spots == {"settle 11"}


def test_s13_settlement_on_an_opponents_road_cuts_it():
    s = position(
        turn=1,
        settlements={0: [0], 1: [17]},
        roads={0: LEFT_COAST[:6], 1: [19, 11]},  # seat 0: 0-3-7-11-16-21-27
        hands={1: {"brick": 1, "lumber": 1, "wool": 1, "grain": 1}},
        lr_holder=0,
    )
    assert s.road_len[0] == 6 and s.vp[0] == 3
    act(s, "settle 7")
    assert s.road_len[0] == 4  # 7-11-16-21-27; 0-3-7 is 2
    assert s.lr_holder == -1 and s.vp[0] == 1  # nobody has 5: set aside
    # seat 0 can no longer extend through 7
    assert not s.road_cand[0] & ~s.edges_used & (1 << 11)


# ---------------------------------------------------------------- §14 development cards
def test_s14_knight_moves_robber_steals_and_counts():
    s = position(
        phase="pre-roll",
        settlements={0: [40], 1: [18]},
        hands={1: {"brick": 1}},
        dev={0: {"knight": 1}},
    )
    act(s, "play knight")
    assert s.phase == R.ROBBER and s.knights[0] == 1 and s.dev_count[0] == 0
    act(s, "robber 4 rob 1", "steal brick from 1")
    # played before the roll: the dice come next
    assert s.phase == R.ROLL_DICE and s.rolled is False and hand(s, 0) == {"brick": 1}


def test_s14_road_building_places_two_free_roads():
    s = position(settlements={0: [12]}, roads={0: [11]}, dev={0: {"road-building": 1}})
    act(s, "play road-building")
    assert s.phase == R.FREE_ROADS and "stop" not in legal(s)
    act(s, "road 10")
    assert "stop" in legal(s)
    act(s, "road 18")
    assert s.phase == R.MAIN and s.roads_left[0] == 12 and sum(s.hand) == 0


def test_s14_year_of_plenty_and_monopoly():
    s = position(settlements={0: [12]}, dev={0: {"year-of-plenty": 1}})
    act(s, "play year-of-plenty ore ore")
    assert hand(s, 0) == {"ore": 2} and s.bank[R.ORE] == 17
    assert not any(a.startswith("play") for a in legal(s))  # one card per turn
    s = position(
        settlements={0: [12]},
        dev={0: {"monopoly": 1}},
        hands={0: {"grain": 1}, 1: {"grain": 3, "ore": 1}, 2: {"grain": 2}},
    )
    act(s, "play monopoly grain")
    assert hand(s, 0) == {"grain": 6} and hand(s, 1) == {"ore": 1} and hand(s, 2) == {}


def test_s14_timing_one_card_per_turn_and_not_the_turn_bought():
    s = position(
        settlements={0: [12]},
        hands={0: {"wool": 1, "grain": 1, "ore": 1}},
        dev={0: {"knight": 2}},
    )
    act(s, "buy dev", "draw monopoly")
    moves = legal(s)
    assert "play knight" in moves and not any("monopoly" in a for a in moves)
    act(s, "play knight", "robber 4")
    assert not any(a.startswith("play") for a in legal(s))
    act(s, "end")
    # next own turn: the monopoly is playable
    for _ in range(3):
        roll(s, 5)
        act(s, "end")
    assert s.turn == 0 and s.phase == R.PRE_ROLL
    assert {"play knight", "play monopoly ore"} <= legal(s)


def test_s14_cards_only_on_own_turn():
    s = position(
        settlements={0: [40], 1: [12], 2: [18]},
        hands={0: {"wool": 1}, 1: {"ore": 1}},
        dev={1: {"knight": 1}},
    )
    act(s, "give 1 wool get 1 ore")
    assert s.current_player() == 1 and legal(s) == {"accept", "decline"}


# ---------------------------------------------------------------- §15 special cards
def test_s15_first_to_five_takes_longest_road():
    s = position(
        settlements={0: [0]}, roads={0: LEFT_COAST[:4]}, hands={0: {"brick": 1, "lumber": 1}}
    )
    assert s.road_len[0] == 4 and s.lr_holder == -1
    act(s, "road 23")
    assert s.road_len[0] == 5 and s.lr_holder == 0 and s.vp[0] == 3


def test_s15_fork_counts_one_branch_and_loops_count():
    # fork: 3-7, 7-11, 11-16, 16-21 plus a branch 7-12, 12-17
    s = position(settlements={0: [3]}, roads={0: [6, 10, 18, 23, 11, 19]})
    assert s.road_len[0] == 5  # 17-12-7-11-16-21
    ring = position(settlements={0: [0]}, roads={0: RING_H0})
    assert ring.road_len[0] == 6
    tail = position(settlements={0: [0]}, roads={0: [*RING_H0, 19]})
    assert tail.road_len[0] == 7  # round the ring and out along 12-17


def test_s15_own_buildings_do_not_break_opponents_do():
    own = position(settlements={0: [0, 11, 27]}, roads={0: LEFT_COAST[:6]})
    assert own.road_len[0] == 6
    cut = position(settlements={0: [0], 1: [11]}, roads={0: LEFT_COAST[:6]})
    assert cut.road_len[0] == 3  # 0-3-7-11 | 11-16-21-27


def test_s15_tie_keeps_holder_longer_takes():
    s = position(
        turn=1,
        settlements={0: [0], 1: [42]},
        roads={0: LEFT_COAST[:5], 1: BOTTOM_COAST[:4]},
        hands={1: {"brick": 2, "lumber": 2}},
        lr_holder=0,
    )
    act(s, "road 69")
    assert s.road_len[1] == 5 and s.lr_holder == 0  # a tie keeps the holder (E6)
    act(s, "road 68")
    assert s.road_len[1] == 6 and s.lr_holder == 1 and s.vp == [1, 3, 0, 0]


def _broken(holder_roads, others):
    """Seat 1 settles on 7, cutting seat 0's left-coast road."""
    settlements = {0: [0], 1: [17]}
    roads = {0: holder_roads, 1: [19, 11]}
    for seat, (home, path) in others.items():
        settlements[seat] = [home]
        roads[seat] = path
    s = position(
        turn=1,
        settlements=settlements,
        roads=roads,
        hands={1: {"brick": 1, "lumber": 1, "wool": 1, "grain": 1}},
        lr_holder=0,
    )
    act(s, "settle 7")
    return s


def test_s15_break_holder_keeps_on_tie():
    s = _broken(LEFT_COAST[:7], {2: (42, BOTTOM_COAST[:5])})
    assert s.road_len[0] == 5 and s.road_len[2] == 5 and s.lr_holder == 0


def test_s15_break_others_tie_sets_card_aside_then_it_returns():
    s = _broken(LEFT_COAST[:6], {2: (42, BOTTOM_COAST[:5]), 3: (2, RIGHT_COAST[:5])})
    assert s.road_len[0] == 4 and s.lr_holder == -1 and s.vp[0] == 1
    # set aside until exactly one player has the longest road of 5+
    data = s.to_dict()
    data["turn"] = 2
    data["hand"][10:12] = [1, 1]
    data["bank"][0] -= 1
    data["bank"][1] -= 1
    s = type(s).from_dict(data)
    act(s, "road 68")
    assert s.road_len[2] == 6 and s.lr_holder == 2


def test_s15_break_single_longest_other_takes_it():
    s = _broken(LEFT_COAST[:6], {2: (42, BOTTOM_COAST[:5])})
    assert s.lr_holder == 2 and s.vp[2] == 3 and s.vp[0] == 1


def test_s15_largest_army():
    s = position(knights={0: 2}, dev={0: {"knight": 1}}, settlements={0: [40]})
    act(s, "play knight")
    assert s.la_holder == 0 and s.vp[0] == 3
    # another player needs more, not as many
    t = position(
        turn=1,
        knights={0: 3, 1: 2},
        dev={1: {"knight": 2}},
        settlements={0: [40], 1: [12]},
        la_holder=0,
    )
    act(t, "play knight")
    assert t.knights[1] == 3 and t.la_holder == 0 and t.vp[1] == 1


def test_s15_largest_army_moves_on_more_knights():
    t = position(
        turn=1,
        knights={0: 3, 1: 3},
        dev={1: {"knight": 1}},
        settlements={0: [40], 1: [12]},
        la_holder=0,
    )
    act(t, "play knight")
    assert t.la_holder == 1 and t.vp == [1, 3, 0, 0]


# ---------------------------------------------------------------- §16 victory
def test_s16_ten_on_own_turn_wins_at_once_with_vp_cards():
    s = position(
        settlements={0: [40, 12]},
        cities={0: [25, 1, 47]},
        dev={0: {"victory-point": 1}},
        hands={0: {"grain": 2, "ore": 3}},
    )
    assert s.actual_vp(0) == 9 and not s.is_terminal()
    act(s, "city 40")
    assert s.is_terminal() and s.returns() == [1.0, 0.0, 0.0, 0.0]
    assert s.current_player() == TERMINAL and s.legal_actions() == []


def test_s16_buying_the_tenth_point_wins():
    s = position(
        settlements={0: [40]},
        cities={0: [25, 1, 47, 12]},
        hands={0: {"wool": 1, "grain": 1, "ore": 1}},
    )
    act(s, "buy dev", "draw victory-point")
    assert s.is_terminal() and s.winners == [0]


# ---------------------------------------------------------------- §18 variants stay off
def test_s18_optional_variants_are_off():
    # no friendly robber: a seat with 2 VP (one settlement... here 1) may be robbed
    s = position(phase="robber", robber=4, settlements={0: [40], 1: [12]}, hands={1: {"ore": 1}})
    assert s.vp[1] < 3 and "robber 0 rob 1" in legal(s)
    # the robber may go back to the desert, and 7s count from the very first turn
    assert "robber 9" in legal(s)
    first = Catan.new_game(3, 0, {"board": "beginner"})
    for v, e in [(12, 19), (18, 27), (30, 36), (40, 57), (1, 2), (25, 30)]:
        act(first, f"settle {v}", f"road {e}")
    assert first.turn_no == 1
    roll(first, 7)
    assert first.phase == R.ROBBER
