"""Quick play under load (docs/accounts.md, "Quick play"): N accounts, each a scripted
client, queue for Cité 2p and Catan 4p (half each) against one `gamehost serve` with
Redis and PostgreSQL on this machine; half of them leave early. Then the figures.

    .venv/bin/python benchmarks/quick_play.py [--accounts 1000] [--arrivals 120]
        [--wait 20] [--idle 60] [--house random] [--play-every 4] [--postgres URL]
        [--redis URL]

It makes a scratch PostgreSQL database (dropped afterwards) and uses a key prefix of
its own on the Redis (removed afterwards). The accounts are made in the archive
directly (CreateAccount is limited to 10 an hour per client, and every client here is
this machine's one address); the server runs `--rate-limit 0 --quick-play-calls 0`
for the same reason. Each account arrives at a random moment within ``--arrivals``
seconds and calls Matchmake; one in two is a leaver: at a random moment within
``--leave-within`` seconds of its call it leaves, half of them with LeaveQueue and half by dropping the call (a leaver
matched before that moment plays). A matched account hands its seat to the random
level at once, so its game plays out on its own and is rated, except in a sample: one
Cité game of two accounts in ``--play-every`` is played by its two accounts, each from
its own WatchPlayer stream (on each YOUR_TURN, GetState and a random legal action).
It prints:

- time to a match, p50 and p99: from a Matchmake call to its answer, over the
  accounts matched;
- the share of matched games' seats filled by house levels;
- rated games an hour: games rated (``rating_changes``) from the first arrival to the
  last rating (once every matched game is rated, or none was for ``--idle`` s), per
  hour; and the matched games left unfinished: a seat whose account dropped its call
  just as it was matched is never played (quick play games have no turn timer);
- errors: calls answered otherwise than expected (a leaver's ABORTED or CANCELLED is
  expected; so is a LeaveQueue NOT_FOUND for a leaver matched meanwhile), and seats
  that could not be handed over. The goal is 0.

- the event stream's delay from a move to the next player's "your turn", p50 and p99,
  over the sampled games' moves: from the SubmitAction answer of one account's move
  to the arrival, on the other account's WatchPlayer stream, of the YOUR_TURN at the
  version that answer gave (one clock: this machine's). A move is timed only when the
  next player's stream had told the game's start before the move was answered (a
  stream opened later tells an older turn as it opens); the event may beat the
  answer, which gives a delay below 0. The same delay in two parts, by this machine's
  wall clock: to the event's ``at`` (the server wrote it to the account's log), and
  from then to its arrival. A sampled seat with no news for ``QUIET`` s, not to move,
  has an away opponent (it dropped its call as it was matched): it is handed to the
  random level and counted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import pathlib
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import grpc
import psycopg
import redis
import sqlalchemy as sa

from gamehost.v1 import gamehost_pb2 as pb
from gamehost.v1 import gamehost_pb2_grpc as pb_grpc
from services.accounts.accounts import AccountKind, Accounts
from services.accounts.schema import rating_changes
from services.archive import database

ROOT = pathlib.Path(__file__).resolve().parent.parent
QUEUES = (("cite", 2), ("catan", 4))
# A sampled game's seat with no news this long: its other account is away (or its
# YOUR_TURN was lost: an error). Moves come within a second; the turn timer's 60 s.
QUIET = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Run:
    def __init__(self, stub: pb_grpc.GameHostStub, leave_within: float, play_every: int) -> None:
        self.stub, self.leave_within = stub, leave_within
        self.waits: list[float] = []  # seconds to a match, per matched account
        self.games: dict[str, tuple[int, int]] = {}  # game id -> (seats, house seats)
        self.left = 0
        self.errors: list[str] = []
        self.last_answer = 0.0
        self.play_every = play_every
        # (game id, version) -> (when SubmitAction answered, who moved), and -> (when
        # YOUR_TURN arrived, to whom, when its stream had told the game's start): the
        # two ends of one delay, whichever came first (the event may beat the answer).
        self.moves: dict[tuple[str, int], tuple[float, str]] = {}
        self.turns: dict[tuple[str, int], tuple[float, str, float, float, float]] = {}
        self.turn_delays: list[float] = []  # seconds, per move timed
        # The same delays in two parts, by wall clock: from the answer to the event's
        # `at` (the server wrote it to the account's log), and from then to its arrival.
        self.to_log: list[float] = []
        self.to_client: list[float] = []
        self.absent: set[str] = set()  # sampled games whose other account never played
        self.played_games: set[str] = set()

    def plays_itself(self, game_id: str, queue: tuple[str, int], bots: int) -> bool:
        """Whether this matched game's accounts play it themselves, each with a
        WatchPlayer stream: one Cité game in ``play_every`` of two accounts (each seat's
        account decides alike, from the game id)."""
        sampled = self.play_every > 0 and int(game_id, 16) % self.play_every == 0
        return queue == ("cite", 2) and bots == 0 and sampled

    async def play(self, me: str, auth: tuple, game_id: str, token: str) -> None:
        """Play the seat from the account's event stream: on each YOUR_TURN of the game,
        a random legal action. Times each YOUR_TURN from the other player's move that
        led to it, when this stream had told the game's start before that move."""
        self.played_games.add(game_id)
        stream = self.stub.WatchPlayer(pb.WatchPlayerRequest(), metadata=auth)
        ready = float("inf")  # when this stream told the game's start
        events = aiter(stream)
        try:
            while True:
                try:
                    event = await asyncio.wait_for(anext(events), QUIET)
                except StopAsyncIteration:
                    self.errors.append(f"WatchPlayer: ended before {game_id} did")
                    return
                except TimeoutError:
                    await self.quiet(game_id, token)
                    return
                arrived, arrived_at = time.monotonic(), time.time()
                if event.game_id != game_id:
                    continue
                if event.kind == pb.PLAYER_GAME_STARTED:
                    ready = min(ready, arrived)
                elif event.kind == pb.PLAYER_GAME_FINISHED:
                    return
                elif event.kind == pb.PLAYER_YOUR_TURN:
                    turn = (arrived, me, ready, event.at, arrived_at)
                    self.timed((game_id, event.version), turn=turn)
                    await self.move(game_id, token, event.version, me)
        except grpc.aio.AioRpcError as exc:
            self.errors.append(f"WatchPlayer: {exc.code().name}: {exc.details()}")
        finally:
            stream.cancel()

    async def move(self, game_id: str, token: str, version: int, me: str) -> None:
        state = await self.stub.GetState(pb.GetStateRequest(game_id=game_id, token=token))
        if not state.legal_actions:
            return  # told late (moved since, by the turn timer's fallback)
        version = state.version  # the same, or a chance step later
        action = random.choice(state.legal_actions)
        try:
            answer = await self.stub.SubmitAction(
                pb.SubmitActionRequest(
                    game_id=game_id,
                    token=token,
                    expected_version=version,
                    action_id=action.id,
                    request_id=uuid.uuid4().hex,
                ),
                timeout=60,
            )
        except grpc.aio.AioRpcError as exc:
            self.errors.append(f"SubmitAction: {exc.code().name}: {exc.details()}")
            return
        self.timed((game_id, answer.version), move=(time.monotonic(), me, time.time()))

    async def quiet(self, game_id: str, token: str) -> None:
        """No news of the game for ``QUIET`` s: an error if the seat is to move (its
        YOUR_TURN was never told), else the other account is away (it dropped its call
        just as it was matched): the seat goes to the random level, as unsampled seats do."""
        state = await self.stub.GetState(pb.GetStateRequest(game_id=game_id, token=token))
        if state.legal_actions:
            self.errors.append(f"WatchPlayer: YOUR_TURN at {game_id} v{state.version} untold")
            return
        self.absent.add(game_id)
        try:
            await self.stub.HandOverSeat(
                pb.HandOverSeatRequest(
                    game_id=game_id, token=token, bot_level="random", request_id=uuid.uuid4().hex
                ),
                timeout=60,
            )
        except grpc.aio.AioRpcError as exc:
            self.errors.append(f"HandOverSeat: {exc.code().name}: {exc.details()}")

    def timed(self, at: tuple[str, int], move=None, turn=None) -> None:
        """One end of a move's delay; the delay, once both ends are in, when the YOUR_TURN
        went to the other player and its stream had told the game's start before the move
        was answered (a stream opened later tells an older turn on opening)."""
        move = self.moves.setdefault(at, move) if move else self.moves.get(at)
        turn = self.turns.setdefault(at, turn) if turn else self.turns.get(at)
        if move is not None and turn is not None and turn[1] != move[1] and turn[2] < move[0]:
            self.turn_delays.append(turn[0] - move[0])
            self.to_log.append(turn[3] - move[2])  # the server logged the YOUR_TURN
            self.to_client.append(turn[4] - turn[3])  # the stream brought it over
            del self.moves[at], self.turns[at]

    async def account(self, name: str, key: str, queue: tuple[str, int], at: float) -> None:
        await asyncio.sleep(at)
        auth = (("authorization", f"Bearer {key}"),)
        leaver = random.random() < 0.5
        request = pb.MatchmakeRequest(game_type=queue[0], players=queue[1])
        started = time.monotonic()
        call = asyncio.ensure_future(self.stub.Matchmake(request, metadata=auth, timeout=600))
        if leaver:
            done, _ = await asyncio.wait({call}, timeout=random.uniform(0.0, self.leave_within))
            if not done:
                self.left += 1
                if random.random() < 0.5:
                    call.cancel()  # the client goes away: the server takes it out
                    with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                        await call
                    return
                try:
                    await self.stub.LeaveQueue(pb.LeaveQueueRequest(), metadata=auth)
                except grpc.aio.AioRpcError as exc:
                    if exc.code() != grpc.StatusCode.NOT_FOUND:  # matched meanwhile
                        self.errors.append(f"LeaveQueue: {exc.code().name}: {exc.details()}")
                    self.left -= 1
        try:
            matched = await call
        except grpc.aio.AioRpcError as exc:
            if not (leaver and exc.code() == grpc.StatusCode.ABORTED):
                self.errors.append(f"Matchmake: {exc.code().name}: {exc.details()}")
            return
        self.waits.append(time.monotonic() - started)
        self.last_answer = time.monotonic()
        self.games[matched.game_id] = (queue[1], matched.bots)
        if self.plays_itself(matched.game_id, queue, matched.bots):
            await self.play(name, auth, matched.game_id, matched.token)
            return
        try:
            await self.stub.HandOverSeat(
                pb.HandOverSeatRequest(
                    game_id=matched.game_id,
                    token=matched.token,
                    bot_level="random",
                    request_id=uuid.uuid4().hex,
                ),
                timeout=60,
            )
        except grpc.aio.AioRpcError as exc:
            self.errors.append(f"HandOverSeat: {exc.code().name}: {exc.details()}")


