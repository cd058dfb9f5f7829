"""Every category, at several seeds, exports to every format and passes the physics validator."""

from __future__ import annotations

from pathlib import Path

import pytest

from seed3d.export import export_asset
from seed3d.physics import prepare
from seed3d.physics.validate import validate_path
from seed3d.synth import BASE_CATEGORIES, generate, list_categories

SEEDS = (0, 1)
#: The base categories at both seeds, the later ones at the first (their builders were validated over more seeds
#: when they were added; keeps the suite within its time).
CASES = [(c, s) for c in list_categories() for s in (SEEDS if c in BASE_CATEGORIES else SEEDS[:1])]


@pytest.mark.slow
@pytest.mark.parametrize(("category", "seed"), CASES)
def test_category_validates_in_every_format(tmp_path: Path, category: str, seed: int) -> None:
    asset = prepare(generate(category, seed))
    out = asset.save(tmp_path / asset.name)
    written = export_asset(asset, out)
    assert set(written) >= {"glb", "urdf", "mjcf", "usd", "usdz"}
    report = validate_path(out)
    assert report.absent == []
    assert {"urdf.sweep", "urdf.drive", "mjcf.sweep", "urdf.rest_pybullet", "kinematics.usd"} <= {
        c.name for c in report.checks}
    failed = [f"{c.name}: {c.message}" for c in report.checks if not c.passed and c.status == "fail"]
    assert report.passed, failed
