"""Seeded selfplay records of every game, printed as JSON lines: the compiled and the
pure build must print the same bytes (tests/games/test_builds.py runs this under each).

Usage: python -m tests.games.selfplay_record [SEED]   (GAMEHOST_PURE_PYTHON=1: pure)

Every seat's bot searches or plays greedily, so the record goes through the engines'
legal actions, apply, clone and determinize and through the bots' search; each line
holds the game's whole action log, its final state's bytes and its returns.
"""

from __future__ import annotations

import json
import random
import sys

from bots import choose_action
from games import CHANCE, TERMINAL, engine_build, game_names, get_game

# Seat levels: a small search, greedy and random, so every game ends in seconds.
LEVELS = ("mcts:trees=2,iterations=12,depth=8", "greedy", "random")


def record(game_type: str, seed: int) -> dict[str, object]:
    game = get_game(game_type)
    players = max(game.info.min_players, 3) if game.info.max_players >= 3 else 2
    state = game.new_game(players, seed)
    initial = state.to_bytes().decode()
    luck = random.Random(f"luck:{seed}")
    actions: list[int] = []
    while (player := state.current_player()) != TERMINAL:
        if player == CHANCE:
            action = state.sample_chance(luck)
        else:
            view = state.determinize(player, random.Random(f"{seed}:{len(actions)}"))
            action = choose_action(view, player, LEVELS[player % len(LEVELS)], seed + len(actions))
        state.apply_action(action)
        actions.append(action)
    return {
        "game": game_type,
        "seed": seed,
        "initial": initial,
        "actions": actions,
        "final": state.to_bytes().decode(),
        "returns": state.returns(),
    }


def main(argv: list[str]) -> int:
    seed = int(argv[0]) if argv else 1
    print(f"build: {engine_build()}", file=sys.stderr)
    for game_type in game_names():
        print(json.dumps(record(game_type, seed), separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
