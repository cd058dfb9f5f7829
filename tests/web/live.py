"""A live Seed3D service for client tests (web page, Blender add-on): the real ``api`` app in a subprocess
(``api.create_app`` under uvicorn), plus ways to put an articulated result or a finished scene in its job store.

The pipeline does not articulate yet, so an articulated job comes from ``publish_synth_job``: a procedural
object (``seed3d synth``, real parts and joints) exported and published through the service's own job store and
``api.artifacts.publish_generation``, exactly as a worker finishes a generation. Use it only with a service
started with ``workers=0`` (no worker can then race the test for the job).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

#: Options that make a real text-to-3D job quick on a CPU (the service's defaults take minutes).
FAST_OPTIONS: dict[str, Any] = {"steps": 2, "resolution": 64, "target_faces": 2000, "texture_size": 64}


# The real app (api.create_app) under uvicorn, as `seed3d serve` runs it.
_SERVE = """
import sys
from pathlib import Path
import uvicorn
from api import Settings, create_app
data_dir, port, workers, keys = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "keys"
settings = Settings(data_dir=data_dir, host="127.0.0.1", port=port, workers=workers, api_keys=keys)
uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
"""


@dataclass
class LiveService:
    """A running service: its base URL, data folder and log file."""

    url: str
    data_dir: Path
    log: Path

    def get(self, path: str) -> Any:
        """GET a JSON path of the service."""
        with urllib.request.urlopen(self.url + path, timeout=30) as resp:
            return json.loads(resp.read())

    def get_with_key(self, path: str, key: str) -> Any:
        """GET a JSON path with an API key."""
        req = urllib.request.Request(self.url + path, headers={"Authorization": f"Bearer {key}"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """POST JSON to the service."""
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())

    def wait(self, job_id: str, timeout: float = 900.0) -> dict[str, Any]:
        """Poll a job until it ends (the deadline only guards against a hung service)."""
        deadline = time.monotonic() + timeout
        while True:
            job = self.get(f"/v1/generations/{job_id}")
            if job["status"] in ("succeeded", "failed", "canceled"):
                return job
            if time.monotonic() > deadline:
                raise AssertionError(f"job {job_id} still {job['status']} after {timeout:g} s; log: {self.tail()}")
            time.sleep(0.5)

    def tail(self, lines: int = 40) -> str:
        """The end of the service's log."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def live_service(data_dir: Path, workers: int = 1, api_keys: bool = False, startup_s: float = 180.0
                 ) -> Iterator[LiveService]:
    """Run the service on a free loopback port with its data in ``data_dir`` (API keys required when
    ``api_keys``); stop it afterwards."""
    data_dir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log = data_dir / "service.log"
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", SEED3D_HOME=str(data_dir / "home"),
               PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-c", _SERVE, str(data_dir), str(port), str(workers), "keys" if api_keys else "open"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
    service = LiveService(f"http://127.0.0.1:{port}", data_dir, log)
    try:
        deadline = time.monotonic() + startup_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the service exited with {proc.returncode}: {service.tail()}")
            try:
                health = service.get("/healthz")
                if workers == 0 or health.get("workers_alive", 0) >= workers:
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the service did not come up in {startup_s:g} s: {service.tail()}")
            time.sleep(0.3)
        yield service
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


def make_key(service: LiveService) -> str:
    """A new API key of ``service`` (its owner id is the key's second field)."""
    from api.keys import create_key
    from api.settings import Settings
    from api.store import JobStore

    store = JobStore(Settings(data_dir=service.data_dir).db_url, create=False)
    try:
        return create_key(store, "tests")
    finally:
        store.close()


def publish_synth_job(service: LiveService, category: str = "cabinet", seed: int = 0, key: str | None = None
                      ) -> str:
    """Put a finished generation of a procedural ``category`` object (real parts and joints, every export) into
    ``service``'s job store, owned by ``key`` (or the local owner), published by
    ``api.artifacts.publish_generation``, its result saying a program made it (every parameter the build read);
    returns the job id."""
    from api.artifacts import publish_generation
    from api.keys import LOCAL_OWNER
    from api.settings import Settings
    from api.store import JobStore

    settings = Settings(data_dir=service.data_dir)
    store = JobStore(settings.db_url, create=False)
    try:
        owner = key.split("_")[1] if key else LOCAL_OWNER
        row, _ = store.create(owner=owner, kind="generation", max_attempts=1, queue_limit=10**6,
                              options={"text": f"a {category}", "seed": seed, "stages": ["parts", "articulation"],
                                       "formats": ["glb", "urdf", "mjcf", "usd"]})
        claim = store.claim("tests-synth-worker", lease_s=600.0)
        assert claim is not None and claim.job["id"] == row["id"], "another worker took the job (use workers=0)"
        job_dir = settings.jobs_dir / row["id"]
        run_dir, pub_dir = job_dir / "run-1", job_dir / "files-1"
        name = f"{category}_{seed}"
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "seed3d.cli", "synth", category, "--seed", str(seed), "-o",
                        str(run_dir / "asset")], check=True, cwd=ROOT, capture_output=True,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
        files = {"asset": "asset", "glb": f"asset/{name}.glb", "urdf": f"asset/urdf/{name}.urdf",
                 "mjcf": f"asset/mjcf/{name}.xml", "usd": f"asset/usd/{name}.usda", "usdz": f"asset/usd/{name}.usdz"}
        summary = {"name": name, "files": files}
        published = publish_generation(run_dir, summary, pub_dir)
        params = json.loads((run_dir / "asset" / "asset.json").read_text())["metadata"]["params"]
        generator = {"path": "program", "asked": "program", "why": f"seed3d synth {category} --seed {seed}",
                     "program": {"category": category, "params": params, "given": [], "confidence": 1.0,
                                 "how": "exact", "noun": category, "size": {}, "placed": [], "unplaced": [],
                                 "notes": []}}
        ok = store.finish(row["id"], "tests-synth-worker", claim.attempt, "succeeded", files=published,
                          files_dir=pub_dir.name, timings={"synth": round(time.monotonic() - started, 2)},
                          summary={"name": name, "generator": generator})
        assert ok, "the synth job lost its lease"
        return str(row["id"])
    finally:
        store.close()


