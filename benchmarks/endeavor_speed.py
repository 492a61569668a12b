"""Endeavor engine speed: random 4-player playouts on one core (single process).

Usage: python benchmarks/endeavor_speed.py [--games N] [--players P] [--seconds S]

Reports playouts/s, actions/s and mean ms per game for the fast path
(``legal_actions`` + a uniform random choice + ``apply_unchecked``), the same with the
checked ``apply_action``, and clone / to_bytes / from_bytes times on mid-game states.
"""

from __future__ import annotations

import argparse
import random
import time

from games.endeavor.engine import Endeavor, EndeavorState


def playouts(games: int, players: int, checked: bool) -> tuple[float, int]:
    """Seconds and actions for ``games`` random games."""
    total_actions = 0
    start = time.perf_counter()
    for seed in range(games):
        rng = random.Random(seed)
        state = Endeavor.new_game(players, seed)
        apply = state.apply_action if checked else state.apply_unchecked
        choice = rng.choice
        actions = 0
        while state.to_move >= 0:  # not terminal (the game has no chance nodes)
            apply(choice(state.legal_actions()))
            actions += 1
        total_actions += actions
    return time.perf_counter() - start, total_actions


def sample_states(count: int, players: int) -> list[EndeavorState]:
    """Mid-game states from random games (one per game, at a random ply)."""
    states = []
    for seed in range(count):
        rng = random.Random(seed)
        state = Endeavor.new_game(players, seed)
        stop = rng.randrange(20, 100)
        for _ in range(stop):
            if state.is_terminal():
                break
            state.apply_unchecked(rng.choice(state.legal_actions()))
        states.append(state)
    return states


def per_call_us(fn, items, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        for item in items:
            fn(item)
    return (time.perf_counter() - start) / (repeat * len(items)) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    games, players = args.games, args.players

    playouts(50, players, checked=False)  # warm-up
    secs, actions = playouts(games, players, checked=False)
    print(f"Endeavor, {players} players, {games} random playouts, one core (apply_unchecked)")
    print(f"  playouts/s      {games / secs:10.1f}")
    print(f"  actions/s       {actions / secs:10.0f}")
    print(f"  mean ms/game    {secs / games * 1000:10.3f}")
    print(f"  actions/game    {actions / games:10.1f}")
    secs_c, actions_c = playouts(games // 4, players, checked=True)
    print(f"  mean ms/game with checked apply_action   {secs_c / (games // 4) * 1000:.3f}")

    states = sample_states(200, players)
    blobs = [s.to_bytes() for s in states]
    print(f"  clone           {per_call_us(lambda s: s.clone(), states, 50):10.2f} us")
    print(f"  to_bytes        {per_call_us(lambda s: s.to_bytes(), states, 10):10.2f} us")
    print(
        f"  from_bytes      {per_call_us(EndeavorState.from_bytes, blobs, 5):10.2f} us"
        "  (validates every field and the conservation laws)"
    )
    print(f"  legal_actions   {per_call_us(lambda s: s.legal_actions(), states, 50):10.2f} us")
    print(f"  bytes/state     {sum(map(len, blobs)) / len(blobs):10.0f}")


if __name__ == "__main__":
    main()
