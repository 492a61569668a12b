"""The gateway under the gRPC API's limits and access control: per-client rate limits
see the HTTP client's own address (and no header can change it), failed tokens count,
API keys come as X-Api-Key; also CORS and the web client's static files."""

from __future__ import annotations

import ssl

import aiohttp
import pytest

from tests.certificates import self_signed
from tests.fixtures.gateway import ZERO_GAME, Served, gateway_config, two_humans
from tests.fixtures.http_client import Http

API_KEY = "k" * 24


def test_rate_limits_are_per_real_client_and_cannot_be_spoofed():
    with Served(gateway_config(None, "gamehost", rate_limit=0.01, rate_burst=3)) as served:
        for _ in range(3):
            assert served.http.get("/v1/game-types").status == 200
        refused = served.http.get("/v1/game-types", headers={"X-Forwarded-For": "10.1.2.3"})
        assert refused.status == 429 and refused.json()["error"]["code"] == "RESOURCE_EXHAUSTED"
        assert "rate limit" in refused.json()["error"]["message"]
        spoofed = served.http.get("/v1/game-types", headers={"X-Real-IP": "10.9.9.9"})
        assert spoofed.status == 429
        # Another address (the loopback range is all this machine's) is another client.
        with Http(served.url, local_host="127.0.0.2") as other:
            assert other.get("/v1/game-types").status == 200


def test_failed_tokens_count_against_the_client():
    with Served(gateway_config(None, "gamehost", failed_auth_rate=0.5)) as served:
        game_id, _, _ = two_humans(served.http)
        codes = [
            served.http.get(f"/v1/games/{game_id}", params={"token": "x" * 20}).status
            for _ in range(6)
        ]
        assert codes[0] == 401 and codes[-1] == 429  # bursts of 4 x the rate: 2 here


def test_api_keys_are_sent_as_x_api_key(tmp_path):
    keys = tmp_path / "keys"
    keys.write_text(f"{API_KEY} web\n")
    config = gateway_config(None, "gamehost", api_keys_file=str(keys))
    body = {"gameType": "cite", "seats": [{"kind": "HUMAN"}, {"kind": "HUMAN"}]}
    with Served(config) as served:
        refused = served.http.post("/v1/games", body)
        assert refused.status == 401 and "API key" in refused.json()["error"]["message"]
        wrong = served.http.post("/v1/games", body, headers={"X-Api-Key": "w" * 24})
        assert wrong.status == 401
        assert served.fingerprint(ZERO_GAME)[1] == []  # nothing was created
        made = served.http.post("/v1/games", body, headers={"X-Api-Key": API_KEY})
        assert made.status == 200
        assert served.http.get("/v1/games").status == 200  # reading needs no key


def test_cors_is_off_unless_an_origin_is_allowed():
    origin = "https://play.example"
    with Served(gateway_config(None, "gamehost")) as served:
        answer = served.http.get("/v1/game-types", headers={"Origin": origin})
        assert "Access-Control-Allow-Origin" not in answer.headers
    with Served(gateway_config(None, "gamehost", http_cors_origins=(origin,))) as served:
        answer = served.http.get("/v1/game-types", headers={"Origin": origin})
        assert answer.headers["Access-Control-Allow-Origin"] == origin
        preflight = served.http.request(
            "OPTIONS",
            "/v1/games",
            headers={
                "Origin": origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type, authorization",
            },
        )
        assert preflight.status == 204
        assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
        assert "Authorization" in preflight.headers["Access-Control-Allow-Headers"]
        other = served.http.get("/v1/game-types", headers={"Origin": "https://evil.example"})
        assert "Access-Control-Allow-Origin" not in other.headers
        game_id, token, _ = two_humans(served.http)
        stream = served.http.stream(f"/v1/games/{game_id}/events", headers={"Origin": origin})
        assert stream.headers["Access-Control-Allow-Origin"] == origin
        stream.close()


@pytest.fixture
def web_dir(tmp_path):
    root = tmp_path / "web"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>client</title>")
    (root / "assets" / "app.js").write_text("console.log(1)")
    (root / "assets" / "style.css").write_text("body{}")
    (root / "assets" / "board.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (tmp_path / "secret.txt").write_text("not served")
    return root


def test_the_web_directory_is_served_at_the_root(web_dir):
    with Served(gateway_config(None, "gamehost", http_web_dir=str(web_dir))) as served:
        http = served.http
        index = http.get("/")
        assert index.status == 200 and b"client" in index.body
        assert index.headers["Content-Type"].startswith("text/html")
        types = {
            "/assets/app.js": "text/javascript",
            "/assets/style.css": "text/css",
            "/assets/board.svg": "image/svg+xml",
            "/index.html": "text/html",
        }
        for path, kind in types.items():
            answer = http.get(path)
            assert answer.status == 200 and answer.headers["Content-Type"].startswith(kind), path
        assert http.get("/games/abc").body == index.body  # a client-side route
        assert http.get("/assets/missing.js").status == 404
        assert http.get("/../secret.txt").status == 404
        assert http.get("/%2e%2e/secret.txt").status == 404
        assert http.get("/v1/games").status == 200  # the API is not shadowed


def test_without_a_web_directory_the_root_is_a_placeholder(tmp_path):
    with Served(gateway_config(None, "gamehost", http_web_dir=str(tmp_path / "none"))) as served:
        answer = served.http.get("/")
        assert answer.status == 200 and b"/v1/openapi.json" in answer.body


def test_bodies_over_the_cap_are_invalid_argument():
    with Served(gateway_config(None, "gamehost")) as served:
        padded = b"{" + b" " * (2 << 20) + b"}"
        answer = served.http.request("POST", "/v1/games", data=padded)
        assert answer.status == 400 and "bytes" in answer.json()["error"]["message"]


def test_with_a_certificate_the_http_port_serves_https(tmp_path):
    cert, key = self_signed(tmp_path)
    config = gateway_config(None, "gamehost", tls_cert=cert, tls_key=key)
    with Served(config) as served:
        assert served.url.startswith("https://")
        trusting = ssl.create_default_context(cafile=cert)
        with Http(served.url, ssl=trusting) as https:
            assert https.get("/v1/game-types").status == 200
        with (
            Http(served.url.replace("https://", "http://")) as plain,
            pytest.raises(aiohttp.ClientError),
        ):
            plain.get("/v1/game-types")
