"""The Ray executor on a one-CPU local Ray instance: its actor claims and finishes a job."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api import Settings, create_app
from tests.api.conftest import wait_for

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.slow


@pytest.fixture
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_ray_worker_runs_a_scene_job(tmp_path: Path, local_ray: None) -> None:
    settings = Settings(data_dir=tmp_path / "data", executor="ray", workers=1, cpus_per_worker=1.0, lease_s=10.0,
                        heartbeat_s=1.0)
    app = create_app(settings)
    with TestClient(app) as client:
        deadline = time.monotonic() + 120
        while client.get("/healthz").json()["workers_alive"] < 1:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        job = client.post("/v1/scenes", json={"text": "a small office with a desk", "seed": 0}).json()
        done = wait_for(client, job["id"], timeout=300)
        assert done["status"] == "succeeded", done
        assert {"urdf.zip", "model.usdz", "report.json"} <= {f["name"] for f in done["files"]}
        attempts = app.state.service.store.attempts(job["id"])
        assert len(attempts) == 1 and attempts[0]["worker"].startswith("ray:")
        health = client.get("/healthz").json()
        assert health["executor"] == "ray" and health["workers_alive"] == 1
    assert ray.is_initialized(), "the executor must not shut down a Ray instance it did not start"
