"""The pipeline and the job runner: options, job specs and their keys, the weights manifest, devices, and image/text
-> asset -> finished folder with tiny random models (end to end with the shipped weights: test_cli_generate.py)."""

from __future__ import annotations

import itertools
import json
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from seed3d.asset import Asset
from seed3d.errors import AssetInvalidError, DependencyError, InvalidInputError, Seed3DError
from seed3d.pipeline import (
    BUILT_STAGES,
    POST_STAGES,
    JobCancelled,
    JobSpec,
    PipelineOptions,
    Seed3DPipeline,
    check_device,
    rigid,
    run_job,
    stage_list,
    weights_component,
)
from seed3d.progress import heartbeat
from tests.broken_assets import FixedPipe


def make_tiny_weights(root: Path) -> Path:
    """A weights folder with tiny random geometry models, part segmenter and PBR generator, and its pipeline.json."""
    from seed3d.geometry.coarse import CoarseFlow
    from seed3d.geometry.conditioning import ShapeConditioner
    from seed3d.geometry.train import CoarseModel
    from seed3d.geometry.vae import ShapeVAE
    from seed3d.parts.model import PartSegmenter
    from seed3d.pbr.tagger import MaterialTagger, TaggerConfig
    from seed3d.pbr.train import PBRTrainModel
    from tests.geometry.test_generate import TINY_COND, TINY_FLOW, TINY_VAE
    from tests.parts.test_segment import TINY_MODEL
    from tests.pbr.test_model import tiny_model
    from tests.pbr.test_texture import SIX

    torch.manual_seed(0)
    ShapeVAE(TINY_VAE).save_pretrained(root / "geometry-vae")
    CoarseModel(CoarseFlow(TINY_FLOW), ShapeConditioner(TINY_COND)).save_pretrained(root / "geometry-coarse")
    PartSegmenter(TINY_MODEL).save_pretrained(root / "part-segmenter")
    PBRTrainModel(tiny_model(config=SIX), MaterialTagger(TaggerConfig(image_size=16, channels=(8, 16)))
                  ).save_pretrained(root / "pbr")
    (root / "pipeline.json").write_text(json.dumps({"components": {
        "geometry_vae": {"path": "geometry-vae", "stage": "geometry"},
        "geometry_coarse": {"path": "geometry-coarse", "stage": "geometry"},
        "part_segmenter": {"path": "part-segmenter", "stage": "parts"},
        "pbr": {"path": "pbr", "stage": "texture"}}}))
    return root


@pytest.fixture(scope="module")
def tiny_weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_weights(tmp_path_factory.mktemp("weights"))


def noise_image(path: Path, seed: int = 0) -> Path:
    """A small random RGB image saved at ``path``."""
    Image.fromarray((np.random.default_rng(seed).random((40, 40, 3)) * 255).astype(np.uint8)).save(path)
    return path


#: Options that keep tiny-model runs fast.
FAST = {"steps": 2, "resolution": 32, "target_faces": None}


def test_options_default_to_every_stage_and_refuse_unknown_ones() -> None:
    assert PipelineOptions().stages == BUILT_STAGES == ("geometry", "parts", "texture", "articulation")
    assert PipelineOptions(stages=("articulation", "parts")).stages == ("geometry", "parts", "articulation")
    assert PipelineOptions(stages=("texture",)).stages == ("geometry", "texture")  # geometry added, order fixed
    with pytest.raises(InvalidInputError, match="unknown stages"):
        PipelineOptions(stages=("geometry", "paint"))
    with pytest.raises(InvalidInputError, match="texture_size must be at most 2048"):
        PipelineOptions(texture_size=4096)
    with pytest.raises(InvalidInputError, match="steps must be an integer >= 1"):
        PipelineOptions(steps=0)
    with pytest.raises(InvalidInputError, match="target_faces"):
        PipelineOptions(target_faces=2)
    assert stage_list(" geometry, parts ,") == ("geometry", "parts")


