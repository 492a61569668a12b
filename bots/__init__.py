"""Computer players: pure decision code (no I/O). The service decides where it runs.

May import: ``games`` (and the standard library). Never ``services``, ``workers`` or
``gamehost``.

Entry points: ``choose_action`` (a whole decision, in-process), ``search_tree``
(one root-parallel tree: the unit of work the service spreads over processes or
workers), ``merge_root_stats`` and ``best_action`` (combine trees), ``LEVELS`` /
``get_level`` / ``level_names`` (what a seat may be).
"""

import games  # noqa: F401 - installs the build switch (games.build) before bots' modules load
from bots.decide import choose_action
from bots.levels import LEVELS, Level, LevelKind, Playout, get_level, level_names
from bots.search import best_action, merge_root_stats, search_tree

__all__ = [
    "LEVELS",
    "Level",
    "LevelKind",
    "Playout",
    "best_action",
    "choose_action",
    "get_level",
    "level_names",
    "merge_root_stats",
    "search_tree",
]
