"""kill -9 of a worker mid-job (on SQLite and on PostgreSQL): the executor restarts the worker, the lease ends,
the job is retried and finishes exactly once."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api import Settings, create_app
from tests.api.conftest import FAST_GENERATION, wait_for

pytestmark = pytest.mark.slow


def test_killed_worker_job_is_retried_and_finishes_once(make_settings: Callable[..., Settings],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    settings = make_settings(workers=1, lease_s=4.0, heartbeat_s=0.5, max_attempts=3)
    app = create_app(settings)
    with TestClient(app) as client:
        service = app.state.service
        body = {"text": "a wooden chair", "seed": 1, "stages": [], **FAST_GENERATION, "generator": "learned"}
        job = client.post("/v1/generations", json=body).json()
        running = wait_for(client, job["id"], until=lambda j: j["status"] == "running" and j["stage"] == "geometry")
        assert running["attempts"] == 1
        victim = service.executor.workers()[0]
        assert victim.alive and victim.pid is not None
        os.kill(victim.pid, signal.SIGKILL)

        done = wait_for(client, job["id"], timeout=600)
        assert done["status"] == "succeeded", done
        assert done["attempts"] == 2
        attempts = service.store.attempts(job["id"])
        assert [a["outcome"] for a in attempts] == ["lost", "succeeded"]
        assert attempts[0]["worker"].split(":")[1] == str(victim.pid)
        assert attempts[1]["worker"] != attempts[0]["worker"]
        after = service.executor.workers()[0]
        assert after.alive and after.pid != victim.pid and after.restarts == 1
        # finished exactly once: one published folder, the first attempt's run folder cleaned up
        job_dir = settings.jobs_dir / job["id"]
        assert sorted(p.name for p in job_dir.iterdir()) == ["files-2"]
        assert {f["name"] for f in done["files"]} >= {"model.glb", "preview.png", "report.json"}
        assert client.get(done["files"][0]["url"]).status_code == 200
        assert 'seed3d_worker_restarts_total 1' in client.get("/metrics").text
    # the server stopped its workers on shutdown
    with pytest.raises(ProcessLookupError):
        for _ in range(50):
            os.kill(after.pid, 0)
            time.sleep(0.1)


def test_shutdown_gives_running_jobs_back_to_the_queue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    settings = Settings(data_dir=tmp_path / "data", workers=1, lease_s=30.0, heartbeat_s=0.5, shutdown_grace_s=120)
    app = create_app(settings)
    with TestClient(app) as client:
        job = client.post("/v1/scenes", json={"text": "a small office with a desk", "seed": 0}).json()
        wait_for(client, job["id"], until=lambda j: j["status"] == "running" and j["progress"] > 0)
    # the lifespan stopped the worker at its next step; the job waits for the next server, attempt not counted
    store = create_app(settings).state.service.store
    row = store.get(job["id"])
    assert row is not None and row["status"] == "queued" and row["attempts"] == 0, row
    assert row["lease_owner"] is None and "shut down" in (row["message"] or "")
    assert store.attempts(job["id"]) == []
    job_dir = settings.jobs_dir / job["id"]
    assert not job_dir.exists() or not any(p.name.startswith(("run-", ".run-")) for p in job_dir.iterdir())
