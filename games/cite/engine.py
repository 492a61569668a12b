"""Cité's rules engine, 2-6 players; notation and design: docs/games/cite-engine.md."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

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
from games.checks import (
    checked_bool,
    checked_bools,
    checked_int,
    checked_ints,
    checked_list,
    require_fields,
)
from games.cite import rules as R
from games.copying import Fields

INFO = GameInfo(
    name="cite",
    title="Cité",
    min_players=2,
    max_players=R.MAX_PLAYERS,
    summary="Dice-and-card survival: keep five gauges in balance; the last city standing wins.",
    default_options={"round_limit": R.DEFAULT_ROUND_LIMIT},
    option_bounds={"round_limit": OptionBounds(1, R.MAX_ROUND_LIMIT)},
)


_COPIED = Fields(
    shared=("n", "phase", "turn", "actor", "to_draw", "round", "round_limit", "levied"),
    lists=(
        "standing",
        "granary",
        "outpost",
        "deck",
        "discard",
        "hand",
        "drawn",
        "deal_order",
        "resolve_order",
        "spoils",
        "winners",
    ),
    nested=("gauges",),
)


class CiteState(State):
    """A Cité game: per-city gauges and structures, the deck as counts, the turn's step."""

    info: ClassVar[GameInfo] = INFO

    __slots__ = _COPIED.names

    def __init__(self, players: int = 0, round_limit: int = R.DEFAULT_ROUND_LIMIT) -> None:
        if not players:  # a blank that clone() fills (compiled classes have no bare __new__)
            return
        self.n = players
        self.gauges = [[R.GAUGE_START] * 5 for _ in range(players)]
        self.standing = [True] * players
        self.granary = [R.NO_STRUCTURE] * players  # stored wheat, or NO_STRUCTURE
        self.outpost = [R.NO_STRUCTURE] * players  # stored army, or NO_STRUCTURE
        self.deck = list(R.DECK)
        self.discard = [0] * R.NUM_CARDS
        self.hand = [R.NO_CARD] * players  # the dealt card awaiting resolution
        self.drawn: list[int] = []  # the turn city's drawn, undealt cards
        self.phase = R.ROLL
        self.turn = 0  # the city whose turn it is
        self.actor = 0  # who decides now (seat), or CHANCE/TERMINAL
        self.to_draw = 0
        self.deal_order: list[int] = []  # recipients still to be dealt a card
        self.resolve_order: list[int] = []  # cities still to resolve, in turn order
        self.spoils: list[int] = []  # [winner, loser] while the winner chooses
        self.round = 1
        self.round_limit = round_limit
        self.levied = False
        self.winners: list[int] = []

    # ------------------------------------------------------------------ turn flow
    @property
    def num_players(self) -> int:
        return self.n

    def current_player(self) -> int:
        return self.actor

    def _start_turn(self) -> None:
        """Upkeep for ``self.turn`` then the roll's chance node."""
        self.levied = False
        self._upkeep(self.turn)
        if self.phase == R.OVER:
            return
        if not self.standing[self.turn]:
            self._next_turn()
            return
        self.phase = R.ROLL
        self.actor = CHANCE

    def _upkeep(self, seat: int) -> None:
        g = self.gauges[seat]
        health, wheat = g[R.HEALTH], g[R.WHEAT]
        # Evaluated on the start-of-turn values, then applied line by line [fixed].
        lines: list[tuple[int, int]] = []
        if health < 2:
            lines.append((R.CIVILIANS, -2))
        elif health < 4:
            lines.append((R.CIVILIANS, -1))
        if health > 8:
            lines.append((R.CIVILIANS, +1))
        if wheat < 1:
            lines.append((R.HEALTH, -2))
        elif wheat < 3:
            lines.append((R.HEALTH, -1))
        if wheat >= 8:
            lines.append((R.HEALTH, +1))
        for gauge, delta in lines:
            self._change(seat, gauge, delta)
            if self._check_falls() or not self.standing[seat]:
                return

    def _after_roll(self) -> None:
        """Steps 3 and 4 when they offer a choice, else straight to the draw."""
        if not self.levied and self._can_levy():
            self.phase = R.LEVY_STEP
            self.actor = self.turn
        else:
            self._enter_store()

    def _can_levy(self) -> bool:
        g = self.gauges[self.turn]
        return g[R.GOLD] >= 1 and g[R.CIVILIANS] >= 1

    def _store_actions(self) -> list[int]:
        seat = self.turn
        g = self.gauges[seat]
        actions = []
        granary = self.granary[seat]
        if granary != R.NO_STRUCTURE and granary < R.GRANARY_SLOTS and g[R.WHEAT] >= 1:
            actions.append(R.STORE_WHEAT)
        outpost = self.outpost[seat]
        if outpost != R.NO_STRUCTURE and outpost < R.OUTPOST_SLOTS and g[R.ARMY] >= 1:
            actions.append(R.STORE_ARMY)
        if granary != R.NO_STRUCTURE:
            actions.append(R.EMPTY_GRANARY)
        if actions:
            actions.append(R.DONE)
        return actions

    def _enter_store(self) -> None:
        if self._store_actions():
            self.phase = R.STORE_STEP
            self.actor = self.turn
        else:
            self._enter_draw()

    def _enter_draw(self) -> None:
        self.phase = R.DRAW
        self.drawn = []
        self.to_draw = sum(self.standing)
        self._refill_deck()
        self.actor = CHANCE

    def _refill_deck(self) -> None:
        """The deck is shuffled from the discard pile when empty."""
        if sum(self.deck) == 0:
            self.deck, self.discard = self.discard, [0] * R.NUM_CARDS

    def _enter_deal(self) -> None:
        order = self._seats_from(self.turn)[1:]
        self.deal_order = order
        if order and len(self.drawn) > 1:
            self.phase = R.DEAL
            self.actor = self.turn
        else:
            self._finish_deal()

    def _finish_deal(self) -> None:
        # The last undealt card is the turn city's own.
        for card in self.drawn:
            if self.hand[self.turn] == R.NO_CARD:
                self.hand[self.turn] = card
            else:  # unreachable with the deck sizes of the game; keeps cards conserved
                self.discard[card] += 1
        self.drawn = []
        self.resolve_order = [s for s in self._seats_from(self.turn) if self.hand[s] != R.NO_CARD]
        self._next_resolver()

    def _next_resolver(self) -> None:
        while self.resolve_order:
            seat = self.resolve_order[0]
            if self.standing[seat]:
                self.phase = R.RESOLVE
                self.actor = seat
                return
            # A city that fell before its card came up discards it.
            self._discard_hand(seat)
            self.resolve_order.pop(0)
        self._next_turn()

    def _end_resolution(self, seat: int) -> None:
        if self.hand[seat] != R.NO_CARD:
            self._discard_hand(seat)
        if self.resolve_order and self.resolve_order[0] == seat:
            self.resolve_order.pop(0)
        if self.phase != R.OVER:
            self._next_resolver()

    def _next_turn(self) -> None:
        if self.phase == R.OVER:
            return
        # Cards still held by cities (e.g. a fallen turn city's deal) go to the discard.
        for seat in range(self.n):
            if self.hand[seat] != R.NO_CARD:
                self._discard_hand(seat)
        for card in self.drawn:
            self.discard[card] += 1
        self.drawn = []
        self.resolve_order = []
        seat = self.turn
        for _ in range(self.n):
            seat = (seat + 1) % self.n
            if seat == 0:
                # Passing seat 0, the first player, starts a new round.
                self.round += 1
                if self.round > self.round_limit:
                    self._end_game([s for s in range(self.n) if self.standing[s]])
                    return
            if self.standing[seat]:
                break
        self.turn = seat
        self._start_turn()

    # ------------------------------------------------------------------ effects
    def _change(self, seat: int, gauge: int, delta: int) -> None:
        g = self.gauges[seat]
        g[gauge] = min(R.GAUGE_MAX, max(R.GAUGE_MIN, g[gauge] + delta))

    def _lose_army(self, seat: int, amount: int) -> None:
        """Army losses beyond the gauge fall on civilians [fixed]."""
        g = self.gauges[seat]
        taken = min(amount, g[R.ARMY])
        g[R.ARMY] -= taken
        if amount > taken:
            self._change(seat, R.CIVILIANS, -(amount - taken))

    def _check_falls(self) -> bool:
        """Mark fallen cities after one effect; True when that ended the game."""
        fell = []
        for seat in range(self.n):
            if not self.standing[seat]:
                continue
            g = self.gauges[seat]
            if g[R.CIVILIANS] == 0 or g[R.CIVILIANS] == R.GAUGE_MAX or g[R.ARMY] == R.GAUGE_MAX:
                fell.append(seat)
        if not fell:
            return False
        for seat in fell:
            self.standing[seat] = False
        left = [s for s in range(self.n) if self.standing[s]]
        if len(left) == 1:
            self._end_game(left)
        elif not left:
            self._end_game(fell)  # the last cities fell together: a shared win [fixed]
        return self.phase == R.OVER

    def _end_game(self, winners: list[int]) -> None:
        self.winners = winners
        self.phase = R.OVER
        self.actor = TERMINAL

    def _discard_hand(self, seat: int) -> None:
        self.discard[self.hand[seat]] += 1
        self.hand[seat] = R.NO_CARD

    def neighbours(self, seat: int) -> list[int]:
        """Nearest standing city each side, skipping fallen ones [fixed]."""
        result: list[int] = []
        for step in (1, -1):
            other = seat
            for _ in range(self.n - 1):
                other = (other + step) % self.n
                if self.standing[other]:
                    if other != seat and other not in result:
                        result.append(other)
                    break
        return result

    def _seats_from(self, first: int) -> list[int]:
        """Standing seats in turn order, starting with ``first``."""
        return [(first + k) % self.n for k in range(self.n) if self.standing[(first + k) % self.n]]

    def _play_card(self, seat: int, card: int) -> None:
        """Apply a card's effect, checking falls after each single effect."""
        self.hand[seat] = R.NO_CARD
        keep = False  # structures stay in front of the city
        if card == R.GRANARY:
            if self.granary[seat] == R.NO_STRUCTURE:
                self.granary[seat] = 0
                keep = True
        elif card == R.OUTPOST:
            if self.outpost[seat] == R.NO_STRUCTURE:
                self.outpost[seat] = 0
                keep = True
        elif card == R.ALLEGIANCE:
            if self.gauges[seat][R.GOLD] >= 2:
                self._change(seat, R.GOLD, -2)
            else:
                self._change(seat, R.CIVILIANS, -1)
            self._check_falls()
        elif card == R.HOSPITAL:
            self._change(seat, R.HEALTH, +1)
        elif card == R.FIRE:
            self._change(seat, R.WHEAT, -2)
        elif card == R.BARBARIANS:
            self._change(seat, R.WHEAT, -1)
            self._lose_army(seat, 1)
            self._check_falls()
        elif card == R.CIVIL_WAR:
            self._change(seat, R.CIVILIANS, -1)
            if not self._check_falls() and self.standing[seat]:
                self._lose_army(seat, 1)
                self._check_falls()
        elif card == R.LAND_OF_WELCOME:
            for other in self.neighbours(seat):
                self._change(other, R.CIVILIANS, -1)
                if self._check_falls():
                    break
                self._change(seat, R.CIVILIANS, +1)
                if self._check_falls() or not self.standing[seat]:
                    break
        if not keep:
            self.discard[card] += 1

    def _war(self, attacker: int, defender: int) -> bool:
        """Resolve a Good war; True when the winner now chooses spoils."""
        if self.outpost[defender] != R.NO_STRUCTURE:
            # The outpost falls with its troops and shields the city [fixed].
            self.outpost[defender] = R.NO_STRUCTURE
            self.discard[R.OUTPOST] += 1
            self._lose_army(attacker, 1)
            self._check_falls()
            return False
        a, d = self.gauges[attacker][R.ARMY], self.gauges[defender][R.ARMY]
        self._lose_army(attacker, 1)
        self._lose_army(defender, 1)
        if self._check_falls() or a == d:
            return False
        winner, loser = (attacker, defender) if a > d else (defender, attacker)
        if not self.standing[loser]:
            return False
        self._change(loser, R.CIVILIANS, -1)
        if self._check_falls() or not (self.standing[winner] and self.standing[loser]):
            return False
        lg = self.gauges[loser]
        if lg[R.GOLD] and lg[R.WHEAT]:
            self.spoils = [winner, loser]
            return True
        if lg[R.GOLD] or lg[R.WHEAT]:
            self._take(winner, loser, R.GOLD if lg[R.GOLD] else R.WHEAT)
        return False

    def _take(self, winner: int, loser: int, gauge: int) -> None:
        self._change(loser, gauge, -1)
        self._change(winner, gauge, +1)
        self._check_falls()

    # ------------------------------------------------------------------ actions
    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == R.LEVY_STEP:
            return [R.NO_LEVY, R.LEVY]
        if phase == R.STORE_STEP:
            return self._store_actions()
        if phase == R.DEAL:
            recipient = self.deal_order[0]
            return [R.deal(card, recipient) for card in sorted(set(self.drawn))]
        if phase == R.RESOLVE:
            seat = self.actor
            card = self.hand[seat]
            if card == R.GOOD_WAR:
                actions = [R.attack(other) for other in sorted(self.neighbours(seat))]
            else:
                actions = [R.PLAY]
            g = self.gauges[seat]
            if card != R.ALLEGIANCE and g[R.GOLD] >= 1 and g[R.WHEAT] >= 1:
                actions.append(R.DISCARD)
            return actions
        if phase == R.WAR_SPOILS:
            return [R.TAKE_GOLD, R.TAKE_WHEAT]
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.actor != CHANCE:
            return []
        if self.phase == R.ROLL:
            return [(R.roll(face), ways / 6) for face, ways in enumerate(R.FACE_WAYS)]
        total = sum(self.deck)
        return [(R.draw(card), count / total) for card, count in enumerate(self.deck) if count]

    def sample_chance(self, rng: random.Random) -> int:
        """``State.sample_chance`` over ``chance_outcomes`` (the same draw, the same
        float sums), without building the outcome list."""
        if self.actor != CHANCE:
            return super().sample_chance(rng)
        r = rng.random()
        acc = 0.0
        if self.phase == R.ROLL:
            for face in range(len(R.FACE_WAYS)):
                acc += R.FACE_WAYS[face] / 6
                if r < acc:
                    return R.roll(face)
            return R.roll(len(R.FACE_WAYS) - 1)
        deck = self.deck
        total = sum(deck)
        last = 0
        for card in range(R.NUM_CARDS):
            count = deck[card]
            if count:
                acc += count / total
                if r < acc:
                    return R.draw(card)
                last = card
        return R.draw(last)

    def apply_unchecked(self, action: int) -> None:
        phase = self.phase
        if phase == R.ROLL:
            gauge, delta = R.FACE_EFFECT[action - R.ROLL_BASE]
            self._change(self.turn, gauge, delta)
            self._after_roll()
        elif phase == R.DRAW:
            card = action - R.DRAW_BASE
            self.deck[card] -= 1
            self.drawn.append(card)
            self.to_draw -= 1
            self._refill_deck()
            if self.to_draw == 0 or sum(self.deck) == 0:
                self._enter_deal()
        elif phase == R.LEVY_STEP:
            self.levied = True
            if action == R.LEVY:
                seat = self.turn
                self._change(seat, R.GOLD, -1)
                self._change(seat, R.CIVILIANS, -1)
                self._change(seat, R.ARMY, +1)
                if self._check_falls():
                    return
                if not self.standing[seat]:
                    self._next_turn()
                    return
            self._enter_store()
        elif phase == R.STORE_STEP:
            self._store(action)
        elif phase == R.DEAL:
            card, recipient = divmod(action - R.DEAL_BASE, R.MAX_PLAYERS)
            self.drawn.remove(card)
            self.hand[recipient] = card
            self.deal_order.pop(0)
            if not self.deal_order or len(self.drawn) == 1:
                self._finish_deal()
        elif phase == R.RESOLVE:
            self._resolve(action)
        elif phase == R.WAR_SPOILS:
            winner, loser = self.spoils
            self.spoils = []
            self._take(winner, loser, R.GOLD if action == R.TAKE_GOLD else R.WHEAT)
            self._end_resolution(self.resolve_order[0])
        else:
            raise IllegalActionError("the game is over")

    def _store(self, action: int) -> None:
        seat = self.turn
        g = self.gauges[seat]
        if action == R.STORE_WHEAT:
            g[R.WHEAT] -= 1
            self.granary[seat] += 1
        elif action == R.STORE_ARMY:
            g[R.ARMY] -= 1
            self.outpost[seat] += 1
        elif action == R.EMPTY_GRANARY:
            self._change(seat, R.WHEAT, self.granary[seat])
            self.granary[seat] = R.NO_STRUCTURE
            self.discard[R.GRANARY] += 1
        if action == R.DONE or not self._store_actions():
            self._enter_draw()

    def _resolve(self, action: int) -> None:
        seat = self.actor
        card = self.hand[seat]
        if action == R.DISCARD:
            self._change(seat, R.GOLD, -1)
            self._change(seat, R.WHEAT, -1)
            self._end_resolution(seat)
            return
        if card == R.GOOD_WAR:
            self.hand[seat] = R.NO_CARD
            self.discard[R.GOOD_WAR] += 1
            if self._war(seat, action - R.ATTACK_BASE):
                self.phase = R.WAR_SPOILS
                self.actor = self.spoils[0]
                return
        else:
            self._play_card(seat, card)
        self._end_resolution(seat)

    # ------------------------------------------------------------------ notation
    def action_to_string(self, action: int) -> str:
        if not R.SPACE.contains(action):
            raise NotationError(f"{action} is not a Cité action id (0..{R.NUM_ACTIONS - 1})")
        return R.SPACE.text(action)

    def string_to_action(self, text: str) -> int:
        try:
            return R.SPACE.parse(text, limits={"seat": self.n})
        except ValueError:
            pass
        raise NotationError(
            f"cannot read {text!r} as a Cité action; examples: 'levy', 'store wheat', "
            f"'deal fire to 2', 'play', 'discard', 'attack 1', 'take gold'"
        )

    # ------------------------------------------------------------------ hidden information
    def action_audience(self, action: int) -> frozenset[int] | None:
        if R.DRAW_BASE <= action < R.NUM_ACTIONS:
            return frozenset((self.turn,))
        if R.DEAL_BASE <= action < R.ROLL_BASE:
            return frozenset((self.turn, (action - R.DEAL_BASE) % R.MAX_PLAYERS))
        return None

    def redacted_action_string(self, action: int) -> str:
        if R.DRAW_BASE <= action < R.NUM_ACTIONS:
            return "draw ?"
        if R.DEAL_BASE <= action < R.ROLL_BASE:
            return f"deal ? to {(action - R.DEAL_BASE) % R.MAX_PLAYERS}"
        return self.action_to_string(action)

    def _sees_hand(self, viewer: int | None, seat: int) -> bool:
        """A city sees its own card; the turn city sees every card it dealt."""
        return viewer is not None and (viewer == seat or viewer == self.turn)

    def observation(self, seat: int | None) -> dict[str, Any]:
        sees_drawn = seat is not None and seat == self.turn
        return {
            "players": self.n,
            "viewer": seat,
            "phase": R.PHASE_NAMES[self.phase],
            "turn": self.turn,
            "actor": self.actor,
            "round": self.round,
            "round_limit": self.round_limit,
            "levied": self.levied,
            "deck_count": sum(self.deck),
            "discard": list(self.discard),
            "drawn": list(self.drawn) if sees_drawn else None,
            "drawn_count": len(self.drawn),
            "to_draw": self.to_draw if self.phase == R.DRAW else 0,
            "deal_order": list(self.deal_order) if self.phase == R.DEAL else [],
            "resolve_order": list(self.resolve_order),
            "spoils": list(self.spoils),
            "winners": list(self.winners),
            "cities": [
                {
                    "gauges": dict(zip(R.GAUGE_NAMES, self.gauges[s], strict=True)),
                    "standing": self.standing[s],
                    "granary": self.granary[s],
                    "outpost": self.outpost[s],
                    "holds_card": self.hand[s] != R.NO_CARD,
                    "card": self.hand[s]
                    if self.hand[s] != R.NO_CARD and self._sees_hand(seat, s)
                    else None,
                }
                for s in range(self.n)
            ],
        }

    def determinize(self, seat: int, rng: random.Random) -> CiteState:
        """Resample the cards ``seat`` cannot see from the unseen pool (deck + hidden hands)."""
        state = self.clone()
        hidden = [
            s for s in range(self.n) if state.hand[s] != R.NO_CARD and not self._sees_hand(seat, s)
        ]
        hidden_drawn = seat != self.turn and bool(state.drawn)
        pool = list(state.deck)
        for s in hidden:
            pool[state.hand[s]] += 1
        if hidden_drawn:
            for card in state.drawn:
                pool[card] += 1
        # Canonical order, so the result depends on the observation and rng only.
        cards = [card for card in range(R.NUM_CARDS) for _ in range(pool[card])]
        rng.shuffle(cards)
        for s in hidden:
            card = cards.pop()
            state.hand[s] = card
            pool[card] -= 1
        if hidden_drawn:
            drawn = [cards.pop() for _ in state.drawn]
            for card in drawn:
                pool[card] -= 1
            state.drawn = sorted(drawn)
        state.deck = pool
        return state

    # ------------------------------------------------------------------ outcome
    def returns(self) -> list[float]:
        if self.phase != R.OVER:
            return [0.0] * self.n
        return shared_win(self.winners, self.n)

    # ------------------------------------------------------------------ copying and bytes
    def clone(self) -> CiteState:
        """A copy: lists copied, immutable fields shared (``_COPIED``, one line each, so
        a compiled build emits plain slot copies)."""
        new = CiteState()  # a blank (see __init__)
        new.n = self.n
        new.phase = self.phase
        new.turn = self.turn
        new.actor = self.actor
        new.to_draw = self.to_draw
        new.round = self.round
        new.round_limit = self.round_limit
        new.levied = self.levied
        new.standing = self.standing[:]
        new.granary = self.granary[:]
        new.outpost = self.outpost[:]
        new.deck = self.deck[:]
        new.discard = self.discard[:]
        new.hand = self.hand[:]
        new.drawn = self.drawn[:]
        new.deal_order = self.deal_order[:]
        new.resolve_order = self.resolve_order[:]
        new.spoils = self.spoils[:]
        new.winners = self.winners[:]
        new.gauges = [inner[:] for inner in self.gauges]
        return new

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _COPIED.names}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CiteState:
        data = require_fields(data, _COPIED.names, "Cité")
        n = checked_int(data["n"], 2, R.MAX_PLAYERS, "n")
        state = cls(n)
        state.gauges = [
            checked_ints(g, 5, R.GAUGE_MIN, R.GAUGE_MAX, "gauges")
            for g in checked_list(data["gauges"], n, "gauges")
        ]
        state.standing = checked_bools(data["standing"], n, "standing")
        state.granary = checked_ints(data["granary"], n, -1, R.GRANARY_SLOTS, "granary")
        state.outpost = checked_ints(data["outpost"], n, -1, R.OUTPOST_SLOTS, "outpost")
        state.deck = checked_ints(data["deck"], R.NUM_CARDS, 0, R.DECK_SIZE, "deck")
        state.discard = checked_ints(data["discard"], R.NUM_CARDS, 0, R.DECK_SIZE, "discard")
        state.hand = checked_ints(data["hand"], n, -1, R.NUM_CARDS - 1, "hand")
        state.drawn = checked_ints(data["drawn"], None, 0, R.NUM_CARDS - 1, "drawn")
        state.phase = checked_int(data["phase"], 0, R.OVER, "phase")
        state.turn = checked_int(data["turn"], 0, n - 1, "turn")
        state.actor = checked_int(data["actor"], TERMINAL, n - 1, "actor")
        state.to_draw = checked_int(data["to_draw"], 0, R.MAX_PLAYERS, "to_draw")
        state.deal_order = checked_ints(data["deal_order"], None, 0, n - 1, "deal_order")
        state.resolve_order = checked_ints(data["resolve_order"], None, 0, n - 1, "resolve_order")
        state.spoils = checked_ints(data["spoils"], None, 0, n - 1, "spoils")
        state.round_limit = checked_int(data["round_limit"], 1, R.MAX_ROUND_LIMIT, "round_limit")
        # The round passes the limit by one when the limit ends the game.
        state.round = checked_int(data["round"], 1, state.round_limit + 1, "round")
        state.levied = checked_bool(data["levied"], "levied")
        state.winners = checked_ints(data["winners"], None, 0, n - 1, "winners")
        if state.card_total() != R.DECK_SIZE:
            raise CorruptStateError("Cité state does not hold exactly 40 cards")
        return state

    def card_total(self) -> int:
        """Cards across deck, discard, hands, drawn and structures (always 40)."""
        structures = sum(1 for v in self.granary if v != R.NO_STRUCTURE) + sum(
            1 for v in self.outpost if v != R.NO_STRUCTURE
        )
        held = sum(1 for c in self.hand if c != R.NO_CARD)
        return sum(self.deck) + sum(self.discard) + held + len(self.drawn) + structures


class Cite(Game):
    """The Cité game type: its facts and new games."""

    info: ClassVar[GameInfo] = INFO
    state_class: ClassVar[type[State]] = CiteState

    @classmethod
    def new_game(
        cls, players: int, seed: int, options: Mapping[str, Any] | None = None
    ) -> CiteState:
        cls.check_players(players)
        opts = cls.parse_options(options)
        if not 1 <= opts["round_limit"] <= R.MAX_ROUND_LIMIT:
            raise OptionsError(f"round_limit must be between 1 and {R.MAX_ROUND_LIMIT}")
        state = CiteState(players, opts["round_limit"])
        state._start_turn()
        return state
