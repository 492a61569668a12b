"""Play whole games between bot levels, the way the service seats them (pure, no I/O).

Each bot decision gets ``state.determinize(seat, rng)`` of the true state, as
``services.bots.bot_turns`` does, never the true state itself. Chance outcomes are
drawn from their probabilities with an rng of the game's seed, or of ``deal``
when one is given: then the board and every die and card come from ``deal``
alone, so games of one deal with the bots in other seats see the same luck
(duplicate play, as in duplicate bridge: it takes luck out of a comparison).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bots.decide import decide
from bots.heuristics import knowledge
from games import CHANCE, TERMINAL, State, get_game


@dataclass
class GameResult:
    returns: list[float]
    plies: int
    decisions: list[int] = field(default_factory=list)  # per seat, forced moves included
    think: list[float] = field(default_factory=list)  # seconds per seat, all decisions
    choices: list[int] = field(default_factory=list)  # per seat, decisions with 2+ options
    choice_think: list[float] = field(default_factory=list)  # seconds on those
    choice_iterations: list[int] = field(default_factory=list)  # search iterations on those


def play_game(
    game_type: str,
    levels: Sequence[str],
    seed: int,
    options: Mapping[str, Any] | None = None,
    max_plies: int = 1_000_000,
    on_choice: Callable[[int, State], None] | None = None,
    deal: int | None = None,
    decider: Callable[[State, int, str, int], tuple[int, int]] = decide,
) -> GameResult:
    """One game with ``levels[seat]`` at each seat; returns the outcome and thinking time.

    ``on_choice(seat, view)``, when given, sees every decision with a real choice
    (the view the bot decided on; benchmarks sample positions from it). ``deal``,
    when given, seeds the game and its chance outcomes apart from the bots' seeds.
    ``decider`` makes each bot decision (``decide``'s signature); a benchmark passes
    one that sends some seats' decisions to another process.
    """
    players = len(levels)
    state = get_game(game_type).new_game(players, seed if deal is None else deal, options)
    rng = random.Random(f"arena:{seed}")
    # One stream for bots and chance unless a deal is given (older results replay as they were).
    luck = rng if deal is None else random.Random(f"deal:{deal}")
    actions_of = knowledge(game_type).actions
    decisions = [0] * players
    think = [0.0] * players
    choices = [0] * players
    choice_think = [0.0] * players
    choice_iterations = [0] * players
    plies = 0
    while True:
        player = state.current_player()
        if player == TERMINAL:
            break
        if plies >= max_plies:
            raise RuntimeError(f"{game_type} game {seed} did not end in {max_plies} plies")
        if player == CHANCE:
            action = state.sample_chance(luck)
        else:
            view = state.determinize(player, random.Random(f"{seed}:view:{plies}:{player}"))
            start = time.perf_counter()
            action, iterations = decider(view, player, levels[player], rng.getrandbits(63))
            spent = time.perf_counter() - start
            think[player] += spent
            decisions[player] += 1
            if len(actions_of(view)) > 1:
                choices[player] += 1
                choice_think[player] += spent
                choice_iterations[player] += iterations
                if on_choice is not None:
                    on_choice(player, view)
        state.apply_action(action)
        plies += 1
    return GameResult(
        state.returns(), plies, decisions, think, choices, choice_think, choice_iterations
    )
