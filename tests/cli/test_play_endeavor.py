"""``gamehost play endeavor`` in a terminal: a readable screen, not a protobuf dump."""

from __future__ import annotations

from tests.cli.conftest import assert_no_raw_protobuf


def test_endeavor_screen_help_prefixes_and_errors(play):
    game = play("endeavor", "--players", "3", "--seed", "5")
    screen = game.screen
    assert "round 1/7  phase: build" in screen and "to move: seat" in screen
    assert "ind cul fin pol | bld grw sal slt | supply harbor score" in screen
    for region in ("europe", "africa", "far-east"):
        assert f"\n  {region} " in screen
    assert "track " in screen and "buildings left: " in screen
    assert len(screen.splitlines()) < 60, "the screen fits a terminal"
    assert_no_raw_protobuf(screen)

    help_screen = game.move("help")
    assert "Endeavor notation" in help_screen and "occupy <city> with <building>" in help_screen
    listed = game.move("build")
    assert "build … could be: build " in listed and "|" in listed
    error = game.move("occupy the moon")
    assert "not played:" in error and error.strip().count("\n") == 0

    for _ in range(15):
        move = game.first_move(avoid=("pass",))  # a longer game, more on the map
        screen = game.move(move)
        if game.finished:
            assert screen.rstrip().endswith(("you win!", "you lose", "shared win"))
            break
        assert screen.lstrip().startswith(f"[you] {move}"), screen[:200]
        assert_no_raw_protobuf(screen)
        if "round " in screen:
            assert "shipping track" in screen and "seat 0 buildings: Colonial-House" in screen
    game.quit()
