"""Endeavor's protobuf view (``EndeavorView``), built from ``EndeavorState.observation``."""

from __future__ import annotations

from typing import Any

from gamehost.v1 import endeavor_pb2 as pb
from games.endeavor import data as D

_PHASE = {
    "build": pb.ENDEAVOR_BUILD,
    "salary": pb.ENDEAVOR_SALARY,
    "action": pb.ENDEAVOR_ACTION,
    "second-half": pb.ENDEAVOR_SECOND_HALF,
    "discard": pb.ENDEAVOR_DISCARD,
    "over": pb.ENDEAVOR_OVER,
}


def _counts(mapping: dict[str, int]) -> list[pb.EndeavorCount]:
    return [pb.EndeavorCount(name=name, count=count) for name, count in mapping.items()]


def build_view(obs: dict[str, Any]) -> pb.EndeavorView:
    pending = obs["pending"]
    target = ""
    if pending == "draw":
        target = D.DECK_SLUGS[obs["pending_target"]]
    elif pending != "none":
        target = D.REGION_SLUGS[obs["pending_target"]]
    view = pb.EndeavorView(
        round=obs["round"],
        phase=_PHASE[obs["phase"]],
        crown_seat=obs["crown"],
        to_move=obs["to_move"],
        pending="" if pending == "none" else pending,
        pending_target=target,
        salary_left=obs["salary_left"],
        track_glory=obs["track_glory"],
        abolished=obs["abolished"],
        scores=obs["scores"],
        winners=obs["winners"],
    )
    for seat, p in enumerate(obs["player_boards"]):
        tracks = p["tracks"]
        view.players.add(
            seat=seat,
            industry=tracks["industry"],
            culture=tracks["culture"],
            finance=tracks["finance"],
            politics=tracks["politics"],
            building_level=p["building_level"],
            growth=p["growth"],
            salary=p["salary"],
            card_slots=p["card_slots"],
            supply=p["supply"],
            harbor=p["harbor"],
            on_buildings=p["on_buildings"],
            buildings=[
                pb.EndeavorBuilding(name=name, count=count, occupied=used)
                for name, (count, used) in p["buildings"].items()
            ],
            blue_tokens=_counts(p["blue_tokens"]),
            brown_tokens=_counts(p["brown_tokens"]),
            cards=p["cards"],
            face_down_slavery=p["face_down_slavery"],
            passed=p["passed"],
            score=pb.EndeavorScore(**p["score"], total=sum(p["score"].values())),
        )
    for c, city in enumerate(obs["cities"]):
        view.cities.add(
            id=city["id"],
            region=D.REGION_SLUGS[D.CITY_REGION[c]],
            glory=D.CITY_GLORY[c],
            owner=city["owner"],
            token=city["token"] or "",
        )
    for conn in obs["connections"]:
        a, b = conn["ends"]
        view.connections.add(a=a, b=b, token=conn["token"] or "")
    for region in obs["regions"]:
        view.regions.add(
            id=region["id"],
            open=region["open"],
            track=region["track"],
            track_tokens=[t or "" for t in region["track_tokens"]],
            beside_track=region["beside_track"],
            presence=region["presence"],
        )
    for deck, cards in obs["decks"].items():
        view.decks.add(id=deck, cards=cards)
    view.building_supply.extend(_counts(obs["building_supply"]))
    view.spent_tokens.extend(_counts(obs["spent_tokens"]))
    return view
