"""Failover runs: human tables and an all-bot game played through ``gamehost serve`` on a
Sentinel set (``loadtest.topology``) while a fault is injected, then every table's
record is compared with what its player was told. ``benchmarks/failover_table.py``
prints the table of docs/reliability.md from these runs; tests/faults/test_failover.py
asserts on them.

Counting (per run, summed over the tables):
- acknowledged: moves a player was told were accepted (SubmitAction answered OK);
- lost: acknowledged moves missing from the final record (a later acknowledgement at
  the same or an earlier version superseded them, or the record differs there);
- doubled: moves in the record that no acknowledgement accounts for (one request
  applied twice);
- refused: UNAVAILABLE answers saying too few replicas confirmed the write
  (``--redis-min-replicas``); unavailable: other UNAVAILABLE answers (the switch), and
  calls that ran out of time (DEADLINE_EXCEEDED: their outcome unknown, so the same
  request is sent again, as UNAVAILABLE's);
- resume: the longest time, from the fault on, that a table went without an
  acknowledged move (the time the service took to come back for it);
- bots: the same for the all-bot game's moves, which nobody calls for.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from gamehost import Client
from gamehost.client import GameError
from gamehost.v1 import gamehost_pb2 as pb
from loadtest.topology import ClusterSet, RedisProc, SentinelSet, free_port, poll

ROOT = Path(__file__).resolve().parent.parent
REFUSED_WORDS = "replicas required"  # in NotReplicated's message
# Answers a fault must never produce: the run fails with them.
NEVER = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)
FINISH_SECONDS = 60.0  # a move sent before the stop is retried this long after it


@dataclass
class Row:
    scenario: str
    min_replicas: int
    acknowledged: int = 0
    lost: int = 0
    doubled: int = 0
    refused: int = 0
    unavailable: int = 0
    voided: int = 0  # decided moves the service refused as no longer legal (a rewind)
    resume: float | None = None
    bots: float | None = None
    watch: float | None = None  # the same, for the all-bot game's events on WatchGame
    mismatches: list[str] = field(default_factory=list)  # tables whose record != acks


def store_flags(redis: SentinelSet | ClusterSet) -> list[str]:
    """``gamehost serve``'s flags for the topology."""
    if isinstance(redis, ClusterSet):
        return ["--redis-cluster", redis.url()]
    return ["--redis-sentinel", redis.sentinel_hosts, "--redis-service", redis.service]


class Service:
    """``gamehost serve`` (and, with ``celery``, one ``gamehost worker``) on a Sentinel
    set or a Cluster, in their own process groups; ``stop`` kills them."""

    def __init__(
        self,
        redis: SentinelSet | ClusterSet,
        min_replicas: int,
        logs: Path,
        celery: bool = False,
    ):
        self.port = free_port()
        self.logs = Path(logs)
        self.logs.mkdir(parents=True, exist_ok=True)
        where = store_flags(redis)
        # No rate limit: the players retry as fast as the service answers.
        self.args = ["serve", "--port", str(self.port), *where, "--bot-workers", "1"]
        self.args += ["--rate-limit", "0"]
        if min_replicas:
            self.args += ["--redis-min-replicas", str(min_replicas)]
            self.args += ["--redis-wait-timeout", "0.5"]
        self.worker_args: list[str] | None = None
        if celery:
            self.args.append("--celery")
            self.worker_args = ["worker", *where, "--concurrency", "1"]
            self.worker_args += ["--hostname", f"failover-{uuid.uuid4().hex[:8]}@%h"]
        self.procs: list[subprocess.Popen] = []

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _spawn(self, args: list[str], log: str) -> subprocess.Popen:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        with open(self.logs / log, "ab") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "gamehost.cli", *args],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=ROOT,
                start_new_session=True,
            )
        self.procs.append(proc)
        return proc

    def start(self) -> Service:
        try:
            serve = self._spawn(self.args, "serve.log")
            if self.worker_args is not None:
                self._spawn(self.worker_args, "worker.log")
            poll(lambda: self._serving(serve), 90, "gamehost serve to answer its health check")
        except BaseException:
            self.stop()
            raise
        return self

    def _serving(self, proc: subprocess.Popen) -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"gamehost serve exited:\n{self.output()}")
        with grpc.insecure_channel(self.target) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=1.0)
            except grpc.RpcError:
                return False
        return reply.status == health_pb2.HealthCheckResponse.SERVING

    def output(self) -> str:
        return "".join(
            (self.logs / name).read_text(errors="replace")
            for name in ("serve.log", "worker.log")
            if (self.logs / name).exists()
        )

    def stop(self) -> None:
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)


