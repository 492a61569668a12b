"""Build hook: compile ``games/`` and ``bots/`` to C extensions with mypyc.

pyproject.toml holds the metadata; this file only adds the extensions, so
``pip install -e .`` and the wheel both build them. Every module is compiled except
the packages' ``__init__`` files and ``games/build.py``, which choose the build at run
time (``GAMEHOST_PURE_PYTHON=1``: the ``.py`` sources; see games/build.py).

No C compiler (or no mypyc): the install goes on without the extensions and says so
once; the engines then run pure. ``GAMEHOST_COMPILE=0`` skips compiling on purpose.
"""

from __future__ import annotations

import os
import pathlib
import sys
from concurrent.futures import ThreadPoolExecutor

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
PACKAGES = ("games", "bots")  # games/build.py's COMPILED_PACKAGES
# Not compiled: the build switch, the packages' __init__ files (they install it), and
# modules that only build tables at import or check loaded data once: compiling them
# adds minutes of C compiler time (endeavor/data.py alone is ~110k lines of C) and no speed.
NOT_COMPILED = {
    "__init__.py",
    "games/build.py",
    "games/checks.py",
    "games/copying.py",
    "games/actions.py",
    "games/catan/board.py",
    "games/catan/serial.py",
    "games/endeavor/data.py",
    "games/endeavor/validate.py",
    "bots/levels.py",  # a table of levels, parsed once per decision; and its docstring is read
}


def warn(reason: str) -> None:
    """The one warning of a pure install."""
    print(
        f"WARNING: gamehost-server: installing the pure-Python engines ({reason}); they "
        "run 2.5-4x slower (docs/benchmarks.md). Install a C compiler and reinstall to compile them.",
        file=sys.stderr,
    )


def sources() -> list[str]:
    """The modules mypyc compiles, as paths relative to the project root."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if path.name not in NOT_COMPILED and relative not in NOT_COMPILED:
                found.append(relative)
    return found


class OptionalBuildExt(build_ext):
    """build_ext that compiles one extension's C files in parallel (mypyc's multi_file
    output is one extension of many files) and falls back to the pure build when the
    C compiler is missing or fails."""

    def build_extensions(self) -> None:
        compile_one_by_one = self.compiler.compile

        def compile_in_parallel(sources: list[str], *args: object, **kwargs: object) -> list[str]:
            with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
                parts = pool.map(lambda src: compile_one_by_one([src], *args, **kwargs), sources)
                return [obj for part in parts for obj in part]

        self.compiler.compile = compile_in_parallel  # type: ignore[method-assign]
        super().build_extensions()

    def run(self) -> None:
        # An extension left from an earlier build of a module no longer compiled would
        # shadow its source: remove those (in-place and editable builds).
        compiled = {ext.name for ext in self.extensions}
        for package in PACKAGES:
            for built in (ROOT / package).rglob("*.so"):
                parts = built.relative_to(ROOT).parts
                module = ".".join((*parts[:-1], built.name.split(".")[0]))
                if module not in compiled:
                    built.unlink()
        try:
            super().run()
        except Exception as exc:  # no compiler, or it failed: the sources still work
            warn(f"compiling failed: {exc}")
            for ext in self.extensions:  # no half build: a shim without its library fails
                pathlib.Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
            self.extensions = []


def extensions() -> list[object]:
    if os.environ.get("GAMEHOST_COMPILE", "1").strip() in ("0", "false", "no"):
        warn("GAMEHOST_COMPILE=0")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        warn(f"mypyc is not importable: {exc}")
        return []
    os.chdir(ROOT)  # mypyc reads the sources (and pyproject's [tool.mypy]) from here
    return mypycify(sources(), opt_level="3", multi_file=True, group_name="gamehost_engines")


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