def rated_games(engine: sa.Engine) -> int:
    with engine.connect() as connection:
        count = sa.select(sa.func.count(sa.distinct(rating_changes.c.game_id)))
        return connection.execute(count).scalar_one()


async def drive(args, target: str, keys: list[tuple[str, str]], engine: sa.Engine) -> dict:
    channel = grpc.aio.insecure_channel(target)
    run = Run(pb_grpc.GameHostStub(channel), args.leave_within, args.play_every)
    started = time.monotonic()
    await asyncio.gather(
        *(
            run.account(name, key, QUEUES[i % 2], random.uniform(0, args.arrivals))
            for i, (name, key) in enumerate(keys)
        )
    )
    # The matched games play out (their seats handed to the random level) and are rated;
    # the window ends at the last rating, once none came for --idle seconds.
    rated, last = 0, time.monotonic()
    while time.monotonic() - last < args.idle:
        now_rated = await asyncio.to_thread(rated_games, engine)
        if now_rated > rated:
            rated, last = now_rated, time.monotonic()
        if rated >= len(run.games):
            break
        await asyncio.sleep(1.0)
    elapsed = last - started
    await channel.close()
    seats = sum(s for s, _ in run.games.values())
    bots = sum(b for _, b in run.games.values())
    return {
        "accounts": len(keys),
        "matched accounts": len(run.waits),
        "left early": run.left,
        "games": len(run.games),
        "time to a match p50 s": round(percentile(run.waits, 0.5), 2),
        "time to a match p99 s": round(percentile(run.waits, 0.99), 2),
        "seats filled by house levels": round(bots / seats, 3) if seats else 0.0,
        "rated games": rated,
        # A game with a seat whose account dropped its call as it was matched: nobody
        # plays that seat (quick play games have no turn timer).
        "games left unfinished": len(run.games) - rated,
        "window s": round(elapsed, 1),
        "rated games an hour": round(rated * 3600 / elapsed),
        "games played by their accounts": len(run.played_games),
        "of them handed over, the other account away": len(run.absent),
        "moves timed": len(run.turn_delays),
        "your turn delay p50 s": round(percentile(run.turn_delays, 0.5), 3),
        "your turn delay p99 s": round(percentile(run.turn_delays, 0.99), 3),
        "move answered to turn logged p50 / p99 s": [
            round(percentile(run.to_log, q), 3) for q in (0.5, 0.99)
        ],
        "turn logged to its arrival p50 / p99 s": [
            round(percentile(run.to_client, q), 3) for q in (0.5, 0.99)
        ],
        "errors": len(run.errors),
        "error samples": run.errors[:5],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--accounts", type=int, default=1000)
    parser.add_argument("--arrivals", type=float, default=120.0, help="seconds they arrive in")
    parser.add_argument("--wait", type=float, default=20.0, help="serve --quick-play-wait")
    parser.add_argument(
        "--leave-within", type=float, default=2.0, help="a leaver leaves within this many s"
    )
    parser.add_argument(
        "--idle", type=float, default=60.0, help="stop once no game was rated for this long"
    )
    parser.add_argument("--house", default="random", help="serve --quick-play-house")
    parser.add_argument(
        "--play-every",
        type=int,
        default=4,
        help="one Cité game of two accounts in this many is played by its accounts (0: none)",
    )
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    random.seed(args.seed)

    work = pathlib.Path(tempfile.mkdtemp(prefix="quick-play-"))
    name = f"gamehost_quick_play_{uuid.uuid4().hex[:10]}"
    prefix = f"quick-play-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(args.postgres, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    archive = sa.make_url(args.postgres).set(database=name).render_as_string(False)
    server = None
    engine = database.make_engine(archive)
    try:
        database.upgrade(engine)
        book = Accounts(engine)
        keys = [
            (f"qp{i:05d}", book.create(f"qp{i:05d}", AccountKind.HUMAN, "bench"))
            for i in range(args.accounts)
        ]
        port = free_port()
        serve = ["serve", "--port", str(port), "--redis", args.redis, "--redis-prefix", prefix]
        serve += ["--archive", archive, "--rate-limit", "0", "--live-games-per-client", "0"]
        serve += ["--quick-play-calls", "0", "--quick-play-wait", str(args.wait)]
        serve += ["--quick-play-house", args.house, "--bot-workers", "1"]
        with open(work / "server.log", "ab") as out:
            server = subprocess.Popen(
                [sys.executable, "-m", "gamehost.cli", *serve],
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                start_new_session=True,
            )
        health = subprocess.run(
            [sys.executable, "-m", "gamehost.cli", "health", "--target", f"127.0.0.1:{port}"],
            capture_output=True,
        )
        deadline = time.monotonic() + 60
        while health.returncode != 0 and time.monotonic() < deadline:
            time.sleep(0.5)
            health = subprocess.run(
                [sys.executable, "-m", "gamehost.cli", "health", "--target", f"127.0.0.1:{port}"],
                capture_output=True,
            )
        figures = asyncio.run(drive(args, f"127.0.0.1:{port}", keys, engine))
        log = (work / "server.log").read_text(errors="replace")
        figures["server ERROR lines"] = log.count("ERROR")
        print(json.dumps({"settings": vars(args), "figures": figures}, indent=2))
    finally:
        if server is not None and server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
        engine.dispose()
        with psycopg.connect(args.postgres, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        store = redis.Redis.from_url(args.redis)
        keys_left = list(store.scan_iter(match=f"{prefix}:*", count=1000))
        if keys_left:
            store.delete(*keys_left)
        store.close()


if __name__ == "__main__":
    main()
