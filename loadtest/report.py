"""The load test's report: results.json, a markdown page, and two charts (throughput,
and p50/p99 latency, against users, with each curve's knee marked)."""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

from loadtest.measure import Step  # noqa: E402

STEP_COLUMNS = (
    "| users | calls/s | p50 ms | p99 ms | failures | harness CPU | server CPU | Redis CPU |"
)


def knee(steps: list[Step], bound_ms: float) -> Step | None:
    """The step with the most calls a second whose p99 stays within ``bound_ms``."""
    within = [s for s in steps if s.calls and s.p99_ms <= bound_ms]
    return max(within, key=lambda s: s.per_second, default=None)


def shown(x: float | None, spec: str) -> str:
    """``x`` formatted with ``spec``; a dash for a figure not measured (None or NaN)."""
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def step_table(steps: list[Step], bound_ms: float) -> str:
    best = knee(steps, bound_ms)
    rows = [STEP_COLUMNS, "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in steps:
        mark = " **(knee)**" if s is best else ""
        rows.append(
            f"| {s.users}{mark} | {s.per_second:,.0f} | {shown(s.p50_ms, '.1f')} "
            f"| {shown(s.p99_ms, '.1f')} | {s.failures} | {shown(s.harness_cpu, '.0%')} "
            f"| {shown(s.server_cpu, '.0%')} | {shown(s.redis_cpu, '.0%')} |"
        )
    return "\n".join(rows)


def charts(curves: dict[str, list[Step]], bound_ms: float, out: str) -> list[str]:
    """throughput.png and latency.png in ``out``; returns their file names."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for label, steps in curves.items():
        (line,) = ax.plot(
            [s.users for s in steps], [s.per_second for s in steps], "o-", label=label
        )
        best = knee(steps, bound_ms)
        if best is not None:
            ax.plot(best.users, best.per_second, "*", ms=16, color=line.get_color())
    ax.set_xscale("log", base=2)
    ax.set_xlabel("closed-loop users")
    ax.set_ylabel("calls per second")
    ax.set_title(f"Throughput (star: knee, the most calls/s at p99 ≤ {bound_ms:g} ms)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "throughput.png"), dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for label, steps in curves.items():
        users = [s.users for s in steps]
        (line,) = ax.plot(users, [s.p99_ms for s in steps], "o-", label=f"{label} p99")
        ax.plot(users, [s.p50_ms for s in steps], "o--", color=line.get_color(), alpha=0.6,
                label=f"{label} p50")  # fmt: skip
        best = knee(steps, bound_ms)
        if best is not None:
            ax.axvline(best.users, color=line.get_color(), ls=":", alpha=0.7)
    ax.axhline(bound_ms, color="red", lw=1, label=f"p99 bound {bound_ms:g} ms")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("closed-loop users")
    ax.set_ylabel("latency, ms")
    ax.set_title("Latency (dotted: each curve's knee)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "latency.png"), dpi=110)
    plt.close(fig)
    return ["throughput.png", "latency.png"]


def write(out: str, results: dict[str, Any], page: str) -> None:
    os.makedirs(out, exist_ok=True)

    def plain(o: Any) -> Any:
        if isinstance(o, Step):
            return plain({**asdict(o), "per_second": o.per_second})
        if isinstance(o, dict):
            return {str(k): plain(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [plain(v) for v in o]
        if isinstance(o, float) and math.isnan(o):
            return None  # JSON has no NaN
        return o

    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(plain(results), f, indent=1)
        f.write("\n")
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write(page)
