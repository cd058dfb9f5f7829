"""The part segmenter: model shapes and save/load, automatic segmentation, matching, training and resume."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from seed3d.asset import PART_LABELS, Asset, PhysicalMaterial
from seed3d.errors import AssetFormatError, InvalidInputError
from seed3d.parts import part_names
from seed3d.parts.model import PartSegmenter, SegmenterConfig
from seed3d.parts.prior import beside
from seed3d.parts.segment import SegmentConfig, Segmenter, match_parts
from seed3d.parts.shell import merged_shell
from seed3d.parts.train import PartSegTrainConfig, make_batch, train_part_segmenter
from seed3d.synth import generate
from seed3d.synth.dataset import DatasetConfig, build_split

TINY_MODEL = SegmenterConfig(num_points=256, edge_points=32, tokens=32, fps_pool=256, group=8, point_dim=16, width=32,
                             depth=1, heads=2, decoder_depth=1, mask_dim=16)


def _tiny(seed: int = 0) -> PartSegmenter:
    torch.manual_seed(seed)
    return PartSegmenter(TINY_MODEL).eval()


def test_model_outputs_have_the_documented_shapes() -> None:
    model = _tiny()
    pts = torch.rand(2, 256, 3) * 2 - 1
    nrm = torch.nn.functional.normalize(torch.randn(2, 256, 3), dim=-1)
    masks, labels, iou = model(pts, nrm, torch.randint(0, 256, (2, 5)))
    assert masks.shape == (2, 5, 256) and labels.shape == (2, 5, len(PART_LABELS)) and iou.shape == (2, 5)


def test_save_and_load_round_trip_gives_the_same_outputs(tmp_path: Path) -> None:
    model = _tiny()
    model.save_pretrained(tmp_path / "m")
    again = PartSegmenter.from_pretrained(tmp_path / "m")
    pts = torch.rand(1, 256, 3)
    nrm = torch.nn.functional.normalize(torch.randn(1, 256, 3), dim=-1)
    prompts = torch.tensor([[0, 7]])
    for a, b in zip(model(pts, nrm, prompts), again(pts, nrm, prompts), strict=True):
        assert torch.allclose(a, b)
    doc = json.loads((tmp_path / "m" / "config.json").read_text())
    assert doc["model_type"] == "seed3d-part-segmenter" and doc["width"] == 32


def test_loading_a_folder_that_is_not_a_segmenter_fails_clearly(tmp_path: Path) -> None:
    with pytest.raises(AssetFormatError, match="not a model folder"):
        PartSegmenter.from_pretrained(tmp_path)
    _tiny().save_pretrained(tmp_path / "m")
    doc = json.loads((tmp_path / "m" / "config.json").read_text())
    (tmp_path / "m" / "config.json").write_text(json.dumps({**doc, "model_type": "other"}))
    with pytest.raises(AssetFormatError, match="not a seed3d-part-segmenter"):
        PartSegmenter.from_pretrained(tmp_path / "m")


def test_match_parts_is_hungarian_over_true_parts() -> None:
    truth = np.array([0, 0, 0, 0, 1, 1, 2, 2])
    pred = np.array([5, 5, 5, 5, 3, 3, 3, 3])  # part 3 swallows truth 1 and 2
    miou, matching, per = match_parts(pred, truth)
    assert matching[5] == 0 and per[0] == 1.0
    assert sorted(per[1:].tolist()) == [0.0, 0.5]
    assert miou == pytest.approx(0.5)
    assert match_parts(truth, truth)[0] == 1.0
    with pytest.raises(InvalidInputError):
        match_parts(pred[:3], truth)


def test_automatic_segmentation_covers_every_face_and_respects_a_given_count() -> None:
    truth = generate("cabinet", 0)
    shell, _ = merged_shell(truth)
    seg = Segmenter(_tiny(), SegmentConfig(prompts=16))
    auto = seg.segment_mesh(shell)
    assert len(auto.face_part) == len(auto.mesh.faces) and auto.face_part.min() == 0
    assert set(np.unique(auto.face_part)) == set(range(auto.num_parts))
    assert all(label in PART_LABELS for label in auto.labels)
    two = seg.segment_mesh(shell, num_parts=2)
    assert two.num_parts <= 2
    again = Segmenter(_tiny(), SegmentConfig(prompts=16)).segment_mesh(shell)
    assert np.array_equal(again.face_part, auto.face_part)  # deterministic
    with pytest.raises(InvalidInputError):
        seg.segment_mesh(shell, num_parts=0)


def test_segment_points_rejects_bad_input() -> None:
    seg = Segmenter(_tiny())
    with pytest.raises(InvalidInputError):
        seg.segment_points(np.zeros((4, 3)), np.zeros((4, 3)))
    with pytest.raises(InvalidInputError, match="no extent"):
        seg.segment_points(np.zeros((64, 3)), np.tile([0.0, 0.0, 1.0], (64, 1)))


def test_merged_shell_is_closed_and_labels_faces_by_part() -> None:
    truth = generate("cabinet", 0)
    shell, owner = merged_shell(truth)
    assert shell.to_trimesh().is_watertight
    assert set(np.unique(owner)) == set(range(len(truth.parts)))
    points, normals, _ = shell.sample_surface(500, seed=1)
    assert points.shape == normals.shape == (500, 3)
    assert np.allclose(np.linalg.norm(normals, axis=1), 1.0)


def test_part_names_are_unique_and_the_body_keeps_its_name() -> None:
    assert part_names(["body", "door", "door", "handle", "body"]) == ["body", "door_0", "door_1", "handle_0",
                                                                       "body_1"]


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("data")
    cfg = DatasetConfig(samples_per_shard=2, surface_points=512, sharp_points=16, volume_points=16, near_points=16,
                        cond_views=0, cond_resolution=16, pbr_resolution=8, categories=("cabinet", "box"))
    build_split(out, "train", 3, cfg, workers=1)
    return out


def test_batches_prompt_existing_parts_and_depend_only_on_seed_and_step(tiny_data: Path) -> None:
    from seed3d.parts.train import load_points

    data = load_points(tiny_data, "train")
    cfg = PartSegTrainConfig(batch=2, prompts=4, model=TINY_MODEL)
    a, b = make_batch(data, 3, cfg, 128), make_batch(data, 3, cfg, 128)
    assert a["edge"].shape == (2, 128) and not a["edge"][:, :96].any()  # the last 32 are edge samples
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert a["points"].shape == (2, 128, 3) and a["masks"].shape == (2, 4, 128)
    rows = torch.arange(2)[:, None]
    assert bool(a["masks"][rows, torch.arange(4)[None], a["prompts"]].all())  # a prompt lies in its own mask
    assert float(a["points"].abs().max()) <= 0.9 + 1e-5


def test_refine_weighs_prompt_labels_by_the_size_prior() -> None:
    """One box, prompts a little more sure of 'handle' than 'body': a handle never covers a whole shape, so with
    a prior fitted on shapes that are mostly body the part is relabelled body; without one it stays a handle."""
    from seed3d.parts.prior import fit_size_prior
    from seed3d.parts.segment import MeshSegmentation
    from seed3d.synth.primitives import box

    mesh = box([0, 0, 0], [1, 1, 1])
    probs = np.zeros((4, len(PART_LABELS)))
    probs[:, PART_LABELS.index("handle")] = 0.4
    probs[:, PART_LABELS.index("body")] = 0.35
    seg = MeshSegmentation(mesh, np.zeros(len(mesh.faces), np.int64), ["handle"], [1.0], mesh.vertices[:4],
                           probs, list(PART_LABELS))
    part = np.zeros((20, 100), np.int64)
    part[:, 98:] = 1
    label = np.where(part == 0, PART_LABELS.index("body"), PART_LABELS.index("handle"))
    prior = fit_size_prior(part, label, PART_LABELS)
    assert Segmenter(_tiny()).refine(seg).labels == ["handle"]
    assert Segmenter(_tiny(), size_prior=prior).refine(seg).labels == ["body"]
    off = Segmenter(_tiny(), SegmentConfig(size_prior_weight=0.0), size_prior=prior)
    assert off.refine(seg).labels == ["handle"]


def test_refine_prompts_parts_the_farthest_point_prompts_missed() -> None:
    """A big box holds every prompt (body); a small box beside it holds none. With extra prompts on the parts
    that lack them, the small box is labelled by what the model says at its own faces (here: a knob); without,
    it keeps the label of the part it was cut from."""
    from seed3d.asset import Mesh
    from seed3d.parts.segment import MeshSegmentation
    from seed3d.synth.primitives import box

    big, small = box([0, 0, 0], [1, 1, 1]), box([1.2, 0.4, 0.4], [1.3, 0.5, 0.5])
    mesh = Mesh(np.concatenate([big.vertices, small.vertices]),
                np.concatenate([big.faces, small.faces + len(big.vertices)]))
    face_part = np.repeat([0, 1], [len(big.faces), len(small.faces)])
    probs = np.zeros((4, len(PART_LABELS)))
    probs[:, PART_LABELS.index("body")] = 1.0
    seg = MeshSegmentation(mesh, face_part, ["body", "body"], [1.0, 1.0], big.vertices[:4], probs,
                           list(PART_LABELS))
    model = _tiny()
    knob = PART_LABELS.index("knob")

    last = [m for m in model.label_head.modules() if isinstance(m, torch.nn.Linear)][-1]
    with torch.no_grad():  # the label head says "knob" wherever it is prompted
        last.weight.zero_()
        last.bias.zero_()
        last.bias[knob] = 5.0
    topped = Segmenter(model).refine(seg)
    small_part = int(topped.face_part[-1])
    assert topped.labels[small_part] == "knob" and topped.labels[1 - small_part] == "body"
    extra = SegmentConfig().label_prompts
    assert extra > 0 and topped.prompts is not None and len(topped.prompts) == 4 + extra  # prompts of its own
    assert Segmenter(model, SegmentConfig(label_prompts=0)).refine(seg).labels == ["body", "body"]
    again = Segmenter(model).refine(topped)  # already topped up: nothing more is added
    assert again.prompts is not None and len(again.prompts) == 4 + extra and again.labels == topped.labels


def test_refine_merges_adjacent_same_label_parts_the_model_sees_as_one() -> None:
    """A box cut in two halves, both voted handle: they merge when the masks prompted in each cover the other,
    stay apart when the masks cover nothing, when merging is off, or when the halves' labels differ."""
    import trimesh

    from seed3d.asset import Mesh
    from seed3d.parts.segment import MeshSegmentation
    from seed3d.synth.primitives import box

    b = box([0, 0, 0], [1, 1, 1])
    verts, faces = trimesh.remesh.subdivide_to_size(b.vertices, b.faces, 0.2)
    mesh = Mesh(verts, faces)
    centres = verts[faces].mean(1)
    face_part = (centres[:, 0] > 0.5).astype(np.int64)
    prompts = np.concatenate([centres[face_part == 0][:4], centres[face_part == 1][:4]])

    def halves(second: str) -> MeshSegmentation:
        probs = np.zeros((8, len(PART_LABELS)))
        probs[:4, PART_LABELS.index("handle")] = 1.0
        probs[4:, PART_LABELS.index(second)] = 1.0
        return MeshSegmentation(mesh, face_part, ["handle", second], [1.0, 1.0], prompts, probs, list(PART_LABELS))

    model = _tiny()
    last = [m for m in model.mask_out.modules() if isinstance(m, torch.nn.Linear)][-1]

    def masks_cover(everything: bool) -> None:
        with torch.no_grad():
            last.weight.zero_()
            last.bias.fill_(5.0 if everything else -5.0)

    masks_cover(True)
    merged = Segmenter(model).refine(halves("handle"))
    assert merged.num_parts == 1 and merged.labels == ["handle"]
    assert Segmenter(model, SegmentConfig(merge_agreement=2.0)).refine(halves("handle")).num_parts == 2
    assert sorted(Segmenter(model).refine(halves("knob")).labels) == ["handle", "knob"]
    masks_cover(False)
    assert Segmenter(model).refine(halves("handle")).num_parts == 2


