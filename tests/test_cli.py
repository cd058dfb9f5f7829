"""The ``seed3d`` command end to end: export, validate, synth, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from seed3d import __version__
from seed3d.cli import main
from seed3d.synth.primitives import demo_cabinet


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed console command as a user would."""
    return subprocess.run([sys.executable, "-m", "seed3d.cli", *args], capture_output=True, text=True, timeout=300)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert __version__ in capsys.readouterr().out


def test_export_then_validate_in_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = demo_cabinet().save(tmp_path / "cab")
    assert main(["export", str(folder)]) == 0
    for rel in ("demo_cabinet.glb", "urdf/demo_cabinet.urdf", "mjcf/demo_cabinet.xml", "usd/demo_cabinet.usda",
                "usd/demo_cabinet.usdz", "collision/body.npz"):
        assert (folder / rel).is_file(), rel
    capsys.readouterr()
    assert main(["validate", str(folder), "--json", "--report", str(tmp_path / "r.json")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == json.loads((tmp_path / "r.json").read_text())
    names = {c["name"] for c in doc["checks"]}
    assert {"urdf.sweep", "mjcf.rest_mujoco", "usd.parse", "kinematics.usd", "asset.inertials"} <= names


def test_validate_failure_exit_code_and_summary(tmp_path: Path) -> None:
    urdf = tmp_path / "broken.urdf"
    urdf.write_text("<robot name='x'><link name='a'>")  # truncated XML
    proc = run("validate", str(urdf))
    assert proc.returncode == 1
    assert "FAIL" in proc.stdout and "broken.urdf" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_errors_are_one_line(tmp_path: Path) -> None:
    proc = run("export", str(tmp_path / "missing"))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith("seed3d export: error:")
    assert "Traceback" not in proc.stderr
    proc = run("export", str(tmp_path), "--formats", "stl")
    assert proc.returncode == 2 and "unknown format" in proc.stderr
    proc = run("synth", "spaceship", "-o", str(tmp_path / "s"))
    assert proc.returncode == 2 and "unknown category" in proc.stderr and "cabinet" in proc.stderr
    proc = run("synth", "box", "--seed", "-3", "-o", str(tmp_path / "s"))
    assert proc.returncode == 2 and "seed" in proc.stderr
    assert not (tmp_path / "s").exists()


def test_synth_list_and_one_asset(tmp_path: Path) -> None:
    proc = run("synth", "--list")
    assert proc.returncode == 0
    lines = proc.stdout.strip().splitlines()
    assert len(lines) >= 25 and lines[0].startswith("cabinet") and "[" in lines[0]
    out = tmp_path / "mug"
    proc = run("synth", "mug", "--seed", "2", "-o", str(out), "--formats", "urdf,glb")
    assert proc.returncode == 0, proc.stderr
    assert (out / "asset.json").is_file() and list((out / "urdf").glob("*.urdf"))
    assert not list((out).glob("mjcf"))
    proc = run("synth", "mug", "--seed", "2", "-o", str(out))
    assert proc.returncode == 2 and "exists" in proc.stderr


def test_scene_command_builds_and_refuses_impossible_rooms(tmp_path: Path) -> None:
    out = tmp_path / "kitchen"
    proc = run("scene", "a kitchen with a fridge against the wall and a table", "--seed", "1", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (out / "scene.json").is_file() and (out / "urdf" / "scene.urdf").is_file()
    proc = run("scene", "thirty fridges", "--room-size", "2x2", "-o", str(tmp_path / "no"))
    assert proc.returncode == 2 and "do not fit" in proc.stderr
    assert not (tmp_path / "no").exists()
    proc = run("scene", "a table", "--room-size", "4by3", "-o", str(tmp_path / "bad"))
    assert proc.returncode == 2 and "room size" in proc.stderr
