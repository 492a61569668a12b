"""What a line typed at the ``gamehost play`` prompt means, given the legal actions.

No menu numbers: a line is an action's notation (any case and spacing), a bare
board id / name that ends exactly one legal action (``14`` in set-up: ``settle 14``),
or a verb and its target that start exactly one (``occupy caribbean-2``). The start
of several actions lists them; anything else goes to the server as
notation, which also reads forms the list does not show (aliases, larger offers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gamehost.render.menu import group
from gamehost.v1 import gamehost_pb2 as pb


@dataclass(frozen=True)
class Choice:
    """Exactly one of: an action to play by id, a notation to send, or a message."""

    action: pb.LegalAction | None = None
    notation: str | None = None
    message: str | None = None


def _words(text: str) -> list[str]:
    return text.lower().split()


def choose(text: str, legal: Sequence[pb.LegalAction]) -> Choice:
    words = _words(text)
    if not words:
        return Choice(message="type a move, or `help`")
    exact = [a for a in legal if _words(a.notation) == words]
    if exact:
        return Choice(action=exact[0])
    if len(words) == 1:
        ending = [a for a in legal if _words(a.notation)[-1:] == words]
        if len(ending) == 1:
            return Choice(action=ending[0])
        if ending:
            return Choice(
                message=f"{text.strip()} could be: " + " | ".join(a.notation for a in ending)
            )
    starting = [a for a in legal if _words(a.notation)[: len(words)] == words]
    if len(starting) == 1 and len(words) > 1:  # a verb and its target name one action
        return Choice(action=starting[0])
    if len(starting) == 1:
        return Choice(message=f"did you mean `{starting[0].notation}`? type it in full")
    if starting:
        return Choice(message=f"{text.strip()} … could be: " + _listing(starting))
    return Choice(notation=text.strip())


def _listing(actions: Sequence[pb.LegalAction]) -> str:
    return " | ".join(group([a.notation for a in actions]))
