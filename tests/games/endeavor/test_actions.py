"""Ship, Occupy, Attack, Payment, Draw, blue tokens and every combined action (facts §5-§6)."""

from __future__ import annotations

from games.endeavor import data as D
from games.endeavor import rules as R
from tests.games.endeavor.helpers import (
    BUILDING,
    CARD,
    CITY,
    NB,
    REGION,
    act,
    check,
    city_space,
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

AF = REGION["africa"]

# ---------------------------------------------------------------- ship


def test_ship_takes_the_farthest_free_space_and_its_token() -> None:
    st = make(3)
    harbor(st, 0, 3)
    give_building(st, 0, "Shipyard")
    set_token(st, track_space("africa", 0), "politics")
    set_token(st, track_space("africa", 1), "culture")
    act(st, "ship africa with Shipyard")
    assert st.shipping_track[D.TRACK_OFFSET[AF]] == 0  # the first (farthest) space
    assert st.space_token[track_space("africa", 0)] == -1
    assert track(st, 0, "politics") == 1  # a brown token raises its track at once
    assert st.harbor[0] == 1 and st.used[BUILDING["Shipyard"]] == 1
    assert st.presence[0 * D.NUM_REGIONS + AF] == 1
    ship(st, 1, "africa")
    assert st.shipping_track[D.TRACK_OFFSET[AF] + 1] == 1
    assert track(st, 1, "culture") == 1
    check(st)


def test_no_shipping_to_europe() -> None:
    st = make(3)
    harbor(st, 0, 3)
    give_building(st, 0, "Shipyard")
    assert "ship europe with Shipyard" not in legal(st)
    assert {f"ship {r} with Shipyard" for r in D.REGION_SLUGS[1:]} <= legal(st)


def test_ship_needs_a_second_marker_when_a_building_is_used() -> None:
    st = make(3)
    harbor(st, 0, 1)
    give_building(st, 0, "Shipyard")
    assert legal(st) == {"pass"}
    give_token(st, 0, "ship-draw")
    assert "ship africa with ship-draw-token" in legal(st)  # a token needs only the marker


def test_shipping_to_a_full_track_goes_beside_it() -> None:
    st = make(3)
    open_region(st, "africa", [1, 1, 1, 1, 1, 1])
    harbor(st, 0, 3)
    give_building(st, 0, "Shipyard")
    tokens_before = list(st.space_token)
    act(st, "ship africa with Shipyard")
    assert st.space_token == tokens_before  # no token
    assert st.beside_track[0 * D.NUM_REGIONS + AF] == 1
    assert st.presence[0 * D.NUM_REGIONS + AF] == 1
    assert st.card_location[D.GOVERNOR_OF_REGION[AF]] == 1  # the Governor did not move
    check(st)


def test_filling_the_last_space_opens_the_region_and_awards_the_governor() -> None:
    st = make(4)
    for seat in (0, 2, 0, 2, 3):
        ship(st, seat, "africa")
    assert st.track_fill[AF] == 5 and st.card_location[D.GOVERNOR_OF_REGION[AF]] == R.LOC_DECK
    assert not any(a.startswith("draw africa") for a in legal(st))
    harbor(st, 1, 2)
    st.to_move = 1
    give_building(st, 1, "Shipyard")
    act(st, "ship africa with Shipyard")
    # Seat 1 filled it, but seats 0 and 2 tie with two markers: seat 2's is nearer the deck.
    governor = D.GOVERNOR_OF_REGION[AF]
    assert st.card_location[governor] == 2
    assert track(st, 2, "finance") >= 2 and track(st, 2, "politics") >= 1  # its icons
    assert st.deck_mask[AF] & 1 == 0  # level 1 is now on top
    check(st)


def test_governor_goes_to_the_filler_when_it_is_among_the_tied() -> None:
    st = make(3)
    for seat in (0, 1, 0, 1, 2):
        ship(st, seat, "africa")
    ship(st, 1, "africa")  # seat 1 fills the last space: tied with seat 0, nearest the deck
    assert st.card_location[D.GOVERNOR_OF_REGION[AF]] == 1


def test_governor_goes_to_the_most_markers_outright() -> None:
    st = make(3)
    for seat in (2, 2, 2, 0, 1, 1):
        ship(st, seat, "africa")
    assert st.card_location[D.GOVERNOR_OF_REGION[AF]] == 2


def test_governor_may_go_to_a_player_who_has_passed() -> None:
    st = make(3)
    for seat in (2, 2, 2, 0, 1):
        ship(st, seat, "africa")
    st.passed[2] = True
    st.passed_count = 1
    harbor(st, 0, 2)
    give_building(st, 0, "Shipyard")
    act(st, "ship africa with Shipyard")
    assert st.card_location[D.GOVERNOR_OF_REGION[AF]] == 2


# ---------------------------------------------------------------- occupy


def test_occupy_takes_the_city_token_and_costs_a_marker() -> None:
    st = make(3)
    harbor(st, 0, 2)
    set_token(st, city_space("europe-3"), "occupy-draw")
    act(st, "occupy europe-3 with Colonial-House")
    assert st.city_owner[CITY["europe-3"]] == 0 and st.harbor[0] == 0
    assert st.blue_tokens[0 * 4 + 1] == 1  # the occupy-draw token waits in the harbor
    assert st.space_token[city_space("europe-3")] == -1
    assert markers(st, 0) == 30
    check(st)


def test_occupy_needs_an_empty_city_in_an_open_region_with_presence() -> None:
    st = make(3)
    harbor(st, 0, 5)
    place(st, 1, "europe-0")
    options = {t for t in legal(st) if t.startswith("occupy")}
    # Every empty European city (everyone is present in Europe), nothing elsewhere yet.
    assert options == {f"occupy europe-{i} with Colonial-House" for i in range(1, 10)}
    open_region(st, "africa", [1, 1, 1, 1, 1, 1])
    assert "occupy africa-0 with Colonial-House" not in legal(st)  # open, but no presence
    ship(st, 0, "africa")
    assert "occupy africa-0 with Colonial-House" in legal(st)
    ship(st, 0, "india")  # presence in a closed region is not enough
    assert not any("india" in t for t in legal(st) if t.startswith("occupy"))


def test_occupy_takes_connection_tokens_when_both_ends_become_yours() -> None:
    st = make(3)
    harbor(st, 0, 4)
    place(st, 0, "europe-0")
    conn = connection_space("europe-0", "europe-1")
    set_token(st, conn, "finance")
    act(st, "occupy europe-1 with Colonial-House")
    assert st.space_token[conn] == -1
    assert track(st, 0, "finance") >= 1
    check(st)


def test_connection_token_goes_to_the_first_controller_only() -> None:
    st = make(3)
    conn = connection_space("europe-0", "europe-1")
    set_token(st, conn, "attack")
    place(st, 0, "europe-0")
    place(st, 0, "europe-1")
    assert st.blue_tokens[0 * 4 + 2] == 1 and st.space_token[conn] == -1
    # Seat 1 takes both ends by attack: it controls the link, but gets no token.
    harbor(st, 1, 6)
    give_building(st, 1, "Barracks")
    give_building(st, 1, "Fortress")
    st.to_move = 1
    act(st, "attack europe-0 with Barracks")
    act(st, "pass")  # seat 2
    act(st, "pass")  # seat 0
    act(st, "attack europe-1 with Fortress")
    assert st.city_owner[CITY["europe-0"]] == st.city_owner[CITY["europe-1"]] == 1
    assert (
        st.blue_tokens[1 * 4 + 2] == 0 and st.blue_tokens[0 * 4 + 2] == 1
    )  # seat 0 keeps its token
    check(st)


# ---------------------------------------------------------------- attack


def test_attack_costs_two_markers_and_returns_the_defenders_marker() -> None:
    st = make(3)
    place(st, 1, "europe-4")
    harbor(st, 0, 3)
    give_building(st, 0, "Barracks")
    supply0, supply1 = st.supply[0], st.supply[1]
    act(st, "attack europe-4 with Barracks")
    assert st.city_owner[CITY["europe-4"]] == 0
    assert st.harbor[0] == 0  # one on the Barracks, one on the city, one to the supply
    assert st.supply[0] == supply0 + 1
    assert st.supply[1] == supply1 + 1  # the defender's marker goes to its supply
    assert markers(st, 0) == markers(st, 1) == 30
    check(st)


def test_attack_targets_other_players_cities_only() -> None:
    st = make(3)
    place(st, 0, "europe-4")
    place(st, 1, "europe-5")
    harbor(st, 0, 3)
    give_building(st, 0, "Barracks")
    attacks = {t for t in legal(st) if t.startswith("attack")}
    assert attacks == {"attack europe-5 with Barracks"}


def test_attack_needs_three_markers_via_a_building_two_via_a_token() -> None:
    st = make(3)
    place(st, 1, "europe-5")
    harbor(st, 0, 2)
    give_building(st, 0, "Barracks")
    assert "attack europe-5 with Barracks" not in legal(st)
    give_token(st, 0, "attack")
    assert "attack europe-5 with attack-token" in legal(st)
    act(st, "attack europe-5 with attack-token")
    assert st.harbor[0] == 0 and st.blue_tokens[0 * 4 + 2] == 0 and st.spent_tokens[2] == 1
    check(st)


def test_attack_needs_an_open_region_and_presence() -> None:
    st = make(3)
    open_region(st, "africa", [1, 1, 1, 1, 1, 1])
    place(st, 1, "africa-0")
    harbor(st, 0, 5)
    give_building(st, 0, "Barracks")
    assert not any(t.startswith("attack") for t in legal(st))
    ship(st, 0, "africa")  # beside the full track: presence 1
    assert "attack africa-0 with Barracks" in legal(st)


def test_attack_changes_connection_control_and_takes_a_still_unclaimed_token() -> None:
    st = make(3)
    conn = connection_space("europe-0", "europe-3")
    set_token(st, conn, "politics")
    place(st, 0, "europe-0")
    place(st, 1, "europe-3")  # the link is split: its token is still there
    harbor(st, 0, 3)
    give_building(st, 0, "Barracks")
    politics = track(st, 0, "politics")
    act(st, "attack europe-3 with Barracks")
    assert st.space_token[conn] == -1 and track(st, 0, "politics") == politics + 1
    check(st)


# ---------------------------------------------------------------- payment


def test_payment_frees_another_building_not_itself() -> None:
    st = make(3)
    harbor(st, 0, 2)
    for _ in range(10):
        give_token(st, 0, "industry")
    give_building(st, 0, "Exchange")
    give_building(st, 0, "Shipyard", used=1)
    assert {t for t in legal(st) if t.startswith("pay")} == {"pay Shipyard with Exchange"}
    act(st, "pay Shipyard with Exchange")
    assert st.used[BUILDING["Shipyard"]] == 0 and st.used[BUILDING["Exchange"]] == 1
    assert st.harbor[0] == 2  # one marker out, one back: net 0
    check(st)


def test_payment_is_not_offered_with_nothing_to_free() -> None:
    st = make(3)
    harbor(st, 0, 2)
    give_building(st, 0, "Museum")
    assert not any(t.startswith("pay") for t in legal(st))


def test_payment_token_may_free_a_level_five_building() -> None:
    st = make(3)  # D6
    harbor(st, 0, 2)
    give_building(st, 0, "Parliament", used=1)
    give_token(st, 0, "payment")
    assert "pay Parliament with payment-token" in legal(st)
    act(st, "pay Parliament with payment-token")
    assert st.used[BUILDING["Parliament"]] == 0 and st.harbor[0] == 3


def test_a_freed_building_can_be_activated_again_this_round() -> None:
    st = make(3)
    harbor(st, 0, 4)
    give_token(st, 0, "payment")
    act(st, "occupy europe-0 with Colonial-House")
    act(st, "pass")
    act(st, "pass")
    act(st, "pay Colonial-House with payment-token")
    act(st, "occupy europe-1 with Colonial-House")
    assert st.city_owner[CITY["europe-1"]] == 0


# ---------------------------------------------------------------- draw


def test_draw_needs_presence_at_least_the_card_level() -> None:
    st = make(3)
    harbor(st, 0, 2)
    give_building(st, 0, "Market")
    # Level-0 cards need no presence: only the two European decks.
    assert {t for t in legal(st) if t.startswith("draw")} == {
        "draw mediterranean with Market",
        "draw slavery with Market",
    }
    act(st, "draw mediterranean with Market")
    assert st.card_location[CARD["mediterranean-0"]] == 0
    assert track(st, 0, "culture") == 1 and track(st, 0, "finance") == 1
    # The next card is level 1: one European city is needed.
    act(st, "pass")
    act(st, "pass")
    st.used[BUILDING["Market"]] = 0
    st.supply[0] += 1
    assert "draw mediterranean with Market" not in legal(st)
    place(st, 0, "europe-0")
    assert "draw mediterranean with Market" in legal(st)
    check(st)


def test_draw_in_an_outer_region_counts_cities_track_and_beside() -> None:
    st = make(3)
    open_region(st, "africa", [0, 1, 1, 1, 1, 1])  # seat 1 gets the Governor
    harbor(st, 0, 2)
    give_building(st, 0, "Market")
    assert "draw africa with Market" in legal(st)  # level 1, presence 1 (track)
    give_card(st, 2, "africa-1")
    assert "draw africa with Market" not in legal(st)  # level 2 now on top
    ship(st, 0, "africa")  # beside the full track
    assert "draw africa with Market" in legal(st)
    act(st, "draw africa with Market")
    assert st.card_location[CARD["africa-2"]] == 0


def test_no_draw_from_a_closed_region() -> None:
    st = make(3)
    ship(st, 0, "africa", 5)
    harbor(st, 0, 2)
    give_building(st, 0, "Market")
    assert "draw africa with Market" not in legal(st)


def test_spending_a_blue_token_is_the_action() -> None:
    st = make(3)
    give_token(st, 0, "ship-draw")
    give_token(st, 0, "occupy-draw")
    # No markers at all: only the token Draws are possible (they cost none).
    assert legal(st) == {
        "pass",
        "draw mediterranean with ship-draw-token",
        "draw slavery with ship-draw-token",
        "draw mediterranean with occupy-draw-token",
        "draw slavery with occupy-draw-token",
    }
    act(st, "draw slavery with occupy-draw-token")
    assert st.blue_tokens[0 * 4 + 1] == 0 and st.spent_tokens[1] == 1
    assert sum(st.used[:NB]) == 0  # no marker on any building
    assert st.current_player() == 1  # the turn is over
    check(st)


# ---------------------------------------------------------------- combined actions


def test_guild_hall_is_ship_or_draw() -> None:
    st = make(3)
    harbor(st, 0, 3)
    give_building(st, 0, "Guild-Hall")
    options = legal(st)
    assert "ship africa with Guild-Hall" in options
    assert "draw mediterranean with Guild-Hall" in options
    act(st, "ship africa with Guild-Hall")
    assert st.current_player() == 1  # exactly one half


def test_fortress_is_occupy_or_attack() -> None:
    st = make(3)
    place(st, 1, "europe-9")
    harbor(st, 0, 4)
    give_building(st, 0, "Fortress")
    options = legal(st)
    assert "occupy europe-0 with Fortress" in options
    assert "attack europe-9 with Fortress" in options
    act(st, "occupy europe-0 with Fortress")
    assert st.current_player() == 1


def test_docks_ship_then_occupy_in_the_region_it_opened() -> None:
    st = make(3)
    ship(st, 0, "africa", 5)
    harbor(st, 0, 4)
    give_building(st, 0, "Docks")
    act(st, "ship africa with Docks")
    assert st.phase == R.SECOND and st.current_player() == 0
    assert legal(st) == {"occupy africa-0", "occupy africa-1", "done"}
    act(st, "occupy africa-1")
    assert st.city_owner[CITY["africa-1"]] == 0 and st.harbor[0] == 1  # 4 - Docks - ship - occupy
    assert st.current_player() == 1
    check(st)


def test_docks_occupy_then_ship_in_the_same_region() -> None:
    st = make(3)
    open_region(st, "africa", [0, 1, 1, 1, 1, 1])
    harbor(st, 0, 3)
    give_building(st, 0, "Docks")
    act(st, "occupy africa-0 with Docks")
    assert legal(st) == {"ship africa", "done"}
    act(st, "ship africa")
    assert st.beside_track[0 * D.NUM_REGIONS + AF] == 1


def test_docks_second_half_may_be_skipped() -> None:
    st = make(3)
    harbor(st, 0, 4)
    give_building(st, 0, "Docks")
    act(st, "ship india with Docks")
    # India is closed: there is no Occupy to offer, so the action ends.
    assert st.current_player() == 1
    st.to_move = 0
    open_region(st, "africa", [1, 1, 1, 1, 1, 1])
    st.used[BUILDING["Docks"]] = 0
    st.supply[0] += 1
    harbor(st, 0, 3)
    act(st, "ship africa with Docks")
    assert legal(st) == {"occupy africa-0", "occupy africa-1", "done"}
    act(st, "done")
    assert st.current_player() == 1 and st.harbor[0] == 1
    assert st.city_owner[CITY["africa-0"]] == st.city_owner[CITY["africa-1"]] == -1


def test_docks_may_only_occupy_in_europe() -> None:
    st = make(3)  # D7
    harbor(st, 0, 4)
    give_building(st, 0, "Docks")
    act(st, "occupy europe-2 with Docks")
    assert st.current_player() == 1  # no track in Europe: nothing to ship to


def test_cartographer_ships_twice_to_the_same_region() -> None:
    st = make(3)
    harbor(st, 0, 3)
    give_building(st, 0, "Cartographer")
    act(st, "ship far-east with Cartographer")
    assert legal(st) == {"ship far-east", "done"}
    act(st, "ship far-east")
    fe = D.TRACK_OFFSET[REGION["far-east"]]
    assert st.shipping_track[fe : fe + 2] == [0, 0] and st.harbor[0] == 0


def test_cartographer_second_ship_needs_a_marker() -> None:
    st = make(3)
    harbor(st, 0, 2)
    give_building(st, 0, "Cartographer")
    act(st, "ship far-east with Cartographer")
    assert st.current_player() == 1


def test_trade_office_draws_twice_from_one_deck_with_its_own_presence_check() -> None:
    st = make(3)
    harbor(st, 0, 2)
    place(st, 0, "europe-0")
    give_building(st, 0, "Trade-Office")
    act(st, "draw mediterranean with Trade-Office")
    assert legal(st) == {"draw mediterranean", "done"}  # level 1 with one city: fine
    act(st, "draw mediterranean")
    assert st.card_location[CARD["mediterranean-1"]] == 0
    st.to_move = 0
    st.used[BUILDING["Trade-Office"]] = 0
    st.supply[0] += 1
    harbor(st, 0, 1)
    act(st, "draw slavery with Trade-Office")
    # Slavery 1 needs one European city: seat 0 has one.
    assert legal(st) == {"draw slavery", "done"}
    act(st, "done")
    st.to_move = 0
    st.used[BUILDING["Trade-Office"]] = 0
    st.supply[0] += 1
    harbor(st, 0, 1)
    # Mediterranean 2 is on top now and needs two European cities.
    assert "draw mediterranean with Trade-Office" not in legal(st)
    place(st, 0, "europe-1")
    act(st, "draw mediterranean with Trade-Office")
    # Mediterranean 3 needs three: no second draw to offer, the action is over.
    assert st.card_location[CARD["mediterranean-2"]] == 0 and st.current_player() == 1


def test_occupy_draw_token_is_one_or_the_other() -> None:
    st = make(3)
    harbor(st, 0, 1)
    give_token(st, 0, "occupy-draw")
    assert "occupy europe-0 with occupy-draw-token" in legal(st)
    assert "draw mediterranean with occupy-draw-token" in legal(st)
    act(st, "occupy europe-0 with occupy-draw-token")
    assert st.current_player() == 1 and st.harbor[0] == 0


def test_a_token_gained_during_an_action_waits_for_the_next_turn() -> None:
    st = make(3)  # D9
    harbor(st, 0, 2)
    set_token(st, city_space("europe-0"), "attack")
    act(st, "occupy europe-0 with Colonial-House")
    assert st.blue_tokens[0 * 4 + 2] == 1
    assert st.current_player() == 1  # the action is over; the token is for later
