"""The web page at ``/`` of the real service, in headless Chromium: loads cleanly, follows a real generation
live to the 3D view, moves an articulated result's parts with its joint sliders, links every file; builds a scene
from a sentence and says what it left out."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from tests.web.live import (
    FAST_OPTIONS,
    ROOT,
    LiveService,
    live_service,
    make_key,
    publish_result_job,
    publish_scene_job,
    publish_synth_job,
)

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VENDOR = ROOT / "api" / "static" / "vendor" / "three" / "build" / "three.module.js"
BACKGROUND = np.array([0xEE, 0xF0, 0xF3])

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (scripts/bootstrap.sh --dev "
                                                              "installs Debian's chromium)")


@pytest.fixture(scope="module", autouse=True)
def _vendored() -> None:
    assert VENDOR.is_file(), "three.js is not vendored: run scripts/build_web.sh"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    """The real service with one worker (real generations)."""
    with live_service(tmp_path_factory.mktemp("service"), workers=1) as svc:
        yield svc


@pytest.fixture(scope="module")
def idle_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    """The real service with no workers, holding one published articulated result (a procedural cabinet)."""
    with live_service(tmp_path_factory.mktemp("idle_service"), workers=0) as svc:
        yield svc


@pytest.fixture(scope="module")
def keyed_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    """The real service requiring API keys, with no workers."""
    with live_service(tmp_path_factory.mktemp("keyed_service"), workers=0, api_keys=True) as svc:
        yield svc


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


class Page:
    """A browser page that records console errors, uncaught exceptions and failed requests."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
        # waits end on their event; the limit is only there to stop a hung test, so a busy machine (software WebGL
        # at a load of 15+ draws slowly) never changes a verdict
        self.context.set_default_timeout(180_000)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.infos: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"uncaught: {exc}"))
        self.page.on("requestfailed", lambda req: self.errors.append(f"request failed: {req.url} {req.failure}")
                     if "/events" not in req.url else None)  # an event stream closed by the page is not an error
        self.page.on("request", lambda req: self.requests.append(req.url))

    def _console(self, msg: Any) -> None:
        if msg.type == "error":
            self.errors.append(f"console: {msg.text} [{msg.location.get('url', '')}]")
        else:
            self.infos.append(msg.text)

    def open(self, url: str) -> Any:
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready=true]")
        return self.page


@pytest.fixture
def page(browser: Any) -> Iterator[Page]:
    p = Page(browser)
    yield p
    p.context.close()


def viewer_coverage(page: Any) -> float:
    """Fraction of the 3D view's pixels that differ clearly from its background."""
    img = np.asarray(Image.open(io.BytesIO(page.locator("#viewer canvas").screenshot())).convert("RGB"), dtype=int)
    return float((np.abs(img - BACKGROUND).sum(axis=2) > 40).mean())


def viewer_pixels(page: Any) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(page.locator("#viewer canvas").screenshot())).convert("RGB"), dtype=int)


def check_downloads(page: Any, job: dict[str, Any], base: str) -> None:
    """One link per file of the job, pointing at the file's URL, naming the file, serving its bytes and type."""
    links = page.eval_on_selector_all("#download-list a", "els => els.map(e => [e.dataset.name, e.href, e.download])")
    assert sorted(n for n, _, _ in links) == sorted(f["name"] for f in job["files"])
    by_name = {f["name"]: f for f in job["files"]}
    for name, href, download in links:
        assert href == base + by_name[name]["url"]
        assert download == name
        resp = page.request.get(href)
        assert resp.status == 200, f"{href}: {resp.status}"
        assert resp.headers["content-type"].split(";")[0] == by_name[name]["content_type"]
        assert len(resp.body()) == by_name[name]["size"]


def test_page_loads_without_console_errors(service: LiveService, page: Page) -> None:
    p = page.open(service.url + "/")
    p.wait_for_selector("#health[data-ok=true]")
    p.wait_for_selector("#viewer canvas")
    assert p.locator("#viewer").get_attribute("data-state") == "empty"
    assert p.title() == "Seed3D"
    # three.js comes from the service itself, never from a CDN
    scripts = [u for u in page.requests if u.endswith(".js")]
    assert any(u.endswith("/vendor/three/build/three.module.js") for u in scripts)
    assert all(u.startswith(service.url) for u in page.requests)
    p.wait_for_timeout(300)
    assert page.errors == []


