"""``python -m loadtest`` (``make loadtest``): start the real parts, step closed-loop
users up against the echo server and against one and two serving processes, run the
mixed scenarios (players, spectators, bot-heavy, a tournament) on both, and write the
report to docs/loadtest/ (or ``--out``)."""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import signal
import subprocess
import sys

from loadtest import (
    grpc_user,  # noqa: F401, I001  (first: gevent's patching, grpc's gevent mode)
    measure,
    parts,
    report,
    scenarios,
)

ROOT = parts.ROOT
BOT_PHASES = ("queue", "search", "commit")
# SubmitAction on a single Redis next to the HA and Cluster ones (issue: past one Redis).
TOPOLOGIES = ("single", "sentinel-min-replicas-1", "cluster-3", "cluster-3-min-replicas-1")


def arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m loadtest", description=__doc__)
    p.add_argument("--redis", metavar="URL", help="Redis to use (default: 6379 if it answers, "
                   "else a redis-server of the run's own); keys get a prefix of the run's own")  # fmt: skip
    p.add_argument("--out", default=os.path.join(ROOT, "docs", "loadtest"))
    p.add_argument("--steps", default="1,2,4,8,16,32", help="closed-loop users per step")
    p.add_argument("--warmup", type=float, default=2.0, help="seconds before each measurement")
    p.add_argument("--step-seconds", type=float, default=5.0, help="measuring window per step")
    p.add_argument("--p99-bound-ms", type=float, default=50.0)
    p.add_argument("--players", type=int, default=120)
    p.add_argument("--spectators", type=int, default=120)
    p.add_argument("--bot-heavy", type=int, default=1,
                   help="all-bot mcts-fast games at once in the bot-heavy stage")  # fmt: skip
    p.add_argument("--tournaments", type=int, default=1)
    p.add_argument("--think", default="0.5,2", help="players' think time range, seconds")
    p.add_argument("--mixed-seconds", type=float, default=60.0)
    p.add_argument("--bot-seconds", type=float, default=40.0,
                   help="the bot-heavy scenario alone, before the mixed load")  # fmt: skip
    p.add_argument("--worker-concurrency", type=int, default=2)
    p.add_argument(
        "--topologies", default=",".join(TOPOLOGIES),
        help="Redis topologies measured last, each started on its own "
        "(benchmarks/redis_topologies.py), or 'none'",
    )  # fmt: skip
    p.add_argument(
        "--quick", action="store_true",
        help="a few seconds with tiny parameters (the test suite's check that the harness works)",
    )  # fmt: skip
    args = p.parse_args(argv)
    if args.quick:
        args.steps, args.warmup, args.step_seconds = "1,2", 0.5, 1.0
        args.players, args.spectators, args.bot_heavy, args.tournaments = 2, 2, 1, 1
        args.think, args.mixed_seconds, args.worker_concurrency = "0.05,0.2", 4.0, 1
        args.bot_seconds = 4.0
        args.topologies = "none"
    return args


def user_class(base: type, targets: list[str], **attrs: object) -> type:
    return type(base.__name__, (base,), {"abstract": False, "targets": targets, **attrs})