@dataclass
class Game:
    """One game of a table and what its player was told."""

    game_id: str
    tokens: dict[int, str]
    acked: list[tuple[float, int, str]] = field(default_factory=list)  # (time, version, move)


class Table(threading.Thread):
    """Two-seat all-human Cité games, played move after move (legal action 0) by one
    player who retries each move with its request id until it is acknowledged, and
    starts another game when one ends."""

    def __init__(self, target: str, seed: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.target = target
        self.seed = seed
        self.stop_event = stop
        self.games: list[Game] = []
        self.refused = 0
        self.unavailable = 0
        self.voided = 0  # moves refused as not legal any more (the game went back)
        self.error: BaseException | None = None
        with Client(target, timeout=10) as client:
            self.games.append(self._new_game(client))

    def _new_game(self, client: Client) -> Game:
        game_id = client.create_game("cite", ["human", "human"], seed=self.seed).game_id
        self.seed += 1000
        return Game(game_id, {seat: client.join(game_id, seat).token for seat in (0, 1)})

    def run(self) -> None:
        try:
            with Client(self.target, timeout=5, retries=0) as client:
                while not self.stop_event.is_set():
                    self._try(client, lambda: self._move(client))
        except BaseException as exc:  # reported by the run, not lost in a thread
            self.error = exc

    def _try(self, client: Client, step: Callable[[], object], finish: bool = False) -> object:
        """Run ``step`` until it is answered: UNAVAILABLE, or a call that ran out of
        time (its outcome unknown), is tried again after a pause. ``finish``: a move
        already sent is seen through after the stop too (else one applied but not yet
        acknowledged would count as doubled), for FINISH_SECONDS at most."""
        deadline = None
        while True:
            if self.stop_event.is_set():
                if not finish:
                    return None
                deadline = deadline or time.monotonic() + FINISH_SECONDS
                if time.monotonic() > deadline:
                    raise TimeoutError("a move sent before the stop was never answered")
            try:
                return step()
            except GameError as exc:
                if exc.code not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                    raise
                if REFUSED_WORDS in exc.details:
                    self.refused += 1
                else:
                    self.unavailable += 1
                time.sleep(0.05)  # the player's retry pace, not a synchronisation

    def _move(self, client: Client) -> None:
        """Decide a move on the state read, then submit that same move (token, action,
        request id) until it is answered: a retry must be the same request, or a try
        that was applied but not acknowledged would be followed by another move."""
        game = self.games[-1]

        def decide() -> tuple[str, int] | None:
            try:
                state = client.state(game.game_id)
            except GameError as exc:
                if exc.code != grpc.StatusCode.NOT_FOUND:
                    raise
                state = None  # the game itself was lost (its creation): play another
            if state is None or state.status == pb.FINISHED:
                self.games.append(self._new_game(client))
                return None
            token = game.tokens[state.to_move.seat]
            return token, client.state(game.game_id, token).legal_actions[0].id

        move = self._try(client, decide)
        if move is None:
            return
        token, action = move
        request_id = uuid.uuid4().hex

        def submit() -> None:
            try:
                reply = client.submit(game.game_id, token, action, request_id=request_id)
            except GameError as exc:
                if exc.code in (
                    grpc.StatusCode.UNAVAILABLE,
                    grpc.StatusCode.DEADLINE_EXCEEDED,
                    *NEVER,
                ):
                    raise
                self.voided += 1  # the game moved elsewhere (a failover lost moves)
                return
            # A duplicate answer acknowledges this move's earlier try.
            game.acked.append((time.monotonic(), int(reply.version), reply.notation))

        self._try(client, submit, finish=True)

    @property
    def acked(self) -> list[tuple[float, int, str]]:
        return [ack for game in list(self.games) for ack in list(game.acked)]

    def tally(self, row: Row) -> bool:
        """Add this table's counts to ``row`` (after the run: the records are read);
        False when a record could not be read yet."""
        records = {}
        with Client(self.target, timeout=10, retries=0) as client:
            for game in self.games:
                try:
                    records[game.game_id] = client.record(game.game_id, game.tokens[0])
                except GameError as exc:
                    if exc.code == grpc.StatusCode.NOT_FOUND:
                        records[game.game_id] = None  # lost, creation and all
                    elif exc.code == grpc.StatusCode.UNAVAILABLE:
                        return False  # asked again (poll)
                    else:
                        raise
        for game in self.games:
            _tally_game(game, records[game.game_id], row)
        row.refused += self.refused
        row.unavailable += self.unavailable
        row.voided += self.voided
        return True

    def acked_since(self, moment: float) -> int:
        return sum(1 for at, _, _ in self.acked if at > moment)

    def stall(self, since: float) -> float:
        return longest_stall(sorted(at for at, _, _ in self.acked), since)


def _tally_game(game: Game, record: pb.GameRecord | None, row: Row) -> None:
    # Each seat's move by the version after it and the chance outcomes it led to
    # (what SubmitAction's answer says).
    moves: list[list] = []
    for entry in record.entries if record is not None else []:
        if entry.actor.kind == pb.Actor.SEAT:
            moves.append([entry.ply, entry.notation])
        elif moves:
            moves[-1][0] = entry.ply
    played = {ply: notation for ply, notation in moves}
    kept: list[tuple[int, str]] = []
    lost = 0
    for _, version, notation in game.acked:
        # An acknowledgement at or below an earlier one's version: those were lost.
        while kept and kept[-1][0] >= version:
            kept.pop()
            lost += 1
        kept.append((version, notation))
    lost += sum(1 for version, notation in kept if played.get(version) != notation)
    kept_versions = {version for version, _ in kept}
    row.doubled += sum(1 for ply in played if ply not in kept_versions)
    row.lost += lost
    row.acknowledged += len(game.acked)
    if [n for _, _, n in game.acked] != [played[p] for p in sorted(played)]:
        row.mismatches.append(game.game_id)


class Watcher(threading.Thread):
    """A WatchGame stream on the all-bot game (the one ``bots`` plays now), resumed
    after the last event id received whenever it ends or fails."""

    def __init__(self, target: str, stop: threading.Event, bots: BotWatch) -> None:
        super().__init__(daemon=True)
        self.target = target
        self.stop_event = stop
        self.bots = bots
        self.events: list[float] = []  # when each event arrived

    def run(self) -> None:
        game_id, after = self.bots.game_id, 0
        while not self.stop_event.is_set():
            if game_id != self.bots.game_id:
                game_id, after = self.bots.game_id, 0  # the next game
            try:
                with Client(self.target, timeout=5, retries=0) as client:
                    for event in client.watch(game_id, after=after):
                        self.events.append(time.monotonic())
                        after = event.event_id
                        if self.stop_event.is_set() or game_id != self.bots.game_id:
                            break
            except GameError as exc:
                # A failover that dropped events ends a stream past them (ABORTED) or a
                # resumed one (INVALID_ARGUMENT): start again.
                if exc.code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.ABORTED):
                    after = 0
                time.sleep(0.05)  # the watcher's retry pace

    def seen_since(self, moment: float) -> int:
        return sum(1 for at in list(self.events) if at > moment)

    def stall(self, since: float) -> float:
        return longest_stall(list(self.events), since)


