"""Catan engine speed against catanatron (random vs random, 4 players), and search
speed, each for both builds of gamehost: compiled (mypyc, the default) and pure
(``GAMEHOST_PURE_PYTHON=1``).

Usage: .venv/bin/python benchmarks/catan_speed.py [--seconds 20] [--no-catanatron]
                                                  [--search-decisions 6] [--no-search]

Measures, on this machine and in one run:
- games/s and applied actions/s for our engine, under each build: random policy, uniform over
  the legal actions except domestic trade offers (catanatron's bots never
  offer trades), legal-action generation and chance sampling included; the
  fast path (``apply_unchecked``) as bots use it;
- the same for catanatron 3.2.1 (``Game([RandomPlayer]*4).play()``), installed
  from PyPI into ``benchmarks/.venv-catanatron`` on first use and run there as
  an outside program; its actions are the game's action records;
- clone, to_bytes and from_bytes times of our states (and catanatron's
  ``Game.copy`` for reference).

- fastcatan (a C++ engine) where it is installed; it needs Python 3.12, so on an
  older Python the table says "not installed";
- search-heavy selfplay, under each build: the first ``--search-decisions`` bot
  decisions of a seeded 3-player Catan game with ``mcts:trees=1,iterations=1500`` at
  every seat (the builds play the same game, so they make the same decisions);
- ``mcts-fast``'s UCT iterations per second (one tree, its playout depth) over the
  same sampled positions, under each build.

Each engine and build runs in its own fresh process for the same number of seconds;
rates and timings are per CPU second of that process (``time.process_time``), so time
it spends waiting for a core on a busy machine counts for none of them.
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
    cpu = time.process_time()
    while time.perf_counter() - start < seconds:
        actions += one(1000 + games)
        games += 1
    elapsed = time.process_time() - cpu

    game = Game([RandomPlayer(c) for c in colors], seed=7)
    for _ in range(300):
        game.play_tick()
    reps = 2000
    t0 = time.process_time()
    for _ in range(reps):
        game.copy()
    copy_us = (time.process_time() - t0) / reps * 1e6
    print(json.dumps({"games": games, "actions": actions, "seconds": elapsed,
                      "copy_us": copy_us}))
    """
)


def search_selfplay(decisions: int) -> dict:
    """Seconds for the first ``decisions`` bot decisions of a seeded 3-player game at
    ``mcts:trees=1,iterations=1500`` (chance and forced moves included in the game)."""
    import random
    import time

    from bots import choose_action
    from bots.heuristics import knowledge
    from games import CHANCE, TERMINAL, engine_build
    from games.catan.engine import Catan

    level = "mcts:trees=1,iterations=1500"
    state = Catan.new_game(3, 11)
    luck = random.Random(11)
    actions_of = knowledge("catan").actions
    searched = plies = 0
    spent = 0.0
    while searched < decisions and state.current_player() != TERMINAL:
        player = state.current_player()
        if player == CHANCE:
            action = state.sample_chance(luck)
        else:
            view = state.determinize(player, random.Random(plies))
            start = time.process_time()
            action = choose_action(view, player, level, plies)
            spent += time.process_time() - start
            searched += len(actions_of(view)) > 1
        state.apply_action(action)
        plies += 1
    return {"build": engine_build(), "decisions": searched, "seconds": spent, "plies": plies}


def fast_iterations(count: int) -> dict:
    """``mcts-fast``'s iterations/s: one tree on each of ``count`` sampled positions."""
    from games import engine_build
    from loadtest.bots_common import mcts_fast_iterations

    return {"build": engine_build(), **mcts_fast_iterations("catan", 4, count)}