def test_job_spec_checks_its_fields_before_any_model_loads(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="needs a text, an image or both"):
        JobSpec(text="  ")
    with pytest.raises(InvalidInputError, match="unknown format"):
        JobSpec(text="a chair", formats=("glb", "fbx"))
    with pytest.raises(InvalidInputError, match="unknown stages"):
        JobSpec(text="a chair", stages=("geometry", "paint"))
    with pytest.raises(InvalidInputError, match="name must be"):
        JobSpec(text="a chair", name="my chair")
    with pytest.raises(InvalidInputError, match="seed must be"):
        JobSpec(text="a chair", seed=-1)
    spec = JobSpec(text="a chair", formats=("usd", "glb"), stages=("parts",))
    assert spec.formats == ("glb", "usd") and spec.stages == ("geometry", "parts")
    assert spec.asset_name() == "a_chair" and JobSpec(text="?!", name=None).asset_name() == "generated"
    (tmp_path / "notes.png").write_text("not an image")
    with pytest.raises(InvalidInputError, match=r"notes\.png"):
        JobSpec(image=str(tmp_path / "notes.png")).check()
    with pytest.raises(InvalidInputError, match="no such image file"):
        JobSpec(image=str(tmp_path / "none.png")).check()


def test_job_key_hashes_image_bytes_and_options_not_paths(tmp_path: Path) -> None:
    a = noise_image(tmp_path / "a.png")
    b = tmp_path / "sub" / "b.png"
    b.parent.mkdir()
    shutil.copy(a, b)
    key = JobSpec(image=str(a), text="a box").key()
    assert JobSpec(image=str(b), text="a box").key() == key  # same bytes elsewhere: same job
    assert JobSpec(image=str(a), text="a box", seed=1).key() != key
    assert JobSpec(image=str(a), text="a box", formats=("glb",)).key() != key
    assert JobSpec(image=str(noise_image(tmp_path / "c.png", seed=1)), text="a box").key() != key
    assert len(key) == 20 and JobSpec(text="a box").key() == JobSpec(text="a box").key()


def test_manifest_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(Seed3DError, match="no weights manifest"):
        weights_component("geometry_vae", tmp_path)
    (tmp_path / "pipeline.json").write_text(json.dumps({"components": {}}))
    with pytest.raises(Seed3DError, match="lists no component 'geometry_coarse'"):
        Seed3DPipeline.from_pretrained(tmp_path)


def test_devices_are_checked() -> None:
    assert check_device("cpu") == "cpu"
    with pytest.raises(InvalidInputError, match="cpu or cuda"):
        check_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(DependencyError, match="no CUDA GPU"):
            Seed3DPipeline.from_pretrained(device="cuda")


def test_geometry_stage_alone_makes_a_one_body_asset_with_metadata(tiny_weights: Path) -> None:
    pipe = Seed3DPipeline.from_pretrained(tiny_weights)
    image = (np.random.default_rng(0).random((40, 40, 3)) * 255).astype(np.uint8)
    opts = PipelineOptions(stages=("geometry",), seed=3, generator="learned", **FAST)
    seen: list[str] = []
    asset = pipe(image=image, text="a box 30 cm tall", options=opts, progress=lambda s, f, m: seen.append(s))
    assert [p.name for p in asset.parts] == ["body"] and not asset.joints
    assert asset.metadata["seed"] == 3 and set(asset.metadata["models"]) == {"geometry_vae", "geometry_coarse"}
    assert asset.metadata["skipped"] == dict.fromkeys(("parts", "texture", "articulation"), "not asked for")
    assert "geometry" in asset.metadata["timings"] and set(seen) == {"geometry"}
    assert np.ptp(asset.parts[0].mesh.vertices[:, 2]) == pytest.approx(0.30, rel=1e-3)
    again = pipe(image=image, text="a box 30 cm tall", options=opts)
    assert np.array_equal(again.parts[0].mesh.vertices, asset.parts[0].mesh.vertices)
    with pytest.raises(InvalidInputError, match="unknown pipeline options"):
        pipe(image=image, options=opts, sampler="euler")