def publish_result_job(service: LiveService, summary: dict[str, Any], status: str = "succeeded",
                       error: tuple[str, str] | None = None, text: str = "a cabinet with a drawer") -> str:
    """Put a finished generation with ``summary`` as its result (no files) into ``service``'s job store, ended
    ``status`` with ``error`` (code, detail) when given, as a worker ends one; returns the job id. Use it only with a
    service started with ``workers=0``."""
    from api.keys import LOCAL_OWNER
    from api.settings import Settings
    from api.store import JobStore

    store = JobStore(Settings(data_dir=service.data_dir).db_url, create=False)
    try:
        row, _ = store.create(owner=LOCAL_OWNER, kind="generation", max_attempts=1, queue_limit=10**6,
                              options={"text": text, "seed": 0, "stages": [], "formats": ["urdf"]})
        claim = store.claim("tests-result-worker", lease_s=600.0)
        assert claim is not None and claim.job["id"] == row["id"], "another worker took the job (use workers=0)"
        code, detail = error if error else (None, None)
        assert store.finish(row["id"], "tests-result-worker", claim.attempt, status, files=[], timings={},
                            summary=summary, error_code=code, error_detail=detail)
        return str(row["id"])
    finally:
        store.close()


def publish_scene_job(service: LiveService, summary: dict[str, Any], text: str = "a bedroom with a bed",
                      seed: int = 0, room_size: list[float] | None = None) -> str:
    """Put a finished scene job with ``summary`` as its result (``objects``, ``unmet``, ``collision_free``,
    ``omissions``, as ``api.worker`` stores a scene's) into ``service``'s job store, its files (urdf.zip, mjcf.zip,
    preview.png, report.json) published by ``api.artifacts.publish_scene`` from a small stand-in scene folder, as a
    worker finishes one; returns the job id. Use it only with a service started with ``workers=0``."""
    from PIL import Image

    from api.artifacts import publish_scene
    from api.keys import LOCAL_OWNER
    from api.settings import Settings
    from api.store import JobStore

    settings = Settings(data_dir=service.data_dir)
    store = JobStore(settings.db_url, create=False)
    try:
        row, _ = store.create(owner=LOCAL_OWNER, kind="scene", max_attempts=1, queue_limit=10**6,
                              options={"text": text, "seed": seed, "room_size": room_size})
        claim = store.claim("tests-scene-worker", lease_s=600.0)
        assert claim is not None and claim.job["id"] == row["id"], "another worker took the job (use workers=0)"
        job_dir = settings.jobs_dir / row["id"]
        run_dir, pub_dir = job_dir / "run-1", job_dir / "files-1"
        (run_dir / "urdf").mkdir(parents=True)
        (run_dir / "mjcf").mkdir()
        (run_dir / "urdf" / "scene.urdf").write_text('<robot name="scene"><link name="room"/></robot>\n')
        (run_dir / "mjcf" / "scene.xml").write_text('<mujoco model="scene"><worldbody/></mujoco>\n')
        Image.new("RGB", (96, 64), (200, 120, 40)).save(run_dir / "overview.png")
        (run_dir / "report.json").write_text(json.dumps({"folder": str(run_dir), **summary}, indent=2) + "\n")
        paths = {"urdf": run_dir / "urdf" / "scene.urdf", "mjcf": run_dir / "mjcf" / "scene.xml",
                 "overview": run_dir / "overview.png", "report": run_dir / "report.json"}
        files = publish_scene(paths, pub_dir, (str(run_dir),))
        assert store.finish(row["id"], "tests-scene-worker", claim.attempt, "succeeded", files=files,
                            files_dir=pub_dir.name, timings={"scene": 0.1}, summary=summary)
        return str(row["id"])
    finally:
        store.close()