def ours(seconds: float) -> dict:
    """Random-vs-random games with our engine, in this process."""
    import random
    import time
    from bisect import bisect_left

    from games import engine_build
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
                # Offers come last (ids are sorted): choose among the rest. The cut is
                # found by bisect (in C), so this loop's own bytecode does not hide the
                # engine's speed; it is the cut a scan from the end finds (at least 1).
                cut = bisect_left(legal, offer_base) or 1
                action = legal[int(rnd() * cut)]
                decisions += 1
            state.apply_unchecked(action)
            actions += 1
        return actions, decisions

    for seed in range(1, 4):
        one(seed)
    games = actions = decisions = 0
    start = time.perf_counter()
    cpu = time.process_time()
    while time.perf_counter() - start < seconds:
        a, d = one(1000 + games)
        actions += a
        decisions += d
        games += 1
    elapsed = time.process_time() - cpu

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
        t0 = time.process_time()
        for _ in range(reps):
            fn()
        return (time.process_time() - t0) / reps * 1e6

    return {
        "build": engine_build(),
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


def run_worker(cmd: list[str], pure: bool = False) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "GAMEHOST_PURE_PYTHON"}
    if pure:
        env["GAMEHOST_PURE_PYTHON"] = "1"
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def fastcatan_status() -> str:
    """fastcatan's column: it needs Python 3.12 (a wheel for it alone)."""
    if sys.version_info < (3, 12):
        return f"not installed (needs Python 3.12; this is {sys.version.split()[0]})"
    probe = subprocess.run([sys.executable, "-c", "import fastcatan"], capture_output=True)
    return "installed, not measured" if probe.returncode == 0 else "not installed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="per engine (default 20)")
    parser.add_argument("--no-catanatron", action="store_true", help="measure our engine only")
    parser.add_argument(
        "--search-decisions",
        type=int,
        default=6,
        help="searched decisions per build in the search selfplay (default 6)",
    )
    parser.add_argument(
        "--positions", type=int, default=4, help="positions for mcts-fast's rate (default 4)"
    )
    parser.add_argument("--no-search", action="store_true", help="skip the search figures")
    parser.add_argument(
        "--worker", choices=["ours", "search", "iterations"], help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.worker == "ours":
        print(json.dumps(ours(args.seconds)))
        return
    if args.worker == "search":
        print(json.dumps(search_selfplay(args.search_decisions)))
        return
    if args.worker == "iterations":
        print(json.dumps(fast_iterations(args.positions)))
        return

    # Alternate the two engines in short rounds so that load from anything else
    # on the machine falls on both alike.
    rounds = max(1, int(args.seconds // 5))
    chunk = args.seconds / rounds
    python = None if args.no_catanatron else ensure_catanatron()
    us: dict = {}
    pure: dict = {}
    them: dict | None = None if python is None else {}
    worker = [sys.executable, __file__, "--worker", "ours", "--seconds", str(chunk)]
    for _ in range(rounds):
        _merge(us, run_worker(worker))
        _merge(pure, run_worker(worker, pure=True))
        if python is not None:
            _merge(them, run_worker([str(python), "-c", CATANATRON_DRIVER, str(chunk)]))
    if pure["build"] != "pure":
        sys.exit("the pure worker did not run the pure build")

    cpus = os.cpu_count()
    print(
        f"Catan random vs random, 4 players, {args.seconds:g} s per engine and build in "
        f"{rounds} alternating rounds, {cpus} CPUs, Python {sys.version.split()[0]}; rates "
        f"per CPU second, load average {os.getloadavg()[0]:.1f} at the end"
    )
    print(f"gamehost: the {us['build']} build (default) and the pure build")
    print(f"fastcatan: {fastcatan_status()}")
    rows = [
        (
            "",
            f"gamehost {us['build']}",
            "gamehost pure",
            "catanatron 3.2.1",
            "compiled/catanatron",
            "compiled/pure",
        )
    ]

    def rate(d: dict, key: str) -> float:
        return d[key] / d["seconds"]

    def add(
        label: str,
        mine: float,
        theirs: float | None,
        fmt: str,
        ratio: str = "-",
        slow: float | None = None,
        over_pure: str = "-",
    ) -> None:
        rows.append(
            (
                label,
                format(mine, fmt),
                format(slow, fmt) if slow is not None else "-",
                format(theirs, fmt) if theirs else "-",
                ratio,
                over_pure,
            )
        )

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
        slow = rate(pure, key)
        theirs = them and rate(them, their_key)
        add(
            label,
            mine,
            theirs,
            ",.1f" if key == "games" else ",.0f",
            faster(mine, theirs),
            slow,
            faster(mine, slow),
        )
    add(
        "actions/game",
        us["actions"] / us["games"],
        them and them["actions"] / them["games"],
        ",.0f",
        slow=pure["actions"] / pure["games"],
    )
    add("decisions/game", us["decisions"] / us["games"], None, ",.0f")
    add("games played", us["games"], them and them["games"], ",", slow=pure["games"])
    clone = us["clone_us"]
    add(
        "clone / copy (us)",
        clone,
        them and them["copy_us"],
        ".1f",
        faster(clone, them and them["copy_us"], False),
        pure["clone_us"],
        faster(clone, pure["clone_us"], False),
    )
    for label, key in (("to_bytes (us)", "to_bytes_us"), ("from_bytes (us)", "from_bytes_us")):
        add(
            label, us[key], None, ".1f", slow=pure[key], over_pure=faster(us[key], pure[key], False)
        )
    add("state bytes", us["state_bytes"], None, ",")
    if not args.no_search:
        search = [sys.executable, __file__, "--search-decisions", str(args.search_decisions)]
        fast = run_worker(search + ["--worker", "search"])
        slow_search = run_worker(search + ["--worker", "search"], pure=True)
        if fast["plies"] != slow_search["plies"]:
            sys.exit("the builds played different search selfplay games")
        add(
            f"search selfplay s ({fast['decisions']} decisions)",
            fast["seconds"],
            None,
            ".1f",
            slow=slow_search["seconds"],
            over_pure=faster(fast["seconds"], slow_search["seconds"], False),
        )
        rate_args = [sys.executable, __file__, "--positions", str(args.positions)]
        fast_rate = run_worker(rate_args + ["--worker", "iterations"])
        slow_rate = run_worker(rate_args + ["--worker", "iterations"], pure=True)
        mine, slow = (r["iterations"] / r["seconds"] for r in (fast_rate, slow_rate))
        add("mcts-fast iterations/s", mine, None, ",.0f", slow=slow, over_pure=faster(mine, slow))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
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
        elif key in ("state_bytes", "build"):
            total[key] = value
        else:
            total[key] = total.get(key, 0) + value


if __name__ == "__main__":
    main()
