"""``gamehost play``: one seat of a game in the terminal, the other seats bots.

The loop, in order: print the events up to the state about to be shown (so the dice
and the bots' moves come before the prompt they lead to), then any announcements,
then the screen and the moves, then the prompt. An error is printed under the
prompt and the prompt comes again: the screen is not redrawn, so the error stays.
While bots search a "thinking…" line counts the seconds.

Reads the API in two helpers only: ``seat_to_move`` (gamehost.render) for who is to
move and ``_event_actor`` here for an event's seat; event ids are not used (the
watch starts at the beginning of the game).
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

import grpc

from gamehost.choose import choose
from gamehost.client import Client, GameError, Seat, seat_of
from gamehost.render import folds, help_text, notices, render, seat_to_move
from gamehost.render.menu import group, menu, split_folds
from gamehost.render.text import wrap
from gamehost.v1 import gamehost_pb2 as pb

THINKING_AFTER = 0.5  # seconds of waiting before the "thinking…" line appears
_RESTATUS_EVERY = 1.0  # seconds between reads of a waiting bot's status
_CATCH_UP_LIMIT = 10.0  # at most this long waiting for the events of a state already read
_COMMANDS = """\
At the prompt: a move in notation (see above), or
  hint [LEVEL]  the search's move for you (mcts-fast unless LEVEL) and its top moves
  help     this text          board    the screen again     moves    every legal move
  away [LEVEL]  a bot (random unless LEVEL) plays your seat until you type back
  quit     leave (the game stays on the server)"""
AWAY_PROMPT = "away: a bot plays your seat (back, or quit): "


@dataclass(frozen=True)
class PlaySettings:
    game: str
    players: int
    seat: int = 0
    bots: str = "random"
    seed: int | None = None
    private: bool = False
    spectators: bool = True

    def problem(self) -> str | None:
        """Why these settings cannot start a game, or None."""
        if not 0 <= self.seat < self.players:
            return f"--seat must be 0..{self.players - 1}"
        return None


def _event_actor(event: pb.GameEvent) -> int | None:
    """The seat an event's action is by, None for chance (the one reader of ``seat``)."""
    return seat_of(event.actor)


class _EventFeed:
    """The game's events, received on a thread; only the main thread prints."""

    _END = object()

    def __init__(self, client: Client, me: Seat) -> None:
        self._events: queue.Queue = queue.Queue()
        self._held: pb.GameEvent | None = None  # read ahead of the state being shown
        self.ended = False

        def pump() -> None:
            try:
                for event in client.watch(me.game_id, me.token):
                    self._events.put(event)
            except GameError as exc:
                self._events.put(exc)
            self._events.put(self._END)

        threading.Thread(target=pump, daemon=True, name="gamehost-watch").start()

    def next(self, timeout: float) -> pb.GameEvent | None:
        """The next event, or None if none came within ``timeout`` (or the stream ended)."""
        if self._held is not None:
            event, self._held = self._held, None
            return event
        if self.ended:
            time.sleep(timeout)  # no stream left: the caller polls the state instead
            return None
        try:
            item = self._events.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is self._END or isinstance(item, GameError):
            self.ended = True
            return None
        return item

    def hold(self, event: pb.GameEvent) -> None:
        self._held = event