def test_prompt_shows_live_progress_then_the_model(service: LiveService, page: Page) -> None:
    p = page.open(service.url + "/")
    p.evaluate("""() => {
        window.__seen = [];
        const note = () => window.__seen.push([document.getElementById('job-status').textContent,
                                               document.getElementById('job-progress').value]);
        new MutationObserver(note).observe(document.getElementById('job'), {subtree: true, childList: true,
                                                                              characterData: true, attributes: true});
    }""")
    p.fill("#prompt", "a small wooden stool")
    p.click("#options summary")
    p.fill("#seed", "3")
    p.fill("#steps", str(FAST_OPTIONS["steps"]))
    p.fill("#resolution", str(FAST_OPTIONS["resolution"]))
    p.fill("#target-faces", str(FAST_OPTIONS["target_faces"]))
    p.select_option("#generator", "learned")  # the geometry model (a stool would otherwise be built as a program)
    p.click("#submit")
    p.wait_for_selector("#job:not([hidden])")
    p.wait_for_selector("#job[data-status=succeeded], #job[data-status=failed], #job[data-status=canceled]",
                        timeout=900_000)
    job_id = p.text_content("#job-id")
    job = service.get(f"/v1/generations/{job_id}")
    assert job["status"] == "succeeded", f"{job['error']}\n{service.tail()}"
    assert job["options"]["seed"] == 3 and job["options"]["steps"] == FAST_OPTIONS["steps"]
    assert job["options"]["generator"] == "learned" and job["result"]["generator"]["path"] == "learned"

    seen = p.evaluate("window.__seen")
    statuses = [s for s, _ in seen if s]
    assert statuses[0] in ("queued", "running") and statuses[-1] == "succeeded"
    assert "running" in statuses
    assert p.eval_on_selector("#job-progress", "e => e.value") == 100
    assert any(u.endswith(f"/v1/generations/{job_id}/events") for u in page.requests), "no event stream opened"
    assert not any("polling instead" in m for m in page.infos), page.infos

    p.wait_for_selector("#viewer[data-state=ready]")
    assert int(p.get_attribute("#viewer", "data-meshes")) >= 1
    p.wait_for_selector("#viewer[data-render=done]")  # the last change drawn: an event, not a delay
    assert viewer_coverage(p) > 0.02, "the model is not visible in the 3D view"
    assert p.is_hidden("#viewer-note")
    check_downloads(p, job, service.url)
    assert {f["name"] for f in job["files"]} >= {"model.glb", "asset.json"}
    assert page.errors == []


