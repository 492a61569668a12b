"""``gamehost bot run``: connect a bot program to the ladder and speak the bot protocol
(docs/bot-protocol.md) with it, JSON lines on its stdin and stdout.

The runner holds one connection (ConnectBot: the server's lines for the bot's games)
and ``--concurrency`` copies of the program; each answer goes back as a BotReply call
(gamehost/bot_link.py). A game is given to the copy holding
the fewest games when its ``start`` comes, and all its lines go to that copy, in
order. A copy answers one ``act`` at a time: the runner writes the line, waits for one
line back until the act's deadline (``ms_left``, less a margin for the way back; at
least ``MIN_WAIT_SECONDS``), and sends it with BotReply (again, until that
deadline, while the server refuses it for a reason that is not the bot's: busy, store
away, the per-client rate limit); the server judges it. No line in time is reported ``late``; a copy that dies (or closes its
stdout) is reported ``missing`` and started again, and told ``start`` again for every
game it held; a copy still silent ``HANG_SECONDS`` after a deadline is killed and
started again. Lines a copy writes unasked are dropped (with a warning on stderr).
The program's stderr is the runner's. All of it runs on one event loop: the calls on
grpc.aio, the copies' pipes on asyncio, each copy a task.

A broken connection is made again, as is one the server refused while busy or
limiting this bot's connects (``RETRIED``), waiting longer each time up to 10 s (the
server sends ``start`` again for the games in progress, which the runner does not pass
on twice); a paused or revoked bot, a bad key, or a newer runner for the same bot ends
the run (exit status 1)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shlex
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import grpc

from gamehost import retry
from gamehost.bot_link import BotLink
from gamehost.client import Client
from gamehost.errors import GameError
from gamehost.v1 import gamehost_pb2 as pb

MARGIN_SECONDS = 0.25  # an answer is due this long before the server's deadline
MIN_WAIT_SECONDS = 0.1  # the least time given to answer, however late the act came
HANG_SECONDS = 10.0  # a copy silent this long past a deadline is started again
KILL_WAIT_SECONDS = 5.0  # how long a killed copy is waited for
MAX_LINE = 1024  # what the server reads of an answer
# What the runner keeps of a line while reading it: the rest of an overlong line is
# dropped as it comes (a line of MAX_LINE characters is at most 4 bytes a character).
MAX_LINE_BYTES = 4 * (MAX_LINE + 1)
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

    def write(self, **record: object) -> None:
        if self._file is not None:
            self._file.write(json.dumps({"t": time.time(), **record}) + "\n")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


class _Output(asyncio.Protocol):
    """A copy's stdout as the event loop reads it: cut into lines (None at its end),
    bytes that are not UTF-8 replaced (a garbage answer, not a hang)."""

    def __init__(self, lines: asyncio.Queue[str | None]) -> None:
        self.lines = lines
        self._partial = bytearray()

    def data_received(self, data: bytes) -> None:
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            self._keep(data[start:end])
            self._line()
            start = end + 1
        self._keep(data[start:])

    def _keep(self, piece: bytes) -> None:
        room = MAX_LINE_BYTES - len(self._partial)
        if room > 0:
            self._partial += piece[:room]

    def _line(self) -> None:
        line = self._partial.decode("utf-8", errors="replace").rstrip("\r")
        self._partial.clear()
        self.lines.put_nowait(line[: MAX_LINE + 1])

    def connection_lost(self, exc: Exception | None) -> None:
        if self._partial:
            self._line()
        self.lines.put_nowait(None)  # end of output: the process died or closed it


async def _exit_status(process: subprocess.Popen[bytes], seconds: float) -> int | None:
    """The program's exit status, waiting at most ``seconds`` (off the event loop) for
    it to end; None if it has not."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        return await asyncio.to_thread(process.wait, seconds)
    return None


