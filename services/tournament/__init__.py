"""Tournaments: the service runs them itself, on the same store and bot workers as any game.

The pure core (no I/O, no clocks, no store, no wire format; imports only the standard
library, ``games`` and ``openskill``): ``model`` holds the data, ``schedule`` says which
entrants sit where at every table, ``report`` turns finished tables into standings,
ratings, a crosstable and seat shares, ``ratings`` is the openskill step of one game and
``intervals`` the confidence-interval math (both shared with the ladder and the bot
benchmarks). On top of it, the service side: ``records`` (stored forms and seat
tokens), ``runner`` (the sweep every replica runs), ``service`` (what the RPCs do) and
``wire`` (protobuf conversion).
"""
