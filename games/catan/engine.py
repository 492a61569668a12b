"""Catan's rules engine, 3-4 players; notation and design: docs/games/catan-engine.md."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from games.base import (
    CHANCE,
    TERMINAL,
    CorruptStateError,
    Game,
    GameInfo,
    IllegalActionError,
    NotationError,
    OptionBounds,
    OptionsError,
    State,
    shared_win,
)
from games.catan import board as B
from games.catan import rules as R
from games.catan.roads import longest_road, longest_road_after
from games.copying import Fields

INFO = GameInfo(
    name="catan",
    title="Catan",
    min_players=3,
    max_players=4,
    summary="Settle an island: roll for resources, trade, build roads, settlements and "
    "cities; first to 10 victory points on their own turn wins.",
    default_options={"turn_limit": R.DEFAULT_TURN_LIMIT, "board": "random", "tokens": "spiral"},
    option_bounds={
        "turn_limit": OptionBounds(1, 10_000),
        "board": OptionBounds(choices=("random", "beginner")),
        "tokens": OptionBounds(choices=("spiral", "shuffled")),
    },
)

# Beginner layout (§6), rows top to bottom: (terrain, number).
_BEGINNER: Final[tuple[tuple[int, int], ...]] = (
    (R.MOUNTAINS, 10), (R.PASTURE, 2), (R.FOREST, 9),
    (R.FIELDS, 12), (R.HILLS, 6), (R.PASTURE, 4), (R.HILLS, 10),
    (R.FIELDS, 9), (R.FOREST, 11), (R.DESERT, 0), (R.FOREST, 3), (R.MOUNTAINS, 8),
    (R.FOREST, 8), (R.MOUNTAINS, 3), (R.FIELDS, 4), (R.PASTURE, 5),
    (R.HILLS, 5), (R.FIELDS, 6), (R.PASTURE, 11),
)  # fmt: skip
# Harbor types of the beginner board at the 9 standard spots, clockwise from the
# top-left. The facts file has not transcribed them from the illustration, so
# this is a fixed assignment of the project's own (documented in docs/games/catan.md).
BEGINNER_HARBORS: Final[tuple[int, ...]] = (
    R.GENERIC,
    R.WOOL,
    R.GENERIC,
    R.GENERIC,
    R.BRICK,
    R.LUMBER,
    R.GENERIC,
    R.GRAIN,
    R.ORE,
)

_RANGE5: Final = range(5)
_NODE_HEXES: Final = B.NODE_HEXES
_HEX_NODES: Final = B.HEX_NODES
_EDGE_NODES: Final = B.EDGE_NODES
_NODE_EDGES: Final = B.NODE_EDGES
_NODE_EDGE_MASK: Final = B.NODE_EDGE_MASK
_NODE_BLOCK_MASK: Final = B.NODE_BLOCK_MASK
_NODE_HEX_MASK: Final = B.NODE_HEX_MASK
_EDGE_NODE_MASK: Final = B.EDGE_NODE_MASK

_VP: Final = R.VICTORY_POINT
_ROAD_COST: Final = R.ROAD_COST
_SETTLEMENT_COST: Final = R.SETTLEMENT_COST
_CITY_COST: Final = R.CITY_COST
_DEV_COST: Final = R.DEV_COST
_ROAD_BASE: Final = R.ROAD_BASE
_SETTLE_BASE: Final = R.SETTLE_BASE
_CITY_BASE: Final = R.CITY_BASE
_ROBBER_BASE: Final = R.ROBBER_BASE
_DISCARD_BASE: Final = R.DISCARD_BASE
_MARITIME_BASE: Final = R.MARITIME_BASE
_OFFER_BASE: Final = R.OFFER_BASE
_DICE_BASE: Final = R.DICE_BASE
_DRAW_BASE: Final = R.DRAW_BASE
_STEAL_BASE: Final = R.STEAL_BASE
_STEAL_END: Final = R.STEAL_BASE + 5
_DRAFT_GIVE_BASE: Final = R.DRAFT_GIVE_BASE
_DRAFT_GET_BASE: Final = R.DRAFT_GET_BASE
_MAIN: Final = R.MAIN
_FREE_OFFER_KEY: Final = R.FREE_OFFER_BASE - R.OFFER_BASE

# Bits of a mask in ascending order, for masks of up to 16 bits at a time.
_BITS16: Final = tuple(tuple(i for i in range(16) if m >> i & 1) for m in range(1 << 16))


def _bits(mask: int) -> list[int]:
    """The set bits of ``mask``, ascending."""
    out: list[int] = []
    _add_bits(out, mask, 0)
    return out


def _add_bits(out: list[int], mask: int, base: int) -> None:
    """Append ``base + i`` for each set bit ``i`` of ``mask``, ascending (action ids
    straight into the list being made: no list of bits in between)."""
    while mask:
        chunk = mask & 0xFFFF
        if chunk:
            for i in _BITS16[chunk]:
                out.append(base + i)
        mask >>= 16
        base += 16


def _offer_lists() -> tuple[tuple[int, ...], ...]:
    """Offer ids a hand can make, by the hand capped at 2 per resource (base 3): the
    compact offers, then ``add give <r>`` for each resource held (a draft's start)."""
    lists = []
    for key in range(3**5):
        cap = [(key // 3**r) % 3 for r in _RANGE5]
        lists.append(
            tuple(
                R.OFFER_BASE + i
                for i, (give, _get) in enumerate(R.OFFERS)
                if all(give[r] <= cap[r] for r in _RANGE5)
            )
            + tuple(R.DRAFT_GIVE_BASE + r for r in _RANGE5 if cap[r])
        )
    return tuple(lists)


_OFFERS_BY_CAP: Final = _offer_lists()
# min(count, 2) for counts up to 102. Built by a loop: written as a tuple expression,
# mypyc makes it a 103-field C struct whose code takes gcc two minutes to compile.
_CAP3: Final[tuple[int, ...]] = tuple(min(count, 2) for count in range(103))


_COPIED = Fields(
    # The board tuples are immutable and shared between clones.
    shared=(
        "hex_terrain",
        "hex_number",
        "harbor_type",
        "num_hexes",
        "node_harbor",
        "board_kind",
        "tokens_kind",
        "n",
        "turn",
        "actor",
        "phase",
        "start_seat",
        "turn_no",
        "turn_limit",
        "occupied",
        "free_nodes",
        "edges_used",
        "lr_holder",
        "la_holder",
        "robber",
        "dice",
        "rolled",
        "dev_played",
        "free_roads",
        "free_placed",
        "discard_left",
        "steal_victim",
        "setup_index",
        "setup_node",
        "offers_made",
        "offer",
    ),
    lists=(
        "hand",
        "hidden",
        "dev",
        "dev_new",
        "dev_count",
        "bank",
        "deck",
        "played",
        "node_owner",
        "node_city",
        "edge_owner",
        "settle_mask",
        "city_mask",
        "road_mask",
        "road_nodes",
        "road_cand",
        "roads_left",
        "settles_left",
        "cities_left",
        "rates",
        "vp",
        "road_len",
        "knights",
        "discard_queue",
        "discard_pending",
        "declined",
        "draft",
        "answers",
        "winners",
    ),
)


class CatanState(State):
    """A Catan game: hands and pieces as flat per-seat lists and bit masks (for speed)."""

    info: ClassVar[GameInfo] = INFO

    __slots__ = _COPIED.names

    # ------------------------------------------------------------------ construction
    def __init__(
        self,
        players: int = 0,
        hex_terrain: tuple[int, ...] = (),
        hex_number: tuple[int, ...] = (),
        harbor_type: tuple[int, ...] = (),
        start_seat: int = 0,
        turn_limit: int = R.DEFAULT_TURN_LIMIT,
        board_kind: str = "random",
        tokens_kind: str = "spiral",
    ) -> None:
        if not players:  # a blank that clone() fills (compiled classes have no bare __new__)
            return
        n = players
        self.n = n
        self._set_board(hex_terrain, hex_number, harbor_type)
        self.board_kind = board_kind
        self.tokens_kind = tokens_kind
        self.start_seat = start_seat
        self.turn = start_seat
        self.actor = start_seat
        self.phase = R.SETUP_SETTLE
        self.turn_no = 0
        self.turn_limit = turn_limit
        self.hand = [0] * (5 * n)
        self.hidden = [0] * (5 * n)  # the unknown part of each hand, by true type
        self.dev = [0] * (5 * n)
        self.dev_new = [0] * (5 * n)  # bought this turn (subset of dev)
        self.dev_count = [0] * n
        self.bank = [R.RESOURCE_COUNT] * 5
        self.deck = list(R.DEV_DECK)
        self.played = [0] * 5  # played development cards, by type
        self.node_owner = [-1] * B.NUM_NODES
        self.node_city = [0] * B.NUM_NODES
        self.edge_owner = [-1] * B.NUM_EDGES
        self.settle_mask = [0] * n
        self.city_mask = [0] * n
        self.road_mask = [0] * n
        self.road_nodes = [0] * n  # intersections touched by the seat's roads
        self.road_cand = [0] * n  # paths next to where the seat may extend (used ones too)
        self.occupied = 0
        self.free_nodes = B.ALL_NODES  # intersections the distance rule allows
        self.edges_used = 0
        self.roads_left = [R.ROADS] * n
        self.settles_left = [R.SETTLEMENTS] * n
        self.cities_left = [R.CITIES] * n
        self.rates = [4] * (5 * n)
        self.vp = [0] * n  # public VP: buildings and special cards
        self.road_len = [0] * n
        self.knights = [0] * n
        self.lr_holder = R.NO_ONE
        self.la_holder = R.NO_ONE
        self.robber = hex_terrain.index(R.DESERT)
        self.dice = 0
        self.rolled = False
        self.dev_played = False
        self.free_roads = 0
        self.free_placed = 0
        self.discard_queue: list[int] = []
        self.discard_left = 0
        # 7 discards chosen but not yet revealed (§19a.9), per seat and resource: they
        # stay in ``hand`` (and out of the bank) until every affected seat has chosen.
        self.discard_pending = [0] * (5 * n)
        self.steal_victim = R.NO_ONE
        self.setup_index = 0
        self.setup_node = -1
        self.offers_made = 0
        self.declined: list[int] = []
        self.offer = -1  # the open offer's key (R.offer_key), -1 when none
        # An offer being drafted (§19a.8): + cards to give, - cards asked, per resource.
        self.draft = [0] * 5
        self.answers: list[int] = []  # per seat during an offer: 0 waiting, 1 accept, 2 decline
        self.winners: list[int] = []

    def _set_board(
        self, terrain: Sequence[int], number: Sequence[int], harbors: Sequence[int]
    ) -> None:
        self.hex_terrain = tuple(terrain)
        self.hex_number = tuple(number)
        self.harbor_type = tuple(harbors)
        by_sum: list[list[int]] = [[] for _ in range(13)]
        for h, num in enumerate(self.hex_number):
            if num:
                by_sum[num].append(h)
        self.num_hexes = tuple(tuple(hs) for hs in by_sum)
        node_harbor = [-1] * B.NUM_NODES
        for k, (a, b) in enumerate(B.HARBOR_NODES):
            node_harbor[a] = node_harbor[b] = self.harbor_type[k]
        self.node_harbor = tuple(node_harbor)

    # ------------------------------------------------------------------ turn flow
    @property
    def num_players(self) -> int:
        return self.n

    def current_player(self) -> int:
        return self.actor

    def setup_seat(self, index: int) -> int:
        """The seat placing at set-up step ``index`` (snake order)."""
        n = self.n
        k = index if index < n else 2 * n - 1 - index
        return (self.start_seat + k) % n

    def actual_vp(self, seat: int) -> int:
        """Victory points with the seat's hidden victory-point cards."""
        return self.vp[seat] + self.dev[5 * seat + _VP]

    def _start_turn(self) -> None:
        p = self.turn
        if self.vp[p] + self.dev[5 * p + _VP] >= R.WIN_VP:
            self._end_game([p])
            return
        if self.dev_count[p]:
            self.phase = R.PRE_ROLL
            self.actor = p
        else:
            self.phase = R.ROLL_DICE
            self.actor = CHANCE

    def _end_turn(self) -> None:
        p = self.turn
        if self.turn_no >= self.turn_limit:
            vps = [self.actual_vp(s) for s in range(self.n)]
            top = max(vps)
            self._end_game([s for s in range(self.n) if vps[s] == top])
            return
        b = 5 * p
        new = self.dev_new
        new[b] = new[b + 1] = new[b + 2] = new[b + 3] = new[b + 4] = 0
        self.rolled = False
        self.dev_played = False
        if self.offers_made:
            self.offers_made = 0
            self.declined = []
        self.turn = (p + 1) % self.n
        self.turn_no += 1
        self._start_turn()

    def _continue_turn(self) -> None:
        """Back to the turn after a robber, steal or card: the main phase, or the
        dice when they are not rolled yet (nothing else is left to do then)."""
        if self.rolled:
            self.phase = _MAIN
            self.actor = self.turn
        else:
            self.phase = R.ROLL_DICE
            self.actor = CHANCE

    def _end_game(self, winners: list[int]) -> None:
        self.winners = winners
        self.phase = R.OVER
        self.actor = TERMINAL

    def _check_win(self, p: int) -> bool:
        """A win counts only on the player's own turn (§16, E7)."""
        if p == self.turn and self.vp[p] + self.dev[5 * p + _VP] >= R.WIN_VP:
            self._end_game([p])
            return True
        return False

    # ------------------------------------------------------------------ pieces
    def _place_settlement(self, p: int, v: int) -> None:
        bit = 1 << v
        self.node_owner[v] = p
        self.settle_mask[p] |= bit
        self.occupied |= bit
        self.free_nodes &= ~_NODE_BLOCK_MASK[v]
        self.settles_left[p] -= 1
        self.vp[p] += 1
        self.road_cand[p] |= _NODE_EDGE_MASK[v]
        kind = self.node_harbor[v]
        if kind >= 0:
            rates = self.rates
            b = 5 * p
            if kind == R.GENERIC:
                for r in _RANGE5:
                    if rates[b + r] > 3:
                        rates[b + r] = 3
            else:
                rates[b + kind] = 2
        # An opponent's road through v is cut here (§13, E5).
        broken = False
        for q in range(self.n):
            if q != p and self.road_nodes[q] & bit:
                self._prune_candidates(q, v)
                if (self.road_mask[q] & _NODE_EDGE_MASK[v]).bit_count() >= 2:
                    length = longest_road(self.road_mask[q], self.occupied & ~self._own(q))
                    if length != self.road_len[q]:
                        self.road_len[q] = length
                        broken = True
        if broken:
            self._update_longest_road()

    def _own(self, q: int) -> int:
        return self.settle_mask[q] | self.city_mask[q]

    def _prune_candidates(self, q: int, v: int) -> None:
        """Seat q may no longer extend from v (an opponent built there)."""
        own = self._own(q)
        cand = self.road_cand[q]
        owner = self.node_owner
        for e in _NODE_EDGES[v]:
            if cand >> e & 1:
                a, b = _EDGE_NODES[e]
                w = b if a == v else a
                if not (own >> w & 1 or (self.road_nodes[q] >> w & 1 and owner[w] < 0)):
                    cand &= ~(1 << e)
        self.road_cand[q] = cand

    def _place_road(self, p: int, e: int) -> None:
        bit = 1 << e
        self.edge_owner[e] = p
        roads = self.road_mask[p] | bit
        self.road_mask[p] = roads
        self.edges_used |= bit
        self.roads_left[p] -= 1
        self.road_nodes[p] |= _EDGE_NODE_MASK[e]
        owner = self.node_owner
        a, b = _EDGE_NODES[e]
        cand = self.road_cand[p]
        o = owner[a]
        if o < 0 or o == p:
            cand |= _NODE_EDGE_MASK[a]
        o = owner[b]
        if o < 0 or o == p:
            cand |= _NODE_EDGE_MASK[b]
        self.road_cand[p] = cand
        blocked = self.occupied & ~(self.settle_mask[p] | self.city_mask[p])
        length = longest_road_after(roads, blocked, e, self.road_len[p])
        if length != self.road_len[p]:
            self.road_len[p] = length
            if length >= R.LONGEST_ROAD_MIN:
                self._update_longest_road()

    def _update_longest_road(self) -> None:
        """Apply §15's holder rules to the current road lengths (E5, E6).

        The holder keeps the card while their road is among the longest (ties
        included) and at least 5 long; otherwise it goes to the one player
        with the strictly longest road of 5+, or is set aside."""
        lens = self.road_len
        top = max(lens)
        holder = self.lr_holder
        if holder >= 0 and lens[holder] == top and top >= R.LONGEST_ROAD_MIN:
            return
        new = lens.index(top) if top >= R.LONGEST_ROAD_MIN and lens.count(top) == 1 else R.NO_ONE
        if new != holder:
            if holder >= 0:
                self.vp[holder] -= 2
            if new >= 0:
                self.vp[new] += 2
            self.lr_holder = new

    def _update_largest_army(self, p: int) -> None:
        k = self.knights[p]
        holder = self.la_holder
        if k >= R.LARGEST_ARMY_MIN and holder != p and (holder < 0 or k > self.knights[holder]):
            if holder >= 0:
                self.vp[holder] -= 2
            self.vp[p] += 2
            self.la_holder = p

    # ------------------------------------------------------------------ actions
    def illegal_reason(self, action: int) -> str | None:
        """Why a build the notation names is not legal here, in the board's terms."""
        name, values = R.SPACE.decode(action)
        p = self.actor
        if name in ("city", "settle") and self.phase in (R.MAIN, R.SETUP_SETTLE):
            v = values[0]
            if name == "city" and (self.node_owner[v] != p or self.node_city[v]):
                return f"no settlement of yours at {v}"
            if name == "settle" and self.node_owner[v] >= 0:
                return f"intersection {v} is taken"
            if name == "settle" and not (self.free_nodes >> v) & 1:
                return f"intersection {v} is next to a building (the distance rule)"
        phases = (R.MAIN, R.SETUP_ROAD, R.FREE_ROADS)
        if name == "road" and self.phase in phases and self.edge_owner[values[0]] >= 0:
            return f"path {values[0]} has a road already"
        return None

    def decline_offer_action(self) -> int | None:
        return (
            R.DECLINE
            if self.phase == R.TRADE_ANSWER and R.DECLINE in self.legal_actions()
            else None
        )

    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == _MAIN:
            return self._main_actions(True)
        return self._other_actions(phase)

    def actions_without_offers(self) -> list[int]:
        """``legal_actions`` less domestic offers: in the main phase no offer and no draft
        step (only ``drop offer`` while a draft is open), elsewhere all of them. What the
        bots consider (bots.heuristics.catan), made without listing the ~100 offers."""
        phase = self.phase
        if phase == _MAIN:
            return self._main_actions(False)
        return self._other_actions(phase)

    def _other_actions(self, phase: int) -> list[int]:
        """The legal actions of every phase but the main one."""
        if phase == R.PRE_ROLL:
            acts = [R.ROLL]
            if not self.dev_played:
                self._dev_actions(self.turn, acts)
            return acts
        if phase == R.DISCARD:
            b = 5 * self.actor
            h = self.hand
            pend = self.discard_pending
            return [_DISCARD_BASE + r for r in _RANGE5 if h[b + r] > pend[b + r]]
        if phase == R.ROBBER:
            return self._robber_actions()
        if phase == R.FREE_ROADS:
            acts = [R.STOP_ROADS] if self.free_placed else []
            p = self.turn
            _add_bits(acts, self.road_cand[p] & ~self.edges_used, _ROAD_BASE)
            return acts
        if phase == R.SETUP_SETTLE:
            acts = []
            _add_bits(acts, self.free_nodes, _SETTLE_BASE)
            return acts
        if phase == R.SETUP_ROAD:
            return [_ROAD_BASE + e for e in _NODE_EDGES[self.setup_node] if self.edge_owner[e] < 0]
        if phase == R.TRADE_ANSWER:
            _give, get = R.offer_terms(self.offer)
            b = 5 * self.actor
            h = self.hand
            if all(h[b + r] >= get[r] for r in _RANGE5):
                return [R.ACCEPT, R.DECLINE]
            return [R.DECLINE]
        if phase == R.TRADE_CONFIRM:
            return [R.CANCEL_TRADE] + [
                R.CONFIRM_BASE + s for s in range(self.n) if self.answers[s] == 1
            ]
        return []

    def _main_actions(self, offers: bool) -> list[int]:
        """The main phase's actions in ascending id order, domestic offers last (the
        offers and draft steps only when ``offers``)."""
        p = self.turn
        b = 5 * p
        h = self.hand
        draft = self.draft
        if draft[0] or draft[1] or draft[2] or draft[3] or draft[4]:
            return self._draft_actions() if offers else [R.DRAFT_DROP]
        brick, lumber, wool, grain, ore = h[b], h[b + 1], h[b + 2], h[b + 3], h[b + 4]
        acts = [R.END_TURN]
        deck = self.deck
        if wool and grain and ore and (deck[0] or deck[1] or deck[2] or deck[3] or deck[4]):
            acts.append(R.BUY_DEV)
        if self.dev_count[p] and not self.dev_played:
            self._dev_actions(p, acts)
        if brick and lumber:
            if self.roads_left[p]:
                cand = self.road_cand[p] & ~self.edges_used
                if cand:
                    _add_bits(acts, cand, _ROAD_BASE)
            if wool and grain and self.settles_left[p]:
                spots = self.road_nodes[p] & self.free_nodes
                if spots:
                    _add_bits(acts, spots, _SETTLE_BASE)
        if ore >= 3 and grain >= 2 and self.cities_left[p] and self.settle_mask[p]:
            _add_bits(acts, self.settle_mask[p], _CITY_BASE)
        rates = self.rates
        bank = self.bank
        for give in _RANGE5:
            if h[b + give] >= rates[b + give]:
                base = _MARITIME_BASE + 5 * give
                for get in _RANGE5:
                    if get != give and bank[get]:
                        acts.append(base + get)
        if offers and self.offers_made < R.MAX_OFFERS_PER_TURN:
            compact = _OFFERS_BY_CAP[
                _CAP3[brick]
                + 3 * _CAP3[lumber]
                + 9 * _CAP3[wool]
                + 27 * _CAP3[grain]
                + 81 * _CAP3[ore]
            ]
            if self.declined:
                declined = self.declined
                acts.extend([a for a in compact if a - _OFFER_BASE not in declined])
            else:
                acts.extend(compact)  # a draft starts with a card to give (§19a.8)
        return acts

    def _draft_actions(self) -> list[int]:
        """While drafting: add a card to either side, make the offer, or drop the draft."""
        draft = self.draft
        b = 5 * self.turn
        h = self.hand
        acts = [_DRAFT_GIVE_BASE + r for r in _RANGE5 if 0 <= draft[r] < h[b + r]]
        limit = R.MAX_OFFER_KIND
        acts.extend([_DRAFT_GET_BASE + r for r in _RANGE5 if 0 >= draft[r] > -limit])
        given = asked = 0
        for terms in draft:
            if terms > 0:
                given += terms
            elif terms < 0:
                asked -= terms
        # Offers of up to MAX_OFFER_SIDE cards a side are the compact table's, made by
        # their own id (one path per offer): only larger terms are made from a draft.
        # A draft's signed terms are a free-form offer's already (its limits hold card by
        # card), so its key is their code, what ``R.offer_key`` gives for the same terms.
        larger = given > R.MAX_OFFER_SIDE or asked > R.MAX_OFFER_SIDE
        if (
            given
            and asked
            and larger
            and _FREE_OFFER_KEY + R.terms_code(draft) not in self.declined
        ):
            acts.append(R.DRAFT_MAKE)
        acts.append(R.DRAFT_DROP)
        return acts

    def _draft_key(self) -> int | None:
        d = self.draft
        return R.offer_key(tuple(max(t, 0) for t in d), tuple(max(-t, 0) for t in d))

    def is_legal(self, action: object) -> bool:
        if type(action) is int and action >= R.FREE_OFFER_BASE:
            return self._whole_offer_ok(action - _OFFER_BASE)
        return super().is_legal(action)

    def _whole_offer_ok(self, key: int) -> bool:
        """A whole offer beyond the compact table, as its one-line notation gives it."""
        if self.phase != _MAIN or any(self.draft) or key < R.NUM_OFFERS:
            return False
        if self.offers_made >= R.MAX_OFFERS_PER_TURN or key in self.declined:
            return False
        if not R.is_offer_key(key):
            return False
        give, _get = R.offer_terms(key)
        b = 5 * self.turn
        return all(self.hand[b + r] >= give[r] for r in _RANGE5)

    def _dev_actions(self, p: int, acts: list[int]) -> None:
        """Development cards seat p may play now (held since before this turn, E8)."""
        b = 5 * p
        dev = self.dev
        new = self.dev_new
        if dev[b] > new[b]:
            acts.append(R.PLAY_KNIGHT)
        if dev[b + 1] > new[b + 1] and self.roads_left[p] and self.road_cand[p] & ~self.edges_used:
            acts.append(R.PLAY_ROAD_BUILDING)
        if dev[b + 2] > new[b + 2]:
            bank = self.bank
            total = bank[0] + bank[1] + bank[2] + bank[3] + bank[4]
            if total >= 2:
                for i, (x, y) in enumerate(R.YOP_PAIRS):
                    if bank[x] >= 2 if x == y else bank[x] and bank[y]:
                        acts.append(R.YOP_BASE + i)
            elif total == 1:
                acts.append(R.YOP_BASE + len(R.YOP_PAIRS) + bank.index(1))
        if dev[b + 3] > new[b + 3]:
            acts.extend(range(R.MONOPOLY_BASE, R.MONOPOLY_BASE + 5))

    def _robber_actions(self) -> list[int]:
        """Every other hex; with a victim named when an adjacent opponent holds cards."""
        p = self.turn
        n = self.n
        h = self.hand
        victims = [0] * n  # per seat that can be robbed: the hexes next to its buildings
        for q in range(n):
            b = 5 * q
            if q != p and (h[b] or h[b + 1] or h[b + 2] or h[b + 3] or h[b + 4]):
                hexes = 0
                for v in _bits(self.settle_mask[q] | self.city_mask[q]):
                    hexes |= _NODE_HEX_MASK[v]
                victims[q] = hexes
        acts = []
        robber = self.robber
        for hx in range(B.NUM_HEXES):
            if hx == robber:
                continue
            base = _ROBBER_BASE + 5 * hx
            named = False
            for q in range(n):
                if victims[q] >> hx & 1:
                    acts.append(base + 1 + q)
                    named = True
            if not named:
                acts.append(base)
        return acts

    def chance_outcomes(self) -> list[tuple[int, float]]:
        phase = self.phase
        if phase == R.ROLL_DICE:
            return list(R.DICE_OUTCOMES)
        if phase == R.DRAW_DEV:
            total = sum(self.deck)
            return [(_DRAW_BASE + t, c / total) for t, c in enumerate(self.deck) if c]
        if phase == R.STEAL:
            b = 5 * self.steal_victim
            cards = self.hand[b : b + 5]
            total = sum(cards)
            return [(_STEAL_BASE + r, c / total) for r, c in enumerate(cards) if c]
        return []

    def sample_chance(self, rng: random.Random) -> int:
        phase = self.phase
        if phase == R.ROLL_DICE:
            rnd = rng.random
            return _DICE_BASE - 2 + int(rnd() * 6) + int(rnd() * 6) + 2
        if phase == R.DRAW_DEV:
            counts = self.deck
            b = 0
            base = _DRAW_BASE
        elif phase == R.STEAL:
            counts = self.hand
            b = 5 * self.steal_victim
            base = _STEAL_BASE
        else:
            return super().sample_chance(rng)
        total = counts[b] + counts[b + 1] + counts[b + 2] + counts[b + 3] + counts[b + 4]
        x = int(rng.random() * total)
        for t in _RANGE5:
            x -= counts[b + t]
            if x < 0:
                return base + t
        return base + max(t for t in _RANGE5 if counts[b + t])

    def apply_action(self, action: object) -> None:
        if type(action) is not int:
            raise IllegalActionError(f"action ids are integers, not {action!r}")
        super().apply_action(action)

    def apply_unchecked(self, action: int) -> None:
        phase = self.phase
        if phase == _MAIN:
            if action >= _ROAD_BASE:
                if action < _SETTLE_BASE:
                    self._pay(self.turn, _ROAD_COST)
                    self._place_road(self.turn, action - _ROAD_BASE)
                    self._check_win(self.turn)
                elif action < _CITY_BASE:
                    p = self.turn
                    self._pay(p, _SETTLEMENT_COST)
                    self._place_settlement(p, action - _SETTLE_BASE)
                    self._check_win(p)
                elif action < _ROBBER_BASE:
                    self._build_city(action - _CITY_BASE)
                elif action >= _DRAFT_GIVE_BASE:
                    if action >= R.FREE_OFFER_BASE:
                        self._make_offer(action - _OFFER_BASE)
                    else:
                        self._draft_step(action)
                elif action >= _OFFER_BASE:
                    self._make_offer(action - _OFFER_BASE)
                else:
                    self._maritime(action - _MARITIME_BASE)
            elif action == R.END_TURN:
                self._end_turn()
            elif action == R.BUY_DEV:
                self._pay(self.turn, _DEV_COST)
                self.phase = R.DRAW_DEV
                self.actor = CHANCE
            else:
                self._play_dev(action)
        elif phase == R.ROLL_DICE:
            self._roll(action - _DICE_BASE + 2)
        elif phase == R.PRE_ROLL:
            if action == R.ROLL:
                self.phase = R.ROLL_DICE
                self.actor = CHANCE
            else:
                self._play_dev(action)
        elif phase == R.ROBBER:
            hx, victim = divmod(action - _ROBBER_BASE, 5)
            self.robber = hx
            if victim:
                self.steal_victim = victim - 1
                self.phase = R.STEAL
                self.actor = CHANCE
            else:
                self._continue_turn()
        elif phase == R.STEAL:
            self._steal(action - _STEAL_BASE)
        elif phase == R.DISCARD:
            self._discard(action - _DISCARD_BASE)
        elif phase == R.DRAW_DEV:
            self._draw(action - _DRAW_BASE)
        elif phase == R.FREE_ROADS:
            self._free_road(action)
        elif phase == R.SETUP_SETTLE:
            self._setup_settle(action - _SETTLE_BASE)
        elif phase == R.SETUP_ROAD:
            self._setup_road(action - _ROAD_BASE)
        elif phase == R.TRADE_ANSWER:
            self._answer(action == R.ACCEPT)
        elif phase == R.TRADE_CONFIRM:
            self._close_offer(action)
        else:
            raise IllegalActionError("the game is over")

    # ------------------------------------------------------------------ effects
    def _pay(self, p: int, cost: tuple[int, ...]) -> None:
        """Seat p pays ``cost`` (one of the cost tables) to the bank."""
        b = 5 * p
        h = self.hand
        bank = self.bank
        hid = self.hidden
        for r in _RANGE5:
            k = cost[r]
            if k:
                left = h[b + r] - k
                h[b + r] = left
                bank[r] += k
                if hid[b + r] > left:
                    hid[b + r] = left  # the card paid must have come from the unknown part

    def _lose(self, p: int, r: int, k: int) -> None:
        """Seat p gives up k of resource r in public (not to the bank)."""
        i = 5 * p + r
        left = self.hand[i] - k
        self.hand[i] = left
        if self.hidden[i] > left:
            self.hidden[i] = left

    def _reveal(self, p: int, counts: tuple[int, ...]) -> None:
        """Seat p shows it holds ``counts`` (an offer or an acceptance)."""
        b = 5 * p
        h = self.hand
        hid = self.hidden
        for r in _RANGE5:
            if counts[r]:
                most = h[b + r] - counts[r]
                if hid[b + r] > most:
                    hid[b + r] = most

    def _build_city(self, v: int) -> None:
        p = self.turn
        self._pay(p, _CITY_COST)
        bit = 1 << v
        self.settle_mask[p] &= ~bit
        self.city_mask[p] |= bit
        self.node_city[v] = 1
        self.settles_left[p] += 1
        self.cities_left[p] -= 1
        self.vp[p] += 1
        self._check_win(p)

    def _maritime(self, k: int) -> None:
        give, get = divmod(k, 5)
        p = self.turn
        b = 5 * p
        rate = self.rates[b + give]
        h = self.hand
        left = h[b + give] - rate
        h[b + give] = left
        if self.hidden[b + give] > left:
            self.hidden[b + give] = left
        self.bank[give] += rate
        h[b + get] += 1
        self.bank[get] -= 1

    def _roll(self, total: int) -> None:
        self.dice = total
        self.rolled = True
        p = self.turn
        if total == 7:
            n = self.n
            h = self.hand
            queue = []
            for k in range(n):
                s = (p + k) % n
                b = 5 * s
                if h[b] + h[b + 1] + h[b + 2] + h[b + 3] + h[b + 4] > R.DISCARD_LIMIT:
                    queue.append(s)
            if queue:
                self.discard_queue = queue
                first = 5 * queue[0]
                self.discard_left = (
                    h[first] + h[first + 1] + h[first + 2] + h[first + 3] + h[first + 4]
                ) // 2
                self.phase = R.DISCARD
                self.actor = queue[0]
            else:
                self.phase = R.ROBBER
                self.actor = p
            return
        self._produce(total)
        self.phase = _MAIN
        self.actor = p

    def _produce(self, total: int) -> None:
        """§10 with the bank-shortage rule per resource type (E1)."""
        owner = self.node_owner
        city = self.node_city
        terrain = self.hex_terrain
        robber = self.robber
        n = self.n
        need = [0, 0, 0, 0, 0]  # per resource, all seats together
        gains = [0] * (5 * n)  # per seat and resource, as ``hand``
        for hx in self.num_hexes[total]:
            if hx == robber:
                continue
            r = terrain[hx]
            for v in _HEX_NODES[hx]:
                o = owner[v]
                if o >= 0:
                    k = 1 + city[v]
                    gains[5 * o + r] += k
                    need[r] += k
        bank = self.bank
        h = self.hand
        for r in _RANGE5:
            want = need[r]
            if not want:
                continue
            if want <= bank[r]:
                for i in range(r, 5 * n, 5):
                    h[i] += gains[i]
                bank[r] -= want
                continue
            taker = -1
            for i in range(r, 5 * n, 5):
                if gains[i]:
                    if taker >= 0:  # several entitled and too few cards: nobody gets any
                        break
                    taker = i
            else:
                h[taker] += bank[r]  # the only one entitled takes what is left
                bank[r] = 0

    def _discard(self, r: int) -> None:
        # Set aside face down (§19a.9): nothing public changes until the last discard.
        self.discard_pending[5 * self.actor + r] += 1
        self.discard_left -= 1
        if self.discard_left == 0:
            queue = self.discard_queue
            queue.pop(0)
            if queue:
                b = 5 * queue[0]
                h = self.hand
                self.discard_left = (h[b] + h[b + 1] + h[b + 2] + h[b + 3] + h[b + 4]) // 2
                self.actor = queue[0]
            else:
                self._reveal_discards()
                self.phase = R.ROBBER
                self.actor = self.turn

    def _reveal_discards(self) -> None:
        """Every affected seat has chosen: all discards go to the bank together."""
        pend = self.discard_pending
        bank = self.bank
        for i, k in enumerate(pend):
            if k:
                self._lose(i // 5, i % 5, k)
                bank[i % 5] += k
                pend[i] = 0

    def _steal(self, r: int) -> None:
        thief = self.turn
        victim = self.steal_victim
        h = self.hand
        hid = self.hidden
        vb = 5 * victim
        # The public no longer knows which of the victim's cards went: each
        # type's known count drops by one where it could have been that type.
        for t in _RANGE5:
            known = h[vb + t] - hid[vb + t]
            after = h[vb + t] - (1 if t == r else 0)
            hid[vb + t] = after - (known - 1 if known > 0 else 0)
        h[vb + r] -= 1
        h[5 * thief + r] += 1
        hid[5 * thief + r] += 1
        self.steal_victim = R.NO_ONE
        self._continue_turn()

    def _draw(self, t: int) -> None:
        p = self.turn
        self.deck[t] -= 1
        i = 5 * p + t
        self.dev[i] += 1
        self.dev_new[i] += 1
        self.dev_count[p] += 1
        self.phase = _MAIN
        self.actor = p
        if t == _VP:
            self._check_win(p)

    def _play_dev(self, action: int) -> None:
        p = self.turn
        b = 5 * p
        self.dev_played = True
        if action == R.PLAY_KNIGHT:
            card = R.KNIGHT
        elif action == R.PLAY_ROAD_BUILDING:
            card = R.ROAD_BUILDING
        elif action < R.MONOPOLY_BASE:
            card = R.YEAR_OF_PLENTY
        else:
            card = R.MONOPOLY
        self.dev[b + card] -= 1
        self.dev_count[p] -= 1
        self.played[card] += 1
        if card == R.KNIGHT:
            self.knights[p] += 1
            self._update_largest_army(p)
            if self._check_win(p):
                return
            self.phase = R.ROBBER
            self.actor = p
        elif card == R.ROAD_BUILDING:
            self.free_roads = min(2, self.roads_left[p])
            self.free_placed = 0
            self.phase = R.FREE_ROADS
            self.actor = p
        elif card == R.YEAR_OF_PLENTY:
            for r in R.YOP_CHOICES[action - R.YOP_BASE]:
                self.hand[b + r] += 1
                self.bank[r] -= 1
            self._continue_turn()
        else:
            r = action - R.MONOPOLY_BASE
            taken = 0
            for q in range(self.n):
                if q != p:
                    k = self.hand[5 * q + r]
                    if k:
                        self._lose(q, r, k)
                        taken += k
            self.hand[b + r] += taken
            self._continue_turn()

    def _free_road(self, action: int) -> None:
        p = self.turn
        if action == R.STOP_ROADS:
            self.free_roads = 0
            self.free_placed = 0
            self._continue_turn()
            return
        self._place_road(p, action - _ROAD_BASE)
        if self._check_win(p):
            return
        self.free_roads -= 1
        self.free_placed += 1
        if (
            not self.free_roads
            or not self.roads_left[p]
            or not self.road_cand[p] & ~self.edges_used
        ):
            self.free_roads = 0
            self.free_placed = 0
            self._continue_turn()

    def _setup_settle(self, v: int) -> None:
        p = self.actor
        self._place_settlement(p, v)
        if self.setup_index >= self.n:  # the second settlement yields (§8.6)
            terrain = self.hex_terrain
            for hx in _NODE_HEXES[v]:
                r = terrain[hx]
                if r != R.DESERT:
                    self.hand[5 * p + r] += 1
                    self.bank[r] -= 1
        self.setup_node = v
        self.phase = R.SETUP_ROAD

    def _setup_road(self, e: int) -> None:
        self._place_road(self.actor, e)
        self.setup_node = -1
        self.setup_index += 1
        if self.setup_index == 2 * self.n:
            self.turn = self.start_seat
            self.turn_no = 1
            self._start_turn()
        else:
            self.actor = self.setup_seat(self.setup_index)
            self.phase = R.SETUP_SETTLE

    def _draft_step(self, action: int) -> None:
        draft = self.draft
        if action < _DRAFT_GET_BASE:
            draft[action - _DRAFT_GIVE_BASE] += 1
        elif action < R.DRAFT_MAKE:
            draft[action - _DRAFT_GET_BASE] -= 1
        elif action == R.DRAFT_MAKE:
            key = self._draft_key()
            assert key is not None
            self.draft = [0] * 5
            self._make_offer(key)
        else:  # dropped: it counts as one of the turn's offers, so drafting cannot loop
            self.draft = [0] * 5
            self.offers_made += 1

    def _make_offer(self, index: int) -> None:
        p = self.turn
        self.offers_made += 1
        self.offer = index
        self._reveal(p, R.offer_terms(index)[0])
        self.answers = [0] * self.n
        self.phase = R.TRADE_ANSWER
        self.actor = (p + 1) % self.n

    def _answer(self, accept: bool) -> None:
        s = self.actor
        if accept:
            self._reveal(s, R.offer_terms(self.offer)[1])
        self.answers[s] = 1 if accept else 2
        nxt = (s + 1) % self.n
        if nxt != self.turn:
            self.actor = nxt
        elif 1 in self.answers:
            self.phase = R.TRADE_CONFIRM
            self.actor = self.turn
        else:
            self.declined.append(self.offer)
            self._close_trade()

    def _close_offer(self, action: int) -> None:
        if action != R.CANCEL_TRADE:
            s = action - R.CONFIRM_BASE
            p = self.turn
            give, get = R.offer_terms(self.offer)
            h = self.hand
            for r in _RANGE5:
                if give[r]:
                    self._lose(p, r, give[r])
                    h[5 * s + r] += give[r]
                if get[r]:
                    self._lose(s, r, get[r])
                    h[5 * p + r] += get[r]
        self._close_trade()

    def _close_trade(self) -> None:
        self.offer = -1
        self.answers = []
        self.phase = _MAIN
        self.actor = self.turn

    # ------------------------------------------------------------------ notation
    def action_to_string(self, action: int) -> str:
        try:
            return R.SPACE.text(action, self)
        except ValueError:
            pass
        raise NotationError(
            f"{action!r} is not a Catan action id (0..{R.NUM_ACTIONS - 1}, or a whole "
            "offer as 'give ... get ...' reads it)"
        )

    def string_to_action(self, text: str) -> int:
        try:
            return R.SPACE.parse(text, self, limits={"seat": self.n, "victim": self.n + 1})
        except ValueError as exc:
            words = R.SPACE.words(text) if isinstance(text, str) else []
            if words and words[0] in R.SPACE.verbs():
                raise NotationError(f"cannot read {text!r}: {_reason(words, exc)}") from None
        raise NotationError(
            f"cannot read {text!r} as a Catan action; examples: 'settle 12', 'road 40', "
            "'city 12', 'buy dev', 'play knight', 'robber 7 rob 2', 'discard ore', "
            "'bank 4 brick for ore', 'give 2 wool get 1 ore', 'accept', 'trade with 2', 'end'"
        )

    # ------------------------------------------------------------------ hidden information
    def action_audience(self, action: int) -> frozenset[int] | None:
        if self.phase == R.DISCARD and _DISCARD_BASE <= action < _MARITIME_BASE:
            return frozenset((self.actor,))  # simultaneous discards (§19a.9)
        if _DRAW_BASE <= action < _STEAL_BASE:
            return frozenset((self.turn,))
        if _STEAL_BASE <= action < _STEAL_END:
            return frozenset((self.turn, self.steal_victim))
        return None

    def redacted_action_string(self, action: int) -> str:
        if self.phase == R.DISCARD and _DISCARD_BASE <= action < _MARITIME_BASE:
            return "discard ?"
        if _DRAW_BASE <= action < _STEAL_BASE:
            return "draw ?"
        if _STEAL_BASE <= action < _STEAL_END:
            return f"steal ? from {self.steal_victim}"
        return self.action_to_string(action)

    def observation(self, seat: int | None) -> dict[str, Any]:
        over = self.phase == R.OVER
        seats = []
        for s in range(self.n):
            b = 5 * s
            mine = over or seat == s
            hand = self.hand[b : b + 5]
            hid = self.hidden[b : b + 5]
            pend = self.discard_pending[b : b + 5]
            if mine and any(pend):  # the seat sees its own discards at once, others don't
                hand = [hand[r] - pend[r] for r in _RANGE5]
                hid = [min(hid[r], hand[r]) for r in _RANGE5]
            dev = self.dev[b : b + 5]
            seats.append(
                {
                    "resource_count": sum(hand),
                    "resources_known": [hand[r] - hid[r] for r in _RANGE5],
                    "resources_unknown": sum(hid),
                    "resources": hand if mine else None,
                    "discards_pending": pend if mine else None,
                    "dev_count": self.dev_count[s],
                    "dev_new_count": sum(self.dev_new[b : b + 5]),
                    "dev_cards": dev if mine else None,
                    "dev_new": self.dev_new[b : b + 5] if mine else None,
                    "knights": self.knights[s],
                    "public_vp": self.vp[s],
                    "vp": self.actual_vp(s) if mine else None,
                    "road_length": self.road_len[s],
                    "roads_left": self.roads_left[s],
                    "settlements_left": self.settles_left[s],
                    "cities_left": self.cities_left[s],
                    "rates": self.rates[b : b + 5],
                }
            )
        offer = None
        if self.offer >= 0:
            give, get = R.offer_terms(self.offer)
            offer = {"give": list(give), "get": list(get)}
        draft = None
        if any(self.draft):
            draft = {
                "give": [max(t, 0) for t in self.draft],
                "get": [max(-t, 0) for t in self.draft],
            }
        return {
            "players": self.n,
            "viewer": seat,
            "board": self.board_kind,
            "tokens": self.tokens_kind,
            "hex_terrain": list(self.hex_terrain),
            "hex_number": list(self.hex_number),
            "harbor_type": list(self.harbor_type),
            "phase": R.PHASE_NAMES[self.phase],
            "turn": self.turn,
            "actor": self.actor,
            "start_seat": self.start_seat,
            "turn_no": self.turn_no,
            "turn_limit": self.turn_limit,
            "robber": self.robber,
            "dice": self.dice,
            "bank": list(self.bank),
            "deck_count": sum(self.deck),
            "deck": list(self.deck) if over else None,
            "played": list(self.played),
            "node_owner": list(self.node_owner),
            "node_city": list(self.node_city),
            "edge_owner": list(self.edge_owner),
            "longest_road": self.lr_holder,
            "largest_army": self.la_holder,
            "rolled": self.rolled,
            "dev_played": self.dev_played,
            "free_roads": self.free_roads,
            "free_placed": self.free_placed,
            "discard_queue": list(self.discard_queue),
            "discard_left": self.discard_left,
            "steal_victim": self.steal_victim,
            "setup_index": self.setup_index,
            "setup_node": self.setup_node,
            "offers_made": self.offers_made,
            "declined": list(self.declined),
            "offer": offer,
            "offer_id": self.offer,
            "draft": draft,
            "answers": list(self.answers),
            "winners": list(self.winners),
            "seats": seats,
        }

    def determinize(self, seat: int, rng: random.Random) -> CatanState:
        """Deal again what ``seat`` cannot see: the unknown part of the other
        hands and the other seats' development cards (with the deck)."""
        state = self.clone()
        if self.phase == R.OVER:
            return state
        others = [s for s in range(self.n) if s != seat]
        hand, hid = state.hand, state.hidden
        pool = [0] * 5
        for s in others:
            for r in _RANGE5:
                pool[r] += hid[5 * s + r]
        cards = [r for r in _RANGE5 for _ in range(pool[r])]
        rng.shuffle(cards)
        for s in others:
            b = 5 * s
            count = sum(hid[b : b + 5])
            dealt, cards = cards[:count], cards[count:]
            for r in _RANGE5:
                hand[b + r] -= hid[b + r]
                hid[b + r] = 0
            for r in dealt:
                hand[b + r] += 1
                hid[b + r] += 1
        # Others' unrevealed 7 discards (§19a.9) are unseen: choose them again from the
        # (re-dealt) hand, as many as each seat set aside.
        pend = state.discard_pending
        for s in others:
            b = 5 * s
            count = sum(pend[b : b + 5])
            if count:
                held = [r for r in _RANGE5 for _ in range(hand[b + r])]
                pend[b : b + 5] = [0] * 5
                for r in rng.sample(held, count):
                    pend[b + r] += 1
        dev, new = state.dev, state.dev_new
        devpool = list(state.deck)
        for s in others:
            for t in _RANGE5:
                devpool[t] += dev[5 * s + t]
        cards = [t for t in _RANGE5 for _ in range(devpool[t])]
        rng.shuffle(cards)
        for s in others:
            b = 5 * s
            count = state.dev_count[s]
            fresh = sum(new[b : b + 5])
            dealt, cards = cards[:count], cards[count:]
            dev[b : b + 5] = [0] * 5
            new[b : b + 5] = [0] * 5
            for i, t in enumerate(dealt):
                dev[b + t] += 1
                if i < fresh:
                    new[b + t] += 1
        state.deck = [cards.count(t) for t in _RANGE5]
        return state

    # ------------------------------------------------------------------ outcome
    def returns(self) -> list[float]:
        if self.phase != R.OVER:
            return [0.0] * self.n
        return shared_win(self.winners, self.n)

    # ------------------------------------------------------------------ copying and bytes
    def clone(self) -> CatanState:
        """A copy: lists copied, immutable fields shared (``_COPIED``, one line each, so
        a compiled build emits plain slot copies)."""
        new = CatanState()  # a blank (see __init__)
        new.hex_terrain = self.hex_terrain
        new.hex_number = self.hex_number
        new.harbor_type = self.harbor_type
        new.num_hexes = self.num_hexes
        new.node_harbor = self.node_harbor
        new.board_kind = self.board_kind
        new.tokens_kind = self.tokens_kind
        new.n = self.n
        new.turn = self.turn
        new.actor = self.actor
        new.phase = self.phase
        new.start_seat = self.start_seat
        new.turn_no = self.turn_no
        new.turn_limit = self.turn_limit
        new.occupied = self.occupied
        new.free_nodes = self.free_nodes
        new.edges_used = self.edges_used
        new.lr_holder = self.lr_holder
        new.la_holder = self.la_holder
        new.robber = self.robber
        new.dice = self.dice
        new.rolled = self.rolled
        new.dev_played = self.dev_played
        new.free_roads = self.free_roads
        new.free_placed = self.free_placed
        new.discard_left = self.discard_left
        new.steal_victim = self.steal_victim
        new.setup_index = self.setup_index
        new.setup_node = self.setup_node
        new.offers_made = self.offers_made
        new.offer = self.offer
        new.hand = self.hand[:]
        new.hidden = self.hidden[:]
        new.dev = self.dev[:]
        new.dev_new = self.dev_new[:]
        new.dev_count = self.dev_count[:]
        new.bank = self.bank[:]
        new.deck = self.deck[:]
        new.played = self.played[:]
        new.node_owner = self.node_owner[:]
        new.node_city = self.node_city[:]
        new.edge_owner = self.edge_owner[:]
        new.settle_mask = self.settle_mask[:]
        new.city_mask = self.city_mask[:]
        new.road_mask = self.road_mask[:]
        new.road_nodes = self.road_nodes[:]
        new.road_cand = self.road_cand[:]
        new.roads_left = self.roads_left[:]
        new.settles_left = self.settles_left[:]
        new.cities_left = self.cities_left[:]
        new.rates = self.rates[:]
        new.vp = self.vp[:]
        new.road_len = self.road_len[:]
        new.knights = self.knights[:]
        new.discard_queue = self.discard_queue[:]
        new.discard_pending = self.discard_pending[:]
        new.declined = self.declined[:]
        new.draft = self.draft[:]
        new.answers = self.answers[:]
        new.winners = self.winners[:]
        return new

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "board": self.board_kind,
            "tokens": self.tokens_kind,
            "hex_terrain": list(self.hex_terrain),
            "hex_number": list(self.hex_number),
            "harbor_type": list(self.harbor_type),
            "start_seat": self.start_seat,
            "turn_limit": self.turn_limit,
            "phase": self.phase,
            "turn": self.turn,
            "turn_no": self.turn_no,
            "hand": self.hand,
            "hidden": self.hidden,
            "dev": self.dev,
            "dev_new": self.dev_new,
            "bank": self.bank,
            "deck": self.deck,
            "played": self.played,
            "node_owner": self.node_owner,
            "node_city": self.node_city,
            "edge_owner": self.edge_owner,
            "knights": self.knights,
            "lr_holder": self.lr_holder,
            "la_holder": self.la_holder,
            "robber": self.robber,
            "dice": self.dice,
            "rolled": self.rolled,
            "dev_played": self.dev_played,
            "free_roads": self.free_roads,
            "free_placed": self.free_placed,
            "discard_queue": self.discard_queue,
            "discard_left": self.discard_left,
            "discard_pending": self.discard_pending,
            "steal_victim": self.steal_victim,
            "setup_index": self.setup_index,
            "setup_node": self.setup_node,
            "offers_made": self.offers_made,
            "declined": self.declined,
            "offer": self.offer,
            "draft": self.draft,
            "answers": self.answers,
            "winners": self.winners,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CatanState:
        from games.catan.serial import load_state

        state: CatanState = load_state(cls, data)
        return state

    # ------------------------------------------------------------------ derived data
    def rebuild_derived(self) -> None:
        """Recompute every field that follows from the serialized ones."""
        n = self.n
        self.dev_count = [sum(self.dev[5 * s : 5 * s + 5]) for s in range(n)]
        self.settle_mask = [0] * n
        self.city_mask = [0] * n
        self.road_mask = [0] * n
        self.road_nodes = [0] * n
        self.occupied = 0
        self.free_nodes = B.ALL_NODES
        self.edges_used = 0
        self.rates = [4] * (5 * n)
        for v, o in enumerate(self.node_owner):
            if o < 0:
                continue
            bit = 1 << v
            self.occupied |= bit
            self.free_nodes &= ~_NODE_BLOCK_MASK[v]
            if self.node_city[v]:
                self.city_mask[o] |= bit
            else:
                self.settle_mask[o] |= bit
            kind = self.node_harbor[v]
            if kind == R.GENERIC:
                for r in _RANGE5:
                    self.rates[5 * o + r] = min(self.rates[5 * o + r], 3)
            elif kind >= 0:
                self.rates[5 * o + kind] = 2
        for e, o in enumerate(self.edge_owner):
            if o >= 0:
                self.road_mask[o] |= 1 << e
                self.road_nodes[o] |= _EDGE_NODE_MASK[e]
                self.edges_used |= 1 << e
        self.roads_left = [R.ROADS - self.road_mask[s].bit_count() for s in range(n)]
        self.settles_left = [R.SETTLEMENTS - self.settle_mask[s].bit_count() for s in range(n)]
        self.cities_left = [R.CITIES - self.city_mask[s].bit_count() for s in range(n)]
        self.road_cand = [0] * n
        self.road_len = [0] * n
        self.vp = [0] * n
        for s in range(n):
            own = self._own(s)
            ext = own | (self.road_nodes[s] & ~self.occupied)
            cand = 0
            for v in _bits(ext):
                cand |= _NODE_EDGE_MASK[v]
            self.road_cand[s] = cand
            self.road_len[s] = longest_road(self.road_mask[s], self.occupied & ~own)
            self.vp[s] = self.settle_mask[s].bit_count() + 2 * self.city_mask[s].bit_count()
        if self.lr_holder >= 0:
            self.vp[self.lr_holder] += 2
        if self.la_holder >= 0:
            self.vp[self.la_holder] += 2
        self.actor = self._derive_actor()

    def _derive_actor(self) -> int:
        phase = self.phase
        if phase == R.OVER:
            return TERMINAL
        if phase in (R.ROLL_DICE, R.STEAL, R.DRAW_DEV):
            return CHANCE
        if phase in (R.SETUP_SETTLE, R.SETUP_ROAD):
            return self.setup_seat(self.setup_index)
        if phase == R.DISCARD:
            return self.discard_queue[0]
        if phase == R.TRADE_ANSWER:
            for k in range(1, self.n):
                s = (self.turn + k) % self.n
                if self.answers[s] == 0:
                    return s
            raise CorruptStateError("an offer with every answer in is still waiting")
        return self.turn


class Catan(Game):
    """The Catan game type: its facts and new games from a seed."""

    info: ClassVar[GameInfo] = INFO
    state_class: ClassVar[type[State]] = CatanState

    @classmethod
    def new_game(
        cls, players: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> CatanState:
        cls.check_players(players)
        opts = cls.parse_options(options)
        if opts["turn_limit"] < 1:
            raise OptionsError("turn_limit must be at least 1")
        if opts["board"] not in ("random", "beginner"):
            raise OptionsError("board must be 'random' or 'beginner'")
        if opts["tokens"] not in ("spiral", "shuffled"):
            raise OptionsError("tokens must be 'spiral' or 'shuffled'")
        rng = random.Random(seed)
        terrain, numbers, harbors = make_board(rng, opts["board"], opts["tokens"])
        start = rng.randrange(players)  # §19a.6
        return CatanState(
            players,
            terrain,
            numbers,
            harbors,
            start_seat=start,
            turn_limit=opts["turn_limit"],
            board_kind=opts["board"],
            tokens_kind=opts["tokens"] if opts["board"] == "random" else "fixed",
        )


def make_board(
    rng: random.Random, kind: str = "random", tokens: str = "spiral"
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """(terrain per hex, token per hex (0 = desert), harbor type per spot)."""
    if kind == "beginner":
        return (
            tuple(t for t, _ in _BEGINNER),
            tuple(k for _, k in _BEGINNER),
            BEGINNER_HARBORS,
        )
    tiles = [t for t, count in enumerate(R.TERRAIN_COUNTS) for _ in range(count)]
    rng.shuffle(tiles)
    harbors = list(R.HARBOR_TYPES)
    rng.shuffle(harbors)
    numbers = [0] * B.NUM_HEXES
    if tokens == "spiral":
        order = B.spiral_order(rng.randrange(6), rng.random() < 0.5)
        letters = iter(R.TOKEN_LETTER_ORDER)
        for hx in order:
            if tiles[hx] != R.DESERT:
                numbers[hx] = next(letters)
    else:
        land = [hx for hx in range(B.NUM_HEXES) if tiles[hx] != R.DESERT]
        while True:
            values = list(R.TOKEN_LETTER_ORDER)
            rng.shuffle(values)
            numbers = [0] * B.NUM_HEXES
            for hx, value in zip(land, values, strict=True):
                numbers[hx] = value
            if not red_neighbours(numbers):
                break
    if red_neighbours(numbers):  # §4.1(b): checked whatever the method
        raise AssertionError("board generation put red tokens side by side")
    return tuple(tiles), tuple(numbers), tuple(harbors)


def red_neighbours(numbers: list[int] | tuple[int, ...]) -> bool:
    """True when two hexes with a 6 or an 8 touch."""
    for h, value in enumerate(numbers):
        if value in (6, 8):
            for g in B.HEX_NEIGHBORS[h]:
                if numbers[g] in (6, 8):
                    return True
    return False


_RANGES = {"settle": "intersection", "city": "intersection", "road": "path", "robber": "hex"}
_COUNTS = {"intersection": B.NUM_NODES, "path": B.NUM_EDGES, "hex": 19}


def _reason(words: list[str], exc: ValueError) -> str:
    """A notation error in the board's terms ("there is no intersection 99")."""
    kind = _RANGES.get(words[0])
    if kind and len(words) > 1 and words[1].isdigit() and int(words[1]) >= _COUNTS[kind]:
        return f"there is no {kind} {words[1]} (they are 0-{_COUNTS[kind] - 1})"
    return str(exc)