def test_an_image_takes_its_size_from_the_category_given(tiny_weights: Path) -> None:
    pipe = Seed3DPipeline.from_pretrained(tiny_weights)
    image = (np.random.default_rng(0).random((40, 40, 3)) * 255).astype(np.uint8)
    sizes = {}
    for category in ("mug", "wardrobe"):
        asset = pipe(image=image, category=category, stages=("geometry",), **FAST)
        size = asset.metadata["size"]
        assert size["source"] == "category" and category in size["note"] and asset.metadata["category"] == category
        sizes[category] = float(np.ptp(asset.parts[0].mesh.vertices, axis=0).max())
    assert sizes["wardrobe"] > 4 * sizes["mug"]  # a cup and a wardrobe are not the same size


def test_a_program_says_where_its_size_came_from() -> None:
    from seed3d.pipeline import program_size
    from seed3d.program import build_program, parse_text

    stated = program_size(build_program(parse_text("a cabinet 80 cm tall")))
    assert stated["source"] == "text" and stated["dims"]["height"] == pytest.approx(0.8, rel=0.03)
    typical = program_size(build_program(parse_text("a mug")))
    assert typical["source"] == "category" and "mug" in typical["note"] and typical["dims"]["height"] < 0.25


def test_every_built_stage_runs_in_order_and_low_memory_frees_each_model(tiny_weights: Path) -> None:
    pipe = Seed3DPipeline.from_pretrained(tiny_weights, low_memory=True)
    image = (np.random.default_rng(1).random((40, 40, 3)) * 255).astype(np.uint8)
    stages: list[str] = []
    asset = pipe(image=image, seed=1, max_parts=3, texture_size=128, progress=lambda s, f, m: stages.append(s),
                 **FAST)
    assert list(dict.fromkeys(stages)) == ["geometry", "parts", "texture", "articulation"]
    assert set(asset.metadata["timings"]) >= {"geometry", "parts", "texture", "articulation"}
    assert {"part_segmenter", "pbr"} <= set(asset.metadata["models"]) and "articulation" in asset.metadata
    assert asset.joints_known and len(asset.joints) == len(asset.parts) - 1 and 1 <= len(asset.parts) <= 3
    assert all(p.collision and p.inertial is not None for p in asset.parts)  # articulation made them sim-ready
    assert all(p.material.base_color_map is not None and p.material.metallic_roughness_map is not None
               and p.mesh.uv is not None for p in asset.parts)  # the texture stage baked every part
    assert asset.metadata["texture"]["prompt"] and not asset.metadata["skipped"]  # the tagger named the materials
    assert pipe._geometry is None and pipe._segmenter is None and pipe._texturer is None  # one model at a time
    again = pipe(image=image, seed=1, max_parts=3, texture_size=128, **FAST)
    assert [p.name for p in again.parts] == [p.name for p in asset.parts]
    assert all(np.array_equal(p.mesh.vertices, q.mesh.vertices) for p, q in zip(asset.parts, again.parts, strict=True))
    assert all(np.array_equal(p.material.base_color_map, q.material.base_color_map)
               for p, q in zip(asset.parts, again.parts, strict=True))
    assert again.joints == asset.joints


def test_parts_without_articulation_are_fixed_to_the_largest_part(tiny_weights: Path) -> None:
    pipe = Seed3DPipeline.from_pretrained(tiny_weights)
    image = (np.random.default_rng(1).random((40, 40, 3)) * 255).astype(np.uint8)
    asset = pipe(image=image, seed=1, stages=("geometry", "parts"), max_parts=3, **FAST)
    assert asset.metadata["skipped"] == {"texture": "not asked for", "articulation": "not asked for"}
    assert asset.joints_known and all(j.type == "fixed" and j.parent == asset.root for j in asset.joints)
    assert len(asset.joints) == len(asset.parts) - 1
    assert rigid(asset).joints == asset.joints  # an asset with known joints is kept as it is


