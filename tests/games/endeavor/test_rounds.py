"""Setup and the round structure: Build, Growth, Salary, the Action phase's turns, the end."""

from __future__ import annotations

from collections import Counter

import pytest

from games.base import TERMINAL, IllegalActionError, OptionsError
from games.endeavor import data as D
from games.endeavor import rules as R
from games.endeavor.engine import Endeavor
from tests.games.endeavor.helpers import (
    BUILDING,
    NB,
    act,
    check,
    give_building,
    give_token,
    harbor,
    legal,
    make,
    open_region,
    track,
)

# ---------------------------------------------------------------- setup


@pytest.mark.parametrize("players", [3, 4, 5])
def test_setup(players: int) -> None:
    st = Endeavor.new_game(players, 123)
    # One token on every one of the 95 circles, the counts by type as in the box.
    assert Counter(st.space_token) == dict(enumerate(D.TOKEN_COUNTS))
    assert -1 not in st.space_token
    # Decks complete and ordered, building supply sorted by type.
    assert all(v == R.LOC_DECK for v in st.card_location)
    assert st.building_supply == list(D.BUILDING_SUPPLY)
    for s in range(players):
        assert st.supply[s] == 30 and st.harbor[s] == 0  # 0 markers in the harbor
        assert st.track_values[s * 4 : s * 4 + 4] == [0, 0, 0, 0]
        assert st.owned[s * NB : (s + 1) * NB] == [1] + [0] * 15  # the Colonial House
    assert st.round == 1 and st.phase == R.BUILD
    assert st.current_player() == st.crown  # the crown holder builds first
    check(st)


def test_setup_randomness_comes_from_the_seed() -> None:
    layouts = {tuple(Endeavor.new_game(4, seed).space_token) for seed in range(20)}
    assert len(layouts) == 20
    crowns = {Endeavor.new_game(4, seed).crown for seed in range(40)}
    assert crowns == {0, 1, 2, 3}  # a random first player
    assert Endeavor.new_game(4, 7).to_dict() == Endeavor.new_game(4, 7).to_dict()


def test_options() -> None:
    assert Endeavor.new_game(3, 0).round_down is False  # push forward by default (13a D1)
    assert Endeavor.new_game(3, 0, {"track_glory": "round-down"}).round_down is True
    with pytest.raises(OptionsError):
        Endeavor.new_game(3, 0, {"track_glory": "sideways"})
    with pytest.raises(OptionsError):
        Endeavor.new_game(2, 0)
    with pytest.raises(OptionsError):
        Endeavor.new_game(6, 0)


# ---------------------------------------------------------------- build


def at_build(players: int = 3) -> object:
    st = make(players)
    st.phase = R.BUILD
    st.step = 0
    return st


def test_build_level_comes_from_industry() -> None:
    st = at_build()
    assert legal(st) == {"build Market", "build Shipyard", "build Workshop"}
    give_token(st, 0, "industry")
    give_token(st, 0, "industry")  # Industry 2: level 2
    assert legal(st) == {
        "build Market",
        "build Shipyard",
        "build Workshop",
        "build Bank",
        "build Barracks",
        "build Guild-Hall",
    }
    for _ in range(3):
        give_token(st, 0, "industry")  # Industry 5: level 3 (the seed's example)
    assert "build Docks" in legal(st) and "build Cartographer" not in legal(st)
    assert "pass" not in legal(st)  # building is compulsory


def test_build_icons_apply_at_once_and_buildings_arrive_empty() -> None:
    st = at_build()
    act(st, "build Workshop")
    assert track(st, 0, "industry") == 2
    assert st.owned[0 * NB + BUILDING["Workshop"]] == 1 and st.used[0 * NB + 3] == 0
    assert st.building_supply[BUILDING["Workshop"]] == 4
    assert st.current_player() == 1  # clockwise from the crown


def test_duplicates_are_allowed() -> None:
    st = at_build()
    give_building(st, 0, "Shipyard")
    assert "build Shipyard" in legal(st)
    act(st, "build Shipyard")
    assert st.owned[BUILDING["Shipyard"]] == 2


def test_only_one_level_five_building() -> None:
    st = at_build()
    for _ in range(10):
        give_token(st, 0, "industry")
    assert {"build Exchange", "build Museum", "build Parliament"} <= legal(st)
    give_building(st, 0, "Museum")
    assert not {"build Exchange", "build Parliament"} & legal(st)
    assert "build University" in legal(st)


def test_one_level_above_when_nothing_is_left_at_or_below() -> None:
    st = at_build()
    for t in (1, 2, 3):  # every level-1 tile is gone
        st.building_supply[t] = 0
        st.owned[1 * NB + t] += 5
        st._add_icons(1, tuple(5 * i for i in D.BUILDING_ICONS[t]), 1)
    assert legal(st) == {"build Bank", "build Barracks", "build Guild-Hall"}
    # D5: the lowest level above that still has tiles.
    for t in (4, 5, 6):
        st.building_supply[t] = 0
        st.owned[2 * NB + t] += 4
        st._add_icons(2, tuple(4 * i for i in D.BUILDING_ICONS[t]), 1)
    assert legal(st) == {"build Docks", "build Fortress", "build Theatre"}


# ---------------------------------------------------------------- growth and salary


def test_round_one_growth_is_two_and_salary_does_nothing() -> None:
    st = Endeavor.new_game(3, 1)
    for _ in range(3):
        act(st, "build Shipyard")  # +1 Culture: still level 1
    assert st.phase == R.ACTION
    assert st.harbor == [2, 2, 2] and st.supply == [28, 28, 28]
    assert st.current_player() == st.crown


