"""Decision quality: how far each level's choices fall from a much larger reference search.

Usage:
  .venv/bin/python benchmarks/studies/bots_regret.py --game cite --players 2
  options: --positions N (60) --reference LEVEL (mcts:trees=8,iterations=5000)
           --levels a,b,... (greedy,mcts-fast,mcts-strong) --seed S
  (a custom level's own fields may follow it: --levels mcts-fast,mcts:trees=4,depth=200)

Positions are decision points with a real choice taken at random plies of games
that mcts-fast plays at every seat (typical of what a bot meets, unlike positions
from random games). Each level decides on the seat's determinized view, as in the
service. The reference searches the same view; its mean return per root action is
the yardstick. For each level the script prints how often it picks the reference's
choice, and its mean regret: the reference's mean return of its own choice minus
that of the level's choice, in the seat's win share. A second reference search with
another seed gives the noise floor of both figures. Regret per decision times
choices per game roughly bounds the win rate a searcher that agrees with the
reference could gain over the level (within the reference's own model: its
playouts and heuristic): when that is a point or two, no 200-game match can tell
two levels apart.
"""

from __future__ import annotations

import argparse
import random
import time

from bots import best_action, choose_action, get_level, merge_root_stats, search_tree
from bots.arena import play_game
from games import State, game_names
from loadtest.bots_common import table


def sample_positions(game: str, players: int, count: int, seed: int) -> tuple[list, float]:
    """(seat, view) pairs from mcts-fast self-play, and the mean choices per seat and game."""
    found: list[tuple[int, State]] = []
    pick = random.Random(f"positions:{seed}")

    def sample(seat: int, view: State) -> None:
        if pick.random() < 0.1 and len(found) < count:
            found.append((seat, view))

    choices = []
    while len(found) < count:
        result = play_game(game, ["mcts-fast"] * players, seed + len(choices), on_choice=sample)
        choices.append(sum(result.choices) / players)
    return found, sum(choices) / len(choices)


def split_levels(text: str) -> list[str]:
    """Comma-separated levels; a ``key=value`` item continues the custom level before it."""
    levels: list[str] = []
    for item in text.split(","):
        if "=" in item and not item.startswith("mcts:") and levels:
            levels[-1] += "," + item
        else:
            levels.append(item)
    for level in levels:
        get_level(level)  # unknown or malformed levels fail before any game is played
    return levels


def reference(view: State, seat: int, level: str, seed: int) -> tuple[dict[int, float], int]:
    """The reference search's mean return per root action it tried, and its choice."""
    spec = get_level(level)
    stats = merge_root_stats(search_tree(view, seat, spec, seed, t) for t in range(spec.trees))
    means = {int(a): stats["values"][a] / n for a, n in stats["visits"].items() if n > 0}
    return means, best_action(stats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=game_names(), required=True)
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--reference", default="mcts:trees=8,iterations=5000")
    parser.add_argument("--levels", default="greedy,mcts-fast,mcts-strong")
    parser.add_argument("--seed", type=int, default=90_000)
    args = parser.parse_args()
    levels = split_levels(args.levels)
    start = time.perf_counter()
    found, choices_per_game = sample_positions(args.game, args.players, args.positions, args.seed)
    names = [*levels, f"{args.reference} (seed 2)"]
    agree = dict.fromkeys(names, 0)
    regret = dict.fromkeys(names, 0.0)
    for i, (seat, view) in enumerate(found):
        ref, best = reference(view, seat, args.reference, 1_000 + i)
        worst = min(ref.values())
        picks = {lv: choose_action(view, seat, lv, 7_000 + i) for lv in levels}
        picks[names[-1]] = reference(view, seat, args.reference, 5_000 + i)[1]
        for name, action in picks.items():
            agree[name] += action == best
            # An action the reference never tried counts at its worst mean.
            regret[name] += ref[best] - ref.get(action, worst)
    n = len(found)
    rows = [
        (
            name,
            f"{100 * agree[name] / n:.1f}%",
            f"{100 * regret[name] / n:.2f}",
            f"{100 * regret[name] / n * choices_per_game:.1f}",
        )
        for name in names
    ]
    print(
        f"{args.game}, {args.players} players, {n} positions from mcts-fast self-play, "
        f"{choices_per_game:.1f} choices per seat and game, reference {args.reference}, "
        f"{time.perf_counter() - start:.0f} s"
    )
    header = ("level", "same as reference", "regret/choice (pts)", "x choices/game (pts)")
    print(table(rows, header))


if __name__ == "__main__":
    main()
