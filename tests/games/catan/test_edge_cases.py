"""§17 edge cases E1-E20 and the fixed decisions of §19a, as concrete positions."""

from __future__ import annotations

import random

import pytest

from games.base import CHANCE, TERMINAL, IllegalActionError, NotationError
from games.catan import rules as R
from games.catan.engine import Catan, make_board, red_neighbours

from .helpers import act, hand, legal, position
from .test_rules import BOTTOM_COAST, LEFT_COAST, roll

# 15 connected paths from intersection 0 down the left coast and along the bottom.
FIFTEEN = [*LEFT_COAST, 54, 62, 66, 67, 68, 69, 70]


# ---------------------------------------------------------------- E1 bank shortage
def test_e1_short_type_goes_to_nobody_other_types_paid():
    # a 6: H4 hills (12: seat 0 settlement, 18: seat 1 city) and H17 fields (45: seat 2)
    s = position(
        phase="roll",
        settlements={0: [12], 2: [45]},
        cities={1: [18]},
        bank={"brick": 2, "lumber": 19, "wool": 19, "grain": 19, "ore": 19},
    )
    roll(s, 6)
    assert hand(s, 0) == {} and hand(s, 1) == {} and s.bank[R.BRICK] == 2
    assert hand(s, 2) == {"grain": 1}


def test_e1_a_single_entitled_player_takes_what_is_left():
    s = position(
        phase="roll",
        cities={1: [18]},
        bank={"brick": 1, "lumber": 19, "wool": 19, "grain": 19, "ore": 19},
    )
    roll(s, 6)
    assert hand(s, 1) == {"brick": 1} and s.bank[R.BRICK] == 0
    # one player with two buildings on the hex is still a single player
    s = position(
        phase="roll",
        settlements={0: [12, 23]},
        bank={"brick": 1, "lumber": 19, "wool": 19, "grain": 19, "ore": 19},
    )
    roll(s, 6)
    assert hand(s, 0) == {"brick": 1} and s.bank[R.BRICK] == 0


def test_e1_enough_cards_pays_everyone():
    s = position(
        phase="roll",
        settlements={0: [12]},
        cities={1: [18]},
        bank={"brick": 3, "lumber": 19, "wool": 19, "grain": 19, "ore": 19},
    )
    roll(s, 6)
    assert hand(s, 0) == {"brick": 1} and hand(s, 1) == {"brick": 2} and s.bank[R.BRICK] == 0


# ---------------------------------------------------------------- E2 bank short for YOP/maritime
def test_e2_no_maritime_trade_for_a_depleted_resource():
    s = position(
        settlements={0: [40]},
        hands={0: {"brick": 4}},
        bank={"brick": 15, "lumber": 19, "wool": 19, "grain": 19, "ore": 0},
        spare=1,
    )
    moves = legal(s)
    assert "bank 4 brick for grain" in moves and "bank 4 brick for ore" not in moves


def test_e2_and_19a1_year_of_plenty_with_a_short_bank():
    empty = {"brick": 0, "lumber": 0, "wool": 0, "grain": 0, "ore": 0}
    # two cards of the player's choice from what the bank holds
    s = position(
        settlements={0: [40]},
        dev={0: {"year-of-plenty": 1}},
        bank={**empty, "ore": 1, "wool": 5},
        spare=1,
    )
    yop = {a for a in legal(s) if "year-of-plenty" in a}
    assert yop == {"play year-of-plenty wool wool", "play year-of-plenty wool ore"}
    # a single card when the bank holds exactly one
    s = position(
        settlements={0: [40]}, dev={0: {"year-of-plenty": 1}}, bank={**empty, "ore": 1}, spare=1
    )
    assert {a for a in legal(s) if "year-of-plenty" in a} == {"play year-of-plenty ore"}
    act(s, "play year-of-plenty ore")
    assert hand(s, 0) == {"ore": 1} and sum(s.bank) == 0
    # not playable with an empty bank
    s = position(settlements={0: [40]}, dev={0: {"year-of-plenty": 1}}, bank=empty, spare=1)
    assert not any("year-of-plenty" in a for a in legal(s))


