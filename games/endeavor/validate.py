"""Checking serialized Endeavor states: stored bytes are untrusted, so every field is
type- and range-checked and the conservation laws must hold before a state is rebuilt."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from games.base import TERMINAL, CorruptStateError
from games.endeavor import data as D
from games.endeavor import rules as R

if TYPE_CHECKING:
    from games.endeavor.engine import EndeavorState

NB = D.NUM_BUILDING_TYPES


def _fail(message: str) -> None:
    raise CorruptStateError(f"Endeavor state is inconsistent: {message}")


def load_state(cls: type[EndeavorState], data: Mapping[str, Any]) -> EndeavorState:
    if not isinstance(data, Mapping):
        raise CorruptStateError("Endeavor state must be a JSON object")
    missing = [name for name in cls._FIELDS if name not in data]
    if missing:
        raise CorruptStateError(f"Endeavor state lacks {', '.join(missing)}")
    n = _int(data["n"], D.MIN_PLAYERS, D.MAX_PLAYERS)
    st = cls(n, _bool(data["round_down"]))
    st.round = _int(data["round"], 1, D.ROUNDS)
    st.crown = _int(data["crown"], 0, n - 1)
    st.phase = _int(data["phase"], 0, R.OVER)
    st.cur = _int(data["cur"], TERMINAL, n - 1)
    st.step = _int(data["step"], 0, n)
    st.salary_left = _int(data["salary_left"], 0, 5)
    st.pend = _int(data["pend"], 0, R.PEND_DRAW)
    st.pend_arg = _int(data["pend_arg"], 0, D.NUM_DECKS - 1)
    if not isinstance(data["passed"], list) or len(data["passed"]) != n:
        raise CorruptStateError("passed must list one boolean per seat")
    st.passed = [_bool(v) for v in data["passed"]]
    st.trk = _ints(data["trk"], n * 4, 0, 1000)
    st.supply = _ints(data["supply"], n, 0, D.MARKERS)
    st.harbor = _ints(data["harbor"], n, 0, D.MARKERS)
    st.owned = _ints(data["owned"], n * NB, 0, D.BUILDING_SPACES)
    st.used = _ints(data["used"], n * NB, 0, D.BUILDING_SPACES)
    st.bsupply = _ints(data["bsupply"], NB, 0, 5)
    st.city = _ints(data["city"], D.NUM_CITIES, -1, n - 1)
    st.space_tok = _ints(data["space_tok"], D.NUM_SPACES, -1, D.NUM_TOKEN_TYPES - 1)
    st.track = _ints(data["track"], D.NUM_TRACK_SPACES, -1, n - 1)
    st.overflow = _ints(data["overflow"], n * D.NUM_REGIONS, 0, D.MARKERS)
    st.blue = _ints(data["blue"], n * 4, 0, D.NUM_TOKENS)
    st.brown = _ints(data["brown"], n * 4, 0, D.NUM_TOKENS)
    st.spent = _ints(data["spent"], 4, 0, D.NUM_TOKENS)
    st.card_loc = _ints(data["card_loc"], D.NUM_CARDS, R.LOC_REMOVED, R.LOC_FACE_DOWN + n - 1)
    st.abolished = _bool(data["abolished"])
    if data["scores"] and not isinstance(data["scores"], list):
        raise CorruptStateError("scores must be a list")
    st.scores = _ints(data["scores"], n, -100, 1000) if data["scores"] else []
    winners = data["winners"]
    if not isinstance(winners, list):
        raise CorruptStateError("winners must be a list")
    st.winners = [_int(v, 0, n - 1) for v in winners]
    _check(st)
    st._derive()
    _check_phase(st)
    return st


def _check(st: EndeavorState) -> None:
    n = st.n
    # Buildings: supply + owned tiles per type, one Colonial House each, at most 8 spaces.
    for t in range(1, NB):
        if st.bsupply[t] + sum(st.owned[s * NB + t] for s in range(n)) != D.BUILDING_SUPPLY[t]:
            _fail(f"building tiles of {D.BUILDING_NAMES[t]} are not conserved")
    for s in range(n):
        if st.owned[s * NB] != 1 or st.bsupply[0] != 0:
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
        spaces = st.track[D.TRACK_OFFSET[r] : D.TRACK_OFFSET[r] + D.TRACK_LENGTH[r]]
        filled = sum(1 for v in spaces if v >= 0)
        if any(v < 0 for v in spaces[:filled]):
            _fail("a shipping track has a gap")
        if filled < D.TRACK_LENGTH[r] and any(st.overflow[s * D.NUM_REGIONS + r] for s in range(n)):
            _fail("markers beside a track that is not full")
        governor = D.GOVERNOR_OF_REGION[r]
        if (filled == D.TRACK_LENGTH[r]) != (st.card_loc[governor] != R.LOC_DECK):
            _fail("a Governor card and its track disagree")
        if filled < D.TRACK_LENGTH[r]:
            closed_cards = st.card_loc[r * D.DECK_SIZE : (r + 1) * D.DECK_SIZE]
            if any(v != R.LOC_DECK for v in closed_cards):
                _fail("a card was drawn from a closed region")
            if any(st.city[c] >= 0 for c in D.REGION_CITIES[r]):
                _fail("a city is occupied in a closed region")
    for s in range(n):
        if st.overflow[s * D.NUM_REGIONS] != 0:
            _fail("markers beside Europe's (missing) track")
    # Markers: 30 per player across supply, harbor, buildings and the board.
    for s in range(n):
        board = (
            sum(1 for v in st.city if v == s)
            + sum(1 for v in st.track if v == s)
            + sum(st.overflow[s * D.NUM_REGIONS : (s + 1) * D.NUM_REGIONS])
        )
        total = st.supply[s] + st.harbor[s] + sum(st.used[s * NB : s * NB + NB]) + board
        if total != D.MARKERS:
            _fail(f"seat {s} has {total} population markers, not {D.MARKERS}")
    # Tokens: every one of the 95 is on the board, held, or spent.
    counts = [0] * D.NUM_TOKEN_TYPES
    for k in st.space_tok:
        if k >= 0:
            counts[k] += 1
    for s in range(n):
        for k in range(4):
            counts[k] += st.brown[s * 4 + k]
            counts[4 + k] += st.blue[s * 4 + k]
    for k in range(4):
        counts[4 + k] += st.spent[k]
    if tuple(counts) != D.TOKEN_COUNTS:
        _fail("trade tokens are not conserved")
    # Cards: where each can be.
    for c, where in enumerate(st.card_loc):
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
    if st.card_loc[D.ABOLITION] != R.LOC_DECK and not st.abolished:
        _fail("the Abolition card was drawn but Slavery was not abolished")
    # Tracks equal the icons of buildings, brown tokens and held cards.
    for s in range(n):
        for k in range(4):
            value = st.brown[s * 4 + k]
            value += sum(st.owned[s * NB + t] * D.BUILDING_ICONS[t][k] for t in range(NB))
            value += sum(D.CARD_ICONS[c][k] for c in range(D.NUM_CARDS) if st.card_loc[c] == s)
            if st.trk[s * 4 + k] != value:
                _fail("a status track differs from the icons its player holds")


def _check_phase(st: EndeavorState) -> None:
    n = st.n
    phase = st.phase
    if (phase == R.OVER) != (st.cur == TERMINAL):
        _fail("only a finished game has no player to move")
    if phase == R.OVER:
        from games.endeavor.scoring import final_scores

        scores = final_scores(st)
        best = max(scores)
        if st.scores != scores or st.winners != [s for s in range(n) if scores[s] == best]:
            _fail("a finished game's scores or winners do not match its position")
        return
    if st.scores or st.winners:
        _fail("scores before the end")
    if phase in (R.BUILD, R.SALARY) and (st.step >= n or st.cur != (st.crown + st.step) % n):
        _fail("the player to build or be paid is out of turn order")
    if phase == R.BUILD and not st.build_options(st.cur):
        _fail("a builder with nothing to build")
    if phase == R.SALARY:
        used = sum(st.used[st.cur * NB : st.cur * NB + NB])
        if not 0 < st.salary_left < used:
            _fail("a Salary choice that is no choice")
    if phase in (R.ACTION, R.SECOND) and st.passed[st.cur]:
        _fail("a player who passed is to act")
    if phase == R.SECOND and (st.pend == R.PEND_NONE or not st._second_targets()):
        _fail("a second half with nothing to do")
    if phase != R.SECOND and st.pend != R.PEND_NONE:
        _fail("a pending second half outside its phase")
    if phase == R.DISCARD and (st.holding_ok(st.cur) or st.npassed != st.n):
        _fail("a discard that is not needed")
