"""Migrations 0010 and 0011 on a filled archive (SQLite and PostgreSQL). 0010: every
registered bot becomes an account of kind bot, with its key and its ratings kept; down
again, the bots get their keys back in ladder_bots and human accounts go. 0011: the
event log and challenges go down and come back."""

from __future__ import annotations

import datetime as dt
import hashlib

import sqlalchemy as sa

from services.accounts.accounts import AccountKind
from services.accounts.accounts import Accounts as HumanAccounts
from services.accounts.challenges import Challenges
from services.accounts.event_log import EventLog
from services.accounts.schema import account_events, account_feeds, accounts, challenges
from services.archive import database
from services.ladder.accounts import Accounts

BEFORE = "0009_archived_deals"
AFTER = "0010_accounts"  # 0012_ratings moves the ratings on: tests/matchmaking


def _bot(name: str, key: str, status: str = "active") -> dict:
    return {
        "name": name,
        "key_hash": hashlib.sha256(key.encode()).hexdigest(),
        "ladder": "cite:2",
        "status": status,
        "reason": "",
        "owner": "ip:127.0.0.1",
        "created_at": dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
        "moves": 7,
        "faults_in_row": 0,
        "late": 0,
        "garbage": 0,
        "illegal": 0,
        "missing": 0,
        "session": "",
        "slots": 0,
        "connected_until": 0.0,
    }


def _rating(name: str, mu: float) -> dict:
    return {"ladder": "cite:2", "name": name, "level": "", "mu": mu, "sigma": 3.0}


def test_bots_become_accounts_with_keys_and_ratings_kept_and_go_back(archive_url):
    engine = database.make_engine(archive_url)
    try:
        database.upgrade(engine, BEFORE)
        meta = sa.MetaData()
        bots = sa.Table("ladder_bots", meta, autoload_with=engine)
        ratings = sa.Table("ladder_ratings", meta, autoload_with=engine)
        with engine.begin() as connection:
            connection.execute(
                sa.insert(bots), [_bot("Alpha", "ghb_a"), _bot("beta", "ghb_b", "revoked")]
            )
            connection.execute(
                sa.insert(ratings),
                [
                    {**_rating("Alpha", 31.5), "games": 12, "points": 7.0},
                    {**_rating("greedy", 24.0), "games": 12, "points": 5.0},
                ],
            )
            rated = connection.execute(sa.select(ratings).order_by(ratings.c.name)).all()

        database.upgrade(engine, AFTER)
        with engine.connect() as connection:
            rows = connection.execute(sa.select(accounts).order_by(accounts.c.name)).all()
            assert connection.execute(sa.select(ratings).order_by(ratings.c.name)).all() == rated
        assert [(r.name, r.folded, r.kind, r.revoked) for r in rows] == [
            ("Alpha", "alpha", "bot", False),
            ("beta", "beta", "bot", True),
        ]
        database.upgrade(engine)
        ladder = Accounts(engine)
        found = ladder.by_key("ghb_a")  # the key it had still works
        assert found is not None and (found.name, found.moves) == ("Alpha", 7)
        assert ladder.list()[0].games == 12
        with engine.begin() as connection:
            ladder.book.insert(connection, "carol", AccountKind.HUMAN, "me")

        database.downgrade(engine, BEFORE)
        assert "accounts" not in sa.inspect(engine).get_table_names()
        with engine.connect() as connection:
            kept = connection.execute(
                sa.select(bots.c.name, bots.c.key_hash).order_by(bots.c.name)
            ).all()
            assert connection.execute(sa.select(ratings).order_by(ratings.c.name)).all() == rated
        assert kept == [
            ("Alpha", hashlib.sha256(b"ghb_a").hexdigest()),
            ("beta", hashlib.sha256(b"ghb_b").hexdigest()),
        ]
        database.upgrade(engine)  # and up again
        assert Accounts(engine).by_key("ghb_b").name == "beta"
    finally:
        engine.dispose()


def test_the_event_log_and_challenges_go_down_and_come_back(archive_url):
    """Migration 0011 on a filled archive: down again, its three tables go and the
    accounts stay; up again, they are there, empty."""
    engine = database.make_engine(archive_url)
    try:
        database.upgrade(engine)
        people = HumanAccounts(engine)
        people.create("alice", AccountKind.HUMAN, "test")
        people.create("bob", AccountKind.HUMAN, "test")
        EventLog(engine).started("alice", "a" * 32, 0, {"kind": "PLAYER_GAME_STARTED"})
        Challenges(engine).create("alice", "bob", "cite", {})
        database.downgrade(engine, "0010_accounts")
        names = set(sa.inspect(engine).get_table_names())
        assert not names & {"account_events", "account_feeds", "challenges"}
        assert {a.name for a in [people.get("alice"), people.get("bob")] if a} == {
            "alice",
            "bob",
        }
        database.upgrade(engine)
        with engine.connect() as connection:
            for table in (account_events, account_feeds, challenges):
                assert (
                    connection.execute(sa.select(sa.func.count()).select_from(table)).scalar() == 0
                )
        assert EventLog(engine).add("alice", {"kind": "PLAYER_CHALLENGE_RECEIVED"}) == 1
    finally:
        engine.dispose()
