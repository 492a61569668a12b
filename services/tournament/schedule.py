"""Which entrants sit where at every table: seat-balanced, deterministic schedules.

Every format schedules *blocks*: one lineup of P entrants played at P consecutive tables,
once under each rotation of its seating order. So within every round each entrant plays
each seat position equally often (the rotations are a cyclic Latin square), whatever the
format and however many entrants there are. With ``duplicate`` a block is a duplicate
group: its P tables share one deal (the game seed), so luck is the same in every seat.

Formats (N entrants, P players per table; ``games`` counts tables):

* ``round-robin``: a round is every P-entrant lineup (C(N, P) of them), each in a block,
  so every entrant meets every other equally often: ``games`` is a multiple of
  C(N, P) * P.
* ``gauntlet``: a round is every lineup of the focus entrant with P - 1 of the others
  (C(N - 1, P - 1) of them), each in a block: ``games`` is a multiple of
  C(N - 1, P - 1) * P.
* ``swiss``: a round seats N // P lineups, paired by placement points (the entrants in
  score order fill tables from the top), avoiding a lineup that has already played while
  that is possible; N mod P entrants sit the round out (a bye, credited with the mean
  placement points of the block they miss). ``games`` is a multiple of (N // P) * P.

The seating order of a round-robin or gauntlet lineup steps through all (P - 1)! cyclic
orders over consecutive rounds (from a seeded start), so who sits after whom balances too.
Deals and orders come from the tournament seed alone; swiss rounds also read the results
of the rounds before them.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Sequence

from games import OptionsError, game_names, get_game
from services.tournament.model import (
    FORMATS,
    GAUNTLET,
    ROUND_ROBIN,
    SWISS,
    Definition,
    Table,
    TableResult,
)

MAX_GAMES = 100_000
MAX_ENTRANTS = 256
MAX_NAME = 64
SEED_LIMIT = 2**64  # seeds travel as uint64
_FORBIDDEN_IN_NAMES = ",="  # the command line's SPEC is NAME=LEVEL[,NAME=LEVEL...]
_SWISS_SEARCH_BUDGET = 20_000  # lineups tried before pairing falls back to greedy


def validate(defn: Definition) -> None:
    """Raise ValueError, saying what is wrong, unless ``defn`` can be scheduled."""
    _check_name("tournament name", defn.name)
    if defn.format not in FORMATS:
        raise ValueError(f"unknown format {defn.format!r} (known: {', '.join(FORMATS)})")
    if defn.game not in game_names():
        raise ValueError(f"unknown game {defn.game!r} (known: {', '.join(game_names())})")
    info = get_game(defn.game).info
    if not info.min_players <= defn.players <= info.max_players:
        raise ValueError(
            f"{defn.game} takes {info.min_players} to {info.max_players} players per table,"
            f" not {defn.players}"
        )
    _check_options(defn)
    _check_entrants(defn)
    if not 0 <= defn.seed < SEED_LIMIT:
        raise ValueError(f"seed must be in 0..2**64-1, not {defn.seed}")
    if defn.parallel < 1:
        raise ValueError(f"parallel must be at least 1, not {defn.parallel}")
    if not (math.isfinite(defn.move_time_limit) and defn.move_time_limit >= 0):
        raise ValueError("move_time_limit must be a finite number of seconds, 0 or more")
    if not defn.fallback_level:
        raise ValueError("fallback_level must name a bot level")
    if defn.focus is not None and defn.format != GAUNTLET:
        raise ValueError(f"focus is for the gauntlet format only, not {defn.format}")
    if defn.format == GAUNTLET and defn.focus_name() not in {e.name for e in defn.entrants}:
        raise ValueError(f"gauntlet focus {defn.focus!r} is not an entrant")
    _check_games(defn)


def tables_per_round(defn: Definition) -> int:
    """Tables in each round (every round of a tournament has the same count)."""
    n, p = len(defn.entrants), defn.players
    if defn.format == ROUND_ROBIN:
        return math.comb(n, p) * p
    if defn.format == GAUNTLET:
        return math.comb(n - 1, p - 1) * p
    return (n // p) * p


def round_count(defn: Definition) -> int:
    """Rounds in the tournament."""
    return defn.games // tables_per_round(defn)


def round_of_table(defn: Definition, index: int) -> int:
    """The round of the table at ``index`` (rounds hold consecutive indices)."""
    return index // tables_per_round(defn)


def total_tables(defn: Definition) -> int:
    """Tables in the whole tournament: ``defn.games``."""
    return defn.games


def schedule_round(defn: Definition, round: int, results: Sequence[TableResult]) -> list[Table]:
    """The tables of ``round``, in index order; the same for the same arguments.

    Round-robin and gauntlet rounds depend on ``defn`` alone (``results`` is not read).
    A swiss round needs the result of every table of the rounds before it, and reads
    only those (results of this round or later ones are ignored).
    """
    validate(defn)
    if not 0 <= round < round_count(defn):
        raise ValueError(f"round {round} is not in 0..{round_count(defn) - 1}")
    if defn.format == SWISS:
        lineups = _swiss_lineups(defn, round, results)
        orders = [
            _shuffled(lineup, f"{defn.seed}:swiss-order:{round}:{b}")
            for b, lineup in enumerate(lineups)
        ]
        return _tables(defn, round, orders)
    return list(_fixed_round(defn, round))


@functools.lru_cache(maxsize=16)
def _fixed_round(defn: Definition, round: int) -> tuple[Table, ...]:
    """A round-robin or gauntlet round (cached: a runner asks for the same round often)."""
    lineups = _fixed_lineups(defn)
    orders = [_cyclic_order(lineup, defn.seed, round, b) for b, lineup in enumerate(lineups)]
    return tuple(_tables(defn, round, orders))


def _tables(defn: Definition, round: int, orders: Sequence[tuple[int, ...]]) -> list[Table]:
    """Each seating order's block: its P rotations at consecutive indices."""
    p = defn.players
    first = round * tables_per_round(defn)
    tables = []
    for block, order in enumerate(orders):
        for shift in range(p):
            index = first + block * p + shift
            group = index // p if defn.duplicate else index
            tables.append(
                Table(
                    index=index,
                    round=round,
                    seats=order[shift:] + order[:shift],
                    deal=deal_seed(defn.seed, group),
                    group=group,
                )
            )
    return tables