class BotWatch(threading.Thread):
    """All-bot games nobody plays (another starts when one ends); the current one's
    version is read (GetState) every 50 ms to see when it moves."""

    def __init__(self, target: str, stop: threading.Event, level: str = "bot:greedy") -> None:
        super().__init__(daemon=True)
        self.target = target
        self.stop_event = stop
        self.level = level
        self.games = 0
        self.game_id = self._new_game()
        self.moves: list[tuple[float, tuple[int, int]]] = []  # (time, (game, version))

    def _new_game(self) -> str:
        self.games += 1
        with Client(self.target, timeout=10) as client:
            return client.create_game("cite", [self.level] * 4, seed=self.games).game_id

    def run(self) -> None:
        last = None
        with Client(self.target, timeout=2, retries=0) as client:
            while not self.stop_event.is_set():
                try:
                    state = client.state(self.game_id)
                except GameError as exc:
                    if exc.code == grpc.StatusCode.NOT_FOUND:  # lost with its creation
                        with contextlib.suppress(GameError):
                            self.game_id = self._new_game()
                else:
                    seen = (self.games, int(state.version))
                    if seen != last:
                        self.moves.append((time.monotonic(), seen))
                        last = seen
                    if state.status == pb.FINISHED:
                        with contextlib.suppress(GameError):
                            self.game_id = self._new_game()
                time.sleep(0.05)

    def moved_since(self, moment: float) -> int:
        """Version changes seen after ``moment``, not counting the first (the first read
        after a promotion shows where the game stood)."""
        return max(0, sum(1 for at, _ in list(self.moves) if at > moment) - 1)

    def stall(self, since: float) -> float:
        return longest_stall([at for at, _ in list(self.moves)], since)


