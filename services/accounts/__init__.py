"""Accounts (docs/accounts.md): one table of players, human or bot, their names (unique
in any case, house level names reserved) and their keys (shown once, kept hashed). The
ladder keeps its bots' ladder state beside it (``services.ladder.accounts``)."""