def test_run_job_writes_a_complete_folder_atomically(tiny_weights: Path, tmp_path: Path) -> None:
    image = noise_image(tmp_path / "in.png")
    spec = JobSpec(image=str(image), stages=("geometry",), name="thing", **FAST)
    pipe = Seed3DPipeline.from_pretrained(tiny_weights)
    events: list[tuple[str, float]] = []
    out = tmp_path / "job"
    summary = run_job(spec, out, pipe=pipe, progress=lambda s, f, m: events.append((s, f)))
    assert summary["key"] == spec.key() and summary["name"] == "thing"
    assert summary["parts"] == 1 and summary["joints"] == 0 and summary["faces"] > 0
    assert {"asset", "glb", "urdf", "mjcf", "usd", "report", "preview"} <= set(summary["files"])
    assert all((out / rel).is_file() for rel in summary["files"].values())
    assert json.loads(json.dumps(summary)) == summary  # JSON-able
    assert list(dict.fromkeys(s for s, _ in events)) == ["geometry", *POST_STAGES]
    assert set(summary["timings"]) >= {"geometry", *POST_STAGES, "total"}
    report = json.loads((out / "report.json").read_text())
    assert report["valid"] == summary["valid"] == report["passed"]
    assert report["path"] == str(out) and str(tmp_path / ".job") not in json.dumps(report)  # no temp paths
    assert report["job"]["key"] == spec.key() and report["summary"]["files"] == summary["files"]
    assert "parts stage skipped: not asked for" in report["notes"]
    assert report["size"]["source"] == "default" and "no known category" in report["size"]["note"]  # image only
    assert {c["name"] for c in report["checks"]} >= {"urdf.load_pybullet", "mjcf.load_mujoco", "usd.parse", "glb.load"}
    with Image.open(out / "preview.png") as im:
        assert im.size[0] == 4 * im.size[1]  # a strip of four turntable views
    with Image.open(out / "preview.gif") as im:
        assert im.n_frames > 1
    assert Asset.load(out).metadata["job"]["key"] == spec.key()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.png", "job"]  # no temporary folders left
    with pytest.raises(InvalidInputError, match="exists"):
        run_job(spec, out, pipe=pipe)


def test_progress_goes_forward_and_every_stage_reports_from_inside(tiny_weights: Path, tmp_path: Path) -> None:
    """Issue 57 item 9: progress that looks alive. Counted, not timed: each stage reports several times from inside
    its work (sampler steps, extraction batches, mesh clean-up steps, segmentation steps and parts, checks), the
    stages come once each in order, and neither a stage's fraction nor the service's overall figure goes back."""
    from api.worker import _Progress
    from seed3d.pipeline import GEOMETRY_MESSAGES

    spec = JobSpec(image=str(noise_image(tmp_path / "in.png")), seed=1, generator="learned", texture_size=128,
                   formats=("glb", "urdf", "mjcf"), **FAST)
    events: list[tuple[str, float, str]] = []
    run_job(spec, tmp_path / "job", pipe=Seed3DPipeline.from_pretrained(tiny_weights),
            progress=lambda s, f, m: events.append((s, float(f), m)))
    order = [*spec.stages, *POST_STAGES]
    assert list(dict.fromkeys(s for s, _, _ in events)) == order
    blocks = [s for i, (s, _, _) in enumerate(events) if i == 0 or events[i - 1][0] != s]
    assert blocks == order  # each stage reports in one run of events: no stage comes back
    for stage in order:
        fractions = [f for s, f, _ in events if s == stage]
        assert all(0.0 <= f <= 1.0 + 1e-9 for f in fractions), (stage, fractions)
        assert all(b >= a - 1e-9 for a, b in itertools.pairwise(fractions)), (stage, fractions)  # float rounding
    counts = {stage: sum(s == stage for s, _, _ in events) for stage in order}
    steps = FAST["steps"]
    assert counts["geometry"] >= 2 * steps + 8, counts  # per coarse step, extraction batch, clean-up step
    geometry_messages = {m for s, _, m in events if s == "geometry"}
    assert {GEOMETRY_MESSAGES[p] for p in ("condition", "coarse", "extract", "postprocess")} <= geometry_messages
    assert counts["parts"] >= 6, counts  # per segmentation step and per part completed
    assert counts["validate"] >= 5, counts  # per check
    assert all(counts[s] >= 2 for s in ("texture", "articulation", "physics", "export", "preview")), counts

    class Recorder:  # the store the service's progress writes to
        def __init__(self) -> None:
            self.values: list[float] = []

        def set_progress(self, job_id: str, worker: str, stage: str | None, progress: float, message: str) -> bool:
            self.values.append(progress)
            return True

    store = Recorder()
    shown = _Progress(store, "job", "worker", order)  # type: ignore[arg-type]  # the figure a job resource shows
    before = 0.0
    for stage, fraction, message in events:
        shown(stage, fraction, message)
        assert shown.value >= before
        before = shown.value
    assert store.values == sorted(store.values) and store.values[-1] > 80.0