def longest_stall(times: list[float], since: float) -> float:
    """The longest time from ``since`` on without an event of ``times`` (sorted)."""
    last, longest = since, 0.0
    for at in times:
        if at > since:
            longest = max(longest, at - last)
            last = at
    return longest


# ------------------------------------------------------------------ faults
# Each injects its fault into the set (given the games being played) and returns when
# the fault is over (what remains is the service's to recover from).


def kill_primary(redis: SentinelSet, games: list[str]) -> None:
    redis.primary().kill9()


def lag_then_kill_primary(redis: SentinelSet, games: list[str], lag: float = 3.0) -> None:
    """Cut every replica's link and hold it down (the replica sleeps, so it cannot
    reconnect); the primary goes on writing alone, and is killed before they are back."""
    primary = redis.primary()
    threads = [
        threading.Thread(target=cut_link, args=(replica, lag), daemon=True)
        for replica in redis.replicas_of(primary)
    ]
    for thread in threads:
        thread.start()
    time.sleep(lag / 2)  # the fault's shape: writes go to the primary alone meanwhile
    primary.kill9()
    for thread in threads:
        thread.join()


def cut_link(replica: RedisProc, seconds: float) -> None:
    """The replica drops its link to the primary and sleeps ``seconds`` (DEBUG SLEEP),
    so nothing reaches it meanwhile."""
    with replica.client(timeout=seconds + 10) as client:
        pipe = client.pipeline(transaction=True)
        pipe.execute_command("CLIENT", "KILL", "TYPE", "master")
        pipe.execute_command("DEBUG", "SLEEP", f"{seconds:g}")
        pipe.execute()


def kill_sentinel(redis: SentinelSet, games: list[str]) -> None:
    next(s for s in redis.sentinels if s.alive()).kill9()


def kill_replicas(redis: SentinelSet, games: list[str], down: float = 3.0) -> None:
    """The split: every replica gone for ``down`` seconds, then started again."""
    replicas = redis.replicas_of(redis.primary())
    for replica in replicas:
        replica.kill9()
    time.sleep(down)  # the fault's length
    for replica in replicas:
        replica.start()


def migrate_slots(cluster: ClusterSet, games: list[str]) -> None:
    """Move the slot of every game being played on to the next node, twice, while play
    goes on (their keys go one at a time, so a game is split between two nodes
    meanwhile: calls meet ASK redirections and TRYAGAIN)."""
    for _ in range(2):
        for game_id in games:
            slot = cluster.slot_of(f"{{{game_id}}}")
            owner = cluster.owner(slot)
            target = cluster.nodes[(cluster.nodes.index(owner) + 1) % len(cluster.nodes)]
            cluster.move_slot(slot, target, batch=1)