def commit_of() -> str:
    def git(*a: str) -> str:
        return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    dirty = (
        " (with uncommitted changes)"
        if git("status", "--porcelain", "--untracked-files=no")
        else ""
    )
    return f"{git('rev-parse', '--short', 'HEAD')}{dirty}"


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # unwinds through parts.started: processes stopped, keys removed


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _interrupted)
    args = arguments(argv)
    steps = [int(n) for n in args.steps.split(",")]
    think = tuple(float(x) for x in args.think.split(","))
    started = datetime.datetime.now(datetime.UTC)
    load_before = os.getloadavg()
    results: dict = {"parameters": vars(args), "commit": commit_of(), "cpus": os.cpu_count()}
    from loadtest.driver import store_secret  # after the patching (redis.asyncio)

    with parts.started(args.redis, 2, args.worker_concurrency) as p:
        scenarios.SubmitterUser.secret = store_secret(p.redis_url, p.prefix)
        results["redis_prefix"] = p.prefix
        one, both = [p.replicas[0].target], [r.target for r in p.replicas]
        print(f"loadtest: parts up (logs in {p.logs}); stepping users {steps}", flush=True)
        redis_cpu = lambda: parts.redis_cpu_seconds(p.redis_url)  # noqa: E731
        meters = [
            measure.CpuMeter([p.echo_pid], redis_cpu),
            measure.CpuMeter([p.replicas[0].pid], redis_cpu),
            measure.CpuMeter([r.pid for r in p.replicas], redis_cpu),
        ]
        curves = {
            "echo (1 process)": measure.ramp(
                user_class(scenarios.EchoUser, [p.echo_target]), steps, args.warmup,
                args.step_seconds, "Echo", meters[0]),
            "SubmitAction, 1 serving process": measure.ramp(
                user_class(scenarios.SubmitterUser, one), steps, args.warmup,
                args.step_seconds, "SubmitAction", meters[1]),
            "SubmitAction, 2 serving processes": measure.ramp(
                user_class(scenarios.SubmitterUser, both), steps, args.warmup,
                args.step_seconds, "SubmitAction", meters[2]),
        }  # fmt: skip
        print("loadtest: bot-heavy scenario alone", flush=True)
        results["bots_alone"] = run_bots_alone(args, p, both)
        print("loadtest: mixed scenarios", flush=True)
        results["mixed"] = run_mixed(args, p, both, think)
    results["topologies"] = run_topologies(args)
    results["curves"] = curves
    results["figures"] = figures(curves, results["mixed"], results["bots_alone"], args.p99_bound_ms)
    results["load_average"] = {"before": load_before, "after": os.getloadavg()}
    results["started"] = started.isoformat(timespec="seconds")
    os.makedirs(args.out, exist_ok=True)
    images = report.charts(curves, args.p99_bound_ms, args.out)
    report.write(args.out, results, page(args, results, images))
    print(f"loadtest: report in {args.out}")
    for line in headline(results["figures"]):
        print("  " + line)
    return 0


