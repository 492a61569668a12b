"""Checking serialized Endeavor states: stored bytes are untrusted, so every field is
type- and range-checked and the conservation laws must hold before a state is rebuilt."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.base import TERMINAL, CorruptStateError
from games.checks import checked_bool, checked_bools, checked_int, checked_ints, require_fields
from games.endeavor import data as D
from games.endeavor import rules as R
from games.endeavor.scoring import final_scores

# The state class is passed in, not imported: the engine imports this module. Its
# instances are typed ``Any`` here for the same reason.

NB = D.NUM_BUILDING_TYPES


def _fail(message: str) -> None:
    raise CorruptStateError(f"Endeavor state is inconsistent: {message}")


def load_state(cls: Any, data: Mapping[str, Any]) -> Any:
    """An ``EndeavorState`` (``cls``) rebuilt from ``to_dict`` output, every field checked."""
    data = require_fields(data, cls._FIELDS, "Endeavor")
    n = checked_int(data["n"], D.MIN_PLAYERS, D.MAX_PLAYERS, "n")
    st = cls(n, checked_bool(data["round_down"], "round_down"))
    st.round = checked_int(data["round"], 1, D.ROUNDS, "round")
    st.crown = checked_int(data["crown"], 0, n - 1, "crown")
    st.phase = checked_int(data["phase"], 0, R.OVER, "phase")
    st.to_move = checked_int(data["to_move"], TERMINAL, n - 1, "to_move")
    st.step = checked_int(data["step"], 0, n, "step")
    st.salary_left = checked_int(data["salary_left"], 0, 5, "salary_left")
    st.pending = checked_int(data["pending"], 0, R.PENDING_DRAW, "pending")
    st.pending_target = checked_int(data["pending_target"], 0, D.NUM_DECKS - 1, "pending_target")
    st.passed = checked_bools(data["passed"], n, "passed")
    st.track_values = checked_ints(data["track_values"], n * 4, 0, 1000, "track_values")
    st.supply = checked_ints(data["supply"], n, 0, D.MARKERS, "supply")
    st.harbor = checked_ints(data["harbor"], n, 0, D.MARKERS, "harbor")
    st.owned = checked_ints(data["owned"], n * NB, 0, D.BUILDING_SPACES, "owned")
    st.used = checked_ints(data["used"], n * NB, 0, D.BUILDING_SPACES, "used")
    st.building_supply = checked_ints(data["building_supply"], NB, 0, 5, "building_supply")
    st.city_owner = checked_ints(data["city_owner"], D.NUM_CITIES, -1, n - 1, "city_owner")
    st.space_token = checked_ints(
        data["space_token"], D.NUM_SPACES, -1, D.NUM_TOKEN_TYPES - 1, "space_token"
    )
    st.shipping_track = checked_ints(
        data["shipping_track"], D.NUM_TRACK_SPACES, -1, n - 1, "shipping_track"
    )
    st.beside_track = checked_ints(
        data["beside_track"], n * D.NUM_REGIONS, 0, D.MARKERS, "beside_track"
    )
    st.blue_tokens = checked_ints(data["blue_tokens"], n * 4, 0, D.NUM_TOKENS, "blue_tokens")
    st.brown_tokens = checked_ints(data["brown_tokens"], n * 4, 0, D.NUM_TOKENS, "brown_tokens")
    st.spent_tokens = checked_ints(data["spent_tokens"], 4, 0, D.NUM_TOKENS, "spent_tokens")
    st.card_location = checked_ints(
        data["card_location"], D.NUM_CARDS, R.LOC_REMOVED, R.LOC_FACE_DOWN + n - 1, "card_location"
    )
    st.abolished = checked_bool(data["abolished"], "abolished")
    if data["scores"] and not isinstance(data["scores"], list):
        raise CorruptStateError("scores must be a list")
    st.scores = checked_ints(data["scores"], n, -100, 1000, "scores") if data["scores"] else []
    st.winners = checked_ints(data["winners"], None, 0, n - 1, "winners")
    _check(st)
    st._derive()
    _check_phase(st)
    return st


def _check(st: Any) -> None:
    n = st.n
    # Buildings: supply + owned tiles per type, one Colonial House each, at most 8 spaces.
    for t in range(1, NB):
        if (
            st.building_supply[t] + sum(st.owned[s * NB + t] for s in range(n))
            != D.BUILDING_SUPPLY[t]
        ):
            _fail(f"building tiles of {D.BUILDING_NAMES[t]} are not conserved")
    for s in range(n):
        if st.owned[s * NB] != 1 or st.building_supply[0] != 0:
            _fail("every player has exactly one Colonial House")
        if sum(st.owned[s * NB : s * NB + NB]) > D.BUILDING_SPACES:
            _fail("more buildings than building spaces")
        if sum(st.owned[s * NB + t] for t in range(13, 16)) > 1:
            _fail("two level-5 buildings")
        for t in range(NB):
            if st.used[s * NB + t] > st.owned[s * NB + t] or (
                st.used[s * NB + t] and not D.BUILDING_KINDS[t]
            ):
                _fail("a marker on a building that cannot hold one")
    # Shipping tracks fill from the far end; markers sit beside a track only once it is full.
    for r in range(1, D.NUM_REGIONS):
        spaces = st.shipping_track[D.TRACK_OFFSET[r] : D.TRACK_OFFSET[r] + D.TRACK_LENGTH[r]]
        filled = sum(1 for v in spaces if v >= 0)
        if any(v < 0 for v in spaces[:filled]):
            _fail("a shipping track has a gap")
        if filled < D.TRACK_LENGTH[r] and any(
            st.beside_track[s * D.NUM_REGIONS + r] for s in range(n)
        ):
            _fail("markers beside a track that is not full")
        governor = D.GOVERNOR_OF_REGION[r]
        if (filled == D.TRACK_LENGTH[r]) != (st.card_location[governor] != R.LOC_DECK):
            _fail("a Governor card and its track disagree")
        if filled < D.TRACK_LENGTH[r]:
            closed_cards = st.card_location[r * D.DECK_SIZE : (r + 1) * D.DECK_SIZE]
            if any(v != R.LOC_DECK for v in closed_cards):
                _fail("a card was drawn from a closed region")
            if any(st.city_owner[c] >= 0 for c in D.REGION_CITIES[r]):
                _fail("a city is occupied in a closed region")
    for s in range(n):
        if st.beside_track[s * D.NUM_REGIONS] != 0:
            _fail("markers beside Europe's (missing) track")
    # Markers: 30 per player across supply, harbor, buildings and the board.
    for s in range(n):
        board = (
            sum(1 for v in st.city_owner if v == s)
            + sum(1 for v in st.shipping_track if v == s)
            + sum(st.beside_track[s * D.NUM_REGIONS : (s + 1) * D.NUM_REGIONS])
        )
        total = st.supply[s] + st.harbor[s] + sum(st.used[s * NB : s * NB + NB]) + board
        if total != D.MARKERS:
            _fail(f"seat {s} has {total} population markers, not {D.MARKERS}")
    # Tokens: every one of the 95 is on the board, held, or spent.
    counts = [0] * D.NUM_TOKEN_TYPES
    for k in st.space_token:
        if k >= 0:
            counts[k] += 1
    for s in range(n):
        for k in range(4):
            counts[k] += st.brown_tokens[s * 4 + k]
            counts[4 + k] += st.blue_tokens[s * 4 + k]
    for k in range(4):
        counts[4 + k] += st.spent_tokens[k]
    if tuple(counts) != D.TOKEN_COUNTS:
        _fail("trade tokens are not conserved")
    # Cards: where each can be.
    for c, where in enumerate(st.card_location):
        if where >= R.LOC_FACE_DOWN and not D.CARD_IS_SLAVERY[c]:
            _fail("only Slavery cards lie face down")
        if where == R.LOC_REMOVED and not (D.CARD_IS_GOVERNOR[c] or D.CARD_IS_SLAVERY[c]):
            _fail("only Governors and Slavery cards leave the game")
        if n <= where < R.LOC_FACE_DOWN:
            _fail("a card is held by a seat that does not exist")
        if D.CARD_IS_SLAVERY[c] and st.abolished and (0 <= where < n or where == R.LOC_DECK):
            _fail("a Slavery card is held or in its deck after Abolition")
        if D.CARD_IS_SLAVERY[c] and not st.abolished and where == R.LOC_REMOVED:
            _fail("the Slavery deck left the game without Abolition")
    if st.card_location[D.ABOLITION] != R.LOC_DECK and not st.abolished:
        _fail("the Abolition card was drawn but Slavery was not abolished")
    # Tracks equal the icons of buildings, brown tokens and held cards.
    for s in range(n):
        for k in range(4):
            value = st.brown_tokens[s * 4 + k]
            value += sum(st.owned[s * NB + t] * D.BUILDING_ICONS[t][k] for t in range(NB))
            value += sum(D.CARD_ICONS[c][k] for c in range(D.NUM_CARDS) if st.card_location[c] == s)
            if st.track_values[s * 4 + k] != value:
                _fail("a status track differs from the icons its player holds")


def _check_phase(st: Any) -> None:
    n = st.n
    phase = st.phase
    if (phase == R.OVER) != (st.to_move == TERMINAL):
        _fail("only a finished game has no player to move")
    if phase == R.OVER:
        scores = final_scores(st)
        best = max(scores)
        if st.scores != scores or st.winners != [s for s in range(n) if scores[s] == best]:
            _fail("a finished game's scores or winners do not match its position")
        return
    if st.scores or st.winners:
        _fail("scores before the end")
    if phase in (R.BUILD, R.SALARY) and (st.step >= n or st.to_move != (st.crown + st.step) % n):
        _fail("the player to build or be paid is out of turn order")
    if phase == R.BUILD and not st.build_options(st.to_move):
        _fail("a builder with nothing to build")
    if phase == R.SALARY:
        used = sum(st.used[st.to_move * NB : st.to_move * NB + NB])
        if not 0 < st.salary_left < used:
            _fail("a Salary choice that is no choice")
    if phase in (R.ACTION, R.SECOND) and st.passed[st.to_move]:
        _fail("a player who passed is to act")
    if phase == R.SECOND and (st.pending == R.PENDING_NONE or not st._second_targets()):
        _fail("a second half with nothing to do")
    if phase != R.SECOND and st.pending != R.PENDING_NONE:
        _fail("a pending second half outside its phase")
    if phase == R.DISCARD and (st.holding_ok(st.to_move) or st.passed_count != st.n):
        _fail("a discard that is not needed")
