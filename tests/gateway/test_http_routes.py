"""The route table covers the whole GameHost service, and the OpenAPI document (served
and committed as docs/openapi.json) is generated from it and current."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from google.protobuf.descriptor import FieldDescriptor
from openapi_spec_validator import validate

from services.gateway.openapi import openapi_document
from services.gateway.routes import ROUTES, SERVICE, find, unrouted_rpcs
from tests.fixtures.gateway import Served, gateway_config

DOC = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"


@pytest.mark.parametrize("method", list(SERVICE.methods), ids=lambda m: m.name)
def test_every_rpc_has_a_route(method):
    routes = [r for r in ROUTES if r.rpc == method.name]
    assert routes, f"{method.name} has no HTTP route: add one to services/gateway/routes.py"
    for route in routes:
        assert route.streaming == method.server_streaming
        # GET and DELETE: fields from the query string; POST: from a body
        assert (route.verb in ("GET", "DELETE")) == (route.body == ""), route
        for name in route.path_fields:
            field = method.input_type.fields_by_name.get(name)
            assert field is not None and field.type == FieldDescriptor.TYPE_STRING, name


def test_a_missing_route_is_reported():
    assert unrouted_rpcs() == []
    assert unrouted_rpcs(ROUTES[1:]) == [ROUTES[0].rpc]


def test_routes_do_not_overlap():
    samples = {r: r.template.replace("{game_id}", "a" * 32).replace("{name}", "t1") for r in ROUTES}
    for route, path in samples.items():
        assert find(route.verb, path).route == route, route
    assert len({(r.verb, r.template) for r in ROUTES}) == len(ROUTES)


def test_the_committed_openapi_document_is_current():
    expected = json.dumps(openapi_document(), indent=1) + "\n"
    assert DOC.read_text() == expected, (
        "docs/openapi.json is stale: .venv/bin/python -m services.gateway.openapi > docs/openapi.json"
    )


def test_the_openapi_document_is_valid_openapi_3():
    validate(openapi_document())


def test_the_openapi_document_lists_every_route_and_is_served():
    document = openapi_document()
    for route in ROUTES:
        operation = document["paths"][route.template][route.verb.lower()]
        assert operation["operationId"].startswith(route.rpc)
    ids = [op["operationId"] for path in document["paths"].values() for op in path.values()]
    assert len(ids) == len(set(ids)) == len(ROUTES)  # OpenAPI: each operationId once
    schemas = document["components"]["schemas"]
    refs = set(re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', json.dumps(document)))
    assert "gamehost.v1.CatanView" in refs and refs <= set(schemas)  # every $ref resolves
    assert all(name == "Error" or name.startswith("gamehost.v1.") for name in schemas)
    version = schemas["gamehost.v1.GameState"]["properties"]["version"]
    assert version == {"type": "string", "format": "uint64"}  # the JSON mapping of 64-bit ints
    with Served(gateway_config(None, "gamehost")) as served:
        assert served.http.get("/v1/openapi.json").json() == document
