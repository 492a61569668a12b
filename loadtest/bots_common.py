"""Shared pieces of the bot benchmarks: sample positions, tables.

Confidence intervals live in ``services.tournament.intervals`` (tournaments use them too).
"""

from __future__ import annotations

import random

from bots.heuristics import knowledge
from games import CHANCE, TERMINAL, State, get_game


def mcts_fast_iterations(game_type: str, players: int, count: int) -> dict:
    """One ``mcts-fast`` tree (its iterations, depth and c, the game's playout policy)
    on each of ``count`` sampled positions: the iterations run and the CPU seconds of
    this process they took (a busy machine's waits count for none)."""
    import time

    from bots import LEVELS
    from bots.mcts import uct_search

    fast = LEVELS["mcts-fast"]
    k = knowledge(game_type)
    done = 0
    start = time.process_time()
    for i, state in enumerate(positions(game_type, players, count, seed=3)):
        done += uct_search(
            state,
            k.evaluate,
            k.actions,
            random.Random(i),
            iterations=fast.iterations,
            seconds=None,
            depth=fast.depth,
            c=fast.c,
            playout_epsilon=k.playout_epsilon,
        ).iterations
    return {"iterations": done, "seconds": time.process_time() - start}


def positions(game_type: str, players: int, count: int, seed: int = 0) -> list[State]:
    """Decision points with a real choice, from random games at random depths.

    Catan positions are taken after set-up (the main game), so they are typical of
    the decisions a bot spends its time on.
    """
    actions = knowledge(game_type).actions
    game = get_game(game_type)
    found: list[State] = []
    k = seed
    while len(found) < count:
        rng = random.Random(k)
        state = game.new_game(players, k)
        k += 1
        stop = rng.randrange(20, 160)
        plies = 0
        while state.current_player() != TERMINAL:
            player = state.current_player()
            if player == CHANCE:
                state.apply_unchecked(state.sample_chance(rng))
                continue
            legal = actions(state)
            if plies >= stop and len(legal) > 1 and _typical(game_type, state):
                found.append(state)
                break
            state.apply_unchecked(rng.choice(legal))
            plies += 1
    return found


def _typical(game_type: str, state: State) -> bool:
    if game_type == "catan":
        from games.catan import rules as R

        return state.phase == R.MAIN
    return True


def table(rows: list[tuple], header: tuple) -> str:
    cells = [tuple(str(c) for c in header)] + [tuple(str(c) for c in r) for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for i, row in enumerate(cells):
        lines.append(
            "  ".join(
                c.ljust(w) if j == 0 else c.rjust(w)
                for j, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def a_build_of(row: dict, default: str | None = None) -> str | None:
    """The build that played seat A in a ``bots_strength.py --results`` row: its
    ``a_build`` (``--a-build``), else the build that played the row, else ``default``
    (rows from before either field)."""
    return row.get("a_build", row.get("build", default))
