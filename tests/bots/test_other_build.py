"""loadtest/other_build.py: a seat whose decisions are made by the other build, in a
helper process, plays the very game that seat plays in this process. That is what lets
``bots_strength.py --a-build`` compare the builds at a time budget: only the search's
speed differs, never its moves."""

from __future__ import annotations

import pytest

from bots.arena import play_game
from games import engine_build
from loadtest.other_build import OtherBuild, routed

LEVEL = "mcts:trees=1,iterations=60"
OTHER = {"compiled": "pure", "pure": "compiled"}


def _game(game: str, levels: list[str], seed: int, decider=None) -> tuple:
    seen: list[bytes] = []
    extra = {} if decider is None else {"decider": decider}
    result = play_game(
        game,
        levels,
        seed,
        deal=seed,
        on_choice=lambda seat, view: seen.append(view.to_bytes()),
        **extra,
    )
    return result.returns, result.plies, result.choice_iterations, seen


@pytest.mark.procs
@pytest.mark.parametrize("game,players", [("endeavor", 3), ("cite", 2), ("catan", 3)])
def test_a_seat_in_the_other_build_plays_the_same_game(game: str, players: int) -> None:
    helper = OtherBuild(OTHER[engine_build()])
    try:
        levels = [LEVEL] + ["greedy"] * (players - 1)
        here = _game(game, levels, 3)
        there = _game(game, levels, 3, routed(helper, LEVEL))
    finally:
        helper.close()
    assert here[3], "the seats made no choice at all"
    assert there == here


def test_a_helper_of_an_unknown_build_is_refused() -> None:
    with pytest.raises(ValueError, match="compiled, pure"):
        OtherBuild("fast")