def test_training_writes_a_model_and_resumes_where_it_stopped(tiny_data: Path, tmp_path: Path) -> None:
    cfg = PartSegTrainConfig(steps=2, batch=2, prompts=2, warmup=1, checkpoint_every=1, log_every=1,
                             model=TINY_MODEL)
    final = train_part_segmenter(tiny_data, tmp_path / "run", cfg)
    assert (final / "model.safetensors").is_file()
    loaded = Segmenter.from_pretrained(final)  # the training split's label-size and label-material priors beside it
    prior = loaded.size_prior
    assert prior is not None and prior.counts[PART_LABELS.index("body")] > 0
    bodies = {p.physical.name for c, s in (("cabinet", 0), ("box", 1), ("cabinet", 2))
              for p in generate(c, s).parts if p.label == "body"}
    assert loaded.material_prior is not None and loaded.physical("body").name in bodies
    assert loaded.physical("not-a-label") == PhysicalMaterial()
    log = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2] and all(np.isfinite(r["loss"]) for r in log)
    more = PartSegTrainConfig(**{**cfg.__dict__, "steps": 3})
    train_part_segmenter(tiny_data, tmp_path / "run", more)
    log = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2, 3]  # resumed at step 2, did one more
    other = PartSegTrainConfig(**{**more.__dict__, "model": SegmenterConfig(**{**TINY_MODEL.__dict__, "width": 64})})
    with pytest.raises(InvalidInputError, match="another model config"):
        train_part_segmenter(tiny_data, tmp_path / "run", other)


