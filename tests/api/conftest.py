"""Fixtures of the service tests: the job store's backends (SQLite, and PostgreSQL in a throwaway cluster),
settings in a temporary data folder, API-only clients, small images, and helpers that wait for jobs.

Tests that take ``backend``, ``database_url``, ``make_settings`` or ``client`` run once per backend. The
PostgreSQL runs are skipped only when no cluster can be started here, with the reason in the skip and a warning.
"""

from __future__ import annotations

import io
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from PIL import Image

from api import Settings, create_app
from tests.api.postgres import ClusterUnavailable, PostgresCluster

#: The job store backends every store and service test runs on.
BACKENDS: tuple[str, ...] = ("sqlite", "postgresql")

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


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster | str]:
    """A PostgreSQL cluster for the whole session, started on first use; the reason (a str) when none starts."""
    cluster = PostgresCluster()
    try:
        cluster.start()
    except ClusterUnavailable as exc:
        reason = f"PostgreSQL backend NOT TESTED: {exc}"
        warnings.warn(reason, pytest.PytestWarning, stacklevel=1)
        yield reason
        return
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The job store backend of this run of the test: "sqlite" or "postgresql"."""
    return str(request.param)


@pytest.fixture
def database_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh, empty job store URL on ``backend``: SQLite's default file in the data folder ``make_settings``
    uses, or a database of its own in the session's PostgreSQL cluster (dropped after the test)."""
    if backend == "sqlite":
        (tmp_path / "data").mkdir(exist_ok=True)
        yield f"sqlite:///{tmp_path / 'data' / 'seed3d.db'}"
        return
    cluster = request.getfixturevalue("postgres_cluster")
    if isinstance(cluster, str):
        pytest.skip(cluster)
    url = cluster.new_database()
    yield url
    cluster.drop_database(url)


@pytest.fixture
def make_settings(tmp_path: Path, database_url: str) -> Callable[..., Settings]:
    """Settings in this test's temporary data folder on this run's job store backend (API only unless
    ``workers`` is given)."""
    def make(**kw: Any) -> Settings:
        kw.setdefault("data_dir", tmp_path / "data")
        kw.setdefault("workers", 0)
        if not database_url.startswith("sqlite"):
            kw.setdefault("database_url", database_url)
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
