"""Cité's protobuf view (``CiteView``), built from ``CiteState.observation``."""

from __future__ import annotations

from typing import Any

from gamehost.v1 import cite_pb2

# Engine card index -> proto enum value (the enum reserves 0 for "unknown").
_CARD = [i + 1 for i in range(9)]
_PHASE = {
    "roll": cite_pb2.CITE_UPKEEP_AND_ROLL,
    "levy": cite_pb2.CITE_LEVY,
    "store": cite_pb2.CITE_STORE,
    "draw": cite_pb2.CITE_DRAW,
    "deal": cite_pb2.CITE_DEAL,
    "resolve": cite_pb2.CITE_RESOLVE,
    "war-spoils": cite_pb2.CITE_WAR_SPOILS,
    "over": cite_pb2.CITE_OVER,
}


def build_view(obs: dict[str, Any]) -> cite_pb2.CiteView:
    view = cite_pb2.CiteView(
        deck_count=obs["deck_count"],
        round=obs["round"],
        round_limit=obs["round_limit"],
        turn_seat=obs["turn"],
        phase=_PHASE[obs["phase"]],
        resolving_seat=obs["resolve_order"][0] if obs["resolve_order"] else -1,
        levied=obs["levied"],
    )
    view.winners.extend(obs["winners"])
    for card, count in enumerate(obs["discard"]):
        if count:
            view.discard.add(card=_CARD[card], count=count)
    for card in obs["drawn"] or ():
        view.drawn.append(_CARD[card])
    for seat, city in enumerate(obs["cities"]):
        gauges = city["gauges"]
        view.cities.add(
            seat=seat,
            standing=city["standing"],
            gold=gauges["gold"],
            wheat=gauges["wheat"],
            health=gauges["health"],
            civilians=gauges["civilians"],
            army=gauges["army"],
            has_granary=city["granary"] >= 0,
            granary_wheat=max(city["granary"], 0),
            has_outpost=city["outpost"] >= 0,
            outpost_army=max(city["outpost"], 0),
            holds_card=city["holds_card"],
            card=_CARD[city["card"]] if city["card"] is not None else 0,
        )
    return view