# ---------------------------------------------------------------- E3 empty deck
def test_e3_no_purchase_from_an_empty_deck():
    s = position(
        settlements={0: [40]},
        hands={0: {"wool": 1, "grain": 1, "ore": 1}},
        knights={1: 14},
        played={"road-building": 2, "year-of-plenty": 2, "monopoly": 2},
        dev={2: {"victory-point": 5}},
        la_holder=1,
    )
    assert sum(s.deck) == 0 and "buy dev" not in legal(s)


# ---------------------------------------------------------------- E4 road building limits
def test_e4_and_19a2_road_building_needs_a_road_and_a_place():
    full = position(settlements={0: [0]}, roads={0: FIFTEEN}, dev={0: {"road-building": 1}})
    assert full.roads_left[0] == 0 and "play road-building" not in legal(full)
    # boxed in: both paths from intersection 0 are seat 1's
    boxed = position(
        settlements={0: [0], 1: [7, 8]},
        roads={1: [6, 0, 7, 1]},
        dev={0: {"road-building": 1}},
    )
    assert "play road-building" not in legal(boxed)
    # one road left: place one and the card is done
    one = position(settlements={0: [0]}, roads={0: FIFTEEN[:14]}, dev={0: {"road-building": 1}})
    act(one, "play road-building", "road 70")
    assert one.phase == R.MAIN and one.roads_left[0] == 0


def test_e4_free_roads_take_longest_road_at_once():
    s = position(settlements={0: [0]}, roads={0: LEFT_COAST[:3]}, dev={0: {"road-building": 1}})
    act(s, "play road-building", "road 18")
    assert s.lr_holder == -1
    act(s, "road 23")
    assert s.lr_holder == 0 and s.vp[0] == 3


def test_e4_stops_early_when_no_second_place_exists():
    # one free path only: 0-3 is open, 3's other path 3-7 is seat 1's and 7 is seat 1's
    s = position(
        settlements={0: [0], 1: [7, 8]},
        roads={1: [6, 7, 1]},
        dev={0: {"road-building": 1}},
    )
    act(s, "play road-building", "road 0")
    assert s.phase == R.MAIN and s.roads_left[0] == 14


def test_19a3_may_stop_after_the_first_free_road():
    s = position(settlements={0: [0]}, dev={0: {"road-building": 1}})
    act(s, "play road-building")
    with pytest.raises(IllegalActionError):
        act(s, "stop")
    act(s, "road 0", "stop")
    assert s.phase == R.MAIN and s.roads_left[0] == 14 and s.free_roads == 0


# ---------------------------------------------------------------- E5/E6 longest road
def test_e5_roads_capped_by_opponents_at_both_ends_count():
    s = position(settlements={0: [7], 1: [0], 2: [21]}, roads={0: LEFT_COAST[:5]})
    assert s.road_len[0] == 5  # 0-3-7-11-16-21, both ends opponents' buildings


def test_e5_break_recomputes_the_others_and_never_lands_on_a_short_road():
    # seat 0 holds with 6; seat 2 has 4; seat 1's settlement on 7 cuts seat 0 to 4
    s = position(
        turn=1,
        settlements={0: [0], 1: [17], 2: [42]},
        roads={0: LEFT_COAST[:6], 1: [19, 11], 2: BOTTOM_COAST[:4]},
        hands={1: {"brick": 1, "lumber": 1, "wool": 1, "grain": 1}},
        lr_holder=0,
    )
    act(s, "settle 7")
    assert s.road_len == [4, 2, 4, 0] and s.lr_holder == -1  # set aside, not given to a 4


def test_e6_equal_length_keeps_strictly_longer_takes():
    s = position(
        turn=2,
        settlements={0: [0], 2: [42]},
        roads={0: LEFT_COAST[:5], 2: BOTTOM_COAST[:4]},
        hands={2: {"brick": 2, "lumber": 2}},
        lr_holder=0,
    )
    act(s, "road 69")
    assert (s.road_len[2], s.lr_holder) == (5, 0)
    act(s, "road 68")
    assert (s.road_len[2], s.lr_holder) == (6, 2)