def test_joint_sliders_move_the_articulated_parts(idle_service: LiveService, page: Page) -> None:
    job_id = publish_synth_job(idle_service, "cabinet", seed=0)
    job = idle_service.get(f"/v1/generations/{job_id}")
    asset = idle_service.get(f"/v1/generations/{job_id}/files/asset.json")
    movable = {j["name"]: j for j in asset["joints"] if j["type"] in ("revolute", "prismatic", "continuous")}
    assert len(movable) == 4

    p = page.open(f"{idle_service.url}/#job={job_id}")
    p.wait_for_selector("#viewer[data-state=ready]")
    p.wait_for_selector("#joints:not([hidden])")
    sliders = p.eval_on_selector_all("#joint-list input[type=range]",
                                     "els => els.map(e => [e.dataset.joint, +e.min, +e.max, +e.value])")
    assert {name for name, *_ in sliders} == set(movable)
    for name, lo, hi, value in sliders:
        assert (lo, hi) == pytest.approx((movable[name]["lower"], movable[name]["upper"]))
        assert value == pytest.approx(0.0)
    check_downloads(p, job, idle_service.url)

    p.wait_for_selector("#viewer[data-render=done]")  # the last change drawn: an event, not a delay
    closed = viewer_pixels(p)
    pose = """name => { const v = window.seed3d.viewer, n = v.model.getObjectByName(name);
                        return [v.partPosition(name), n.getWorldQuaternion(n.quaternion.clone()).toArray()]; }"""
    for name, joint in movable.items():
        pos0, quat0 = p.evaluate(pose, joint["child"])
        slider = p.locator(f"#joint-list input[data-joint='{name}']")
        slider.focus()
        slider.press("End")  # a person's keyboard: the slider jumps to its upper limit
        q = joint["upper"]
        pos1, quat1 = p.evaluate(pose, joint["child"])
        axis = np.asarray(joint["axis_gltf"], dtype=float)
        axis /= np.linalg.norm(axis)
        if joint["type"] == "prismatic":
            np.testing.assert_allclose(np.subtract(pos1, pos0), axis * q, atol=1e-6)
            np.testing.assert_allclose(quat1, quat0, atol=1e-9)
            assert p.text_content(f"#joint-list input[data-joint='{name}'] ~ output") == f"{q * 100:.1f} cm"
        else:
            np.testing.assert_allclose(pos1, pos0, atol=1e-6)  # a hinge turns about its pivot
            half = q / 2
            expected = [*(axis * math.sin(half)), math.cos(half)]  # parents of the doors are at rest
            np.testing.assert_allclose(quat1, expected, atol=1e-6)
            assert p.text_content(f"#joint-list input[data-joint='{name}'] ~ output") == f"{math.degrees(q):.0f}°"
    p.wait_for_selector("#viewer[data-render=done]")  # the last change drawn: an event, not a delay
    opened = viewer_pixels(p)
    changed = float((np.abs(opened - closed).sum(axis=2) > 40).mean())
    assert changed > 0.02, f"opening every joint changed only {changed:.1%} of the view"

    p.click("#joints-reset")
    for joint in movable.values():
        assert p.evaluate(pose, joint["child"])[1] == pytest.approx([0, 0, 0, 1], abs=1e-9)
    assert page.errors == []


def test_a_refused_request_shows_the_service_problem(service: LiveService, page: Page) -> None:
    p = page.open(service.url + "/")
    p.click("#submit")  # nothing to make
    assert "prompt or choose an image" in p.text_content("#form-error")
    p.fill("#prompt", "x" * 1999 + "y")
    p.click("#options summary")
    p.fill("#resolution", "4096")  # above the schema's limit: the service answers 422 problem+json
    with p.expect_response(lambda r: r.url.endswith("/v1/generations") and r.request.method == "POST") as answer:
        p.click("#submit")
    assert answer.value.status == 422
    problem = json.loads(answer.value.body())
    p.wait_for_selector("#form-error:not([hidden])")
    assert problem["title"] in p.text_content("#form-error")
    # the browser logs the failed request itself; the page adds nothing uncaught
    assert not [e for e in page.errors if not e.startswith("console: Failed to load resource")]


def test_without_an_event_stream_the_page_polls(idle_service: LiveService, page: Page) -> None:
    p = page.open(idle_service.url + "/")
    p.route("**/events", lambda route: route.abort())  # a proxy that drops event streams
    p.fill("#prompt", "a lamp")
    p.click("#submit")
    p.wait_for_selector("#job[data-status=queued]")
    assert p.text_content("#job-queue").startswith("position in queue:")
    job_id = p.text_content("#job-id")
    with p.expect_response(lambda r: r.url.endswith(f"/v1/generations/{job_id}")
                           and r.request.method == "GET") as first:
        pass  # it polls
    assert first.value.json()["status"] == "queued"  # answered before the cancel below: a later poll must see it
    idle_service.post(f"/v1/generations/{job_id}/cancel", {})  # cancelled elsewhere: only polling can tell
    p.wait_for_selector("#job[data-status=canceled]")
    assert any("polling instead" in m for m in page.infos)
    assert p.is_hidden("#cancel")
    polls = [u for u in page.requests if u.endswith(f"/v1/generations/{job_id}")]
    assert len(polls) >= 2
    assert not [e for e in page.errors if "/events" not in e]


