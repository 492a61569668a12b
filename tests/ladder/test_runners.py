"""``gamehost bot run`` with real bot programs (processes): the example bots in Python
and Node.js and the gamehost.bot helper register, pass validation and are rated; a bot
that prints garbage, one that writes bytes that are not text and one that crashes are
paused after K faults in a row, with the reason on ``bot list``, while their games end
and another bot plays on. Every runner is on ConnectBot and BotReply, the one way."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from tests.ladder.conftest import ladder_server, quick
from tests.procs import ServiceProcess, wait_until

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
EXAMPLES = ROOT / "examples" / "bots"
BOTS = Path(__file__).with_name("bots")


def _runner(target: str, key: str, cmd: str, log: Path) -> ServiceProcess:
    # The key in the environment, as the docs advise (a command line is public in ps).
    args = ["bot", "run", "--target", target, "--cmd", cmd]
    return ServiceProcess(args, log, env={"GAMEHOST_BOT_KEY": key}).start()


def _bots(client: Client) -> dict[str, pb.BotInfo]:
    return {b.bot: b for b in client.list_bots()}


def test_register_run_and_rate_with_the_example_bots(sqlite_url, tmp_path):
    programs = {
        "py-random": f"{PYTHON} {EXAMPLES / 'random_bot.py'}",
        "js-random": f"node {EXAMPLES / 'random_bot.js'}",
        "helper": f"{PYTHON} {EXAMPLES / 'helper_bot.py'}",
    }
    server = ladder_server(sqlite_url, quick(tables=4))
    runners = []
    with server, Client(server.target) as client:
        try:
            for name, cmd in programs.items():
                key = client.register_bot(name, "cite", 2).key
                runners.append(_runner(server.target, key, cmd, tmp_path / f"{name}.log"))

            def rated() -> dict[str, pb.BotInfo]:
                bots = _bots(client)
                for runner in runners:
                    assert runner.alive(), runner.output()
                # Moves are counted in the archive a second or so after they are played
                # (Sessions.FLUSH): four quick games can be over before that.
                ready = all(
                    b.status == pb.BOT_ACTIVE and b.games >= 4 and b.moves > 0
                    for b in bots.values()
                )
                return bots if ready else {}

            bots = wait_until(rated, 240, "every example bot active with 4 rated games")
        finally:
            for runner in runners:
                runner.kill_group()
        for name, info in bots.items():
            assert info.faults == pb.BotFaults() and info.moves > 0, (name, info)
            assert info.reason.startswith("passed its validation game")
            games = client.bot_page(name, limit=500).games
            oldest = games[-1]
            assert oldest.validation and list(oldest.opponents) == ["random"]
            assert all(not g.validation and g.sigma > 0 for g in games[:-1])
        standings = {r.bot: r for r in client.ladder("cite", 2).standings}
        assert set(programs) <= set(standings)
        assert {standings[name].level for name in programs} == {""}
        assert {standings[level].level for level in ("random", "greedy")} == {"random", "greedy"}
        # The bot's games download as the archive's NDJSON (gamehost export --bot).
        export = subprocess.run(
            [
                PYTHON,
                "-m",
                "gamehost.cli",
                "export",
                "--target",
                server.target,
                "--bot",
                "js-random",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
        assert export.returncode == 0, export.stderr
        lines = [json.loads(line) for line in export.stdout.splitlines()]
        assert len(lines) >= bots["js-random"].games + 1  # its validation game too
        assert all("js-random" in [s["name"] for s in line["seats"]] for line in lines)
        assert all(line["format"] == 1 and line["entries"] for line in lines)


def test_the_command_bot_register_prints_runs_as_typed(sqlite_url, tmp_path):
    """``bot register`` prints a ``bot run`` command; a shell runs it as printed (with
    ``gamehost`` on its PATH) and the bot it starts passes its validation game."""
    env = {**os.environ, "PATH": f"{Path(PYTHON).parent}{os.pathsep}{os.environ['PATH']}"}
    server = ladder_server(sqlite_url, quick(tables=2))
    with server, Client(server.target) as client:
        register = subprocess.run(
            [PYTHON, "-m", "gamehost.cli", "bot", "register", "--target", server.target]
            + ["--name", "typed", "--game", "cite", "--players", "2"],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=tmp_path,  # nowhere near the repository: the command needs none of it
        )
        assert register.returncode == 0, register.stderr
        lines = register.stdout.splitlines()
        command = next((line for line in lines if " bot run " in line), register.stdout)
        key = json.loads(lines[-1])["key"]
        assert key in command
        with open(tmp_path / "typed.log", "wb") as log:
            runner = subprocess.Popen(
                ["/bin/sh", "-c", command],
                env=env,
                cwd=tmp_path,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:

            def active() -> bool:
                output = (tmp_path / "typed.log").read_text(errors="replace")
                assert runner.poll() is None, output
                return _bots(client)["typed"].status == pb.BOT_ACTIVE

            wait_until(active, 180, "the bot started by the printed command to pass validation")
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(runner.pid, signal.SIGKILL)
            runner.wait(timeout=10)


def test_bad_bots_are_paused_and_cost_only_themselves(sqlite_url, tmp_path):
    server = ladder_server(sqlite_url, quick(max_faults=4, tables=4))
    runners: dict[str, ServiceProcess] = {}
    with server, Client(server.target) as client:
        try:
            programs = {
                "steady": f"{PYTHON} {EXAMPLES / 'random_bot.py'}",
                "garbage": f"{PYTHON} {BOTS / 'garbage_bot.py'}",
                "binary": f"{PYTHON} {BOTS / 'binary_bot.py'}",
                "crasher": f"{PYTHON} {BOTS / 'crash_bot.py'}",
            }
            for name, cmd in programs.items():
                key = client.register_bot(name, "cite", 2).key
                runners[name] = _runner(server.target, key, cmd, tmp_path / f"{name}.log")

            def paused() -> dict[str, pb.BotInfo]:
                bots = _bots(client)
                bad = (bots["garbage"], bots["binary"], bots["crasher"])
                return bots if all(b.status == pb.BOT_PAUSED for b in bad) else {}

            bots = wait_until(paused, 180, "the garbage, binary and crashing bots to be paused")
            garbage, crasher = bots["garbage"], bots["crasher"]
            for bad in (garbage, bots["binary"]):  # not text is garbage too, at once
                assert bad.faults.garbage >= 4 and bad.moves == 0, bad
                assert bad.faults.late == 0 and bad.faults.missing == 0, bad
                assert "faults in a row (the last: garbage)" in bad.reason
            assert crasher.faults.missing >= 4 and crasher.moves == 0
            assert "faults in a row (the last: missing)" in crasher.reason
            # Their runners are told and stop (status 1), saying why.
            for name in ("garbage", "binary", "crasher"):
                wait_until(lambda n=name: not runners[n].alive(), 60, f"{name}'s runner to stop")
                assert runners[name].process.returncode == 1
                assert "the ladder let the bot go: paused" in runners[name].output()
            # The runner starts a crashed bot again; one crash can leave the acts of
            # several of its games missing at once, so the faults reach 4 (above) with
            # fewer restarts (CI saw 3).
            assert runners["crasher"].output().count("starting it again") >= 1
            # Their games end all the same (the fallback level plays their seats).
            for name in ("garbage", "binary", "crasher"):
                for game in client.list_games(player=name):
                    wait_until(
                        lambda g=game.game_id: client.state(g).status == pb.FINISHED,
                        120,
                        f"{name}'s game {game.game_id} to end",
                    )
            # The good bot goes on being rated meanwhile.
            before = _bots(client)["steady"].games
            wait_until(
                lambda: _bots(client)["steady"].games >= before + 4, 180, "steady to play on"
            )
            assert runners["steady"].alive()
            steady = _bots(client)["steady"]
            assert steady.status == pb.BOT_ACTIVE and steady.faults == pb.BotFaults()
        finally:
            for runner in runners.values():
                runner.kill_group()


OVERRULED = "gamehost_ladder_overruled_answers_total"


def _overruled() -> float | None:
    """The server's count of in-time answers that lost to the clock (a ServerThread
    shares this process's metrics)."""
    return REGISTRY.get_sample_value(OVERRULED)