# ---------------------------------------------------------------- E7 no win off-turn
def test_e7_ten_points_on_another_turn_wins_only_on_ones_own():
    s = position(
        turn=1,
        settlements={0: [0], 1: [17], 2: [42]},
        cities={2: [24, 29, 44]},
        roads={0: LEFT_COAST[:6], 1: [19, 11], 2: BOTTOM_COAST[:5]},
        hands={1: {"brick": 1, "lumber": 1, "wool": 1, "grain": 1}},
        dev={2: {"victory-point": 1}},
        lr_holder=0,
    )
    act(s, "settle 7")
    assert s.lr_holder == 2 and s.actual_vp(2) == 10
    assert not s.is_terminal()
    act(s, "end")
    assert s.is_terminal() and s.winners == [2]  # at the start of seat 2's turn


# ---------------------------------------------------------------- E8 card timing
def test_e8_timing_rules_together():
    s = position(
        phase="pre-roll",
        settlements={0: [40]},
        cities={0: [25, 1, 47, 12]},
        hands={0: {"wool": 2, "grain": 2, "ore": 2}},
        dev={0: {"knight": 1, "monopoly": 1}},
    )
    assert {"play knight", "play monopoly ore"} <= legal(s)  # (c) before the roll
    act(s, "play knight", "robber 4")
    roll(s, 5)
    assert not any(a.startswith("play") for a in legal(s))  # (a) one per turn
    act(s, "buy dev", "draw year-of-plenty")
    assert not any(a.startswith("play") for a in legal(s))  # (b) not the card just bought
    act(s, "buy dev", "draw victory-point")  # (d) a VP card counts at once
    assert s.is_terminal() and s.winners == [0]


# ---------------------------------------------------------------- E9 knight then a seven
def test_e9_knight_before_the_roll_then_a_seven():
    s = position(
        phase="pre-roll",
        settlements={0: [40], 1: [18]},
        hands={0: {"ore": 8}, 1: {"brick": 2}},
        dev={0: {"knight": 1}},
    )
    act(s, "play knight")
    assert s.phase == R.ROBBER  # no discards for the knight
    act(s, "robber 4 rob 1", "steal brick from 1")
    roll(s, 7)
    assert s.phase == R.DISCARD and s.current_player() == 0 and s.discard_left == 4
    act(s, *["discard ore"] * 4)
    assert s.phase == R.ROBBER
    act(s, "robber 0")
    assert s.robber == 0 and s.phase == R.MAIN


# ---------------------------------------------------------------- E10 discards in order
def test_e10_discards_one_seat_at_a_time_from_the_roller():
    s = position(
        turn=2,
        phase="roll",
        settlements={0: [40], 1: [18], 2: [12], 3: [25]},
        hands={0: {"ore": 8}, 1: {"wool": 9}, 2: {"grain": 2}, 3: {"lumber": 10}},
    )
    roll(s, 7)
    assert s.discard_queue == [3, 0, 1]
    seen = []
    while s.phase == R.DISCARD:
        seat = s.current_player()
        seen.append(seat)
        (card,) = legal(s)
        act(s, card)
    assert seen == [3] * 5 + [0] * 4 + [1] * 4
    assert s.current_player() == 2 and s.phase == R.ROBBER


# ---------------------------------------------------------------- E11 robber targets
def test_e11_robber_targets():
    s = position(
        phase="robber",
        robber=9,
        settlements={0: [12], 1: [18], 2: [40]},
        hands={0: {"ore": 3}, 1: {"brick": 3, "ore": 1}},
    )
    moves = legal(s)
    assert not any(m.startswith("robber 9") for m in moves)  # must move
    assert "robber 0" in moves  # next to one's own building, nobody else: allowed
    assert "robber 4 rob 1" in moves and "robber 4 rob 0" not in moves
    assert "robber 13" in moves  # seat 2 at 40 holds no cards: nobody to rob
    act(s, "robber 4 rob 1")
    assert dict(s.chance_outcomes()) == {R.STEAL_BASE + R.BRICK: 0.75, R.STEAL_BASE + R.ORE: 0.25}


# ---------------------------------------------------------------- E12 set-up specifics
def test_e12_setup_road_touches_the_new_settlement():
    s = Catan.new_game(3, 0, {"board": "beginner"})
    for v, e in [(12, 19), (18, 27), (30, 36), (40, 57)]:
        act(s, f"settle {v}")
        with pytest.raises(IllegalActionError):
            act(s, "road 0")  # not touching the settlement just placed
        act(s, f"road {e}")
    # the 4th placement (second settlement of the last seat) yields, the first did not
    assert sum(s.hand) == 3