def run_topologies(args: argparse.Namespace) -> dict:
    """benchmarks/redis_topologies.py for each topology (in a process of its own: its
    clients are asyncio, this one's are gevent), after the other parts are stopped."""
    found: dict = {}
    names = [] if args.topologies == "none" else args.topologies.split(",")
    script = os.path.join(ROOT, "benchmarks", "redis_topologies.py")
    for name in names:
        print(f"loadtest: Redis topology {name}", flush=True)
        done = subprocess.run(
            [sys.executable, script, "--only", name, "--seconds", f"{args.step_seconds:g}"],
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        if done.returncode != 0:
            found[name] = {"error": done.stderr.strip()[-500:]}
            continue
        found[name] = json.loads(done.stdout.strip().splitlines()[-1])[name]
    return found


def topology_lines(topologies: dict) -> list[str]:
    if not topologies:
        return []
    lines = [
        "## Redis topologies",
        "",
        "`benchmarks/redis_topologies.py`, run for each topology after the rest: the "
        "topology started on free ports, one `gamehost serve --processes 2` on it, one "
        "sequential client's SubmitAction latency and 16 concurrent clients' throughput, "
        "each measured as long as a step. The clients, the servers and every Redis share "
        "the machine's CPUs: the figures compare topologies ([reliability.md](../reliability.md#load)).",
        "",
        "| topology | p50 ms | p99 ms | SubmitAction/s |",
        "|---|---:|---:|---:|",
    ]
    for name, t in topologies.items():
        if "error" in t:
            lines.append(
                f"| {name} | failed: {t['error'].splitlines()[-1] if t['error'] else '?'} | | |"
            )
        else:
            lines.append(
                f"| {name} | {t['p50_ms']:.2f} | {t['p99_ms']:.2f} | {t['submit_per_s']:,.0f} |"
            )
    return [*lines, ""]


def bot_phases(before: str, after: str) -> dict:
    """p50/p99 of each bot-turn phase of mcts-fast between two scrapes of the worker."""
    out = {}
    for phase in BOT_PHASES:
        delta = measure.bucket_delta(
            measure.buckets(after, "gamehost_bot_turn_phase_seconds", phase=phase, level="mcts-fast"),
            measure.buckets(before, "gamehost_bot_turn_phase_seconds", phase=phase, level="mcts-fast"),
        )  # fmt: skip
        out[phase] = {
            "count": delta.get(math.inf, 0.0),
            "p50_ms": measure.histogram_quantile(0.5, delta) * 1000,
            "p99_ms": measure.histogram_quantile(0.99, delta) * 1000,
        }
    return out


def run_bots_alone(args: argparse.Namespace, p: parts.Parts, targets: list[str]) -> dict:
    """All-bot mcts-fast games and nothing else: the worker is never short of processes
    (its concurrency covers a turn's trees), so queue wait is dispatch, not backlog."""
    scenarios.LiveGames.reset()
    users = user_class(scenarios.BotHeavyUser, targets, fixed_count=max(args.bot_heavy, 1))
    before = parts.scrape(p.worker_metrics_url)
    measure.mixed([users], 1.0, args.bot_seconds, lambda: None)
    phases = bot_phases(before, parts.scrape(p.worker_metrics_url))
    return {**phases, "seconds": args.bot_seconds}


def run_mixed(args: argparse.Namespace, p: parts.Parts, targets: list[str], think) -> dict:
    scenarios.LiveGames.reset()
    peaks = {"open_streams": [0.0] * len(p.replicas), "live_games_store": 0.0}

    def sample() -> None:
        for i, replica in enumerate(p.replicas):
            text = parts.scrape(replica.metrics_url)
            streams = measure.gauge_sum(text, "gamehost_open_streams", grpc_method="WatchGame")
            peaks["open_streams"][i] = max(peaks["open_streams"][i], streams)
            live = measure.gauge_sum(text, "gamehost_live_games")
            peaks["live_games_store"] = max(peaks["live_games_store"], live)

    classes = [
        user_class(scenarios.PlayerUser, targets, fixed_count=args.players, think=think),
        user_class(scenarios.SpectatorUser, targets, fixed_count=args.spectators),
        # No mcts-fast games here: their searches would hold the one worker, and the
        # players' cheap bots would wait behind them (the bot-heavy stage has its own).
        user_class(scenarios.TournamentUser, targets, fixed_count=args.tournaments),
    ]
    classes = [c for c in classes if c.fixed_count > 0]
    cpu = [0.0]
    windows = measure.mixed(classes, max(args.warmup, 3.0), args.mixed_seconds, sample, 1.0, cpu)
    rpcs = {
        name: measure.summary(0, args.mixed_seconds, name, w) for name, w in sorted(windows.items())
    }
    return {
        "users": {c.__name__: c.fixed_count for c in classes},
        "rpcs": rpcs,
        "harness_cpu": cpu[0],
        "live_games_held_peak": scenarios.LiveGames.peak,
        "games_played_to_the_end": scenarios.LiveGames.finished,
        "live_games_store_peak": peaks["live_games_store"],
        "open_streams_peak_per_replica": peaks["open_streams"],
    }


def figures(curves: dict, mixed: dict, bots: dict, bound: float) -> dict:
    echo, one, two = (report.knee(c, bound) for c in curves.values())
    rate = lambda s: s.per_second if s is not None else 0.0  # noqa: E731
    return {
        "p99_bound_ms": bound,
        "echo_per_s_at_bound": rate(echo),
        "submit_per_s_per_process_at_bound": rate(one),
        "ratio_submit_to_echo": rate(one) / rate(echo) if rate(echo) else math.nan,
        "submit_per_s_2_processes_at_bound": rate(two),
        "growth_1_to_2_processes": rate(two) / rate(one) if rate(one) else math.nan,
        "submit_per_s_max_1_process": max(s.per_second for s in curves[list(curves)[1]]),
        "submit_per_s_max_2_processes": max(s.per_second for s in curves[list(curves)[2]]),
        "live_games_held_peak": mixed["live_games_held_peak"],
        "open_streams_peak_per_replica": mixed["open_streams_peak_per_replica"],
        "bot_overhead_p50_ms": bots["queue"]["p50_ms"] + bots["commit"]["p50_ms"],
        "bot_queue_p50_ms": bots["queue"]["p50_ms"],
        "bot_queue_p99_ms": bots["queue"]["p99_ms"],
        "bot_commit_p50_ms": bots["commit"]["p50_ms"],
        "bot_commit_p99_ms": bots["commit"]["p99_ms"],
        "bot_search_p50_ms": bots["search"]["p50_ms"],
        "bot_turns_measured": bots["commit"]["count"],
        "bot_turn_every_ms": 1000 * bots["seconds"] / bots["commit"]["count"]
        if bots["commit"]["count"]
        else math.nan,
    }


def _f(x: float, fmt: str = ",.0f") -> str:
    return report.shown(x, fmt)


def headline(f: dict) -> list[str]:
    b = f["p99_bound_ms"]
    return [
        f"SubmitAction/s per serving process at p99 <= {b:g} ms: {_f(f['submit_per_s_per_process_at_bound'])}"
        f" vs echo {_f(f['echo_per_s_at_bound'])}: ratio {_f(f['ratio_submit_to_echo'], '.2f')} (goal >= 0.6)",
        f"2 serving processes at the bound: {_f(f['submit_per_s_2_processes_at_bound'])}/s "
        f"(x{_f(f['growth_1_to_2_processes'], '.2f')} of one)",
        f"live games held at once: {f['live_games_held_peak']}; open WatchGame streams per replica "
        f"(peak): {', '.join(_f(x) for x in f['open_streams_peak_per_replica'])}",
        f"bot-turn overhead beyond search (mcts-fast on Celery): queue p50 {_f(f['bot_queue_p50_ms'], '.1f')} ms"
        f" / p99 {_f(f['bot_queue_p99_ms'], '.1f')} ms, merge+commit p50 {_f(f['bot_commit_p50_ms'], '.1f')} ms"
        f" / p99 {_f(f['bot_commit_p99_ms'], '.1f')} ms (goal: at most 10 ms p50 in all)",
    ]


def page(args: argparse.Namespace, results: dict, images: list[str]) -> str:
    f, mixed = results["figures"], results["mixed"]
    bound = args.p99_bound_ms
    cmd = "make loadtest" if not args.quick else "python -m loadtest --quick"
    lines = [
        "# Load test",
        "",
        f"Written by `{cmd}` (`python -m loadtest`, see loadtest/__main__.py) on "
        f"{results['started']} at commit `{results['commit']}`, on a machine with "
        f"{results['cpus']} CPUs. Load average before and after: "
        f"{', '.join(f'{x:.1f}' for x in results['load_average']['before'])} / "
        f"{', '.join(f'{x:.1f}' for x in results['load_average']['after'])}.",
        "",
        "The harness (Locust, in one process), Redis, the echo server, both serving processes "
        "and the Celery worker all share these CPUs, and so did whatever else ran on the "
        "machine. Absolute figures move from run to run; the ratios between figures of one run "
        "are what this page is for. How the harness works, and the profile of the SubmitAction "
        "path with what it changed: [harness.md](harness.md).",
        "",
        "## Figures",
        "",
        "| figure | value | goal |",
        "|---|---:|---|",
        f"| SubmitAction/s, 1 serving process, at p99 ≤ {bound:g} ms | {_f(f['submit_per_s_per_process_at_bound'])} | |",
        f"| echo calls/s, 1 process, at p99 ≤ {bound:g} ms | {_f(f['echo_per_s_at_bound'])} | |",
        f"| ratio SubmitAction / echo | {_f(f['ratio_submit_to_echo'], '.2f')} | ≥ 0.6 |",
        f"| SubmitAction/s, 2 serving processes, at p99 ≤ {bound:g} ms | {_f(f['submit_per_s_2_processes_at_bound'])} "
        f"(×{_f(f['growth_1_to_2_processes'], '.2f')}) | |",
        f"| most SubmitAction/s at any latency, 1 / 2 processes | {_f(f['submit_per_s_max_1_process'])} / "
        f"{_f(f['submit_per_s_max_2_processes'])} | |",
        f"| live games held at once (mixed load) | {f['live_games_held_peak']} | |",
        f"| open WatchGame streams per replica (peak) | {', '.join(_f(x) for x in f['open_streams_peak_per_replica'])} | |",
        f"| bot-turn queue wait, mcts-fast on Celery, p50 / p99 ms | {_f(f['bot_queue_p50_ms'], '.1f')} / {_f(f['bot_queue_p99_ms'], '.1f')} | |",
        f"| bot-turn merge + commit, p50 / p99 ms | {_f(f['bot_commit_p50_ms'], '.1f')} / {_f(f['bot_commit_p99_ms'], '.1f')} | |",
        f"| bot-turn overhead beyond search, p50 (queue + commit) ms | {_f(f['bot_overhead_p50_ms'], '.1f')} | ≤ 10 |",
        f"| (search itself, one tree, p50 ms) | {_f(f['bot_search_p50_ms'], '.0f')} | |",
        "",
        "Knee: the step with the most calls a second whose p99 stays within the bound.",
        f"Bot-turn phases: {args.bot_heavy} all-bot `mcts-fast` Cité game(s) at a time for "
        f"{args.bot_seconds:g} s with nothing else running ({_f(f['bot_turns_measured'])} "
        "turns), read from the worker's `gamehost_bot_turn_phase_seconds` histogram (the "
        "difference of two scrapes, quantiles interpolated within buckets as Prometheus "
        "does). Queue: a search task's wait from publish to start; search: one tree; "
        "commit: from the end of the last tree's search to the end of its task (gathering "
        "the trees, merge, compare-and-set, dispatch of the next turn). All phases together, "
        f"wall clock: a turn every {_f(f['bot_turn_every_ms'], '.0f')} ms on average "
        "(games started between turns included).",
        "",
        f"![throughput]({images[0]})",
        "",
        f"![latency]({images[1]})",
        "",
        "## Steps",
        "",
        "Closed-loop users (no think time), stepped up; each step warms up "
        f"{args.warmup:g} s and is measured for {args.step_seconds:g} s. SubmitAction users "
        "play both seats of 2-player Cité games from scripts computed from each game's seed, "
        "so every timed call is a SubmitAction (CreateGame and JoinGame between games are "
        "not counted). Two serving processes: the users spread over both (client-side "
        "balancing). CPU columns: CPU time over the window (100 % is one core) of the "
        "Locust process (harness), of the loaded server processes (the echo server, or the "
        "serving processes of the curve) and of Redis: the part near 100 % is the limit.",
        "",
    ]
    for label, steps in results["curves"].items():
        lines += [f"### {label}", "", report.step_table(steps, bound), ""]
    users = ", ".join(f"{n} {name}" for name, n in mixed["users"].items())
    lines += [
        "## Mixed load",
        "",
        f"On both serving processes at once for {args.mixed_seconds:g} s: {users}. Players "
        f"play 3-seat Cité against two `random` bots, thinking {args.think.replace(',', '–')} s "
        "before each move; spectators follow the live games to their end; the tournament "
        "user runs a 4-game round robin of bots, then another. (The bot-heavy games run in "
        "their own stage: their searches would hold the one worker and the players' bots "
        "would wait behind them.) Every bot turn goes to the Celery worker "
        f"(`--concurrency {args.worker_concurrency}`). WatchGame latency is the time to the "
        f"stream's first event. Harness CPU over the window: {mixed['harness_cpu']:.0%} of one core.",
        "",
        "| RPC | calls/s | p50 ms | p99 ms | failures |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, s in mixed["rpcs"].items():
        lines.append(
            f"| {name} | {s.per_second:,.1f} | {_f(s.p50_ms, '.1f')} | {_f(s.p99_ms, '.1f')} | {s.failures} |"
        )
    lines += [
        "",
        f"Games the players played to the end: {mixed['games_played_to_the_end']} (the run's "
        "players started when the mixed load did). "
        f"Live games held by the harness's users at once (peak): {mixed['live_games_held_peak']}; "
        f"the store's count of games in progress (`gamehost_live_games`, sampled): "
        f"{_f(mixed['live_games_store_peak'])} (this includes games the closed-loop steps left "
        "unfinished).",
        "",
        *topology_lines(results.get("topologies", {})),
        "## Parameters",
        "",
        "```",
        " ".join(
            f"--{k.replace('_', '-')}={v}" for k, v in sorted(vars(args).items()) if k != "out"
        ),
        "```",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
