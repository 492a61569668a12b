"""services.views: the protobuf views carry what a client needs to draw the game."""

from __future__ import annotations

from games import get_game
from games.catan import board as B
from services.views import build_view, view_of


def test_catan_hexes_carry_the_board_geometry():
    view = view_of("catan", get_game("catan").new_game(4, 3), None)
    assert [(h.row, h.col) for h in view.hexes][:4] == [(0, 0), (0, 1), (0, 2), (1, 0)]
    for h in view.hexes:
        corners = list(h.intersections)
        assert corners == list(B.HEX_NODES[h.id])
        for k, path in enumerate(h.paths):
            assert set(B.EDGE_NODES[path]) == {corners[k], corners[(k + 1) % 6]}
    every_path = {p for h in view.hexes for p in h.paths}
    assert every_path == set(range(B.NUM_EDGES))


def test_build_view_picks_the_game_by_name():
    state = get_game("cite").new_game(3, 1)
    assert build_view("cite", state.observation(0)) == view_of("cite", state, 0)
