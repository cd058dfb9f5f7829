"""The add-on's plain-Python HTTP client against the real service (no bpy): submit, follow, cancel, download,
problems; and a real generation end to end."""

from __future__ import annotations

import io
import json
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from seed3d_client import (
    Client,
    ClientError,
    GenerationRequest,
    StoppedWaiting,
    describe_generator,
    describe_validity,
    format_params,
    parse_asset,
    parse_params,
    parse_sse,
    run_generation,
)

from tests.web.live import FAST_OPTIONS, LiveService, live_service, publish_result_job, publish_synth_job


@pytest.fixture(scope="module")
def idle_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    """The real service with no workers: jobs stay queued until cancelled."""
    with live_service(tmp_path_factory.mktemp("idle"), workers=0) as svc:
        yield svc


@pytest.fixture(scope="module")
def cabinet_job(idle_service: LiveService) -> str:
    return publish_synth_job(idle_service, "cabinet", seed=0)


def test_parse_sse_reads_events_comments_and_multiline_data() -> None:
    stream = [b": keep-alive\n", b"\n", b"event: job\r\n", b"id: 3\n", b"data: {\"a\":\n", b"data: 1}\n", b"\n",
              b"data: plain\n"]
    assert list(parse_sse(iter(stream))) == [("job", "{\"a\":\n1}"), ("message", "plain")]


def test_requests_are_checked_before_anything_is_sent(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="prompt or choose an image"):
        GenerationRequest().check()
    with pytest.raises(ValueError, match="not found"):
        GenerationRequest(image=str(tmp_path / "missing.png")).check()
    with pytest.raises(ValueError, match="unknown stages"):
        GenerationRequest(text="a chair", stages=["paint"]).check()
    with pytest.raises(ValueError, match="unknown formats"):
        GenerationRequest(text="a chair", formats=["obj"]).check()
    with pytest.raises(ValueError, match="http"):
        Client("localhost:8000")
    body = GenerationRequest(text="  a chair ", seed=4, stages=["texture"], formats=["glb"], steps=3).body("tok")
    assert body == {"text": "a chair", "seed": 4, "stages": ["texture"], "formats": ["glb"], "upload_token": "tok",
                    "target_faces": 50_000, "texture_size": 1024, "steps": 3, "generator": "auto"}
    with pytest.raises(ValueError, match="unknown generator"):
        GenerationRequest(text="a chair", generator="best").check()
    with pytest.raises(ValueError, match="auto or program"):
        GenerationRequest(text="a chair", generator="learned", params={"legs": "3"}).check()
    with pytest.raises(ValueError, match="prompt"):
        GenerationRequest(image=__file__, params={"legs": "3"}).check()
    body = GenerationRequest(text="a chair", generator="program", params={"legs": "3"}).body()
    assert body["generator"] == "program" and body["params"] == {"legs": "3"} and "require_valid" not in body
    assert GenerationRequest(text="a chair", require_valid=True).body()["require_valid"] is True


def test_parameters_as_text_round_trip() -> None:
    params = parse_params(" doors=3; hinge = left, right\nglass_doors=true;; door_swing=1.5,,1.6 ")
    assert params == {"doors": "3", "hinge": ["left", "right"], "glass_doors": "true",
                      "door_swing": ["1.5", None, "1.6"]}
    assert parse_params("") == {}
    with pytest.raises(ValueError, match="NAME=VALUE"):
        parse_params("doors")
    with pytest.raises(ValueError, match="NAME=VALUE"):
        parse_params("=3")
    built = {"doors": 3, "glass_doors": False, "body_finish": "wood:oak", "door_swing": [1.79, None, 1.96]}
    assert format_params(built) == "doors=3; glass_doors=false; body_finish=wood:oak; door_swing=1.79,,1.96"
    assert parse_params(format_params(built)) == {"doors": "3", "glass_doors": "false", "body_finish": "wood:oak",
                                                  "door_swing": ["1.79", None, "1.96"]}