def _beating(message: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == f"heartbeat: {message}"[:51]]


def test_heartbeat_reports_while_a_blocking_call_runs_and_never_after() -> None:
    """Issue 57 item 9: a call that cannot report from inside (pymeshlab's decimation, loading a model) reports
    through the same callback from a daemon thread while it runs. Waited for, never timed: the "blocking call" here
    returns once the heartbeat has spoken three times."""
    events: list[tuple[float, str, str]] = []
    spoke = threading.Event()

    def progress(fraction: float, message: str) -> None:
        events.append((fraction, message, threading.current_thread().name))
        if sum("crunching" in m for _, m, _ in events) >= 3:
            spoke.set()

    progress(0.2, "before")
    with heartbeat(progress, 0.2, 0.6, "crunching 12k faces", expected_s=0.05, interval=0.002) as report:
        assert spoke.wait(timeout=120)
        report(0.1, "from inside")  # the block's own report, serialised with the beat: the fraction never goes back
    assert not _beating("crunching 12k faces")  # the thread is joined: nothing can report after the block
    progress(0.6, "after")
    beats = [(f, m) for f, m, name in events if name != threading.current_thread().name]
    assert len(beats) >= 3 and all(m.startswith("crunching 12k faces… ") and m.endswith(" s") for _, m in beats)
    assert all(0.2 < f < 0.6 for f, _ in beats)  # towards the step's end, never onto it
    fractions = [f for f, _, _ in events]
    assert fractions == sorted(fractions)
    assert events[-1][1] == "after" and [m for _, m, _ in events].count("from inside") == 1


def test_heartbeat_passes_the_calls_exception_on_and_survives_a_failing_callback() -> None:
    spoke = threading.Event()
    seen: list[str] = []

    def progress(fraction: float, message: str) -> None:
        seen.append(message)
        spoke.set()

    with (pytest.raises(RuntimeError, match="pymeshlab gave up"),
          heartbeat(progress, 0.0, 1.0, "collapsing", expected_s=1.0, interval=0.002)):
        assert spoke.wait(timeout=120)
        raise RuntimeError("pymeshlab gave up")
    assert seen and not _beating("collapsing")
    count = len(seen)

    failed = threading.Event()

    def broken(fraction: float, message: str) -> None:
        failed.set()
        raise OSError("the job store is down")

    with heartbeat(broken, 0.0, 1.0, "loading models", expected_s=1.0, interval=0.002):
        assert failed.wait(timeout=120)
        for thread in _beating("loading models"):
            thread.join(timeout=120)  # the beat stops by itself; the call goes on
        assert not _beating("loading models")
    assert len(seen) == count
    with heartbeat(None, 0.0, 1.0, "nothing to tell", expected_s=1.0) as report:
        report(0.5, "dropped")
    with pytest.raises(InvalidInputError, match="start <= end"), heartbeat(progress, 0.8, 0.2, "backwards", 1.0):
        pass


def test_run_job_refuses_bad_specs_before_loading_and_stops_on_cancel(tiny_weights: Path, tmp_path: Path) -> None:
    pipe = Seed3DPipeline.from_pretrained(tiny_weights)
    with pytest.raises(InvalidInputError, match="no such image file"):
        run_job(JobSpec(image=str(tmp_path / "none.png")), tmp_path / "a", pipe=pipe)
    assert pipe._geometry is None  # nothing loaded
    seen: list[str] = []

    def cancel_at_export() -> bool:
        return "physics" in seen

    spec = JobSpec(image=str(noise_image(tmp_path / "in.png")), stages=("geometry",), **FAST)
    with pytest.raises(JobCancelled, match="export"):
        run_job(spec, tmp_path / "b", pipe=pipe, progress=lambda s, f, m: seen.append(s),
                should_cancel=cancel_at_export)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.png"]  # nothing half-written


