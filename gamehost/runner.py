"""``gamehost bot run``: connect a bot program to the ladder and speak the bot protocol
(docs/bot-protocol.md) with it, JSON lines on its stdin and stdout.

The runner holds one connection (PlayBot: the server's lines and the answers on one
call) and ``--concurrency`` copies of the program. A game is given to the copy holding
the fewest games when its ``start`` comes, and all its lines go to that copy, in
order. A copy answers one ``act`` at a time: the runner writes the line, waits for one
line back until the act's deadline (``ms_left``, less a margin for the way back; at
least ``MIN_WAIT_SECONDS``), and sends it as a reply on the connection; the server
judges it. No line in time is reported ``late``; a copy that dies (or closes its
stdout) is reported ``missing`` and started again, and told ``start`` again for every
game it held; a copy still silent ``HANG_SECONDS`` after a deadline is killed and
started again. Lines a copy writes unasked are dropped (with a warning on stderr).
The program's stderr is the runner's.

A broken connection is made again, as is one the server refused while busy or
limiting this bot's connects (``RETRIED``), waiting longer each time up to 10 s (the
server sends ``start`` again for the games in progress, which the runner does not pass
on twice); a paused or revoked bot, a bad key, or a newer runner for the same bot ends
the run (exit status 1)."""

from __future__ import annotations

import argparse
import contextlib
import json
import queue
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

import grpc

from gamehost.bot_link import BotLink
from gamehost.client import Client, GameError
from gamehost.v1 import gamehost_pb2 as pb

MARGIN_SECONDS = 0.25  # an answer is due this long before the server's deadline
MIN_WAIT_SECONDS = 0.1  # the least time given to answer, however late the act came
HANG_SECONDS = 10.0  # a copy silent this long past a deadline is started again
MAX_LINE = 1024  # what the server reads of an answer
RECONNECT_SECONDS = (0.5, 10.0)  # first and longest wait before connecting again
# Worth connecting again: the server away, stopping, busy or limiting this bot's connects.
RETRIED = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.CANCELLED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.DEADLINE_EXCEEDED,
)


@dataclass
class Act:
    game_id: str
    version: int
    line: str
    due: float  # time.monotonic() by which the answer must be sent
    received: float
    written: float = 0.0  # when it was handed to the program (after others' acts)


@dataclass
class Line:
    """A start or end line for a copy."""

    game_id: str
    line: str
    end: bool = False


class Stats:
    """``--stats FILE``: one JSON line per move, game start and game end (benchmarks)."""

    def __init__(self, path: str | None) -> None:
        self._file = open(path, "a", buffering=1) if path else None  # noqa: SIM115
        self._lock = threading.Lock()

    def write(self, **record: object) -> None:
        if self._file is not None:
            with self._lock:
                self._file.write(json.dumps({"t": time.time(), **record}) + "\n")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