def test_with_api_keys_the_page_sends_the_key(keyed_service: LiveService, page: Page) -> None:
    key = make_key(keyed_service)
    job_id = publish_synth_job(keyed_service, "cabinet", seed=0, key=key)
    p = page.open(keyed_service.url + "/")
    p.wait_for_selector("#health[data-ok=true]")
    assert p.get_attribute("#access", "open") is not None  # the service asks for a key: the field is shown
    assert p.is_visible("#api-key")
    assert p.is_hidden("#recent")  # nothing listed without a key
    p.fill("#api-key", key)
    p.dispatch_event("#api-key", "change")
    p.wait_for_selector("#recent:not([hidden])")
    assert p.evaluate("localStorage.getItem('seed3d.apiKey')") == key
    p.click(f"#recent-list a[title='{job_id}']")
    p.wait_for_selector("#viewer[data-state=ready]")
    p.wait_for_selector("#joints:not([hidden])")
    job = keyed_service.get_with_key(f"/v1/generations/{job_id}", key)
    with p.expect_download() as download:
        p.click("#download-list a[data-name='model.glb']")
    saved = Path(download.value.path())
    assert download.value.suggested_filename == "model.glb"
    assert saved.stat().st_size == next(f["size"] for f in job["files"] if f["name"] == "model.glb")
    assert saved.read_bytes()[:4] == b"glTF"
    # the key is what opened it: a page without one is refused
    other = Page(p.context.browser)
    try:
        q = other.open(f"{keyed_service.url}/#job={job_id}")
        q.wait_for_selector("#form-error:not([hidden])")
        assert "401" in q.text_content("#form-error") or "API key" in q.text_content("#form-error")
    finally:
        other.context.close()
    assert page.errors == []


def test_an_image_is_uploaded_then_submitted(idle_service: LiveService, page: Page, tmp_path: Path) -> None:
    image = tmp_path / "mug.png"
    Image.new("RGB", (80, 60), (30, 90, 160)).save(image)
    p = page.open(idle_service.url + "/")
    p.set_input_files("#image", str(image))
    p.wait_for_selector("#image-preview:not([hidden])")
    with p.expect_response(lambda r: r.url.endswith("/v1/uploads")) as upload, \
            p.expect_request(lambda r: r.url.endswith("/v1/generations") and r.method == "POST") as submit:
        p.click("#submit")  # an image alone is enough
    assert upload.value.status == 201
    body = json.loads(submit.value.post_data)
    assert body["upload_token"] == upload.value.json()["upload_token"] and "text" not in body
    assert submit.value.headers.get("idempotency-key")
    p.wait_for_selector("#job[data-status=queued]")
    job_id = p.text_content("#job-id")
    p.click("#cancel")
    p.wait_for_selector("#job[data-status=canceled]")
    assert idle_service.get(f"/v1/generations/{job_id}")["status"] == "canceled"
    assert page.errors == []


def test_the_page_sends_the_generator_and_program_parameters(idle_service: LiveService, page: Page) -> None:
    p = page.open(idle_service.url + "/")
    assert p.input_value("#generator") == "auto"  # the default
    p.fill("#prompt", "a cabinet")
    p.click("#options summary")
    p.fill("#params", "doors")  # not NAME=VALUE: refused on the page, nothing sent
    p.click("#submit")
    assert "NAME=VALUE" in p.text_content("#form-error")
    assert not [u for u in page.requests if u.endswith("/v1/generations")]
    p.select_option("#generator", "program")
    p.fill("#params", "doors=3\n\nhinge = left, right\nbody_finish=wood:oak")
    with p.expect_request(lambda r: r.url.endswith("/v1/generations") and r.method == "POST") as submit:
        p.click("#submit")
    body = json.loads(submit.value.post_data)
    assert body["generator"] == "program"
    assert body["params"] == {"doors": "3", "hinge": ["left", "right"], "body_finish": "wood:oak"}
    p.wait_for_selector("#job[data-status=queued]")
    job = idle_service.get(f"/v1/generations/{p.text_content('#job-id')}")
    assert job["options"]["generator"] == "program" and job["options"]["params"] == body["params"]
    p.click("#cancel")
    p.wait_for_selector("#job[data-status=canceled]")
    # the service's refusal names the field: program parameters have no meaning on the learned path
    p.select_option("#generator", "learned")
    with p.expect_response(lambda r: r.url.endswith("/v1/generations") and r.request.method == "POST") as answer:
        p.click("#submit")
    assert answer.value.status == 422
    p.wait_for_selector("#form-error:not([hidden])")
    assert "params" in p.text_content("#form-error")
    assert not [e for e in page.errors if not e.startswith("console: Failed to load resource")]


