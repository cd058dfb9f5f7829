"""Suite-wide fixtures: keep caches (e.g. collision hulls) out of the user's home."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_seed3d_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point $SEED3D_HOME at a per-test temporary folder (so the default cache dir is there)."""
    monkeypatch.setenv("SEED3D_HOME", str(tmp_path_factory.mktemp("seed3d_home")))
