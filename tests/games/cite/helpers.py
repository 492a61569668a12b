"""Position builders for the Cité rule tests (shared/rules/cite.md).

Positions are built by hand on a raw ``CiteState`` and then driven with public
actions; chance outcomes are forced by applying ``roll <face>`` / ``draw <card>``.
Every card placed in a hand or a structure is taken from the deck, so a built
position always holds the 40 cards.
"""

from __future__ import annotations

from games.cite import rules as R
from games.cite.engine import CiteState

CARD = {name: index for index, name in enumerate(R.CARD_NAMES)}


def gauges(
    gold: int = 5, wheat: int = 5, health: int = 5, civilians: int = 5, army: int = 5
) -> list[int]:
    return [gold, wheat, health, civilians, army]


def make_state(
    players: int = 2,
    cities: dict[int, list[int]] | None = None,
    *,
    fallen: tuple[int, ...] = (),
    round_limit: int = R.DEFAULT_ROUND_LIMIT,
) -> CiteState:
    """A raw state: every gauge at 5 except ``cities``; ``fallen`` seats out."""
    state = CiteState(players, round_limit)
    for seat, values in (cities or {}).items():
        state.gauges[seat] = list(values)
    for seat in fallen:
        state.standing[seat] = False
    return state


def take_from_deck(state: CiteState, card: str) -> int:
    index = CARD[card]
    assert state.deck[index] > 0, f"no {card} left in the deck"
    state.deck[index] -= 1
    return index


def give_granary(state: CiteState, seat: int, stored: int = 0) -> None:
    take_from_deck(state, "granary")
    state.granary[seat] = stored


def give_outpost(state: CiteState, seat: int, stored: int = 0) -> None:
    take_from_deck(state, "outpost")
    state.outpost[seat] = stored


def start_turn(state: CiteState, seat: int) -> CiteState:
    """Begin ``seat``'s turn: upkeep, then the die's chance node (as the engine does)."""
    state.turn = seat
    state._start_turn()
    return state


def at_resolve(state: CiteState, turn: int, hands: dict[int, str]) -> CiteState:
    """Step 6 of ``turn``'s turn with the given dealt cards, resolving from ``turn``."""
    state.turn = turn
    for seat, card in hands.items():
        state.hand[seat] = take_from_deck(state, card)
    order = [(turn + k) % state.n for k in range(state.n)]
    state.resolve_order = [s for s in order if state.hand[s] != R.NO_CARD]
    state.phase = R.RESOLVE
    state.actor = state.resolve_order[0]
    return state


def act(state: CiteState, *texts: str) -> CiteState:
    """Apply actions (decisions or forced chance outcomes) by their notation."""
    for text in texts:
        state.apply_action(state.string_to_action(text))
    return state


def legal(state: CiteState) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


def chances(state: CiteState) -> dict[str, float]:
    return {state.action_to_string(a): p for a, p in state.chance_outcomes()}


def gauge(state: CiteState, seat: int, name: str) -> int:
    return state.gauges[seat][R.GAUGE_NAMES.index(name)]


def phase(state: CiteState) -> str:
    return R.PHASE_NAMES[state.phase]


def count_cards(state: CiteState) -> int:
    """The 40 cards, counted independently of ``CiteState.card_total``."""
    total = sum(state.deck) + sum(state.discard) + len(state.drawn)
    total += sum(1 for card in state.hand if card >= 0)
    total += sum(1 for stored in state.granary if stored >= 0)
    total += sum(1 for stored in state.outpost if stored >= 0)
    return total
