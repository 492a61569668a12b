"""The shared action-space codec (games.actions) and each game's declared space.

Stored games, benchmark results and the API replay by id, so the id layout is pinned
here; the hot-path encoders of each rules module must agree with the codec.
"""

from __future__ import annotations

import random

import pytest

from games import get_game
from games.actions import ActionSpace, Family, Names, Number, OptionalArg
from games.catan import rules as catan
from games.cite import rules as cite
from games.endeavor import data as endeavor_data
from games.endeavor import rules as endeavor

SEAT = Number(4)
TOY = ActionSpace(
    [
        Family("end", "end", also=("end turn",)),
        Family(
            "deal", "deal {card} to {seat}", [("card", Names(("fire", "good-war"))), ("seat", SEAT)]
        ),
        Family(
            "robber",
            "robber {hex} {victim}",
            [("hex", Number(19)), ("victim", OptionalArg("rob", SEAT))],
        ),
        Family(
            "build", "build {building}", [("building", Names(("Guild-Hall", "Docks"), joiner="-"))]
        ),
        Family("dice", "dice {sum}", [("sum", Number(11, low=2))]),
    ],
    phrases=(("good war", "good-war"),),
)


def test_families_are_laid_out_in_order_with_mixed_radix_arguments() -> None:
    assert [TOY.base(f.name) for f in TOY.families] == [0, 1, 9, 104, 106]
    assert TOY.size == 117
    assert TOY.encode("deal", 1, 3) == 1 + 1 * 4 + 3
    assert TOY.decode(8) == ("deal", (1, 3))
    for action in range(TOY.size):
        name, values = TOY.decode(action)
        assert TOY.encode(name, *values) == action
        assert TOY.parse(TOY.text(action)) == action


def test_notation_reads_aliases_phrases_joined_names_and_optional_tails() -> None:
    assert TOY.parse("END  Turn") == 0
    assert TOY.parse("deal good war to 2") == TOY.encode("deal", 1, 2)
    assert TOY.text(TOY.encode("robber", 7, 0)) == "robber 7"
    assert TOY.parse("robber 7 rob 2") == TOY.encode("robber", 7, 3)
    assert TOY.parse("build guild hall") == TOY.encode("build", 0)
    assert TOY.text(TOY.encode("build", 0)) == "build Guild-Hall"
    assert TOY.text(TOY.encode("dice", 0)) == "dice 2"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "deal fire",
        "deal fire to 4",
        "dice 13",
        "dice 1",
        "robber 7 rob",
        "robber 7 steal 1",
        "end now",
    ],
)
def test_text_outside_the_space_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        TOY.parse(text)


def test_limits_cap_arguments_by_name_and_ids_outside_are_refused() -> None:
    assert TOY.parse("deal fire to 2", limits={"seat": 3}) == TOY.encode("deal", 0, 2)
    with pytest.raises(ValueError):
        TOY.parse("deal fire to 3", limits={"seat": 3})
    for bad in (-1, TOY.size, True, 1.0, "3"):
        with pytest.raises(ValueError):
            TOY.text(bad)
    with pytest.raises(ValueError):
        TOY.encode("deal", 2, 0)


def test_cite_ids_are_unchanged_and_encoders_agree() -> None:
    assert (cite.ATTACK_BASE, cite.DEAL_BASE, cite.ROLL_BASE, cite.DRAW_BASE) == (10, 16, 70, 75)
    assert cite.NUM_ACTIONS == 84 and cite.TAKE_WHEAT == 9
    for seat in range(cite.MAX_PLAYERS):
        assert cite.attack(seat) == cite.SPACE.encode("attack", seat)
        for card in range(cite.NUM_CARDS):
            assert cite.deal(card, seat) == cite.SPACE.encode("deal", card, seat)
    assert cite.SPACE.text(cite.deal(5, 2)) == "deal fire to 2"


def test_catan_ids_are_unchanged() -> None:
    bases = [
        catan.YOP_BASE, catan.MONOPOLY_BASE, catan.ACCEPT, catan.CONFIRM_BASE, catan.ROAD_BASE,
        catan.SETTLE_BASE, catan.CITY_BASE, catan.ROBBER_BASE, catan.DISCARD_BASE,
        catan.MARITIME_BASE, catan.OFFER_BASE, catan.DICE_BASE, catan.DRAW_BASE,
        catan.STEAL_BASE, catan.DRAFT_GIVE_BASE, catan.DRAFT_GET_BASE, catan.DRAFT_MAKE,
        catan.DRAFT_DROP, catan.NUM_ACTIONS, catan.FREE_OFFER_END,
    ]  # fmt: skip
    assert bases == [
        6, 26, 31, 34, 38, 110, 164, 218, 313, 318, 343, 573, 584, 589, 594, 599, 604, 605,
        606, 90224805,
    ]  # fmt: skip


def test_catan_whole_offers_parse_beyond_the_listed_space_and_stay_legal() -> None:
    state = get_game("catan").new_game(4, 3)
    action = state.string_to_action("give 3 wool get 1 ore")
    assert action >= catan.NUM_ACTIONS
    assert state.action_to_string(action) == "give 3 wool get 1 ore"
    assert state.string_to_action("give 1 wool get 1 ore") < catan.NUM_ACTIONS


def test_endeavor_ids_are_unchanged_and_encoders_agree() -> None:
    assert (endeavor.BUILD_BASE, endeavor.SALARY_BASE, endeavor.DISCARD_BASE) == (2, 18, 34)
    assert (endeavor.SECOND_BASE, endeavor.USE_BASE, endeavor.NUM_ACTIONS) == (82, 171, 1951)
    assert (endeavor.T_OCCUPY, endeavor.T_ATTACK, endeavor.T_DRAW, endeavor.T_PAY) == (
        7,
        36,
        65,
        73,
    )
    for source in range(endeavor.NUM_SOURCES):
        for target in range(endeavor.NT):
            assert endeavor.use(source, target) == endeavor.SPACE.encode("use", source, target)
    shipyard = endeavor_data.BUILDING_NAMES.index("Shipyard")
    assert (
        endeavor.SPACE.text(endeavor.use(shipyard, endeavor.ship(1))) == "ship africa with Shipyard"
    )


@pytest.mark.parametrize("name", ["cite", "catan", "endeavor"])
def test_every_listed_action_reads_back_from_its_notation(name: str) -> None:
    game = get_game(name)
    rng = random.Random(5)
    state = game.new_game(game.info.max_players, 5)
    for _ in range(400):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
            continue
        for action in state.legal_actions():
            assert state.string_to_action(state.action_to_string(action)) == action
        state.apply_action(rng.choice(state.legal_actions()))
