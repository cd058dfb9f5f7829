"""``seed3d articulate`` and ``seed3d train part-seg`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from seed3d.asset import Asset
from seed3d.cli import main
from seed3d.export.meshio import read_mesh
from seed3d.parts.shell import merged_shell
from seed3d.synth import generate


def test_bad_inputs_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["articulate", str(tmp_path / "missing.obj"), "-o", str(tmp_path / "o")]) == 2
    assert "no such mesh file" in capsys.readouterr().err
    (tmp_path / "notes.txt").write_text("hello")
    assert main(["articulate", str(tmp_path / "notes.txt"), "-o", str(tmp_path / "o")]) == 2
    assert "unsupported mesh type .txt" in capsys.readouterr().err
    (tmp_path / "broken.obj").write_text("v 0 0 0\nf 1 2 3\n")
    assert main(["articulate", str(tmp_path / "broken.obj"), "-o", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    (tmp_path / "o").mkdir()
    assert main(["articulate", str(tmp_path / "broken.obj"), "-o", str(tmp_path / "o")]) == 2
    assert "exists" in capsys.readouterr().err
    assert not any((tmp_path / "o").iterdir())  # nothing half-written
    for bad in ("-1", "soon", "inf"):
        with pytest.raises(SystemExit) as stop:
            main(["articulate", str(tmp_path / "broken.obj"), "-o", str(tmp_path / "o2"), "--time-budget", bad])
        assert stop.value.code == 2 and "--time-budget" in capsys.readouterr().err


def test_read_mesh_turns_gltf_to_z_up(tmp_path: Path) -> None:
    import trimesh

    tm = trimesh.creation.box(extents=(1.0, 2.0, 3.0))  # x 1, y 2, z 3 in the file's own axes
    tm.export(tmp_path / "b.glb")
    tm.export(tmp_path / "b.ply")
    glb, ply = read_mesh(tmp_path / "b.glb"), read_mesh(tmp_path / "b.ply")
    assert np.allclose(np.ptp(ply.vertices, axis=0), (1, 2, 3))
    assert np.allclose(np.ptp(glb.vertices, axis=0), (3, 1, 2))  # glTF +Y up -> +Z up, glTF +Z front -> +X


def test_articulate_reads_the_up_axis_reports_it_and_takes_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    import torch
    import trimesh

    from seed3d.parts.model import PartSegmenter
    from tests.parts.test_segment import TINY_MODEL

    torch.manual_seed(0)
    seg = PartSegmenter(TINY_MODEL).save_pretrained(tmp_path / "seg")  # tiny and random: the orientation is the test
    box = trimesh.creation.box(extents=(0.5, 0.9, 0.45))  # written +Y up: 0.9 m tall, 0.45 m deep
    box.apply_translation((0.0, 0.45, 0.0))
    box.export(tmp_path / "box.obj")
    out = tmp_path / "out"
    args = ["articulate", str(tmp_path / "box.obj"), "-o", str(out), "--formats", "urdf", "--weights", str(seg)]
    assert main(args) in (0, 1)
    printed = capsys.readouterr().out
    assert "up: file +y axis (support): ambiguous" in printed and "usual up axis of OBJ files" in printed
    report = json.loads((out / "report.json").read_text())
    assert report["orientation"]["up"] == "+y" and len(report["orientation"]["supports"]) == 6
    asset = Asset.load(out)
    assert asset.metadata["orientation"]["up"] == "+y"
    assert np.isclose(np.ptp(asset.bounds(), axis=0)[2], 0.9, atol=1e-3)  # standing, not on its back
    assert main([*args, "--overwrite", "--up=+z"]) in (0, 1)
    assert "up: file +z axis (given)" in capsys.readouterr().out
    assert json.loads((out / "report.json").read_text())["orientation"]["source"] == "given"
    assert np.isclose(np.ptp(Asset.load(out).bounds(), axis=0)[2], 0.45, atol=1e-3)
    assert main(["articulate", str(out), "-o", str(tmp_path / "o2"), "--up", "+y"]) == 2  # an asset folder: +Z up
    assert "--up applies to mesh files" in capsys.readouterr().err


@pytest.mark.slow
def test_articulate_an_asset_folder_keeps_its_parts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    truth = generate("nightstand", 0)
    src = truth.save(tmp_path / "src")
    code = main(["articulate", str(src), "-o", str(tmp_path / "out"), "--formats", "urdf,mjcf"])
    out = capsys.readouterr().out
    pred = Asset.load(tmp_path / "out")
    assert [p.name for p in pred.parts] == [p.name for p in truth.parts]
    assert code == 0, out  # validated: loads, rests, sweeps without penetration
    drawers = [j for j in pred.joints if pred.part(j.child).label == "drawer"]
    assert drawers and all(j.type == "prismatic" and j.unit_axis[0] > 0.99 for j in drawers)
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["passed"] and (tmp_path / "out" / "urdf" / f"{truth.name}.urdf").is_file()
    # the default --time-budget of 120 s leaves a few parts the physics default of 60 s for their hulls
    assert pred.metadata["articulation"]["collision_budget"] == 60.0


@pytest.mark.slow
def test_articulate_a_mesh_file_with_the_shipped_segmenter(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    import trimesh

    truth = generate("box", 1)  # a category the shipped segmenter cuts well (see eval/results/parts.json)
    shell, _ = merged_shell(truth)
    trimesh.Trimesh(shell.vertices, shell.faces).export(tmp_path / "box.obj")
    code = main(["articulate", str(tmp_path / "box.obj"), "-o", str(tmp_path / "out"), "--formats", "urdf"])
    out = capsys.readouterr().out
    pred = Asset.load(tmp_path / "out")
    assert pred.joints_known and len(pred.parts) >= 2, out
    lids = [j for j in pred.joints if pred.part(j.child).label == "lid"]
    assert lids and all(j.movable for j in lids), out  # the lid was cut and opens
    assert (tmp_path / "out" / "report.json").is_file()
    assert code in (0, 1)
