"""The protobuf view carries the public position (nothing is hidden after set-up)."""

from __future__ import annotations

from gamehost.v1 import endeavor_pb2 as pb
from games.endeavor import data as D
from games.endeavor.engine import Endeavor
from services.views import view_of
from tests.games.endeavor.helpers import (
    act,
    give_building,
    give_card,
    harbor,
    make,
    open_region,
    place,
)


def test_view_shows_the_board_players_and_decks() -> None:
    st = make(3)
    open_region(st, "africa", [0, 1, 1, 1, 1, 1])
    place(st, 2, "europe-4")
    give_card(st, 0, "mediterranean-0")
    harbor(st, 0, 4)
    give_building(st, 0, "Docks")
    act(st, "ship africa with Docks")
    view = view_of("endeavor", st, 1)
    assert view.phase == pb.ENDEAVOR_SECOND_HALF and view.to_move == 0
    assert (view.pending, view.pending_target) == ("occupy", "africa")
    assert view.round == 1 and view.crown_seat == 0 and view.track_glory == "push-forward"
    cities = {c.id: c for c in view.cities}
    assert cities["europe-4"].owner == 2 and cities["south-america-0"].glory == 2
    assert cities["europe-4"].token == "" and cities["europe-5"].token in D.TOKEN_SLUGS
    africa = next(r for r in view.regions if r.id == "africa")
    assert africa.open and list(africa.track) == [0, 1, 1, 1, 1, 1]
    assert list(africa.beside_track) == [1, 0, 0] and list(africa.presence) == [2, 5, 0]
    decks = {d.id: list(d.cards) for d in view.decks}
    assert decks["africa"] == [f"africa-{i}" for i in range(1, 6)]
    assert decks["mediterranean"][0] == "mediterranean-1"
    me = view.players[0]
    assert list(me.cards) == ["mediterranean-0"] and me.culture == 1
    assert {b.name: (b.count, b.occupied) for b in me.buildings} == {
        "Colonial-House": (1, 0),
        "Docks": (1, 1),
    }
    assert me.score.total == sum(
        getattr(me.score, f) for f in ("tracks", "cities", "connections", "cards",
                                       "buildings", "free_governor_slot", "harbor", "slavery")
    )  # fmt: skip
    assert view_of("endeavor", st, None) == view_of(
        "endeavor", st, 2
    )  # every seat and spectators see the same


def test_final_view_lists_scores_and_winners() -> None:
    st = Endeavor.new_game(3, 8)
    while not st.is_terminal():
        st.apply_action(st.legal_actions()[-1])
    view = view_of("endeavor", st, None)
    assert view.phase == pb.ENDEAVOR_OVER
    assert list(view.scores) == st.scores and list(view.winners) == st.winners
    assert [p.score.total for p in view.players] == st.scores