def test_run_job_gives_the_verdict_and_require_valid_fails_naming_the_checks(tmp_path: Path) -> None:
    spec = JobSpec(text="a cabinet with a drawer", stages=("geometry",), formats=("urdf",), generator="learned")
    summary = run_job(spec, tmp_path / "a", pipe=FixedPipe())
    assert summary["valid"] is False and summary["sound"] is True and summary["functional"] is False
    assert summary["failed_checks"] == ["functional.travel"]
    assert summary["failures"][0]["message"].startswith("drawer_slide (drawer) moves 1.0 mm")
    report = json.loads((tmp_path / "a" / "report.json").read_text())
    assert report["summary"]["failed_checks"] == ["functional.travel"]
    strict = JobSpec(**{**spec.to_dict(), "require_valid": True})
    assert strict.key() == spec.key()  # how a job ends is not what it makes
    with pytest.raises(AssetInvalidError, match=r"not functional\).*functional\.travel: drawer_slide") as refused:
        run_job(strict, tmp_path / "b", pipe=FixedPipe())
    assert refused.value.failed == ["functional.travel"] and refused.value.summary["valid"] is False
    assert str(tmp_path / "b" / "report.json") in str(refused.value)  # written, so the report can say why
    assert (tmp_path / "b" / "report.json").is_file()
    with pytest.raises(InvalidInputError, match="require_valid must be true or false"):
        JobSpec(text="a box", require_valid="yes")  # type: ignore[arg-type]


def test_an_image_alone_on_the_learned_path_takes_the_size_of_the_category_it_looks_like(
        tiny_weights: Path, tmp_path: Path) -> None:
    """No words and no --category: the image network's likely category gives the learned shape its typical size (a
    rendered mug comes out mug-sized, not the default 0.5 m); an image of nothing in particular keeps the default."""
    import shutil

    from seed3d.render import get_renderer, orbit_camera
    from seed3d.synth import generate

    root = tmp_path / "weights"
    shutil.copytree(tiny_weights, root)
    shutil.copytree(Path(__file__).resolve().parents[1] / "weights" / "program-image", root / "program-image")
    manifest = json.loads((root / "pipeline.json").read_text())
    manifest["components"]["program_image"] = {"path": "program-image", "stage": "program"}
    (root / "pipeline.json").write_text(json.dumps(manifest))
    mug = generate("mug", 3)
    with get_renderer() as r:
        rgba = r.render_image(mug, orbit_camera(mug, 30.0, 20.0, 128))
    image = (rgba * 255).round().astype(np.uint8)
    pipe = Seed3DPipeline.from_pretrained(root)
    category, why = pipe.image_size_category(image)
    assert category == "mug" and "typical mug" in why
    asset = pipe(image=image, generator="learned", stages=("geometry",), **FAST)
    height = float(np.ptp(asset.parts[0].mesh.vertices, axis=0).max())
    assert height < 0.25 and "typical mug" in asset.metadata["size"]["note"]
    noise = (np.random.default_rng(0).random((40, 40, 3)) * 255).astype(np.uint8)
    assert pipe.image_size_category(noise) == (None, None)


def test_reading_an_image_s_program_reports_while_it_runs(tiny_weights: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The image network and its render-and-compare fit take seconds before any stage starts: a heartbeat reports
    them as stage "generator" (no overall figure moves: the path is not chosen yet). Waits for the report."""
    pipe = Seed3DPipeline.from_pretrained(tiny_weights)
    seen = threading.Event()

    class Stop(Exception):
        pass

    def slow_choice(image: object, text: object, opts: object) -> tuple[None, str]:
        assert seen.wait(timeout=600), "no progress while the image's program was read"
        raise Stop

    monkeypatch.setattr(pipe, "choose_program", slow_choice)
    events: list[tuple[str, float, str]] = []

    def progress(stage: str, fraction: float, message: str) -> None:
        events.append((stage, fraction, message))
        if stage == "generator":
            seen.set()

    with pytest.raises(Stop):
        pipe(image=str(noise_image(tmp_path / "in.png")), options=PipelineOptions(**FAST), progress=progress)
    assert events and all(s == "generator" and "reading the image" in m for s, _, m in events)
    assert all(0.0 <= f < 1.0 for _, f, _ in events)
