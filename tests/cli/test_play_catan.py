"""``gamehost play catan`` in a terminal: the map with ids and pieces, board ids as
input, trades folded behind one entry."""

from __future__ import annotations

import re

from gamehost.render.catan import FOLDS
from games.catan.board import COAST_NODES
from tests.cli.conftest import assert_no_raw_protobuf

SETTLE = re.compile(r"\[(seat \d|you)\] settle (\d+)")


def inland(menu: str) -> str:
    """The first intersection a setup menu offers that touches three hexes: the
    second settlement's starting cards come from its hexes, so two inland settlements
    always leave us cards to trade (a coastal pick beside the desert once left the
    hand empty for all 60 moves)."""
    offered = menu.split()[1].split("|")
    return next(node for node in offered if int(node) not in COAST_NODES)


def assert_lists_trades(listing: str) -> None:
    """``trade`` lists the folded moves, and only trades. Which ones depends on the deal
    (the embedded server mixes a secret into ``--seed``): a hand of four ore opens with
    ``bank 4 ore …``, others with an offer ``give 1 …``."""
    assert listing.startswith("trade: "), listing[:200]
    entries = [e.strip() for e in re.split(r"  ·  |\n", listing.removeprefix("trade: "))]
    entries = [e for e in entries if e]
    assert entries, listing[:200]
    prefixes = FOLDS["trade"]
    assert all(e.startswith(prefixes) for e in entries), entries
    assert any(e.startswith("give ") for e in entries), entries  # an offer is always open


def test_catan_map_pieces_board_ids_and_folded_trades(play):
    game = play("catan", "--players", "3", "--seed", "7")
    screen = game.screen
    assert "H18" in screen and "harbors: 0: path" in screen
    # Path 65's label, or the road a bot built there before our first turn.
    road = re.search(r"\[seat (\d)\] road 65\b", screen)
    assert (f"[r{road.group(1)}]" if road else "[65]") in screen
    assert not re.search(r"^\s*\d+\. ", screen, re.M), "a numbered menu"
    assert_no_raw_protobuf(screen)
    settled: dict[str, str] = {}  # intersection -> seat mark, from the events

    def check_pieces(text: str) -> None:
        for who, node in SETTLE.findall(text):
            settled[node] = "0" if who == "you" else who.removeprefix("seat ")
        for node, seat in settled.items():
            assert re.search(rf"\b{node}[SC]{seat}\b", text), f"no piece of seat {seat} on {node}"

    check_pieces(screen)
    # A bare board id plays the action it names: an intersection offered.
    offered = game.menu.split()[0].split("|")
    assert offered == ["settle"]
    node = inland(game.menu)
    screen = game.move(node)
    assert screen.lstrip().startswith(f"[you] settle {node}\n")
    check_pieces(screen)

    help_screen = game.move("help")
    assert "Catan notation" in help_screen and "robber <hex> [rob <seat>]" in help_screen
    error = game.move("settle 99")
    assert "not played:" in error and error.strip().count("\n") == 0

    folded_seen = False
    for _ in range(60):
        menu = game.menu.strip().splitlines()
        assert len(menu) <= 3 and "give " not in game.menu, menu
        if "trade … (" in game.menu and not folded_seen:
            listing = game.move("trade")
            assert_lists_trades(listing)
            folded_seen = True
        move = (
            f"settle {inland(game.menu)}" if game.menu.startswith("settle") else game.first_move()
        )
        screen = game.move(move)
        if game.finished:
            assert screen.rstrip().endswith(("you win!", "you lose", "shared win"))
            break
        assert screen.lstrip().startswith(f"[you] {move}"), screen[:200]
        assert_no_raw_protobuf(screen)
        check_pieces(screen)
        if folded_seen:
            break
    assert folded_seen, "no main-phase screen with trades to fold"
    game.quit()
