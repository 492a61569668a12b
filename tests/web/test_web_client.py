"""The web client in real headless Chromium against a real server: a Cité game created
in the lobby and played to the end by clicking, Catan's set-up on the SVG map, a
spectator page following moves made over gRPC, an Endeavor move, and hidden
information kept out of the page and its network responses."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Browser, Page, Response, expect

from gamehost import Client
from gamehost.v1 import cite_pb2, gamehost_pb2

# A search level that takes 4 seconds a decision: long enough to see, short enough to end.
SLOW_BOT = "mcts:trees=1,seconds=4"

SEAT0 = "#d7263d"  # seat 0's colour on the boards (web/js/seats.js)

# True once the page can take the next click: the game is over, or it is the viewer's
# move at a version other than the one last acted at, and no submit is in flight.
READY_JS = """([last]) => {
  const game = document.querySelector('#game');
  if (!game) return false;
  if (game.dataset.status === 'FINISHED') return true;
  return game.dataset.version !== last && !game.classList.contains('busy')
    && document.querySelector('#actions button.action') !== null;
}"""


def game_id_of(page: Page) -> str:
    return page.locator("#game").get_attribute("data-game-id") or ""


def open_game(page: Page, base_url: str, game_id: str, token: str = "") -> None:
    page.goto(f"{base_url}/#/game/{game_id}" + (f"?token={token}" if token else ""))
    page.locator(f'#game[data-game-id="{game_id}"][data-version]').wait_for()


def test_cite_created_in_the_lobby_is_played_to_the_end_by_clicking(
    page: Page, base_url: str, grpc_client: Client
) -> None:
    page.goto(f"{base_url}/")
    page.click('label[for="type-cite"]')
    page.select_option("#players", "3")
    for seat in (1, 2):
        expect(page.locator(f'[data-seat-kind="{seat}"]')).to_have_value("BOT")
        page.select_option(f'[data-seat-level="{seat}"]', "random")
    page.fill('[data-option="round_limit"]', "3")
    page.click("#create")
    game = page.locator('#game[data-game-type="cite"][data-viewer="0"]')
    game.wait_for()
    game_id = game_id_of(page)
    last = ""
    clicks = board_clicks = 0
    while clicks < 400:
        page.wait_for_function(READY_JS, arg=[last], timeout=60_000)
        if game.get_attribute("data-status") == "FINISHED":
            break
        last = game.get_attribute("data-version") or ""
        deal_targets = page.locator(".city.deal-target")
        drawn = page.locator(".cite-card.clickable")
        if deal_targets.count() == 0 and drawn.count() > 0:
            drawn.first.click()  # pick the card to deal, then the city (on the board)
            deal_targets.first.wait_for()
        if deal_targets.count() > 0:
            deal_targets.first.click()
            board_clicks += 1
        else:
            page.locator("#actions button.action").first.click()
        clicks += 1
    assert game.get_attribute("data-status") == "FINISHED", f"not over after {clicks} clicks"
    assert clicks > 3 and board_clicks > 0
    expect(page.locator("#status")).to_contain_text("Game over")
    assert grpc_client.state(game_id).status == gamehost_pb2.FINISHED


def test_catan_setup_is_placed_by_clicking_the_map(
    page: Page, base_url: str, grpc_client: Client
) -> None:
    created = grpc_client.create_game("catan", ["human", "bot:random", "bot:random"], seed=11)
    seat = grpc_client.join(created.game_id, 0, "tester")
    states: list[dict] = []
    page.on("response", lambda r: _collect_state(r, created.game_id, states))
    open_game(page, base_url, created.game_id, seat.token)
    expect(page.locator("svg.catan-map .hex")).to_have_count(19)
    for step in range(2):
        settle = page.locator(".settle-target").first
        settle.wait_for()
        if step == 0:  # the keyboard works on the map too
            settle.focus()
            page.keyboard.press("Enter")
        else:
            settle.click()
        expect(page.locator('path.settlement[data-seat="0"]')).to_have_count(step + 1)
        page.locator(".path-target").first.click()
        expect(page.locator('line.road[data-seat="0"]')).to_have_count(step + 1)
    view = grpc_client.state(created.game_id, seat.token).catan
    assert sum(1 for b in view.buildings if b.seat == 0) == 2
    assert sum(1 for r in view.roads if r.seat == 0) == 2
    # Another seat's exact hand is never sent to seat 0, nor drawn.
    assert states, "the page fetched no game state"
    for body in states:
        for player in body["catan"]["players"]:
            if player.get("seat", 0) != 0:
                assert "resources" not in player and not player.get("resourcesVisible")
    expect(page.locator('[data-hand="1"]')).to_have_class("hand hidden-hand")


def _collect_state(response: Response, game_id: str, into: list[dict]) -> None:
    if response.url.split("?")[0].endswith(f"/v1/games/{game_id}") and response.ok:
        into.append(json.loads(response.text()))


def test_spectator_page_follows_moves_made_over_grpc(
    page: Page, base_url: str, grpc_client: Client
) -> None:
    created = grpc_client.create_game("cite", ["human", "human"], seed=5)
    tokens = [grpc_client.join(created.game_id, s).token for s in range(2)]
    state = grpc_client.state(created.game_id)
    open_game(page, base_url, created.game_id)
    game = page.locator("#game")
    expect(game).to_have_attribute("data-viewer", "spectator")
    expect(game).to_have_attribute("data-version", str(state.version))
    mover = state.to_move.seat
    action = grpc_client.state(created.game_id, tokens[mover]).legal_actions[0]
    reply = grpc_client.submit(created.game_id, tokens[mover], action.id)
    expect(game).to_have_attribute("data-version", str(reply.version))
    expect(page.locator("#log")).to_contain_text(f"seat {mover}: {action.notation}")
    assert page.locator("#actions button.action").count() == 0  # a spectator cannot act


def test_endeavor_page_shows_the_map_and_applies_a_move(
    page: Page, base_url: str, grpc_client: Client
) -> None:
    created = grpc_client.create_game("endeavor", ["human", "bot:random", "bot:random"], seed=3)
    seat = grpc_client.join(created.game_id, 0)
    view = grpc_client.state(created.game_id, seat.token).endeavor
    open_game(page, base_url, created.game_id, seat.token)
    expect(page.locator("svg.endeavor-map g.region")).to_have_count(len(view.regions))
    expect(page.locator("svg.endeavor-map g.city-node")).to_have_count(len(view.cities))
    expect(page.locator("svg.endeavor-map g.track")).to_have_count(
        sum(1 for r in view.regions if r.track)
    )
    game = page.locator("#game")
    page.wait_for_function(READY_JS, arg=[""], timeout=60_000)
    version = game.get_attribute("data-version") or ""
    page.click('#actions button.action[data-notation="build Shipyard"]')
    mine = page.locator('.player[data-seat="0"] .building[data-building="Shipyard"]')
    expect(mine).to_have_count(1)
    players = grpc_client.state(created.game_id, seat.token).endeavor.players
    assert "Shipyard" in {b.name for b in players[0].buildings}
    # On to the action phase (salary and such by buttons), then ship by clicking a track.
    for _ in range(20):
        page.wait_for_function(READY_JS, arg=[version], timeout=60_000)
        version = game.get_attribute("data-version") or ""
        track = page.locator(".track-target.has-target")
        if track.count():
            region = track.first.get_attribute("data-target").removeprefix("ship:")
            track.first.click()
            if page.locator(".choice button.action").count():  # which building pays
                page.locator(".choice button.action").first.click()
            break
        page.locator("#actions button.action").first.click()
    else:
        raise AssertionError("no shipping track to click within 20 moves")
    expect(page.locator(f'g.track[data-track="{region}"] rect[fill="{SEAT0}"]')).to_have_count(1)
    regions = grpc_client.state(created.game_id, seat.token).endeavor.regions
    assert 0 in next(r for r in regions if r.id == region).track


def test_hidden_cite_cards_stay_out_of_the_page_and_its_responses(
    page: Page, base_url: str, grpc_client: Client
) -> None:
    created = grpc_client.create_game("cite", ["human", "human", "human"], seed=7)
    tokens = [grpc_client.join(created.game_id, s).token for s in range(3)]
    # Play (over gRPC) until another city than seat 0 has drawn cards to deal.
    for _ in range(300):
        mover = grpc_client.state(created.game_id).to_move.seat
        state = grpc_client.state(created.game_id, tokens[mover])
        if state.cite.phase == cite_pb2.CITE_DEAL and mover != 0:
            break
        grpc_client.submit(created.game_id, tokens[mover], state.legal_actions[0].id)
    else:
        raise AssertionError("no deal by another seat within 300 moves")
    secret = [cite_pb2.CiteCard.Name(c) for c in state.cite.drawn]
    assert secret
    seen_by_0 = grpc_client.record(created.game_id, tokens[0]).entries
    hidden_from_0 = [e for e in seen_by_0 if e.hidden]
    assert hidden_from_0 and all(e.notation == "draw ?" for e in hidden_from_0)
    last_event = grpc_client.state(created.game_id).last_event_id
    states: list[dict] = []
    page.on("response", lambda r: _collect_state(r, created.game_id, states))
    open_game(page, base_url, created.game_id, tokens[0])
    page.locator(f'#log li[data-event-id="{last_event}"]').wait_for()
    log = page.locator("#log li").all_inner_texts()
    # Each draw hidden from seat 0 reads "(hidden)" in its log; the others as seat 0 saw them.
    assert sum(text.endswith("(hidden)") for text in log) == len(hidden_from_0)
    for name in secret:
        notation = "draw " + name.lower().replace("_", "-")
        visible = sum(1 for e in seen_by_0 if not e.hidden and e.notation == notation)
        assert sum(text.endswith(": " + notation) for text in log) == visible
    assert page.locator(".cite-card[data-card]").count() == 0  # no face of a drawn card
    assert states
    for body in states:
        assert not body["cite"].get("drawn"), "seat 0 was sent another city's drawn cards"
    # The seat that drew sees them on its own page.
    open_game(page, base_url, created.game_id, tokens[mover])
    for name in secret:
        card = name.lower().replace("_", "-")
        expect(page.locator(f'.cite-card[data-card="{card}"]').first).to_be_visible()


def test_an_indicator_shows_while_a_bot_searches(
    page: Page, base_url: str, grpc_client: Client
) -> None:
    # Cité's first turn is seat 0's; this bot searches 4 seconds a decision (by the clock).
    created = grpc_client.create_game("cite", [f"bot:{SLOW_BOT}", "human"], seed=5)
    seat = grpc_client.join(created.game_id, 1)
    open_game(page, base_url, created.game_id, seat.token)
    indicator = page.locator("#bot-status")
    expect(indicator).to_be_visible()
    expect(indicator).to_have_attribute("data-bot-status", "BOT_THINKING")
    expect(indicator).to_contain_text(f"seat 0 · bot {SLOW_BOT} is thinking")


def test_replay_steps_through_a_finished_game(
    page: Page, base_url: str, grpc_client: Client
) -> None:
    created = grpc_client.create_game("cite", ["bot:random"] * 3, {"round_limit": 2}, seed=12)
    kinds = [event.kind for event in grpc_client.watch(created.game_id)]  # ends with the game
    assert kinds[-1] == gamehost_pb2.GAME_FINISHED
    record = grpc_client.record(created.game_id, include_views=True)
    page.goto(f"{base_url}/#/replay/{created.game_id}")
    slider = page.locator("#replay-step")
    expect(slider).to_have_attribute("max", str(len(record.entries)))
    # A replay opens at the start, and the URL keeps the step shown.
    expect(page.locator("#replay")).to_have_attribute("data-step", "0")
    expect(page.locator("#replay-caption")).to_contain_text("the start")
    slider.focus()
    page.keyboard.press("End")
    expect(page.locator("#replay")).to_have_attribute("data-step", str(len(record.entries)))
    assert page.evaluate("location.hash").endswith(f"step={len(record.entries)}")
    page.keyboard.press("Home")
    expect(page.locator("#replay")).to_have_attribute("data-step", "0")
    # Each step draws that step's view: the first entry's gold, as the record has it.
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay")).to_have_attribute("data-step", "1")
    gold = record.entries[0].view.cite.cities[0].gold
    city = page.locator('.city[data-city="0"] [data-gauge="gold"] .value')
    expect(city).to_have_text(str(gold))
    assert page.evaluate("location.hash").endswith("step=1")
    # A shared link opens at its step; Play moves on by itself at the chosen speed.
    page.goto(f"{base_url}/#/replay/{created.game_id}?step=3")
    expect(page.locator("#replay")).to_have_attribute("data-step", "3")
    page.select_option("#replay-speed", "4×")
    page.click("#replay-play")
    expect(page.locator("#replay")).to_have_attribute("data-step", "5")


def test_a_private_game_is_joined_by_its_invite_link(
    page: Page, browser: Browser, base_url: str, grpc_client: Client
) -> None:
    page.goto(f"{base_url}/")
    page.click('label[for="type-cite"]')
    page.select_option("#players", "2")
    page.select_option('[data-seat-kind="1"]', "HUMAN")
    page.check("#private")
    page.click("#create")
    expect(page.locator("#game")).to_have_attribute("data-viewer", "0")
    game_id = game_id_of(page)
    assert game_id not in {g.game_id for g in grpc_client.list_games()}  # unlisted
    invite = page.get_by_label("Invite to seat 1")
    link = invite.input_value()
    assert "?code=" in link
    # Someone else, in another browser, opens the link.
    guest = browser.new_context().new_page()
    try:
        guest.goto(link)
        guest.fill("#join-name", "guest")
        guest.press("#join-name", "Enter")
        expect(guest.locator("#game")).to_have_attribute("data-viewer", "1")
    finally:
        guest.context.close()
    # Only a seat's token reads a private game: the creator's, from its secret link.
    mine = page.get_by_label("Your seat (secret: whoever has it plays your seat)").input_value()
    token = parse_qs(urlsplit(mine.replace("#", "", 1)).query)["token"][0]
    assert grpc_client.state(game_id, token).seats[1].taken


def test_tournament_page_shows_standings_crosstable_and_tables(
    page: Page, base_url: str, grpc_client: Client
) -> None:
    grpc_client.create_tournament(
        name="web-test",
        game_type="cite",
        players=2,
        entrants=[("alpha", "random"), ("beta", "random"), ("gamma", "random")],
        format="round-robin",
        games=6,
        seed=1,
        options={"round_limit": "2"},
    )
    for _ in grpc_client.watch_tournament("web-test"):  # ends with the tournament
        pass
    tournament = grpc_client.tournament("web-test")
    page.goto(f"{base_url}/#/tournament/web-test")
    expect(page.locator("#tournament")).to_have_attribute("data-status", "TOURNAMENT_FINISHED")
    expect(page.locator("#standings tbody tr")).to_have_count(3)
    first = tournament.standings[0].entrant
    expect(page.locator("#standings tbody tr").first).to_have_attribute("data-entrant", first)
    expect(page.locator("#crosstable tbody tr")).to_have_count(3)
    expect(page.locator("#tables tbody tr")).to_have_count(len(tournament.tables))
    replay = page.locator("#tables a.button").first
    replay.click()
    expect(page.locator("#replay")).to_be_visible()


def test_keyboard_play_keeps_the_focus_on_the_actions(
    page: Page, base_url: str, grpc_client: Client
) -> None:
    created = grpc_client.create_game("cite", ["human", "bot:random"], {"round_limit": 1}, seed=4)
    seat = grpc_client.join(created.game_id, 0)
    open_game(page, base_url, created.game_id, seat.token)
    game = page.locator("#game")
    page.wait_for_function(READY_JS, arg=[""])
    for _ in range(8):  # across the bot's turns too
        if game.get_attribute("data-status") == "FINISHED":
            break
        version = game.get_attribute("data-version") or ""
        focused = page.evaluate("document.activeElement.closest('#actions') !== null")
        if not focused:  # the first time: Tab to the first action
            page.locator("#actions button.action").first.focus()
        page.keyboard.press("Enter")
        page.wait_for_function(READY_JS, arg=[version])
        # After the redraw the focus is on an action again: Enter plays on.
        if game.get_attribute("data-status") != "FINISHED":
            assert page.evaluate("document.activeElement.classList.contains('action')")
    assert int(game.get_attribute("data-version") or "0") > 1
