"""Browser tests: the web client (web/) in a real headless Chromium, driven by Playwright.

Chromium is Debian's ``chromium`` package (scripts/test.sh installs it when missing;
Playwright's own browser download cannot work offline): set GAMEHOST_CHROMIUM to use
another binary. The server is the real one (gRPC and the HTTP gateway in one process,
the in-memory store, a local bot pool). Every test saves a screenshot of its page under
$GAMEHOST_ARTEFACTS/web (default tmp/artefacts/web), which is not committed.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from gamehost import Client
from services.server import ServerConfig, ServerThread

ROOT = Path(__file__).resolve().parents[2]
ARTEFACTS = Path(os.environ.get("GAMEHOST_ARTEFACTS", ROOT / "tmp" / "artefacts")) / "web"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "refusals_expected: the test sends moves the server refuses (HTTP 4xx)"
    )


def chromium_path() -> str:
    for candidate in (os.environ.get("GAMEHOST_CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and (found := shutil.which(candidate)):
            return found
    pytest.fail(
        "the browser tests need Chromium: `apt-get install chromium` (scripts/test.sh does it) "
        "or set GAMEHOST_CHROMIUM to a Chromium binary"
    )


@pytest.fixture(scope="module")
def web_server() -> Iterator[ServerThread]:
    """gRPC and the HTTP gateway with the web client, on free ports."""
    config = ServerConfig(port=0, http_port=0, bot_workers=1, rate_limit=0)
    with ServerThread(config) as running:
        yield running


@pytest.fixture(scope="module")
def base_url(web_server: ServerThread) -> str:
    assert web_server.running is not None and web_server.running.http_url
    return web_server.running.http_url


@pytest.fixture(scope="module")
def grpc_client(web_server: ServerThread) -> Iterator[Client]:
    with Client(web_server.target) as client:
        yield client


# Package-wide, not session-wide: while sync Playwright runs, its event loop is this
# thread's running loop, so an xdist worker that goes on to other tests after tests/web
# could not run an async test (pytest-asyncio refuses inside a running loop).
@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(),
            args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh browser context; page errors fail the test; a screenshot is kept."""
    context = browser.new_context(viewport={"width": 1400, "height": 950})
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield page
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)
    page.screenshot(path=str(ARTEFACTS / f"{name}.png"), full_page=True)
    context.close()
    # An EventSource closed by navigation logs a network error in some versions: only
    # script errors count.
    script_errors = [e for e in errors if "EventSource" not in e and "net::" not in e]
    if request.node.get_closest_marker("refusals_expected"):  # the test sends bad moves
        script_errors = [e for e in script_errors if "Failed to load resource" not in e]
    assert not script_errors, f"errors in the page: {script_errors}"
