"""Loading a Catan state from untrusted plain data (``CatanState.from_dict``).

Everything is type- and range-checked and cross-checked (card conservation,
piece supply, the distance rule, what each phase needs) so that a loaded
state can never crash the engine later; anything wrong is a CorruptStateError.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from games.base import CorruptStateError
from games.catan import board as B
from games.catan import rules as R
from games.checks import checked_bool, checked_choice, checked_int, checked_ints


def load_state(cls: Any, data: Mapping[str, Any]) -> Any:  # noqa: C901 - one flat checklist
    """A ``CatanState`` (``cls``) rebuilt from ``to_dict`` output, every field checked."""
    if not isinstance(data, Mapping):
        raise CorruptStateError("Catan state data must be an object")
    try:
        n = checked_int(data["n"], 3, R.MAX_PLAYERS, "n")
        terrain = checked_ints(data["hex_terrain"], B.NUM_HEXES, 0, R.DESERT, "hex_terrain")
        numbers = checked_ints(data["hex_number"], B.NUM_HEXES, 0, 12, "hex_number")
        harbors = checked_ints(data["harbor_type"], B.NUM_HARBORS, 0, R.GENERIC, "harbor_type")
        _check_board(terrain, numbers, harbors)
        state = cls(
            n,
            tuple(terrain),
            tuple(numbers),
            tuple(harbors),
            start_seat=checked_int(data["start_seat"], 0, n - 1, "start_seat"),
            turn_limit=checked_int(data["turn_limit"], 1, 10**9, "turn_limit"),
            board_kind=checked_choice(data["board"], ("random", "beginner"), "board"),
            tokens_kind=checked_choice(data["tokens"], ("spiral", "shuffled", "fixed"), "tokens"),
        )
        _load_fields(state, data, n)
    except KeyError as exc:
        raise CorruptStateError(f"Catan state lacks field {exc}") from exc
    _check_cards(state, n)
    _check_pieces(state, n)
    _check_phase(state, n)
    state.rebuild_derived()
    try:
        # Whatever loads must be playable: a decision node offers an action.
        if state.actor >= 0 and not state.legal_actions():
            raise CorruptStateError("nothing is legal in this state")
        state.chance_outcomes()
    except (ValueError, IndexError, KeyError, TypeError, ZeroDivisionError) as exc:
        raise CorruptStateError(f"Catan state is inconsistent: {exc!r}") from exc
    return state


def _load_fields(state: Any, data: Mapping[str, Any], n: int) -> None:
    seat = n - 1
    state.phase = checked_int(data["phase"], 0, R.OVER, "phase")
    state.turn = checked_int(data["turn"], 0, seat, "turn")
    state.turn_no = checked_int(data["turn_no"], 0, state.turn_limit, "turn_no")
    state.hand = checked_ints(data["hand"], 5 * n, 0, R.RESOURCE_COUNT, "hand")
    state.hidden = checked_ints(data["hidden"], 5 * n, 0, R.RESOURCE_COUNT, "hidden")
    state.dev = checked_ints(data["dev"], 5 * n, 0, R.DEV_TOTAL, "dev")
    state.dev_new = checked_ints(data["dev_new"], 5 * n, 0, R.DEV_TOTAL, "dev_new")
    state.bank = checked_ints(data["bank"], 5, 0, R.RESOURCE_COUNT, "bank")
    state.deck = checked_ints(data["deck"], 5, 0, R.DEV_TOTAL, "deck")
    state.played = checked_ints(data["played"], 5, 0, R.DEV_TOTAL, "played")
    state.node_owner = checked_ints(data["node_owner"], B.NUM_NODES, -1, seat, "node_owner")
    state.node_city = checked_ints(data["node_city"], B.NUM_NODES, 0, 1, "node_city")
    state.edge_owner = checked_ints(data["edge_owner"], B.NUM_EDGES, -1, seat, "edge_owner")
    state.knights = checked_ints(data["knights"], n, 0, R.DEV_DECK[R.KNIGHT], "knights")
    state.lr_holder = checked_int(data["lr_holder"], -1, seat, "lr_holder")
    state.la_holder = checked_int(data["la_holder"], -1, seat, "la_holder")
    state.robber = checked_int(data["robber"], 0, B.NUM_HEXES - 1, "robber")
    state.dice = checked_int(data["dice"], 0, 12, "dice")
    state.rolled = checked_bool(data["rolled"], "rolled")
    state.dev_played = checked_bool(data["dev_played"], "dev_played")
    state.free_roads = checked_int(data["free_roads"], 0, 2, "free_roads")
    state.free_placed = checked_int(data["free_placed"], 0, 1, "free_placed")
    state.discard_queue = checked_ints(data["discard_queue"], None, 0, seat, "discard_queue")
    state.discard_left = checked_int(data["discard_left"], 0, 5 * R.RESOURCE_COUNT, "discard_left")
    pending = data.get("discard_pending", [0] * (5 * n))  # absent in states saved before it
    state.discard_pending = checked_ints(pending, 5 * n, 0, R.RESOURCE_COUNT, "discard_pending")
    state.steal_victim = checked_int(data["steal_victim"], -1, seat, "steal_victim")
    state.setup_index = checked_int(data["setup_index"], 0, 2 * n, "setup_index")
    state.setup_node = checked_int(data["setup_node"], -1, B.NUM_NODES - 1, "setup_node")
    state.offers_made = checked_int(data["offers_made"], 0, R.MAX_OFFERS_PER_TURN, "offers_made")
    top = R.FREE_OFFER_END - R.OFFER_BASE - 1
    state.declined = checked_ints(data["declined"], None, 0, top, "declined")
    state.offer = checked_int(data["offer"], -1, top, "offer")
    if any(not R.is_offer_key(k) for k in [*state.declined, *([state.offer] * (state.offer >= 0))]):
        raise CorruptStateError("an offer key that is no offer")
    limit = R.MAX_OFFER_KIND
    state.draft = checked_ints(data.get("draft", [0] * 5), 5, -limit, limit, "draft")
    state.answers = checked_ints(data["answers"], None, 0, 2, "answers")
    state.winners = checked_ints(data["winners"], None, 0, seat, "winners")


def _check_board(terrain: list[int], numbers: list[int], harbors: list[int]) -> None:
    if tuple(Counter(terrain)[t] for t in range(6)) != R.TERRAIN_COUNTS:
        raise CorruptStateError("the board does not hold the 19 standard terrain hexes")
    if any((t == R.DESERT) != (k == 0) for t, k in zip(terrain, numbers, strict=True)):
        raise CorruptStateError("number tokens must lie on every hex but the desert")
    if sorted(k for k in numbers if k) != sorted(R.TOKEN_LETTER_ORDER):
        raise CorruptStateError("the board does not hold the 18 standard number tokens")
    if sorted(harbors) != sorted(R.HARBOR_TYPES):
        raise CorruptStateError("the board does not hold the 9 standard harbors")


def _check_cards(state: Any, n: int) -> None:
    for r in range(5):
        held = sum(state.hand[5 * s + r] for s in range(n))
        if held + state.bank[r] != R.RESOURCE_COUNT:
            raise CorruptStateError(f"{R.RESOURCE_NAMES[r]} cards do not add up to 19")
    for i in range(5 * n):
        if state.hidden[i] > state.hand[i] or state.dev_new[i] > state.dev[i]:
            raise CorruptStateError("hidden or new cards exceed the cards held")
    for t in range(5):
        held = sum(state.dev[5 * s + t] for s in range(n))
        if held + state.deck[t] + state.played[t] != R.DEV_DECK[t]:
            raise CorruptStateError(f"{R.DEV_NAMES[t]} cards do not add up")
    if sum(state.knights) != state.played[R.KNIGHT] or state.played[R.VICTORY_POINT]:
        raise CorruptStateError("played development cards do not match the knights")
    if any(sum(state.dev_new[5 * s : 5 * s + 5]) for s in range(n) if s != state.turn):
        raise CorruptStateError("only the seat to move can hold cards bought this turn")
    la = state.la_holder
    if la >= 0 and state.knights[la] < R.LARGEST_ARMY_MIN:
        raise CorruptStateError("the largest army holder has too few knights")


def _check_pieces(state: Any, n: int) -> None:
    owner = state.node_owner
    for v in range(B.NUM_NODES):
        if owner[v] < 0:
            if state.node_city[v]:
                raise CorruptStateError("a city without an owner")
            continue
        if any(owner[w] >= 0 for w in B.NODE_NEIGHBORS[v]):
            raise CorruptStateError("two buildings break the distance rule")
    for s in range(n):
        buildings = [v for v in range(B.NUM_NODES) if owner[v] == s]
        cities = sum(state.node_city[v] for v in buildings)
        if cities > R.CITIES or len(buildings) - cities > R.SETTLEMENTS:
            raise CorruptStateError("a seat has more buildings than its supply")
        if state.edge_owner.count(s) > R.ROADS:
            raise CorruptStateError("a seat has more roads than its supply")


def _check_phase(state: Any, n: int) -> None:
    phase = state.phase
    hand = state.hand

    def count(s: int) -> int:
        return sum(hand[5 * s : 5 * s + 5])

    if phase in (R.SETUP_SETTLE, R.SETUP_ROAD):
        if state.setup_index >= 2 * n:
            raise CorruptStateError("set-up is already over")
        if phase == R.SETUP_ROAD:
            v = state.setup_node
            if v < 0 or state.node_owner[v] != state.setup_seat(state.setup_index):
                raise CorruptStateError("the set-up road has no settlement to touch")
            if all(state.edge_owner[e] >= 0 for e in B.NODE_EDGES[v]):
                raise CorruptStateError("the set-up settlement has no free path")
    elif state.setup_index != 2 * n:
        raise CorruptStateError("set-up is not finished")
    if phase == R.DISCARD:
        queue = state.discard_queue
        if not queue or len(set(queue)) != len(queue):
            raise CorruptStateError("a discard phase needs a queue of seats")
        pend = state.discard_pending
        left = count(queue[0]) - sum(pend[5 * queue[0] : 5 * queue[0] + 5])
        if not 1 <= state.discard_left <= left:
            raise CorruptStateError("the discarding seat cannot discard that many")
        if any(pend[i] > hand[i] for i in range(5 * n)):
            raise CorruptStateError("more cards set aside to discard than held")
        if any(pend[5 * s : 5 * s + 5] != [0] * 5 for s in queue[1:]):
            raise CorruptStateError("a seat still to discard has already set cards aside")
    elif any(state.discard_pending):
        raise CorruptStateError("cards set aside to discard outside a discard phase")
    if phase == R.STEAL:
        victim = state.steal_victim
        if victim < 0 or victim == state.turn or count(victim) == 0:
            raise CorruptStateError("a steal needs a victim holding cards")
    if phase == R.DRAW_DEV and sum(state.deck) == 0:
        raise CorruptStateError("a draw from an empty deck")
    if phase == R.FREE_ROADS and state.free_roads < 1:
        raise CorruptStateError("road building with no road to place")
    if phase in (R.TRADE_ANSWER, R.TRADE_CONFIRM):
        if state.offer < 0 or len(state.answers) != n or state.answers[state.turn] != 0:
            raise CorruptStateError("a trade phase without an open offer")
        if phase == R.TRADE_CONFIRM and 1 not in state.answers:
            raise CorruptStateError("nobody accepted the offer to confirm")
    elif state.offer >= 0 or state.answers:
        raise CorruptStateError("an offer is open outside a trade phase")
    if any(state.draft):
        if phase != R.MAIN or state.offers_made >= R.MAX_OFFERS_PER_TURN:
            raise CorruptStateError("an offer draft outside the main phase or over the limit")
        if any(state.draft[r] > hand[5 * state.turn + r] for r in range(5)):
            raise CorruptStateError("an offer draft gives more than the seat holds")
    if phase == R.OVER and not state.winners:
        raise CorruptStateError("a finished game without winners")
    if phase in (R.ROLL_DICE, R.PRE_ROLL) and state.rolled:
        raise CorruptStateError("the dice are already rolled")
    if phase in (R.MAIN, R.TRADE_ANSWER, R.TRADE_CONFIRM, R.DRAW_DEV) and not state.rolled:
        raise CorruptStateError("the main phase comes after the roll")
