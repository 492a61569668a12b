"""Properties over thousands of random games: conservation of markers, tokens and cards,
tracks equal to the icons held, at most 7 rounds, exact replay, and the final score
recomputed independently from the scoring list.

Two policies: uniform random (passes early, short action phases) and "eager" (passes only
when nothing else is legal or with a small chance), which reaches the late-game positions:
full tracks, Governors, Abolition, attacks, card-limit discards.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.base import TERMINAL
from games.endeavor import data as D
from games.endeavor import rules as R
from games.endeavor.engine import Endeavor, EndeavorState
from tests.games.endeavor.helpers import CARD, markers

NB = D.NUM_BUILDING_TYPES


def choose(st: EndeavorState, rng: random.Random, eager: bool) -> int:
    legal = st.legal_actions()
    if eager and len(legal) > 1 and legal[0] == R.PASS and rng.random() > 0.03:
        return legal[rng.randrange(1, len(legal))]
    return legal[rng.randrange(len(legal))]


def invariants(st: EndeavorState) -> None:
    n = st.n
    # 30 population markers per player across supply, harbor, buildings and board.
    for s in range(n):
        assert markers(st, s) == D.MARKERS
        assert min(st.supply[s], st.harbor[s]) >= 0
    # 95 tokens: on the board, gained (brown), in harbors (blue) or spent.
    counts = Counter(k for k in st.space_token if k >= 0)
    for s in range(n):
        for k in range(4):
            counts[k] += st.brown_tokens[s * 4 + k]
            counts[4 + k] += st.blue_tokens[s * 4 + k]
    for k in range(4):
        counts[4 + k] += st.spent_tokens[k]
    assert [counts[k] for k in range(8)] == list(D.TOKEN_COUNTS)
    # 48 cards, each in one place; the decks are exactly the cards at LOC_DECK.
    places = Counter()
    for c, where in enumerate(st.card_location):
        if where == R.LOC_DECK:
            places["deck"] += 1
            assert st.deck_mask[D.CARD_DECK[c]] >> D.CARD_POSITION[c] & 1
        elif where == R.LOC_REMOVED:
            places["removed"] += 1
            assert D.CARD_IS_GOVERNOR[c] or D.CARD_IS_SLAVERY[c]
        elif where >= R.LOC_FACE_DOWN:
            places["face-down"] += 1
            assert D.CARD_IS_SLAVERY[c]
        else:
            places["held"] += 1
    assert sum(places.values()) == D.NUM_CARDS
    assert sum(bin(m).count("1") for m in st.deck_mask) == places["deck"]
    # Tracks are the sum of the icons of buildings, brown tokens and held cards.
    for s in range(n):
        for k in range(4):
            icons = st.brown_tokens[s * 4 + k]
            icons += sum(st.owned[s * NB + t] * D.BUILDING_ICONS[t][k] for t in range(NB))
            icons += sum(D.CARD_ICONS[c][k] for c in range(D.NUM_CARDS) if st.card_location[c] == s)
            assert st.track_values[s * 4 + k] == icons
    # 45 building tiles.
    assert sum(st.building_supply) + sum(st.owned) - n == 45
    assert 1 <= st.round <= D.ROUNDS


def recomputed_score(st: EndeavorState, s: int) -> int:
    """The scoring list (facts §9.1) applied to the public observation."""
    obs = st.observation(None)
    board = obs["player_boards"][s]
    table = D.GLORY_ROUND_DOWN if obs["track_glory"] == "round-down" else D.GLORY_PUSH_FORWARD
    total = sum(table[min(v, 15)] for v in board["tracks"].values())
    owner = {city["id"]: city["owner"] for city in obs["cities"]}
    total += sum(D.CITY_GLORY[D.CITY_SLUGS.index(cid)] for cid, o in owner.items() if o == s)
    total += sum(
        1 for conn in obs["connections"] if owner[conn["ends"][0]] == s == owner[conn["ends"][1]]
    )
    total += sum(D.CARD_GLORY[CARD[slug]] for slug in board["cards"])
    total += 3 * board["buildings"].get("University", [0, 0])[0]
    governors = sum(1 for slug in board["cards"] if slug.endswith("governor"))
    slaves = sum(1 for slug in board["cards"] if slug.startswith("slavery"))
    others = len(board["cards"]) - governors - slaves
    politics = board["tracks"]["politics"]
    slots = sum(1 for need in D.SLOT_POLITICS if politics >= need)
    slave_slot = 1 if politics < 10 else 0
    if governors + others + max(slaves - slave_slot, 0) <= slots:
        total += 3  # the Free Governor slot can stay empty
    total += board["harbor"] // 3
    total -= len(board["face_down_slavery"])
    return total


def play(players: int, seed: int, eager: bool, *, every_step: bool, stats: Counter):
    rng = random.Random(seed)
    options = {"track_glory": "round-down"} if seed % 5 == 0 else None
    st = Endeavor.new_game(players, seed, options)
    initial = st.clone()
    log: list[int] = []
    last_round = 1
    while not st.is_terminal():
        action = choose(st, rng, eager)
        if st.phase == R.SECOND:
            stats["second-half" if action != R.DONE else "skip"] += 1
        elif st.phase == R.DISCARD:
            stats["discard"] += 1
        elif st.phase == R.SALARY:
            stats["salary-choice"] += 1
        elif action >= R.USE_BASE:
            kind = R.target_kind((action - R.USE_BASE) % R.NT)
            stats[D.ACTION_KIND_NAMES[kind]] += 1
        st.apply_unchecked(action)
        log.append(action)
        if every_step or st.round != last_round:
            invariants(st)
            assert st.round >= last_round
            last_round = st.round
        assert len(log) < 5000
    invariants(st)
    assert st.round == D.ROUNDS and st.current_player() == TERMINAL
    stats["abolition"] += st.abolished
    stats["governors"] += sum(
        1 for c in range(D.NUM_CARDS) if D.CARD_IS_GOVERNOR[c] and st.card_location[c] != R.LOC_DECK
    )
    stats["beside-track"] += sum(st.beside_track)
    for s in range(players):
        assert st.scores[s] == recomputed_score(st, s)
    best = max(st.scores)
    assert st.winners == [s for s in range(players) if st.scores[s] == best]
    assert abs(sum(st.returns()) - 1.0) < 1e-9
    return initial, log, st


@pytest.mark.slow
def test_thousands_of_random_games_conserve_everything_and_score_right() -> None:
    stats: Counter = Counter()
    games = 0
    for seed in range(2400):
        play(3 + seed % 3, seed, eager=seed % 2 == 1, every_step=False, stats=stats)
        games += 1
    assert games == 2400
    # The random games reach every part of the rules.
    for event in ("ship", "occupy", "attack", "draw", "pay", "second-half", "skip",
                  "discard", "salary-choice", "abolition", "governors", "beside-track"):  # fmt: skip
        assert stats[event] > 0, event


def test_invariants_hold_after_every_action() -> None:
    stats: Counter = Counter()
    for seed in range(10_000, 10_240):
        play(3 + seed % 3, seed, eager=seed % 3 != 0, every_step=True, stats=stats)
    assert stats["attack"] > 0 and stats["abolition"] > 0


def test_replay_from_the_log_reproduces_the_final_state() -> None:
    stats: Counter = Counter()
    for seed in range(20_000, 20_300):
        initial, log, final = play(
            3 + seed % 3, seed, eager=seed % 2 == 0, every_step=False, stats=stats
        )
        stored = EndeavorState.from_bytes(initial.to_bytes())
        replayed = Endeavor.replay(stored, log)  # checked: every logged action is legal
        assert replayed.to_bytes() == final.to_bytes()
        # The notation log replays too.
        if seed % 10 == 0:
            texts = []
            st = stored.clone()
            for action in log:
                texts.append(st.action_to_string(action))
                st.apply_unchecked(action)
            again = stored.clone()
            for text in texts:
                again.apply_action(again.string_to_action(text))
            assert again == final


def test_bytes_mid_game_restore_the_same_game() -> None:
    rng = random.Random(5)
    for seed in range(30):
        st = Endeavor.new_game(4, seed)
        while not st.is_terminal():
            if rng.random() < 0.05:
                again = EndeavorState.from_bytes(st.to_bytes())
                assert again == st and again.legal_actions() == st.legal_actions()
                st = again
            st.apply_unchecked(choose(st, rng, eager=True))