def test_growth_follows_culture_and_is_capped_by_supply() -> None:
    st = at_build()
    for _ in range(4):
        give_token(st, 0, "culture")  # Culture 4: level 3, growth 4
    give_token(st, 1, "culture")
    give_token(st, 1, "culture")  # Culture 2: growth 3 (the seed's example)
    harbor(st, 2, 29)  # seat 2 keeps a single marker in its supply
    for _ in range(3):
        act(st, "build Market")
    assert st.harbor == [4, 3, 30] and st.supply == [26, 27, 0]


def salary_position() -> object:
    """Seat 0 (Finance 3: two payments) with markers on three different buildings."""
    st = at_build()
    for _ in range(3):
        give_token(st, 0, "finance")
    give_building(st, 0, "Colonial-House", used=1)
    give_building(st, 0, "Shipyard", used=1)
    give_building(st, 0, "Market", used=1)
    return st


def test_salary_player_chooses_which_markers_come_back() -> None:
    st = salary_position()
    for _ in range(3):
        act(st, "build Workshop")
    assert st.phase == R.SALARY and st.current_player() == 0
    assert legal(st) == {"salary Colonial-House", "salary Shipyard", "salary Market"}
    act(st, "salary Market")
    assert legal(st) == {"salary Colonial-House", "salary Shipyard"}
    act(st, "salary Colonial-House")
    assert st.phase == R.ACTION  # two payments made; the Shipyard stays activated
    assert st.used[BUILDING["Shipyard"]] == 1 and st.used[BUILDING["Market"]] == 0
    assert st.harbor[0] == 2 + 2


def test_salary_returns_everything_when_payments_suffice() -> None:
    st = salary_position()
    for _ in range(2):
        give_token(st, 0, "finance")  # Finance 5: level 3, three payments
    for _ in range(3):
        act(st, "build Workshop")
    assert st.phase == R.ACTION  # no choice to make, unused payments are lost
    assert sum(st.used[:NB]) == 0 and st.harbor[0] == 2 + 3  # growth 2, three back


def test_salary_without_choice_is_automatic() -> None:
    st = at_build()
    give_building(st, 0, "Shipyard", used=0)
    give_building(st, 0, "Shipyard", used=0)
    st.supply[0] -= 2
    st.used[BUILDING["Shipyard"]] = 2  # two Shipyards, one payment: no real choice
    for _ in range(3):
        act(st, "build Workshop")
    assert st.phase == R.ACTION and st.used[BUILDING["Shipyard"]] == 1


# ---------------------------------------------------------------- the action phase


def test_turns_go_round_until_everyone_passes_and_passed_players_are_skipped() -> None:
    st = make(3)
    for s in range(3):
        harbor(st, s, 4)
    act(st, "occupy europe-0 with Colonial-House")
    assert st.current_player() == 1
    act(st, "pass")
    assert st.current_player() == 2
    act(st, "occupy europe-1 with Colonial-House")
    assert st.current_player() == 0  # seat 1 passed: skipped from now on
    act(st, "pass")
    assert st.current_player() == 2
    act(st, "pass")
    assert st.round == 2 and st.phase == R.BUILD
    assert st.crown == 1 and st.current_player() == 1  # the crown passed left


def test_activation_costs_one_marker_and_a_used_building_cannot_be_reused() -> None:
    st = make(3)
    harbor(st, 0, 4)
    act(st, "occupy europe-0 with Colonial-House")
    assert st.harbor[0] == 2 and st.used[0] == 1  # one on the building, one on the city
    act(st, "pass")
    act(st, "pass")
    assert st.current_player() == 0
    assert legal(st) == {"pass"}  # the Colonial House is occupied


def test_buildings_without_a_circle_cannot_be_activated() -> None:
    st = make(3)
    harbor(st, 0, 5)
    for name in ("Workshop", "Bank", "Theatre", "University"):
        give_building(st, 0, name)
    sources = {text.split(" with ")[1] for text in legal(st) if " with " in text}
    assert sources == {"Colonial-House"}


def test_game_ends_after_round_seven() -> None:
    st = make(3)
    st.round = 7
    act(st, "pass")
    act(st, "pass")
    assert not st.is_terminal()
    act(st, "pass")
    assert st.is_terminal() and st.current_player() == TERMINAL
    assert st.legal_actions() == []
    with pytest.raises(IllegalActionError):
        st.apply_action(R.PASS)


def test_game_ends_when_building_spaces_fill() -> None:
    st = make(3)
    st.round = 3  # an artificial position: seat 1 already has all 8 buildings
    for name in ("Market", "Market", "Market", "Workshop", "Workshop", "Workshop", "Shipyard"):
        give_building(st, 1, name)
    for _ in range(3):
        act(st, "pass")
    assert st.is_terminal()


def test_returns_share_a_tied_win() -> None:
    st = make(3)
    st.round = 7
    # Nobody has any glory but the empty Free Governor slot.
    for _ in range(3):
        act(st, "pass")
    assert st.scores == [3, 3, 3]
    assert st.returns() == pytest.approx([1 / 3, 1 / 3, 1 / 3])


def test_single_winner_returns() -> None:
    st = make(3)
    st.round = 7
    open_region(st, "africa", [1, 1, 1, 1, 1, 1])
    for _ in range(3):
        act(st, "pass")
    assert st.winners == [1] and st.returns() == [0.0, 1.0, 0.0]
