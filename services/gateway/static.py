"""The web client's files (the top-level ``web/`` directory, or ``--http-web-dir``),
served at ``/`` with their content types; a path that names no file and has no
extension gets ``index.html`` (client-side routes)."""

from __future__ import annotations

import mimetypes
from pathlib import Path

from aiohttp import web

_REPO = Path(__file__).resolve().parents[2]
# The types a web client's files need, whatever this system's mime tables say (some
# say application/javascript, or know no .mjs or .wasm).
_TYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".map": "application/json",
    ".webmanifest": "application/manifest+json",
    ".wasm": "application/wasm",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".txt": "text/plain",
}


def content_type(path: Path) -> str:
    known = _TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0]
    kind = known or "application/octet-stream"
    return f"{kind}; charset=utf-8" if kind.startswith("text/") or kind.endswith("json") else kind


PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gamehost</title></head>
<body><h1>gamehost</h1>
<p>The web client is not installed on this server (no <code>web/</code> directory;
see <code>--http-web-dir</code>). The HTTP API is under <a href="/v1/game-types">/v1/</a>;
its OpenAPI document is <a href="/v1/openapi.json">/v1/openapi.json</a>.</p>
</body></html>
"""


def default_web_dir() -> Path | None:
    """The repository's ``web/dist`` (a built client) or else ``web/``, when present."""
    for candidate in (_REPO / "web" / "dist", _REPO / "web"):
        if (candidate / "index.html").is_file():
            return candidate
    return None


class StaticFiles:
    def __init__(self, root: Path | None) -> None:
        self.root = root.resolve() if root is not None else None

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if request.method not in ("GET", "HEAD"):
            raise web.HTTPMethodNotAllowed(request.method, ["GET", "HEAD"])
        relative = request.match_info.get("tail", "")
        if self.root is None or not (self.root / "index.html").is_file():
            if relative in ("", "index.html"):  # no client installed: say where the API is
                return web.Response(text=PLACEHOLDER, content_type="text/html")
            if self.root is None:
                raise web.HTTPNotFound(text="not found\n")
        target = self._file(relative)
        if target is None:
            raise web.HTTPNotFound(text="not found\n")
        # index.html names the current assets: never cached; the rest revalidate.
        return web.FileResponse(
            target, headers={"Cache-Control": "no-cache", "Content-Type": content_type(target)}
        )

    def _file(self, relative: str) -> Path | None:
        assert self.root is not None
        target = (self.root / relative).resolve()
        if not target.is_relative_to(self.root):
            return None  # ../ outside the web directory
        if target.is_dir():
            target = target / "index.html"
        if target.is_file():
            return target
        if "." not in relative.rsplit("/", 1)[-1]:
            index = self.root / "index.html"
            return index if index.is_file() else None
        return None
