"""One concrete position for each item of the facts file's "Subtleties implementers get
wrong" (§10), numbered as there."""

from __future__ import annotations

from games.endeavor import data as D
from games.endeavor import rules as R
from games.endeavor.engine import Endeavor
from games.endeavor.scoring import score_lines
from tests.games.endeavor.helpers import (
    BUILDING,
    CARD,
    CITY,
    act,
    check,
    connection_space,
    give_building,
    give_card,
    give_token,
    harbor,
    legal,
    make,
    markers,
    open_region,
    place,
    set_token,
    ship,
    track,
    track_space,
)

AF = D.REGION_SLUGS.index("africa")


def test_01_attack_and_occupy_need_presence_except_in_europe() -> None:
    st = make(3)
    open_region(st, "africa", [1] * 6)
    place(st, 1, "africa-0")
    place(st, 1, "europe-0")
    harbor(st, 0, 5)
    give_building(st, 0, "Fortress")
    options = legal(st)
    assert "attack africa-0 with Fortress" not in options  # open, but no marker there
    assert "occupy africa-1 with Fortress" not in options
    assert "attack europe-0 with Fortress" in options  # everyone is present in Europe
    assert "occupy europe-1 with Fortress" in options
    ship(st, 0, "africa")
    assert {"attack africa-0 with Fortress", "occupy africa-1 with Fortress"} <= legal(st)


def test_02_shipping_to_a_full_track_is_legal_and_counts_for_draws() -> None:
    st = make(3)
    open_region(st, "africa", [1] * 6)
    give_card(st, 2, "africa-1")  # Africa 2 on top: presence 2 needed
    harbor(st, 0, 6)
    give_building(st, 0, "Shipyard")
    give_building(st, 0, "Market")
    give_token(st, 0, "ship-draw")
    tokens = list(st.space_token)
    act(st, "ship africa with Shipyard")
    assert st.space_token == tokens and st.card_location[D.GOVERNOR_OF_REGION[AF]] == 1
    act(st, "pass")
    act(st, "pass")
    act(st, "ship africa with ship-draw-token")
    assert st.presence[AF] == 2  # seat 0: two markers beside the track
    act(st, "draw africa with Market")
    assert st.card_location[CARD["africa-2"]] == 0
    check(st)


def test_03_card_limit_once_all_passed_cascading_and_raised_by_politics() -> None:
    st = make(3)
    harbor(st, 0, 2)
    give_building(st, 0, "Trade-Office")
    place(st, 0, "europe-9")
    # Two Mediterranean cards with one slot: allowed during the phase.
    act(st, "draw mediterranean with Trade-Office")
    act(st, "draw mediterranean")
    assert not st.holding_ok(0) and st.phase == R.ACTION
    # Mediterranean 1 has Politics 1: still level 1.
    give_card(st, 0, "mediterranean-2")  # +3 Politics: 4 = level 3, three slots
    assert st.holding_ok(0)
    st._discard(0, CARD["mediterranean-2"])  # gone again: one slot for two cards
    act(st, "pass")
    act(st, "pass")
    act(st, "pass")
    assert st.phase == R.DISCARD and st.current_player() == 0
    act(st, "discard mediterranean-1")  # Politics 0 now; one card, one slot
    assert st.phase == R.BUILD


def test_04_plus_actions_either_order_skippable_one_region_one_deck() -> None:
    st = make(3)
    ship(st, 0, "india", 6)
    ship(st, 1, "africa", 5)
    harbor(st, 0, 6)
    give_building(st, 0, "Docks")
    # Ship first (it opens India), then Occupy there and only there.
    act(st, "ship india with Docks")
    assert legal(st) == {"occupy india-0", "occupy india-1", "occupy india-2", "done"}
    act(st, "occupy india-2")
    # Occupy first, then Ship to the same region only.
    st.to_move = 0
    st.used[BUILDING["Docks"]] = 0
    st.supply[0] += 1
    act(st, "occupy india-0 with Docks")
    assert legal(st) == {"ship india", "done"}
    act(st, "done")  # the second half may be skipped
    assert st.current_player() == 1
    # Guild Hall ("/"): exactly one half, the turn ends after it.
    st.to_move = 0
    harbor(st, 0, 2)
    give_building(st, 0, "Guild-Hall")
    act(st, "ship africa with Guild-Hall")
    assert st.current_player() == 1
    check(st)


