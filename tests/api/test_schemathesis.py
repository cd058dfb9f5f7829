"""Schemathesis against the app's OpenAPI schema, every check it has, on data the schema calls valid and on data it
calls invalid (bounded examples per operation): no 5xx, every error a problem document with a request id, valid
requests accepted, invalid ones refused, responses as documented. The rules the schema states are checked by
name too, and a method a path does not take is a 405 naming the methods it does.

Hypothesis drives each operation's strategy directly (schemathesis's pytest plugin does not load under this
pytest), so one test covers every operation of the schema.

What JSON Schema cannot say, and so the one refusal of valid data this test lets pass: an image (a data URI's
payload or an uploaded file) must decode as PNG, JPEG or WebP with sides and pixels within the limits the
schema's descriptions give. Schemathesis's sample files are 1 x 1 pixel images, which the service refuses.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.generation.modes import GenerationMode

from api import Settings, create_app
from api.openapi import TEXT_PATTERN, text_matches

MAX_EXAMPLES = 12
#: Problem codes of images JSON Schema cannot describe (see the module docstring).
IMAGE_CONTENT_CODES = frozenset({"invalid_image", "invalid_image_dimensions", "unsupported_image",
                                 "image_too_many_pixels", "image_side_too_long"})


def _header(response: schemathesis.Response, name: str) -> str:
    value = response.headers.get(name.lower()) or response.headers.get(name) or ""
    return value[0] if isinstance(value, list) else value


def _problem_code(response: schemathesis.Response) -> str | None:
    try:
        doc = response.json()
    except ValueError:
        return None
    return doc.get("code") if isinstance(doc, dict) else None


def _failures(exc: BaseException) -> list[Failure]:
    if isinstance(exc, FailureGroup):
        return [f for e in exc.exceptions for f in _failures(e)]
    return [exc] if isinstance(exc, Failure) else []


def _fuzz(op: schemathesis.APIOperation, mode: GenerationMode, checks: list[Any],
          statuses: Counter[tuple[str, int]], failures: list[str]) -> None:
    @given(case=op.as_strategy(generation_mode=mode))
    @settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def check(case: schemathesis.Case) -> None:
        response = case.call()
        statuses[(f"{case.method} {op.path}", response.status_code)] += 1
        found: list[str] = []
        if not _header(response, "x-request-id"):
            found.append("no X-Request-ID")
        if response.status_code >= 400:
            if not _header(response, "content-type").startswith("application/problem+json"):
                found.append(f"error as {_header(response, 'content-type')}")
            elif response.json().get("status") != response.status_code or not response.json().get("code"):
                found.append("problem document without status/code")
        try:
            case.validate_response(response, checks=checks)
        except (Failure, FailureGroup) as exc:
            for failure in _failures(exc):
                if (failure.title == "Schema-valid request rejected"
                        and _problem_code(response) in IMAGE_CONTENT_CODES):
                    continue  # an image's pixels: beyond JSON Schema
                found.append(f"{failure.title}: {failure.message.splitlines()[0] if failure.message else ''}")
        if found:
            failures.append(f"{mode.value}: {'; '.join(found)}: {case.method} {case.formatted_path} body="
                            f"{str(case.body)[:200]} -> {response.status_code} {response.text[:300]}")

    try:
        check()
    except Unsatisfiable:
        if mode == GenerationMode.POSITIVE:
            failures.append(f"no valid request could be generated for {op.method.upper()} {op.path}")
        # negative: the operation has nothing a request could get wrong (no parameters, no body)


def test_schemathesis_finds_no_failure_on_any_operation(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path / "data", workers=0, queue_limit=10_000))
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 11
    load_all_checks()
    checks = list(CHECKS.get_all())
    assert len(checks) >= 10
    statuses: Counter[tuple[str, int]] = Counter()
    failures: list[str] = []
    with TestClient(app):  # the lifespan: warm imports, no workers
        for op in operations:
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                _fuzz(op, mode, checks, statuses, failures)
    assert not failures, f"{len(failures)} failure(s):\n" + "\n".join(failures[:10])
    assert sum(statuses.values()) >= 10 * len(operations)
    assert any(code == 202 for (_, code) in statuses), "no generated request was ever accepted"


def _post(client: TestClient, path: str, **kw: Any) -> tuple[int, str | None]:
    r = client.post(path, **kw)
    return r.status_code, r.json().get("code") if r.status_code >= 400 else None


def test_the_schema_states_the_rules_the_server_enforces(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    gen = schema["components"]["schemas"]["GenerationRequest"]
    assert {"required": ["text"], "properties": {"text": {"type": "string"}}} in gen["allOf"][0]["anyOf"]
    params = {p["name"]: p["schema"] for op in schema["paths"].values() for m in op.values()
              for p in m.get("parameters", [])}
    assert params["cursor"]["pattern"] and params["Idempotency-Key"]["pattern"]
    upload = schema["paths"]["/v1/uploads"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert upload["properties"]["file"]["minLength"] == 1 and upload["additionalProperties"] is False
    text = next(b for b in gen["properties"]["text"]["anyOf"] if b.get("type") == "string")
    assert text["pattern"] == TEXT_PATTERN and text["maxLength"] == client.app.state.service.settings.max_text_chars
    # the four requests the schema used to call valid, now invalid by it, and refused
    assert _post(client, "/v1/generations", json={}) == (422, "validation_failed")
    assert client.get("/v1/generations", params={"cursor": "0" * 64}).status_code == 400
    assert _post(client, "/v1/uploads", files={"file": ("a.png", b"", "image/png")}) == (422, "invalid_image")
    assert _post(client, "/v1/generations", json={"text": "a chair"},
                 headers={"Idempotency-Key": "clé".encode()})[0] == 422
    # the text rule and the server's check agree
    for sample, ok in (("a chair", True), ("  \t\n", False), ("\u3000x", True), ("a\x00b", False),
                       ("\ufffd", False), ("\u00a0", False), ("tab\there", True)):
        assert text_matches(sample) is ok
        status, _ = _post(client, "/v1/scenes", json={"text": sample})
        assert (status == 202) is ok, (sample, status)
    assert _post(client, "/v1/scenes", json={"text": "a room", "seed": True})[0] == 422  # not a number
    def form(**fields: str) -> dict[str, tuple[None, str]]:
        return {k: (None, v) for k, v in fields.items()}

    assert _post(client, "/v1/generations", files=form(text="a chair", seed="1.5"))[0] == 422
    assert _post(client, "/v1/generations", files=form(text="a chair", stages="parts,,texture"))[0] == 422
    assert _post(client, "/v1/generations", files=form(text="a chair", seed="7", stages="parts, texture",
                                                        require_valid="true"))[0] == 202


def test_a_method_a_path_does_not_take_is_a_405_naming_those_it_does(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    for path, operations in schema["paths"].items():
        documented = {m.upper() for m in operations}
        url = path.replace("{job_id}", "job_x").replace("{name}", "model.glb")
        for method in ("OPTIONS", "PUT", "PATCH", "DELETE", "POST", "GET"):
            if method in documented:
                continue
            r = client.request(method, url)
            assert r.status_code == 405, (method, path, r.status_code)
            assert set(r.headers["allow"].split(", ")) == documented, (method, path, r.headers["allow"])
            assert r.headers["content-type"].startswith("application/problem+json")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """An API-only client on SQLite (these tests are about the HTTP surface, not the store)."""
    with TestClient(create_app(Settings(data_dir=tmp_path / "data", workers=0))) as c:
        yield c
