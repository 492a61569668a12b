"""Catan's typed protobuf view, built from an observation dict."""

from __future__ import annotations

from typing import Any

from gamehost.v1 import catan_pb2
from games.catan import board as B
from games.catan import rules as R

_PHASES = {name: i + 1 for i, name in enumerate(R.PHASE_NAMES)}


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
        view.hexes.add(id=h, terrain=terrain + 1, number=number)
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


def render_view(view: catan_pb2.CatanView) -> str:
    """A terminal rendering of a CatanView: the id map with the board and pieces,
    then one line per seat (for ``gamehost play``)."""
    from types import SimpleNamespace

    owner = [-1] * B.NUM_NODES
    city = [0] * B.NUM_NODES
    for b in view.buildings:
        owner[b.intersection] = b.seat
        city[b.intersection] = int(b.city)
    edges = [-1] * B.NUM_EDGES
    for road in view.roads:
        edges[road.path] = road.seat
    harbors = [R.GENERIC if h.rate == 3 else h.resource - 1 for h in view.harbors]
    board = SimpleNamespace(
        hex_terrain=[h.terrain - 1 for h in view.hexes],
        hex_number=[h.number for h in view.hexes],
        harbor_type=harbors,
        robber=view.robber_hex,
        num_players=len(view.players),
        node_owner=owner,
        node_city=city,
        edge_owner=edges,
    )
    lines = [B.render_map(board).rstrip("\n")]
    phase = catan_pb2.CatanPhase.Name(view.phase).removeprefix("CATAN_").lower()
    lines.append(
        f"turn {view.turn_number}/{view.turn_limit}: seat {view.turn_seat}  phase: {phase}  "
        f"dice: {view.dice or '-'}  bank: {_cards(view.bank)}  dev deck: {view.dev_deck_count}"
    )
    for p in view.players:
        hand = _cards(p.resources) if p.resources_visible else f"{p.resource_count} cards"
        dev = _devs(p.dev_cards) if p.dev_visible else f"{p.dev_count} dev"
        vp = p.victory_points if p.victory_points >= 0 else p.public_victory_points
        marks = (" LR" if p.longest_road else "") + (" LA" if p.largest_army else "")
        lines.append(
            f"  seat {p.seat}: {vp} VP{marks}  hand: {hand}  dev: {dev}  knights: "
            f"{p.knights_played}  road: {p.road_length}"
        )
    if view.has_offer:
        lines.append(f"  offer: give {_cards(view.offer.give)} get {_cards(view.offer.get)}")
    return "\n".join(lines)


def _cards(res: catan_pb2.CatanResources) -> str:
    counts = (res.brick, res.lumber, res.wool, res.grain, res.ore)
    text = " ".join(f"{k} {R.RESOURCE_NAMES[r]}" for r, k in enumerate(counts) if k)
    return text or "-"


def _devs(dev: catan_pb2.CatanDevCards) -> str:
    counts = (dev.knight, dev.road_building, dev.year_of_plenty, dev.monopoly, dev.victory_point)
    text = " ".join(f"{k} {R.DEV_NAMES[t]}" for t, k in enumerate(counts) if k)
    return text or "-"
