"""Access control on a real gRPC server: API keys, private games and invite codes,
spectating off, public-only listing, TLS (with a certificate made here) and seeds
that a creator cannot foresee."""

from __future__ import annotations

import grpc
import pytest

from gamehost import Client, GameError
from gamehost.cli import main as cli_main
from games import get_game
from services.server import ServerConfig, ServerThread
from services.turns import steps
from tests.certificates import self_signed
from tests.procs import Replica

KEY, OTHER_KEY = "k" * 20 + "-alice", "k" * 20 + "-bob"


def refused(code: grpc.StatusCode, call, *args, **kwargs) -> str:
    with pytest.raises(GameError) as caught:
        call(*args, **kwargs)
    assert caught.value.code == code, caught.value
    return caught.value.details


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory):
    keys = tmp_path_factory.mktemp("keys") / "api-keys"
    keys.write_text(f"# key name\n{KEY} alice\n\n{OTHER_KEY} bob\n")
    config = ServerConfig(port=0, bot_workers=1, api_keys_file=str(keys))
    with ServerThread(config) as running:
        yield running


@pytest.fixture(scope="module")
def alice(keyed_server):
    with Client(keyed_server.target, api_key=KEY) as c:
        yield c


@pytest.fixture(scope="module")
def anonymous(keyed_server):
    with Client(keyed_server.target) as c:
        yield c


def test_creating_needs_a_known_key(keyed_server, alice, anonymous):
    message = refused(grpc.StatusCode.UNAUTHENTICATED, anonymous.create_game, "cite", ["human"] * 2)
    assert "x-api-key" in message
    with Client(keyed_server.target, api_key="not-a-key-of-this-server") as stranger:
        refused(grpc.StatusCode.UNAUTHENTICATED, stranger.create_game, "cite", ["human"] * 2)
        refused(grpc.StatusCode.UNAUTHENTICATED, stranger.list_games)
    created = alice.create_game("cite", ["human", "bot"])
    # Playing needs no key: a seat token is the credential.
    seat = anonymous.join(created.game_id)
    assert anonymous.state(created.game_id, seat.token).viewer_seat == seat.seat


def test_private_games_take_invite_codes_and_are_not_listed(alice, anonymous):
    public = alice.create_game("cite", ["human", "bot"])
    private = alice.create_game("cite", ["human", "bot", "human"], private=True)
    codes = {c.seat: c.code for c in private.invite_codes}
    assert sorted(codes) == [0, 2] and len(set(codes.values())) == 2
    assert private.state.private and not public.state.private
    assert public.invite_codes == []
    for lister in (alice, anonymous):
        listed = {g.game_id for g in lister.list_games()}
        assert public.game_id in listed and private.game_id not in listed

    game_id = private.game_id
    assert "invite code" in refused(grpc.StatusCode.PERMISSION_DENIED, anonymous.join, game_id)
    refused(grpc.StatusCode.PERMISSION_DENIED, anonymous.join, game_id, invite_code="guess")
    refused(grpc.StatusCode.PERMISSION_DENIED, anonymous.join, game_id, 0, invite_code=codes[2])
    seat = anonymous.join(game_id, invite_code=codes[2])
    assert seat.seat == 2
    refused(grpc.StatusCode.ALREADY_EXISTS, anonymous.join, game_id, invite_code=codes[2])
    assert anonymous.join(game_id, 0, invite_code=codes[0]).seat == 0


def test_spectating_can_be_turned_off(alice, anonymous):
    closed = alice.create_game("cite", ["human", "bot"], spectators=False)
    game_id = closed.game_id
    assert not closed.state.spectators
    assert "spectators" in refused(grpc.StatusCode.PERMISSION_DENIED, anonymous.state, game_id)
    refused(grpc.StatusCode.PERMISSION_DENIED, anonymous.record, game_id)
    with pytest.raises(GameError) as caught:
        next(anonymous.watch(game_id))
    assert caught.value.code == grpc.StatusCode.PERMISSION_DENIED
    seat = anonymous.join(game_id)
    assert anonymous.state(game_id, seat.token).viewer_seat == 0
    assert next(anonymous.watch(game_id, seat.token)).event_id
    assert alice.create_game("cite", ["human", "bot"]).state.spectators  # default: allowed