def test_batches_made_ahead_in_a_thread_train_the_same(tiny_data: Path, tmp_path: Path) -> None:
    cfg = PartSegTrainConfig(steps=3, batch=2, prompts=2, warmup=1, checkpoint_every=10, log_every=1,
                             model=TINY_MODEL, prefetch=False)
    runs = [train_part_segmenter(tiny_data, tmp_path / name, PartSegTrainConfig(**{**cfg.__dict__, "prefetch": ahead}))
            for name, ahead in (("plain", False), ("ahead", True))]
    logs = [[json.loads(line)["loss"] for line in (r.parent / "log.jsonl").read_text().splitlines()] for r in runs]
    assert len(logs[0]) == 3 and logs[0] == logs[1]
    a, b = (PartSegmenter.from_pretrained(r).state_dict() for r in runs)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_an_asset_with_unknown_joints_round_trips_and_refuses_export(tmp_path: Path) -> None:
    from seed3d.errors import ExportError
    from seed3d.export import export_asset

    truth = generate("box", 0)
    parts = Asset("seg", truth.parts, joints_known=False)
    assert parts.root == truth.parts[0].name and parts.tree_order() == [p.name for p in truth.parts]
    again = Asset.load(parts.save(tmp_path / "a"))
    assert not again.joints_known and not again.joints
    with pytest.raises(ExportError, match="articulate it first"):
        export_asset(again, tmp_path / "out", ("glb",))
    from seed3d.physics.validate import validate_path

    report = validate_path(tmp_path / "a")
    assert not report.passed and any("unknown" in c.message for c in report.failures)
    with pytest.raises(AssetFormatError, match="marked unknown"):
        Asset("bad", truth.parts, truth.joints, joints_known=False)


