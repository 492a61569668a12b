"""Submitting an action: SubmitAction's checks (token, seat, version, request id,
the action or its notation) and its one compare-and-set commit through ``turns.steps``,
retried on a lost race. ``GameHost`` makes one and hands it the store, the watch hub,
its loader and read check, the positions it keeps and its bot kick."""

from __future__ import annotations

import time
from dataclasses import dataclass

from games import (
    NotationError,
    State,
)
from services import metrics
from services.errors import (
    Aborted,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ServiceError,
)
from services.kinds import GameStatus
from services.limits.access import hash_token
from services.play.hooks import KickBots, Loader, Viewer
from services.play.positions import RecentPositions
from services.stores import (
    CommitOutcome,
    CommitResult,
    GameLog,
    Snapshot,
)
from services.turns import steps
from services.watch.hub import WatchHub

_MAX_REQUEST_ID = 128


@dataclass(frozen=True)
class Submitted:
    version: int
    action: int
    notation: str
    duplicate: bool


@dataclass(frozen=True)
class _Attempt:
    """What a SubmitAction asks for."""

    token: str
    expected_version: int | None
    action: int | None
    notation: str | None
    request_key: str | None
    seat: int | None


class _Stale(Exception):
    def __init__(self, version: int) -> None:
        self.version = version


