"""Suite-wide fixtures: keep caches (e.g. collision hulls) out of the user's home; record what ``seed3d train``
would train with."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _isolated_seed3d_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point $SEED3D_HOME at a per-test temporary folder (so the default cache dir is there)."""
    monkeypatch.setenv("SEED3D_HOME", str(tmp_path_factory.mktemp("seed3d_home")))


@pytest.fixture
def fake_trainer(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Callable[[str, str], list[Any]]:
    """``install(module, function)`` replaces a ``seed3d train`` entry point by a recorder and returns the list
    that receives the config of every call (so CLI tests check the options without training)."""

    def install(module: str, function: str) -> list[Any]:
        seen: list[Any] = []

        def fake(data: object, out: object, config: Any, progress: object = None) -> Path:
            seen.append(config)
            return tmp_path

        monkeypatch.setattr(importlib.import_module(module), function, fake)
        return seen

    return install
