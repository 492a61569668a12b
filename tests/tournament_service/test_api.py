"""Tournaments through the API on a real server: they run with nobody connected,
external entrants play their tables through the seat tokens they are given, a
seat out of time gets the fallback level's move, and duplicate tables replay one
deal (board and dice) under every rotation."""

from __future__ import annotations

import json
import threading
import time

import grpc
import pytest

from gamehost import Client, GameError
from gamehost.v1 import gamehost_pb2 as pb
from games import CHANCE, get_game
from services.server import ServerConfig, ServerThread
from services.tournament.records import TournamentEventKind, table_json
from services.tournament.runner import TournamentRunner, schedulable_tables
from services.tournament.wire import definition_from
from tests.procs import wait_until


def definition(name: str, **fields) -> pb.TournamentDefinition:
    entrants = fields.pop("entrants", [("greedy", "greedy"), ("random", "random")])
    base = {
        "name": name,
        "game_type": "cite",
        "players": 2,
        "format": "round-robin",
        "games": 4,
        "seed": 5,
        "parallel": 2,
    }
    return pb.TournamentDefinition(
        entrants=[pb.TournamentEntrant(name=n, level=lv) for n, lv in entrants],
        **{**base, **fields},
    )


def stored_status(server, name: str) -> str:
    snapshot = server.call(server.running.store.load_tournament(name))
    return snapshot.status


def test_a_tournament_finishes_with_no_client_calling_in(served):
    server, client = served
    created = client.create_tournament(definition("unattended"))
    assert created.status == pb.TOURNAMENT_RUNNING and created.progress.total_games == 4
    # Only the store is looked at from here on: no RPC drives the tournament.
    wait_until(lambda: stored_status(server, "unattended") == "finished", 60, "the end")
    final = client.tournament("unattended", include_exports=True)
    assert final.status == pb.TOURNAMENT_FINISHED and final.progress.finished_games == 4
    assert [t.index for t in final.tables] == [0, 1, 2, 3] and all(t.finished for t in final.tables)
    report = json.loads(final.report_json)
    assert report["games"] == 4 and [s.entrant for s in final.standings] == [
        r["entrant"] for r in report["standings"]
    ]
    assert set(final.exports) == {"standings.csv", "crosstable.csv", "games.jsonl"}
    game = client.state(final.tables[0].game_id)
    assert game.status == pb.FINISHED  # tables are ordinary games any client can read
    events = list(client.watch_tournament("unattended"))
    kinds = [e.kind for e in events]
    assert kinds.count(pb.TournamentEvent.TABLE_STARTED) == 4
    assert kinds.count(pb.TournamentEvent.TABLE_FINISHED) == 4
    assert kinds[-1] == pb.TournamentEvent.TOURNAMENT_FINISHED
    assert [e.event_id for e in events] == list(range(1, len(events) + 1))
    resumed = list(client.watch_tournament("unattended", after=events[-3].event_id))
    assert [e.event_id for e in resumed] == [e.event_id for e in events[-2:]]
    assert client.list_tournaments()[0].name == "unattended"
    # The same definition again is the same tournament; another one is refused.
    assert client.create_tournament(definition("unattended")).status == pb.TOURNAMENT_FINISHED
    with pytest.raises(GameError) as refused:
        client.create_tournament(definition("unattended", seed=6))
    assert refused.value.code == grpc.StatusCode.ALREADY_EXISTS


def test_bad_definitions_are_invalid_argument(memory_served):
    _, client = memory_served
    bad = [
        definition("bad name!"),
        definition("x", game_type="chess"),
        definition("x", entrants=[("a", "greedy"), ("b", "no-such-level")]),
        definition("x", format="knockout"),
        definition("x", players=9),
    ]
    for message in bad:
        with pytest.raises(GameError) as refused:
            client.create_tournament(message)
        assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT, message
    with pytest.raises(GameError) as missing:
        client.tournament("nobody")
    assert missing.value.code == grpc.StatusCode.NOT_FOUND