class _Screen:
    """Output: whole lines, and one status line that the next output replaces."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._status = 0
        self._status_text = ""
        self.live = out.isatty()

    def line(self, text: str = "") -> None:
        self.clear_status()
        self.out.write(text + "\n")
        self.out.flush()

    def status(self, text: str) -> None:
        if not self.live or text == self._status_text:
            return
        self.clear_status()
        self._status_text = text
        self.out.write(text)
        self.out.flush()
        self._status = len(text)

    def clear_status(self) -> None:
        if self._status:
            self.out.write("\r" + " " * self._status + "\r")
            self._status = 0
            self._status_text = ""


class _Game:
    def __init__(
        self, client: Client, me: Seat, game: str, screen: _Screen, read: Callable[[str], str]
    ) -> None:
        self.client = client
        self.me = me
        self.game = game
        self.screen = screen
        self.read = read
        self.feed = _EventFeed(client, me)
        self.shown_version = 0
        self.previous: pb.GameState | None = None
        self.away = False

    # ---------------------------------------------------------------- events
    def _show_event(self, event: pb.GameEvent, waited: float = 0.0) -> None:
        self.shown_version = max(self.shown_version, event.version)
        if event.kind == pb.GAME_FINISHED:
            self.screen.line("  game over")
        if event.kind == pb.SEAT_CHANGED:
            change = event.seat_change
            self.screen.line(f"  [seat {change.seat}] {_seat_change(change, self.me.seat)}")
        if event.kind != pb.ACTION:
            return
        seat = _event_actor(event)
        who = "chance" if seat is None else "you" if seat == self.me.seat else f"seat {seat}"
        if event.timeout:
            who += ", out of time"
        note = f"   (thought {waited:.1f} s)" if waited >= THINKING_AFTER else ""
        self.screen.line(f"  [{who}] {event.notation}{note}")

    def catch_up(self, version: int) -> None:
        """Print every event up to ``version`` (the state about to be shown), no further."""
        deadline = time.monotonic() + _CATCH_UP_LIMIT
        while self.shown_version < version and time.monotonic() < deadline:
            event = self.feed.next(timeout=0.2)
            if event is None:
                if self.feed.ended:
                    return
                continue
            if event.version > version:
                self.feed.hold(event)  # it belongs after this screen
                return
            self._show_event(event)

    def wait_for_others(self, state: pb.GameState) -> None:
        """Until the next event: show who is thinking, and for how long.

        A bot's turn that waits for a search worker is read again every
        ``_RESTATUS_EVERY`` seconds, so the line turns to "thinking…" once a worker
        takes it (no event marks that moment)."""
        start = last_read = time.monotonic()
        seat = seat_to_move(state)
        while True:
            event = self.feed.next(timeout=0.25)
            now = time.monotonic()
            waited = now - start
            if event is not None:
                self._show_event(event, waited)
                return
            if self.feed.ended:
                return  # the loop reads the state again
            if (
                state.bot_status == pb.BOT_WAITING_FOR_CAPACITY
                and now - last_read >= _RESTATUS_EVERY
            ):
                last_read = now
                state = self._status_of(state)
            if waited >= THINKING_AFTER:
                self.screen.status(f"  {self._waiting_for(state, seat)} {waited:.0f} s")

    def _status_of(self, state: pb.GameState) -> pb.GameState:
        """The state read again for its bot status; the old one while the move it
        waits for is not yet made (a later one belongs to the events still to come)."""
        try:
            fresh = self.client.state(self.me.game_id, self.me.token)
        except GameError:
            return state
        return fresh if fresh.version == state.version else state

    def _waiting_for(self, state: pb.GameState, seat: int | None) -> str:
        if seat is None:
            return "resolving chance…"
        if state.bot_status == pb.BOT_WAITING_FOR_CAPACITY:
            return f"seat {seat} (bot) waits for a free search worker…"
        if state.bot_status == pb.BOT_THINKING:
            return f"seat {seat} (bot) thinking…"
        return f"waiting for seat {seat}…"

    # ---------------------------------------------------------------- the loop
    def run(self) -> int:
        while True:
            state = self.client.state(self.me.game_id, self.me.token)
            self.catch_up(state.version)
            for line in notices(self.previous, state):
                self.screen.line(line)
            self.previous = state
            if state.status == pb.FINISHED:
                self.screen.line(render(state))
                self.screen.line(_outcome(state, self.me.seat))
                return 0
            if self.away:
                if not self._away_prompt():
                    return 0
                continue
            if not state.legal_actions:
                self.wait_for_others(state)
                continue
            self._show(state)
            if not self._prompt(state):
                return 0

    def _show(self, state: pb.GameState) -> None:
        self.screen.line(render(state))
        notations = [a.notation for a in state.legal_actions]
        for line in menu(notations, folds(self.game)):
            self.screen.line(line)

    def _hint(self, state: pb.GameState, level: str) -> None:
        """Print the search's suggestion for this position and its most visited moves."""
        try:
            hint = self.client.hint(self.me.game_id, self.me.token, level, version=state.version)
        except GameError as exc:
            self.screen.line(f"  no hint: {exc.details}")
            return
        for line in hint_lines(hint):
            self.screen.line(line)

    def _prompt(self, state: pb.GameState) -> bool:
        """Ask until a move is played (True) or the player quits (False)."""
        legal = list(state.legal_actions)
        shown, folded = split_folds([a.notation for a in legal], folds(self.game))
        while True:
            text = self.read("your move (notation, or help): ").strip()
            command = text.lower()
            if command in ("help", "?"):
                self.screen.line(help_text(self.game))
                self.screen.line(_COMMANDS)
                continue
            if command == "hint" or command.startswith("hint "):
                self._hint(state, text[4:].strip())
                continue
            if command == "board":
                self._show(state)
                continue
            if command == "moves":
                for line in wrap(
                    "all moves: ", group([*shown, *sum(folded.values(), [])]), "  ·  "
                ):
                    self.screen.line(line)
                continue
            if command in folded:
                for line in wrap(f"{command}: ", group(folded[command]), "  ·  "):
                    self.screen.line(line)
                continue
            if command in ("quit", "exit"):
                self.screen.line(f"left game {self.me.game_id}")
                return False
            if command == "away" or command.startswith("away "):
                if self._go_away(text[len("away") :].strip()):
                    return True
                continue
            choice = choose(text, legal)
            if choice.message:
                self.screen.line(f"  {choice.message}")
                continue
            action = choice.action.id if choice.action else choice.notation
            try:
                self.client.submit(
                    self.me.game_id, self.me.token, action, expected_version=state.version
                )
            except GameError as exc:
                self.screen.line(f"  not played: {exc.details}")
                if exc.code == grpc.StatusCode.ABORTED:
                    return True  # the game moved on: show it again
                continue
            return True

    # ---------------------------------------------------------------- away mode
    def _go_away(self, level: str) -> bool:
        """Hand the seat to a bot of ``level`` (random when empty); True if done."""
        try:
            reply = self.client.hand_over(self.me.game_id, self.me.token, level or "random")
        except GameError as exc:
            self.screen.line(f"  not away: {exc.details}")
            return False
        self.away = True
        self.screen.line(f"  you are away: {reply.now.bot_level} plays seat {self.me.seat}")
        return True

    def _away_prompt(self) -> bool:
        """While away: wait for ``back`` (True: playing again) or ``quit`` (False; the
        bot plays on). The bot's moves are shown when the player comes back."""
        while True:
            command = self.read(AWAY_PROMPT).strip().lower()
            if command in ("quit", "exit"):
                self.screen.line(f"left game {self.me.game_id} (the bot plays your seat)")
                return False
            if command != "back":
                self.screen.line("  you are away: type back to play again, or quit")
                continue
            try:
                self.client.take_back(self.me.game_id, self.me.token)
            except GameError as exc:
                self.screen.line(f"  not back: {exc.details}")
                if exc.code != grpc.StatusCode.FAILED_PRECONDITION:
                    continue
            else:
                self.screen.line("  you are back")
            self.away = False
            return True


