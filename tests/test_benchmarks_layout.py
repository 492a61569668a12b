"""benchmarks/ holds tools, benchmarks/studies/ the studies, each with its decision
record, and the code they share is a package: no test imports a benchmark, and no
benchmark puts the checkout on ``sys.path`` to import one."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
STUDIES = BENCHMARKS / "studies"


def _imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth (inside functions too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def _scripts(folder: Path) -> set[str]:
    return {p.stem for p in folder.glob("*.py")} | {p.stem for p in folder.glob("*.js")}


def test_no_test_imports_a_benchmark() -> None:
    benchmarks = _scripts(BENCHMARKS) | _scripts(STUDIES) | {"benchmarks"}
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        for name in sorted(_imported(path))
        if name.split(".")[0] in benchmarks
    ]
    assert found == []


def test_no_benchmark_imports_through_the_checkout_on_sys_path() -> None:
    """Shared code is imported from the installed ``loadtest`` package. (hot_paths.py puts
    the checkout it measures first, which is what it measures, not a library.)"""
    found = []
    for path in sorted([*BENCHMARKS.glob("*.py"), *STUDIES.glob("*.py")]):
        text = path.read_text(encoding="utf-8")
        if any(name.startswith("benchmarks") for name in _imported(path)):
            found.append(f"{path.relative_to(ROOT)}: imports benchmarks.*")
        for line in re.findall(r"^.*sys\.path\.(?:insert|append)\(.*$", text, re.MULTILINE):
            if "str(tree)" not in line:
                found.append(f"{path.relative_to(ROOT)}: {line.strip()}")
    assert found == []


def test_every_study_has_a_decision_record() -> None:
    """benchmarks/studies/README.md: one section per study, naming its script, with the
    question, the result and the decision."""
    record = (STUDIES / "README.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", record, flags=re.MULTILINE)[1:]
    named = {
        script: section
        for section in sections
        for script in re.findall(r"([\w]+)\.(?:py|js)", section.splitlines()[0])
    }
    assert set(named) == _scripts(STUDIES)
    for script, section in named.items():
        for part in ("**Question.**", "**Result.**", "**Decision.**"):
            assert part in section, f"{script}: no {part} in its record"


def test_every_tool_is_listed_in_the_benchmarks_readme() -> None:
    listed = set(re.findall(r"^\| `(\w+)\.py` \|", (BENCHMARKS / "README.md").read_text(), re.M))
    assert listed == _scripts(BENCHMARKS)
