"""Text rendering of a GameState for terminals (the ``play`` command).

Each game's view module renders its own view; a game without one is shown as
protobuf text.
"""

from __future__ import annotations

import importlib

from google.protobuf import text_format

from gamehost.client import describe_actor
from gamehost.v1 import gamehost_pb2 as pb


def render(state: pb.GameState) -> str:
    kind = state.WhichOneof("view")
    body = _render_view(kind, getattr(state, kind)) if kind else ""
    header = f"{state.game_type} v{state.version}  "
    if state.status == pb.FINISHED:
        header += "finished: returns " + ", ".join(f"{r:g}" for r in state.returns)
    else:
        header += f"{describe_actor(state.to_move)} to move"
    return f"{header}\n{body}"


def _render_view(game: str, view) -> str:
    try:
        module = importlib.import_module(f"games.{game}.view")
    except ImportError:
        module = None
    renderer = getattr(module, "render_view", None)
    if renderer is None:
        return text_format.MessageToString(view, as_one_line=False)
    return renderer(view)
