"""A live server (``python -m api`` under uvicorn, in a subprocess): startup, and (on SQLite and on PostgreSQL)
200 concurrent submissions against a small queue limit — each is accepted (202) or refused with 429 +
Retry-After, none is lost, and every accepted job runs to success (two workers, reduced generation options)."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import FAST_GENERATION, wait_for

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path, database_url: str) -> Iterator[tuple[str, Path]]:
    """A live server with two workers and a queue limit of 10 on this run's job store backend."""
    port = _free_port()
    log = tmp_path / "server.log"
    env = dict(os.environ, OMP_NUM_THREADS="1", SEED3D_HOME=str(tmp_path / "home"), PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-m", "api", "--port", str(port), "--data-dir", str(tmp_path / "data"), "--workers", "2",
           "--queue-limit", "10", "--log-level", "warning"]
    if not database_url.startswith("sqlite"):
        cmd += ["--database-url", database_url]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                if httpx.get(f"{url}/healthz", timeout=5).json()["workers_alive"] >= 1:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.3)
        assert f"Seed3D service: http://127.0.0.1:{port}/" in log.read_text()
        yield url, log
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def _burst(url: str, n: int) -> list[httpx.Response]:
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        body = {"text": "a wooden chair", "seed": 1, "stages": [], **FAST_GENERATION}
        return list(await asyncio.gather(*(client.post("/v1/generations", json=body) for _ in range(n))))


def test_200_concurrent_submissions(server: tuple[str, Path]) -> None:
    url, log = server
    responses = asyncio.run(_burst(url, 200))
    codes = [r.status_code for r in responses]
    assert set(codes) <= {202, 429}, sorted(set(codes))
    accepted = [r.json() for r in responses if r.status_code == 202]
    refused = [r for r in responses if r.status_code == 429]
    assert len(accepted) + len(refused) == 200
    assert len(accepted) == 10, "the queue limit is 10 and no job can finish during the burst"
    for r in refused:
        assert r.headers["content-type"].startswith("application/problem+json") and r.json()["code"] == "queue_full"
        assert int(r.headers["retry-after"]) >= 1
    ids = {j["id"] for j in accepted}
    assert len(ids) == 10
    with httpx.Client(base_url=url, timeout=60) as client:
        listed = client.get("/v1/generations", params={"limit": 100}).json()
        assert {j["id"] for j in listed["items"]} == ids and listed["next_cursor"] is None  # none lost, none extra
        final = {i: wait_for(client, i, timeout=900) for i in ids}
    outcome = {i: j["status"] for i, j in final.items()}
    assert all(status == "succeeded" for status in outcome.values()), (outcome, log.read_text()[-3000:])


def test_serve_on_all_addresses_requires_a_key_and_prints_the_first(tmp_path: Path) -> None:
    port = _free_port()
    log = tmp_path / "server.log"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-m", "api", "--host", "0.0.0.0", "--port", str(port), "--data-dir", str(tmp_path / "d"),
           "--workers", "0", "--log-level", "warning"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                health = httpx.get(f"{url}/healthz", timeout=5).json()
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        assert health["api_keys"] is True
        text = log.read_text()
        assert f"Seed3D service: http://0.0.0.0:{port}/" in text
        key = next(line.rsplit(" ", 1)[1] for line in text.splitlines() if line.startswith("API key"))
        assert httpx.get(f"{url}/v1/generations").status_code == 401
        r = httpx.get(f"{url}/v1/generations", headers={"Authorization": f"Bearer {key}"})
        assert r.status_code == 200 and r.json()["items"] == []
        big = httpx.post(f"{url}/v1/uploads", files={"file": ("a.png", b"\0" * (50 << 20), "image/png")},
                         headers={"Authorization": f"Bearer {key}"}, timeout=120)
        assert big.status_code == 413 and big.json()["code"] == "body_too_large"
    finally:
        proc.terminate()
        proc.wait(timeout=60)
