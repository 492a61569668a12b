"""games/ imports only itself and the standard library, with no import cycle.

Every import statement counts, those inside functions and ``TYPE_CHECKING`` blocks too.
The protobuf views (``games/*/view.py``) are leaving games/ and are not checked here.
"""

from __future__ import annotations

import ast
import pathlib
import sys

GAMES = pathlib.Path(__file__).resolve().parents[2] / "games"


def _imports() -> dict[str, set[str]]:
    """Module name -> every module it names in an import statement."""
    graph: dict[str, set[str]] = {}
    for path in sorted(GAMES.rglob("*.py")):
        if path.name == "view.py":
            continue
        parts = path.relative_to(GAMES.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                found |= {f"{node.module}.{alias.name}" for alias in node.names}
        graph[name] = found
    return graph


def test_games_imports_only_itself_and_the_standard_library() -> None:
    outside = {
        module: sorted(
            name
            for name in names
            # mypy_extensions: mypyc's compile hints (mypyc_attr), no-ops when interpreted
            if name.split(".")[0] not in ("games", "__future__", "mypy_extensions")
            and name.split(".")[0] not in sys.stdlib_module_names
        )
        for module, names in _imports().items()
    }
    assert {module: names for module, names in outside.items() if names} == {}


def test_games_has_no_import_cycle() -> None:
    graph = _imports()
    edges = {m: {n for n in names if n in graph and n != m} for m, names in graph.items()}
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        for target in edges[module]:
            assert target not in path, f"import cycle: {' -> '.join([*path, target])}"
            if target not in done:
                visit(target, [*path, target])
        done.add(module)

    for module in edges:
        visit(module, [module])
    assert "games.endeavor.engine" in edges  # the walk saw the engines
