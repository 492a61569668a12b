"""Final scoring, every line of the facts file's scoring list (§9.1), and the end of the game."""

from __future__ import annotations

import pytest

from games.endeavor.engine import Endeavor
from games.endeavor.scoring import LINES, score_lines, track_glory
from tests.games.endeavor.helpers import (
    act,
    check,
    give_building,
    give_card,
    give_token,
    harbor,
    make,
    open_region,
    place,
    set_token,
    ship,
    track_space,
)


def finish(st: object) -> object:
    """Play the last round's passes so the game ends and scores."""
    st.round = 7
    while not st.is_terminal():
        act(st, "pass")
    return st


def test_scoring_list_has_every_line() -> None:
    assert LINES == (
        "tracks",
        "cities",
        "connections",
        "cards",
        "buildings",
        "free_governor_slot",
        "harbor",
        "slavery",
    )


@pytest.mark.parametrize(
    ("value", "push", "down"),
    [(0, 0, 0), (1, 2, 0), (3, 4, 2), (5, 7, 4), (6, 7, 4), (8, 10, 7), (9, 10, 7), (10, 10, 10),
     (13, 13, 13), (15, 15, 15), (16, 15, 15), (40, 15, 15)],
)  # fmt: skip
def test_track_glory_push_forward_by_default_round_down_as_option(
    value: int, push: int, down: int
) -> None:
    assert track_glory(value, round_down=False) == push
    assert track_glory(value, round_down=True) == down


def test_track_line_sums_the_four_tracks_and_follows_the_option() -> None:
    for round_down, expected in ((False, 2 + 7 + 10 + 15), (True, 0 + 4 + 7 + 15)):
        st = make(3, round_down=round_down)
        st.track_values[0:4] = [1, 5, 8, 17]  # raw sums may pass 15 (D2)
        assert score_lines(st, 0)["tracks"] == expected


def test_option_reaches_the_final_score() -> None:
    scores = {}
    for option in ("push-forward", "round-down"):
        st = Endeavor.new_game(3, 0, {"track_glory": option})
        st.phase, st.to_move = 2, st.crown
        give_token(st, 0, "industry")  # Industry 1: 2 glory pushed forward, 0 rounded down
        scores[option] = finish(st).scores[0]
    assert scores["push-forward"] - scores["round-down"] == 2


def test_cities_score_their_glory_icons() -> None:
    st = make(3)
    open_region(st, "south-america", [0] * 6)
    place(st, 0, "south-america-0")  # worth 2
    place(st, 0, "europe-2")
    assert score_lines(st, 0)["cities"] == 3


def test_connections_score_for_their_controller_at_the_end() -> None:
    st = make(3)
    place(st, 0, "europe-0")
    place(st, 0, "europe-1")
    place(st, 0, "europe-2")  # two links: EU0-EU1 and EU1-EU2
    place(st, 1, "europe-3")
    assert score_lines(st, 0)["connections"] == 2
    # Seat 1 takes EU1 by attack: the links are split now, and EU0-EU3 is not its either.
    harbor(st, 1, 3)
    give_building(st, 1, "Barracks")
    st.to_move = 1
    act(st, "attack europe-1 with Barracks")
    assert score_lines(st, 0)["connections"] == 0
    assert score_lines(st, 1)["connections"] == 0
    harbor(st, 1, 3)
    give_building(st, 1, "Barracks")
    st.to_move = 1
    act(st, "attack europe-0 with Barracks")
    # EU0-EU1 and EU0-EU3 are seat 1's now: 1 glory each (EU0-EU1's token went to seat 0).
    assert score_lines(st, 1)["connections"] == 2


def test_cards_score_their_glory_governors_one() -> None:
    st = make(3)
    open_region(st, "north-america", [0] * 7)  # seat 0: the Governor (1)
    give_card(st, 0, "north-america-5")  # 6
    give_card(st, 0, "mediterranean-4")  # 5
    assert score_lines(st, 0)["cards"] == 12


def test_universities_score_three_each() -> None:
    st = make(3)
    give_building(st, 0, "University")
    give_building(st, 0, "University")
    give_building(st, 0, "Theatre")
    assert score_lines(st, 0)["buildings"] == 6


def test_free_governor_slot_scores_three_when_empty() -> None:
    st = make(3)
    assert score_lines(st, 0)["free_governor_slot"] == 3
    for _ in range(6):
        set_token(st, track_space("africa", _), "industry")
    open_region(st, "africa", [0] * 6)  # Governor with Politics 1: fits a regular slot
    assert score_lines(st, 0)["free_governor_slot"] == 3
    give_card(st, 0, "mediterranean-0")  # now the Governor must use the free slot
    assert score_lines(st, 0)["free_governor_slot"] == 0


def test_harbor_markers_score_one_per_full_three() -> None:
    st = make(3)
    harbor(st, 0, 8)
    give_building(st, 0, "Market", used=1)  # on a building: not counted
    assert score_lines(st, 0)["harbor"] == 2
    harbor(st, 0, 9)
    assert score_lines(st, 0)["harbor"] == 3


def test_face_down_slavery_cards_cost_one_each_and_tokens_score_nothing() -> None:
    st = make(3)
    give_card(st, 0, "slavery-0")
    give_card(st, 0, "slavery-1")
    st._abolish()
    assert score_lines(st, 0)["slavery"] == -2
    before = sum(score_lines(st, 1).values())
    give_token(st, 1, "attack")
    give_token(st, 1, "payment")  # blue tokens in the harbor: no glory
    assert sum(score_lines(st, 1).values()) == before


def test_final_score_is_the_sum_of_the_lines() -> None:
    st = make(3)
    ship(st, 0, "india", 2)
    place(st, 0, "europe-0")
    give_card(st, 0, "mediterranean-0")
    give_building(st, 0, "University")
    harbor(st, 0, 7)
    finish(st)
    lines = score_lines(st, 0)
    assert st.scores[0] == sum(lines.values())
    assert lines["cities"] == 1 and lines["buildings"] == 3 and lines["harbor"] == 2
    assert lines["free_governor_slot"] == 3
    check(st)