@dataclass
class Copy:
    """One copy of the bot program: its process, its games and its inbox."""

    index: int
    argv: list[str]
    # (game id, version, line, error, due) -> the server's answer
    reply: Callable[[str, int, str, str, float], Awaitable[pb.BotReplyResponse]]
    stats: Stats
    games: dict[str, str] = field(default_factory=dict)  # game id -> its start line
    inbox: asyncio.Queue[Act | Line | None] = field(default_factory=asyncio.Queue)
    process: subprocess.Popen[bytes] | None = None
    stdin: asyncio.WriteTransport | None = None
    stdout: asyncio.ReadTransport | None = None
    lines: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    warned: bool = False
    free_at: float = 0.0  # time.monotonic() when it finished its last line or act

    async def launch(self) -> None:
        """Start the program (OSError when it cannot be). Started by subprocess, whose
        vfork runs no fork handlers: a plain fork (uvloop's own subprocesses) runs
        gRPC's, and a child forked while gRPC's threads were busy could crash before
        it ran the program (seen: SIGSEGV, about one start in a hundred under load)."""
        lines: asyncio.Queue[str | None] = asyncio.Queue()
        self.lines = lines
        process = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert process.stdin is not None and process.stdout is not None
        loop = asyncio.get_running_loop()
        self.process = process
        self.stdout, _ = await loop.connect_read_pipe(lambda: _Output(lines), process.stdout)
        self.stdin, _ = await loop.connect_write_pipe(asyncio.Protocol, process.stdin)

    def _write(self, line: str) -> bool:
        if self.process is None or self.process.poll() is not None:
            return False
        if self.stdin is None or self.stdin.is_closing():
            return False
        try:
            self.stdin.write(line.encode() + b"\n")
            return True
        except (BrokenPipeError, OSError, RuntimeError):
            return False

    async def restart(self, why: str) -> None:
        """Start the program again and tell it about every game it holds."""
        print(f"gamehost bot run: copy {self.index} {why}; starting it again", file=sys.stderr)
        await self.kill()
        try:
            await self.launch()
        except OSError as exc:  # tried again at its next act
            print(f"gamehost bot run: copy {self.index} cannot start: {exc}", file=sys.stderr)
            return
        for line in self.games.values():
            self._write(line)

    async def kill(self) -> None:
        process, stdin, stdout = self.process, self.stdin, self.stdout
        self.process = self.stdin = self.stdout = None
        for pipe in (stdin, stdout):
            if pipe is not None:
                pipe.close()
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await _exit_status(process, KILL_WAIT_SECONDS)

    async def work(self) -> None:
        """The copy's task: its lines in order, one act at a time."""
        while True:
            item = await self.inbox.get()
            if item is None:
                return
            if isinstance(item, Line):
                if not item.end:
                    self.games[item.game_id] = item.line
                if not self._write(item.line):
                    await self.restart("exited")
                if item.end:
                    self.games.pop(item.game_id, None)
                    self.stats.write(event="end", game_id=item.game_id)
                else:
                    self.stats.write(event="start", game_id=item.game_id)
                self.free_at = time.monotonic()
                continue
            try:
                await self._act(item)
            except Exception as exc:  # this act's trouble only: the server's clock plays it
                print(f"gamehost bot run: copy {self.index}: {exc!r}", file=sys.stderr)
            self.free_at = time.monotonic()

    def _drop_unasked(self) -> None:
        while not self.lines.empty():
            line = self.lines.get_nowait()
            if line is None:
                self.lines.put_nowait(None)  # keep the end for the read that follows
                return
            if not self.warned:
                self.warned = True
                print(
                    f"gamehost bot run: copy {self.index} wrote a line nobody asked for "
                    "(dropped; write logs to stderr): " + line[:80],
                    file=sys.stderr,
                )

    async def _line(self, seconds: float) -> str | None:
        """The program's next line within ``seconds`` (TimeoutError), None at its end."""
        async with asyncio.timeout(max(0.0, seconds)):
            return await self.lines.get()

    async def _act(self, act: Act) -> None:
        # An act that came late (a busy server) or waited behind this copy's other acts
        # still goes to the program, with a moment to answer: the server's own clock
        # says whether the answer is in time, and a fallback it played is not counted.
        act.due = max(act.due, time.monotonic() + MIN_WAIT_SECONDS)
        self._drop_unasked()
        written = time.monotonic()
        act.written = written
        if not self._write(act.line):
            await self._send(act, error="missing: the program had exited", bot_ms=0.0)
            await self.restart("exited")
            return
        try:
            line = await self._line(act.due - time.monotonic())
        except TimeoutError:
            await self._send(act, error="late: no answer within ms_left", bot_ms=0.0)
            try:  # wait for the late answer, so it is not read as the next act's
                line = await self._line(HANG_SECONDS)
            except TimeoutError:
                await self.restart(f"hung (no answer {HANG_SECONDS:g} s past a deadline)")
                return
            if line is None:
                await self.restart("exited")
            return
        bot_ms = (time.monotonic() - written) * 1000
        if line is None:
            # Its stdout may have closed before it exited.
            code = await _exit_status(self.process, 0.5) if self.process else None
            await self._send(
                act, error=f"missing: the program exited (status {code})", bot_ms=bot_ms
            )
            await self.restart("exited")
            return
        await self._send(act, line=line, bot_ms=bot_ms)

    async def _send(self, act: Act, line: str = "", error: str = "", bot_ms: float = 0.0) -> None:
        sent = time.monotonic()
        try:
            answer = await self.reply(act.game_id, act.version, line, error, act.due)
        except GameError as exc:
            print(f"gamehost bot run: answer to {act.game_id} not taken: {exc}", file=sys.stderr)
            return
        done = time.monotonic()
        outcome = pb.BotReplyResponse.Outcome.Name(answer.outcome).lower()
        rtt_ms = (done - act.received) * 1000  # the act's arrival to the answer played
        # the time it waited while this copy was busy with its other lines and acts
        queued_ms = max(0.0, min(act.written, self.free_at) - act.received) * 1000
        self.stats.write(
            event="move",
            game_id=act.game_id,
            outcome=outcome,
            fault=answer.fault,
            rtt_ms=rtt_ms,
            bot_ms=bot_ms,  # the program's own time
            queued_ms=queued_ms,
            reply_ms=(done - sent) * 1000,  # the BotReply call
        )
        if answer.outcome == pb.BotReplyResponse.FALLBACK:
            print(f"gamehost bot run: {act.game_id}: {answer.message}", file=sys.stderr)


