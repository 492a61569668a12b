"""Card slots, the card limit once everyone has passed (D10), where discarded cards go, and Abolition (§4, §7.4)."""

from __future__ import annotations

from games.endeavor import data as D
from games.endeavor import rules as R
from games.endeavor.scoring import score_lines
from tests.games.endeavor.helpers import (
    CARD,
    act,
    check,
    give_building,
    give_card,
    give_token,
    harbor,
    legal,
    make,
    open_region,
    place,
    set_token,
    ship,
    track,
    track_space,
)

SLAVERY = D.SLAVERY_DECK


def neutral_tracks(st: object, *regions: str) -> None:
    """Industry tokens on these tracks, so shipping there leaves Politics alone."""
    for region in regions:
        for i in range(D.TRACK_LENGTH[D.REGION_SLUGS.index(region)]):
            set_token(st, track_space(region, i), "industry")


def test_holding_too_many_cards_is_allowed_until_passing() -> None:
    st = make(3)
    harbor(st, 0, 2)
    give_card(st, 0, "mediterranean-0")
    give_card(st, 0, "slavery-0")
    give_card(st, 0, "slavery-1")  # Politics 0: one slot + the Slavery slot; three cards
    assert not st.holding_ok(0)
    act(st, "occupy europe-0 with Colonial-House")  # no discard asked mid-phase
    assert st.current_player() == 1
    act(st, "pass")
    act(st, "pass")
    assert st.current_player() == 0
    act(st, "pass")
    assert st.phase == R.DISCARD and st.current_player() == 0
    assert legal(st) == {
        "discard mediterranean-0",
        "discard slavery-0",
        "discard slavery-1",
    }
    act(st, "discard mediterranean-0")
    # Fits now: one Slavery card in slot 1, one in the Slavery-only slot 5.
    assert st.phase == R.BUILD and st.round == 2
    assert st.card_location[CARD["mediterranean-0"]] == R.LOC_DECK
    check(st)


def test_discarding_cascades_when_a_card_with_politics_goes() -> None:
    st = make(3)
    for slug in ("mediterranean-0", "mediterranean-1", "mediterranean-2", "mediterranean-3"):
        give_card(st, 0, slug)
    assert track(st, 0, "politics") == 5  # level 3: three slots for four cards
    act(st, "pass")
    assert st.phase == R.ACTION and st.current_player() == 1  # no discard at the pass
    act(st, "pass")
    act(st, "pass")
    assert st.phase == R.DISCARD
    act(st, "discard mediterranean-2")  # -3 Politics: level 2, two slots for three cards
    assert track(st, 0, "politics") == 2
    assert st.phase == R.DISCARD and st.current_player() == 0
    act(st, "discard mediterranean-0")
    assert st.phase == R.BUILD and st.round == 2
    assert st.hand(0) == [CARD["mediterranean-1"], CARD["mediterranean-3"]]


def test_gaining_politics_raises_the_limit_at_once() -> None:
    st = make(3)
    give_card(st, 0, "mediterranean-0")
    give_card(st, 0, "mediterranean-1")  # +1 Politics: still level 1
    assert not st.holding_ok(0)
    give_token(st, 0, "politics")  # Politics 2: a second slot
    assert st.holding_ok(0)
    for _ in range(3):
        act(st, "pass")
    assert st.phase == R.BUILD and st.round == 2


def test_discarded_region_cards_return_to_their_deck_at_their_level() -> None:
    st = make(3)
    open_region(st, "africa", [1, 1, 1, 1, 1, 1])
    give_card(st, 2, "africa-1")
    give_card(st, 0, "africa-2")  # P1
    give_card(st, 0, "africa-3")  # P2
    give_card(st, 2, "africa-4")
    give_card(st, 0, "mediterranean-0")
    give_card(st, 0, "mediterranean-4")  # Politics 3 (level 2): four cards, two slots
    for _ in range(3):
        act(st, "pass")
    act(st, "discard africa-2")  # Politics 2: still two slots for three cards
    act(st, "discard africa-3")  # Politics 0: one slot for two cards
    act(st, "discard mediterranean-0")
    assert st.phase == R.BUILD and st.hand(0) == [CARD["mediterranean-4"]]
    assert st.deck_mask[1] == 0b101100  # Africa 2, 3 and 5: Africa 2 is on top again
    assert st.deck_mask[0] & 1  # Mediterranean 0 is back on top of its deck
    # Seat 1 (presence 6 on the Africa track, the crown of round 2) draws it back.
    st._start_actions()
    assert st.current_player() == 1
    harbor(st, 1, 2)
    give_building(st, 1, "Market")
    act(st, "draw africa with Market")
    assert st.card_location[CARD["africa-2"]] == 1
    check(st)


