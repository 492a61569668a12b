"""§19a.8: domestic offers of any terms, whole in one line or drafted card by card."""

from __future__ import annotations

import random

import pytest

from games.base import IllegalActionError
from games.catan import rules as R
from games.catan.engine import CatanState
from services.views import view_of

from .helpers import act, hand, legal, position


def _table(**hands: dict[str, int]) -> CatanState:
    return position(
        settlements={0: [40], 1: [12], 2: [18], 3: [25]},
        hands={int(k[1:]): v for k, v in hands.items()},
    )


def test_give_3_wool_get_1_ore_is_one_action_and_trades():
    s = _table(s0={"wool": 3, "brick": 1}, s1={"ore": 2})
    action = s.string_to_action("give 3 wool get 1 ore")
    assert action >= R.FREE_OFFER_BASE and action not in s.legal_actions()  # not listed ...
    assert s.is_legal(action)  # ... but legal: the host and apply_action accept it
    assert s.action_to_string(action) == "give 3 wool get 1 ore"
    s.apply_action(action)
    assert s.phase == R.TRADE_ANSWER and s.offers_made == 1
    assert s.observation(None)["offer"] == {"give": [0, 0, 3, 0, 0], "get": [0, 0, 0, 0, 1]}
    assert view_of("catan", s, None).offer.give.wool == 3
    act(s, "accept", "decline", "decline", "trade with 1")
    assert hand(s, 0) == {"brick": 1, "ore": 1} and hand(s, 1) == {"wool": 3, "ore": 1}
    assert CatanState.from_dict(s.to_dict()) == s


def test_the_same_offer_drafted_card_by_card():
    s = _table(s0={"wool": 3, "brick": 1}, s1={"ore": 2})
    whole = s.string_to_action("give 3 wool get 1 ore")
    assert {"add give wool", "add give brick"} <= legal(s)
    assert not any(a.startswith("add get") for a in legal(s))  # a draft starts with a give
    act(s, "add give wool", "add give wool", "add get ore")
    # Drafting: only draft steps; give 2 wool get 1 ore is in the compact table, so it
    # is made by its own id, not from a draft.
    assert legal(s) == {
        "add give wool",
        "add give brick",
        "add get brick",
        "add get lumber",
        "add get grain",
        "add get ore",
        "drop offer",
    }
    assert s.observation(2)["draft"] == {"give": [0, 0, 2, 0, 0], "get": [0, 0, 0, 0, 1]}
    assert not s.is_legal(whole)  # no whole offer in the middle of a draft
    act(s, "add give wool")
    assert "add give wool" not in legal(s)  # seat 0 holds 3 wool
    assert CatanState.from_dict(s.to_dict()) == s
    act(s, "make offer")
    assert s.phase == R.TRADE_ANSWER and s.offer == whole - R.OFFER_BASE
    assert s.offers_made == 1 and not any(s.draft)


def test_a_big_ask_up_to_nineteen_of_a_kind():
    s = _table(s0={"brick": 1}, s1={"ore": 19})
    act(s, "give 1 brick get 19 ore", "accept", "decline", "decline", "trade with 1")
    assert hand(s, 0) == {"ore": 19} and hand(s, 1) == {"brick": 1}


def test_three_offers_and_no_repeat_hold_for_any_terms():
    s = _table(s0={"wool": 5, "brick": 2})
    act(s, "give 3 wool get 1 ore", "decline", "decline", "decline")
    again = s.string_to_action("give 3 wool get 1 ore")
    assert not s.is_legal(again)  # declined this turn
    with pytest.raises(IllegalActionError):
        s.apply_action(again)
    act(s, "add give wool", "add give wool", "add give wool", "add get ore")
    assert "make offer" not in legal(s)  # the same terms, drafted: still a repeat
    act(s, "add get ore", "make offer", "decline", "decline", "decline")
    act(s, "add give brick", "drop offer")  # an abandoned draft counts as an offer
    assert s.offers_made == 3
    assert not any(a.startswith(("give", "add")) for a in legal(s))
    assert not s.is_legal(s.string_to_action("give 4 wool get 1 grain"))
    act(s, "end")
    assert s.offers_made == 0 and s.declined == []


def test_an_offer_needs_the_cards_and_a_real_exchange():
    s = _table(s0={"wool": 2})
    assert not s.is_legal(s.string_to_action("give 3 wool get 1 ore"))
    assert not s.is_legal(R.FREE_OFFER_BASE)  # terms that are no offer (both sides asked)
    pre = position(phase="pre-roll", settlements={0: [40]}, hands={0: {"wool": 4}},
                   dev={0: {"knight": 1}})  # fmt: skip
    assert not pre.is_legal(pre.string_to_action("give 3 wool get 1 ore"))
    assert not any(a.startswith("add") for a in legal(pre))


def test_bots_answer_a_big_offer():
    from bots import choose_action

    s = _table(s0={"wool": 3}, s1={"ore": 2})
    act(s, "give 3 wool get 1 ore")
    choice = choose_action(s.determinize(1, random.Random(0)), 1, "random", 0)
    assert choice in (R.ACCEPT, R.DECLINE)
    heuristic = choose_action(s.determinize(1, random.Random(0)), 1, "mcts-fast", 0)
    assert heuristic in (R.ACCEPT, R.DECLINE)


def test_the_service_takes_the_one_line_offer():
    """The host parses notation and checks it with ``is_legal`` (one id, one log entry)."""
    from services.errors import FailedPrecondition
    from services.play.submitting import Submitting

    s = _table(s0={"wool": 3}, s1={"ore": 2})
    chosen = Submitting._parse(s, 0, None, "give 3 wool get 1 ore")
    assert s.action_to_string(chosen) == "give 3 wool get 1 ore"
    s.apply_action(chosen)
    with pytest.raises(FailedPrecondition):  # seat 1 answers now; and holds no wool
        Submitting._parse(s, 1, None, "give 3 wool get 1 ore")
