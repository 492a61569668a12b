"""Screenshots of the web client for docs/web/ (lobby, Catan on a desktop and on a
390×844 phone, a Catan bot turn playing out, Endeavor, Cité, replay, tournament), taken
in headless Chromium from a real server with games played part way.

    .venv/bin/python scripts/web_screenshots.py [--out docs/web] [--chromium PATH]

Games are played part way over gRPC by a simple chooser that prefers building; the
viewer is seat 0 (or Cité's seat to move), so its own hidden cards show. With
``pngquant`` installed (Debian's package) the pictures are quantized to about a quarter
of their size.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import time
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from gamehost import Client
from gamehost.v1 import gamehost_pb2 as pb
from services.server import ServerConfig, ServerThread

ROOT = Path(__file__).resolve().parents[1]
# Preferred verbs first, so the boards fill up the way a game would; trades are skipped.
PREFERENCE = {
    "catan": ("city", "settle", "road", "buy", "play", "robber", "discard", "roll", "end"),
    "endeavor": ("occupy", "attack", "ship", "draw", "build", "salary", "pay", "pass"),
    "cite": (),
}


def choose(game_type: str, actions: list[pb.LegalAction], rng: random.Random) -> pb.LegalAction:
    for verb in PREFERENCE[game_type]:
        matching = [a for a in actions if a.notation.split(" ")[0] == verb]
        if matching:
            return rng.choice(matching)
    return rng.choice(actions)


def play(
    client: Client, game_type: str, players: int, moves: int, seed: int, stop=None
) -> tuple[str, list[str]]:
    """A game of humans driven over gRPC for ``moves`` moves (or until ``stop(view)``)."""
    created = client.create_game(game_type, ["human"] * players, seed=seed)
    tokens = [client.join(created.game_id, seat, f"player {seat}").token for seat in range(players)]
    rng = random.Random(seed)
    for _ in range(moves):
        state = client.state(created.game_id)
        if state.status == pb.FINISHED:
            break
        seat = state.to_move.seat
        mine = client.state(created.game_id, tokens[seat])
        if stop is not None and stop(mine):
            break
        client.submit(
            created.game_id, tokens[seat], choose(game_type, list(mine.legal_actions), rng).id
        )
    return created.game_id, tokens


def play_until_seat0(
    client: Client, game_id: str, tokens: list[str], game_type: str, rng: random.Random
) -> None:
    """Continue until seat 0 is to move (so its page shows its actions)."""
    for _ in range(200):
        state = client.state(game_id)
        if state.status == pb.FINISHED or state.to_move.seat == 0:
            return
        seat = state.to_move.seat
        actions = list(client.state(game_id, tokens[seat]).legal_actions)
        client.submit(game_id, tokens[seat], choose(game_type, actions, rng).id)


def shoot(
    page: Page,
    url: str,
    ready: str,
    path: Path,
    height: int = 900,
    width: int = 1360,
    click: str = "",
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.goto(url)
    page.locator(ready).first.wait_for()
    if page.locator("#game").count():  # the log has caught up with the state shown
        page.wait_for_function(
            "() => { const g = document.querySelector('#game');"
            " return document.querySelector(`#log li[data-event-id='${g.dataset.lastEventId}']`); }"
        )
    page.wait_for_load_state("networkidle")
    if click and page.locator(click).count():  # e.g. open the trade builder
        page.locator(click).first.click()
    save(page, path)


def save(page: Page, path: Path) -> None:
    page.screenshot(path=str(path), full_page=False)
    if shutil.which("pngquant"):
        subprocess.run(
            [
                "pngquant",
                "--quality",
                "70-90",
                "--speed",
                "1",
                "--force",
                "--output",
                str(path),
                str(path),
            ],
            check=True,
        )
    print(f"{path} ({path.stat().st_size // 1024} KiB)")


def bot_turn_game(client: Client, seed: int = 21) -> tuple[str, str]:
    """Catan, seat 0 a person (played here by ``choose``) against three random bots,
    until seat 0 may end a turn some way into the game."""
    created = client.create_game("catan", ["human"] + ["bot:random"] * 3, seed=seed)
    token = client.join(created.game_id, 0, "you").token
    rng = random.Random(seed)
    for _ in range(2000):
        state = client.state(created.game_id, token)
        if state.status == pb.FINISHED:
            break
        if state.to_move.kind != pb.Actor.SEAT or state.to_move.seat != 0:
            time.sleep(0.05)  # a script, not a test: the bots move on the server
            continue
        legal = list(state.legal_actions)
        if state.catan.turn_number >= 14 and any(a.notation == "end" for a in legal):
            break
        client.submit(created.game_id, token, choose("catan", legal, rng).id)
    return created.game_id, token


def shoot_bot_turn(page: Page, client: Client, base: str, path: Path) -> None:
    """Seat 0 ends its turn; the bots' moves play out on its page at the slow pace."""
    game_id, token = bot_turn_game(client)
    page.set_viewport_size({"width": 1360, "height": 900})
    page.goto(f"{base}/#/game/{game_id}?token={token}")
    page.locator('#actions button.action[data-notation="end"]').wait_for()
    page.select_option("#bot-speed", "slow")
    end = next(a for a in client.state(game_id, token).legal_actions if a.notation == "end")
    client.submit(game_id, token, end.id)
    page.locator('#game[data-playing="true"] svg.catan-map .spot.last-move').wait_for()
    page.wait_for_timeout(1200)  # a move or two in: the log and the highlight have moved on
    save(page, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "web"))
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    config = ServerConfig(port=0, http_port=0, bot_workers=1, rate_limit=0)
    with ServerThread(config) as server, Client(server.target) as client:
        base = server.running.http_url
        rng = random.Random(1)
        client.create_tournament(
            name="showcase-cite",
            game_type="cite",
            players=2,
            entrants=[("random", "random"), ("greedy", "greedy"), ("greedy-b", "greedy")],
            format="round-robin",
            games=12,
            seed=4,
            parallel=2,
        )
        catan, catan_tokens = play(client, "catan", 4, 260, seed=21)
        play_until_seat0(client, catan, catan_tokens, "catan", rng)
        endeavor, endeavor_tokens = play(client, "endeavor", 4, 90, seed=8)
        play_until_seat0(client, endeavor, endeavor_tokens, "endeavor", rng)
        cite, cite_tokens = play(
            client, "cite", 4, 400, seed=3, stop=lambda s: s.cite.round >= 2 and s.cite.phase == 5
        )
        finished, _ = play(client, "cite", 3, 2000, seed=9)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if client.tournament("showcase-cite").status != 1:  # TOURNAMENT_RUNNING
                break
            time.sleep(1)  # a script, not a test: poll the tournament's status
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=args.chromium, args=["--no-sandbox"]
            )
            page = browser.new_page(viewport={"width": 1360, "height": 900})
            shoot(page, f"{base}/#/", "#game-lists table", out / "lobby.png", 820)
            shoot(
                page,
                f"{base}/#/game/{catan}?token={catan_tokens[0]}",
                "svg.catan-map",
                out / "catan.png",
                900,
                click="#trade-builder summary",
            )
            shoot(
                page,
                f"{base}/#/game/{catan}?token={catan_tokens[0]}",
                "svg.catan-map",
                out / "catan-phone.png",
                844,
                390,
            )
            shoot_bot_turn(page, client, base, out / "catan-bot-turn.png")
            shoot(
                page,
                f"{base}/#/game/{endeavor}?token={endeavor_tokens[0]}",
                "svg.endeavor-map",
                out / "endeavor.png",
                1180,
            )
            shoot(
                page,
                f"{base}/#/game/{cite}?token={cite_tokens[cite_state_turn(client, cite)]}",
                ".cite-cities",
                out / "cite.png",
                1000,
            )
            shoot(
                page,
                f"{base}/#/replay/{finished}?step=40",
                "#replay .cite-cities",
                out / "replay.png",
                820,
            )
            shoot(page, f"{base}/#/", "#game-lists table", out / "lobby-phone.png", 844, 390)
            shoot(
                page,
                f"{base}/#/tournament/showcase-cite",
                "#standings",
                out / "tournament.png",
                1000,
            )
            browser.close()


def cite_state_turn(client: Client, game_id: str) -> int:
    """The Cité seat to move: its page shows the cards it drew."""
    return client.state(game_id).to_move.seat


if __name__ == "__main__":
    main()