@dataclass
class Copy:
    """One copy of the bot program: its process, its games and its inbox."""

    index: int
    argv: list[str]
    reply: object  # callable(game_id, version, line, error, round_trip_ms) -> BotReplyResponse
    stats: Stats
    games: dict[str, str] = field(default_factory=dict)  # game id -> its start line
    inbox: queue.Queue = field(default_factory=queue.Queue)
    process: subprocess.Popen | None = None
    lines: queue.Queue = field(default_factory=queue.Queue)
    warned: bool = False
    free_at: float = 0.0  # time.monotonic() when it finished its last line or act
    last_round_trip_ms: float = 0.0  # its last answer's, beyond the program's own time

    def launch(self) -> None:
        self.lines = queue.Queue()
        self.process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            errors="replace",  # bytes that are not UTF-8 make a garbage answer, not a hang
            bufsize=1,
        )
        threading.Thread(target=self._read, args=(self.process, self.lines), daemon=True).start()

    @staticmethod
    def _read(process: subprocess.Popen, lines: queue.Queue) -> None:
        assert process.stdout is not None
        try:
            for line in process.stdout:
                lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass  # its stdout broke: as if it ended
        finally:
            lines.put(None)  # end of output: the process died or closed it

    def _write(self, line: str) -> bool:
        process = self.process
        assert process is not None and process.stdin is not None
        try:
            process.stdin.write(line + "\n")
            process.stdin.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def restart(self, why: str) -> None:
        """Start the program again and tell it about every game it holds."""
        print(f"gamehost bot run: copy {self.index} {why}; starting it again", file=sys.stderr)
        self.kill()
        self.launch()
        for line in self.games.values():
            self._write(line)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)

    def work(self) -> None:
        """The copy's thread (launched first): its lines in order, one act at a time."""
        while True:
            item = self.inbox.get()
            if item is None:
                return
            if isinstance(item, Line):
                if not item.end:
                    self.games[item.game_id] = item.line
                if not self._write(item.line):
                    self.restart("exited")
                if item.end:
                    self.games.pop(item.game_id, None)
                    self.stats.write(event="end", game_id=item.game_id)
                else:
                    self.stats.write(event="start", game_id=item.game_id)
                self.free_at = time.monotonic()
                continue
            self._act(item)
            self.free_at = time.monotonic()

    def _drop_unasked(self) -> None:
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self.lines.put(None)  # keep the end for the read that follows
                return
            if not self.warned:
                self.warned = True
                print(
                    f"gamehost bot run: copy {self.index} wrote a line nobody asked for "
                    "(dropped; write logs to stderr): " + line[:80],
                    file=sys.stderr,
                )

    def _act(self, act: Act) -> None:
        # An act that came late (a busy server) or waited behind this copy's other acts
        # still goes to the program, with a moment to answer: the server's own clock
        # says whether the answer is in time, and a fallback it played is not counted.
        act.due = max(act.due, time.monotonic() + MIN_WAIT_SECONDS)
        self._drop_unasked()
        written = time.monotonic()
        act.written = written
        if not self._write(act.line):
            self._send(act, error="missing: the program had exited", bot_ms=0.0)
            self.restart("exited")
            return
        try:
            line = self.lines.get(timeout=max(0.0, act.due - time.monotonic()))
        except queue.Empty:
            self._send(act, error="late: no answer within ms_left", bot_ms=0.0)
            try:  # wait for the late answer, so it is not read as the next act's
                line = self.lines.get(timeout=HANG_SECONDS)
            except queue.Empty:
                self.restart(f"hung (no answer {HANG_SECONDS:g} s past a deadline)")
                return
            if line is None:
                self.restart("exited")
            return
        bot_ms = (time.monotonic() - written) * 1000
        if line is None:
            code = self.process.poll() if self.process is not None else None
            self._send(act, error=f"missing: the program exited (status {code})", bot_ms=bot_ms)
            self.restart("exited")
            return
        self._send(act, line=line[: MAX_LINE + 1], bot_ms=bot_ms)

    def _send(self, act: Act, line: str = "", error: str = "", bot_ms: float = 0.0) -> None:
        sent = time.monotonic()
        try:
            answer = self.reply(act.game_id, act.version, line, error, self.last_round_trip_ms)
        except GameError as exc:
            print(f"gamehost bot run: answer to {act.game_id} not taken: {exc}", file=sys.stderr)
            return
        done = time.monotonic()
        outcome = pb.BotReplyResponse.Outcome.Name(answer.outcome).lower()
        rtt_ms = (done - act.received) * 1000  # the act's arrival to the answer played
        # the time it waited while this copy was busy with its other lines and acts
        queued_ms = max(0.0, min(act.written, self.free_at) - act.received) * 1000
        # Sent with the next answer: the ladder opens fewer games while it is slow.
        self.last_round_trip_ms = max(0.0, rtt_ms - bot_ms - queued_ms)
        self.stats.write(
            event="move",
            game_id=act.game_id,
            outcome=outcome,
            fault=answer.fault,
            rtt_ms=rtt_ms,
            bot_ms=bot_ms,  # the program's own time
            queued_ms=queued_ms,
            reply_ms=(done - sent) * 1000,  # the BotReply call: the server's answer
        )
        if answer.outcome == pb.BotReplyResponse.FALLBACK:
            print(f"gamehost bot run: {act.game_id}: {answer.message}", file=sys.stderr)


