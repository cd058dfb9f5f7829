"""Schemathesis against the app's OpenAPI schema (bounded examples per operation): no 5xx, and every error is
application/problem+json with a request id.

Hypothesis drives each operation's strategy directly (schemathesis's pytest plugin does not load under this
pytest), so one test covers every operation of the schema.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, given, settings

from api import Settings, create_app

MAX_EXAMPLES = 25


def _header(response: schemathesis.Response, name: str) -> str:
    value = response.headers.get(name.lower()) or response.headers.get(name) or ""
    return value[0] if isinstance(value, list) else value


def _fuzz(op: schemathesis.APIOperation, statuses: Counter[tuple[str, int]], failures: list[str]) -> None:
    @given(case=op.as_strategy())
    @settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def check(case: schemathesis.Case) -> None:
        response = case.call()
        statuses[(f"{case.method} {op.path}", response.status_code)] += 1
        problem = ""
        if response.status_code >= 500:
            problem = "server error"
        elif not _header(response, "x-request-id"):
            problem = "no X-Request-ID"
        elif response.status_code >= 400:
            if not _header(response, "content-type").startswith("application/problem+json"):
                problem = f"error as {_header(response, 'content-type')}"
            elif response.json().get("status") != response.status_code or not response.json().get("code"):
                problem = "problem document without status/code"
        if problem:
            failures.append(f"{problem}: {case.method} {case.formatted_path} -> {response.status_code} "
                            f"{response.text[:300]}")

    check()


def test_no_server_errors_on_any_operation(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path / "data", workers=0, queue_limit=10_000))
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 11
    statuses: Counter[tuple[str, int]] = Counter()
    failures: list[str] = []
    for op in operations:
        _fuzz(op, statuses, failures)
    assert not failures, "\n".join(failures[:10])
    assert sum(statuses.values()) >= 5 * len(operations)
    assert any(code == 202 for (_, code) in statuses), "no generated request was ever accepted"