# ---------------------------------------------------------------- E13 distance rule
def test_e13_distance_rule_counts_cities_and_everyone():
    s = position(
        settlements={0: [12]},
        cities={1: [22]},
        roads={0: [19, 25, 24]},  # 12-17, 17-22, 22-16
        hands={0: {"brick": 2, "lumber": 2, "wool": 2, "grain": 2}},
    )
    # road intersections 12, 17, 22, 16: 17 next to 12 and 22, 16 next to 22
    assert not any(a.startswith("settle") for a in legal(s))


# ---------------------------------------------------------------- E14 supply
def test_e14_supply_exhaustion():
    rich = {"brick": 5, "lumber": 5, "wool": 5, "grain": 5, "ore": 5}
    s = position(settlements={0: [0, 11, 27, 43, 51]}, roads={0: FIFTEEN[:14]}, hands={0: rich})
    assert not any(a.startswith("settle") for a in legal(s)) and s.settles_left[0] == 0
    assert any(a.startswith("road") for a in legal(s))
    act(s, "road 70")
    assert not any(a.startswith("road") for a in legal(s)) and s.road_len[0] <= 15
    c = position(cities={0: [0, 11, 27, 43]}, settlements={0: [51]}, hands={0: rich})
    assert not any(a.startswith("city") for a in legal(c)) and c.cities_left[0] == 0


# ---------------------------------------------------------------- E15 harbor access
def test_e15_harbor_access():
    # a city keeps the harbor
    s = position(cities={0: [3]}, hands={0: {"ore": 3}})
    assert "bank 3 ore for wool" in legal(s)
    # access the same turn the settlement is built
    s = position(
        settlements={0: [12]},
        roads={0: [11, 6]},  # 12-7-3
        hands={0: {"brick": 1, "lumber": 1, "wool": 1, "grain": 1, "ore": 3}},
    )
    assert not any(a.startswith("bank 3") for a in legal(s))
    act(s, "settle 3", "bank 3 ore for brick")
    assert hand(s, 0) == {"brick": 1}
    # nothing for the same resource
    with pytest.raises(NotationError):
        s.string_to_action("bank 3 ore for ore")
    with pytest.raises(IllegalActionError):
        s.apply_action(R.MARITIME_BASE + 5 * R.ORE + R.ORE)


# ---------------------------------------------------------------- E16 domestic guards
def test_e16_domestic_trade_guards():
    pre = position(
        phase="pre-roll", settlements={0: [40]}, hands={0: {"wool": 2}}, dev={0: {"knight": 1}}
    )
    assert not any(a.startswith("give") for a in legal(pre))  # only after the roll
    s = position(settlements={0: [40], 1: [12]}, hands={0: {"wool": 2}, 1: {"brick": 1}})
    for text in (
        "give 1 wool get",
        "give get 1 ore",
        "give 1 wool get 1 wool",
        "give 1 wool get 20 ore",
    ):
        with pytest.raises(NotationError):
            s.string_to_action(text)
    with pytest.raises(IllegalActionError):  # reads (§19a.8), but seat 0 holds 2 wool
        s.apply_action(s.string_to_action("give 3 wool get 1 ore"))
    assert not any(a.startswith("give") and "brick" in a.split(" get ")[0] for a in legal(s))
    act(s, "give 1 wool get 1 ore")
    assert legal(s) == {"decline"}  # seat 1 holds no ore


# ---------------------------------------------------------------- E17 monopoly / YOP sources
def test_e17_monopoly_takes_from_hands_not_the_bank():
    s = position(settlements={0: [40]}, dev={0: {"monopoly": 1}}, hands={1: {"ore": 2}})
    act(s, "play monopoly ore")
    assert hand(s, 0) == {"ore": 2} and s.bank[R.ORE] == 17


def test_e17_neither_card_the_turn_it_is_bought():
    s = position(
        settlements={0: [40]},
        dev={0: {"monopoly": 1, "year-of-plenty": 1}},
        dev_new={0: {"monopoly": 1, "year-of-plenty": 1}},
    )
    assert not any(a.startswith("play") for a in legal(s))