def test_discarded_slavery_cards_stay_face_down_and_governors_leave() -> None:
    st = make(3)
    neutral_tracks(st, "africa")
    open_region(st, "africa", [0, 0, 0, 0, 0, 0])  # seat 0 gets the Governor (P1)
    for slug in ("slavery-0", "slavery-1", "slavery-2", "mediterranean-0"):
        give_card(st, 0, slug)
    for _ in range(3):
        act(st, "pass")
    act(st, "discard slavery-0")
    act(st, "discard africa-governor")
    assert st.phase == R.DISCARD  # one regular slot for a Slavery card and Mediterranean 0
    act(st, "discard mediterranean-0")
    assert st.holding_ok(0) and st.phase == R.BUILD
    assert st.card_location[CARD["slavery-0"]] == R.LOC_FACE_DOWN + 0
    assert st.card_location[CARD["africa-governor"]] == R.LOC_REMOVED
    assert st.card_location[CARD["mediterranean-0"]] == R.LOC_DECK
    assert score_lines(st, 0)["slavery"] == -1
    # Only the icons of the cards still held count: Slavery 1 and 2 (Finance 2 each).
    assert track(st, 0, "finance") == 4
    assert track(st, 0, "industry") == 6 + 1  # the six track tokens and Slavery 2
    check(st)


def test_slot_five_takes_only_a_slavery_card_below_politics_ten() -> None:
    st = make(3)
    open_region(st, "south-america", [1] * 6)
    for _ in range(7):
        give_token(st, 0, "politics")  # Politics 7: four regular slots
    for slug in ("mediterranean-0", "mediterranean-4", "south-america-1", "south-america-2"):
        give_card(st, 0, slug)
    give_card(st, 0, "slavery-0")
    assert st.holding_ok(0)  # four regular + the Slavery card in slot 5
    give_card(st, 0, "south-america-3")
    assert not st.holding_ok(0)  # slot 5 cannot take it below Politics 10
    for _ in range(3):
        give_token(st, 0, "politics")  # Politics 10: slot 5 is an ordinary slot
    assert not st.holding_ok(0)  # six cards and no Governor: one too many
    st._discard(0, CARD["slavery-0"])
    assert st.holding_ok(0)
    check(st)


def test_the_free_governor_slot_takes_governors_only() -> None:
    st = make(3)
    neutral_tracks(st, "africa", "india")
    open_region(st, "africa", [0] * 6)
    open_region(st, "india", [0] * 7)
    assert track(st, 0, "politics") == 2  # level 2: two regular slots
    assert st.hand(0) == [CARD["africa-governor"], CARD["india-governor"]]
    assert st.holding_ok(0)
    # Both Governors can sit in regular slots: the Free Governor slot scores (D4).
    assert score_lines(st, 0)["free_governor_slot"] == 3
    give_card(st, 0, "mediterranean-4")
    assert st.holding_ok(0)  # one Governor in the free slot, one card beside the other
    assert score_lines(st, 0)["free_governor_slot"] == 0
    give_card(st, 0, "mediterranean-0")
    assert not st.holding_ok(0)  # the free slot takes no ordinary card


def test_a_passed_player_awarded_a_governor_discards_once_everyone_has_passed() -> None:
    st = make(3)
    neutral_tracks(st, "india", "africa")
    open_region(st, "india", [2] * 7)  # seat 2: the India Governor (Politics 1)
    give_token(st, 2, "politics")  # Politics 2: two regular slots
    give_card(st, 2, "mediterranean-0")
    give_card(st, 2, "mediterranean-4")
    for seat in (2, 2, 2, 1, 0):
        ship(st, seat, "africa")
    st.to_move = 2
    act(st, "pass")  # seat 2's cards fit
    assert st.phase == R.ACTION and st.current_player() == 0
    act(st, "pass")
    harbor(st, 1, 2)
    give_building(st, 1, "Shipyard")
    act(st, "ship africa with Shipyard")  # fills Africa: seat 2 has the most markers
    assert st.card_location[CARD["africa-governor"]] == 2
    assert not st.holding_ok(2)  # Politics 3 (level 2): one Governor too many
    act(st, "pass")  # the last player passes
    assert st.phase == R.DISCARD and st.current_player() == 2
    act(st, "discard mediterranean-0")
    assert st.phase == R.BUILD and st.round == 2
    check(st)