@pytest.mark.slow
@pytest.mark.parametrize("concurrency", [1, 4])
def test_a_bot_that_answers_at_once_is_never_overruled(sqlite_url, tmp_path, concurrency):
    # A bot that answers every act at once, in as many sets as it asks for: every
    # answer is played (none refused, none lost to the clock's fallback).
    server = ladder_server(sqlite_url, quick(tables=2 * concurrency, house_tables=0))
    with server, Client(server.target) as client:
        before = _overruled()
        key = client.register_bot("fast", "cite", 2).key
        cmd = f"{PYTHON} {BOTS / 'scripted_bot.py'} ok"
        args = ["bot", "run", "--target", server.target, "--key", key, "--cmd", cmd]
        runner = ServiceProcess([*args, "--concurrency", str(concurrency)], tmp_path / "run.log")
        runner.start()
        try:

            def played() -> pb.BotInfo | None:
                assert runner.alive(), runner.output()
                bot = _bots(client)["fast"]
                return bot if bot.moves >= 1500 and bot.games >= 8 else None

            bot = wait_until(played, 600, "the fast bot to make 1,500 moves in 8 rated games")
        finally:
            runner.kill_group()
        assert bot.faults == pb.BotFaults() and bot.status == pb.BOT_ACTIVE, bot
        assert "not taken" not in runner.output(), runner.output()
        # No move of the bot's seat in its games was the fallback's.
        games = client.bot_page("fast", limit=500).games
        assert len(games) >= 8
        timeouts = [
            (game.game_id, entry.ply)
            for game in games
            for entry in client.record(game.game_id).entries
            if entry.timeout and entry.actor.seat == game.seat
        ]
        assert timeouts == []
        assert before is not None, f"the server exports no {OVERRULED}"
        assert _overruled() == before
