"""``seed3d generate`` from the command line: one-line errors, and text -> asset folder and image -> asset folder end
to end with the shipped weights at reduced settings (every stage, every export, validation, preview).

With the shipped v0 geometry weights the shapes are rough blobs: the physics checks that judge the generated
content (watertight part meshes without degenerate faces, in the asset and in every export; resting still; parts
not overlapping; free joint sweeps) fail, so these tests require every check of the pipeline's own work to pass
(files parse and load in PyBullet, MuJoCo, USD and glTF, valid inertials and joints, the same kinematics in every
format, joints follow their drives) and the content checks to have run, with ``valid`` telling whether they all
passed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from seed3d.asset import Asset
from seed3d.cli import main
from seed3d.pipeline import Seed3DPipeline
from tests.broken_assets import FixedPipe

#: Reduced settings that keep one end-to-end run to seconds on 2 CPU cores.
FAST = ["--steps", "2", "--resolution", "64", "--faces", "800"]
#: Checks that judge the generated content rather than the pipeline's work (see the module docstring).
CONTENT_CHECKS = (".meshes", ".rest_pybullet", ".rest_mujoco", ".interpenetration", ".sweep")


def test_bad_inputs_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "o")
    cases = [
        (["generate", "-o", out], "give --image PATH, --text TEXT or both"),
        (["generate", "--image", str(tmp_path / "none.png"), "-o", out], "no such file"),
        (["generate", "--text", "a chair", "--texture-size", "4096", "-o", out], "texture_size must be at most"),
        (["generate", "--text", "a chair", "--stages", "geometry,paint", "-o", out], "unknown stages"),
        (["generate", "--text", "a chair", "--name", "my chair", "-o", out], "name must be"),
        (["generate", "--text", "a chair", "--weights", str(tmp_path), "-o", out], "no weights manifest"),
    ]
    (tmp_path / "notes.png").write_text("not an image")
    cases.append((["generate", "--image", str(tmp_path / "notes.png"), "-o", out], "notes.png"))
    if not __import__("torch").cuda.is_available():
        cases.append((["generate", "--text", "a chair", "--device", "cuda", "-o", out], "no CUDA GPU"))
    for argv, message in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("seed3d generate: error:") and err.count("\n") == 1 and message in err, (argv, err)
    assert not (tmp_path / "o").exists()  # nothing half-written
    (tmp_path / "o").mkdir()
    assert main(["generate", "--text", "a chair", "-o", out]) == 2
    assert "exists (use --overwrite" in capsys.readouterr().err


def test_generate_help_lists_the_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["generate", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for flag in ("--image", "--text", "--seed", "--formats", "--no-texture", "--no-articulation", "--faces",
                 "--device", "--stages", "--low-memory", "--texture-size", "--require-valid"):
        assert flag in text


def test_an_asset_that_fails_validation_exits_1_and_require_valid_names_the_checks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Seed3DPipeline, "from_pretrained", lambda *a, **k: FixedPipe())  # a drawer that cannot open
    argv = ["generate", "--text", "a cabinet with a drawer", "--generator", "learned", "--stages", "geometry",
            "--formats", "urdf"]
    assert main([*argv, "-o", str(tmp_path / "plain")]) == 1
    captured = capsys.readouterr()
    assert "physically sound: yes" in captured.out and "functional: NO" in captured.out
    assert "functional.travel" in captured.out and "error" not in captured.err  # stderr: the progress bar only
    assert main([*argv, "--require-valid", "-o", str(tmp_path / "strict")]) == 1
    captured = capsys.readouterr()
    assert "FAILED" in captured.out  # the report is shown as without the flag, then the error naming the checks
    error = captured.err.strip().splitlines()[-1]
    assert error.startswith("seed3d generate: error: the asset failed validation (not functional): "
                            "functional.travel: drawer_slide (drawer) moves 1.0 mm")
    assert str(tmp_path / "strict" / "report.json") in error and (tmp_path / "strict" / "report.json").is_file()


def _glb_loaded(check: dict) -> bool:
    """A failed ``glb.load`` whose GLB loaded with a node per part: only its mesh findings (as ``*.meshes``) failed."""
    return check["name"] == "glb.load" and not any(
        s in check["message"] for s in ("not a readable", "no node for parts", "holds no triangle meshes"))


def _check_folder(out: Path, code: int, stages: set[str]) -> dict:
    report = json.loads((out / "report.json").read_text())
    assert code == (0 if report["valid"] else 1)
    failed = [c for c in report["checks"] if c["status"] == "fail"]
    own = [c for c in failed if not c["name"].endswith(CONTENT_CHECKS) and not _glb_loaded(c)]
    assert not own, [(c["name"], c["message"]) for c in failed]
    names = {c["name"] for c in report["checks"]}
    assert {"urdf.load_pybullet", "urdf.rest_pybullet", "mjcf.load_mujoco", "mjcf.rest_mujoco", "usd.parse",
            "kinematics.usd", "glb.load", "asset.meshes"} <= names
    assert report["present"] == ["glb", "urdf", "mjcf", "usd", "usdz"]
    assert stages <= set(report["timings"]) and {"physics", "export", "validate", "preview"} <= set(report["timings"])
    for rel in report["summary"]["files"].values():
        assert (out / rel).is_file(), rel
    assert (out / "preview.png").is_file() and (out / "preview.gif").is_file()
    return report


def test_text_makes_a_validated_asset_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "box"
    code = main(["generate", "--text", "a wooden box 40 cm tall", "--generator", "learned", *FAST, "-o", str(out)])
    report = _check_folder(out, code, {"geometry", "parts", "texture", "articulation"})
    assert report["generator"]["path"] == "learned" and report["generator"]["why"] == "asked for the learned path"
    printed = capsys.readouterr().out
    assert "report" in printed and ("PASSED" in printed or "FAILED" in printed)
    asset = Asset.load(out)
    assert asset.name == "a_wooden_box_40_cm_tall" and asset.metadata["prompt"] == "a wooden box 40 cm tall"
    assert report["summary"]["parts"] == len(asset.parts) and len(asset.joints) == len(asset.parts) - 1
    assert "part_segmenter" in asset.metadata["models"] and "articulation" in asset.metadata
    assert "pbr" in asset.metadata["models"] and asset.metadata["texture"]["prompt"] == "a wooden box 40 cm tall"
    assert all(p.material.base_color_map is not None and p.mesh.uv is not None for p in asset.parts)
    verts = np.concatenate([p.mesh.vertices for p in asset.parts])
    assert np.ptp(verts[:, 2]) == pytest.approx(0.40, rel=0.05) and verts[:, 2].min() == pytest.approx(0, abs=0.01)


def test_text_takes_the_program_path_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cab"
    code = main(["generate", "--text", "an oak cabinet 90 cm tall with two doors and brass handles", "--formats",
                 "urdf", "-o", str(out)])
    assert code == 0
    report = json.loads((out / "report.json").read_text())
    gen = report["generator"]
    assert gen["path"] == "program" and gen["asked"] == "auto" and gen["program"]["category"] == "cabinet"
    assert gen["program"]["params"]["doors"] == 2 and gen["program"]["params"]["body_finish"] == "wood:oak"
    asset = Asset.load(out)
    assert [p.label for p in asset.parts].count("door") == 2
    assert sum(j.type == "revolute" for j in asset.joints) >= 2
    assert asset.metadata["attributes"]["size_m"]["height"] == pytest.approx(0.90, rel=0.021)
    printed = capsys.readouterr().out
    assert "generator: program" in printed and "doors=2" in printed
    assert report["size"]["source"] == "text" and report["size"]["dims"]["height"] == pytest.approx(0.90, rel=0.021)
    assert "size: depth" in printed and "(text: stated in the prompt" in printed
    # the same object with one change
    again = tmp_path / "cab3"
    assert main(["generate", "--text", "an oak cabinet 90 cm tall with two doors and brass handles", "--param",
                 "doors=3", "--formats", "urdf", "-o", str(again)]) == 0
    assert [p.label for p in Asset.load(again).parts].count("door") == 3
    assert main(["generate", "--text", "a teapot", "--generator", "program", "-o", str(tmp_path / "t")]) != 0
    assert not (tmp_path / "t").exists()


def test_image_makes_a_validated_asset_folder(tmp_path: Path) -> None:
    from PIL import Image

    from seed3d.render import get_renderer, orbit_camera
    from seed3d.synth import generate

    cabinet = generate("cabinet", seed=1)
    with get_renderer() as r:
        rgba = r.render_image(cabinet, orbit_camera(cabinet, 30.0, 20.0, 128))
    image = tmp_path / "cabinet.png"
    Image.fromarray((rgba * 255).round().astype(np.uint8), "RGBA").save(image)
    out = tmp_path / "cab"
    code = main(["generate", "--image", str(image), "--category", "cabinet", "--seed", "1", "--generator", "learned",
                 *FAST, "-o", str(out)])
    report = _check_folder(out, code, {"geometry", "parts", "texture", "articulation"})
    assert report["job"]["image"] == str(image) and report["job"]["seed"] == 1
    assert report["size"]["source"] == "category" and "cabinet" in report["size"]["note"]  # --category sizes it
    assert Asset.load(out).name == "cabinet"


@pytest.mark.skipif(os.environ.get("SEED3D_TEST_GENERATE") != "1",
                    reason="opt-in (SEED3D_TEST_GENERATE=1): default settings take minutes on 2 cores")
def test_default_settings_make_an_asset_folder(tmp_path: Path) -> None:
    out = tmp_path / "chair"
    code = main(["generate", "--text", "a wooden chair", "-o", str(out)])
    _check_folder(out, code, {"geometry", "parts", "texture", "articulation"})