# ---------------------------------------------------------------- E19 reds
def test_e19_every_generated_board_is_checked_for_reds():
    for seed in range(300):
        _, numbers, _ = make_board(random.Random(seed), "random", "shuffled")
        assert not red_neighbours(numbers)


# ---------------------------------------------------------------- E20 / 19a.5 turn cap
def test_e20_turn_cap_ends_with_most_vp_sharing():
    s = position(
        turn=3,
        turn_no=40,
        turn_limit=40,
        settlements={0: [40, 12], 1: [18, 1], 2: [25]},
        dev={1: {"victory-point": 1}},
    )
    act(s, "end")
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert s.returns() == [0.0, 1.0, 0.0, 0.0]
    tie = position(
        turn=3, turn_no=40, turn_limit=40, settlements={0: [40, 12], 1: [18, 1], 2: [25]}
    )
    act(tie, "end")
    assert tie.returns() == [0.5, 0.5, 0.0, 0.0]


def test_19a5_default_turn_limit_is_1000():
    assert Catan.info.default_options["turn_limit"] == 1000
    assert Catan.new_game(3, 0).turn_limit == 1000
    s = position(turn=0, turn_no=999, turn_limit=1000, settlements={0: [40]})
    act(s, "end")
    assert not s.is_terminal() and s.turn_no == 1000


# ---------------------------------------------------------------- 19a.4 domestic protocol limits
def test_19a4_three_offers_a_turn_and_no_repeat_of_a_declined_offer():
    s = position(
        settlements={0: [40], 1: [12], 2: [18], 3: [25]},
        hands={0: {"wool": 3, "brick": 1}, 1: {"ore": 1}},
    )
    act(s, "give 1 wool get 1 ore", "decline", "decline", "decline")
    assert s.phase == R.MAIN and s.declined == [R.OFFER_INDEX[((0, 0, 1, 0, 0), (0, 0, 0, 0, 1))]]
    assert "give 1 wool get 1 ore" not in legal(s)  # declined this turn
    act(s, "give 1 wool get 1 grain", "decline", "decline", "decline")
    act(s, "give 2 wool get 1 ore", "accept", "decline", "decline", "cancel")
    assert s.offers_made == 3 and not any(a.startswith("give") for a in legal(s))
    # no counter-offers: an answer is accept or decline only; cancelled is not "declined"
    assert "give 2 wool get 1 ore" not in legal(s)
    act(s, "end")
    for _ in range(3):
        roll(s, 5)
        act(s, "end")
    roll(s, 5)
    assert "give 1 wool get 1 ore" in legal(s)  # a new turn forgets


def test_19a4_answers_go_in_seat_order_from_the_offerer():
    s = position(
        turn=2,
        settlements={0: [40], 1: [12], 2: [18], 3: [25]},
        hands={2: {"wool": 1}, 0: {"ore": 1}, 3: {"ore": 1}},
    )
    act(s, "give 1 wool get 1 ore")
    order = []
    while s.phase == R.TRADE_ANSWER:
        order.append(s.current_player())
        act(s, "accept" if "accept" in legal(s) else "decline")
    assert order == [3, 0, 1]
    assert legal(s) == {"cancel", "trade with 3", "trade with 0"}


# ---------------------------------------------------------------- 19a.6 starting player
def test_19a6_starting_player_from_the_seed():
    starts = {Catan.new_game(4, seed).start_seat for seed in range(40)}
    assert starts == {0, 1, 2, 3}
    assert Catan.new_game(4, 5).start_seat == Catan.new_game(4, 5).start_seat
    s = Catan.new_game(4, 5)
    assert s.current_player() == s.start_seat and s.phase == R.SETUP_SETTLE


def test_chance_nodes_are_chance():
    s = position(phase="roll", settlements={0: [40]})
    assert s.current_player() == CHANCE and s.legal_actions() == []
    assert sum(p for _, p in s.chance_outcomes()) == pytest.approx(1.0)
    assert dict(s.chance_outcomes())[R.DICE_BASE + 5] == pytest.approx(6 / 36)
