"""``gamehost play cite`` in a terminal: gauges, card effects, events before prompts."""

from __future__ import annotations

import re

import pexpect

from tests.cli.conftest import PROMPT, assert_no_raw_protobuf


def test_cite_screens_events_help_and_errors(play):
    game = play("cite", "--players", "3", "--seed", "4")
    first = game.screen
    assert "you are seat 0 of 3" in first
    assert "city  gold wheat health civ army" in first
    # The roll that opened the turn comes before the first prompt, not after it.
    assert first.index("[chance] roll") < first.index("moves: ")
    assert_no_raw_protobuf(first)

    help_screen = game.move("help")
    assert "Cité notation" in help_screen and "deal <card> to <seat>" in help_screen

    error = game.move("build a castle")
    assert "not played:" in error and "cannot read 'build a castle'" in error
    # Nothing follows the error but the prompt: it stays on screen.
    assert error.strip().count("\n") == 0

    for _ in range(12):
        move = game.first_move()
        screen = game.move(move)
        if game.finished:
            assert screen.rstrip().endswith(("you win!", "you lose", "shared win"))
            break
        assert_no_raw_protobuf(screen)
        # The move's own event, then whatever it led to, then the screen.
        assert screen.lstrip().startswith(f"[you] {move}"), screen[:200]
        if "you drew:" in screen and move in ("levy", "no levy", "done"):
            # The draws this move led to come before the screen that shows them.
            assert screen.index("[chance] draw") < screen.index("you drew:")
        if "you drew:" in screen:  # what each card in sight does
            drawn = screen.split("you drew: ", 1)[1].split("\n", 1)[0].split(", ")
            for card in drawn:
                assert f"\n  {card}: " in screen, card
    game.quit()


def test_cite_shows_a_bot_thinking(play):
    # A search capped by time, not iterations: 2 s a decision on any machine (the
    # compiled engines search mcts-strong's budget in well under the half second
    # after which the line appears).
    slow = "mcts:trees=1,iterations=20000,seconds=2,playout=game,policy_depth=200"
    game = play("cite", "--players", "2", "--seed", "7", "--bots", slow)
    game.child.timeout = 60
    # Our turn ends within a few moves; then the bot searches 2 s a decision.
    for _ in range(6):
        game.child.sendline(game.first_move())
        index = game.child.expect([r"seat 1 \(bot\) thinking… \d+ s", re.escape(PROMPT)])
        if index == 0:
            break
        game.saw(game.child.before)
    else:
        raise AssertionError(f"no thinking line while the bot searched:\n{game.log.getvalue()}")
    game.child.expect(r"\[seat 1\] .+\(thought [\d.]+ s\)")
    game.child.expect_exact(PROMPT)
    game.child.sendline("quit")
    game.child.expect(pexpect.EOF)