def _play_seat(target: str, game_id: str, token: str, seat: int, skip_first: bool) -> None:
    """Play one seat from WatchGame alone: the first legal action each turn (the very
    first turn left to time out when ``skip_first``)."""
    skipped = not skip_first
    with Client(target) as client:
        for event in client.watch(game_id, token):
            if event.legal_actions and event.to_move.seat == seat:
                if not skipped:
                    skipped = True
                    continue
                try:
                    client.submit(
                        game_id, token, event.legal_actions[0].id, expected_version=event.version
                    )
                except GameError as exc:
                    if exc.code not in (
                        grpc.StatusCode.ABORTED,
                        grpc.StatusCode.FAILED_PRECONDITION,
                    ):
                        raise  # stale: the fallback moved first


def _run_external(served, name: str, skip_first: bool, limit: float) -> pb.Tournament:
    server, client = served
    entrants = [("bot", "random"), ("me", "")]
    client.create_tournament(
        definition(name, entrants=entrants, games=2, parallel=1, move_time_limit=limit)
    )
    token = client.join_tournament(name, "me")
    players = []
    for event in client.watch_tournament(name, entrant_token=token):
        if event.kind == pb.TournamentEvent.TABLE_STARTED:
            assert event.HasField("seat") and event.seat_token
            args = (server.target, event.table.game_id, event.seat_token, event.seat, skip_first)
            player = threading.Thread(target=_play_seat, args=args)
            player.start()
            players.append(player)
    for player in players:
        player.join(timeout=60)
    seats = client.tournament_seats(name, token)
    assert len(seats) == 2 and all(s.finished for s in seats)
    return client.tournament(name)


def test_an_external_entrant_plays_its_tables_through_the_api(served):
    final = _run_external(served, "external", skip_first=False, limit=0.0)
    assert final.status == pb.TOURNAMENT_FINISHED and final.timeouts == 0
    assert {s.entrant for s in final.standings} == {"bot", "me"}


def test_a_seat_out_of_time_gets_one_fallback_move_counted_as_a_timeout(memory_served):
    final = _run_external(memory_served, "clock", skip_first=True, limit=0.5)
    assert final.status == pb.TOURNAMENT_FINISHED
    assert final.timeouts == 2  # one per table: the first turn, left to run out
    assert [sum(t.timeouts) for t in final.tables] == [1, 1]


def test_duplicate_tables_replay_one_board_and_the_same_dice(memory_served):
    server, client = memory_served
    client.create_tournament(definition("dup", duplicate=True, games=2))
    wait_until(lambda: stored_status(server, "dup") == "finished", 60, "the end")
    tables = client.tournament("dup").tables
    assert tables[0].deal == tables[1].deal and list(tables[0].seats) == list(
        reversed(tables[1].seats)
    )
    records = [client.record(t.game_id) for t in tables]
    assert records[0].initial_state == records[1].initial_state  # one board
    draws = [_chance_draws(r) for r in records]
    assert draws[0][0] == draws[1][0]  # the board (set-up) and its first draws
    shared = set(draws[0]) & set(draws[1])
    for kind in shared:
        a, b = draws[0][kind], draws[1][kind]
        n = min(len(a), len(b))
        assert n and a[:n] == b[:n], kind


def _chance_draws(record: pb.GameRecord) -> dict:
    """Chance outcomes by kind (the set of outcomes possible), in the order drawn."""
    game = get_game(record.game_type)
    state = game.state_class.from_bytes(record.initial_state)
    draws: dict = {0: []}
    first = True
    for entry in record.entries:
        if state.current_player() == CHANCE:
            kind = tuple(sorted(a for a, _ in state.chance_outcomes()))
            draws.setdefault(kind, []).append(entry.action_id)
            if first:
                draws[0].append(entry.action_id)
        else:
            first = False
        state.apply_action(entry.action_id)
    return draws


def test_creating_a_tournament_needs_an_api_key_where_keys_exist(tmp_path):
    key = "k" * 32
    keys = tmp_path / "api-keys"
    keys.write_text(f"{key} alice\n")
    config = ServerConfig(port=0, bot_workers=1, api_keys_file=str(keys))
    with ServerThread(config) as server, Client(server.target) as anonymous:
        with pytest.raises(GameError) as refused:
            anonymous.create_tournament(definition("keyed"))
        assert refused.value.code == grpc.StatusCode.UNAUTHENTICATED
        with Client(server.target, api_key=key) as alice:
            assert alice.create_tournament(definition("keyed")).definition.name == "keyed"