def test_a_program_result_shows_its_parameters_and_reruns_with_a_change(service: LiveService, page: Page) -> None:
    p = page.open(service.url + "/")
    p.fill("#prompt", "a wooden cabinet with two doors")
    p.click("#options summary")
    p.fill("#target-faces", str(FAST_OPTIONS["target_faces"]))
    p.click("#submit")  # generator auto: the text names a cabinet, so its program is built
    p.wait_for_selector("#job[data-status=succeeded], #job[data-status=failed]", timeout=600_000)
    first = service.get(f"/v1/generations/{p.text_content('#job-id')}")
    assert first["status"] == "succeeded", f"{first['error']}\n{service.tail()}"
    p.wait_for_selector("#made-by:not([hidden])")
    assert p.text_content("#made-path") == "program"
    assert "cabinet" in p.text_content("#made-why") and "cabinet" in p.text_content("#program-summary")
    program = first["result"]["generator"]["program"]
    rows = p.eval_on_selector_all("#program-params input", "els => els.map(e => [e.dataset.param, e.value])")
    assert [name for name, _ in rows] == list(program["params"])  # every parameter, in the program's order
    assert dict(rows)["doors"] == "2"
    assert "given" in (p.get_attribute("#program-params tr:has(input[data-param=doors]) td", "class") or "")
    p.wait_for_selector("#viewer[data-state=ready]")

    p.fill("#program-params input[data-param=doors]", "3")
    with p.expect_request(lambda r: r.url.endswith("/v1/generations") and r.method == "POST") as submit:
        p.click("#rerun")
    body = json.loads(submit.value.post_data)
    assert body["text"] == "a wooden cabinet with two doors" and body["seed"] == first["options"]["seed"]
    assert body["generator"] == "program" and body["params"] == {"doors": "3"}
    assert p.input_value("#params") == "doors=3" and p.input_value("#generator") == "program"
    p.wait_for_function(f"document.getElementById('job-id').textContent !== '{first['id']}'")
    p.wait_for_selector("#job[data-status=succeeded], #job[data-status=failed]", timeout=600_000)
    second = service.get(f"/v1/generations/{p.text_content('#job-id')}")
    assert second["status"] == "succeeded", f"{second['error']}\n{service.tail()}"
    assert second["result"]["generator"]["program"]["params"]["doors"] == 3
    p.wait_for_selector(f"#made-by[data-job='{second['id']}']")
    assert p.input_value("#program-params input[data-param=doors]") == "3"
    assert page.errors == []


#: A generation's result whose drawer cannot open: physically sound, not functional (as a worker stores it).
NOT_FUNCTIONAL = {"name": "cabinet", "valid": False, "sound": True, "functional": False,
                  "failed_checks": ["functional.travel"],
                  "failures": [{"name": "functional.travel", "message": "drawer_slide (drawer) moves 1.0 mm, needs "
                                                                        "120.0 mm"}],
                  "faces": 24, "parts": 2, "joints": 1, "movable_joints": 1}