class Submitting:
    """SubmitAction: ``submit_action`` and its steps."""

    def __init__(
        self,
        store: GameLog,
        hub: WatchHub,
        load: Loader,
        viewer: Viewer,
        positions: RecentPositions,
        kick_bots: KickBots,
    ) -> None:
        self.store = store
        self.hub = hub
        self.load = load
        self.viewer = viewer
        self.positions = positions
        self.kick_bots = kick_bots

    async def submit_action(
        self,
        game_id: str,
        token: str,
        *,
        expected_version: int | None,
        action: int | None = None,
        notation: str | None = None,
        request_id: str = "",
        seat: int | None = None,
    ) -> Submitted:
        if len(request_id) > _MAX_REQUEST_ID:
            raise InvalidArgument(f"longer than {_MAX_REQUEST_ID} characters", field="request_id")
        if action is None and notation is None:
            raise InvalidArgument("give the action as action_id or as notation", field="action_id")
        if expected_version is not None and expected_version < 0:
            raise InvalidArgument(
                f"must be 0 or more, not {expected_version}", field="expected_version"
            )
        if action is not None and action < 0:
            raise InvalidArgument(f"must be 0 or more, not {action}", field="action_id")
        started = time.perf_counter()
        # Keyed by the credential, so it is known before the game is loaded: one read.
        request_key = f"{hash_token(token)[:32]}:{request_id}" if token and request_id else None
        attempt = _Attempt(token, expected_version, action, notation, request_key, seat)
        recent = self.positions.take(game_id)
        if recent is not None and recent[0].version == expected_version:
            # Fast path: this replica wrote the version the client acts on, so skip the
            # read. The commit still compares versions; anything unexpected is redone
            # on a fresh read.
            try:
                return await self._try(attempt, *recent, started)
            except (ServiceError, _Stale):
                pass
        while True:
            snapshot = await self.load(game_id, request_key)
            try:
                return await self._try(attempt, snapshot, steps.load_state(snapshot), started)
            except _Stale as stale:
                if expected_version is not None:
                    raise Aborted(
                        f"stale version: the game moved from {expected_version} to "
                        f"{stale.version} while your action was applied; decide again",
                        field="expected_version",
                    ) from None
                # No version pinned: the caller asked for "now", so try on the new state.

    async def _try(
        self, attempt: _Attempt, snapshot: Snapshot, state: State, started: float
    ) -> Submitted:
        meta = snapshot.info
        seats = len(meta.seats)
        if attempt.seat is not None and not 0 <= attempt.seat < seats:
            raise InvalidArgument(
                f"seat {attempt.seat} does not exist: seats are 0-{seats - 1}", field="seat"
            )
        viewer = self.viewer(snapshot, attempt.token, required=True)
        if attempt.seat is not None and attempt.seat != viewer:
            raise PermissionDenied(
                f"your token is for seat {viewer}, not seat {attempt.seat}", field="seat"
            )
        if snapshot.request_result is not None:
            return Submitted(**snapshot.request_result, duplicate=True)
        expected = attempt.expected_version
        if expected is not None and expected != snapshot.version:
            raise Aborted(
                f"stale version: you sent {expected} but the game is at "
                f"{snapshot.version}; fetch the state and decide again",
                field="expected_version",
            )
        if snapshot.status == GameStatus.FINISHED:
            raise FailedPrecondition("the game is over")  # played out, or abandoned
        if meta.seats[viewer].is_bot:
            raise FailedPrecondition(
                f"seat {viewer} is away: a bot plays it until you call TakeBackSeat"
            )
        chosen = self._parse(state, viewer, attempt.action, attempt.notation)
        text = state.action_to_string(chosen)
        step = steps.play_on(snapshot, state, chosen)
        result = {"version": step.version, "action": chosen, "notation": text}
        # The watches here get the commit's event once it is answered and kept.
        with self.hub.commits.committing(snapshot.game_id):
            committed = await steps.commit_step(
                self.store, snapshot, step, attempt.request_key, result
            )
            if committed.outcome is CommitOutcome.APPLIED:
                self._remember(snapshot, step, committed)
        if committed.outcome is CommitOutcome.APPLIED:
            metrics.ACTIONS.labels(meta.game_type).inc()
            metrics.SUBMIT_SECONDS.observe(time.perf_counter() - started)
            self.kick_bots(snapshot, step.state)
            return Submitted(**result, duplicate=False)
        if committed.outcome is CommitOutcome.DUPLICATE:
            return Submitted(**committed.request_result, duplicate=True)
        if committed.outcome is CommitOutcome.NOT_FOUND:
            raise NotFound(f"no game {snapshot.game_id}")
        raise _Stale(committed.version)

    def _remember(self, snapshot: Snapshot, step: steps.Step, committed: CommitResult) -> None:
        """Keep what this replica just wrote, for the next submission's fast path."""
        written = steps.written_snapshot(snapshot, step, committed)
        if written is None:
            return  # a seat was handed over: its tokens changed too
        self.positions.keep(written, step.state)

    @staticmethod
    def _parse(state: State, seat: int, action: int | None, notation: str | None) -> int:
        # What the action is comes first: an id outside the game's action space, or text
        # that does not read as an action, is INVALID_ARGUMENT in every game, whatever
        # the position (whose turn it is, or the game being over, does not change that).
        my_turn = not state.is_terminal() and state.current_player() == seat
        try:
            if notation is not None:
                chosen = state.string_to_action(notation)
            else:
                assert action is not None
                chosen = action
                state.action_to_string(chosen)  # NotationError: not an id of this game
        except NotationError as exc:
            field = "notation" if notation is not None else "action_id"
            # The moves like it are worth naming only to the seat that may play them.
            hint = f"; {_legal_like(state, notation or '')}" if my_turn else ""
            raise InvalidArgument(f"{exc}{hint}", field=field) from None
        if state.is_terminal():
            raise FailedPrecondition("the game is over")
        to_move = state.current_player()
        if to_move != seat:
            raise FailedPrecondition(f"it is not your turn: seat {to_move} is to move")
        if not state.is_legal(chosen):
            text = state.action_to_string(chosen)
            why = state.illegal_reason(chosen)
            named = f"{text!r}" if notation is not None else f"{text!r} (id {chosen})"
            reason = f"{named} is not legal now" + (f": {why}" if why else "")
            raise FailedPrecondition(f"{reason}; {_legal_like(state, text, True)}")
        return chosen


def _legal_like(state: State, text: str, parsed: bool = False) -> str:
    """The legal moves of the kind ``text`` names first ("legal city moves now: city 12"),
    else the first legal moves: what to send instead."""
    legal = [state.action_to_string(a) for a in state.legal_actions()]
    verb = text.split()[0].lower() if text.split() else ""
    same = [n for n in legal if n.split()[0] == verb]
    if same:
        return f"legal {verb} moves now: {', '.join(same[:12])}{' …' if len(same) > 12 else ''}"
    kinds: dict[str, list[str]] = {}
    for n in legal:
        kinds.setdefault(n.split()[0], []).append(n)
    # A kind with many moves (Catan's offers) is one item, so the others show.
    shown = [m[0] if len(m) == 1 else f"{m[0]} … ({len(m)} {k} moves)" for k, m in kinds.items()]
    none = f"no {verb} move is legal now; " if parsed and verb else ""
    return f"{none}legal now: {', '.join(shown[:12])}"
