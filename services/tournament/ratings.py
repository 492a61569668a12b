"""openskill's Plackett-Luce model, one game at a time: the only code that moves seats'
ratings from a game's returns. The tournament's standings (``report``) fold their
tables through it in table order; the ladder (``services.ladder``) folds its games as
they are rated."""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce
from openskill.models.weng_lin.plackett_luce import PlackettLuceRating

Rating = PlackettLuceRating
MODEL = PlackettLuce()


def new_rating(name: str = "") -> Rating:
    """A newcomer's rating: mu 25, sigma 25/3 (ordinal 0)."""
    return MODEL.rating(name=name or None)


def rating(mu: float, sigma: float, name: str = "") -> Rating:
    return MODEL.rating(mu=mu, sigma=sigma, name=name or None)


def ranks(returns: Sequence[float]) -> list[int]:
    """A finishing order from returns: a higher return finishes ahead, equal returns
    (a shared win) tie; 0 is first."""
    return [sum(1 for other in returns if other > value) for value in returns]


def rate_game(ratings: Sequence[Rating], returns: Sequence[float]) -> list[Rating]:
    """The seats' ratings after one game (``ratings`` and ``returns`` in seat order;
    a participant holds one seat)."""
    rated = MODEL.rate([[r] for r in ratings], ranks=ranks(returns))
    return [team[0] for team in rated]