def test_the_page_shows_whether_the_asset_passed(idle_service: LiveService, page: Page) -> None:
    marked = publish_result_job(idle_service, NOT_FUNCTIONAL)
    refused = publish_result_job(idle_service, NOT_FUNCTIONAL, status="failed", error=(
        "asset_invalid", "the asset failed validation (not functional): functional.travel: drawer_slide (drawer) "
                         "moves 1.0 mm, needs 120.0 mm (require_valid)"))
    p = page.open(f"{idle_service.url}/#job={marked}")
    p.wait_for_selector("#job[data-status=succeeded]")
    p.wait_for_selector("#verdict:not([hidden])")
    assert p.text_content("#verdict-valid") == "not valid"
    assert p.get_attribute("#verdict-valid", "data-valid") == "false"
    assert p.text_content("#verdict-sound") == "yes" and p.text_content("#verdict-functional") == "no"
    failed = p.eval_on_selector_all("#verdict-failed li", "els => els.map(e => [e.dataset.check, e.textContent])")
    assert failed == [["functional.travel", "functional.travel — drawer_slide (drawer) moves 1.0 mm, needs 120.0 mm"]]
    p.wait_for_selector(f"#recent-list li:has(a[title='{marked}']) [data-valid=false]")  # the list marks it too

    p.evaluate(f"location.hash = '#job={refused}'")
    p.wait_for_function(f"document.getElementById('job-id').textContent === '{refused}'")
    p.wait_for_selector("#job[data-status=failed]")
    assert "asset_invalid" in p.text_content("#job-error") and "functional.travel" in p.text_content("#job-error")
    p.wait_for_selector("#verdict:not([hidden])")
    assert p.text_content("#verdict-valid") == "not valid"

    p.fill("#prompt", "a cabinet with a drawer")
    p.click("#options summary")
    p.check("#require-valid")
    with p.expect_request(lambda r: r.url.endswith("/v1/generations") and r.method == "POST") as submit:
        p.click("#submit")
    assert json.loads(submit.value.post_data)["require_valid"] is True
    p.wait_for_selector("#job[data-status=queued]")
    p.wait_for_selector("#verdict", state="hidden")  # a new job: no verdict until it made an asset
    job = idle_service.get(f"/v1/generations/{p.text_content('#job-id')}")
    assert job["options"]["require_valid"] is True
    idle_service.post(f"/v1/generations/{job['id']}/cancel", {})
    assert page.errors == []


def test_the_scene_form_sends_the_sentence_room_size_and_seed(idle_service: LiveService, page: Page) -> None:
    p = page.open(idle_service.url + "/")
    assert p.is_visible("#generate-form") and p.is_hidden("#scene-form")  # objects first
    p.click("#mode-scene")
    assert p.is_visible("#scene-form") and p.is_hidden("#generate-form")
    assert p.get_attribute("#mode-scene", "aria-selected") == "true"
    p.click("#scene-submit")  # no sentence: refused on the page, nothing sent
    assert "Describe the room" in p.text_content("#scene-error")
    p.fill("#scene-text", "a bedroom with a bed and a wardrobe")
    p.fill("#room-width", "4.5")
    p.click("#scene-submit")  # a width without a depth: refused on the page
    assert "width and the depth" in p.text_content("#scene-error")
    assert not [u for u in page.requests if u.endswith("/v1/scenes")]
    p.fill("#room-depth", "3.5")
    p.fill("#room-height", "2.6")
    p.fill("#scene-seed", "7")
    with p.expect_request(lambda r: r.url.endswith("/v1/scenes") and r.method == "POST") as submit, \
            p.expect_request(lambda r: r.url.endswith("/events")) as events:  # followed live, as a generation
        p.click("#scene-submit")
    body = json.loads(submit.value.post_data)
    assert body == {"text": "a bedroom with a bed and a wardrobe", "seed": 7, "room_size": [4.5, 3.5, 2.6]}
    assert submit.value.headers.get("idempotency-key")
    assert submit.value.headers["content-type"] == "application/json"
    assert p.is_hidden("#scene-error")
    p.wait_for_selector("#job[data-status=queued]")
    job_id = p.text_content("#job-id")
    job = idle_service.get(f"/v1/generations/{job_id}")
    assert job["kind"] == "scene" and job["options"] == {"text": body["text"], "seed": 7,
                                                         "room_size": [4.5, 3.5, 2.6]}
    assert p.get_attribute("#job", "data-kind") == "scene"
    assert p.text_content("#job-queue").startswith("position in queue:")
    assert events.value.url.endswith(f"/v1/generations/{job_id}/events")
    p.click("#scene-cancel")
    p.wait_for_selector("#job[data-status=canceled]")
    assert p.is_hidden("#scene-cancel") and p.is_hidden("#scene-result")
    assert idle_service.get(f"/v1/generations/{job_id}")["status"] == "canceled"

    # without a room size the body has none (the service picks one); a new Idempotency-Key per submission
    for field in ("#room-width", "#room-depth", "#room-height"):
        p.fill(field, "")
    with p.expect_request(lambda r: r.url.endswith("/v1/scenes") and r.method == "POST") as again:
        p.click("#scene-submit")
    assert json.loads(again.value.post_data) == {"text": "a bedroom with a bed and a wardrobe", "seed": 7}
    assert again.value.headers["idempotency-key"] != submit.value.headers["idempotency-key"]
    p.wait_for_function(f"document.getElementById('job-id').textContent !== '{job_id}'")
    p.wait_for_selector("#job[data-status=queued]")
    p.click("#scene-cancel")
    p.wait_for_selector("#job[data-status=canceled]")
    assert not [e for e in page.errors if "/events" not in e]


