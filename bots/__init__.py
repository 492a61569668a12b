"""Computer players: pure decision code (no I/O). The service decides where it runs.

Entry points: ``choose_action`` (a whole decision, in-process), ``search_tree``
(one root-parallel tree, the service's unit of work), ``merge_root_stats`` and
``best_action`` (combine trees), ``LEVELS`` / ``level_names`` (what a seat may be).
"""

from bots.levels import LEVELS, Level, choose_action, level_names
from bots.search import best_action, merge_root_stats, search_tree, search_tree_budget

__all__ = [
    "LEVELS",
    "Level",
    "best_action",
    "choose_action",
    "level_names",
    "merge_root_stats",
    "search_tree",
    "search_tree_budget",
]