def test_05_governor_tie_break_is_the_marker_nearest_the_deck() -> None:
    st = make(4)
    for seat in (1, 2, 1, 2, 3):
        ship(st, seat, "africa")
    ship(st, 0, "africa")  # seat 0 fills the last space but is not among the tied
    assert st.card_location[D.GOVERNOR_OF_REGION[AF]] == 2  # seat 2's marker is nearer the deck


def test_06_governor_cannot_be_drawn_level_one_is_next() -> None:
    st = make(3)
    ship(st, 0, "africa", 5)  # presence 5, track not full
    harbor(st, 0, 2)
    give_building(st, 0, "Market")
    assert not any(t.startswith("draw africa") for t in legal(st))
    ship(st, 1, "africa")  # full now: the Governor went to seat 0
    assert st.card_location[D.GOVERNOR_OF_REGION[AF]] == 0
    act(st, "draw africa with Market")
    assert st.card_location[CARD["africa-1"]] == 0


def test_07_presence_counts_track_and_beside_markers_europe_only_cities() -> None:
    st = make(3)
    open_region(st, "africa", [0, 0, 1, 1, 1, 1])
    ship(st, 0, "africa")  # beside
    place(st, 0, "africa-0")
    assert st.presence[AF] == 4  # 2 on the track, 1 beside, 1 city
    assert st.presence[D.EUROPE] == 0  # Europe: cities only
    harbor(st, 0, 2)
    give_building(st, 0, "Market")
    give_card(st, 1, "mediterranean-0")
    assert "draw mediterranean with Market" not in legal(st)  # level 1, no European city
    place(st, 0, "europe-5")
    assert "draw mediterranean with Market" in legal(st)
    assert "draw slavery with Market" in legal(st)  # the Slavery deck uses Europe presence


def test_08_connection_tokens_go_to_the_first_controller_and_are_kept() -> None:
    st = make(3)
    conn = connection_space("europe-3", "europe-4")
    set_token(st, conn, "culture")
    place(st, 0, "europe-3")
    place(st, 0, "europe-4")
    assert track(st, 0, "culture") >= 1 and st.space_token[conn] == -1
    culture = track(st, 0, "culture")
    tokens1 = sum(st.brown_tokens[4:8]) + sum(st.blue_tokens[4:8])
    harbor(st, 1, 6)
    give_building(st, 1, "Barracks")
    give_building(st, 1, "Fortress")
    st.to_move = 1
    act(st, "attack europe-3 with Barracks")
    act(st, "pass")
    act(st, "pass")
    act(st, "attack europe-4 with Fortress")
    assert track(st, 0, "culture") == culture  # the loser keeps its token
    assert score_lines(st, 1)["connections"] == 1  # the new controller: glory, no token
    assert sum(st.brown_tokens[4:8]) + sum(st.blue_tokens[4:8]) == tokens1


def test_09_abolition_is_immediate_for_everyone_including_passed_players() -> None:
    st = make(3)
    for slug in ("mediterranean-0", "mediterranean-1", "mediterranean-2", "mediterranean-3"):
        give_card(st, 1, slug)
    give_card(st, 1, "mediterranean-4")
    give_card(st, 0, "slavery-0")
    give_card(st, 2, "slavery-1")
    give_card(st, 2, "slavery-2")
    for i in range(5):
        place(st, 0, f"europe-{i}")
    st.passed[2] = True
    st.passed_count = 1
    give_token(st, 0, "occupy-draw")
    act(st, "draw mediterranean with occupy-draw-token")
    assert [st.card_location[c] for c in range(42, 45)] == [
        R.LOC_FACE_DOWN + 0,
        R.LOC_FACE_DOWN + 2,
        R.LOC_FACE_DOWN + 2,
    ]
    assert track(st, 2, "finance") == 0 and track(st, 2, "industry") == 0
    assert st.deck_mask[D.SLAVERY_DECK] == 0
    assert score_lines(st, 2)["slavery"] == -2
    # A Slavery card discarded for the card limit costs 1 too.
    other = make(3)
    give_card(other, 0, "slavery-0")
    give_card(other, 0, "slavery-1")
    give_card(other, 0, "slavery-2")
    for _ in range(3):
        act(other, "pass")
    act(other, "discard slavery-2")
    assert score_lines(other, 0)["slavery"] == -1
    check(st)