def deal_seed(seed: int, group: int) -> int:
    """The game seed of a deal: its own stream of the tournament seed."""
    return random.Random(f"{seed}:deal:{group}").getrandbits(63)


def placement_points(returns: Sequence[float]) -> list[float]:
    """Per seat: opponents finished ahead of, plus half of those tied with (swiss score)."""
    return [
        sum(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0 for theirs in returns)
        - 0.5  # the seat itself counted as a tie
        for mine in returns
    ]


# --------------------------------------------------------------------------- lineups


def _fixed_lineups(defn: Definition) -> list[tuple[int, ...]]:
    n, p = len(defn.entrants), defn.players
    if defn.format == ROUND_ROBIN:
        return list(itertools.combinations(range(n), p))
    focus = next(i for i, e in enumerate(defn.entrants) if e.name == defn.focus_name())
    field = [i for i in range(n) if i != focus]
    return [(focus, *others) for others in itertools.combinations(field, p - 1)]


def _cyclic_order(lineup: tuple[int, ...], seed: int, round: int, block: int) -> tuple[int, ...]:
    """One of the lineup's (P - 1)! cyclic orders, the next one each round."""
    head, rest = lineup[0], lineup[1:]
    count = math.factorial(len(rest))
    start = random.Random(f"{seed}:order:{block}").randrange(count)
    which = (start + round) % count
    return (head, *next(itertools.islice(itertools.permutations(rest), which, None)))


def _shuffled(lineup: Sequence[int], stream: str) -> tuple[int, ...]:
    order = list(lineup)
    random.Random(stream).shuffle(order)
    return tuple(order)


def _swiss_lineups(
    defn: Definition, round: int, results: Sequence[TableResult]
) -> list[tuple[int, ...]]:
    n, p = len(defn.entrants), defn.players
    per_round = tables_per_round(defn)
    earlier = {r.table.index: r for r in results if r.table.round < round}
    missing = round * per_round - len(earlier)
    if missing or any(not 0 <= i < round * per_round for i in earlier):
        raise ValueError(
            f"swiss round {round} needs the result of every table of rounds 0..{round - 1}"
            f" ({round * per_round} tables; {len(earlier)} given)"
        )
    scores = [0.0] * n
    byes = [0] * n
    played: set[frozenset[int]] = set()
    seated_by_round: dict[int, set[int]] = {}
    for result in earlier.values():
        seats = result.table.seats
        played.add(frozenset(seats))
        seated_by_round.setdefault(result.table.round, set()).update(seats)
        if result.error:
            continue  # a failed table scores nobody anything
        for entrant, points in zip(seats, placement_points(result.returns), strict=True):
            scores[entrant] += points
    bye_credit = p * (p - 1) / 2  # the mean placement points of a block of P tables
    for k in range(round):
        for entrant in set(range(n)) - seated_by_round.get(k, set()):
            byes[entrant] += 1
            scores[entrant] += bye_credit
    tiebreak = list(range(n))
    random.Random(f"{defn.seed}:swiss:{round}").shuffle(tiebreak)
    position = {entrant: i for i, entrant in enumerate(tiebreak)}
    # Byes go to the fewest byes so far, then the lowest score.
    by_bye = sorted(range(n), key=lambda e: (byes[e], scores[e], position[e]))
    sitting_out = set(by_bye[: n % p])
    ranked = sorted(
        (e for e in range(n) if e not in sitting_out), key=lambda e: (-scores[e], position[e])
    )
    return _pair(ranked, p, played)


