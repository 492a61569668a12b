"""Computer players: pure decision code (no I/O). The service decides where it runs."""

from bots.levels import LEVELS, choose_action, level_names

__all__ = ["LEVELS", "choose_action", "level_names"]
