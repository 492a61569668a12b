"""Tournaments, the pure core: definitions, seat-balanced schedules, standings and ratings.

No I/O, no clocks, no store and no wire format: plain dataclasses and functions that the
service's tournament runner calls. ``model`` holds the data; ``schedule`` says which
entrants sit where at every table; ``report`` turns finished tables into standings,
ratings, a crosstable and seat shares; ``intervals`` is the confidence-interval math the
bot benchmarks share. May import the standard library, ``games`` and ``openskill``.
"""