class _OutOfBudget(Exception):
    pass


def _pair(ranked: list[int], p: int, played: set[frozenset[int]]) -> list[tuple[int, ...]]:
    """Tables of ``p`` from the top of ``ranked`` down, with no lineup in ``played``.

    A depth-first search that tries the closest scores first; when no such pairing exists
    (or the search runs out of budget) each table takes its closest new lineup, or its
    closest lineup when every one has played.
    """
    tried = 0

    def search(remaining: list[int]) -> list[tuple[int, ...]] | None:
        nonlocal tried
        if not remaining:
            return []
        head, rest = remaining[0], remaining[1:]
        for picks in itertools.combinations(range(len(rest)), p - 1):
            tried += 1
            if tried > _SWISS_SEARCH_BUDGET:
                raise _OutOfBudget
            lineup = (head, *(rest[i] for i in picks))
            if frozenset(lineup) in played:
                continue
            chosen = set(picks)
            below = search([e for i, e in enumerate(rest) if i not in chosen])
            if below is not None:
                return [lineup, *below]
        return None

    try:
        found = search(ranked)
    except _OutOfBudget:
        found = None
    if found is not None:
        return found
    tables = []
    remaining = list(ranked)
    while remaining:
        head, rest = remaining[0], remaining[1:]
        closest = (head, *rest[: p - 1])
        options = ((head, *others) for others in itertools.combinations(rest, p - 1))
        lineup = next((t for t in options if frozenset(t) not in played), closest)
        tables.append(lineup)
        remaining = [e for e in rest if e not in lineup]
    return tables


# --------------------------------------------------------------------------- checks


def _check_name(what: str, name: object) -> None:
    if not isinstance(name, str) or not name or name != name.strip():
        raise ValueError(f"{what} must be a non-empty string without surrounding spaces")
    if len(name) > MAX_NAME:
        raise ValueError(f"{what} {name[:MAX_NAME]!r}... is longer than {MAX_NAME} characters")
    if not name.isprintable() or any(c in _FORBIDDEN_IN_NAMES for c in name):
        raise ValueError(f"{what} {name!r} may hold no control characters, ',' or '='")


def _check_entrants(defn: Definition) -> None:
    n, p = len(defn.entrants), defn.players
    if n > MAX_ENTRANTS:
        raise ValueError(f"at most {MAX_ENTRANTS} entrants, not {n}")
    seen: set[str] = set()
    for entrant in defn.entrants:
        _check_name("entrant name", entrant.name)
        if entrant.name in seen:
            raise ValueError(f"entrant name {entrant.name!r} is given twice")
        seen.add(entrant.name)
        if entrant.level is not None and not entrant.level:
            raise ValueError(f"entrant {entrant.name!r}: an empty level (None = external)")
    if n < p:
        raise ValueError(f"{p}-player tables need at least {p} entrants, {n} given")


def _check_options(defn: Definition) -> None:
    keys = [k for k, _ in defn.options]
    if len(set(keys)) != len(keys):
        raise ValueError("a game option is given twice")
    try:
        get_game(defn.game).parse_options(dict(defn.options))
    except OptionsError as error:
        raise ValueError(str(error)) from None


def _check_games(defn: Definition) -> None:
    n, p = len(defn.entrants), defn.players
    unit = tables_per_round(defn)
    if defn.format == ROUND_ROBIN:
        why = f"each of the {math.comb(n, p)} lineups of {p} of {n} entrants in all {p} seatings"
    elif defn.format == GAUNTLET:
        why = (
            f"the focus with each of the {math.comb(n - 1, p - 1)} lineups of {p - 1} of the"
            f" other {n - 1} entrants, in all {p} seatings"
        )
    else:
        why = f"{n // p} tables of {p} in all {p} seatings"
    if defn.games <= 0 or defn.games % unit or defn.games > MAX_GAMES:
        raise ValueError(
            f"{defn.format} with {n} entrants at {p}-player tables takes games in multiples of"
            f" {unit} (a round: {why}), at most {MAX_GAMES}; {defn.games} given"
        )