def test_describe_generator_says_which_path_and_why() -> None:
    assert describe_generator({"status": "queued", "result": None}) == []
    learned = {"result": {"generator": {"path": "learned", "asked": "auto", "why": "no confident program"}}}
    assert describe_generator(learned) == ["made by: learned", "no confident program"]
    program = {"result": {"generator": {"path": "program", "asked": "auto", "why": "the text names a cabinet",
                                        "program": {"category": "cabinet", "confidence": 1.0,
                                                    "params": {"width": 0.9, "doors": 2}, "given": ["doors"],
                                                    "unplaced": ["'banana': not understood"]}}}}
    assert describe_generator(program) == ["made by: program", "the text names a cabinet",
                                           "program: cabinet (confidence 1.00)", "set: doors=2",
                                           "not placed: 'banana': not understood"]


def test_describe_validity_says_whether_the_asset_passed(idle_service: LiveService) -> None:
    assert describe_validity({"status": "queued", "result": None}) == []
    assert describe_validity({"result": {"generator": {"path": "program"}}}) == []  # made before verdicts existed
    summary = {"valid": False, "sound": True, "functional": False, "failed_checks": ["functional.travel"],
               "failures": [{"name": "functional.travel", "message": "drawer_slide (drawer) moves 1.0 mm"}]}
    refused = publish_result_job(idle_service, summary, status="failed",
                                 error=("asset_invalid", "the asset failed validation (not functional)"))
    job = Client(idle_service.url).job(refused)  # as the service serves it
    assert job["status"] == "failed" and job["error"]["failed_checks"] == ["functional.travel"]
    assert describe_validity(job) == ["NOT valid · physically sound: yes · functional: NO",
                                      "failed functional.travel: drawer_slide (drawer) moves 1.0 mm"]
    passed = {"result": {"valid": True, "sound": True, "functional": None, "failed_checks": [], "failures": []}}
    assert describe_validity(passed) == ["valid · physically sound: yes · functional: not checked"]


def test_finished_job_downloads_its_files(idle_service: LiveService, cabinet_job: str, tmp_path: Path) -> None:
    client = Client(idle_service.url)
    assert client.health()["status"] == "ok"
    job = client.job(cabinet_job)
    assert job["status"] == "succeeded"
    assert cabinet_job in [j["id"] for j in client.list_jobs(limit=5)["items"]]
    events = list(client.events(job))
    assert [e["status"] for e in events] == ["succeeded"]  # a finished job: one event, then the stream ends
    assert client.wait(job) == job
    for entry in job["files"]:
        path = client.download(job, entry["name"], tmp_path)
        assert path == tmp_path / entry["name"] and path.stat().st_size == entry["size"]
        with urllib.request.urlopen(idle_service.url + entry["url"]) as resp:
            assert path.read_bytes() == resp.read()
    assert (tmp_path / "model.glb").read_bytes()[:4] == b"glTF"
    info = parse_asset(json.loads((tmp_path / "asset.json").read_text()))
    assert info.root == "body" and len(info.movable_joints) == 4
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp file left behind
    with pytest.raises(ClientError, match=r"no file 'preview\.png'"):
        client.download(job, "preview.png", tmp_path)


def test_problems_become_client_errors(idle_service: LiveService) -> None:
    client = Client(idle_service.url)
    with pytest.raises(ClientError) as err:
        client.job("job_does_not_exist")
    assert err.value.status == 404 and err.value.code and err.value.request_id
    with pytest.raises(ClientError) as err:
        client.create_generation(GenerationRequest(text="a chair", resolution=100_000))
    assert err.value.status == 422
    with pytest.raises(ClientError) as err:  # past the client's own check, the service refuses it, naming params
        client.create_generation(GenerationRequest(text="a chair", extra={"generator": "learned",
                                                                          "params": {"legs": "3"}}))
    assert err.value.status == 422 and "params" in str(err.value)
    with pytest.raises(ClientError, match="cannot reach"):
        Client("http://127.0.0.1:9").health()


