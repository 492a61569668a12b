"""Cython's pure-Python mode against mypyc: the same sources, the same modules, the same
workloads, in one run.

Usage: .venv/bin/python benchmarks/studies/cython_vs_mypyc.py [--repeats 5] [--games 50]
                                                     [--positions 8] [--keep DIR]

Needs this checkout's compiled build (``make install``) and Cython (``pip install
cython``; the table names its version). The script copies ``games/`` and ``bots/`` into
a scratch directory (``--keep DIR``: there, and left in place) and compiles there, with
Cython, exactly the modules setup.py compiles with mypyc here (those with an extension
beside their source): the ``.py`` files as they are, their annotations read as types
(Cython's pure-Python mode; nothing in the sources is Cython-specific). The installed
package is not touched.

It then checks that the Cython build plays the same seeded games as the mypyc build
(``tests.games.selfplay_record``), and times ``hot_paths.py``'s workloads (random
selfplay games/s, ``mcts-fast`` iterations/s, per game) on three builds in alternating
fresh processes: mypyc (this checkout), Cython (the scratch copy) and pure (this
checkout's sources), medians of ``--repeats``, per CPU second.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

from loadtest.hot_paths import ROOT, Job, conditions, measure, report

PACKAGES = ("games", "bots")  # setup.py's PACKAGES
# What the scratch copy needs besides the packages: the record the builds must agree on.
RECORD = ("tests/__init__.py", "tests/games/__init__.py", "tests/games/selfplay_record.py")

BUILD_SCRIPT = """
import os, sys
from Cython.Build import cythonize
from setuptools import setup

modules = sys.argv[1:]
sys.argv[1:] = ["build_ext", "--inplace", "-j", str(os.cpu_count() or 1)]
setup(
    ext_modules=cythonize(
        modules, compiler_directives={"language_level": 3}, nthreads=os.cpu_count() or 1
    )
)
"""


def compiled_modules() -> list[str]:
    """Sources that have a compiled extension beside them here, i.e. what setup.py gave
    to mypyc (the one list of them stays in setup.py)."""
    found = []
    for package in PACKAGES:
        for ext in sorted((ROOT / package).rglob("*.so")):
            source = ext.with_name(ext.name.split(".")[0] + ".py")
            if source.exists():
                found.append(source.relative_to(ROOT).as_posix())
    if not found:
        sys.exit("no compiled modules here: install the compiled build first (make install)")
    return found


def copy_sources(scratch: pathlib.Path) -> None:
    """The packages' sources and data, without this checkout's extensions."""
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package,
            scratch / package,
            ignore=shutil.ignore_patterns("*.so", "__pycache__"),
            dirs_exist_ok=True,
        )
    for name in RECORD:
        (scratch / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, scratch / name)


def build_with_cython(scratch: pathlib.Path, modules: list[str]) -> None:
    log = scratch / "cython-build.log"
    with log.open("w") as out:
        done = subprocess.run(
            [sys.executable, "-c", BUILD_SCRIPT, *modules],
            cwd=scratch,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    if done.returncode != 0:
        sys.exit(f"the Cython build failed; see {log}")
    missing = [
        m for m in modules if not list((scratch / m).parent.glob(pathlib.Path(m).stem + ".*.so"))
    ]
    if missing:
        sys.exit(f"Cython built no extension for {', '.join(missing)}; see {log}")


def same_records(scratch: pathlib.Path) -> None:
    """The Cython build must play the games the mypyc build plays, byte for byte."""
    env = {k: v for k, v in os.environ.items() if k not in ("GAMEHOST_PURE_PYTHON", "PYTHONPATH")}
    outputs = []
    for tree in (ROOT, scratch):
        env["PYTHONPATH"] = str(tree)
        done = subprocess.run(
            [sys.executable, "-m", "tests.games.selfplay_record", "1"],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.append(done.stdout)
    if outputs[0] != outputs[1]:
        sys.exit("the Cython build played other games than the mypyc build")


def cython_version() -> str:
    try:
        import Cython
    except ImportError:
        sys.exit("Cython is not installed: .venv/bin/pip install cython")
    return str(Cython.__version__)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games", type=int, default=50, help="as hot_paths.py's --games")
    parser.add_argument("--positions", type=int, default=8, help="as hot_paths.py's")
    parser.add_argument("--keep", type=pathlib.Path, help="build in DIR and leave it there")
    args = parser.parse_args()
    version = cython_version()
    modules = compiled_modules()
    scratch = args.keep or pathlib.Path(tempfile.mkdtemp(prefix="gamehost-cython-"))
    try:
        copy_sources(scratch)
        print(f"# Cython {version}: compiling {len(modules)} modules in {scratch}", file=sys.stderr)
        build_with_cython(scratch, modules)
        same_records(scratch)
        jobs: list[Job] = [
            ("mypyc", ROOT, "compiled"),
            (f"Cython {version}", scratch, "compiled"),
            ("pure", ROOT, "pure"),
        ]
        medians = measure(jobs, args.games, args.positions, args.repeats)
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)
    cython = jobs[1][0]
    print(
        f"{len(modules)} modules compiled by each (setup.py's list); "
        + conditions(args.games, args.positions, args.repeats)
    )
    print("Both compiled builds play the same seeded games (tests.games.selfplay_record 1).")
    print(
        report(
            medians,
            [
                ("mypyc/pure", "mypyc", "pure"),
                ("Cython/pure", cython, "pure"),
                ("mypyc/Cython", "mypyc", cython),
            ],
        )
    )


if __name__ == "__main__":
    main()
