"""A blocking HTTP client for tests (aiohttp on a loop thread of its own), with a
reader of server-sent events."""

from __future__ import annotations

import asyncio
import json
import ssl as ssl_module
import threading
from dataclasses import dataclass, field
from typing import Any

import aiohttp


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Event:
    name: str = "message"
    id: str = ""
    data: str = ""
    comments: list[str] = field(default_factory=list)

    def json(self) -> Any:
        return json.loads(self.data)


class Http:
    def __init__(
        self, base: str, local_host: str | None = None, ssl: ssl_module.SSLContext | None = None
    ) -> None:
        self.base = base
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        local = (local_host, 0) if local_host else None

        async def session() -> aiohttp.ClientSession:
            connector = aiohttp.TCPConnector(local_addr=local, limit=0, ssl=ssl or True)
            return aiohttp.ClientSession(connector=connector)

        self._session = self._run(session())

    def _run(self, coro, timeout: float = 60):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def request(
        self,
        method: str,
        path: str,
        json_body: Any = None,
        data: bytes | str | None = None,
        headers: dict[str, str] | None = None,
        params: Any = None,
    ) -> Answer:
        async def go() -> Answer:
            async with self._session.request(
                method, self.base + path, json=json_body, data=data, headers=headers, params=params
            ) as response:
                return Answer(response.status, dict(response.headers), await response.read())

        return self._run(go())

    def get(self, path: str, **kw) -> Answer:
        return self.request("GET", path, **kw)

    def post(self, path: str, body: Any = None, **kw) -> Answer:
        return self.request("POST", path, json_body=body if body is not None else {}, **kw)

    def stream(self, path: str, headers: dict[str, str] | None = None) -> EventStream:
        async def open_() -> aiohttp.ClientResponse:
            return await self._session.get(self.base + path, headers=headers)

        return EventStream(self, self._run(open_()))

    def close(self) -> None:
        self._run(self._session.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def __enter__(self) -> Http:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EventStream:
    """An open event stream: ``next()`` reads one SSE message (comments are kept on
    the message that follows them, or returned alone as a "comment" event)."""

    def __init__(self, http: Http, response: aiohttp.ClientResponse) -> None:
        self.http = http
        self.response = response
        self.status = response.status
        self.headers = dict(response.headers)

    def next(self, timeout: float = 30) -> Event | None:
        """The next message; None when the server ended the stream."""

        async def read() -> Event | None:
            event = Event()
            seen = False
            while True:
                line = await self.response.content.readline()
                if not line:
                    return event if seen else None
                text = line.decode().rstrip("\n")
                if not text:
                    if seen:
                        if not event.data and event.name == "message" and event.comments:
                            event.name = "comment"
                        return event
                    continue
                seen = True
                key, _, value = text.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if key == "":
                    event.comments.append(value)
                elif key == "event":
                    event.name = value
                elif key == "id":
                    event.id = value
                elif key == "data":
                    event.data = value if not event.data else event.data + "\n" + value
                elif key == "retry":
                    event.name = "retry"

        return self.http._run(asyncio.wait_for(read(), timeout), timeout + 5)

    def events(self, name: str, count: int, timeout: float = 30) -> list[Event]:
        """The next ``count`` messages called ``name`` (others skipped)."""
        found: list[Event] = []
        while len(found) < count:
            event = self.next(timeout)
            assert event is not None, f"the stream ended after {len(found)} {name} events"
            if event.name == name:
                found.append(event)
        return found

    def read_all(self, timeout: float = 30) -> list[Event]:
        """Every message until the server ends the stream."""
        found = []
        while (event := self.next(timeout)) is not None:
            found.append(event)
        return found

    def close(self) -> None:
        async def close() -> None:
            self.response.close()

        self.http._run(close())
