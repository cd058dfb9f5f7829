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


def test_scene_says_what_it_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A noun Seed3D cannot build stops the command (exit 1, nothing written) unless --allow-missing; either way
    every object left out or built as a stand-in is printed with the reason."""
    import functools

    import seed3d.scene.compose as compose

    out = tmp_path / "bedroom"
    assert main(["scene", "a bedroom with a piano, a nightstand with a lamp and a wardrobe", "-o", str(out)]) == 1
    printed = capsys.readouterr()
    assert "left out     piano: not an object Seed3D can build" in printed.out
    assert "--allow-missing" in printed.err and not out.exists()
    # the scene without physics settle, render and checks: what is printed is under test here
    monkeypatch.setattr(compose, "ComposeConfig", functools.partial(
        compose.ComposeConfig, settle=False, render=False, checks=False, formats=("urdf",)))
    assert main(["scene", "a bedroom with a piano, a medicine cabinet and a nightstand with a lamp",
                 "--allow-missing", "-o", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("left out     piano: not an object Seed3D can build") for line in lines), lines
    assert any(line.startswith("substituted  medicine cabinet → cabinet: ") for line in lines), lines
    assert (out / "urdf" / "scene.urdf").is_file()
    report = json.loads((out / "report.json").read_text())
    assert [o["noun"] for o in report["omissions"]] == ["piano", "medicine cabinet"]
    # an object the layout cannot place (taller than the room): the same, and what stands on it goes with it
    low = ["scene", "a bookshelf with a vase on it and a chair", "--room-size", "3x3x1.5", "-o", str(tmp_path / "low")]
    assert main(low) == 1
    printed = capsys.readouterr()
    assert "left out     bookshelf: " in printed.out, printed.out
    assert "--allow-missing" in printed.err and not (tmp_path / "low").exists()
    assert main([*low, "--allow-missing"]) == 0
    out_lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("left out     bookshelf: ") and "taller than the 1.50 m room" in line
               for line in out_lines), out_lines
    assert "left out     vase: stood on bookshelf, which was left out" in out_lines
