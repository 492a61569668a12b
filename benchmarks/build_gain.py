"""What the compiled build's speed buys in play: one duplicate match at a time budget per
move (``mcts:...,seconds=S``), played once by each build, compared deal by deal.

    .venv/bin/python benchmarks/build_gain.py COMPILED.jsonl PURE.jsonl

Both files are ``bots_strength.py --duplicate --results`` files of the same match (same
A, B, players and seed), one played compiled and one with ``GAMEHOST_PURE_PYTHON=1``
(run them side by side, so both builds see the same load: the budget is wall-clock).
B's level is iteration-bound, so it plays alike in both builds; A searches what its
build manages in S seconds. Prints each build's win rate and A's iterations per choice,
then the per-deal difference (compiled minus pure) of A's mean result, with a 95%
normal interval over the deals both files hold: pairing by deal takes the deal's luck
out of the comparison.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

from bots_common import table

from services.tournament.intervals import normal_half_width


def load(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as rows:
        return [json.loads(line) for line in rows if line.strip()]


def by_deal(rows: list[dict]) -> dict[int, float]:
    """A's mean result on each deal."""
    deals: dict[int, list[float]] = defaultdict(list)
    for row in rows:
        deals[row["deal"]].append(row["return"])
    return {deal: sum(v) / len(v) for deal, v in deals.items()}


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    compiled, pure = load(sys.argv[1]), load(sys.argv[2])
    for rows, build in ((compiled, "compiled"), (pure, "pure")):
        if not rows or any(r.get("build") != build or "deal" not in r for r in rows):
            raise SystemExit(f"{build}: expected a duplicate match played by the {build} build")
    key = ("game", "a", "b", "players", "options")
    if {tuple(str(r[k]) for k in key) for r in compiled + pure} != {
        tuple(str(compiled[0][k]) for k in key)
    }:
        raise SystemExit("the two files hold different matches")
    summary = []
    for rows, build in ((compiled, "compiled"), (pure, "pure")):
        wins = sum(r["return"] for r in rows)
        iterations = sum(r["a_iterations"] for r in rows) / sum(r["a_choices"] for r in rows)
        think = 1000 * sum(r["a_think"] for r in rows) / sum(r["a_choices"] for r in rows)
        summary.append(
            (
                build,
                len(rows),
                f"{100 * wins / len(rows):.1f}%",
                f"{iterations:,.0f}",
                f"{think:.0f}",
            )
        )
    first = compiled[0]
    print(f"{first['game']} {first['players']}p: {first['a']} vs {first['b']}")
    print(table(summary, ("build", "games", "A rate", "A iterations/choice", "A ms/choice")))
    ours, theirs = by_deal(compiled), by_deal(pure)
    shared = sorted(set(ours) & set(theirs))
    mean, half = normal_half_width([ours[d] - theirs[d] for d in shared])
    low, high = mean - half, mean + half
    print(
        f"compiled - pure, per deal ({len(shared)} deals): {100 * mean:+.1f} points "
        f"[{100 * low:+.1f}, {100 * high:+.1f}] (95%)"
    )


if __name__ == "__main__":
    main()
