"""Catan in the terminal: the map with its ids and pieces, drawn from a CatanView alone.

The geometry comes from the view (each hex's row, column, corners and sides), so this
module needs no engine. Pieces replace or extend the ids they stand on: ``14S2`` is a
settlement of seat 2 on intersection 14, ``14C2`` a city, ``r2`` a road of seat 2 on a
path, ``R`` next to a hex id the robber.
"""

from __future__ import annotations

from gamehost.render.text import wrap
from gamehost.v1 import catan_pb2 as pb

HELP = """\
Catan notation (ids are the ones on the map: H<n> hexes, corner numbers are
intersections, numbers on the / \\ strokes and in [ ] are paths):
  settle <intersection>          build a settlement (set-up or bought), e.g. settle 12
  road <path>                    build a road (set-up, bought, or a free one)
  city <intersection>            upgrade your settlement
  roll | end                     roll the dice | end your turn
  buy dev                        buy a development card
  play knight | play road-building | play year-of-plenty <r> [<r>] | play monopoly <r>
  stop                           end road building after the first free road
  discard <r>                    one card of a 7 discard (repeated until half is gone)
  robber <hex> [rob <seat>]      move the robber, naming the victim if anyone can be robbed
  bank <n> <r> for <r2>          maritime trade at your rate n (4, 3 or 2)
  give <k> <r> ... get <k> <r> ...   offer a trade to the other seats (any terms)
  add give <r> | add get <r>     draft a larger offer card by card; make offer | drop offer
  accept | decline               answer an open offer
  trade with <seat> | cancel     close your offer with a seat that accepted, or withdraw it
Resources: brick, lumber (wood), wool (sheep), grain (wheat), ore.
A bare number plays the one legal action that ends with it (e.g. 14 in set-up: settle 14).
Type `trade` to list the trades you can make now."""

RESOURCES = ("brick", "lumber", "wool", "grain", "ore")
DEV_CARDS = ("knight", "road-building", "year-of-plenty", "monopoly", "victory-point")
_TERRAIN_SHORT = {
    pb.CATAN_HILLS: "hil",
    pb.CATAN_FOREST: "for",
    pb.CATAN_PASTURE: "pas",
    pb.CATAN_FIELDS: "fld",
    pb.CATAN_MOUNTAINS: "mtn",
    pb.CATAN_DESERT: "des",
}
_LEGEND = (
    "hil=hills (brick), for=forest (lumber), pas=pasture (wool), fld=fields (grain), "
    "mtn=mountains (ore), des=desert"
)
_SHORT_LEGEND = "hil=brick for=lumber pas=wool fld=grain mtn=ore des=desert (no resource)"
# Hex corners, clockwise from north, as offsets from the hex centre (x: half hex widths).
_CORNERS = ((0, -2), (1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1))
_SX = 4  # characters per x unit

# Actions listed behind one ``trade …`` entry: they would fill the screen otherwise.
FOLDS = {"trade": ("give ", "add give ", "add get ", "bank ")}


def _cards(res: pb.CatanResources) -> str:
    counts = (res.brick, res.lumber, res.wool, res.grain, res.ore)
    return " ".join(f"{k} {RESOURCES[r]}" for r, k in enumerate(counts) if k) or "-"


def _devs(dev: pb.CatanDevCards) -> str:
    counts = (dev.knight, dev.road_building, dev.year_of_plenty, dev.monopoly, dev.victory_point)
    return " ".join(f"{k} {DEV_CARDS[t]}" for t, k in enumerate(counts) if k) or "-"


class _Geometry:
    """Positions of every hex centre, intersection and path, from the view's hexes."""

    def __init__(self, view: pb.CatanView) -> None:
        row_length: dict[int, int] = {}
        for h in view.hexes:
            row_length[h.row] = row_length.get(h.row, 0) + 1
        widest = max(row_length.values(), default=0)
        self.hex_xy: dict[int, tuple[int, int]] = {}
        self.node_xy: dict[int, tuple[int, int]] = {}
        self.path_nodes: dict[int, tuple[int, int]] = {}
        for h in view.hexes:
            cx, cy = 2 * h.col + (widest - row_length[h.row]), 3 * h.row
            self.hex_xy[h.id] = (cx, cy)
            corners = list(h.intersections)
            for k, node in enumerate(corners):
                dx, dy = _CORNERS[k]
                self.node_xy[node] = (cx + dx, cy + dy)
            for k, path in enumerate(h.paths):
                self.path_nodes[path] = (corners[k], corners[(k + 1) % len(corners)])
        ys = sorted({y for _, y in self.node_xy.values()})
        self.text_row: dict[int, int] = {}
        row = 0
        for i, y in enumerate(ys):  # node levels alternate slope and vertical gaps
            self.text_row[y] = row
            if i + 1 < len(ys):
                row += 2 if ys[i + 1] - y == 1 else 4
        self.width = (2 * widest + 1) * _SX + 8
        self.height = row + 1


def _col(x: float) -> int:
    return int(round((x + 1) * _SX)) + 3


