"""Which build of the engines and bots runs: ``compiled`` (mypyc's C extensions) or ``pure``.

``pip install`` (editable or wheel) compiles ``games/`` and ``bots/`` with mypyc (see
setup.py): each module's ``.so`` lies beside its ``.py`` and, being an extension module,
is what Python imports by default. ``GAMEHOST_PURE_PYTHON=1`` puts a finder in front
that loads ``games.*`` and ``bots.*`` from their ``.py`` sources instead, without a
reinstall; so does a machine where nothing was compiled (no C compiler at install).
Both builds play identical games (tests/games/test_builds.py).

This module and the packages' ``__init__`` files are never compiled: they install the
finder before any compiled module loads. The switch is read once, at first import.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

PURE_ENV = "GAMEHOST_PURE_PYTHON"
# The packages mypyc compiles (setup.py lists the same two).
COMPILED_PACKAGES = ("games", "bots")


def pure_requested() -> bool:
    """Whether ``GAMEHOST_PURE_PYTHON`` asks for the pure-Python modules."""
    return os.environ.get(PURE_ENV, "").strip().lower() not in ("", "0", "false", "no")


class _SourceFinder:
    """Finds ``games.*`` / ``bots.*`` submodules as ``.py`` sources only, so an ``.so``
    beside a source is passed over (the pure build, selected at run time)."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if path is None or fullname.partition(".")[0] not in COMPILED_PACKAGES:
            return None
        for entry in path:
            finder = importlib.machinery.FileFinder(
                entry, (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES)
            )
            spec = finder.find_spec(fullname, target)
            if spec is not None:
                return spec
        return None


def install_switch() -> None:
    """Put the source finder first when the pure build is asked for (idempotent)."""
    if pure_requested() and not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder())


def engine_build() -> str:
    """``compiled`` when the engines run as C extensions, else ``pure``."""
    import games.base

    suffix = os.path.splitext(games.base.__file__ or "")[1]
    return "compiled" if suffix in (".so", ".pyd") else "pure"
