"""Fixtures of the service tests: settings in a temporary data folder, API-only clients, small images,
and helpers that wait for jobs."""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from PIL import Image

from api import Settings, create_app

#: Options of a cheap generation job (the shipped weights, reduced work): about 20 s on 2 CPU cores.
FAST_GENERATION: dict[str, Any] = {"steps": 2, "resolution": 64, "target_faces": 2000, "formats": ["glb"]}


def png_bytes(width: int = 64, height: int = 64, mode: str = "RGBA") -> bytes:
    """A small PNG: a red square on a transparent (or white) background."""
    arr = np.zeros((height, width, 4), np.uint8)
    if mode != "RGBA":
        arr[...] = 255
    arr[height // 4:3 * height // 4, width // 4:3 * width // 4] = (200, 30, 30, 255)
    buf = io.BytesIO()
    Image.fromarray(arr, "RGBA").convert(mode).save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture
def make_settings(tmp_path: Path) -> Callable[..., Settings]:
    """Settings in this test's temporary data folder (API only unless ``workers`` is given)."""
    def make(**kw: Any) -> Settings:
        kw.setdefault("data_dir", tmp_path / "data")
        kw.setdefault("workers", 0)
        return Settings(**kw)

    return make


@pytest.fixture
def client(make_settings: Callable[..., Settings]) -> Iterator[TestClient]:
    """A client of an API-only app (no workers: jobs stay queued), API keys off."""
    with TestClient(create_app(make_settings())) as c:
        yield c


def wait_for(client: Any, job_id: str, statuses: tuple[str, ...] = ("succeeded", "failed", "canceled"),
             timeout: float = 300.0, headers: dict[str, str] | None = None,
             until: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
    """Poll a job until its status is in ``statuses`` (or ``until(job)`` holds); fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    job: dict[str, Any] = {}
    while time.monotonic() < deadline:
        r = client.get(f"/v1/generations/{job_id}", headers=headers or {})
        assert r.status_code == 200, r.text
        job = r.json()
        if (until is not None and until(job)) or (until is None and job["status"] in statuses):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not reach {statuses} within {timeout} s; last: {job}")
