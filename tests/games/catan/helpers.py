"""Building concrete Catan positions for rule tests.

Positions are written as plain data on the beginner board (a fixed layout, so
hex/intersection/path ids mean the same thing in every test) and loaded with
``CatanState.from_dict``, which also checks them.

Beginner board (hex: terrain token), see games/catan/board.py for the ids:
    H0 mountains 10  H1 pasture 2   H2 forest 9
    H3 fields 12  H4 hills 6  H5 pasture 4  H6 hills 10
    H7 fields 9  H8 forest 11  H9 desert  H10 forest 3  H11 mountains 8
    H12 forest 8  H13 mountains 3  H14 fields 4  H15 pasture 5
    H16 hills 5  H17 fields 6  H18 pasture 11
"""

from __future__ import annotations

import random
from typing import Any

from games.catan import board as B
from games.catan import rules as R
from games.catan.engine import Catan, CatanState

PHASE = {name: i for i, name in enumerate(R.PHASE_NAMES)}
RES = {name: i for i, name in enumerate(R.RESOURCE_NAMES)}
DEV = {name: i for i, name in enumerate(R.DEV_NAMES)}


def cards(spec: dict[str, int] | None, names: dict[str, int]) -> list[int]:
    counts = [0] * 5
    for name, k in (spec or {}).items():
        counts[names[name]] = k
    return counts


def position(
    players: int = 4,
    *,
    turn: int = 0,
    phase: str = "main",
    rolled: bool | None = None,
    settlements: dict[int, list[int]] | None = None,
    cities: dict[int, list[int]] | None = None,
    roads: dict[int, list[int]] | None = None,
    hands: dict[int, dict[str, int]] | None = None,
    hidden: dict[int, dict[str, int]] | None = None,
    dev: dict[int, dict[str, int]] | None = None,
    dev_new: dict[int, dict[str, int]] | None = None,
    knights: dict[int, int] | None = None,
    played: dict[str, int] | None = None,
    bank: dict[str, int] | None = None,
    turn_no: int = 10,
    **fields: Any,
) -> CatanState:
    """A position after set-up on the beginner board.

    Hands default to empty and the bank to the rest. ``bank`` sets the bank
    instead; the cards that makes up go to seat ``spare`` (default: the last).
    Other keyword arguments overwrite serialized fields as they are.
    """
    data = Catan.new_game(players, 0, {"board": "beginner"}).to_dict()
    owner = [-1] * B.NUM_NODES
    city = [0] * B.NUM_NODES
    edges = [-1] * B.NUM_EDGES
    for seat, nodes in (settlements or {}).items():
        for v in nodes:
            owner[v] = seat
    for seat, nodes in (cities or {}).items():
        for v in nodes:
            owner[v] = seat
            city[v] = 1
    for seat, es in (roads or {}).items():
        for e in es:
            edges[e] = seat
    hand = [0] * (5 * players)
    for seat, spec in (hands or {}).items():
        hand[5 * seat : 5 * seat + 5] = cards(spec, RES)
    spare = fields.pop("spare", players - 1)
    if bank is not None:
        want = cards(bank, RES)
        for r in range(5):
            held = sum(hand[5 * s + r] for s in range(players))
            extra = R.RESOURCE_COUNT - held - want[r]
            assert extra >= 0, "bank and hands hold more than 19"
            hand[5 * spare + r] += extra
    hid = [0] * (5 * players)
    for seat, spec in (hidden or {}).items():
        hid[5 * seat : 5 * seat + 5] = cards(spec, RES)
    devs = [0] * (5 * players)
    for seat, spec in (dev or {}).items():
        devs[5 * seat : 5 * seat + 5] = cards(spec, DEV)
    new = [0] * (5 * players)
    for seat, spec in (dev_new or {}).items():
        new[5 * seat : 5 * seat + 5] = cards(spec, DEV)
    knight_list = [0] * players
    for seat, k in (knights or {}).items():
        knight_list[seat] = k
    pile = cards(played, DEV)
    pile[R.KNIGHT] += sum(knight_list)
    deck = [
        R.DEV_DECK[t] - pile[t] - sum(devs[5 * s + t] for s in range(players)) for t in range(5)
    ]
    if rolled is None:
        rolled = phase not in ("pre-roll", "roll")
    data.update(
        {
            "phase": PHASE[phase],
            "turn": turn,
            "turn_no": turn_no,
            "setup_index": 2 * players,
            "node_owner": owner,
            "node_city": city,
            "edge_owner": edges,
            "hand": hand,
            "hidden": hid,
            "bank": [
                R.RESOURCE_COUNT - sum(hand[5 * s + r] for s in range(players)) for r in range(5)
            ],
            "dev": devs,
            "dev_new": new,
            "deck": deck,
            "played": pile,
            "knights": knight_list,
            "rolled": rolled,
        }
    )
    data.update(fields)
    return CatanState.from_dict(data)


def act(state: CatanState, *texts: str) -> CatanState:
    """Apply actions given in notation, checking legality."""
    for text in texts:
        state.apply_action(state.string_to_action(text))
    return state


def legal(state: CatanState) -> set[str]:
    """The legal actions (or chance outcomes) as notation."""
    if state.is_chance_node():
        return {state.action_to_string(a) for a, _ in state.chance_outcomes()}
    return {state.action_to_string(a) for a in state.legal_actions()}


def hand(state: CatanState, seat: int) -> dict[str, int]:
    return {
        R.RESOURCE_NAMES[r]: state.hand[5 * seat + r] for r in range(5) if state.hand[5 * seat + r]
    }


def random_game(seed: int, players: int = 4, options: dict | None = None, offers: bool = False):
    """A random game (the benchmark's policy: uniform over non-offer actions
    unless ``offers``); returns (initial, log, final)."""
    rng = random.Random(seed)
    state = Catan.new_game(players, seed, options)
    initial = state.clone()
    log = []
    while not state.is_terminal():
        if state.is_chance_node():
            action = state.sample_chance(rng)
        else:
            actions = state.legal_actions()
            if not offers:
                actions = [
                    a
                    for a in actions
                    if not (R.OFFER_BASE <= a < R.DICE_BASE or a >= R.DRAFT_GIVE_BASE)
                ] or actions
            action = actions[int(rng.random() * len(actions))]
        state.apply_unchecked(action)
        log.append(action)
    return initial, log, state
