"""Docs that run (issue 27): every request example in docs/http-api.md and docs/api.md
is run against a real server started here, so the docs cannot go stale.

Each fenced block is one of:
- ``sh``: curl requests. A document's sh blocks run in order as one bash script (later
  blocks use the variables of earlier ones), against this server's HTTP port in place
  of ``http://127.0.0.1:8080``; lines that start a server (``make run``, ``gamehost
  serve``) are left out: the server is this one. curl fails on an HTTP error, and a
  live event stream (``curl -N``) is read for a few seconds.
- ``python``: run as a script against this server's gRPC port (``127.0.0.1:50051``).
- ``js``: run in a browser page by tests/web/test_docs_js.py.
- ``json``: an example answer, checked against the error shape the server sends.
- ``proto``: excerpts of proto/: every field is checked against the descriptors.
- no language: an SSE sample, checked against the event names and fields.
A block of any other language fails the test: say how it runs first.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gamehost.v1 import gamehost_pb2 as pb
from services.gateway.errors import HTTP_STATUS
from tests.fixtures.gateway import Served, gateway_config

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("docs/http-api.md", "docs/api.md")
RUN = {"sh", "python", "js"}
CHECKED = {"json", "proto", ""}
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
_SERVER_LINES = re.compile(r"^\s*(make run|gamehost serve)\b")
# curl as the examples call it, failing on an HTTP error; a live stream (-N) is read
# for a few seconds and must have sent an event.
_CURL = r"""
set -e -o pipefail
curl() {
  if [[ " $* " == *" -sN "* ]]; then
    local out
    out=$(command curl --fail-with-body --max-time 4 "$@") || [ $? -eq 28 ]
    echo "$out"
    grep -q '^event: game-event' <<<"$out"
  else
    command curl --fail-with-body "$@"
  fi
}
"""


def doc_blocks(name: str) -> list[tuple[str, str]]:
    """(language, text) of each fenced block of a document, in order."""
    return [(m.group(1), m.group(2)) for m in _FENCE.finditer((ROOT / name).read_text())]


@pytest.fixture(scope="module")
def served():
    with Served(gateway_config(None, "gamehost", rate_limit=0, failed_auth_rate=0)) as served:
        yield served


@pytest.mark.parametrize("doc", DOCS)
def test_every_block_is_run_or_checked(doc):
    blocks = doc_blocks(doc)
    languages = [language for language, _ in blocks]
    assert languages and set(languages) <= RUN | CHECKED, languages
    assert set(languages) & RUN
    # A block without a language is an SSE sample: pseudo-code would run nowhere.
    assert all("event: " in text for language, text in blocks if language == ""), doc


@pytest.mark.parametrize("doc", DOCS)
def test_the_curl_examples_run(served, doc):
    scripts = [text for language, text in doc_blocks(doc) if language == "sh"]
    if not scripts:
        assert doc == "docs/api.md"  # its requests are Python
        return
    script = "\n".join(
        line for text in scripts for line in text.splitlines() if not _SERVER_LINES.match(line)
    )
    assert "curl" in script
    script = script.replace("http://127.0.0.1:8080", served.url)
    ran = subprocess.run(
        ["bash", "-c", _CURL + script], capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, (ran.stdout[-3000:], ran.stderr[-3000:])
    assert '"error"' not in ran.stdout, ran.stdout[-3000:]


@pytest.mark.parametrize("doc", DOCS)
def test_the_python_examples_run(served, doc):
    for language, text in doc_blocks(doc):
        if language != "python":
            continue
        assert "127.0.0.1:50051" in text
        script = text.replace("127.0.0.1:50051", served.thread.target)
        ran = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT
        )
        assert ran.returncode == 0, (text, ran.stdout[-3000:], ran.stderr[-3000:])


def test_the_error_examples_have_the_servers_shape(served):
    examples = [json.loads(t) for d in DOCS for lang, t in doc_blocks(d) if lang == "json"]
    assert examples
    codes = {code.name for code in HTTP_STATUS}
    for example in examples:
        assert set(example) == {"error"} and set(example["error"]) <= {"code", "message", "field"}
        assert example["error"]["code"] in codes
        if "field" in example["error"]:
            assert example["error"]["message"].startswith(example["error"]["field"] + ": ")
    # And the server answers that shape, with the same words, for the same mistake.
    created = served.client.create_game("cite", ["human", "human"])
    token = served.client.join(created.game_id, seat=0).token
    answer = served.http.post(
        f"/v1/games/{created.game_id}:submit",
        {"token": token, "actionId": 0, "expectedVersion": "4"},
    )
    stale = examples[0]["error"]
    found = answer.json()["error"]
    assert found["code"] == stale["code"] and found["field"] == stale["field"]
    assert found["message"].startswith("expectedVersion: stale version: you sent 4 but")


def _all_messages():
    found, todo = {}, list(pb.DESCRIPTOR.message_types_by_name.values())
    while todo:
        descriptor = todo.pop()
        todo.extend(descriptor.nested_types)
        found[descriptor.name] = descriptor
    return found


def test_proto_excerpts_match_the_proto():
    messages = _all_messages()
    tokens = re.compile(r"message (\w+) \{|(?:optional |repeated )?([\w.]+) (\w+) = (\d+);")
    checked = 0
    for doc in DOCS:
        for language, text in doc_blocks(doc):
            if language != "proto":
                continue
            current = None
            for match in tokens.finditer(text):
                if match.group(1):
                    current = messages[match.group(1)]
                    continue
                field = current.fields_by_name[match.group(3)]
                assert field.number == int(match.group(4)), (current.name, field.name)
                checked += 1
    assert checked > 10


def test_the_event_stream_sample_is_what_the_server_sends():
    samples = [t for d in DOCS for lang, t in doc_blocks(d) if lang == "" and "event:" in t]
    assert samples
    fields = {f.json_name for f in pb.GameEvent.DESCRIPTOR.fields}
    for sample in samples:
        lines = dict(line.split(": ", 1) for line in sample.strip().splitlines())
        assert lines["event"] == "game-event" and lines["id"].isdigit()
        data = lines["data"]
        assert set(re.findall(r'"(\w+)":', data.split("...")[0])) - {"kind", "seat"} <= fields
