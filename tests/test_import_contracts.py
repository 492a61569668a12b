"""Dependencies point one way, and no module takes part in an import cycle.

The contracts live in pyproject.toml ([tool.importlinter]) and are checked with
import-linter, which reads imports with grimp: imports inside functions and under
TYPE_CHECKING count too. A second check walks grimp's module graph itself, for
cycles that run through a package's ``__init__`` (import-linter compares siblings).
"""

from __future__ import annotations

import graphlib
import tomllib
from pathlib import Path

import grimp
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]


def test_the_import_contracts_hold(capsys):
    status = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    report = capsys.readouterr().out
    assert status == 0, report
    for contract in CONFIG["contracts"]:
        assert f"{contract['name']} KEPT" in report


def test_the_contracts_name_every_layer_and_the_client():
    kinds = {c["type"]: c for c in CONFIG["contracts"]}
    assert kinds["layers"]["layers"] == ["workers", "services", "bots", "games"]
    forbidden = [c for c in CONFIG["contracts"] if c["type"] == "forbidden"]
    client = next(c for c in forbidden if c["source_modules"] == ["gamehost"])
    assert set(client["forbidden_modules"]) == {"games", "bots", "services", "workers"}
    engines = next(c for c in forbidden if "games" in c["source_modules"])
    assert {"gamehost", "services"} <= set(engines["forbidden_modules"])


def _ignored_edges() -> set[tuple[str, str]]:
    """The cycle contract's temporary exceptions, as (importer, imported) pairs."""
    acyclic = next(c for c in CONFIG["contracts"] if c["type"] == "acyclic_siblings")
    return {
        tuple(part.strip() for part in line.split("->"))
        for line in acyclic.get("ignore_imports", [])
    }


def test_no_module_takes_part_in_an_import_cycle():
    graph = grimp.build_graph(*CONFIG["root_packages"], include_external_packages=False)
    ignored = _ignored_edges()
    imports = {
        module: {
            imported
            for imported in graph.find_modules_directly_imported_by(module)
            if (module, imported) not in ignored
        }
        for module in graph.modules
    }
    try:
        graphlib.TopologicalSorter(imports).prepare()
    except graphlib.CycleError as exc:
        raise AssertionError(f"import cycle: {' -> '.join(exc.args[1])}") from None
