"""gamehost: client library and CLI for the gamehost board-game service.

Its own distribution (clients/python): it may import grpcio, protobuf and its
generated ``gamehost.v1`` code, never ``games``, ``bots``, ``services`` or
``workers``; the server's commands are found by name (``gamehost.cli``).

from gamehost import Client
with Client("127.0.0.1:50051") as client:
    game = client.create_game("cite", ["human", "bot:random", "bot:random"])
    me = client.join(game.game_id)
    state = client.state(game.game_id, me.token)
"""

from gamehost.client import (
    Client,
    GameError,
    Position,
    Seat,
    describe_actor,
    replay_record,
    seat_of,
    turn_timer,
)

__all__ = [
    "Client",
    "GameError",
    "Position",
    "Seat",
    "describe_actor",
    "replay_record",
    "seat_of",
    "turn_timer",
]