FAULTS: dict[str, Callable[[Any, list[str]], None]] = {
    "primary killed (kill -9)": kill_primary,
    "replicas cut off 3 s, primary killed": lag_then_kill_primary,
    "one sentinel killed": kill_sentinel,
    "split: both replicas killed 3 s": kill_replicas,
}
# Faults of a Redis Cluster (3 primaries): run() starts a cluster for these.
CLUSTER_FAULTS: dict[str, Callable[[Any, list[str]], None]] = {
    "cluster: the games' slots migrated mid-play": migrate_slots,
}


def run(
    scenario: str,
    min_replicas: int,
    workdir: Path,
    tables: int = 3,
    moves_after: int = 8,
    celery: bool = False,
    timeout: float = 90,
) -> Row:
    """One run: a fresh Sentinel set (a primary, 2 replicas, 3 sentinels; a 3-primary
    Cluster for CLUSTER_FAULTS) and service, ``tables`` human tables and an all-bot game
    playing, the fault, then play until every table has ``moves_after`` moves
    acknowledged after the fault."""
    row = Row(scenario, min_replicas)
    stop = threading.Event()
    fault = FAULTS.get(scenario) or CLUSTER_FAULTS[scenario]
    with contextlib.ExitStack() as stack:
        redis: SentinelSet | ClusterSet
        if scenario in CLUSTER_FAULTS:
            redis = stack.enter_context(ClusterSet(workdir / "redis"))
        else:
            redis = stack.enter_context(SentinelSet(workdir / "redis"))
        service = Service(redis, min_replicas, workdir / "logs", celery).start()
        stack.callback(service.stop)
        stack.enter_context(_log_on_failure(service))
        players = [Table(service.target, seed=i + 1, stop=stop) for i in range(tables)]
        bots = BotWatch(service.target, stop)
        watcher = Watcher(service.target, stop, bots)
        threads: list[threading.Thread] = [*players, bots, watcher]
        stack.callback(lambda: [t.join(timeout=30) for t in threads])
        stack.callback(stop.set)
        for thread in threads:
            thread.start()
        _wait_all(players, lambda t: len(t.acked) >= 4, timeout, "every table to play")
        poll(lambda: len(bots.moves) >= 2, timeout, "the bots to move")
        fault_at = time.monotonic()
        fault(redis, [p.games[-1].game_id for p in players] + [bots.game_id])
        over = time.monotonic()
        _wait_all(players, lambda t: t.acked_since(over) >= moves_after, timeout, "play to resume")
        poll(lambda: bots.moved_since(over) >= 2, timeout, "the bots to resume")
        poll(lambda: watcher.seen_since(over) >= 2, timeout, "WatchGame to deliver again")
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
        for player in players:
            if player.error is not None:
                raise player.error
            poll(lambda p=player: p.tally(row), timeout, "the record")
        row.resume = max(p.stall(fault_at) for p in players)
        row.bots = bots.stall(fault_at)
        row.watch = watcher.stall(fault_at)
    return row


@contextlib.contextmanager
def _log_on_failure(service: Service) -> Iterator[None]:
    """A failure carries the service's last log lines: an INTERNAL's traceback is there."""
    try:
        yield
    except Exception as exc:
        tail = "\n".join(service.output().splitlines()[-80:])
        exc.add_note(f"the service's log, last lines:\n{tail}")
        raise


def _wait_all(players: list[Table], done: Callable[[Table], bool], timeout: float, what: str):
    def check() -> bool:
        for player in players:
            if player.error is not None:
                raise player.error
        return all(done(p) for p in players)

    poll(check, timeout, what)


@contextlib.contextmanager
def workdir(base: str | None = None) -> Iterator[Path]:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gamehost-failover-", dir=base) as path:
        yield Path(path)