# ---------------------------------------------------------------- TLS
@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    return self_signed(tmp_path_factory.mktemp("tls"))


def test_tls_clients_connect_and_plaintext_ones_fail(certificate, capsys):
    cert, key = certificate
    config = ServerConfig(port=0, bot_workers=1, tls_cert=cert, tls_key=key)
    with ServerThread(config) as server:
        with Client(server.target, tls=True, ca_file=cert, timeout=10) as secure:
            created = secure.create_game("cite", ["human", "bot"])
            assert secure.state(created.game_id).game_id == created.game_id
        with Client(server.target, timeout=5, retries=0) as plain:
            refused(grpc.StatusCode.UNAVAILABLE, plain.list_games)
        assert cli_main(["games", "--target", server.target, "--tls", "--ca-file", cert]) == 0
        assert "cite" in capsys.readouterr().out


# ---------------------------------------------------------------- seeds
def _stored(server: ServerThread, game_id: str):
    return server.call(server.running.store.load(game_id))


def test_a_chosen_seed_gives_no_foresight_with_a_human_seat():
    """Two servers (two stores, two secrets), the same seed and seats: every game gets
    its own seed, and the hidden deals are not the ones the seed alone would give."""
    config = ServerConfig(port=0, bot_workers=1)
    seeds, states = set(), []
    with ServerThread(config) as one, ServerThread(config) as two:
        for server in (one, one, one, two, two, two):
            with Client(server.target) as client:
                created = client.create_game("cite", ["human", "bot", "bot"], seed=7)
            snapshot = _stored(server, created.game_id)
            seeds.add(snapshot.meta["seed"])
            states.append(snapshot.state)
        secrets = {server.call(server.running.store.secret()) for server in (one, two)}
    assert len(secrets) == 2
    assert len(seeds) == 6 and 7 not in seeds
    game = get_game("cite")
    foreseen = game.new_game(3, 7, game.parse_options({}))
    steps.resolve_chance(foreseen, 7, 0, [])
    # One chance draw may coincide (few outcomes); six in a row would be foresight.
    assert states.count(foreseen.to_bytes()) < len(states)
    assert len(set(states)) > 1


def test_all_bot_games_replay_from_their_seed():
    config = ServerConfig(port=0, bot_workers=1)
    records = []
    with ServerThread(config) as one, ServerThread(config) as two:
        for server in (one, two):
            with Client(server.target) as client:
                created = client.create_game("cite", ["bot", "bot", "bot"], seed=7)
                assert _stored(server, created.game_id).meta["seed"] == 7
                for _ in client.watch(created.game_id):
                    pass  # ends when the game is over
                records.append(client.record(created.game_id))
    assert records[0].entries and records[0].returns
    assert records[0].initial_state == records[1].initial_state
    assert list(records[0].entries) == list(records[1].entries)
    assert list(records[0].returns) == list(records[1].returns)


def test_serve_flags_turn_keys_and_limits_on(tmp_path):
    keys = tmp_path / "keys"
    keys.write_text(f"{KEY} alice\n")
    flags = ["--api-keys", str(keys), "--live-games-per-client", "1", "--bot-workers", "1"]
    replica = Replica(tmp_path / "serve.log", flags).start()
    try:
        replica.wait_serving()
        with Client(replica.target) as anonymous, Client(replica.target, api_key=KEY) as alice:
            refused(grpc.StatusCode.UNAUTHENTICATED, anonymous.create_game, "cite", ["human"] * 2)
            alice.create_game("cite", ["human", "human"])
            refused(grpc.StatusCode.RESOURCE_EXHAUSTED, alice.create_game, "cite", ["human"] * 2)
    finally:
        replica.kill_group()