def test_audit_case_a_governor_after_the_pass_saves_the_card() -> None:
    """Facts §13a D10, the audit's reproduction: no discard at the pass itself."""
    st = make(3)
    neutral_tracks(st, "africa")
    give_card(st, 0, "mediterranean-0")
    give_card(st, 0, "mediterranean-3")
    assert track(st, 0, "politics") == 1  # level 1: one slot for two cards
    ship(st, 0, "africa", times=5)  # 5 of the 6 Africa track markers
    assert not st.holding_ok(0)
    act(st, "pass")
    assert st.phase == R.ACTION and st.current_player() == 1  # no discard now
    assert st.hand(0) == [CARD["mediterranean-0"], CARD["mediterranean-3"]]
    harbor(st, 1, 2)
    give_building(st, 1, "Shipyard")
    act(st, "ship africa with Shipyard")  # fills Africa: the Governor goes to seat 0
    assert st.card_location[CARD["africa-governor"]] == 0
    assert track(st, 0, "politics") == 2 and st.holding_ok(0)
    act(st, "pass")
    act(st, "pass")
    assert st.phase == R.BUILD and st.round == 2  # seat 0 keeps both cards
    assert CARD["mediterranean-0"] in st.hand(0) and CARD["mediterranean-3"] in st.hand(0)
    check(st)


def test_discards_go_in_turn_order_from_the_first_player_with_cascades() -> None:
    st = make(3)
    st.crown = st.to_move = 1  # seat 1 is the first player this round
    for slug in ("mediterranean-0", "mediterranean-1", "mediterranean-2", "mediterranean-3"):
        give_card(st, 0, slug)  # Politics 5 (level 3): three slots for four cards
    for slug in ("slavery-0", "slavery-1", "slavery-2"):
        give_card(st, 2, slug)  # one regular slot and the Slavery slot for three cards
    assert not st.holding_ok(0) and not st.holding_ok(2) and st.holding_ok(1)
    for seat in (1, 2, 0):
        assert st.current_player() == seat
        act(st, "pass")
    # Seat 2 comes before seat 0 in turn order from seat 1; seat 1 has nothing to discard.
    assert st.phase == R.DISCARD and st.current_player() == 2
    act(st, "discard slavery-0")
    assert st.phase == R.DISCARD and st.current_player() == 0
    act(st, "discard mediterranean-2")  # -3 Politics: the cascade, two slots for three
    assert st.phase == R.DISCARD and st.current_player() == 0
    act(st, "discard mediterranean-0")
    assert st.phase == R.BUILD and st.round == 2 and st.crown == 2
    check(st)


def test_no_discard_is_legal_before_everyone_has_passed() -> None:
    st = make(3)
    give_card(st, 0, "mediterranean-0")
    give_card(st, 0, "mediterranean-3")
    act(st, "pass")
    assert not any(a.startswith("discard") for a in legal(st))
    assert st.phase == R.ACTION
    check(st)


# ---------------------------------------------------------------- Abolition of Slavery


def abolition_position() -> object:
    st = make(3)
    for slug in ("mediterranean-0", "mediterranean-1", "mediterranean-2", "mediterranean-3"):
        give_card(st, 2, slug)
    give_card(st, 1, "mediterranean-4")
    give_card(st, 0, "slavery-0")
    give_card(st, 0, "slavery-1")
    give_card(st, 1, "slavery-2")
    for city in range(5):
        place(st, 0, f"europe-{city}")  # presence 5 in Europe
    return st


def test_abolition_discards_every_slavery_card_at_once() -> None:
    st = abolition_position()
    st.passed[1] = True  # seat 1 has passed already: it loses its Slavery card too
    st.passed_count = 1
    harbor(st, 0, 2)
    give_building(st, 0, "Market")
    industry0, finance1 = track(st, 0, "industry"), track(st, 1, "finance")
    act(st, "draw mediterranean with Market")
    assert st.card_location[D.ABOLITION] == 0 and st.abolished
    assert st.card_location[CARD["slavery-0"]] == R.LOC_FACE_DOWN + 0
    assert st.card_location[CARD["slavery-1"]] == R.LOC_FACE_DOWN + 0
    assert st.card_location[CARD["slavery-2"]] == R.LOC_FACE_DOWN + 1
    assert track(st, 0, "industry") == industry0 - 2  # Slavery 0's icons are gone
    assert track(st, 1, "finance") == finance1 - 2
    # The rest of the Slavery deck leaves the game.
    assert all(st.card_location[c] == R.LOC_REMOVED for c in range(45, 48))
    assert st.deck_mask[SLAVERY] == 0
    assert score_lines(st, 0)["slavery"] == -2 and score_lines(st, 1)["slavery"] == -1
    check(st)


def test_no_slavery_draws_after_abolition() -> None:
    st = abolition_position()
    harbor(st, 0, 3)
    give_building(st, 0, "Guild-Hall")
    assert "draw slavery with Guild-Hall" in legal(st)
    give_token(st, 0, "ship-draw")
    act(st, "draw mediterranean with ship-draw-token")
    act(st, "pass")
    act(st, "pass")
    assert not any("slavery" in t for t in legal(st))
