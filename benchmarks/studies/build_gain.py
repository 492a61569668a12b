"""What the compiled build's speed buys in play: one duplicate match at a time budget per
move (``mcts:...,seconds=S``), played once by each build, compared deal by deal.

    .venv/bin/python benchmarks/studies/build_gain.py COMPILED.jsonl PURE.jsonl

Both files are ``bots_strength.py --duplicate --results`` files of the same match (same
A, B, players and seed), one with A compiled and one with A pure (``--a-build pure``, or
the whole match under ``GAMEHOST_PURE_PYTHON=1``; run them side by side, so both builds
see the same load: the budget is wall-clock). B's level is iteration-bound, so it plays
alike in both builds; A searches what its build manages in S seconds. Only deals that
both files hold whole (A in every seat) count. Prints each build's win rate and A's
iterations per choice on those, then the per-deal difference (compiled minus pure) of
A's mean result, with a 95% normal interval over the deals: pairing by deal takes the
deal's luck out of the comparison.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

from loadtest.bots_common import a_build_of, table
from services.tournament.intervals import normal_half_width


def load(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as rows:
        return [json.loads(line) for line in rows if line.strip()]


def whole_deals(rows: list[dict]) -> dict[int, list[dict]]:
    """The rows of each deal played in every seat rotation (one row per seat)."""
    deals: dict[int, list[dict]] = defaultdict(list)
    for row in rows:
        deals[row["deal"]].append(row)
    return {deal: v for deal, v in deals.items() if len(v) == v[0]["players"]}


def mean_result(rows: list[dict]) -> float:
    return sum(r["return"] for r in rows) / len(rows)


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    compiled, pure = load(sys.argv[1]), load(sys.argv[2])
    for rows, build in ((compiled, "compiled"), (pure, "pure")):
        if not rows or any(a_build_of(r) != build or "deal" not in r for r in rows):
            raise SystemExit(f"{build}: expected a duplicate match played by the {build} build")
    key = ("game", "a", "b", "players", "options")
    if {tuple(str(r[k]) for k in key) for r in compiled + pure} != {
        tuple(str(compiled[0][k]) for k in key)
    }:
        raise SystemExit("the two files hold different matches")
    ours, theirs = whole_deals(compiled), whole_deals(pure)
    shared = sorted(set(ours) & set(theirs))
    if not shared:
        raise SystemExit("the two files share no whole deal")
    summary = []
    for deals, build in ((ours, "compiled"), (theirs, "pure")):
        rows = [row for deal in shared for row in deals[deal]]
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
    gains = [mean_result(ours[d]) - mean_result(theirs[d]) for d in shared]
    mean, half = normal_half_width(gains)
    low, high = mean - half, mean + half
    print(
        f"compiled - pure, per deal ({len(shared)} deals): {100 * mean:+.1f} points "
        f"[{100 * low:+.1f}, {100 * high:+.1f}] (95%)"
    )


if __name__ == "__main__":
    main()
