"""Catan engine speed against catanatron (random vs random, 4 players).

Usage: .venv/bin/python benchmarks/catan_speed.py [--seconds 20] [--no-catanatron]

Measures, on this machine and in one run:
- games/s and applied actions/s for our engine: random policy, uniform over
  the legal actions except domestic trade offers (catanatron's bots never
  offer trades), legal-action generation and chance sampling included; the
  fast path (``apply_unchecked``) as bots use it;
- the same for catanatron 3.2.1 (``Game([RandomPlayer]*4).play()``), installed
  from PyPI into ``benchmarks/.venv-catanatron`` on first use and run there as
  an outside program; its actions are the game's action records;
- clone, to_bytes and from_bytes times of our states (and catanatron's
  ``Game.copy`` for reference).

Both engines run in their own fresh process for the same number of seconds.
Our action count includes chance outcomes (dice, card draws, steals) as
separate actions; catanatron folds the dice into its ROLL action, so the table
also shows our decisions alone.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
VENV = ROOT / "benchmarks" / ".venv-catanatron"
CATANATRON = "catanatron==3.2.1"

CATANATRON_DRIVER = textwrap.dedent(
    """
    import json, sys, time
    from catanatron import Color, Game, RandomPlayer

    seconds = float(sys.argv[1])
    colors = [Color.RED, Color.BLUE, Color.ORANGE, Color.WHITE]

    def one(seed):
        game = Game([RandomPlayer(c) for c in colors], seed=seed)
        game.play()
        return len(game.state.actions)

    for seed in range(1, 4):  # warm-up
        one(seed)
    games = actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions += one(1000 + games)
        games += 1
    elapsed = time.perf_counter() - start

    game = Game([RandomPlayer(c) for c in colors], seed=7)
    for _ in range(300):
        game.play_tick()
    reps = 2000
    t0 = time.perf_counter()
    for _ in range(reps):
        game.copy()
    copy_us = (time.perf_counter() - t0) / reps * 1e6
    print(json.dumps({"games": games, "actions": actions, "seconds": elapsed,
                      "copy_us": copy_us}))
    """
)


def ours(seconds: float) -> dict:
    """Random-vs-random games with our engine, in this process."""
    import random
    import time

    sys.path.insert(0, str(ROOT))
    from games.catan import rules as R
    from games.catan.engine import Catan, CatanState

    offer_base = R.OFFER_BASE

    def one(seed: int) -> tuple[int, int]:
        rng = random.Random(seed)
        rnd = rng.random
        state = Catan.new_game(4, seed)
        actions = decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                action = state.sample_chance(rng)
            else:
                legal = state.legal_actions()
                # offers come last (ids are sorted): choose among the rest
                cut = len(legal)
                while cut > 1 and legal[cut - 1] >= offer_base:
                    cut -= 1
                action = legal[int(rnd() * cut)]
                decisions += 1
            state.apply_unchecked(action)
            actions += 1
        return actions, decisions

    for seed in range(1, 4):
        one(seed)
    games = actions = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        a, d = one(1000 + games)
        actions += a
        decisions += d
        games += 1
    elapsed = time.perf_counter() - start

    # a mid-game state for the copy/serialize timings
    rng = random.Random(7)
    state = Catan.new_game(4, 7)
    for _ in range(400):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_unchecked(state.sample_chance(rng))
        else:
            state.apply_unchecked(rng.choice(state.legal_actions()))
    data = state.to_bytes()

    def timed(fn, reps: int = 5000) -> float:
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        return (time.perf_counter() - t0) / reps * 1e6

    return {
        "games": games,
        "actions": actions,
        "decisions": decisions,
        "seconds": elapsed,
        "clone_us": timed(state.clone),
        "to_bytes_us": timed(state.to_bytes),
        "from_bytes_us": timed(lambda: CatanState.from_bytes(data), 2000),
        "state_bytes": len(data),
    }


def ensure_catanatron() -> pathlib.Path:
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {VENV.relative_to(ROOT)} with {CATANATRON} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('catanatron'))"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0 or probe.stdout.strip() != CATANATRON.split("==")[1]:
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", CATANATRON], check=True)
    return python


def run_worker(cmd: list[str]) -> dict:
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="per engine (default 20)")
    parser.add_argument("--no-catanatron", action="store_true", help="measure our engine only")
    parser.add_argument("--worker", choices=["ours"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker == "ours":
        print(json.dumps(ours(args.seconds)))
        return

    # Alternate the two engines in short rounds so that load from anything else
    # on the machine falls on both alike.
    rounds = max(1, int(args.seconds // 5))
    chunk = args.seconds / rounds
    python = None if args.no_catanatron else ensure_catanatron()
    us: dict = {}
    them: dict | None = None if python is None else {}
    for _ in range(rounds):
        _merge(
            us, run_worker([sys.executable, __file__, "--worker", "ours", "--seconds", str(chunk)])
        )
        if python is not None:
            _merge(them, run_worker([str(python), "-c", CATANATRON_DRIVER, str(chunk)]))

    cpus = os.cpu_count()
    print(
        f"Catan random vs random, 4 players, {args.seconds:g} s per engine in {rounds} "
        f"alternating rounds, {cpus} CPUs, Python {sys.version.split()[0]}"
    )
    rows = [("", "gamehost", "catanatron 3.2.1", "gamehost faster by")]

    def rate(d: dict, key: str) -> float:
        return d[key] / d["seconds"]

    def add(label: str, mine: float, theirs: float | None, fmt: str, ratio: str = "-") -> None:
        rows.append((label, format(mine, fmt), format(theirs, fmt) if theirs else "-", ratio))

    def faster(mine: float, theirs: float | None, higher_is_better: bool = True) -> str:
        if not theirs:
            return "-"
        return f"{(mine / theirs if higher_is_better else theirs / mine):.2f}x"

    for label, key, their_key in (
        ("games/s", "games", "games"),
        ("actions/s", "actions", "actions"),
        ("decisions/s (no chance)", "decisions", "actions"),
    ):
        mine = rate(us, key)
        theirs = them and rate(them, their_key)
        add(label, mine, theirs, ",.1f" if key == "games" else ",.0f", faster(mine, theirs))
    add(
        "actions/game",
        us["actions"] / us["games"],
        them and them["actions"] / them["games"],
        ",.0f",
    )
    add("decisions/game", us["decisions"] / us["games"], None, ",.0f")
    add("games played", us["games"], them and them["games"], ",")
    clone = us["clone_us"]
    add(
        "clone / copy (us)",
        clone,
        them and them["copy_us"],
        ".1f",
        faster(clone, them and them["copy_us"], False),
    )
    add("to_bytes (us)", us["to_bytes_us"], None, ".1f")
    add("from_bytes (us)", us["from_bytes_us"], None, ".1f")
    add("state bytes", us["state_bytes"], None, ",")
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        cells = [
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        print("  ".join(cells))


def _merge(total: dict | None, part: dict) -> None:
    """Add counts and times; keep the smallest per-call timings seen."""
    if total is None:
        return
    for key, value in part.items():
        if key.endswith("_us"):
            total[key] = min(total.get(key, value), value)
        elif key == "state_bytes":
            total[key] = value
        else:
            total[key] = total.get(key, 0) + value


if __name__ == "__main__":
    main()
