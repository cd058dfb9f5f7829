"""REST API v1 without workers: submitting, the job object, paging, idempotency, API keys and scoping, cancel,
the queue limit and Retry-After, downloads, retention, health, metrics, the static page, verdicts of assets and
require_valid, and a restart reclaiming the leases of its dead workers."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

import api.app
import api.service
from api import Settings, create_app
from api.artifacts import publish_generation
from api.keys import LOCAL_OWNER, create_key
from api.worker import lease_holder, process_alive
from seed3d.pipeline import BUILT_STAGES, STAGES
from tests.api.conftest import png_bytes

JOB_KEYS = {"id", "kind", "status", "stage", "progress", "queue_position", "created_at", "started_at", "finished_at",
            "attempts", "timings", "error", "options", "result", "files", "links"}


def _problem(r: Any, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    doc = r.json()
    assert doc["code"] == code and doc["status"] == status
    assert doc["request_id"] and doc["request_id"] == r.headers["x-request-id"]
    assert {"type", "title", "detail"} <= set(doc)
    return doc


def test_submit_text_returns_the_queued_job(client: TestClient) -> None:
    r = client.post("/v1/generations", json={"text": "a wooden chair", "seed": 3, "formats": ["glb", "urdf"]})
    assert r.status_code == 202, r.text
    job = r.json()
    assert set(job) >= JOB_KEYS
    assert job["status"] == "queued" and job["kind"] == "generation" and job["progress"] == 0
    assert job["queue_position"] == 1 and job["attempts"] == 0 and job["error"] is None and job["files"] == []
    assert job["options"]["text"] == "a wooden chair" and job["options"]["seed"] == 3
    assert job["options"]["formats"] == ["glb", "urdf"]
    assert job["options"]["generator"] == "auto" and "params" not in job["options"] and job["result"] is None
    assert r.headers["location"] == job["links"]["self"] == f"/v1/generations/{job['id']}"
    assert job["links"]["events"].endswith("/events") and job["links"]["cancel"].endswith("/cancel")
    second = client.post("/v1/generations", json={"text": "a lamp"}).json()
    assert second["queue_position"] == 2
    assert client.get(job["links"]["self"]).json()["id"] == job["id"]


def test_submit_image_as_data_uri_multipart_and_upload(client: TestClient, make_settings: Callable[..., Settings]
                                                       ) -> None:
    data_dir = make_settings().data_dir
    png = png_bytes()
    uri = "data:image/png;base64," + base64.b64encode(png).decode()
    a = client.post("/v1/generations", json={"image": uri, "seed": 1})
    assert a.status_code == 202, a.text
    b = client.post("/v1/generations", files={"image": ("../../etc/evil.png", png, "image/png")},
                    data={"seed": "1", "formats": "glb,usd", "text": "a red box"})
    assert b.status_code == 202, b.text
    assert b.json()["options"]["formats"] == ["glb", "usd"] and b.json()["options"]["text"] == "a red box"
    up = client.post("/v1/uploads", files={"file": ("../x.png", png, "image/png")})
    assert up.status_code == 201, up.text
    token = up.json()["upload_token"]
    assert up.json()["width"] == 64 and up.json()["expires_at"].endswith("Z")
    c = client.post("/v1/generations", json={"upload_token": token, "seed": 1})
    assert c.status_code == 202, c.text
    # the same pixels give the same input, however they came
    shas = {j.json()["options"]["image"]["sha256"] for j in (a, b, c)}
    assert len(shas) == 1
    for j in (a, b, c):
        assert (data_dir / "jobs" / j.json()["id"] / "input.png").is_file()
    stored = sorted(p.name for p in (data_dir / "uploads").iterdir())
    assert stored == [f"{token}.png"]
    assert not list(data_dir.parent.rglob("evil.png")) and not (data_dir.parent / "x.png").exists()
    _problem(client.post("/v1/generations", json={"upload_token": "nope"}), 404, "upload_not_found")
    _problem(client.post("/v1/generations", json={"image": uri, "upload_token": token}), 422, "validation_failed")


def test_a_request_needs_text_or_an_image(client: TestClient) -> None:
    _problem(client.post("/v1/generations", json={"seed": 2}), 422, "validation_failed")
    _problem(client.post("/v1/generations", json={"text": "   "}), 422, "invalid_text")


def test_unbuilt_stages_are_refused(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    import seed3d.pipeline

    assert BUILT_STAGES == STAGES  # every stage is built today: take one away to see the refusal
    monkeypatch.setattr(seed3d.pipeline, "BUILT_STAGES", tuple(s for s in STAGES if s != "texture"))
    doc = _problem(client.post("/v1/generations", json={"text": "a box", "stages": ["parts", "texture"]}), 422,
                   "stage_not_built")
    assert "texture" in doc["detail"]
    assert client.post("/v1/generations", json={"text": "a box", "stages": ["parts"]}).status_code == 202


def test_generator_and_params_are_kept_with_the_job(client: TestClient) -> None:
    from typing import get_args

    from api.schemas import GENERATORS, Generator
    from api.worker import job_spec_kwargs
    from seed3d.pipeline import GENERATORS as PIPELINE_GENERATORS
    from seed3d.pipeline import JobSpec

    assert GENERATORS == get_args(Generator) == PIPELINE_GENERATORS  # the schema offers what the pipeline runs
    params = {"doors": 3, "glass_doors": True, "body_finish": "wood:oak", "hinge": ["left", None], "width": 0.8}
    r = client.post("/v1/generations", json={"text": "a wooden cabinet", "generator": "program", "params": params})
    assert r.status_code == 202, r.text
    options = r.json()["options"]
    assert options["generator"] == "program" and options["params"] == params
    # the worker hands both to the pipeline's JobSpec, values as the client typed them
    spec = JobSpec(**job_spec_kwargs(options, None))
    assert spec.generator == "program" and spec.params == params
    # multipart: generator as a field, params as a JSON object
    r = client.post("/v1/generations", files={"text": (None, "a cabinet"), "generator": (None, "learned")})
    assert r.status_code == 202 and r.json()["options"]["generator"] == "learned", r.text
    r = client.post("/v1/generations", files={"text": (None, "a cabinet"), "params": (None, '{"drawers": "2"}')})
    assert r.status_code == 202, r.text
    assert r.json()["options"]["generator"] == "auto" and r.json()["options"]["params"] == {"drawers": "2"}
    # a job stored before the choice existed runs as auto
    assert JobSpec(**job_spec_kwargs({"text": "a box", "seed": 1}, None)).generator == "auto"
    # the same body replays under one Idempotency-Key; another generator or params is another request
    key = {"Idempotency-Key": "gen-1"}
    first = client.post("/v1/generations", json={"text": "a box", "params": {"lid": "hinged"}}, headers=key)
    again = client.post("/v1/generations", json={"text": "a box", "params": {"lid": "hinged"}}, headers=key)
    assert first.json()["id"] == again.json()["id"]
    _problem(client.post("/v1/generations", json={"text": "a box", "params": {"lid": "none"}}, headers=key), 409,
             "idempotency_key_reused")


def test_a_finished_job_carries_its_result(client: TestClient) -> None:
    store = client.app.state.service.store
    job = client.post("/v1/generations", json={"text": "a cabinet with two doors"}).json()
    assert job["result"] is None
    claim = store.claim("test-worker", 60)
    assert claim is not None and claim.job["id"] == job["id"]
    generator = {"path": "program", "asked": "auto", "why": "the text names a cabinet (exact match on 'cabinet', "
                                                            "confidence 1.00)",
                 "program": {"category": "cabinet", "params": {"doors": 2, "drawers": 0, "width": 0.9},
                             "given": ["doors"], "confidence": 1.0, "how": "exact", "noun": "cabinet", "size": {},
                             "placed": ["'two doors' → doors=2"], "unplaced": [], "notes": []}}
    summary = {"name": "cabinet", "valid": True, "faces": 900, "parts": 5, "joints": 4, "movable_joints": 2,
               "generator": generator}
    running = client.get(job["links"]["self"]).json()
    assert running["status"] == "running" and running["result"] is None
    assert store.finish(job["id"], "test-worker", 1, "succeeded", files=[], timings={"program": 0.4},
                        summary=summary)
    done = client.get(job["links"]["self"]).json()
    assert done["result"] == summary
    assert done["result"]["generator"]["program"]["params"]["doors"] == 2
    assert client.get("/v1/generations").json()["items"][0]["result"] == summary


#: A finished generation whose drawer cannot open: physically sound, not functional (what a worker stores).
INVALID_RESULT: dict[str, Any] = {
    "name": "cabinet", "valid": False, "sound": True, "functional": False, "failed_checks": ["functional.travel"],
    "failures": [{"name": "functional.travel", "message": "drawer_0 (drawer) moves 1.0 mm, needs 120.0 mm"}],
    "faces": 900, "parts": 2, "joints": 1, "movable_joints": 1, "generator": {"path": "program", "asked": "auto"}}


def _events(client: TestClient, url: str) -> list[dict[str, Any]]:
    with client.stream("GET", url) as s:
        text = "".join(s.iter_text())
    return [json.loads(b.split("data: ", 1)[1]) for b in text.split("\n\n") if b.startswith("event: job")]


def test_a_job_says_whether_its_asset_passed(client: TestClient) -> None:
    store = client.app.state.service.store
    job = client.post("/v1/generations", json={"text": "a cabinet with a drawer"}).json()
    assert "require_valid" not in job["options"]
    claim = store.claim("test-worker", 60)
    assert claim is not None
    assert store.finish(job["id"], "test-worker", 1, "succeeded", files=[], timings={}, summary=INVALID_RESULT)
    for seen in (client.get(job["links"]["self"]).json(), client.get("/v1/generations").json()["items"][0],
                 _events(client, job["links"]["events"])[-1]):
        assert seen["status"] == "succeeded" and seen["error"] is None
        result = seen["result"]
        assert result["valid"] is False and result["sound"] is True and result["functional"] is False
        assert result["failed_checks"] == ["functional.travel"]
        assert result["failures"][0]["message"].startswith("drawer_0 (drawer) moves 1.0 mm")


def test_require_valid_is_kept_and_a_refused_job_names_its_checks(client: TestClient) -> None:
    store = client.app.state.service.store
    r = client.post("/v1/generations", json={"text": "a cabinet with a drawer", "require_valid": True})
    assert r.status_code == 202, r.text
    job = r.json()
    assert job["options"]["require_valid"] is True
    _problem(client.post("/v1/generations", json={"text": "a cabinet", "require_valid": "maybe"}), 422,
             "validation_failed")
    multipart = client.post("/v1/generations", data={"text": "a cabinet", "require_valid": "true"},
                            files={"image": ("a.png", png_bytes(), "image/png")})
    assert multipart.status_code == 202, multipart.text
    assert multipart.json()["options"]["require_valid"] is True
    claim = store.claim("test-worker", 60)
    assert claim is not None and claim.job["id"] == job["id"]
    detail = "the asset failed validation (not functional): functional.travel: drawer_0 (drawer) moves 1.0 mm"
    assert store.finish(job["id"], "test-worker", 1, "failed", files=[], timings={}, summary=INVALID_RESULT,
                        error_code="asset_invalid", error_detail=detail)
    done = client.get(job["links"]["self"]).json()
    assert done["status"] == "failed" and done["result"]["valid"] is False  # the asset it made, and why
    error = done["error"]
    assert error["code"] == "asset_invalid" and error["failed_checks"] == ["functional.travel"]
    assert error["type"].endswith("/asset_invalid") and "require_valid" in error["title"]
    assert "functional.travel" in error["detail"]
    canceled = client.post(multipart.json()["links"]["cancel"]).json()
    assert canceled["error"]["code"] == "canceled" and canceled["error"]["title"] and canceled["result"] is None


def test_paging_walks_every_job_newest_first(client: TestClient) -> None:
    ids = [client.post("/v1/generations", json={"text": f"thing {i}"}).json()["id"] for i in range(7)]
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 3}
        if cursor:
            params["cursor"] = cursor
        page = client.get("/v1/generations", params=params).json()
        seen += [j["id"] for j in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ids[::-1]
    _problem(client.get("/v1/generations", params={"limit": 0}), 422, "validation_failed")


def test_a_cursor_that_names_no_position_is_a_400(client: TestClient) -> None:
    for i in range(3):
        client.post("/v1/generations", json={"text": f"thing {i}"})
    first = client.get("/v1/generations", params={"limit": 1}).json()
    cursor = first["next_cursor"]
    assert client.get("/v1/generations", params={"cursor": cursor, "limit": 1}).status_code == 200
    assert client.app.state.service.store.max_seq == 2**63 - 1  # SQLite's INTEGER key, PostgreSQL's BIGINT
    bad = ["", "garbage!", "AAAA", "0", "0" * 64, "-1", "+5", " 5", "5 ", "05", "1_000", "\u0665", "5\n", "1e3",
           str(10**18), str(2**63), str(10**40), "%%%"]
    for cursor in bad:
        doc = _problem(client.get("/v1/generations", params={"cursor": cursor}), 400, "invalid_cursor")
        assert "next_cursor" in doc["detail"]
    assert client.get("/v1/generations", params={"cursor": str(10**18 - 1)}).json()["items"]  # the largest
    assert client.get("/v1/generations", params={"cursor": str(2**31)}).json()["items"]  # past 32 bits


def test_idempotency_key_replays_and_refuses_another_body(client: TestClient) -> None:
    body = {"text": "a stool", "seed": 4}
    first = client.post("/v1/generations", json=body, headers={"Idempotency-Key": "abc-123"})
    again = client.post("/v1/generations", json=body, headers={"Idempotency-Key": "abc-123"})
    assert first.status_code == again.status_code == 202
    assert first.json()["id"] == again.json()["id"] and again.headers["idempotent-replayed"] == "true"
    _problem(client.post("/v1/generations", json={**body, "seed": 5}, headers={"Idempotency-Key": "abc-123"}),
             409, "idempotency_key_reused")
    _problem(client.post("/v1/generations", json=body, headers={"Idempotency-Key": "has space"}), 422,
             "invalid_idempotency_key")
    assert len(client.get("/v1/generations").json()["items"]) == 1


def test_api_keys_are_required_and_scope_jobs(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(host="0.0.0.0")
    assert settings.keys_enabled
    app = create_app(settings)
    store = app.state.service.store
    key_a, key_b = create_key(store, "a"), create_key(store, "b")
    ha, hb = {"Authorization": f"Bearer {key_a}"}, {"Authorization": f"Bearer {key_b}"}
    with TestClient(app) as c:
        r = c.post("/v1/generations", json={"text": "a box"})
        _problem(r, 401, "unauthorized")
        assert r.headers["www-authenticate"].startswith("Bearer")
        _problem(c.get("/v1/generations", headers={"Authorization": "Bearer s3d_0000000000000000_" + "x" * 43}),
                 401, "unauthorized")
        job = c.post("/v1/generations", json={"text": "a box"}, headers=ha).json()
        up = c.post("/v1/uploads", files={"file": ("a.png", png_bytes(), "image/png")}, headers=ha).json()
        base = f"/v1/generations/{job['id']}"
        assert c.get(base, headers=ha).status_code == 200
        for method, path in (("GET", base), ("GET", f"{base}/events"), ("GET", f"{base}/files"),
                             ("GET", f"{base}/files/model.glb"), ("POST", f"{base}/cancel")):
            _problem(c.request(method, path, headers=hb), 404, "job_not_found")
        assert c.get("/v1/generations", headers=hb).json()["items"] == []
        assert [j["id"] for j in c.get("/v1/generations", headers=ha).json()["items"]] == [job["id"]]
        _problem(c.post("/v1/generations", json={"upload_token": up["upload_token"]}, headers=hb), 404,
                 "upload_not_found")
        # Idempotency keys are per API key too
        a1 = c.post("/v1/generations", json={"text": "x"}, headers={**ha, "Idempotency-Key": "same"}).json()
        b1 = c.post("/v1/generations", json={"text": "y"}, headers={**hb, "Idempotency-Key": "same"}).json()
        assert a1["id"] != b1["id"]


def test_keys_default_off_only_on_loopback() -> None:
    assert not Settings(host="127.0.0.1").keys_enabled
    assert not Settings(host="localhost").keys_enabled
    assert Settings(host="0.0.0.0").keys_enabled
    assert not Settings(host="0.0.0.0", api_keys=False).keys_enabled
    assert Settings(host="127.0.0.1", api_keys=True).keys_enabled


def test_cancel_a_queued_job_and_its_event_stream_ends(client: TestClient) -> None:
    job = client.post("/v1/generations", json={"text": "a box"}).json()
    r = client.post(job["links"]["cancel"])
    assert r.status_code == 202 and r.json()["status"] == "canceled"
    assert r.json()["error"]["code"] == "canceled" and r.json()["queue_position"] is None
    assert client.post(job["links"]["cancel"]).json()["status"] == "canceled"
    with client.stream("GET", job["links"]["events"]) as s:
        assert s.headers["content-type"].startswith("text/event-stream")
        text = "".join(s.iter_text())
    events = [b for b in text.split("\n\n") if b.startswith("event: job")]
    assert len(events) == 1
    data = json.loads(events[0].split("data: ", 1)[1])
    assert data["id"] == job["id"] and data["status"] == "canceled"
    _problem(client.post("/v1/generations/job_nope/cancel"), 404, "job_not_found")


def test_retry_after_follows_the_measured_throughput(make_settings: Callable[..., Settings]) -> None:
    with TestClient(create_app(make_settings(queue_limit=4, workers=0))) as c:
        service = c.app.state.service
        service.settings.workers = 2  # as if two workers ran them (the app itself starts none)
        store = service.store
        assert service.job_seconds() == api.service.DEFAULT_JOB_S  # nothing measured yet
        for i, seconds in enumerate((10.0, 12.0, 11.0)):  # three jobs that ran 10-12 s
            job = c.post("/v1/generations", json={"text": f"thing {i}"}).json()
            claim = store.claim("w", 60)
            assert claim is not None and store.finish(job["id"], "w", 1, "succeeded", files=[], summary={})
            with store.engine.begin() as conn:
                conn.execute(text("UPDATE attempts SET started_at = ended_at - :s WHERE job_id = :id"),
                             {"s": seconds, "id": job["id"]})
        for i in range(4):
            assert c.post("/v1/generations", json={"text": f"queued {i}"}).status_code == 202
        service._job_s = None  # measure now (the estimate is cached for a few seconds)
        r = c.post("/v1/generations", json={"text": "one too many"})
        _problem(r, 429, "queue_full")
        assert int(r.headers["retry-after"]) == 22  # median 11 s a job x 4 active / 2 workers
        assert service.retry_after(10_000) == api.service.RETRY_AFTER_BOUNDS[1]  # bounded above
        assert service.retry_after(0) == api.service.RETRY_AFTER_BOUNDS[0]  # and below


def test_full_queue_refuses_with_retry_after(make_settings: Callable[..., Settings]) -> None:
    with TestClient(create_app(make_settings(queue_limit=2))) as c:
        assert c.post("/v1/generations", json={"text": "a"}).status_code == 202
        assert c.post("/v1/scenes", json={"text": "a kitchen with a table"}).status_code == 202
        r = c.post("/v1/generations", json={"text": "c"})
        _problem(r, 429, "queue_full")
        assert int(r.headers["retry-after"]) >= 1
        # a replay of an accepted request is answered even when the queue is full
        first = c.get("/v1/generations").json()["items"][0]
        assert c.post(first["links"]["cancel"]).json()["status"] == "canceled"
        assert c.post("/v1/generations", json={"text": "c"}).status_code == 202
        assert "seed3d_jobs_refused_total{reason=\"queue_full\"} 1" in c.get("/metrics").text


def test_scene_jobs(client: TestClient) -> None:
    r = client.post("/v1/scenes", json={"text": "a bedroom with a bed", "seed": 2, "room_size": [4, 3]})
    assert r.status_code == 202, r.text
    assert r.json()["kind"] == "scene" and r.json()["options"]["room_size"] == [4, 3]
    _problem(client.post("/v1/scenes", json={"text": "a room", "room_size": [0, 3]}), 422, "validation_failed")
    _problem(client.post("/v1/scenes", content=b"text=a room", headers={"content-type": "text/plain"}), 415,
             "unsupported_media_type")


def _finish_with_files(app: Any, tmp_path: Path) -> str:
    """Finish a queued job as a worker would, publishing the exports of a real (procedural) asset."""
    from seed3d.export import export_asset
    from seed3d.physics import CollisionConfig, PhysicsConfig
    from seed3d.synth.primitives import demo_cabinet

    asset = demo_cabinet()
    run_dir = tmp_path / "run"
    asset.save(run_dir / "asset")
    written = export_asset(asset, run_dir / "asset", formats=("glb", "urdf"),
                           physics=PhysicsConfig(collision=CollisionConfig(use_coacd=False)))
    (run_dir / "report.json").write_text(json.dumps({"passed": True}))
    service = app.state.service
    job, _ = service.store.create(owner="local", kind="generation", options={"text": "a cabinet"}, max_attempts=1,
                                  queue_limit=100)
    claim = service.store.claim("test-worker", 60)
    assert claim is not None and claim.job["id"] == job["id"]
    pub = service.settings.jobs_dir / job["id"] / "files-1"
    files = publish_generation(run_dir, {"files": {"asset": "asset", "glb": str(written["glb"].relative_to(run_dir)),
                                                   "urdf": str(written["urdf"].relative_to(run_dir)),
                                                   "report": "report.json"}}, pub)
    assert service.store.finish(job["id"], "test-worker", 1, "succeeded", files=files, files_dir=pub.name,
                                timings={"geometry": 1.5})
    return str(job["id"])


def test_downloads_have_fixed_names_and_content_types(client: TestClient, tmp_path: Path) -> None:
    job_id = _finish_with_files(client.app, tmp_path)
    job = client.get(f"/v1/generations/{job_id}").json()
    assert job["status"] == "succeeded" and job["progress"] == 100 and job["timings"] == {"geometry": 1.5}
    names = {f["name"]: f for f in job["files"]}
    assert set(names) == {"model.glb", "urdf.zip", "report.json", "asset.json"}
    assert client.get(job["links"]["files"]).json()["items"] == job["files"]
    expected = {"model.glb": "model/gltf-binary", "urdf.zip": "application/zip", "report.json": "application/json",
                "asset.json": "application/json"}
    for name, ctype in expected.items():
        r = client.get(names[name]["url"])
        assert r.status_code == 200 and r.headers["content-type"].startswith(ctype)
        assert len(r.content) == names[name]["size"]
    assert client.get(names["model.glb"]["url"]).content[:4] == b"glTF"
    with zipfile.ZipFile(BytesIO(client.get(names["urdf.zip"]["url"]).content)) as zf:
        assert any(n.startswith("urdf/") and n.endswith(".urdf") for n in zf.namelist())
    doc = client.get(names["asset.json"]["url"]).json()
    assert doc["joints"] and {"name", "type", "parent", "child", "axis", "origin", "limits", "axis_gltf"} <= set(
        doc["joints"][0])
    base = f"/v1/generations/{job_id}/files"
    for bad in ("input.png", "model.usdz", "files-1", "%2E%2E", ".hidden"):
        _problem(client.get(f"{base}/{bad}"), 404, "file_not_found")
    for bad in ("..%2F..%2Fseed3d.db", "%2E%2E%2Finput.png", "../../../seed3d.db", "..%5Cinput.png"):
        r = client.get(f"{base}/{bad}")
        assert r.status_code == 404 and r.headers["content-type"].startswith("application/problem+json"), bad
    _problem(client.post(job["links"]["cancel"]), 409, "job_finished")


def test_retention_sweep_deletes_files_and_keeps_the_row(make_settings: Callable[..., Settings],
                                                         tmp_path: Path) -> None:
    app = create_app(make_settings(retention_s=3600.0))
    with TestClient(app) as c:
        job_id = _finish_with_files(app, tmp_path)
        service = app.state.service
        token = c.post("/v1/uploads", files={"file": ("a.png", png_bytes(), "image/png")}).json()["upload_token"]
        orphan = service.settings.jobs_dir / "job_never_committed"
        orphan.mkdir()
        assert service.sweep() == {"jobs": 0, "uploads": 0, "orphans": 0}
        assert service.sweep(now=2**40) == {"jobs": 1, "uploads": 1, "orphans": 1}
        assert not (service.settings.jobs_dir / job_id).exists() and not orphan.exists()
        assert list(service.settings.uploads_dir.iterdir()) == []
        r = c.post("/v1/generations", json={"upload_token": token})
        _problem(r, 404, "upload_not_found")
        job = c.get(f"/v1/generations/{job_id}").json()
        assert job["status"] == "succeeded" and job["expired"] and job["files"] == []
        _problem(c.get(f"/v1/generations/{job_id}/files/model.glb"), 410, "files_expired")


def test_health_metrics_and_request_ids(client: TestClient) -> None:
    health = client.get("/healthz").json()
    assert health["status"] == "ok" and health["queue"] == {"queued": 0, "running": 0} and not health["api_keys"]
    r = client.get("/v1/generations/missing", headers={"X-Request-ID": "client-chosen-id-1"})
    assert _problem(r, 404, "job_not_found")["request_id"] == "client-chosen-id-1"
    r = client.get("/healthz", headers={"X-Request-ID": "bad id with spaces"})
    assert r.headers["x-request-id"] != "bad id with spaces" and len(r.headers["x-request-id"]) == 32
    text = client.get("/metrics").text
    assert '# TYPE seed3d_http_requests_total counter' in text
    assert 'seed3d_http_requests_total{method="GET",route="/v1/generations/{job_id}",status="404"} 1' in text
    assert 'seed3d_jobs{status="queued"} 0' in text
    assert 'seed3d_http_request_duration_seconds_bucket{route="/healthz",le="+Inf"} 2' in text
    _problem(client.get("/no/such/route"), 404, "not_found")
    _problem(client.delete("/v1/generations"), 405, "method_not_allowed")


def test_static_page_is_served_at_root(make_settings: Callable[..., Settings], tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<!doctype html><title>Seed3D</title>")
    monkeypatch.setattr(api.app, "STATIC_DIR", static)
    with TestClient(create_app(make_settings())) as c:
        r = c.get("/")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert "Seed3D" in r.text
        assert c.get("/healthz").status_code == 200
        _problem(c.get("/missing.js"), 404, "not_found")


def test_a_restarted_server_reclaims_the_leases_of_its_dead_workers(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(lease_s=3600.0)
    store = create_app(settings).state.service.store
    ids = [store.create(owner=LOCAL_OWNER, kind="generation", options={"text": f"thing {i}"}, max_attempts=3,
                        queue_limit=100)[0]["id"] for i in range(4)]
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a worker process of the server that died: its pid runs nothing now
    host = socket.gethostname()
    owners = [f"{host}:{gone.pid}:0.0",  # a local worker of this host, dead
              f"ray:{host}:{gone.pid}:1.0:abcd1234",  # a Ray worker whose server (its driver) is dead
              f"{host}:{os.getpid()}:2.0",  # alive: this very process
              f"elsewhere-{host}:{gone.pid}:3.0"]  # another host's worker: its lease runs its course
    for owner in owners:
        assert store.claim(owner, lease_s=3600.0) is not None
    with TestClient(create_app(settings)) as c:  # the restart: no waiting out the hour-long leases
        jobs = {j["id"]: j for j in c.get("/v1/generations").json()["items"]}
        assert [jobs[i]["status"] for i in ids] == ["queued", "queued", "running", "running"]
        assert jobs[ids[0]]["message"] == "retrying: its worker stopped responding"
        service = c.app.state.service
        assert [a["outcome"] for a in service.store.attempts(ids[0])] == ["lost"]
        claim = service.store.claim("next-worker", 60)
        assert claim is not None and claim.job["id"] == ids[0] and claim.attempt == 2
        assert service.reclaim_dead_leases() == 0  # nothing else to reclaim: live and foreign leases stay


def test_lease_holders_and_live_processes() -> None:
    assert lease_holder("myhost:123:0.1") == ("myhost", 123)
    assert lease_holder("ray:myhost:77:0.0:ab12cd34") == ("myhost", 77)
    assert lease_holder("test-worker") is None and lease_holder("h:x:0") is None and lease_holder("h:١٢:0") is None
    assert process_alive(os.getpid()) and process_alive(os.getpid(), since=time.time())
    assert not process_alive(os.getpid(), since=time.time() - 10 * 365 * 86400)  # it started after: a reused pid
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert not process_alive(gone.pid)
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    os.waitid(os.P_PID, zombie.pid, os.WEXITED | os.WNOWAIT)  # exited, not yet reaped
    assert not process_alive(zombie.pid)
    zombie.wait()
