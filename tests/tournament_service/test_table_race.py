"""Two replicas that both see a table as not yet started and both start it create one
game between them, not one each: the table's game id is the same on every replica, so
the second creation finds the first's game. Nothing is left over, on either store."""

from __future__ import annotations

import asyncio

import pytest

from services.bots.bot_runner import BotRunner, LocalPoolExecutor
from services.play.host import GameHost
from services.stores import TournamentSnapshot
from services.stores.memory import MemoryStore
from services.stores.redis_store import RedisStore
from services.tournament.model import Definition, Entrant
from services.tournament.records import TournamentEventKind, table_game_id
from services.tournament.runner import TournamentRunner, schedulable_tables

# External entrants only: no bot is kicked, so the test sees the starts alone.
DEFINITION = Definition(
    name="race",
    game="cite",
    players=2,
    entrants=(Entrant("a", None), Entrant("b", None)),
    format="round-robin",
    games=2,
    seed=4,
)


@pytest.fixture(params=["memory", "redis"])
async def two_stores(request):
    """Two replicas' views of one store: one shared in-memory store, or two Redis
    clients (connection pools) on one prefix."""
    if request.param == "memory":
        shared = MemoryStore()
        yield shared, shared
        await shared.close()
        return
    url = request.getfixturevalue("redis_url")
    prefix = request.getfixturevalue("redis_prefix")
    stores = (RedisStore.from_url(url, prefix), RedisStore.from_url(url, prefix))
    yield stores
    for store in stores:
        await store.close()


def replica(store) -> TournamentRunner:
    return TournamentRunner(store, GameHost(store, BotRunner(store, LocalPoolExecutor(1))))


async def test_racing_starts_of_one_table_leave_one_game(two_stores):
    first, second = two_stores
    record = {"definition": DEFINITION.to_dict(), "created": 1.5}
    assert await first.create_tournament("race", record, "running", [])
    snapshot = await first.load_tournament("race")  # both read "table 0 not started"
    table = schedulable_tables(DEFINITION, {})[0]
    runners = [replica(first), replica(second)]
    try:
        ids = await asyncio.gather(
            *(runner.start_table(snapshot, DEFINITION, table) for runner in runners)
        )
    finally:
        for runner in runners:
            await runner.close()
    assert ids[0] == ids[1]
    games = await first.list_games()
    assert [game.game_id for game in games] == [ids[0]]  # no orphan game
    stored = await second.load_tournament("race")
    assert stored.tables[0]["game_id"] == ids[0]
    events = await first.tournament_events("race")
    assert [e.data["kind"] for e in events] == [TournamentEventKind.TABLE_STARTED]
    game = await first.load(ids[0])
    assert sorted(game.tokens) == [0, 1]  # each external seat claimed once
    joined = [e for e in await first.events(ids[0]) if e.data["kind"] == "joined"]
    assert len(joined) == 2


def test_table_game_ids_are_per_tournament_creation_and_table():
    def game_id(name: str, created: float, index: int) -> str:
        record = {"definition": DEFINITION.to_dict(), "created": created}
        snapshot = TournamentSnapshot(name, record, "running", {}, {}, {}, {})
        return table_game_id(b"secret", snapshot, index)

    assert game_id("race", 1.5, 0) == game_id("race", 1.5, 0)  # every replica agrees
    assert len({game_id("race", 1.5, 0), game_id("race", 1.5, 1), game_id("other", 1.5, 0)}) == 3
    # A tournament made again under an expired one's name gets new games.
    assert game_id("race", 1.5, 0) != game_id("race", 2.5, 0)
