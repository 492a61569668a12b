"""Catan's protobuf view (``CatanView``), built from ``CatanState.observation``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gamehost.v1 import catan_pb2
from games.catan import board as B
from games.catan import rules as R

_PHASES = {name: i + 1 for i, name in enumerate(R.PHASE_NAMES)}
# The board's geometry, so a client can draw the map from the view alone.
_HEX_ROW_COL = tuple((r, c) for r, n in enumerate(B.ROW_LENGTHS) for c in range(n))
_HEX_PATHS = tuple(
    tuple(B.EDGE_ID[tuple(sorted((nodes[k], nodes[(k + 1) % 6])))] for k in range(len(nodes)))
    for nodes in B.HEX_NODES
)


# A 7's discards: one action per card, each hidden from the other seats only until
# every seat that must discard has (rules §19a.9): the cards then go back to the bank
# in front of everyone.
_DISCARDS = range(R.DISCARD_BASE, R.DISCARD_BASE + len(R.RESOURCE_NAMES))


def revealed_actions(actions: list[dict[str, Any]], state: Callable[[], Any]) -> set[int]:
    """Which of ``actions`` (a game's action events as stored, in log order) are
    discards made public since: every run of 7-discards followed by another action,
    and the last run too once the game (``state()``, now) has left the discard phase."""
    opened: set[int] = set()
    run: list[int] = []
    for index, action in enumerate(actions):
        if action["audience"] is not None and action["action"] in _DISCARDS:
            run.append(index)
        elif run:  # the robber moves only after the last discard
            opened.update(run)
            run = []
    if run and state().observation(None)["phase"] != R.PHASE_NAMES[R.DISCARD]:
        opened.update(run)
    return opened


_PRIVATE = ("resources", "discards_pending", "dev_cards", "dev_new", "vp")


def as_running(obs: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """A finished game's observation as while it ran: every hand and development card
    is shown only to its owner (``seat``; None: a spectator), the deck to no one. The
    engine opens them all at its end; a game of the same deal may still run."""
    seats = [
        p if index == seat else {**p, **dict.fromkeys(_PRIVATE)}
        for index, p in enumerate(obs["seats"])
    ]
    return {**obs, "seats": seats, "deck": None}


def _res(counts: list[int]) -> catan_pb2.CatanResources:
    return catan_pb2.CatanResources(
        brick=counts[0], lumber=counts[1], wool=counts[2], grain=counts[3], ore=counts[4]
    )


def _dev(counts: list[int]) -> catan_pb2.CatanDevCards:
    return catan_pb2.CatanDevCards(
        knight=counts[0],
        road_building=counts[1],
        year_of_plenty=counts[2],
        monopoly=counts[3],
        victory_point=counts[4],
    )


def build_view(obs: dict[str, Any]) -> catan_pb2.CatanView:
    view = catan_pb2.CatanView(
        robber_hex=obs["robber"],
        bank=_res(obs["bank"]),
        dev_deck_count=obs["deck_count"],
        dev_played=_dev(obs["played"]),
        phase=_PHASES[obs["phase"]],
        turn_seat=obs["turn"],
        acting_seat=obs["actor"],
        turn_number=obs["turn_no"],
        turn_limit=obs["turn_limit"],
        dice=obs["dice"],
        rolled=obs["rolled"],
        dev_card_played=obs["dev_played"],
        free_roads=obs["free_roads"],
        discard_left=obs["discard_left"],
        steal_victim=obs["steal_victim"],
        setup_step=obs["setup_index"],
        setup_intersection=obs["setup_node"],
        offers_made=obs["offers_made"],
        has_offer=obs["offer"] is not None,
        longest_road_seat=obs["longest_road"],
        largest_army_seat=obs["largest_army"],
        board=obs["board"],
        tokens=obs["tokens"],
    )
    view.discard_queue.extend(obs["discard_queue"])
    view.winners.extend(obs["winners"])
    for h, (terrain, number) in enumerate(zip(obs["hex_terrain"], obs["hex_number"], strict=True)):
        row, col = _HEX_ROW_COL[h]
        view.hexes.add(
            id=h,
            terrain=terrain + 1,
            number=number,
            row=row,
            col=col,
            intersections=B.HEX_NODES[h],
            paths=_HEX_PATHS[h],
        )
    for k, kind in enumerate(obs["harbor_type"]):
        generic = kind == R.GENERIC
        view.harbors.add(
            id=k,
            resource=0 if generic else kind + 1,
            rate=3 if generic else 2,
            path=B.HARBOR_EDGES[k],
            intersections=list(B.HARBOR_NODES[k]),
        )
    for v, owner in enumerate(obs["node_owner"]):
        if owner >= 0:
            view.buildings.add(intersection=v, seat=owner, city=bool(obs["node_city"][v]))
    for e, owner in enumerate(obs["edge_owner"]):
        if owner >= 0:
            view.roads.add(path=e, seat=owner)
    for seat, p in enumerate(obs["seats"]):
        player = view.players.add(
            seat=seat,
            resource_count=p["resource_count"],
            resources_known=_res(p["resources_known"]),
            resources_unknown=p["resources_unknown"],
            resources_visible=p["resources"] is not None,
            dev_count=p["dev_count"],
            dev_new_count=p["dev_new_count"],
            dev_visible=p["dev_cards"] is not None,
            knights_played=p["knights"],
            public_victory_points=p["public_vp"],
            victory_points=p["vp"] if p["vp"] is not None else -1,
            road_length=p["road_length"],
            longest_road=obs["longest_road"] == seat,
            largest_army=obs["largest_army"] == seat,
            roads_left=p["roads_left"],
            settlements_left=p["settlements_left"],
            cities_left=p["cities_left"],
            trade_rates=_res(p["rates"]),
        )
        if p["resources"] is not None:
            player.resources.CopyFrom(_res(p["resources"]))
        if p["dev_cards"] is not None:
            player.dev_cards.CopyFrom(_dev(p["dev_cards"]))
            player.dev_new.CopyFrom(_dev(p["dev_new"]))
    if obs["offer"] is not None:
        view.offer.give.CopyFrom(_res(obs["offer"]["give"]))
        view.offer.get.CopyFrom(_res(obs["offer"]["get"]))
        view.offer.answers.extend(obs["answers"])
    return view
