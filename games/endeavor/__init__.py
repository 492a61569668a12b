"""Endeavor (3-5 players): fixed data, action space, holdings, scoring, loading, engine.

May import: the standard library, ``games`` (base, actions, checks, copying) and
modules of this package, one way: data <- rules, holdings <- scoring <- validate <-
engine. ``view.py`` (protobuf) is leaving ``games/``.
"""
