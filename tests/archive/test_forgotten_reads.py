"""Once the archiver has copied a finished game into SQL the store forgets it, and
every read answers as it did while the store held the game: GetState, GetRecord (whole
and paged, with each viewer's views), WatchGame from the start and from an old event
id, a retried SubmitAction (its first answer) and a new one (the game is over), for
each seat's token and for spectators: hidden information stays hidden from the seats
it was hidden from. On both stores (memory, Redis) and both archives (SQLite,
PostgreSQL); the games are played here by their seats' tokens, so the test says when
the archiver runs."""

from __future__ import annotations

import random

import pytest

from services.api import messages
from services.archive import archiver
from services.archive.archive import Archive
from services.archive.listing import ListQuery
from services.bots.bot_runner import BotExecutor, BotRunner
from services.errors import FailedPrecondition, NotFound, ServiceError
from services.kinds import GameStatus
from services.play.host import GameHost, SeatSpec
from services.watch import hub


class NobodyPlays(BotExecutor):
    async def decide(self, turn, lease) -> None:
        return None


def _bytes(message) -> bytes:
    return message.SerializeToString(deterministic=True)


async def _play_out(host: GameHost, game_id: str, tokens: list[str], seed: int) -> list:
    """Random legal moves by whoever is to move, each under a request id, to the end;
    returns (token, request id, answer) of each seat's first move."""
    rng = random.Random(seed)
    firsts: dict[str, tuple] = {}
    for n in range(20_000):
        view = await host.get_state(game_id, "")
        if view.over:
            return list(firsts.values())
        token = tokens[view.to_move]
        legal = (await host.get_state(game_id, token)).legal_actions
        action = rng.choice(legal)[0]
        request_id = f"move-{n}"
        done = await host.submitting.submit_action(
            game_id,
            token,
            expected_version=view.snapshot.version,
            action=action,
            request_id=request_id,
        )
        firsts.setdefault(token, (token, request_id, done))
    raise AssertionError("the game did not end")


async def _answers(host: GameHost, game_id: str, tokens: list[str], firsts: list) -> dict:
    """Every read of a finished game, per viewer, as the bytes of its answer."""
    answers: dict = {}
    for token in ["", *tokens]:
        answers["state", token] = _bytes(messages.game_state(await host.get_state(game_id, token)))
        record = await host.reading.record(game_id, token, include_views=True)
        answers["record", token] = _bytes(messages.game_record(record))
        page = await host.reading.record(game_id, token, include_views=True, offset=4, limit=9)
        answers["page", token] = _bytes(messages.game_record(page))
        watched = [(e.event_id, seen) async for e, seen in host.reading.watch(game_id, token, 0)]
        answers["watch", token] = [_bytes(messages.game_event(i, s)) for i, s in watched]
        middle = watched[len(watched) // 2][0]
        answers["watch after", token] = [
            _bytes(messages.game_event(e.event_id, seen))
            async for e, seen in host.reading.watch(game_id, token, middle)
        ]
    for token, request_id, first in firsts:
        again = await host.submitting.submit_action(
            game_id,
            token,
            expected_version=first.version - 1,
            action=first.action,
            request_id=request_id,
        )
        assert again.duplicate and (again.version, again.action) == (first.version, first.action)
        answers["retry", token] = again
        try:
            await host.submitting.submit_action(game_id, token, expected_version=None, action=0)
        except ServiceError as refused:
            answers["new move", token] = (type(refused), str(refused))
    return answers


@pytest.fixture
async def archive(archive_url):
    opened = Archive.open(archive_url, create=True)
    yield opened
    opened.close()


async def test_every_read_answers_the_same_once_the_store_forgot_the_game(store, archive):
    await store.set_archiving(True)  # as a server with an archive does
    runner = BotRunner(store, NobodyPlays())
    host = GameHost(store, runner, archive=archive)
    try:
        # Catan hides hands and development cards: every seat sees another view.
        created = await host.create_game(
            "catan", [SeatSpec("human", name=f"p{i}") for i in range(4)], {"turn_limit": "12"}, 5
        )
        game_id = created.snapshot.game_id
        tokens = [(await host.join_game(game_id, seat, f"p{seat}"))[1] for seat in range(4)]
        firsts = await _play_out(host, game_id, tokens, seed=5)
        before = await _answers(host, game_id, tokens, firsts)
        views = {before["state", t] for t in ["", *tokens]}
        assert len(views) == 5, "each seat and a spectator see the game their own way"
        assert ("new move", tokens[0]) in before

        assert await archiver.archive_once(store, archive) == 1
        assert await store.load(game_id) is None and await store.events(game_id) == []
        assert (await store.tombstone(game_id)).status == GameStatus.FINISHED
        assert await store.archive_backlog() == 0
        assert await _answers(host, game_id, tokens, firsts) == before
        # A replica that never saw the game: no cached replay, the archive's row alone.
        fresh = GameHost(store, runner, archive=Archive(archive.engine))
        assert await _answers(fresh, game_id, tokens, firsts) == before
        listed, _ = await fresh.list_games(ListQuery(player="p2"))
        assert [g.game_id for g in listed] == [game_id]
        with pytest.raises(FailedPrecondition, match="over"):
            await fresh.join_game(game_id, 0, "late")
    finally:
        await runner.close()
        await host.hub.close()


async def test_a_watch_that_falls_behind_finishes_from_the_archive(store, archive, monkeypatch):
    """A watcher following a live game goes back to the store when it falls behind;
    if the game has meanwhile been archived and forgotten, the rest comes from the
    archive: the same events, in order, to the end."""
    monkeypatch.setattr(hub, "QUEUE_LIMIT", 0)  # every delivery overflows: a slow client
    monkeypatch.setattr(hub, "EXISTS_CHECK_SECONDS", 0.05)
    await store.set_archiving(True)
    runner = BotRunner(store, NobodyPlays())
    host = GameHost(store, runner, archive=archive)
    try:
        created = await host.create_game(
            "cite", [SeatSpec("human"), SeatSpec("human"), SeatSpec("human")], {}, 9
        )
        game_id = created.snapshot.game_id
        tokens = [(await host.join_game(game_id, seat, ""))[1] for seat in range(3)]
        following = host.reading.watch(game_id, tokens[1], 0)
        first, _ = await anext(following)
        firsts = await _play_out(host, game_id, tokens, seed=9)
        assert firsts
        expected = [
            (e.event_id, s) async for e, s in host.reading.watch(game_id, tokens[1], first.event_id)
        ]
        assert await archiver.archive_once(store, archive) == 1
        assert await store.load(game_id) is None
        rest = [(e.event_id, s) async for e, s in following]
        # Live, the watcher saw the log as the game went; from the archive the same
        # events, each as the (now finished) game shows it.
        assert [i for i, _ in rest] == [i for i, _ in expected]
        assert rest[-1][1]["kind"] == "finished"
        with pytest.raises(NotFound):
            await anext(host.reading.watch("0" * 32, "", 0))
    finally:
        await runner.close()
        await host.hub.close()
