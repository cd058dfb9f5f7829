"""Service settings: one dataclass, resolved once, passed to the app, the workers and the executors.

The data folder is ``--data-dir``, else ``$SEED3D_HOME``, else ``~/.seed3d``; the job database is a SQLite file
in it (WAL journal) unless ``database_url`` names another database (``postgresql+psycopg://...``). API keys are
required unless the server listens on a loopback address only (``api_keys=None`` resolves that way).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from seed3d.errors import InvalidInputError

#: Hosts that count as "bound to localhost": API keys are off by default there.
LOOPBACK_HOSTS: frozenset[str] = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
#: Executors the service can run jobs on.
EXECUTORS: tuple[str, ...] = ("local", "ray")


def default_data_dir() -> Path:
    """``$SEED3D_HOME`` when set, else ``~/.seed3d``."""
    home = os.environ.get("SEED3D_HOME")
    return Path(home).expanduser() if home else Path.home() / ".seed3d"


@dataclass
class Settings:
    """Everything the service and its workers need to know; JSON-serialisable (``to_json``/``from_json``)."""

    data_dir: Path = field(default_factory=default_data_dir)
    """Folder of the job database (SQLite), uploads and job files."""
    database_url: str | None = None
    """SQLAlchemy URL of the job store (default: SQLite WAL file ``seed3d.db`` in ``data_dir``)."""
    weights: Path | None = None
    """Weights folder with pipeline.json (default: the shipped weights, see ``seed3d.pipeline.weights_root``)."""
    host: str = "127.0.0.1"
    """Address the HTTP server listens on."""
    port: int = 8000
    """Port the HTTP server listens on."""
    api_keys: bool | None = None
    """Require ``Authorization: Bearer <key>``; None: required unless ``host`` is a loopback address."""
    workers: int = 1
    """Worker processes (local executor) or actors (Ray) that run jobs; 0 runs none (API only)."""
    executor: str = "local"
    """Where workers run: "local" (child processes) or "ray" (actors on a Ray cluster)."""
    ray_address: str | None = None
    """Ray cluster address (None: start or join a local Ray instance)."""
    gpus_per_worker: float = 0.0
    """GPUs each Ray worker asks for (> 0 also runs the pipeline on cuda)."""
    cpus_per_worker: float = 1.0
    """CPUs each Ray worker asks for."""
    device: str | None = None
    """Device of the pipeline in the workers (None: cuda when GPUs are requested, else cpu)."""
    queue_limit: int = 100
    """Most jobs queued or running at once; more are refused with 429."""
    retention_s: float = 7 * 24 * 3600.0
    """Seconds a finished job's files are kept (the job row stays, marked expired)."""
    upload_ttl_s: float = 3600.0
    """Seconds an upload token stays usable."""
    sweep_interval_s: float = 300.0
    """Seconds between retention sweeps."""
    lease_s: float = 60.0
    """A claimed job's lease; a worker that stops heartbeating loses the job after this long."""
    heartbeat_s: float = 5.0
    """Seconds between a worker's heartbeats (renewing its lease, reading cancel requests)."""
    max_attempts: int = 3
    """Attempts per job when workers die mid-job; then the job fails with code worker_lost."""
    poll_s: float = 0.5
    """Seconds an idle worker waits before looking for a job again."""
    max_body_bytes: int = 24 * 1024 * 1024
    """Largest request body; larger ones get 413."""
    max_image_bytes: int = 16 * 1024 * 1024
    """Largest encoded image (upload, data URI or multipart part)."""
    max_image_pixels: int = 4096 * 4096
    """Largest decoded image (width x height); decompression bombs stop here, before decoding."""
    max_image_side: int = 8192
    """Longest image side in pixels (checked from the header at submit, like the pixel count)."""
    min_image_side: int = 16
    """Shortest image side in pixels: a smaller image holds no object the pipeline can see."""
    max_image_aspect: float = 8.0
    """Largest ratio of an image's longer side to its shorter one (an object photo, not a strip)."""
    max_text_chars: int = 2000
    """Longest prompt."""
    max_steps: int = 100
    """Largest ``steps`` a request may ask for."""
    max_resolution: int = 512
    """Largest extraction ``resolution`` a request may ask for."""
    shutdown_grace_s: float = 20.0
    """Seconds workers get to stop at a stage boundary on shutdown before they are killed."""

    def __post_init__(self) -> None:
        self.data_dir = Path(self.data_dir).expanduser()
        if self.weights is not None:
            self.weights = Path(self.weights).expanduser()
        if self.executor not in EXECUTORS:
            raise InvalidInputError(f"executor must be one of {', '.join(EXECUTORS)}, got {self.executor!r}")
        if self.workers < 0:
            raise InvalidInputError(f"workers must be >= 0, got {self.workers}")
        if self.queue_limit < 1:
            raise InvalidInputError(f"queue_limit must be >= 1, got {self.queue_limit}")
        if self.max_attempts < 1:
            raise InvalidInputError(f"max_attempts must be >= 1, got {self.max_attempts}")
        if not 0 < self.heartbeat_s < self.lease_s:
            raise InvalidInputError(f"heartbeat_s ({self.heartbeat_s}) must be positive and shorter than lease_s "
                                    f"({self.lease_s})")
        if not 1 <= self.min_image_side <= self.max_image_side or self.max_image_aspect < 1:
            raise InvalidInputError(f"image limits: need 1 <= min_image_side ({self.min_image_side}) <= "
                                    f"max_image_side ({self.max_image_side}) and max_image_aspect "
                                    f"({self.max_image_aspect}) >= 1")
        if self.device not in (None, "cpu", "cuda"):
            raise InvalidInputError(f"device must be cpu or cuda, got {self.device!r}")

    @property
    def keys_enabled(self) -> bool:
        """Whether requests need an API key (see ``api_keys``)."""
        return self.api_keys if self.api_keys is not None else self.host not in LOOPBACK_HOSTS

    @property
    def db_url(self) -> str:
        """The job store's SQLAlchemy URL."""
        return self.database_url or f"sqlite:///{self.data_dir / 'seed3d.db'}"

    @property
    def worker_device(self) -> str:
        """Device the workers run the pipeline on."""
        return self.device or ("cuda" if self.gpus_per_worker > 0 else "cpu")

    @property
    def jobs_dir(self) -> Path:
        """Folder of one sub-folder per job (input image, runs, published files)."""
        return self.data_dir / "jobs"

    @property
    def uploads_dir(self) -> Path:
        """Folder of uploaded images (named by their token, never by the client)."""
        return self.data_dir / "uploads"

    def to_json(self) -> str:
        """The settings as JSON (for worker processes)."""
        doc: dict[str, Any] = asdict(self)
        for key, value in doc.items():
            if isinstance(value, Path):
                doc[key] = str(value)
        return json.dumps(doc)

    @classmethod
    def from_json(cls, text: str) -> Settings:
        """Settings from ``to_json`` output (unknown keys are an error)."""
        doc = json.loads(text)
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(doc) - known)
        if unknown:
            raise InvalidInputError(f"unknown settings {unknown}")
        return cls(**doc)
