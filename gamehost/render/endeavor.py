"""Endeavor in the terminal, from an EndeavorView alone: whose turn it is, the players'
tracks, buildings, tokens and cards, then the map region by region."""

from __future__ import annotations

from gamehost.render.text import wrap
from gamehost.v1 import endeavor_pb2 as pb

HELP = """\
Endeavor notation (cities are <region>-<n>, e.g. caribbean-2; decks are the regions'
names, mediterranean and slavery; buildings as listed, e.g. Guild-Hall):
  build <building>               the Build phase: take a building of your level or below
  salary <building>              the Salary phase: take a worker back from a building
  ship <region> with <building>  put a marker on the region's shipping track
  occupy <city> with <building>  take a city (in an open region, or Europe)
  attack <city> with <building>  take a city from its owner
  draw <deck> with <building>    draw the top card (presence >= the card's number)
  pay <building> with <building> free a worker (Exchange, Museum, Parliament)
  ... with ship-draw-token / occupy-draw-token / attack-token / payment-token
                                 spend a blue trade token instead of a building
  occupy <city> | ship <region> | draw <deck>   the second half of a "+" action; done
  pass                           end your actions this round
  discard <card>                 down to your card limit after everyone has passed
Typing the start of an action lists what it could be, e.g. `occupy caribbean-2`."""

_PHASE = {
    pb.ENDEAVOR_BUILD: "build",
    pb.ENDEAVOR_SALARY: "salary",
    pb.ENDEAVOR_ACTION: "actions",
    pb.ENDEAVOR_SECOND_HALF: "second half of an action",
    pb.ENDEAVOR_DISCARD: "discard",
    pb.ENDEAVOR_OVER: "over",
}
TOKEN_CODES = {
    "industry": "ind",
    "culture": "cul",
    "finance": "fin",
    "politics": "pol",
    "ship-draw": "ship",
    "occupy-draw": "occ",
    "attack": "att",
    "payment": "pay",
}
ROUNDS = 7


def _token(slug: str) -> str:
    return TOKEN_CODES.get(slug, slug)


def _players(view: pb.EndeavorView, viewer: int) -> list[str]:
    row = "{:1}{:>4} {:<9}{:>3}{:>4}{:>4}{:>4} |{:>4}{:>4}{:>4}{:>4} |{:>7}{:>7}{:>6} | {}"
    header = ("seat", "", "ind", "cul", "fin", "pol", "bld", "grw", "sal", "slt")
    lines = [row.format("", *header, "supply", "harbor", "score", "trade tokens")]
    for p in view.players:
        turn = "*" if p.seat == view.to_move and view.phase != pb.ENDEAVOR_OVER else ""
        who = ("you" if p.seat == viewer else "") + (" pass" if p.passed else "")
        tokens = [
            f"{_token(t.name)}{t.count}" for t in (*p.brown_tokens, *p.blue_tokens) if t.count
        ]
        lines.append(
            row.format(
                turn,
                p.seat,
                who,
                p.industry,
                p.culture,
                p.finance,
                p.politics,
                p.building_level,
                p.growth,
                p.salary,
                p.card_slots,
                p.supply,
                p.harbor,
                p.score.total,
                " ".join(tokens) or "-",
            )
        )
    lines.append(
        "  (tracks: industry culture finance politics; levels: building, growth, salary, slots)"
    )
    for p in view.players:
        buildings = [
            b.name + (f" x{b.count}" if b.count > 1 else "") + ("*" * b.occupied)
            for b in p.buildings
        ]
        lines += wrap(f"  seat {p.seat} buildings: ", buildings, ", ")
    lines.append("  (* a worker on the building)")
    for p in view.players:
        cards = list(p.cards) + [f"{c} (face down)" for c in p.face_down_slavery]
        lines += wrap(f"  seat {p.seat} cards: ", cards or ["-"], ", ")
    return lines


def _map(view: pb.EndeavorView) -> list[str]:
    lines = [
        "map: a city shows its owner (s2: seat 2) or the token still on it; a shipping track shows",
        "     the seat on each space, or the token still there (. none)",
    ]
    cities: dict[str, list[pb.EndeavorCity]] = {}
    for city in view.cities:
        cities.setdefault(city.region, []).append(city)
    decks = {deck.id: list(deck.cards) for deck in view.decks}
    for region in view.regions:
        state = "open" if region.open else "closed"
        head = f"  {region.id:<14}{state:<7}"
        parts = []
        if region.track:
            spaces = [
                str(seat) if seat >= 0 else (_token(tok) if tok else ".")
                for seat, tok in zip(region.track, region.track_tokens, strict=False)
            ]
            parts.append("track " + " ".join(spaces))
        presence = [f"s{s}:{n}" for s, n in enumerate(region.presence) if n]
        parts.append("presence " + (" ".join(presence) or "-"))
        beside = [f"s{s}:{n}" for s, n in enumerate(region.beside_track) if n]
        if beside:
            parts.append("beside the track " + " ".join(beside))
        names = [
            f"{c.id.rsplit('-', 1)[-1]}:"
            + (f"s{c.owner}" if c.owner >= 0 else _token(c.token))
            + ("(2)" if c.glory > 1 else "")
            for c in cities.get(region.id, [])
        ]
        parts.append("cities " + " ".join(names))
        deck_id = "mediterranean" if region.id == "europe" else region.id
        deck = decks.get(deck_id, [])
        parts.append(f"deck {len(deck)}" + (f" (top {deck[0]})" if deck else ""))
        lines += wrap(head, parts, " | ")
    slavery = decks.get("slavery")
    if slavery is not None:
        lines.append(f"  slavery deck {len(slavery)}" + (f" (top {slavery[0]})" if slavery else ""))
    links = [f"{c.a}~{c.b} {_token(c.token)}" for c in view.connections if c.token]
    lines += wrap("  connections with a token: ", links or ["-"], ", ")
    supply = [f"{b.name} {b.count}" for b in view.building_supply if b.count]
    lines += wrap("  buildings left: ", supply, ", ")
    return lines


def render(view: pb.EndeavorView, viewer: int) -> str:
    """The screen: turn line, players (tracks, buildings, cards), then the map."""
    head = f"round {view.round}/{ROUNDS}  phase: {_PHASE.get(view.phase, '?')}  "
    head += f"first player: seat {view.crown_seat}  "
    if view.phase == pb.ENDEAVOR_OVER:
        head += "game over"
    else:
        head += f"to move: seat {view.to_move}"
    if view.phase == pb.ENDEAVOR_SALARY:
        head += f" ({view.salary_left} salary payments left)"
    if view.pending:
        head += f"  pending: {view.pending} {view.pending_target}"
    if view.abolished:
        head += "  slavery abolished"
    lines = [head, *_players(view, viewer), *_map(view)]
    if view.winners:
        lines.append("winners: " + ", ".join(f"seat {s}" for s in view.winners))
        lines.append("scores: " + ", ".join(f"seat {s}: {n}" for s, n in enumerate(view.scores)))
    return "\n".join(lines)


def notices(before: pb.EndeavorView | None, after: pb.EndeavorView) -> list[str]:
    """Regions that opened (their shipping track filled) and abolition."""
    if before is None:
        return []
    was_open = {r.id for r in before.regions if r.open}
    lines = [
        f"*** {r.id} opens: its track is full ***"
        for r in after.regions
        if r.open and r.id not in was_open
    ]
    if after.abolished and not before.abolished:
        lines.append("*** slavery is abolished ***")
    return lines
