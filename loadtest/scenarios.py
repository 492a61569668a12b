"""The load test's users, one class per scenario (docs/loadtest/README.md):

- ``EchoUser``: the baseline, a closed loop of calls to the bare echo server;
- ``SubmitterUser``: a closed loop of SubmitAction, playing both seats of 2-player
  Cité games from scripts computed from each game's seed (as benchmarks/service_bench.py
  does), so that every timed call is a SubmitAction;
- ``PlayerUser``: one person against bots: creates a game, joins it, and plays it to
  the end through GetState, SubmitAction and WatchGame with think time, then again;
- ``SpectatorUser``: WatchGame streams on live games of the other users;
- ``BotHeavyUser``: all-bot games at ``mcts-fast``, whose turns go to the Celery worker;
- ``TournamentUser``: a running bot tournament, watched to its end, then another.
"""

from __future__ import annotations

import itertools
import random
import uuid
from typing import ClassVar

import gevent
import grpc
from locust import between, constant, task

from gamehost.v1 import gamehost_pb2 as pb
from loadtest.driver import script
from loadtest.echo import FULL_METHOD
from loadtest.grpc_user import GrpcUser
from services.limits import access

_HUMAN = pb.SeatSpec(kind=pb.HUMAN)
_seeds = itertools.count(1)


def _bots(level: str, n: int) -> list[pb.SeatSpec]:
    return [pb.SeatSpec(kind=pb.BOT, bot_level=level) for _ in range(n)]


class LiveGames:
    """Games in progress that this harness's users hold, for spectators to pick from
    and for the report's "live games held at once"."""

    ids: ClassVar[set[str]] = set()
    peak: ClassVar[int] = 0
    finished: ClassVar[int] = 0  # games a player played to the end

    @classmethod
    def opened(cls, game_id: str) -> None:
        cls.ids.add(game_id)
        cls.peak = max(cls.peak, len(cls.ids))

    @classmethod
    def closed(cls, game_id: str) -> None:
        cls.ids.discard(game_id)

    @classmethod
    def reset(cls) -> None:
        cls.ids.clear()
        cls.peak = 0
        cls.finished = 0


def _watch_to_end(stream) -> None:
    try:
        for event in stream:
            if event.kind == pb.GAME_FINISHED:
                return
    finally:
        stream.cancel()


class EchoUser(GrpcUser):
    abstract = True
    wait_time = constant(0)
    payload = b"x" * 600  # about a Cité state blob

    def on_start(self) -> None:
        self.echo = self.channel.unary_unary(FULL_METHOD)

    @task
    def echo_once(self) -> None:
        self.echo(self.payload)


class SubmitterUser(GrpcUser):
    abstract = True
    wait_time = constant(0)
    secret: ClassVar[bytes] = b""  # the deployment's seed secret (scripts need the dealt seed)

    def on_start(self) -> None:
        self.moves: list[tuple[int, int, int]] = []

    def _new_game(self) -> None:
        seed = next(_seeds)
        game = self.stub.CreateGame(
            pb.CreateGameRequest(game_type="cite", seats=[_HUMAN, _HUMAN], seed=seed)
        )
        self.game_id = game.game_id
        self.tokens = [
            self.stub.JoinGame(pb.JoinGameRequest(game_id=self.game_id, seat=s)).token
            for s in (0, 1)
        ]
        self.moves = script(access.mix_seed(self.secret, seed, self.game_id))

    @task
    def submit(self) -> None:
        if not self.moves:
            self._new_game()
        seat, action, version = self.moves.pop(0)
        request = pb.SubmitActionRequest(
            game_id=self.game_id,
            token=self.tokens[seat],
            action_id=action,
            expected_version=version,
            request_id=uuid.uuid4().hex,
        )
        try:
            self.stub.SubmitAction(request)
        except grpc.RpcError:
            self.moves = []  # reported by the interceptor; start a fresh game


class PlayerUser(GrpcUser):
    abstract = True
    wait_time = between(1, 3)  # between games
    think: ClassVar[tuple[float, float]] = (0.5, 2.0)  # seconds before each move (--think)
    bot_level: ClassVar[str] = "random"

    @task
    def play_game(self) -> None:
        seats = [_HUMAN, *_bots(self.bot_level, 2)]
        game_id = self.stub.CreateGame(pb.CreateGameRequest(game_type="cite", seats=seats)).game_id
        token = self.stub.JoinGame(pb.JoinGameRequest(game_id=game_id, seat=0)).token
        LiveGames.opened(game_id)
        stream = self.stub.WatchGame(pb.WatchGameRequest(game_id=game_id, token=token))
        try:
            for event in stream:
                if event.kind == pb.GAME_FINISHED:
                    LiveGames.finished += 1
                    return
                mine = event.to_move.kind == pb.Actor.SEAT and event.to_move.seat == 0
                if mine and event.legal_actions:  # the newest event leaves seat 0 to move
                    self._move(game_id, token)
        finally:
            stream.cancel()
            LiveGames.closed(game_id)

    def _move(self, game_id: str, token: str) -> None:
        """Look at the board (GetState), think, act; a move that lost a race is dropped
        (the stream brings the position that won)."""
        state = self.stub.GetState(pb.GetStateRequest(game_id=game_id, token=token))
        if not state.legal_actions:
            return
        gevent.sleep(random.uniform(*self.think))
        choice = random.choice(state.legal_actions)
        request = pb.SubmitActionRequest(
            game_id=game_id,
            token=token,
            action_id=choice.id,
            expected_version=state.version,
            request_id=uuid.uuid4().hex,
        )
        try:
            self.stub.SubmitAction(request)
        except grpc.RpcError as exc:
            if exc.code() not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                raise


class SpectatorUser(GrpcUser):
    abstract = True
    wait_time = constant(0.5)

    @task
    def watch(self) -> None:
        if not LiveGames.ids:
            return
        game_id = random.choice(sorted(LiveGames.ids))
        _watch_to_end(self.stub.WatchGame(pb.WatchGameRequest(game_id=game_id)))


class BotHeavyUser(GrpcUser):
    abstract = True
    wait_time = constant(0)
    level: ClassVar[str] = "mcts-fast"

    @task
    def bot_game(self) -> None:
        request = pb.CreateGameRequest(game_type="cite", seats=_bots(self.level, 2))
        game_id = self.stub.CreateGame(request).game_id
        LiveGames.opened(game_id)
        try:
            _watch_to_end(self.stub.WatchGame(pb.WatchGameRequest(game_id=game_id)))
        finally:
            LiveGames.closed(game_id)


class TournamentUser(GrpcUser):
    abstract = True
    wait_time = constant(1)
    entrants: ClassVar[list[tuple[str, str]]] = [("random", "random"), ("greedy", "greedy")]

    @task
    def tournament(self) -> None:
        definition = pb.TournamentDefinition(
            name=f"loadtest-{uuid.uuid4().hex[:12]}",
            game_type="cite",
            players=2,
            entrants=[pb.TournamentEntrant(name=n, level=lv) for n, lv in self.entrants],
            format="round-robin",
            games=4,
            seed=next(_seeds),
            parallel=2,
        )
        self.stub.CreateTournament(pb.CreateTournamentRequest(definition=definition))
        stream = self.stub.WatchTournament(pb.WatchTournamentRequest(name=definition.name))
        try:
            for _ in stream:
                pass  # the stream ends after the tournament's end
        finally:
            stream.cancel()
