"""Text rendering of a GameState for terminals (the ``play`` command)."""

from __future__ import annotations

from google.protobuf import text_format

from gamehost.v1 import cite_pb2
from gamehost.v1 import gamehost_pb2 as pb


def render(state: pb.GameState) -> str:
    kind = state.WhichOneof("view")
    body = _RENDERERS.get(kind, _generic)(getattr(state, kind)) if kind else ""
    header = f"{state.game_type} v{state.version}  "
    if state.status == pb.FINISHED:
        header += "finished: returns " + ", ".join(f"{r:g}" for r in state.returns)
    else:
        header += f"seat {state.to_move} to move"
    return f"{header}\n{body}"


def _generic(view) -> str:
    return text_format.MessageToString(view, as_one_line=False)


def _cite(view: cite_pb2.CiteView) -> str:
    card = cite_pb2.CiteCard.Name
    lines = [
        f"round {view.round}/{view.round_limit}  turn: city {view.turn_seat}  "
        f"phase: {cite_pb2.CitePhase.Name(view.phase).removeprefix('CITE_').lower()}  "
        f"deck: {view.deck_count}",
        "city  gold wheat health civ army  granary outpost  card",
    ]
    for city in view.cities:
        if not city.standing:
            lines.append(f"{city.seat:>4}  fallen")
            continue
        granary = f"{city.granary_wheat}/2" if city.has_granary else "-"
        outpost = f"{city.outpost_army}/4" if city.has_outpost else "-"
        held = card(city.card).lower() if city.card else ("?" if city.holds_card else "")
        lines.append(
            f"{city.seat:>4}  {city.gold:>4} {city.wheat:>5} {city.health:>6} {city.civilians:>3} "
            f"{city.army:>4}  {granary:>7} {outpost:>7}  {held}"
        )
    if view.drawn:
        lines.append("drawn: " + ", ".join(card(c).lower() for c in view.drawn))
    return "\n".join(lines)


_RENDERERS = {"cite": _cite}
