"""Endeavor's rules engine, 3-5 players; flow, notation and design: docs/games/endeavor-engine.md."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar, Final

from games.base import (
    TERMINAL,
    Game,
    GameInfo,
    IllegalActionError,
    NotationError,
    OptionBounds,
    OptionsError,
    State,
    shared_win,
)
from games.copying import Fields
from games.endeavor import data as D
from games.endeavor import rules as R
from games.endeavor.holdings import TRACKS_PER_SEAT, cards_fit, level
from games.endeavor.scoring import final_scores, score_lines
from games.endeavor.validate import load_state

TRACK_GLORY_OPTIONS: Final = ("push-forward", "round-down")

INFO = GameInfo(
    name="endeavor",
    title="Endeavor",
    min_players=D.MIN_PLAYERS,
    max_players=D.MAX_PLAYERS,
    summary="Age-of-sail empire building: ship, occupy, attack and draw for glory in 7 rounds.",
    default_options={"track_glory": "push-forward"},
    option_bounds={"track_glory": OptionBounds(choices=TRACK_GLORY_OPTIONS)},
)

# Short names for the sizes that index the seat-major lists (``owned[s * NB + type]``,
# ``presence[s * NR + region]``), the cities and the sub-action targets, and for the
# tables the hot paths read. Final, so the compiled build reads each from a C static
# (data.py stays interpreted) instead of looking it up on its module at every use.
NB: Final = D.NUM_BUILDING_TYPES
NR: Final = D.NUM_REGIONS
NC: Final = D.NUM_CITIES
NT: Final = R.NT
NUM_CARDS: Final = D.NUM_CARDS
USE_BASE: Final = R.USE_BASE
SECOND_BASE: Final = R.SECOND_BASE
CITY_REGION: Final = D.CITY_REGION
CITY_LINKS: Final = D.CITY_LINKS
REGION_CITIES: Final = D.REGION_CITIES
TRACK_LENGTH: Final = D.TRACK_LENGTH
TRACK_OFFSET: Final = D.TRACK_OFFSET
TRACK_SPACE_BASE: Final = D.TRACK_SPACE_BASE
CONNECTION_SPACE_BASE: Final = D.CONNECTION_SPACE_BASE
DECK_REGION: Final = D.DECK_REGION
CARD_ICONS: Final = D.CARD_ICONS
CARD_DECK: Final = D.CARD_DECK
CARD_POSITION: Final = D.CARD_POSITION
CARD_IS_GOVERNOR: Final = D.CARD_IS_GOVERNOR
CARD_IS_SLAVERY: Final = D.CARD_IS_SLAVERY
GOVERNOR_OF_REGION: Final = D.GOVERNOR_OF_REGION
ABOLITION: Final = D.ABOLITION
BUILDING_ICONS: Final = D.BUILDING_ICONS
BUILDING_LEVEL: Final = D.BUILDING_LEVEL
SOURCE_KINDS: Final = R.SOURCE_KINDS
SOURCE_COMBO: Final = R.SOURCE_COMBO
ACTIVATABLE: Final = tuple(t for t in range(NB) if D.BUILDING_KINDS[t])
SHIP_TARGETS: Final = tuple(R.ship(r) for r in range(1, NR))
# A turn's action ids by source and target (``R.use``): listing them is the hot path of
# a search, and ids above 256 would otherwise be new int objects each time.
USES: Final = tuple(tuple(R.use(src, t) for t in range(NT)) for src in range(R.NUM_SOURCES))
SHIP_USES: Final = tuple(tuple(row[t] for t in SHIP_TARGETS) for row in USES)
FULL_DECK: Final = (1 << D.DECK_SIZE) - 1
# Lowest set bit -> its index, for masks of 6 bits.
LOWEST_BIT: Final = tuple(((m & -m).bit_length() - 1) if m else -1 for m in range(1 << D.DECK_SIZE))
SHIP: Final = D.SHIP
OCCUPY: Final = D.OCCUPY
ATTACK: Final = D.ATTACK
DRAW: Final = D.DRAW
PAY: Final = D.PAY
BOTH: Final = D.BOTH
FACE_DOWN: Final = R.LOC_FACE_DOWN
DOCKS: Final = D.BUILDING_NAMES.index("Docks")

_COPIED = Fields(
    shared=(
        "n",
        "round_down",
        "round",
        "crown",
        "phase",
        "to_move",
        "step",
        "salary_left",
        "pending",
        "pending_target",
        "abolished",
        "passed_count",
    ),
    lists=(
        "passed",
        "track_values",
        "supply",
        "harbor",
        "owned",
        "used",
        "building_supply",
        "city_owner",
        "space_token",
        "shipping_track",
        "beside_track",
        "blue_tokens",
        "brown_tokens",
        "spent_tokens",
        "card_location",
        "scores",
        "winners",
        "track_fill",
        "presence",
        "deck_mask",
    ),
)


_SERIALIZED: Final = tuple(
    name
    for name in _COPIED.names
    if name not in ("track_fill", "presence", "deck_mask", "passed_count")
)


class EndeavorState(State):
    """An Endeavor game: per-seat boards as flat lists (seat-major), the map and decks."""

    info: ClassVar[GameInfo] = INFO

    __slots__ = _COPIED.names
    # Serialized fields (to_dict): all but those derived from them (rebuilt by from_dict).
    _FIELDS: ClassVar[tuple[str, ...]] = _SERIALIZED

    def __init__(self, players: int = 0, round_down: bool = False) -> None:
        if not players:  # a blank that clone() fills (compiled classes have no bare __new__)
            return
        n = players
        self.n = n
        self.round_down = round_down
        self.round = 1
        self.crown = 0
        self.phase = R.BUILD
        self.to_move = 0
        self.step = 0  # position in turn order during Build / Salary
        self.salary_left = 0  # payments the Salary player still makes
        self.pending = R.PENDING_NONE  # second half of a "+" action on offer
        self.pending_target = 0  # its region or deck
        self.passed = [False] * n
        self.track_values = [0] * (n * TRACKS_PER_SEAT)  # raw status track values (may exceed 15)
        self.supply = [D.MARKERS] * n
        self.harbor = [0] * n
        self.owned = [0] * (n * NB)  # buildings owned by type
        self.used = [0] * (n * NB)  # of those, how many carry a marker
        for s in range(n):
            self.owned[s * NB + D.COLONIAL_HOUSE] = 1
        self.building_supply = list(D.BUILDING_SUPPLY)
        self.city_owner = [-1] * NC  # occupying seat
        self.space_token = [D.NO_TOKEN] * D.NUM_SPACES  # token still lying on each space
        self.shipping_track = [-1] * D.NUM_TRACK_SPACES  # seat on each shipping-track space
        self.beside_track = [0] * (n * NR)  # markers beside full tracks
        self.blue_tokens = [0] * (n * 4)  # unspent blue tokens in the harbor, by type - 4
        self.brown_tokens = [0] * (n * 4)  # brown tokens gained, by type
        self.spent_tokens = [0] * 4  # blue tokens spent (out of the game), by type - 4
        self.card_location = [R.LOC_DECK] * NUM_CARDS
        self.abolished = False
        self.scores: list[int] = []
        self.winners: list[int] = []
        # Derived.
        self.track_fill = [0] * NR  # filled spaces per track
        self.presence = [0] * (n * NR)  # Europe: cities; outer: cities + track + beside
        self.deck_mask = [FULL_DECK] * D.NUM_DECKS  # bit p: the card at position p is there
        self.passed_count = 0

    # ------------------------------------------------------------------ turn flow
    @property
    def num_players(self) -> int:
        return self.n

    def current_player(self) -> int:
        return self.to_move

    def _start_round(self) -> None:
        self.step = 0
        self._next_builder()

    def build_options(self, s: int) -> list[int]:
        """Building types seat ``s`` may take now (§9 Build, D5)."""
        owned = self.owned
        base = s * NB
        # At most one level-5 building (types 13-15) per player.
        has_level5 = owned[base + 13] or owned[base + 14] or owned[base + 15]
        supply = self.building_supply
        industry = self.track_level(s, D.INDUSTRY)
        options = [
            t
            for t in range(1, NB)
            if supply[t]
            and BUILDING_LEVEL[t] <= industry
            and not (has_level5 and BUILDING_LEVEL[t] == 5)
        ]
        if options:
            return options
        # Nothing left at or below your level: the lowest level above that still has tiles.
        for tier in range(industry + 1, 6):
            if tier == 5 and has_level5:
                break
            options = [t for t in range(1, NB) if supply[t] and BUILDING_LEVEL[t] == tier]
            if options:
                return options
        return []

    def _next_builder(self) -> None:
        n = self.n
        while self.step < n:
            s = (self.crown + self.step) % n
            if self.build_options(s):
                self.phase = R.BUILD
                self.to_move = s
                return
            self.step += 1  # no tile can be taken (never happens with 45 tiles)
        self._growth()
        self.step = 0
        self._next_salary()

    def _growth(self) -> None:
        for s in range(self.n):
            grow = self.track_level(s, D.CULTURE) + 1
            if grow > self.supply[s]:
                grow = self.supply[s]
            self.supply[s] -= grow
            self.harbor[s] += grow

    def _next_salary(self) -> None:
        n = self.n
        while self.step < n:
            s = (self.crown + self.step) % n
            pay = self.track_level(s, D.FINANCE)
            if self._salary_needs_choice(s, pay):
                self.phase = R.SALARY
                self.to_move = s
                self.salary_left = pay
                return
            self.step += 1
        self.salary_left = 0
        self._start_actions()

    def _salary_needs_choice(self, s: int, pay: int) -> bool:
        """Return markers automatically when the choice cannot matter; else True."""
        used = self.used
        base = s * NB
        total = 0
        kinds = 0
        for t in range(NB):
            if used[base + t]:
                total += used[base + t]
                kinds += 1
        if total <= pay:
            for t in range(NB):
                used[base + t] = 0
            self.harbor[s] += total
            return False
        if kinds == 1:
            for t in range(NB):
                if used[base + t]:
                    used[base + t] -= pay
            self.harbor[s] += pay
            return False
        return True

    def _start_actions(self) -> None:
        self.phase = R.ACTION
        self.passed = [False] * self.n
        self.passed_count = 0
        self.to_move = self.crown

    def _next_turn(self) -> None:
        self.pending = R.PENDING_NONE
        self.pending_target = 0
        if self.passed_count == self.n:
            self._end_action_phase()
            return
        n = self.n
        s = self.to_move
        passed = self.passed
        while True:
            s = (s + 1) % n
            if not passed[s]:
                break
        self.to_move = s
        self.phase = R.ACTION

    def _end_action_phase(self) -> None:
        # Card-limit discards happen only now, once everyone has passed (facts §13a D10),
        # in turn order from the first player, against each limit at this moment.
        n = self.n
        for k in range(n):
            s = (self.crown + k) % n
            if not self.holding_ok(s):
                self.phase = R.DISCARD
                self.to_move = s
                return
        if self.round >= D.ROUNDS or self._spaces_full():
            self._end_game()
            return
        self.round += 1
        self.crown = (self.crown + 1) % n
        self._start_round()

    def _spaces_full(self) -> bool:
        """Some player filled the 8th building space this round: it was the last."""
        owned = self.owned
        return any(sum(owned[s * NB : s * NB + NB]) >= D.BUILDING_SPACES for s in range(self.n))

    def _end_game(self) -> None:
        self.phase = R.OVER
        self.to_move = TERMINAL
        self.scores = final_scores(self)
        best = max(self.scores)
        self.winners = [s for s in range(self.n) if self.scores[s] == best]

    # ------------------------------------------------------------------ cards
    def hand(self, s: int) -> list[int]:
        """The cards seat ``s`` holds face up, by card id."""
        loc = self.card_location
        return [c for c in range(NUM_CARDS) if loc[c] == s]

    def holding_ok(self, s: int) -> bool:
        """Whether seat ``s``'s cards fit its card slots (§7.4)."""
        return cards_fit(self.track_values, self.card_location, s, free_slot=True)

    def track_level(self, s: int, track: int) -> int:
        """Level 1-5 of seat ``s``'s status track ``track`` (``D.INDUSTRY`` ...)."""
        return level(self.track_values[s * TRACKS_PER_SEAT + track])

    # ------------------------------------------------------------------ effects
    def _gain_token(self, s: int, space: int) -> None:
        k = self.space_token[space]
        if k < 0:
            return
        self.space_token[space] = D.NO_TOKEN
        if k < 4:
            self.track_values[s * TRACKS_PER_SEAT + k] += 1
            self.brown_tokens[s * 4 + k] += 1
        else:
            self.blue_tokens[s * 4 + k - 4] += 1

    def _add_icons(self, s: int, icons: tuple[int, ...], sign: int) -> None:
        trk = self.track_values
        b = s * 4
        trk[b] += sign * icons[0]
        trk[b + 1] += sign * icons[1]
        trk[b + 2] += sign * icons[2]
        trk[b + 3] += sign * icons[3]

    def _build(self, s: int, t: int) -> None:
        self.building_supply[t] -= 1
        self.owned[s * NB + t] += 1
        self._add_icons(s, BUILDING_ICONS[t], 1)

    def _ship(self, s: int, r: int) -> None:
        self.harbor[s] -= 1
        f = self.track_fill[r]
        if f < TRACK_LENGTH[r]:
            space = TRACK_OFFSET[r] + f
            self.shipping_track[space] = s
            self.track_fill[r] = f + 1
            self._gain_token(s, TRACK_SPACE_BASE + space)
            if f + 1 == TRACK_LENGTH[r]:
                self._award_governor(r)
        else:
            self.beside_track[s * NR + r] += 1  # beside the full track: presence, no token
        self.presence[s * NR + r] += 1

    def _award_governor(self, r: int) -> None:
        """The track is full: the region opens and its Governor goes to the most markers,
        ties to the tied player nearest the deck (§6.2)."""
        counts = [0] * self.n
        first = TRACK_OFFSET[r]
        last = first + TRACK_LENGTH[r]
        track = self.shipping_track
        for i in range(first, last):
            counts[track[i]] += 1
        best = max(counts)
        winner = -1
        for i in range(last - 1, first - 1, -1):
            if counts[track[i]] == best:
                winner = track[i]
                break
        card = GOVERNOR_OF_REGION[r]
        self.card_location[card] = winner
        self.deck_mask[r] &= ~1
        self._add_icons(winner, CARD_ICONS[card], 1)

    def _take_city(self, s: int, c: int) -> None:
        self.city_owner[c] = s
        self.presence[s * NR + CITY_REGION[c]] += 1
        self._gain_token(s, c)  # only the first occupier finds a token there
        city = self.city_owner
        space_tok = self.space_token
        for k, other in CITY_LINKS[c]:
            if city[other] == s and space_tok[CONNECTION_SPACE_BASE + k] >= 0:
                self._gain_token(s, CONNECTION_SPACE_BASE + k)

    def _occupy(self, s: int, c: int) -> None:
        self.harbor[s] -= 1
        self._take_city(s, c)

    def _attack(self, s: int, c: int) -> None:
        self.harbor[s] -= 2
        self.supply[s] += 1  # the attacker's paid marker
        d = self.city_owner[c]
        self.supply[d] += 1  # the defender's marker
        self.presence[d * NR + CITY_REGION[c]] -= 1
        self._take_city(s, c)

    def _draw(self, s: int, d: int) -> None:
        mask = self.deck_mask[d]
        pos = LOWEST_BIT[mask]
        self.deck_mask[d] = mask & ~(1 << pos)
        card = d * D.DECK_SIZE + pos
        self.card_location[card] = s
        self._add_icons(s, CARD_ICONS[card], 1)
        if card == ABOLITION:
            self._abolish()

    def _abolish(self) -> None:
        """Every Slavery card held goes face down (-1 glory each), the deck leaves the game."""
        self.abolished = True
        loc = self.card_location
        n = self.n
        for card in range(D.SLAVERY_DECK * D.DECK_SIZE, NUM_CARDS):
            holder = loc[card]
            if 0 <= holder < n:
                loc[card] = FACE_DOWN + holder
                self._add_icons(holder, CARD_ICONS[card], -1)
            elif holder == R.LOC_DECK:
                loc[card] = R.LOC_REMOVED
        self.deck_mask[D.SLAVERY_DECK] = 0

    def _discard(self, s: int, card: int) -> None:
        self._add_icons(s, CARD_ICONS[card], -1)
        if CARD_IS_SLAVERY[card]:
            self.card_location[card] = FACE_DOWN + s
        elif CARD_IS_GOVERNOR[card]:
            self.card_location[card] = R.LOC_REMOVED
        else:  # back into its deck at its level position
            self.card_location[card] = R.LOC_DECK
            self.deck_mask[CARD_DECK[card]] |= 1 << CARD_POSITION[card]

    def _pay(self, s: int, t: int) -> None:
        self.used[s * NB + t] -= 1
        self.harbor[s] += 1

    def _do(self, s: int, t: int) -> None:
        if t < R.T_OCCUPY:
            self._ship(s, t)
        elif t < R.T_ATTACK:
            self._occupy(s, t - R.T_OCCUPY)
        elif t < R.T_DRAW:
            self._attack(s, t - R.T_ATTACK)
        elif t < R.T_PAY:
            self._draw(s, t - R.T_DRAW)
        else:
            self._pay(s, t - R.T_PAY)

    # ------------------------------------------------------------------ legality helpers
    def _can_draw(self, s: int, d: int) -> bool:
        mask = self.deck_mask[d]
        if not mask:
            return False
        r = DECK_REGION[d]
        if r and self.track_fill[r] < TRACK_LENGTH[r]:
            return False  # the region is closed: its Governor still sits on top
        return self.presence[s * NR + r] >= LOWEST_BIT[mask]

    def _ok_regions(self, s: int) -> list[bool]:
        """Regions where ``s`` may Occupy / Attack: open and present (Europe always)."""
        fill = self.track_fill
        pres = self.presence
        b = s * NR
        ok = [True] * NR
        for r in range(1, NR):
            ok[r] = fill[r] == TRACK_LENGTH[r] and pres[b + r] > 0
        return ok

    def _second_targets(self) -> list[int]:
        s = self.to_move
        pend = self.pending
        arg = self.pending_target
        if pend == R.PENDING_SHIP:
            return [R.ship(arg)] if self.harbor[s] >= 1 else []
        if pend == R.PENDING_OCCUPY:
            if self.harbor[s] < 1 or self.track_fill[arg] < TRACK_LENGTH[arg]:
                return []
            city = self.city_owner
            return [R.occupy(c) for c in REGION_CITIES[arg] if city[c] < 0]
        if pend == R.PENDING_DRAW:
            return [R.draw(arg)] if self._can_draw(s, arg) else []
        return []

    # ------------------------------------------------------------------ actions
    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == R.ACTION:
            return self._turn_actions()
        if phase == R.SECOND:
            acts = [SECOND_BASE + t for t in self._second_targets()]
            acts.append(R.DONE)
            return acts
        if phase == R.BUILD:
            return [R.BUILD_BASE + t for t in self.build_options(self.to_move)]
        if phase == R.SALARY:
            base = self.to_move * NB
            used = self.used
            return [R.SALARY_BASE + t for t in range(NB) if used[base + t]]
        if phase == R.DISCARD:
            loc = self.card_location
            s = self.to_move
            return [R.DISCARD_BASE + c for c in range(NUM_CARDS) if loc[c] == s]
        return []

    def _turn_actions(self) -> list[int]:
        s = self.to_move
        markers = self.harbor[s]  # population markers in the harbor
        acts = [R.PASS]
        sources = []
        if markers >= 1:
            owned = self.owned
            used = self.used
            b = s * NB
            for t in ACTIVATABLE:
                if owned[b + t] > used[b + t]:
                    sources.append(t)
        blue = self.blue_tokens
        b4 = s * 4
        for k in range(4):
            if blue[b4 + k]:
                sources.append(R.TOKEN_SOURCE_BASE + k)
        if not sources:
            return acts
        kinds = 0
        for src in sources:
            kinds |= SOURCE_KINDS[src]
        occ: list[int] = []
        att: list[int] = []
        if kinds & (OCCUPY | ATTACK):  # sources without the markers are filtered below
            ok = self._ok_regions(s)
            city = self.city_owner
            for r in range(NR):  # a region's cities are numbered together, in region order
                if ok[r]:
                    for c in REGION_CITIES[r]:
                        o = city[c]
                        if o < 0:
                            occ.append(R.T_OCCUPY + c)
                        elif o != s:
                            att.append(R.T_ATTACK + c)
        drw: list[int] = []
        if kinds & DRAW:
            for d in range(D.NUM_DECKS):
                if self._can_draw(s, d):
                    drw.append(R.T_DRAW + d)
        pay: list[int] = []
        if kinds & PAY:
            used = self.used
            b = s * NB
            for t in range(NB):
                if used[b + t]:
                    pay.append(R.T_PAY + t)
        for src in sources:
            k = SOURCE_KINDS[src]
            uses = USES[src]
            budget = markers - 1 if src < NB else markers  # left after activating a building
            if k & SHIP and budget >= 1:
                acts.extend(SHIP_USES[src])
            if k & OCCUPY and budget >= 1 and occ:
                acts.extend([uses[t] for t in occ])
            if k & ATTACK and budget >= 2 and att:
                acts.extend([uses[t] for t in att])
            if k & DRAW and drw:
                acts.extend([uses[t] for t in drw])
            if k & PAY and pay:
                own = R.T_PAY + src  # a building cannot pay itself
                acts.extend([uses[t] for t in pay if t != own])
        return acts

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return []

    def apply_unchecked(self, action: int) -> None:
        phase = self.phase
        s = self.to_move
        if phase == R.ACTION:
            if action == R.PASS:
                # No discard here (facts §13a D10): a Governor awarded after this pass
                # can still raise the limit; discards wait for the end of the phase.
                self.passed[s] = True
                self.passed_count += 1
                self._next_turn()
                return
            src = (action - USE_BASE) // NT
            t = (action - USE_BASE) % NT
            if src < NB:
                self.used[s * NB + src] += 1
                self.harbor[s] -= 1
            else:
                self.blue_tokens[s * 4 + src - NB] -= 1
                self.spent_tokens[src - NB] += 1
            self._do(s, t)
            if SOURCE_COMBO[src] == BOTH:
                self._offer_second(src, t)
                if self.pending != R.PENDING_NONE:
                    return
            self._next_turn()
        elif phase == R.SECOND:
            if action != R.DONE:
                self._do(s, action - SECOND_BASE)
            self._next_turn()
        elif phase == R.BUILD:
            self._build(s, action - R.BUILD_BASE)
            self.step += 1
            self._next_builder()
        elif phase == R.SALARY:
            self._pay(s, action - R.SALARY_BASE)
            self.salary_left -= 1
            if self.salary_left == 0 or not self._salary_needs_choice(s, self.salary_left):
                self.step += 1
                self._next_salary()
        elif phase == R.DISCARD:
            self._discard(s, action - R.DISCARD_BASE)
            if self.holding_ok(s):
                self._end_action_phase()  # the next seat over its limit, or the next round
        else:
            raise IllegalActionError("the game is over")

    def _offer_second(self, src: int, t: int) -> None:
        """After the first half of a "+" action: offer the other half, or end the turn."""
        if src == DOCKS:
            if t < R.T_OCCUPY:
                self.pending, self.pending_target = R.PENDING_OCCUPY, t - R.T_SHIP
            else:
                r = CITY_REGION[t - R.T_OCCUPY]
                if r == D.EUROPE:
                    return  # Docks used only to Occupy in Europe (D7): nothing to ship to
                self.pending, self.pending_target = R.PENDING_SHIP, r
        elif t < R.T_OCCUPY:  # Cartographer
            self.pending, self.pending_target = R.PENDING_SHIP, t - R.T_SHIP
        else:  # Trade Office: the next card of the same deck
            self.pending, self.pending_target = R.PENDING_DRAW, t - R.T_DRAW
        if self._second_targets():
            self.phase = R.SECOND
        else:
            self.pending = R.PENDING_NONE
            self.pending_target = 0

    # ------------------------------------------------------------------ notation
    def action_to_string(self, action: int) -> str:
        if not R.SPACE.contains(action):
            raise NotationError(f"{action!r} is not an Endeavor action id (0..{R.NUM_ACTIONS - 1})")
        return R.SPACE.text(action)

    def string_to_action(self, text: str) -> int:
        if not isinstance(text, str):
            raise NotationError(f"notation must be text, not {type(text).__name__}")
        try:
            action = R.SPACE.parse(text)
        except ValueError:
            action = None
        if action is None:
            raise NotationError(
                f"cannot read {text!r} as an Endeavor action; examples: 'build Docks', "
                "'ship africa with Shipyard', 'occupy caribbean-2 with Colonial-House', "
                "'draw far-east with Market', 'pay Shipyard with Exchange', 'pass', 'done', "
                "'salary Shipyard', 'discard africa-3'"
            )
        if SECOND_BASE <= action < USE_BASE and self.phase == R.ACTION:
            # Convenience: a bare sub-action at the start of a turn names the only source.
            t = action - SECOND_BASE
            matches = [
                a for a in self._turn_actions() if a >= USE_BASE and (a - USE_BASE) % NT == t
            ]
            if len(matches) == 1:
                return matches[0]
            if matches:
                names = ", ".join(self.action_to_string(a) for a in matches)
                raise NotationError(f"{text!r} is ambiguous; say which source: {names}")
        return action

    # ------------------------------------------------------------------ information
    def observation(self, seat: int | None) -> dict[str, Any]:
        n = self.n
        players = []
        for s in range(n):
            t4 = self.track_values[s * TRACKS_PER_SEAT : (s + 1) * TRACKS_PER_SEAT]
            players.append(
                {
                    "tracks": dict(zip(D.TRACK_NAMES, t4, strict=True)),
                    "building_level": level(t4[0]),
                    "growth": level(t4[1]) + 1,
                    "salary": level(t4[2]),
                    "card_slots": level(t4[3]),
                    "supply": self.supply[s],
                    "harbor": self.harbor[s],
                    "on_buildings": sum(self.used[s * NB : s * NB + NB]),
                    "buildings": {
                        D.BUILDING_NAMES[t]: [self.owned[s * NB + t], self.used[s * NB + t]]
                        for t in range(NB)
                        if self.owned[s * NB + t]
                    },
                    "blue_tokens": dict(
                        zip(D.TOKEN_SLUGS[4:], self.blue_tokens[s * 4 : s * 4 + 4], strict=True)
                    ),
                    "brown_tokens": dict(
                        zip(D.TOKEN_SLUGS[:4], self.brown_tokens[s * 4 : s * 4 + 4], strict=True)
                    ),
                    "cards": [D.CARD_SLUGS[c] for c in self.hand(s)],
                    "face_down_slavery": [
                        D.CARD_SLUGS[c]
                        for c in range(NUM_CARDS)
                        if self.card_location[c] == FACE_DOWN + s
                    ],
                    "passed": self.passed[s],
                    "score": score_lines(self, s),
                }
            )
        return {
            "players": n,
            "viewer": seat,
            "round": self.round,
            "phase": R.PHASE_NAMES[self.phase],
            "crown": self.crown,
            "to_move": self.to_move,
            "pending": R.PENDING_NAMES[self.pending],
            "pending_target": self.pending_target,
            "salary_left": self.salary_left,
            "track_glory": TRACK_GLORY_OPTIONS[self.round_down],
            "abolished": self.abolished,
            "cities": [
                {
                    "id": D.CITY_SLUGS[c],
                    "owner": self.city_owner[c],
                    "token": _tok(self.space_token[c]),
                }
                for c in range(NC)
            ],
            "connections": [
                {
                    "ends": [D.CITY_SLUGS[a], D.CITY_SLUGS[b]],
                    "token": _tok(self.space_token[CONNECTION_SPACE_BASE + k]),
                }
                for k, (a, b) in enumerate(D.CONNECTIONS)
            ],
            "regions": [
                {
                    "id": D.REGION_SLUGS[r],
                    "open": r == D.EUROPE or self.track_fill[r] == TRACK_LENGTH[r],
                    "track": self.shipping_track[
                        TRACK_OFFSET[r] : TRACK_OFFSET[r] + TRACK_LENGTH[r]
                    ],
                    "track_tokens": [
                        _tok(self.space_token[TRACK_SPACE_BASE + i])
                        for i in range(TRACK_OFFSET[r], TRACK_OFFSET[r] + TRACK_LENGTH[r])
                    ],
                    "beside_track": [self.beside_track[s * NR + r] for s in range(n)],
                    "presence": [self.presence[s * NR + r] for s in range(n)],
                }
                for r in range(NR)
            ],
            "decks": {
                D.DECK_SLUGS[d]: [
                    D.CARD_SLUGS[d * D.DECK_SIZE + p]
                    for p in range(D.DECK_SIZE)
                    if self.deck_mask[d] >> p & 1
                ]
                for d in range(D.NUM_DECKS)
            },
            "building_supply": {D.BUILDING_NAMES[t]: self.building_supply[t] for t in range(1, NB)},
            "spent_tokens": dict(zip(D.TOKEN_SLUGS[4:], self.spent_tokens, strict=True)),
            "player_boards": players,
            "scores": list(self.scores),
            "winners": list(self.winners),
        }

    def determinize(self, seat: int, rng: random.Random) -> EndeavorState:
        return self.clone()  # nothing is hidden after set-up

    def returns(self) -> list[float]:
        if self.phase != R.OVER:
            return [0.0] * self.n
        return shared_win(self.winners, self.n)

    # ------------------------------------------------------------------ copying and bytes
    def clone(self) -> EndeavorState:
        """A copy: lists copied, immutable fields shared (``_COPIED``, one line each, so
        a compiled build emits plain slot copies)."""
        new = EndeavorState()  # a blank (see __init__)
        new.n = self.n
        new.round_down = self.round_down
        new.round = self.round
        new.crown = self.crown
        new.phase = self.phase
        new.to_move = self.to_move
        new.step = self.step
        new.salary_left = self.salary_left
        new.pending = self.pending
        new.pending_target = self.pending_target
        new.abolished = self.abolished
        new.passed_count = self.passed_count
        new.passed = self.passed[:]
        new.track_values = self.track_values[:]
        new.supply = self.supply[:]
        new.harbor = self.harbor[:]
        new.owned = self.owned[:]
        new.used = self.used[:]
        new.building_supply = self.building_supply[:]
        new.city_owner = self.city_owner[:]
        new.space_token = self.space_token[:]
        new.shipping_track = self.shipping_track[:]
        new.beside_track = self.beside_track[:]
        new.blue_tokens = self.blue_tokens[:]
        new.brown_tokens = self.brown_tokens[:]
        new.spent_tokens = self.spent_tokens[:]
        new.card_location = self.card_location[:]
        new.scores = self.scores[:]
        new.winners = self.winners[:]
        new.track_fill = self.track_fill[:]
        new.presence = self.presence[:]
        new.deck_mask = self.deck_mask[:]
        return new

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._FIELDS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EndeavorState:
        state: EndeavorState = load_state(cls, data)
        return state

    # ------------------------------------------------------------------ derived data
    def _derive(self) -> None:
        """Rebuild the incremental bookkeeping from the serialized fields."""
        n = self.n
        self.track_fill = [0] * NR
        for r in range(1, NR):
            f = 0
            while f < TRACK_LENGTH[r] and self.shipping_track[TRACK_OFFSET[r] + f] >= 0:
                f += 1
            self.track_fill[r] = f
        pres = [0] * (n * NR)
        for c in range(NC):
            if self.city_owner[c] >= 0:
                pres[self.city_owner[c] * NR + CITY_REGION[c]] += 1
        for r in range(1, NR):
            for i in range(TRACK_OFFSET[r], TRACK_OFFSET[r] + self.track_fill[r]):
                pres[self.shipping_track[i] * NR + r] += 1
            for s in range(n):
                pres[s * NR + r] += self.beside_track[s * NR + r]
        self.presence = pres
        masks = [0] * D.NUM_DECKS
        for c in range(NUM_CARDS):
            if self.card_location[c] == R.LOC_DECK:
                masks[CARD_DECK[c]] |= 1 << CARD_POSITION[c]
        self.deck_mask = masks
        self.passed_count = sum(self.passed)


def _tok(k: int) -> str | None:
    return D.TOKEN_SLUGS[k] if k >= 0 else None


class Endeavor(Game):
    """The Endeavor game type: its facts and new games from a seed."""

    info: ClassVar[GameInfo] = INFO
    state_class: ClassVar[type[State]] = EndeavorState

    @classmethod
    def new_game(
        cls, players: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> EndeavorState:
        cls.check_players(players)
        opts = cls.parse_options(options)
        mode = str(opts["track_glory"]).strip().lower()
        if mode not in TRACK_GLORY_OPTIONS:
            raise OptionsError(
                f"track_glory must be one of {', '.join(TRACK_GLORY_OPTIONS)}, not {mode!r}"
            )
        rng = random.Random(seed)
        state = EndeavorState(players, round_down=mode == "round-down")
        tokens = [k for k, count in enumerate(D.TOKEN_COUNTS) for _ in range(count)]
        rng.shuffle(tokens)  # one token face up on each of the 95 circles
        state.space_token = tokens
        state.crown = rng.randrange(players)
        state._start_round()
        return state
