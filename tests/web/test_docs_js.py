"""The page example of docs/http-api.md (issue 27's docs that run): run as written in a
real browser page served by a real server, it plays its seat from the event stream."""

from __future__ import annotations

from playwright.sync_api import Page

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from tests.api.test_docs_examples import doc_blocks
from tests.procs import wait_until


def test_the_page_example_plays_its_seat_from_the_event_stream(
    page: Page, base_url: str, grpc_client: Client
) -> None:
    blocks = [text for language, text in doc_blocks("docs/http-api.md") if language == "js"]
    assert len(blocks) == 1
    page.goto(f"{base_url}/")
    # The example as written (top-level await: the body of an async function), then
    # the game it created.
    game_id = page.evaluate(f"async () => {{\n{blocks[0]}\nreturn gameId;\n}}")

    def moves_of_seat_0() -> int:
        entries = grpc_client.record(game_id).entries
        return sum(e.actor.kind == pb.Actor.SEAT and e.actor.seat == 0 for e in entries)

    # Catan's set-up: the page places seat 0's two settlements and two roads itself.
    wait_until(lambda: moves_of_seat_0() >= 4, 60, "the page to play seat 0's set-up")