class Runner:
    def __init__(self, client: Client, args: argparse.Namespace) -> None:
        self.client = client
        self.key = args.key
        self.stats = Stats(args.stats)
        self.argv = shlex.split(args.cmd)
        if not self.argv:
            raise ValueError("--cmd is empty")
        self.concurrency = args.concurrency
        self.copies: list[Copy] = []
        self.owner: dict[str, Copy] = {}  # game id -> the copy holding it
        self.welcomed = False  # the last connection got as far as the server's welcome
        self.link: BotLink | None = None  # the answers go on it

    async def _reply(
        self, game_id: str, version: int, line: str, error: str, due: float
    ) -> pb.BotReplyResponse:
        """The answer, sent again within the act's clock (``due``) while the server
        refuses it for a reason that is not the bot's (``bot_link.RETRIED_REPLIES``)."""
        link = self.link
        if link is None:
            raise GameError(grpc.StatusCode.UNAVAILABLE, "not connected to the server")
        return await link.reply(game_id, version, line, error, due)

    async def run(self) -> int:
        self.copies = [Copy(i, self.argv, self._reply, self.stats) for i in range(self.concurrency)]
        workers: list[asyncio.Task[None]] = []
        channel = self.client.aio_channel()
        try:
            for copy in self.copies:
                try:
                    await copy.launch()
                except OSError as exc:
                    print(f"gamehost: cannot start --cmd: {exc}", file=sys.stderr)
                    return 2
                workers.append(asyncio.create_task(copy.work()))
            return await self._connect_for_good(channel)
        finally:
            for copy in self.copies:
                copy.inbox.put_nowait(None)
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            for copy in self.copies:
                await copy.kill()
            await channel.close()
            self.stats.close()

    async def _connect_for_good(self, channel: grpc.aio.Channel) -> int:
        backoff = retry.doubling(*RECONNECT_SECONDS)
        failures = 0  # connections lost in a row, none of them welcomed
        while True:
            self.welcomed = False
            try:
                status = await self._connection(channel)
            except GameError as exc:
                if exc.code not in RETRIED:
                    print(f"gamehost: {exc}", file=sys.stderr)
                    return 1
                # Welcomed, it was connected: a new break, not the same one.
                failures = 1 if self.welcomed else failures + 1
                wait = retry.nth_wait(backoff, failures)
                print(
                    f"gamehost bot run: connection lost ({exc}); again in {wait:g} s",
                    file=sys.stderr,
                )
                await asyncio.sleep(wait)
                continue
            if status is not None:
                return status
            await asyncio.sleep(RECONNECT_SECONDS[0])  # the server ended the stream (stopping)
            failures = 0

    async def _connection(self, channel: grpc.aio.Channel) -> int | None:
        """One connection: route its lines until it ends; the exit status, or None to
        connect again."""
        link = self.client.bot_link(channel, self.key, len(self.copies))
        self.link = link
        try:
            return await self._route(link)
        finally:
            self.link = None
            link.close()

    async def _route(self, link: BotLink) -> int | None:
        async for directive in link.directives():
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
                    copy.inbox.put_nowait(Line(directive.game_id, directive.line))
            elif kind == pb.BotDirective.ACT:
                copy = self.owner.get(directive.game_id)
                if copy is not None:
                    now = time.monotonic()
                    due = now + max(0.0, directive.ms_left / 1000 - MARGIN_SECONDS)
                    copy.inbox.put_nowait(
                        Act(directive.game_id, directive.version, directive.line, due, now)
                    )
            elif kind == pb.BotDirective.END:
                copy = self.owner.pop(directive.game_id, None)
                if copy is not None:
                    copy.inbox.put_nowait(Line(directive.game_id, directive.line, end=True))
        return None  # the server ended the stream (it stops): connect again


def run(client: Client, args: argparse.Namespace) -> int:
    try:
        runner = Runner(client, args)
    except ValueError as exc:
        print(f"gamehost: {exc}", file=sys.stderr)
        return 2
    return asyncio.run(runner.run())