def test_10_slot_five_slavery_below_ten_free_slot_governors_only() -> None:
    st = make(3)
    give_card(st, 0, "mediterranean-0")
    give_card(st, 0, "slavery-0")
    assert st.holding_ok(0)  # slot 1 + the Slavery-only slot 5
    give_card(st, 0, "mediterranean-4")
    assert not st.holding_ok(0)  # slot 5 takes no ordinary card; no Governor slot use
    for i in range(6):
        set_token(st, track_space("africa", i), "industry")
    open_region(st, "africa", [0] * 6)
    assert track(st, 0, "politics") == 1  # the Governor's icon: still one regular slot
    assert not st.holding_ok(0)  # the Governor sits in the free slot, no room for both cards
    st._discard(0, CARD["mediterranean-4"])
    assert st.holding_ok(0)
    assert score_lines(st, 0)["free_governor_slot"] == 0  # the Governor needs the free slot
    st._discard(0, CARD["mediterranean-0"])
    # D4: with a regular slot free the Governor may sit there; the free slot scores 3.
    assert score_lines(st, 0)["free_governor_slot"] == 3


def test_11_payment_cannot_free_its_own_building() -> None:
    st = make(3)
    harbor(st, 0, 2)
    give_building(st, 0, "Museum")
    give_building(st, 0, "Colonial-House", used=1)
    assert {t for t in legal(st) if t.startswith("pay")} == {"pay Colonial-House with Museum"}
    act(st, "pay Colonial-House with Museum")
    act(st, "pass")
    act(st, "pass")
    assert not any(t.startswith("pay") for t in legal(st))  # Museum busy; nothing else to free


def test_12_round_one_two_markers_salary_nothing_colonial_house_usable() -> None:
    st = Endeavor.new_game(4, 42)
    for _ in range(4):
        act(st, "build Shipyard")
    assert st.phase == R.ACTION and st.harbor == [2, 2, 2, 2]
    assert all(track(st, s, "culture") == 1 for s in range(4))
    first = st.current_player()
    assert "occupy europe-0 with Colonial-House" in legal(st)
    act(st, "occupy europe-0 with Colonial-House")
    assert st.city_owner[CITY["europe-0"]] == first


def test_13_markers_run_out_growth_capped_attacks_return_markers_to_supply() -> None:
    st = make(3)
    harbor(st, 0, 30)  # the whole supply is in the harbor
    place(st, 1, "europe-7")
    give_building(st, 0, "Barracks")
    assert st.supply[0] == 0
    act(st, "attack europe-7 with Barracks")
    assert st.supply[0] == 1 and st.supply[1] == 30  # both markers went to supplies
    assert markers(st, 0) == markers(st, 1) == 30
    # Growth takes only what the supply holds.
    for _ in range(3):
        act(st, "pass")
    act(st, "build Market")
    act(st, "build Market")
    act(st, "build Market")
    # 27 left after the attack, +1 from Growth (2 wanted), +1 from Salary (the Barracks).
    assert st.supply[0] == 0 and st.harbor[0] == 29
    check(st)


def test_14_tracks_above_fifteen_keep_their_sum() -> None:
    st = make(3)
    for _ in range(14):
        give_token(st, 0, "culture")
    give_card(st, 0, "mediterranean-1")  # +2 Culture, +1 Politics: 16
    assert track(st, 0, "culture") == 16
    assert score_lines(st, 0)["tracks"] == 15 + 2  # 15 (capped) + Politics 1 pushed to 2
    st._discard(0, CARD["mediterranean-1"])
    assert track(st, 0, "culture") == 14  # discarding from above 15 lands correctly
    check(st)
