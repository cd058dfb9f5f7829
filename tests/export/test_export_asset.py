"""``export_asset``: layout, format checks, physics preparation and failure behaviour."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import mujoco
import pytest

import seed3d.export as export_pkg
import seed3d.physics
from seed3d.asset import EXPORT_LAYOUT, Asset
from seed3d.errors import ExportError, InvalidInputError
from seed3d.export import FORMATS, export_asset
from seed3d.synth.primitives import demo_cabinet
from tests.export._helpers import fill_physics, ready_cabinet


def test_formats_constant() -> None:
    assert FORMATS == ("glb", "urdf", "mjcf", "usd")


def test_writes_each_format_at_the_layout_path(tmp_path: Path) -> None:
    pytest.importorskip("pxr")
    asset = ready_cabinet()
    out = export_asset(asset, tmp_path)
    for fmt in FORMATS:
        assert out[fmt] == tmp_path / EXPORT_LAYOUT[fmt].format(name=asset.name)
        assert out[fmt].is_file()
    assert out.get("usdz") in (None, tmp_path / "usd" / "demo_cabinet.usdz")
    model = mujoco.MjModel.from_xml_path(str(out["mjcf"]))
    assert model.nbody == len(asset.parts) + 1
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]


def test_subset_and_single_name(tmp_path: Path) -> None:
    out = export_asset(ready_cabinet(), tmp_path, formats="urdf")
    assert list(out) == ["urdf"] and sorted(p.name for p in tmp_path.iterdir()) == ["urdf"]
    out = export_asset(ready_cabinet(), tmp_path, formats=["mjcf", "glb", "glb"])
    assert list(out) == ["glb", "mjcf"]


@pytest.mark.parametrize("formats", [("glb", "fbx"), "obj", ()])
def test_unknown_or_no_format_is_a_clear_error(formats, tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="glb, urdf, mjcf, usd"):
        export_asset(ready_cabinet(), tmp_path / "x", formats=formats)
    assert not (tmp_path / "x").exists()


def test_prepares_physics_only_when_needed(tmp_path: Path, monkeypatch) -> None:
    calls: list[tuple[str, object]] = []

    def fake_prepare(asset: Asset, config=None, force=False, progress=None) -> Asset:
        calls.append((asset.name, config))
        return fill_physics(asset)

    monkeypatch.setattr(seed3d.physics, "prepare", fake_prepare, raising=False)
    raw = demo_cabinet()
    export_asset(raw, tmp_path / "a", formats=("glb",))
    assert calls == []  # GLB needs no physics
    marker = object()
    out = export_asset(raw, tmp_path / "b", formats=("urdf",), physics=marker)
    assert calls == [("demo_cabinet", marker)]
    assert out["urdf"].is_file()
    assert all(not p.collision and p.inertial is None for p in raw.parts)  # the caller's asset is untouched
    export_asset(ready_cabinet(), tmp_path / "c", formats=("urdf", "mjcf"))
    assert len(calls) == 1  # already sim-ready: no second preparation


def test_real_prepare_makes_a_raw_asset_exportable(tmp_path: Path) -> None:
    if not hasattr(seed3d.physics, "prepare"):
        pytest.skip("seed3d.physics.prepare is not built yet")
    out = export_asset(demo_cabinet(), tmp_path, formats=("urdf", "mjcf"))
    model = mujoco.MjModel.from_xml_path(str(out["mjcf"]))
    assert model.body("door").mass[0] > 0


def test_a_failing_format_names_itself_and_what_was_written(tmp_path: Path, monkeypatch) -> None:
    def broken(asset: Asset, folder) -> Path:
        raise ExportError("MJCF export of 'demo_cabinet': simulated failure")

    monkeypatch.setattr(export_pkg, "export_mjcf", broken)
    with pytest.raises(ExportError, match=r"simulated failure.*already written.*demo_cabinet\.urdf"):
        export_asset(ready_cabinet(), tmp_path, formats=("glb", "urdf", "mjcf"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo_cabinet.glb", "urdf"]


def test_usd_is_imported_only_when_asked() -> None:
    code = ("import sys, tempfile; import seed3d.export as e; from seed3d.synth.primitives import demo_cabinet; "
            "e.export_asset(demo_cabinet(), tempfile.mkdtemp(), formats=('glb',)); "
            "print('seed3d.export.usd' in sys.modules, 'pxr' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]
