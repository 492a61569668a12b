"""Migration 0012 on a filled archive (SQLite and PostgreSQL): the ladder's ratings
become everyone's (bots' and house levels' rows kept, each with its kind); down again,
humans' ratings and the rating changes go and the bots' rows stay."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from services.accounts.schema import rating_changes, ratings
from services.archive import database

BEFORE = "0011_challenges"


def _rating(name: str, level: str, mu: float) -> dict:
    row = {"ladder": "cite:2", "name": name, "level": level, "mu": mu, "sigma": 3.0}
    return {**row, "games": 12, "points": 6.0}


def test_ratings_become_everyones_and_go_back(archive_url):
    engine = database.make_engine(archive_url)
    try:
        database.upgrade(engine, BEFORE)
        old = sa.Table("ladder_ratings", sa.MetaData(), autoload_with=engine)
        kept = [_rating("Alpha", "", 31.5), _rating("greedy", "greedy", 24.0)]
        with engine.begin() as connection:
            connection.execute(sa.insert(old), kept)

        database.upgrade(engine)
        with engine.begin() as connection:
            rows = connection.execute(sa.select(ratings).order_by(ratings.c.name)).all()
            assert [(r.name, r.kind, r.mu, r.games) for r in rows] == [
                ("Alpha", "bot", 31.5, 12),
                ("greedy", "house", 24.0, 12),
            ]
            connection.execute(
                sa.insert(ratings), [{**_rating("alice", "", 27.0), "kind": "human"}]
            )
            change = {"game_id": "g1", "seat": 0, "name": "alice", "ladder": "cite:2"}
            change.update(returned=1.0, mu_before=25.0, sigma_before=8.3, mu=27.0, sigma=3.0)
            connection.execute(
                sa.insert(rating_changes), [{**change, "rated_at": dt.datetime.now(dt.UTC)}]
            )

        database.downgrade(engine, BEFORE)
        tables = set(sa.inspect(engine).get_table_names())
        assert {"ratings", "rating_changes"}.isdisjoint(tables) and "ladder_ratings" in tables
        with engine.connect() as connection:
            back = connection.execute(sa.select(old).order_by(old.c.name)).all()
        assert [r._asdict() for r in back] == kept
        database.upgrade(engine)  # and up again
        with engine.connect() as connection:
            assert connection.execute(sa.select(sa.func.count()).select_from(ratings)).scalar() == 2
    finally:
        engine.dispose()
