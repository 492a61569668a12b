"""The client distribution alone: installed in a fresh venv from clients/python (only
grpcio, protobuf and tenacity come with it), it plays a whole game against a running server,
and cannot import the engines, the bots or the service."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.procs import Replica

pytestmark = [pytest.mark.procs, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent

# Run in the fresh venv: a person's seat in Cité against two bots, always the first
# legal action, until the game ends; then the game's record, as the client reads it.
PLAY_ONE_GAME = """
import json, sys
from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb

with Client(sys.argv[1]) as client:
    client.wait_ready(timeout=5)
    created = client.create_game("cite", ["human:me", "bot:random", "bot:random"], seed=3)
    me = client.join(created.game_id, 0)
    moves = 0
    for _ in client.watch(me.game_id, me.token):  # ends when the game does
        state = client.state(me.game_id, me.token)
        if state.legal_actions:
            action = state.legal_actions[0].id
            client.submit(me.game_id, me.token, action, expected_version=state.version)
            moves += 1
    assert client.state(me.game_id, me.token).status == pb.FINISHED
    record = client.record(me.game_id)
print(json.dumps({"moves": moves, "returns": list(record.returns), "entries": len(record.entries)}))
"""


def _env() -> dict[str, str]:
    """The environment without anything that would put the repository on the path."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


@pytest.fixture(scope="session")
def client_venv(tmp_path_factory) -> Path:
    """One venv for the run, made by the first pytest-xdist worker that needs it (the
    others wait on the lock): the folder above a worker's temporary folder is the run's,
    shared by all its workers."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    venv = shared / "client-venv"
    with open(shared / "client-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (venv / "installed").exists():
            shutil.rmtree(venv, ignore_errors=True)  # a worker that failed half-way
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=60)
            subprocess.run(
                [venv / "bin" / "pip", "install", "--quiet", str(ROOT / "clients" / "python")],
                check=True,
                timeout=180,
                env=_env(),
            )
            (venv / "installed").touch()
    return venv


def _run(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    # cwd outside the repository: `python -c` would put the current directory on the path.
    return subprocess.run(
        [str(venv / "bin" / args[0]), *args[1:]],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env=_env(),
    )


def test_the_client_alone_installs_without_the_server(client_venv, tmp_path):
    listed = _run(client_venv, "python", "-m", "pip", "list", "--format=json", cwd=tmp_path)
    names = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert "gamehost" in names and "grpcio" in names and "protobuf" in names
    assert not names & {"gamehost-server", "redis", "celery", "prometheus-client"}
    for package in ("games", "bots", "services", "workers"):
        probe = _run(client_venv, "python", "-c", f"import {package}", cwd=tmp_path)
        assert probe.returncode != 0 and "ModuleNotFoundError" in probe.stderr, package


@pytest.mark.parametrize(
    ("command", "install"),
    [
        (["serve"], "pip install gamehost-server"),
        (["worker"], "pip install gamehost-server"),
        # The server defines these commands' flags: the client alone cannot parse them.
        (["worker", "--help"], "pip install gamehost-server"),
        (["db", "upgrade", "--archive", "none"], "pip install gamehost-server"),
        (["store", "upgrade", "--redis", "redis://127.0.0.1:1"], "pip install gamehost-server"),
        (["export", "--game", "cite"], "pip install gamehost-server"),
        (["export", "--target", "127.0.0.1:1", "--archive", "none"], "pip install gamehost-server"),
        (["board", "catan"], "pip install gamehost-server"),
        (["selfplay", "cite", "--players", "3", "--seed", "1"], "pip install gamehost-server"),
        (["health", "--target", "127.0.0.1:1"], "pip install 'gamehost[health]'"),
    ],
)
def test_commands_the_client_lacks_say_in_one_line_what_to_install(
    client_venv, tmp_path, command, install
):
    done = _run(client_venv, "gamehost", *command, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and install in lines[0], done.stderr


def test_the_client_alone_knows_export_without_the_server_s_flags(client_venv, tmp_path):
    done = _run(client_venv, "gamehost", "export", "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "--target HOST:PORT" in done.stdout and "--game TYPE" in done.stdout
    assert "--archive" not in done.stdout.replace("(not --archive)", "")


def test_the_client_alone_plays_a_whole_game_against_a_running_server(client_venv, tmp_path):
    server = Replica(tmp_path / "server.log", ["--bot-workers", "1"]).start()
    try:
        server.wait_serving(timeout=30)
        played = _run(client_venv, "python", "-c", PLAY_ONE_GAME, server.target, cwd=tmp_path)
        assert played.returncode == 0, played.stderr[-2000:]
        result = json.loads(played.stdout)
        assert result["moves"] > 0 and result["entries"] > result["moves"]
        assert len(result["returns"]) == 3 and sum(result["returns"]) == pytest.approx(1.0)

        selfplay = _run(
            client_venv, "gamehost", "selfplay", "cite", "--players", "3", "--seed", "5",
            "--target", server.target, cwd=tmp_path,
        )  # fmt: skip
        assert selfplay.returncode == 0, selfplay.stderr[-2000:]
        assert json.loads(selfplay.stdout)["terminal"] is True
    finally:
        server.kill_group()


def test_the_server_requires_the_client_of_its_own_version():
    import tomllib

    server = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    client = tomllib.loads((ROOT / "clients" / "python" / "pyproject.toml").read_text())["project"]
    assert client["name"] == "gamehost" and server["name"] == "gamehost-server"
    assert f"gamehost=={client['version']}" in server["dependencies"]
    assert sorted(d.split("=")[0].split(">")[0] for d in client["dependencies"]) == [
        "grpcio",
        "protobuf",
        "tenacity",
    ]
