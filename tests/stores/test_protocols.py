"""The store is split by concern: every method of ``GameStore`` is in exactly one
protocol, none has more than 15, both stores implement each with its own
signatures, and the wings name the protocols they use rather than the whole store."""

from __future__ import annotations

import ast
import inspect
from collections import Counter
from pathlib import Path

import pytest

from services.stores import (
    ArchiveOutbox,
    Deployment,
    EventLogs,
    GameLog,
    GameStore,
    Leases,
    Limits,
    MatchQueue,
    Retention,
    TournamentStore,
    TurnSchedule,
)
from services.stores.memory import MemoryStore
from services.stores.redis_store import RedisStore

PROTOCOLS = [
    GameLog,
    EventLogs,
    TurnSchedule,
    Leases,
    ArchiveOutbox,
    TournamentStore,
    Retention,
    Limits,
    Deployment,
    MatchQueue,
]
MOST_METHODS = 15
# Only the wiring holds the whole store: the server builds it, the host hands it on.
WHOLE_STORE_USERS = {"services/server.py", "services/play/host.py"}
ROOT = Path(__file__).resolve().parents[2]


def methods(protocol: type) -> list[str]:
    """The public methods a protocol declares itself."""
    return [
        name
        for name, member in vars(protocol).items()
        if not name.startswith("_") and callable(member)
    ]


def test_every_store_method_is_in_exactly_one_protocol():
    owners = Counter(name for protocol in PROTOCOLS for name in methods(protocol))
    assert [name for name, count in owners.items() if count > 1] == []
    assert set(owners) == {name for name in dir(GameStore) if not name.startswith("_")}


def test_no_protocol_has_more_than_fifteen_methods():
    sizes = {protocol.__name__: len(methods(protocol)) for protocol in PROTOCOLS}
    assert {name: size for name, size in sizes.items() if size > MOST_METHODS} == {}


def _parameters(function) -> list[tuple[str, object, object]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize("store_class", [MemoryStore, RedisStore])
@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda protocol: protocol.__name__)
def test_both_stores_implement_every_protocol(store_class, protocol):
    assert protocol in store_class.__mro__
    assert not store_class.__abstractmethods__
    for name in methods(protocol):
        implemented = getattr(store_class, name)
        assert _parameters(implemented) == _parameters(getattr(protocol, name)), name


def test_wings_name_the_protocols_they_use_not_the_whole_store():
    naming = []
    for path in sorted((ROOT / "services").rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        if where.startswith("services/stores/") or where in WHOLE_STORE_USERS:
            continue
        tree = ast.parse(path.read_text())
        names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        names |= {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }
        if "GameStore" in names:
            naming.append(where)
    assert naming == []
