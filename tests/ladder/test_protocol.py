"""The bot protocol's pure parts: the lines a bot reads, the reading of its answer,
the gamehost.bot helper, and who plays whom (pairing)."""

from __future__ import annotations

import io
import json
import random
from collections import Counter

import pytest

from gamehost.bot import Bot, run
from services.ladder import pairing, protocol
from services.ladder.model import Fault


def test_lines_are_one_json_object_each_with_the_issues_fields():
    start = json.loads(protocol.start_line("g1", "cite", 2, 1, {"rounds": 5}))
    assert start == {
        "type": "start",
        "protocol": 1,
        "game_id": "g1",
        "game_type": "cite",
        "players": 2,
        "seat": 1,
        "options": {"rounds": 5},
    }
    act = json.loads(protocol.act_line("g1", 1, {"round": 3}, [(4, "levy"), (9, "store")], 2500))
    assert act == {
        "type": "act",
        "game_id": "g1",
        "seat": 1,
        "state": {"round": 3},
        "legal": [{"id": 4, "notation": "levy"}, {"id": 9, "notation": "store"}],
        "ms_left": 2500,
    }
    end = json.loads(protocol.end_line("g1", [0.0, 1.0]))
    assert end == {"type": "end", "game_id": "g1", "returns": [0.0, 1.0]}
    for line in (protocol.start_line("g", "cite", 2, 0, {}), protocol.end_line("g", [1, 0])):
        assert "\n" not in line


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"id": 4}', (4, None)),
        ('  {"id": 9, "why": "greedy"}  ', (9, None)),  # other keys are ignored
        ('{"id": 5}', (None, Fault.ILLEGAL)),
        ('{"id": -1}', (None, Fault.ILLEGAL)),
        ('{"id": "4"}', (None, Fault.GARBAGE)),
        ('{"id": 4.0}', (None, Fault.GARBAGE)),
        ('{"id": true}', (None, Fault.GARBAGE)),
        ('{"move": 4}', (None, Fault.GARBAGE)),
        ("[4]", (None, Fault.GARBAGE)),
        ("4", (None, Fault.GARBAGE)),
        ("hello", (None, Fault.GARBAGE)),
        ("", (None, Fault.GARBAGE)),
        ('{"id": 4, "pad": "' + "x" * 2000 + '"}', (None, Fault.GARBAGE)),
    ],
)
def test_an_answer_is_an_id_among_the_legal_ones(line, expected):
    assert protocol.read_answer(line, {4, 9}) == expected


def test_the_python_helper_answers_every_act_and_passes_start_and_end():
    seen = []

    class Counting(Bot):
        def start(self, message):
            seen.append(("start", message["game_id"]))

        def act(self, message):
            return message["legal"][-1]["id"]

        def end(self, message):
            seen.append(("end", message["returns"]))

    lines = [
        protocol.start_line("g", "cite", 2, 0, {}),
        protocol.act_line("g", 0, {}, [(1, "a"), (7, "b")], 1000),
        "",
        protocol.act_line("g", 0, {}, [(3, "c")], 1000),
        protocol.end_line("g", [1.0, 0.0]),
    ]
    out = io.StringIO()
    Counting().run(io.StringIO("\n".join(lines) + "\n"), out)
    assert [json.loads(x) for x in out.getvalue().splitlines()] == [{"id": 7}, {"id": 3}]
    assert seen == [("start", "g"), ("end", [1.0, 0.0])]
    out = io.StringIO()
    run(lambda message: message["legal"][0]["id"], io.StringIO(lines[1] + "\n"), out)
    assert json.loads(out.getvalue()) == {"id": 1}


def test_rotations_seat_everyone_once_in_every_seat():
    for players in (2, 3, 4):
        names = [f"p{i}" for i in range(players)]
        sets = pairing.rotations(names)
        assert len(sets) == players
        for seat in range(players):
            assert sorted(seating[seat] for seating in sets) == names
        assert all(sorted(seating) == names for seating in sets)


def test_opponents_are_near_in_rating_and_the_far_ones_still_meet():
    rng = random.Random(7)
    candidates = [("near", 26.0), ("mid", 32.0), ("far", 45.0)]
    picks = Counter(
        pairing.choose_opponents(25.0, candidates, 1, rng, exploration=0.2)[0] for _ in range(3000)
    )
    assert picks["near"] > picks["mid"] > picks["far"] > 0
    greedy_only = Counter(
        pairing.choose_opponents(25.0, candidates, 1, rng, exploration=0.0)[0] for _ in range(3000)
    )
    assert greedy_only["far"] < picks["far"]  # exploration is what brings the far one
    two = pairing.choose_opponents(25.0, candidates, 2, rng, 0.2)
    assert len(set(two)) == 2
    assert pairing.choose_opponents(25.0, candidates[:1], 3, rng, 0.2) == ["near"]