def test_decompose_holds_the_face_budget_with_closed_parts() -> None:
    """The segmenter subdivides long faces; with ``target_faces`` the completed parts are decimated back to it."""
    from seed3d.parts import MIN_PART_FACES, decompose
    from seed3d.pipeline import weights_component

    shell, _ = merged_shell(generate("cabinet", 0))
    seg = Segmenter.from_pretrained(weights_component("part_segmenter"))
    full = decompose(shell, seg, num_parts=3)
    total = sum(len(p.mesh.faces) for p in full.parts)
    target = total // 4
    # each part is of its label's likeliest material beside the other parts' labels in the training parts, made
    # lighter when completed with more volume than its label's wall allows (MaterialPrior.material)
    assert seg.material_prior is not None
    labels = [p.label for p in full.parts]
    assert all(p.physical == seg.physical(p.label, p.mesh, beside(labels, k)) for k, p in enumerate(full.parts))
    assert any(p.physical != PhysicalMaterial() for p in full.parts)  # not all the default plastic
    held = decompose(shell, seg, num_parts=3, target_faces=target)
    assert [p.label for p in held.parts] == [p.label for p in full.parts]
    faces = [len(p.mesh.faces) for p in held.parts]
    assert sum(faces) <= 1.1 * max(target, MIN_PART_FACES * len(faces))
    for part in held.parts:
        tm = part.mesh.to_trimesh()
        assert tm.is_watertight and tm.volume > 0
        assert tm.area_faces.min() > 1e-12  # no zero-area faces left by the collapse (the validator rejects them)
    assert sum(faces) < total
