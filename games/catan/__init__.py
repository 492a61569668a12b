"""Catan (base game, 3-4 players): rules data, board geometry, engine and state loading.

May import: the standard library, ``games`` (base, actions, checks, copying) and
modules of this package. ``view.py`` (protobuf) is leaving ``games/``.
"""