def test_a_swiss_round_starts_only_after_the_rounds_before_it(memory_served):
    _, client = memory_served
    entrants = [("g", "greedy"), ("r1", "random"), ("r2", "random"), ("r3", "random")]
    client.create_tournament(
        definition("swiss", format="swiss", entrants=entrants, games=8, parallel=4)
    )
    events = list(client.watch_tournament("swiss"))
    assert events[-1].kind == pb.TournamentEvent.TOURNAMENT_FINISHED
    finished_rounds: list[int] = []
    for event in events:
        if event.kind == pb.TournamentEvent.TABLE_FINISHED:
            finished_rounds.append(event.table.round)
        elif event.kind == pb.TournamentEvent.TABLE_STARTED and event.table.round > 0:
            earlier = [t for t in client.tournament("swiss").tables if t.round < event.table.round]
            assert finished_rounds.count(event.table.round - 1) == sum(
                1 for t in earlier if t.round == event.table.round - 1
            )
    assert client.tournament("swiss").progress.finished_games == 8


def test_a_table_whose_game_is_lost_fails_and_the_tournament_goes_on(memory_served):
    server, client = memory_served
    defn = definition_from(definition("lossy", games=4, parallel=2))
    table = schedulable_tables(defn, {})[0]
    gone = "0" * 32  # table 0 "started" with a game that is no longer stored

    async def lose_table_0() -> None:  # one step on the server's loop: no sweep between
        store = server.running.store
        record = {"definition": defn.to_dict(), "created": time.time()}
        await store.create_tournament("lossy", record, "running", [])
        event = {
            "kind": TournamentEventKind.TABLE_STARTED,
            "table": TournamentRunner._table_event(defn, table, gone),
        }
        await store.start_table("lossy", 0, {"game_id": gone, "table": table_json(table)}, [event])

    server.call(lose_table_0())
    events = list(client.watch_tournament("lossy"))  # ends with the tournament
    final = client.tournament("lossy", include_exports=True)
    assert final.status == pb.TOURNAMENT_FINISHED
    assert final.errors == 1 and final.progress.failed_games == 1
    assert final.progress.finished_games == 3 and final.progress.total_games == 4
    lost = final.tables[0]
    assert lost.game_id == gone and not lost.finished and "deleted" in lost.error
    assert all(t.finished and not t.error for t in final.tables[1:])
    report = json.loads(final.report_json)
    assert report["errors"] == 1 and report["games"] == 3
    assert sum(row["games"] for row in report["standings"]) == 3 * 2
    assert "errors 1" in final.standings_text
    failed = [e for e in events if e.kind == pb.TournamentEvent.TABLE_FINISHED and e.table.error]
    assert [e.table.index for e in failed] == [0] and failed[0].progress.failed_games == 1
    lines = [json.loads(line) for line in final.exports["games.jsonl"].splitlines()]
    assert lines[0]["returns"] == [] and "deleted" in lines[0]["error"]
    assert all("error" not in line for line in lines[1:])


def test_a_finished_tournament_expires_after_the_finished_retention():
    config = ServerConfig(port=0, bot_workers=1, finished_retention=0.5)
    with ServerThread(config) as server, Client(server.target) as client:
        client.create_tournament(definition("short-lived", games=2))
        for _ in client.watch_tournament("short-lived"):
            pass  # ends with the tournament

        def expired() -> bool:
            try:
                client.tournament("short-lived")
            except GameError as exc:
                assert exc.code == grpc.StatusCode.NOT_FOUND
                return True
            return False

        wait_until(expired, timeout=30, what="the finished tournament to expire")
        assert client.list_tournaments() == []
        # Its name is free again: the same definition starts a new tournament.
        again = client.create_tournament(definition("short-lived", games=2))
        assert again.status == pb.TOURNAMENT_RUNNING and again.progress.finished_games == 0


def test_ratings_order_greedy_above_random_in_a_small_cite_tournament(memory_served):
    _, client = memory_served
    client.create_tournament(definition("strength", games=8, parallel=4, seed=9))
    for _ in client.watch_tournament("strength"):
        pass  # ends with the tournament
    rows = {s.entrant: s for s in client.tournament("strength").standings}
    assert [s.entrant for s in client.tournament("strength").standings] == ["greedy", "random"]
    assert rows["greedy"].mu > rows["random"].mu and rows["greedy"].ordinal > rows["random"].ordinal
    assert rows["greedy"].win_share > 0.5 > rows["random"].win_share
