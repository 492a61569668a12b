"""``gamehost play``'s away mode: ``away`` hands the seat to a bot, ``back`` takes it
back, and both changes are shown with the moves made meanwhile."""

from __future__ import annotations

import pexpect

from gamehost.play import AWAY_PROMPT
from tests.cli.conftest import PROMPT


def test_away_and_back(play):
    # The other seat's bot searches (a fraction of a second a move): the game goes on.
    game = play("cite", "--players", "2", "--seed", "4", "--bots", "mcts-fast")
    game.child.timeout = 90
    assert "away [LEVEL]" in game.move("help")
    game.child.sendline("away greedy")
    game.child.expect_exact(AWAY_PROMPT)
    assert "you are away: greedy plays seat 0" in game.child.before
    assert "[seat 0] away: bot greedy plays it" in game.child.before
    game.child.sendline("dance")
    game.child.expect_exact(AWAY_PROMPT)
    assert "type back to play again" in game.child.before
    game.child.sendline("back")
    assert game.child.expect_exact([PROMPT, pexpect.EOF]) == 0
    screen = game.saw(game.child.before)
    assert "you are back" in screen
    assert "[seat 0] taken back: you play it" in screen
    # Playing again: a move of ours is taken.
    after = game.move(game.first_move())
    assert after.lstrip().startswith("[you] "), after[:200]
    game.quit()


def test_quit_while_away_leaves_the_bot_playing(play):
    game = play("cite", "--players", "2", "--seed", "5", "--bots", "mcts-fast")
    game.child.sendline("away")
    game.child.expect_exact(AWAY_PROMPT)
    game.child.sendline("quit")
    game.child.expect(pexpect.EOF)
    assert "the bot plays your seat" in game.child.before
