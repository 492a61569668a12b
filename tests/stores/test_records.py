"""The typed records (services.stores.records) across a rolling upgrade: a game, a bot
job and a task payload written before records had a ``record_version`` still load and
play, on each store; what this release writes, the previous release reads; the keys of
a later layout survive a rewrite by this release."""

from __future__ import annotations

import base64
import time

from games import get_game
from services.bots.jobs import BotJob
from services.kinds import SeatControl, SeatKind
from services.play.host import GameHost
from services.stores import NewGame
from services.stores.records import Clock, GameMeta, Seat, Timer
from services.turns import steps
from workers.turn_task import TurnTask

GAME_ID = "7" * 32
SEED = 11

# Exactly the keys the previous release's strict job reader (``BotJob(**data)``) takes.
PREVIOUS_JOB = {
    "game_id": GAME_ID,
    "game_type": "cite",
    "version": 4,
    "seat": 1,
    "level": "mcts-fast",
    "seed": 99,
    "state": base64.b64encode(b"view").decode(),
    "timeout": False,
}


class _NoRunner:
    """A replica's bot runner that is never needed: both seats are people."""

    def kick(self, game_id: str) -> None:
        return None


def _previous_game(extra: dict | None = None) -> tuple[NewGame, int]:
    """A timed game of two people as the previous release stored it (no record_version;
    seat 1 was away and taken back: ``"control": ""``, and set its options), and the
    seat to move."""
    game = get_game("cite")
    options = game.parse_options({})
    state = game.new_game(2, SEED, options)
    log, version = steps.creation_log(state, SEED)
    to_move = state.current_player()
    now = time.time()
    meta = {
        "game_type": "cite",
        "players": 2,
        "options": options,
        "seats": [
            {"kind": "human", "level": "", "name": "ada"},
            {"kind": "human", "level": "", "name": "bo", "control": "", "decline_offers": False},
        ],
        "seed": SEED,
        "created": now,
        "private": False,
        "spectators": True,
        "invites": {},
        "creator": "0" * 64,
        "bots_by_anyone": False,
        "rejoin_handed_seats": False,
        "timer": {"move": 600.0, "bank": 60.0, "fallback": "random", "max_timeouts": 3},
        "clock": {
            "seat": to_move,
            "version": version,
            "started": now,
            "deadline": now + 660.0,
            "banks": [60.0, 60.0],
            "strikes": [0, 1],
        },
        **(extra or {}),
    }
    new = NewGame(GAME_ID, meta, state.to_bytes(), version, steps.status_of(state), log)
    return new, to_move


async def test_a_game_stored_before_record_versions_loads_and_plays_on(store):
    new, to_move = _previous_game()
    await store.create(new)
    host = GameHost(store, _NoRunner())  # type: ignore[arg-type]
    try:
        tokens = dict([await host.join_game(GAME_ID, seat, "") for seat in (0, 1)])
        view = await host.get_state(GAME_ID, tokens[to_move])
        meta = view.snapshot.info
        assert meta.record_version == 1
        assert meta.timer == Timer(600.0, 60.0, "random", 3)
        assert meta.seats[1] == Seat(SeatKind.HUMAN, "", "bo", SeatControl.AS_CREATED)
        action = view.state.legal_actions()[0]
        done = await host.submitting.submit_action(
            GAME_ID, tokens[to_move], expected_version=new.version, action=action
        )
        assert done.version > new.version and not done.duplicate
        after = await store.load(GAME_ID)
        # The move rewrote the metadata (the clock moved on), in the layout the previous
        # release reads: no record_version, every key it reads.
        assert "record_version" not in after.meta
        assert set(new.meta) <= set(after.meta)
        assert after.meta["seats"][1]["name"] == "bo"
        clock = after.info.clock
        assert clock is not None and clock.version == after.version
        strikes = [0, 1]
        strikes[to_move] = 0  # a move of its own ends the mover's row, and only that
        assert clock.strikes == tuple(strikes)
    finally:
        await host.hub.close()


async def test_the_keys_of_a_later_layout_survive_a_rewrite(store):
    later = {"record_version": 2, "table_colour": "green"}
    new, _ = _previous_game(later)
    new.meta["seats"][0]["avatar"] = "owl"
    await store.create(new)
    host = GameHost(store, _NoRunner())  # type: ignore[arg-type]
    try:
        _, token = await host.join_game(GAME_ID, 0, "")
        changed = await host.seating.set_options(GAME_ID, token, decline_offers=True)
        assert changed.version == new.version + 1
        after = await store.load(GAME_ID)
        assert after.meta["record_version"] == 2 and after.meta["table_colour"] == "green"
        assert after.meta["seats"][0]["avatar"] == "owl"
        assert after.info.seats[0].decline_offers
    finally:
        await host.hub.close()


def test_the_previous_layout_reads_and_writes_back_as_the_previous_release_reads_it():
    new, _ = _previous_game()
    meta = GameMeta.from_dict(new.meta)
    written = meta.to_dict()
    # A seat's default control and options are left out, as a new seat's always were.
    assert written["seats"][1] == {"kind": "human", "level": "", "name": "bo"}
    assert {k: v for k, v in written.items() if k != "seats"} == {
        k: v for k, v in new.meta.items() if k != "seats"
    }
    assert GameMeta.from_dict(written) == meta
    stored = new.meta["clock"]
    running = (stored["seat"], new.version, stored["started"], stored["deadline"])
    assert meta.clock == Clock(*running, banks=(60.0, 60.0), strikes=(0, 1))


def test_a_job_and_a_task_payload_of_the_previous_release_load_and_are_written_alike():
    job = BotJob.from_dict(PREVIOUS_JOB)
    assert (job.record_version, job.state, job.level) == (1, b"view", "mcts-fast")
    assert job.to_dict() == PREVIOUS_JOB  # what the previous release's workers read
    payload = {"job": PREVIOUS_JOB, "store_url": "redis://r", "prefix": "p"}
    task = TurnTask.from_dict(payload)  # no max_iterations: none was capped
    assert (task.job, task.max_iterations, task.record_version) == (job, None, 1)
    assert task.to_dict() == {**payload, "max_iterations": None}


def test_a_job_of_a_later_layout_loads_and_says_its_version():
    later = {**PREVIOUS_JOB, "record_version": 2, "priority": "high"}
    job = BotJob.from_dict(later)
    assert job.record_version == 2 and job.game_id == GAME_ID
    assert job.to_dict() == {**PREVIOUS_JOB, "record_version": 2}


def test_a_runners_seat_is_a_players_to_the_turns_and_a_bots_to_readers():
    """A ladder bot's seat (its runner answers with the seat's token): written with
    ``runner`` (only then), read back the same; not a bot seat for the turns, and
    shown as a bot."""
    seat = Seat(SeatKind.HUMAN, "", "probe", runner=True)
    written = seat.to_dict()
    assert written == {"kind": "human", "level": "", "name": "probe", "runner": True}
    assert Seat.from_dict(written) == seat
    assert not seat.is_bot and seat.shown_kind == SeatKind.BOT
    person = Seat(SeatKind.HUMAN, "", "ann")
    assert "runner" not in person.to_dict() and person.shown_kind == SeatKind.HUMAN
