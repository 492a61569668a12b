"""The terminal screens and input rules, from protobuf views alone."""

from __future__ import annotations

import subprocess
import sys

from gamehost.choose import choose
from gamehost.render import catan, cite, endeavor
from gamehost.render.menu import group, menu
from gamehost.v1 import cite_pb2
from gamehost.v1 import gamehost_pb2 as pb
from games import get_game
from services.views import view_of


def test_the_client_side_imports_no_engine_and_no_service():
    code = (
        "import sys, gamehost.play, gamehost.render, gamehost.choose\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('games', 'bots', 'services'))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_catan_map_draws_pieces_and_robber_from_the_view():
    view = view_of("catan", get_game("catan").new_game(4, 3), 0)
    view.buildings.add(intersection=14, seat=2, city=False)
    view.buildings.add(intersection=40, seat=1, city=True)
    view.roads.add(path=13, seat=3)
    view.robber_hex = 4
    text = catan.render_map(view)
    assert "14S2" in text and "40C1" in text and "H4 R" in text
    assert "\\r3" in text or "/r3" in text
    assert "/13" not in text and "\\13" not in text  # the road covers the path id
    assert "[65]" in text and "H18" in text


def test_catan_board_without_terrain_shows_only_ids():
    view = view_of("catan", get_game("catan").new_game(4, 3), None)
    text = catan.render_board(view, terrain=False)
    assert "H9" in text and " R" not in text and "Terrain" not in text
    assert "harbor 8: path" in text


def _cite_view(standing: list[bool], discard: dict[int, int]) -> cite_pb2.CiteView:
    view = cite_pb2.CiteView(round=3, round_limit=60)
    for seat, up in enumerate(standing):
        view.cities.add(seat=seat, standing=up, gold=5, wheat=5, health=5, civilians=5, army=5)
    for card, count in discard.items():
        view.discard.add(card=card, count=count)
    return view


def test_cite_announces_falls_and_the_cards_played():
    before = _cite_view([True, True, True], {cite_pb2.FIRE: 1})
    after = _cite_view([True, False, True], {cite_pb2.FIRE: 2})
    lines = cite.notices(before, after)
    assert "*** city 1 has fallen ***" in lines
    assert "  to the discard pile: fire: -2 wheat" in lines
    assert cite.notices(after, after) == []


def test_cite_shows_what_the_cards_in_sight_do():
    view = _cite_view([True, True], {})
    view.phase = cite_pb2.CITE_DEAL
    view.drawn.extend([cite_pb2.HOSPITAL, cite_pb2.BARBARIANS])
    text = cite.render(view, 0)
    assert "you drew: hospital, barbarians" in text
    assert "  hospital: +1 health" in text and "  barbarians: -1 wheat and -1 army" in text
    assert set(cite.CARD_EFFECTS) == set(cite_pb2.CiteCard.values()) - {0}


def test_endeavor_screen_is_short_and_readable():
    view = view_of("endeavor", get_game("endeavor").new_game(4, 2), None)
    text = endeavor.render(view, 1)
    lines = text.splitlines()
    assert len(lines) < 60 and max(map(len, lines)) <= 110
    assert lines[0].startswith("round 1/7  phase: build  first player: seat ")
    assert "  seat 3 buildings: Colonial-House" in text and "far-east" in text


def _legal(*notations: str) -> list[pb.LegalAction]:
    return [pb.LegalAction(id=i, notation=n) for i, n in enumerate(notations)]


def test_input_is_notation_or_a_board_id_never_a_menu_number():
    legal = _legal("settle 13", "settle 14", "settle 15", "road 14", "end")
    assert choose("settle 14", legal).action.notation == "settle 14"
    assert choose("  END ", legal).action.notation == "end"
    assert choose("13", legal).action.notation == "settle 13"  # the board id, not item 13
    ambiguous = choose("14", legal)
    assert ambiguous.action is None and "settle 14" in ambiguous.message
    assert "road 14" in ambiguous.message
    assert "settle 13|14|15" in choose("settle", legal).message
    assert choose("give 2 wool get 1 ore", legal).notation == "give 2 wool get 1 ore"
    occupy = _legal("occupy caribbean-2 with Colonial-House", "pass")
    assert choose("occupy caribbean-2", occupy).action.id == 0


def test_menu_groups_families_and_folds_trades():
    assert group(["road 3", "road 5", "road 9", "end"]) == ["road 3|5|9", "end"]
    lines = menu(["end", "give 1 wool get 1 ore", "bank 4 ore for wool", "road 3"], catan.FOLDS)
    assert lines == ["moves: end  ·  road 3  ·  trade … (2 ways: type `trade` to list them)"]


def test_catan_board_shows_every_id():
    from games.catan import board as B

    view = view_of("catan", get_game("catan").new_game(4, 0), None)
    text = catan.render_board(view, terrain=False)
    for v in range(54):
        assert f" {v} " in f" {text} ".replace("\n", " ")
    for e in range(72):
        assert f"[{e}]" in text or f"/{e}" in text or f"\\{e}" in text
    for h in range(19):
        assert f"H{h}" in text
    for k, e in enumerate(B.HARBOR_EDGES):
        assert f"harbor {k}: path {e}" in text
