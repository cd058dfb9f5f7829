"""A job says whether its asset passed, end to end through a worker (in this process, with the real ``run_job``:
physics, export, validation, preview) whose pipeline makes a fixed asset — a cabinet whose drawer slides 1 mm: it
succeeds marked not valid (physically sound, not functional) with its failed check named, and with
``require_valid`` it fails naming that check, its files still served."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient

from api import Settings, create_app
from api.worker import JobRunner
from tests.broken_assets import FixedPipe


@pytest.fixture
def client(make_settings: Callable[..., Settings]) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings())) as c:
        yield c


def _run_next_job(client: TestClient) -> str:
    """Claim the next queued job and run it to its end in this process, as a worker does."""
    service = client.app.state.service
    runner = JobRunner(service.settings, service.store, "test-worker", threading.Event())
    runner._pipe = FixedPipe()
    claim = service.store.claim("test-worker", service.settings.lease_s)
    assert claim is not None
    return runner.run(claim)


BODY = {"text": "a cabinet with a drawer", "stages": [], "formats": ["urdf"], "generator": "learned"}


def test_an_asset_that_fails_validation_succeeds_marked_not_valid(client: TestClient) -> None:
    job = client.post("/v1/generations", json=BODY).json()
    assert _run_next_job(client) == "succeeded"
    done = client.get(job["links"]["self"]).json()
    assert done["status"] == "succeeded" and done["error"] is None
    result = done["result"]
    assert result["valid"] is False and result["sound"] is True and result["functional"] is False
    assert result["failed_checks"] == ["functional.travel"]
    assert "drawer_slide (drawer) moves 1.0 mm" in result["failures"][0]["message"]
    assert result["parts"] == 2 and result["movable_joints"] == 1
    report = json.loads(client.get(f"{job['links']['self']}/files/report.json").content)
    assert report["passed"] is False and report["summary"]["failed_checks"] == ["functional.travel"]
    data_dir = str(client.app.state.service.settings.data_dir)
    assert data_dir not in json.dumps(result)


def test_with_require_valid_the_job_fails_naming_the_checks(client: TestClient) -> None:
    job = client.post("/v1/generations", json={**BODY, "require_valid": True}).json()
    assert _run_next_job(client) == "failed"
    done = client.get(job["links"]["self"]).json()
    assert done["status"] == "failed" and done["progress"] < 100
    error = done["error"]
    assert error["code"] == "asset_invalid" and error["failed_checks"] == ["functional.travel"]
    assert error["type"].endswith("/asset_invalid") and error["title"]
    assert "not functional" in error["detail"] and "functional.travel: drawer_slide (drawer) moves 1.0 mm" in \
        error["detail"]
    assert done["result"]["valid"] is False and done["result"]["failed_checks"] == ["functional.travel"]
    names = {f["name"] for f in done["files"]}
    assert {"report.json", "urdf.zip", "asset.json"} <= names  # the refused asset can still be looked at
    assert client.get(f"{job['links']['self']}/files/report.json").status_code == 200
    listed = client.get("/v1/generations").json()["items"][0]
    assert listed["id"] == job["id"] and listed["error"]["failed_checks"] == ["functional.travel"]