def render_map(view: pb.CatanView, terrain: bool = True) -> str:
    """The board as ASCII art: hex, intersection and path ids with the pieces on them."""
    geo = _Geometry(view)
    grid = [[" "] * geo.width for _ in range(geo.height)]

    def put(row: int, col: int, text: str) -> None:
        for i, ch in enumerate(text):
            if 0 <= col + i < geo.width:
                grid[row][col + i] = ch

    roads = {road.path: road.seat for road in view.roads}
    for path, (a, b) in sorted(geo.path_nodes.items()):
        (ax, ay), (bx, by) = geo.node_xy[a], geo.node_xy[b]
        mid = (geo.text_row[ay] + geo.text_row[by]) // 2
        label = f"r{roads[path]}" if path in roads else str(path)
        if ax == bx:  # a vertical path
            put(mid - 1, _col(ax), "|")
            put(mid, _col(ax) - 1, f"[{label}]")
            put(mid + 1, _col(ax), "|")
        else:
            stroke = "/" if (bx - ax) * (by - ay) < 0 else "\\"
            text = stroke + label
            put(mid, _col((ax + bx) / 2) - len(text) // 2, text)
    buildings = {b.intersection: b for b in view.buildings}
    for node, (x, y) in sorted(geo.node_xy.items()):
        label = str(node)
        if node in buildings:
            label += ("C" if buildings[node].city else "S") + str(buildings[node].seat)
        put(geo.text_row[y], _col(x) - (1 if node >= 10 else 0), label)
    for h in view.hexes:
        cx, cy = geo.hex_xy[h.id]
        row = (geo.text_row[cy - 1] + geo.text_row[cy + 1]) // 2
        robber = " R" if terrain and view.robber_hex == h.id else ""
        put(row - 1, _col(cx) - 2, f"H{h.id}{robber}")
        if terrain:
            number = str(h.number) if h.number else ""
            put(row + 1, _col(cx) - 2, _TERRAIN_SHORT.get(h.terrain, "?") + number)
    return "\n".join("".join(r).rstrip() for r in grid)


def _harbors(view: pb.CatanView, terrain: bool) -> list[str]:
    entries = []
    for h in view.harbors:
        ends = ", ".join(map(str, h.intersections))
        kind = ""
        if terrain:
            kind = " 3:1" if h.rate == 3 else f" 2:1 {RESOURCES[h.resource - 1]}"
        entries.append(f"harbor {h.id}: path {h.path} ({ends}){kind}")
    return entries


def render_board(view: pb.CatanView, terrain: bool = True) -> str:
    """The map, the harbors and (with ``terrain``) the terrain legend: ``gamehost board``."""
    lines = [render_map(view, terrain), "", "Harbors (path: intersections):"]
    lines += [f"  {entry}" for entry in _harbors(view, terrain)]
    if terrain:
        lines += ["", "Terrain: " + _LEGEND]
    return "\n".join(lines)


def render(view: pb.CatanView, viewer: int) -> str:
    """The whole screen above the prompt: map, harbors, turn line and one line per seat."""
    lines = [render_map(view)]
    harbors = [
        h.removeprefix("harbor ").replace(": path", ": path", 1) for h in _harbors(view, True)
    ]
    lines += wrap("harbors: ", harbors, "; ")
    lines.append("pieces: 14S2 settlement of seat 2 on 14, 14C2 city, r2 road of seat 2, R robber")
    lines.append("terrain: " + _SHORT_LEGEND)
    phase = pb.CatanPhase.Name(view.phase).removeprefix("CATAN_").lower().replace("_", " ")
    setup = view.phase in (pb.CATAN_SETUP_SETTLEMENT, pb.CATAN_SETUP_ROAD)
    turn = (
        "set-up" if setup else f"turn {view.turn_number}/{view.turn_limit} of seat {view.turn_seat}"
    )
    lines.append(
        f"{turn}  to act: seat {view.acting_seat}  phase: {phase}  dice: {view.dice or '-'}"
    )
    lines.append(f"bank: {_cards(view.bank)}  dev deck: {view.dev_deck_count}")
    for p in view.players:
        hand = _cards(p.resources) if p.resources_visible else _count(p.resource_count, "card")
        dev = _devs(p.dev_cards) if p.dev_visible else f"{p.dev_count} dev"
        vp = p.victory_points if p.victory_points >= 0 else p.public_victory_points
        marks = (" LR" if p.longest_road else "") + (" LA" if p.largest_army else "")
        who = " (you)" if p.seat == viewer else ""
        turn = "*" if p.seat == view.acting_seat else " "
        lines.append(
            f" {turn}seat {p.seat}{who}: {vp} VP{marks}  hand: {hand}  dev: {dev}  "
            f"knights: {p.knights_played}  road: {p.road_length}  left: {p.settlements_left}S "
            f"{p.cities_left}C {p.roads_left}r"
        )
    if view.has_offer:
        answers = {1: "accepted", 2: "declined"}
        said = ", ".join(
            f"seat {s} {answers[a]}" for s, a in enumerate(view.offer.answers) if a in answers
        )
        lines.append(
            f"  open offer by seat {view.turn_seat}: gives {_cards(view.offer.give)}, "
            f"wants {_cards(view.offer.get)}" + (f" ({said})" if said else "")
        )
    if view.winners:
        lines.append("winners: " + ", ".join(f"seat {s}" for s in view.winners))
    return "\n".join(lines)


def notices(before: pb.CatanView | None, after: pb.CatanView) -> list[str]:
    """What changed hands between two views: Longest Road and Largest Army."""
    if before is None:
        return []
    lines = []
    for title, old, new in (
        ("Longest Road", before.longest_road_seat, after.longest_road_seat),
        ("Largest Army", before.largest_army_seat, after.largest_army_seat),
    ):
        if new != old and new >= 0:
            lines.append(f"*** seat {new} takes {title} ***")
    return lines


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
