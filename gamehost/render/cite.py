"""Cité in the terminal, from a CiteView alone: the cities' gauges, what each card in
sight does, and the falls and cards played between two views."""

from __future__ import annotations

from gamehost.v1 import cite_pb2 as pb

HELP = """\
Cité notation:
  levy | no levy                 raise 1 army for 1 gold + 1 civilian, or not
  store wheat | store army       put 1 wheat in your granary (2 places) or 1 army in your
                                 outpost (4 places); empty granary; done when finished
  deal <card> to <seat>          give one of the cards you drew to a city, e.g. deal fire to 2
  play | discard                 resolve your card, or pay 1 gold + 1 wheat to drop it
                                 (never an allegiance)
  attack <seat>                  a good war against a neighbouring city
  take gold | take wheat         the spoils of a won war
Cards: granary, good-war, outpost, allegiance, hospital, fire, barbarians, civil-war,
land-of-welcome. A city falls when its civilians reach 0 or 10 or its army 10."""

# What each card does when played (the rules as the engine applies them).
CARD_EFFECTS = {
    pb.GRANARY: "builds a granary (if the city has none): it stores up to 2 wheat",
    pb.GOOD_WAR: (
        "war on a neighbour: both armies lose 1; the larger one takes 1 civilian and then "
        "1 gold or wheat from the loser; an outpost shields its city and falls"
    ),
    pb.OUTPOST: "builds an outpost (if the city has none): it stores up to 4 army",
    pb.ALLEGIANCE: "pay 2 gold, or lose 1 civilian if the city has less; cannot be discarded",
    pb.HOSPITAL: "+1 health",
    pb.FIRE: "-2 wheat",
    pb.BARBARIANS: "-1 wheat and -1 army",
    pb.CIVIL_WAR: "-1 civilian, then -1 army",
    pb.LAND_OF_WELCOME: "each neighbouring city gives 1 civilian to this one",
}


def card_name(card: int) -> str:
    return pb.CiteCard.Name(card).lower().replace("_", "-")


def describe(card: int) -> str:
    """``fire: -2 wheat``: a card's name and what it does."""
    return f"{card_name(card)}: {CARD_EFFECTS.get(card, '?')}"


def render(view: pb.CiteView, viewer: int) -> str:
    """The gauges table, the cards in sight with their effects, and the discard pile."""
    phase = pb.CitePhase.Name(view.phase).removeprefix("CITE_").lower().replace("_", " ")
    lines = [
        f"round {view.round}/{view.round_limit}  turn: city {view.turn_seat}  "
        f"phase: {phase}  deck: {view.deck_count}",
        "  city  gold wheat health civ army  granary outpost  card",
    ]
    for city in view.cities:
        mark = "*" if city.seat == view.turn_seat else " "
        you = " (you)" if city.seat == viewer else ""
        if not city.standing:
            lines.append(f" {mark}{city.seat:>4}  fallen{you}")
            continue
        granary = f"{city.granary_wheat}/2" if city.has_granary else "-"
        outpost = f"{city.outpost_army}/4" if city.has_outpost else "-"
        held = card_name(city.card) if city.card else ("hidden" if city.holds_card else "")
        lines.append(
            f" {mark}{city.seat:>4}  {city.gold:>4} {city.wheat:>5} {city.health:>6} "
            f"{city.civilians:>3} {city.army:>4}  {granary:>7} {outpost:>7}  {held}{you}".rstrip()
        )
    if view.phase in (pb.CITE_RESOLVE, pb.CITE_WAR_SPOILS) and view.resolving_seat >= 0:
        lines.append(f"city {view.resolving_seat} resolves its card")
    in_sight = sorted({c.card for c in view.cities if c.card} | set(view.drawn))
    if view.drawn:
        lines.append("you drew: " + ", ".join(card_name(c) for c in view.drawn))
    for card in in_sight:
        lines.append(f"  {describe(card)}")
    pile = ", ".join(f"{c.count} {card_name(c.card)}" for c in view.discard)
    lines.append(f"discard pile: {pile or '-'}")
    return "\n".join(lines)


def notices(before: pb.CiteView | None, after: pb.CiteView) -> list[str]:
    """Cards that reached the discard pile (played or dropped), new granaries and
    outposts, and falls: the events alone do not name a played card."""
    if before is None:
        return []
    lines = []
    old = {c.card: c.count for c in before.discard}
    for entry in after.discard:
        if entry.count > old.get(entry.card, 0):
            lines.append(f"  to the discard pile: {describe(entry.card)}")
    cities = {c.seat: c for c in before.cities}
    for city in after.cities:
        was = cities.get(city.seat)
        if was is None:
            continue
        if city.has_granary and not was.has_granary:
            lines.append(f"  city {city.seat} builds a granary")
        if city.has_outpost and not was.has_outpost:
            lines.append(f"  city {city.seat} builds an outpost")
        if was.standing and not city.standing:
            lines.append(f"*** city {city.seat} has fallen ***")
    return lines