def test_generator_and_params_reach_the_service(idle_service: LiveService, cabinet_job: str) -> None:
    client = Client(idle_service.url)
    job = client.create_generation(GenerationRequest(text="a cabinet", generator="program",
                                                     params=parse_params("doors=3; hinge=left,right,left")))
    assert job["options"]["generator"] == "program"
    assert job["options"]["params"] == {"doors": "3", "hinge": ["left", "right", "left"]}
    client.cancel(job["id"])
    done = client.job(cabinet_job)  # a finished job's result says what made it
    assert describe_generator(done)[:3] == ["made by: program", "seed3d synth cabinet --seed 0",
                                            "program: cabinet (confidence 1.00)"]
    assert done["result"]["generator"]["program"]["params"]["doors"] == 2


def test_upload_submit_follow_live_and_cancel(idle_service: LiveService, tmp_path: Path) -> None:
    image = tmp_path / "chair.png"
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (180, 120, 60)).save(buf, format="PNG")
    image.write_bytes(buf.getvalue())
    client = Client(idle_service.url)
    job = client.create_generation(GenerationRequest(text="a chair", image=str(image), seed=7, formats=["glb"]))
    assert job["status"] == "queued" and job["options"]["seed"] == 7 and job["options"]["generator"] == "auto"

    seen: list[str] = []
    threading.Timer(1.5, lambda: client.cancel(job["id"])).start()  # someone else cancels while we wait
    final = client.wait(job, on_update=lambda j: seen.append(j["status"]), read_timeout=30)
    assert final["status"] == "canceled"
    assert seen[0] == "queued" and seen[-1] == "canceled"

    stop = threading.Event()
    other = client.create_generation(GenerationRequest(text="a table", formats=["glb"]))
    threading.Timer(0.5, stop.set).start()
    with pytest.raises(StoppedWaiting):
        client.wait(other, stop=stop, read_timeout=2, poll_interval=0.2)
    assert client.cancel(other["id"])["status"] in ("canceled", "queued")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    """The real service with one worker."""
    with live_service(tmp_path_factory.mktemp("service"), workers=1) as svc:
        yield svc


def test_run_generation_end_to_end(service: LiveService, tmp_path: Path) -> None:
    client = Client(service.url)
    request = GenerationRequest(text="a small wooden stool", seed=1, formats=["glb", "urdf"],
                                target_faces=FAST_OPTIONS["target_faces"], texture_size=FAST_OPTIONS["texture_size"],
                                steps=FAST_OPTIONS["steps"], resolution=FAST_OPTIONS["resolution"],
                                generator="learned")
    updates: list[dict] = []
    result = run_generation(client, request, tmp_path, on_update=updates.append)
    assert result.succeeded, f"{result.job['error']}\n{service.tail()}"
    statuses = [u["status"] for u in updates]
    assert statuses[0] == "queued" and "running" in statuses and statuses[-1] == "succeeded"
    progress = [u["progress"] for u in updates]
    assert progress == sorted(progress) and progress[-1] == 100
    assert set(result.files) == {"model.glb", "asset.json"}
    assert result.files["model.glb"].read_bytes()[:4] == b"glTF"
    info = parse_asset(json.loads(result.files["asset.json"].read_text()))
    assert len(info.parts) >= 1


def test_run_generation_of_a_program_with_a_changed_parameter(service: LiveService, tmp_path: Path) -> None:
    client = Client(service.url)
    request = GenerationRequest(text="a wooden cabinet with two doors", formats=["glb"], generator="program",
                                params=parse_params("doors=3"))
    result = run_generation(client, request, tmp_path)
    assert result.succeeded, f"{result.job['error']}\n{service.tail()}"
    made = result.job["result"]["generator"]
    assert made["path"] == "program" and made["asked"] == "program"
    assert made["program"]["category"] == "cabinet" and made["program"]["params"]["doors"] == 3
    lines = describe_generator(result.job)
    assert lines[0] == "made by: program" and "doors=3" in lines[3]
    info = parse_asset(json.loads(result.files["asset.json"].read_text()))
    assert len([j for j in info.movable_joints if "door" in j.name]) == 3
