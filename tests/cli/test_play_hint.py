"""``hint`` at the ``gamehost play`` prompt: the search's suggestion and its top moves,
a refusal as one line, and the suggestion is a move the prompt accepts."""

from __future__ import annotations

import re

from tests.cli.conftest import assert_no_raw_protobuf

HINT_LINE = re.compile(
    r"hint \((?P<level>[^,)]+)(, (?P<trees>\d+) trees, (?P<n>\d+) iterations)?\): (?P<move>.+)"
)
TOP_LINE = re.compile(
    r"^    (?P<move>.+?)\s+(?P<visits>\d+) visits  win share (?P<share>\d+)%$", re.M
)


def test_hint_shows_the_suggestion_and_the_top_moves(play):
    game = play("cite", "--players", "2", "--seed", "4")
    assert "hint [LEVEL]" in game.move("help")

    screen = game.move("hint")
    assert_no_raw_protobuf(screen)
    found = HINT_LINE.search(screen)
    assert found, screen
    assert (found["level"], found["trees"], found["n"]) == ("mcts-fast", "2", "800")
    top = TOP_LINE.findall(screen)
    assert 1 <= len(top) <= 5, screen
    assert top[0][0] == found["move"]  # the most visited move is the suggestion
    visits = [int(v) for _, v, _ in top]
    assert visits == sorted(visits, reverse=True) and sum(visits) <= 800
    assert all(0 <= int(share) <= 100 for _, _, share in top)

    # Another level, named at the prompt; a bad one is refused in one line.
    assert "hint (random): " in game.move("hint random")
    refusal = game.move("hint grandmaster")
    assert refusal.strip().startswith("no hint: unknown bot level 'grandmaster'"), refusal
    assert refusal.strip().count("\n") == 0

    # The suggestion is a move the prompt takes as typed.
    played = game.move(found["move"])
    assert played.lstrip().startswith(f"[you] {found['move']}"), played[:200]
    game.quit()
