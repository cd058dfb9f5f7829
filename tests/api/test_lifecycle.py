"""Jobs end to end on a real worker process and the shipped weights (reduced options, about 15-30 s a job):
submit -> events -> succeeded -> downloads; the program path, its result and a re-run with a changed parameter;
cancel of a running job; a scene job."""

from __future__ import annotations

import json
import time
import zipfile
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api import Settings, create_app
from seed3d.pipeline import POST_STAGES
from tests.api.conftest import FAST_GENERATION, wait_for

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app with one local worker process, shared by the tests of this module (the model loads once)."""
    root = tmp_path_factory.mktemp("service")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SEED3D_HOME", str(root / "home"))  # the worker's caches stay in the test folder
        mp.setenv("OMP_NUM_THREADS", "1")
        settings = Settings(data_dir=root / "data", workers=1, lease_s=20.0, heartbeat_s=1.0)
        with TestClient(create_app(settings)) as client:
            deadline = time.monotonic() + 60
            while client.get("/healthz").json()["workers_alive"] < 1:
                assert time.monotonic() < deadline, "the worker did not start"
                time.sleep(0.2)
            yield client


def _events(client: TestClient, url: str) -> list[dict[str, Any]]:
    with client.stream("GET", url) as s:
        assert s.status_code == 200 and s.headers["content-type"].startswith("text/event-stream")
        text = "".join(s.iter_text())
    out = []
    for block in text.split("\n\n"):
        lines = block.strip().splitlines()
        if lines and lines[0] == "event: job":
            data = next(line for line in lines if line.startswith("data: "))
            out.append(json.loads(data[len("data: "):]))
    return out


def test_generation_runs_streams_events_and_serves_files(served: TestClient) -> None:
    body = {"text": "a wooden chair", "seed": 1, "stages": [], **FAST_GENERATION,
            "formats": ["glb", "urdf", "mjcf", "usd"], "generator": "learned"}
    r = served.post("/v1/generations", json=body)
    assert r.status_code == 202, r.text
    job = r.json()
    events = _events(served, job["links"]["events"])
    statuses = [e["status"] for e in events]
    assert statuses[-1] == "succeeded", events[-1]
    assert "running" in statuses and statuses.index("running") < len(statuses) - 1
    assert all(e["id"] == job["id"] for e in events)
    progress = [e["progress"] for e in events]
    assert progress == sorted(progress) and progress[-1] == 100
    # events sample the job's state, so a stage shorter than the poll interval may not show; those seen come in
    # pipeline order, and the finished job's timings below name every stage
    order = ["geometry", *POST_STAGES]
    seen = [e["stage"] for e in events if e["stage"] is not None]
    assert "geometry" in seen and [order.index(x) for x in seen] == sorted(order.index(x) for x in seen), seen

    done = served.get(job["links"]["self"]).json()
    assert done["status"] == "succeeded" and done["attempts"] == 1 and done["error"] is None
    assert done["started_at"] and done["finished_at"] and done["finished_at"] >= done["started_at"]
    assert done["timings"]["geometry"] > 0 and "total" in done["timings"]
    generator = done["result"]["generator"]
    assert generator["path"] == "learned" and generator["asked"] == "learned" and "program" not in generator
    assert done["result"]["name"] and done["result"]["valid"] in (True, False)
    assert set(POST_STAGES) <= set(done["timings"]), done["timings"]
    files = {f["name"]: f for f in done["files"]}
    expected = {"model.glb": "model/gltf-binary", "urdf.zip": "application/zip", "mjcf.zip": "application/zip",
                "model.usdz": "model/vnd.usdz+zip", "preview.png": "image/png", "report.json": "application/json",
                "asset.json": "application/json"}
    assert set(files) == set(expected)
    blobs = {}
    for name, ctype in expected.items():
        assert files[name]["content_type"] == ctype
        resp = served.get(files[name]["url"])
        assert resp.status_code == 200 and resp.headers["content-type"].startswith(ctype)
        assert len(resp.content) == files[name]["size"] > 0
        blobs[name] = resp.content
    assert blobs["model.glb"][:4] == b"glTF"
    assert blobs["preview.png"][:8] == b"\x89PNG\r\n\x1a\n"
    for name, suffix in (("urdf.zip", ".urdf"), ("mjcf.zip", ".xml"), ("model.usdz", ".usda")):
        with zipfile.ZipFile(BytesIO(blobs[name])) as zf:
            assert any(n.endswith(suffix) for n in zf.namelist()), (name, zf.namelist())
    report = json.loads(blobs["report.json"])
    assert "checks" in report
    assert report["generator"] == generator
    data_dir = str(served.app.state.service.settings.data_dir)
    assert data_dir not in blobs["report.json"].decode(), "report.json leaks the server's data folder"
    asset = json.loads(blobs["asset.json"])
    assert [p["name"] for p in asset["parts"]] and asset["joints"] == []
    # the run folder is gone; only the published files remain
    job_dir = Path(data_dir) / "jobs" / job["id"]
    assert sorted(p.name for p in job_dir.iterdir()) == ["files-1"]


def test_program_path_reports_its_program_and_reruns_with_a_changed_parameter(served: TestClient) -> None:
    body = {"text": "a wooden cabinet with two doors", "seed": 0, "formats": ["glb"]}  # generator: auto
    first = wait_for(served, served.post("/v1/generations", json=body).json()["id"])
    assert first["status"] == "succeeded", first
    assert first["options"]["generator"] == "auto"
    generator = first["result"]["generator"]
    assert generator["path"] == "program" and generator["asked"] == "auto" and "cabinet" in generator["why"]
    program = generator["program"]
    assert program["category"] == "cabinet" and program["params"]["doors"] == 2 and "doors" in program["given"]
    assert program["confidence"] >= 0.64 and isinstance(program["unplaced"], list)
    assert first["timings"]["program"] > 0 and "geometry" not in first["timings"]
    assert first["result"]["movable_joints"] >= 2
    report = served.get(f"{first['links']['self']}/files/report.json").json()
    assert report["generator"] == generator

    # the same text and seed, one parameter changed: the program is rebuilt with it
    again = served.post("/v1/generations", json={**body, "generator": "program", "params": {"doors": 3}})
    assert again.status_code == 202, again.text
    second = wait_for(served, again.json()["id"])
    assert second["status"] == "succeeded", second
    rerun = second["result"]["generator"]
    assert rerun["path"] == "program" and rerun["asked"] == "program"
    assert rerun["program"]["category"] == "cabinet" and rerun["program"]["params"]["doors"] == 3
    assert rerun["program"]["params"]["body_finish"] == program["params"]["body_finish"]  # still the text's wood
    assert {"doors", "body_finish"} <= set(rerun["program"]["given"])
    assert second["result"]["movable_joints"] > first["result"]["movable_joints"]

    # a parameter the category does not have fails the job, naming it and listing the category's
    bad = wait_for(served, served.post("/v1/generations", json={**body, "params": {"wings": 2}}).json()["id"])
    assert bad["status"] == "failed" and bad["error"]["code"] == "invalid_input", bad
    assert "wings" in bad["error"]["detail"] and "doors" in bad["error"]["detail"]


def test_cancel_stops_a_running_job_at_a_stage_boundary(served: TestClient) -> None:
    # the server's most flow steps and a fine extraction: the geometry stage must outlast the worker's 1 s heartbeat
    # (which reads the cancel request), or a warm worker on a fast machine finishes the job first
    body = {"text": "a small table", "seed": 2, "stages": [], **FAST_GENERATION, "steps": 100, "resolution": 256,
            "generator": "learned"}
    job = served.post("/v1/generations", json=body).json()
    wait_for(served, job["id"], until=lambda j: j["status"] == "running" and j["stage"] is not None)
    r = served.post(job["links"]["cancel"])
    assert r.status_code == 202 and r.json()["status"] in ("running", "canceled")
    done = wait_for(served, job["id"])
    assert done["status"] == "canceled", done
    assert done["error"]["code"] == "canceled" and done["files"] == []
    assert served.app.state.service.store.attempts(job["id"])[-1]["outcome"] == "canceled"


def test_scene_job(served: TestClient) -> None:
    r = served.post("/v1/scenes", json={"text": "a small office with a workbench", "seed": 0})
    assert r.status_code == 202, r.text
    done = wait_for(served, r.json()["id"])
    assert done["status"] == "succeeded", done
    names = {f["name"] for f in done["files"]}
    assert {"urdf.zip", "mjcf.zip", "model.usdz", "preview.png", "report.json"} <= names
    with zipfile.ZipFile(BytesIO(served.get(f"{done['links']['self']}/files/urdf.zip").content)) as zf:
        assert "urdf/scene.urdf" in zf.namelist()
    assert done["timings"]
    bench = done["result"]["omissions"][0]  # no workbench in the synth engine: a table stands in, the job says so
    assert (bench["noun"], bench["status"], bench["stand_in"]) == ("workbench", "substituted", "table")