class Runner:
    def __init__(self, client: Client, args: argparse.Namespace) -> None:
        self.client = client
        self.key = args.key
        self.stats = Stats(args.stats)
        argv = shlex.split(args.cmd)
        if not argv:
            raise ValueError("--cmd is empty")

        def reply(game_id: str, version: int, line: str, error: str, round_trip_ms: float):
            link = self.link
            if link is None:
                raise GameError(grpc.StatusCode.UNAVAILABLE, "not connected to the server")
            return link.reply(game_id, version, line, error, round_trip_ms)

        self.copies = [Copy(i, argv, reply, self.stats) for i in range(args.concurrency)]
        self.owner: dict[str, Copy] = {}  # game id -> the copy holding it
        self.welcomed = False  # the last connection got as far as the server's welcome
        self.link: BotLink | None = None  # the PlayBot call the answers go on

    def run(self) -> int:
        for copy in self.copies:
            try:
                copy.launch()
            except OSError as exc:
                print(f"gamehost: cannot start --cmd: {exc}", file=sys.stderr)
                return 2
            threading.Thread(target=copy.work, daemon=True).start()
        wait = RECONNECT_SECONDS[0]
        try:
            while True:
                self.welcomed = False
                try:
                    status = self._connection()
                except GameError as exc:
                    if exc.code not in RETRIED:
                        print(f"gamehost: {exc}", file=sys.stderr)
                        return 1
                    if self.welcomed:  # it was connected: a new break, not the same one
                        wait = RECONNECT_SECONDS[0]
                    print(
                        f"gamehost bot run: connection lost ({exc}); again in {wait:g} s",
                        file=sys.stderr,
                    )
                    time.sleep(wait)
                    wait = min(RECONNECT_SECONDS[1], wait * 2)
                    continue
                if status is not None:
                    return status
                time.sleep(RECONNECT_SECONDS[0])  # the server ended the stream (stopping)
                wait = RECONNECT_SECONDS[0]
        finally:
            for copy in self.copies:
                copy.inbox.put(None)
                copy.kill()
            self.stats.close()

    def _connection(self) -> int | None:
        """One connection: route its lines until it ends; the exit status, or None to
        connect again. The answers go back on the same call (PlayBot)."""
        link = self.link = self.client.play_bot(self.key, len(self.copies))
        try:
            return self._route(link)
        finally:
            self.link = None
            link.close()

    def _route(self, link: BotLink) -> int | None:
        for directive in link.directives():
            kind = directive.kind
            if kind == pb.BotDirective.WELCOME:
                self.welcomed = True
                print(f"gamehost bot run: {directive.message}", flush=True)
            elif kind == pb.BotDirective.PAUSED:
                print(
                    f"gamehost bot run: the ladder let the bot go: {directive.message}",
                    file=sys.stderr,
                )
                return 1
            elif kind == pb.BotDirective.START:
                if directive.game_id not in self.owner:  # sent again after a reconnect: known
                    copy = min(self.copies, key=lambda c: sum(o is c for o in self.owner.values()))
                    self.owner[directive.game_id] = copy
                    copy.inbox.put(Line(directive.game_id, directive.line))
            elif kind == pb.BotDirective.ACT:
                copy = self.owner.get(directive.game_id)
                if copy is not None:
                    now = time.monotonic()
                    due = now + max(0.0, directive.ms_left / 1000 - MARGIN_SECONDS)
                    copy.inbox.put(
                        Act(directive.game_id, directive.version, directive.line, due, now)
                    )
            elif kind == pb.BotDirective.END:
                copy = self.owner.pop(directive.game_id, None)
                if copy is not None:
                    copy.inbox.put(Line(directive.game_id, directive.line, end=True))
        return None  # the server ended the stream (it stops): connect again


def run(client: Client, args: argparse.Namespace) -> int:
    try:
        runner = Runner(client, args)
    except ValueError as exc:
        print(f"gamehost: {exc}", file=sys.stderr)
        return 2
    return runner.run()
