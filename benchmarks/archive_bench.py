"""The SQL archive's figures (docs/archive.md): bytes per finished game by type and
codec, archive write throughput, and ListGames-by-name and GetRecord read times
over a PostgreSQL archive of 200,000 synthetic finished games.

    .venv/bin/python benchmarks/archive_bench.py [--games 200000] [--postgres URL]

It makes a scratch database on the PostgreSQL server (default: the local one) and
drops it afterwards. Games are random-bot games played through the service's own
steps (``services.archive.synthetic``): a pool of them per type, each archived
under many game ids and seat names.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import pathlib
import random
import secrets
import statistics
import time
import uuid

import psycopg
import sqlalchemy as sa

from services.archive import codec
from services.archive.archive import Archive, GameQuery
from services.archive.schema import games, seats
from services.archive.synthetic import finished_game

ROOT = pathlib.Path(__file__).resolve().parent.parent

PLAYERS = {"catan": 4, "endeavor": 4, "cite": 4}
NAMES = 5000  # distinct seat names over the whole archive


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def pool(samples: int) -> dict[str, list]:
    return {
        game_type: [finished_game(game_type, players, seed) for seed in range(samples)]
        for game_type, players in PLAYERS.items()
    }


def sizes(games_by_type: dict[str, list]) -> None:
    print("\nbytes per finished 4-player game (random bots), mean / max over the pool:")
    print(f"{'game':<10}{'events':>8}{'log JSON':>10}{'compact':>16}{'gzip-9':>14}{'zstd-19':>14}")
    for game_type, played in games_by_type.items():
        rows = []
        for snapshot, events in played:
            record = codec.encode(snapshot, events)
            raw = json.dumps(record, separators=(",", ":")).encode()
            log = sum(len(json.dumps(e.data, separators=(",", ":"))) for e in events)
            rows.append(
                (
                    len(events),
                    log,
                    len(raw),
                    len(codec.compress(raw, codec.GZIP)),
                    len(codec.compress(raw, codec.ZSTD)),
                )
            )
        means = [statistics.mean(col) for col in zip(*rows, strict=True)]
        maxes = [max(col) for col in zip(*rows, strict=True)]
        widths = (16, 14, 14)
        cells = "".join(
            f"{f'{m:,.0f} / {x:,}':>{w}}"
            for m, x, w in zip(means[2:], maxes[2:], widths, strict=True)
        )
        print(f"{game_type:<10}{means[0]:>8,.0f}{means[1]:>10,.0f}{cells}")


def names_for(rng: random.Random, players: int) -> list[str]:
    return [f"player-{rng.randrange(NAMES)}" for _ in range(players)]


def write_through_archive(archive: Archive, played: list, count: int, rng: random.Random) -> float:
    """Games a second through Archive.put_game: encode, compress, insert with seats."""
    started = time.perf_counter()
    for n in range(count):
        snapshot, events = played[n % len(played)]
        meta = dict(snapshot.meta)
        meta["seats"] = [
            dict(s, name=name)
            for s, name in zip(meta["seats"], names_for(rng, meta["players"]), strict=True)
        ]
        copy = dataclasses.replace(snapshot, game_id=secrets.token_hex(16), meta=meta)
        archive._put_game(copy, events)
    return count / (time.perf_counter() - started)


def bulk_fill(engine: sa.Engine, played: list, count: int, rng: random.Random) -> float:
    """The rest of the archive in batches (rows packed once per pooled game)."""
    packed = []
    for snapshot, events in played:
        blob = codec.pack(codec.encode(snapshot, events))
        returns = json.dumps(events[-1].data.get("returns", []))
        packed.append((snapshot, blob, returns))
    now = dt.datetime.now(dt.UTC)
    started = time.perf_counter()
    done = 0
    while done < count:
        batch = min(5000, count - done)
        game_rows, seat_rows = [], []
        for n in range(batch):
            snapshot, blob, returns = packed[(done + n) % len(packed)]
            game_id = secrets.token_hex(16)
            meta = snapshot.meta
            finished_at = now - dt.timedelta(seconds=rng.randrange(365 * 86400))
            game_rows.append(
                {
                    "game_id": game_id,
                    "game_type": meta["game_type"],
                    "players": meta["players"],
                    "status": "finished",
                    "private": False,
                    "tournament": None,
                    "created_at": now,
                    "finished_at": finished_at,
                    "returns": returns,
                    "codec": codec.ZSTD,
                    "record": blob,
                }
            )
            for seat, name in enumerate(names_for(rng, meta["players"])):
                seat_rows.append(
                    {
                        "game_id": game_id,
                        "seat": seat,
                        "name": name,
                        "kind": "bot",
                        "level": "random",
                        "finished_at": finished_at,
                    }
                )
        with engine.begin() as connection:
            connection.execute(games.insert(), game_rows)
            connection.execute(seats.insert(), seat_rows)
        done += batch
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(sa.text("VACUUM ANALYZE"))  # as autovacuum would, after a while
    return count / (time.perf_counter() - started)


def timed(call, times: int) -> list[float]:
    spent = []
    for _ in range(times):
        started = time.perf_counter()
        call()
        spent.append((time.perf_counter() - started) * 1000)
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--through-archive", type=int, default=1_000, help="of them via put_game")
    parser.add_argument("--samples", type=int, default=10, help="pooled games per type")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument(
        "--keep", action="store_true", help="keep the database (its name is printed)"
    )
    args = parser.parse_args()
    rng = random.Random(1)
    games_by_type = pool(args.samples)
    sizes(games_by_type)
    played = [g for group in games_by_type.values() for g in group]

    name = f"gamehost_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(args.postgres, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = sa.make_url(args.postgres).set(database=name).render_as_string(False)
    try:
        archive = Archive.open(url, create=True)
        through = min(args.through_archive, args.games)
        print(f"\nPostgreSQL archive of {args.games:,} games ({name}):")
        rate = write_through_archive(archive, played, through, rng)
        print(
            f"  write via Archive.put_game (encode+zstd+insert, one game a transaction): {rate:,.0f} games/s"
        )
        if args.games > through:
            bulk = bulk_fill(archive.engine, played, args.games - through, rng)
            print(f"  bulk insert of packed rows (5,000 a transaction): {bulk:,.0f} games/s")
        by_name = timed(
            lambda: archive._find_games(GameQuery(player=f"player-{rng.randrange(NAMES)}")),
            args.queries,
        )
        print(
            f"  ListGames by name (page of 50): p50 {percentile(by_name, 0.5):.2f} ms, "
            f"p99 {percentile(by_name, 0.99):.2f} ms"
        )
        with archive.engine.connect() as connection:
            ids = list(
                connection.execute(
                    sa.select(games.c.game_id).order_by(sa.func.random()).limit(args.queries)
                ).scalars()
            )

        def read(game_id: str) -> tuple:
            with archive.engine.connect() as connection:
                return connection.execute(
                    sa.select(games.c.game_type, games.c.codec, games.c.record).where(
                        games.c.game_id == game_id
                    )
                ).one()

        it = iter(ids)
        fetched = timed(lambda: read(next(it)), len(ids))
        print(
            f"  GetRecord's archive read (one row by id): "
            f"p50 {percentile(fetched, 0.5):.2f} ms, p99 {percentile(fetched, 0.99):.2f} ms"
        )
        rows_by_type: dict[str, list] = {}
        for game_id in ids:
            row = read(game_id)
            rows_by_type.setdefault(row.game_type, []).append((game_id, row))
        for game_type, found in sorted(rows_by_type.items()):
            spent = []
            for game_id, row in found:
                started = time.perf_counter()
                codec.decode(game_id, codec.unpack(row.record, row.codec))
                spent.append((time.perf_counter() - started) * 1000)
            print(
                f"  rebuilding a {game_type} log by replay (decompress + replay): "
                f"p50 {percentile(spent, 0.5):.2f} ms, p99 {percentile(spent, 0.99):.2f} ms"
            )
        with archive.engine.connect() as connection:
            rows = connection.execute(
                sa.select(
                    games.c.game_type,
                    sa.func.count(),
                    sa.func.avg(sa.func.octet_length(games.c.record)),
                ).group_by(games.c.game_type)
            ).all()
            total = connection.execute(
                sa.text(
                    "select pg_total_relation_size('archived_games') "
                    "+ pg_total_relation_size('archived_seats')"
                )
            ).scalar_one()
        print("  bytes per game in PostgreSQL (the record column, by type):")
        for game_type, count, mean in rows:
            print(f"    {game_type:<10}{count:>9,} games  {float(mean):>8,.0f} B")
        print(f"  all tables and indexes: {total / max(1, args.games):,.0f} B per game")
        archive.close()
    finally:
        if not args.keep:
            with psycopg.connect(args.postgres, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