def test_a_refused_scene_shows_the_service_problem(idle_service: LiveService, page: Page) -> None:
    p = page.open(idle_service.url + "/")
    p.click("#mode-scene")
    p.fill("#scene-text", "a kitchen with a table")
    p.fill("#room-width", "80")  # above the schema's 50 m: the service answers 422 problem+json
    p.fill("#room-depth", "4")
    with p.expect_response(lambda r: r.url.endswith("/v1/scenes") and r.request.method == "POST") as answer:
        p.click("#scene-submit")
    assert answer.value.status == 422
    problem = json.loads(answer.value.body())
    p.wait_for_selector("#scene-error:not([hidden])")
    assert problem["title"] in p.text_content("#scene-error")
    assert "room_size" in p.text_content("#scene-error")
    assert p.is_hidden("#form-error")
    assert p.text_content("#scene-submit") == "Build scene" and p.is_enabled("#scene-submit")
    assert not [e for e in page.errors if not e.startswith("console: Failed to load resource")]


#: A scene's result as api.worker stores it: a noun left out, one built as a stand-in, an object the layout could not
#: place, a relation it could not meet.
SCENE_WITH_OMISSIONS: dict[str, Any] = {
    "objects": 3, "unmet": ["next_to(chair, table) does not hold"], "collision_free": True,
    "omissions": [
        {"noun": "piano", "status": "left out", "stand_in": None, "objects": [],
         "reason": "not an object Seed3D can build: the nearest known noun is 'keyboard' (similarity 0.59 < 0.64)"},
        {"noun": "sink cabinet", "status": "substituted", "stand_in": "cabinet", "objects": ["cabinet"],
         "reason": "Seed3D builds no sink cabinet; a plain cabinet stands in (from the word 'cabinet')"},
        {"noun": "wardrobe", "status": "left out", "stand_in": None, "objects": ["wardrobe_2"],
         "reason": "the layout search found no place for it"},
    ]}


def test_a_scene_shows_what_it_left_out_and_links_its_files(idle_service: LiveService, page: Page) -> None:
    job_id = publish_scene_job(idle_service, SCENE_WITH_OMISSIONS,
                               text="a bedroom with a piano, a sink cabinet and two wardrobes")
    job = idle_service.get(f"/v1/generations/{job_id}")
    assert {f["name"] for f in job["files"]} == {"urdf.zip", "mjcf.zip", "preview.png", "report.json"}
    p = page.open(f"{idle_service.url}/#job={job_id}")
    p.wait_for_selector("#job[data-status=succeeded]")
    p.wait_for_selector("#scene-result:not([hidden])")
    assert p.is_visible("#scene-form") and p.is_hidden("#generate-form")  # a scene job opens the scene panel
    items = p.eval_on_selector_all("#omission-list li", "els => els.map(e => [e.dataset.noun, e.dataset.status, "
                                                        "e.querySelector('.reason').textContent, e.textContent])")
    assert [(noun, status, reason) for noun, status, reason, _ in items] == [
        (o["noun"], o["status"], o["reason"]) for o in SCENE_WITH_OMISSIONS["omissions"]]
    lines = [text for *_, text in items]
    assert lines[0] == f"piano — left out: {SCENE_WITH_OMISSIONS['omissions'][0]['reason']}"
    assert lines[1].startswith("sink cabinet — built as a cabinet: Seed3D builds no sink cabinet")
    assert lines[2].startswith("wardrobe — left out (wardrobe_2): the layout search")
    assert p.is_visible("#omission-list") and p.is_hidden("#omissions-none")
    assert p.text_content("#scene-objects") == "3"
    assert p.text_content("#scene-collision") == "collision-free"
    assert p.get_attribute("#scene-collision", "data-ok") == "true"
    assert p.eval_on_selector_all("#unmet-list li", "els => els.map(e => e.textContent)") == [
        "next_to(chair, table) does not hold"]
    assert p.is_hidden("#verdict") and p.is_hidden("#made-by") and p.is_hidden("#joints")
    check_downloads(p, job, idle_service.url)
    # no GLB: the scene's overview PNG shows instead of the 3D view
    p.wait_for_selector("#preview:not([hidden])")
    p.wait_for_function("document.getElementById('preview').complete && "
                        "document.getElementById('preview').naturalWidth === 96")
    assert p.is_hidden("#viewer-note")
    p.wait_for_selector(f"#recent-list li[data-kind=scene]:has(a[title='{job_id}']) .kind")  # listed as a scene
    assert page.errors == []


