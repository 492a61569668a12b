"""Cité, a dice-and-card survival game for 2-6 players (rules: docs/games/cite.md).

May import: the standard library, ``games`` (base, actions, checks, copying) and
modules of this package (rules <- engine). ``view.py`` (protobuf) is leaving ``games/``.
"""