def _seat_change(change: pb.SeatChange, mine: int) -> str:
    """One line for a seat change: why, and who plays the seat now."""
    now = change.now
    reason = pb.SeatChange.Reason.Name(change.reason).lower().replace("_", " ")
    if now.kind == pb.BOT:
        return f"{reason}: bot {now.bot_level} plays it"
    if change.seat == mine:
        return f"{reason}: you play it"
    return f"{reason}: {now.name or 'a person'} plays it"


def _outcome(state: pb.GameState, seat: int) -> str:
    result = state.returns[seat] if seat < len(state.returns) else 0.0
    if result == 1:
        return "you win!"
    return "shared win" if result > 0 else "you lose"


def play(
    client: Client,
    settings: PlaySettings,
    *,
    read: Callable[[str], str] = input,
    out: TextIO | None = None,
) -> int:
    """Create the game, take our seat and play it to the end; the exit status."""
    screen = _Screen(out or sys.stdout)
    seats = [f"bot:{settings.bots}"] * settings.players
    seats[settings.seat] = "human:you"
    created = client.create_game(
        settings.game,
        seats,
        seed=settings.seed,
        private=settings.private,
        spectators=None if settings.spectators else False,
    )
    codes = {c.seat: c.code for c in created.invite_codes}
    me = client.join(created.game_id, settings.seat, invite_code=codes.get(settings.seat, ""))
    screen.line(
        f"game {created.game_id}: you are seat {me.seat} of {settings.players} "
        f"({settings.game}, bots: {settings.bots}); type help for the notation"
    )
    return _Game(client, me, settings.game, screen, read).run()


def play_quick(
    client: Client,
    game: str,
    players: int | None = None,
    *,
    read: Callable[[str], str] = input,
    out: TextIO | None = None,
) -> int:
    """Quick play (the client's account key): wait for a match, then play its seat to
    the end; the exit status. ``players``: None for the game's least."""
    screen = _Screen(out or sys.stdout)
    if players is None:
        types = {t.name: t for t in client.game_types().game_types}
        players = types[game].min_players if game in types else 2
    screen.line(f"looking for a {game} game of {players} (quick play; Ctrl-C leaves the queue)")
    matched = client.matchmake(game, players)
    me = Seat(matched.game_id, matched.seat, matched.token)
    filled = f", {matched.bots} seats filled by house levels" if matched.bots else ""
    screen.line(
        f"game {matched.game_id}: you are seat {me.seat} of {players} ({game}, rated{filled}); "
        "type help for the notation"
    )
    return _Game(client, me, game, screen, read).run()


def hint_lines(hint: pb.HintResponse) -> list[str]:
    """A hint as the terminal shows it: the suggestion, then one line per top move."""
    searched = f", {hint.trees} trees, {hint.iterations} iterations" if hint.iterations else ""
    lines = [f"  hint ({hint.bot_level}{searched}): {hint.notation}"]
    width = max((len(a.notation) for a in hint.top_actions), default=0)
    for action in hint.top_actions:
        lines.append(
            f"    {action.notation:<{width}}  {action.visits:>6} visits  "
            f"win share {action.win_share:.0%}"
        )
    return lines