def test_a_scene_that_built_everything_says_so(idle_service: LiveService, page: Page) -> None:
    job_id = publish_scene_job(idle_service, {"objects": 1, "unmet": [], "collision_free": False, "omissions": []},
                               text="a room with a table")
    p = page.open(f"{idle_service.url}/#job={job_id}")
    p.wait_for_selector("#scene-result:not([hidden])")
    p.wait_for_selector("#omissions-none:not([hidden])")
    assert p.text_content("#omissions-none") == "Everything the sentence named was built."
    assert p.eval_on_selector_all("#omission-list li", "els => els.length") == 0
    assert p.text_content("#scene-objects") == "1" and p.text_content("#scene-objects-word") == "object"
    assert p.text_content("#scene-collision") == "has collisions"
    assert p.is_hidden("#scene-unmet")
    check_downloads(p, idle_service.get(f"/v1/generations/{job_id}"), idle_service.url)
    # a generation opened next hides the scene's result and brings back the object form
    other = publish_result_job(idle_service, NOT_FUNCTIONAL)
    p.evaluate(f"location.hash = '#job={other}'")
    p.wait_for_function(f"document.getElementById('job-id').textContent === '{other}'")
    p.wait_for_selector("#verdict:not([hidden])")
    assert p.is_hidden("#scene-result") and p.is_visible("#generate-form")
    assert page.errors == []


def test_a_scene_is_built_and_followed_live(service: LiveService, page: Page) -> None:
    p = page.open(service.url + "/")
    p.click("#mode-scene")
    p.fill("#scene-text", "a bedroom with a bed, a piano and a medicine cabinet")
    p.fill("#scene-seed", "1")
    p.evaluate("""() => {
        window.__seen = [];
        new MutationObserver(() => window.__seen.push(document.getElementById('job-status').textContent))
            .observe(document.getElementById('job'), {subtree: true, childList: true, characterData: true});
    }""")
    p.click("#scene-submit")
    p.wait_for_selector("#job[data-status=succeeded], #job[data-status=failed], #job[data-status=canceled]",
                        timeout=600_000)
    job_id = p.text_content("#job-id")
    job = service.get(f"/v1/generations/{job_id}")
    assert job["status"] == "succeeded", f"{job['error']}\n{service.tail()}"
    assert job["kind"] == "scene"
    assert "running" in p.evaluate("window.__seen")
    assert any(u.endswith(f"/v1/generations/{job_id}/events") for u in page.requests), "no event stream opened"
    assert not any("polling instead" in m for m in page.infos), page.infos
    p.wait_for_selector("#scene-result:not([hidden])")
    shown = p.eval_on_selector_all("#omission-list li", "els => els.map(e => [e.dataset.noun, e.dataset.status, "
                                                        "e.querySelector('.reason').textContent])")
    assert shown == [[o["noun"], o["status"], o["reason"]] for o in job["result"]["omissions"]]
    assert ["piano", "left out"] in [s[:2] for s in shown]
    assert p.text_content("#scene-objects") == str(job["result"]["objects"])
    check_downloads(p, job, service.url)
    p.wait_for_selector("#preview:not([hidden])")
    assert page.errors == []
