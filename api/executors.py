"""Executors: where workers run. One interface, two implementations.

- ``LocalExecutor`` (default): ``settings.workers`` child processes (``python -m api.worker``) on this machine.
- ``RayExecutor``: ``settings.workers`` Ray actors (each asks for ``cpus_per_worker`` CPUs and
  ``gpus_per_worker`` GPUs) on a local or remote Ray cluster. Actors run the same worker loop, so they need
  the job database and the data folder: on a multi-machine cluster use PostgreSQL (``database_url``) and a
  data folder on shared storage.

Both supervise their workers: a worker that died is restarted (with back-off when it keeps dying) and the
leases it held are ended at once, so its job is retried without waiting for the lease to run out.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from api.settings import Settings
from api.store import JobStore
from api.worker import SETTINGS_ENV

log = logging.getLogger(__name__)
_REPO = Path(__file__).resolve().parents[1]


@dataclass
class WorkerInfo:
    """A worker slot as the executor sees it."""

    slot: int
    worker_id: str
    alive: bool
    restarts: int
    pid: int | None = None


class Executor(ABC):
    """Starts, supervises and stops the workers that run jobs."""

    kind = "none"

    def __init__(self, settings: Settings, store: JobStore) -> None:
        self.settings, self.store = settings, store
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the workers and the supervisor thread."""
        self._start_workers()
        self._thread = threading.Thread(target=self._supervise, name=f"{self.kind}-supervisor", daemon=True)
        self._thread.start()
        log.info("%s executor: %d worker(s) started", self.kind, self.settings.workers)

    def _supervise(self) -> None:
        while not self._stopping.wait(1.0):
            try:
                with self._lock:
                    if not self._stopping.is_set():
                        self._check()
            except Exception:
                log.exception("%s executor: supervising the workers failed", self.kind)

    def stop(self) -> None:
        """Ask the workers to stop at a stage boundary (their jobs go back to the queue); kill them after
        ``settings.shutdown_grace_s``."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            self._stop_workers()

    @abstractmethod
    def _start_workers(self) -> None: ...

    @abstractmethod
    def _check(self) -> None: ...

    @abstractmethod
    def _stop_workers(self) -> None: ...

    @abstractmethod
    def workers(self) -> list[WorkerInfo]:
        """The worker slots."""


def _backoff(restarts: int) -> float:
    return min(30.0, 0.5 * 2 ** min(restarts, 6))


class LocalExecutor(Executor):
    """Worker processes on this machine."""

    kind = "local"

    def __init__(self, settings: Settings, store: JobStore) -> None:
        super().__init__(settings, store)
        self._procs: list[subprocess.Popen[bytes] | None] = []
        self._ids: list[str] = []
        self._restarts: list[int] = []
        self._next_start: list[float] = []

    def _spawn(self, slot: int) -> None:
        env = dict(os.environ)
        env[SETTINGS_ENV] = self.settings.to_json()
        env["PYTHONPATH"] = os.pathsep.join([str(_REPO), *filter(None, [env.get("PYTHONPATH")])])
        restarts = self._restarts[slot]
        cmd = [sys.executable, "-m", "api.worker", "--worker-id", f"{slot}.{restarts}", "--parent-pid",
               str(os.getpid())]
        proc = subprocess.Popen(cmd, env=env, cwd=str(_REPO), stdin=subprocess.DEVNULL)
        self._procs[slot] = proc
        self._ids[slot] = f"{socket.gethostname()}:{proc.pid}:{slot}.{restarts}"

    def _start_workers(self) -> None:
        n = self.settings.workers
        self._procs, self._ids = [None] * n, [""] * n
        self._restarts, self._next_start = [0] * n, [0.0] * n
        for slot in range(n):
            self._spawn(slot)

    def _check(self) -> None:
        now = time.monotonic()
        for slot, proc in enumerate(self._procs):
            if proc is not None and proc.poll() is None:
                continue
            if proc is not None:
                code = proc.returncode
                ended = self.store.expire_leases_of(self._ids[slot])
                log.warning("worker %s exited with code %s; %d job(s) it held go back to the queue",
                            self._ids[slot], code, ended)
                self._procs[slot] = None
                self._next_start[slot] = now + _backoff(self._restarts[slot])
                self._restarts[slot] += 1
            if now >= self._next_start[slot]:
                self._spawn(slot)

    def _stop_workers(self) -> None:
        live = [p for p in self._procs if p is not None and p.poll() is None]
        for p in live:
            p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + self.settings.shutdown_grace_s
        for p in live:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("worker pid %d did not stop within %.0f s; killing it", p.pid,
                            self.settings.shutdown_grace_s)
                p.kill()
                p.wait()
        for worker_id in self._ids:
            if worker_id:
                self.store.expire_leases_of(worker_id)

    def workers(self) -> list[WorkerInfo]:
        """The worker slots with their process ids."""
        return [WorkerInfo(slot, self._ids[slot], p is not None and p.poll() is None, self._restarts[slot],
                           None if p is None else p.pid) for slot, p in enumerate(self._procs)]


class _RayWorker:
    """A Ray actor that runs the worker loop until told to stop."""

    def __init__(self, settings_json: str, worker_id: str) -> None:
        logging.basicConfig(level=logging.INFO)
        self.settings = Settings.from_json(settings_json)
        self.worker_id = worker_id
        self.stop_event = threading.Event()

    def run(self) -> int:
        """Claim and run jobs until ``shutdown``."""
        from api.worker import preload_libraries, worker_loop

        preload_libraries()
        return worker_loop(self.settings, self.worker_id, self.stop_event)

    def shutdown(self) -> None:
        """Stop after the current job's next stage boundary."""
        self.stop_event.set()


class RayExecutor(Executor):
    """Workers as Ray actors (GPU and CPU resource requests from the settings)."""

    kind = "ray"

    def __init__(self, settings: Settings, store: JobStore) -> None:
        super().__init__(settings, store)
        self._actors: list[Any] = []
        self._runs: list[Any] = []
        self._ids: list[str] = []
        self._restarts: list[int] = []
        self._started_ray = False

    def _ray(self) -> Any:
        try:
            import ray
        except ImportError as exc:
            from seed3d.errors import DependencyError

            raise DependencyError("the Ray executor needs ray: pip install 'seed3d[ray]'") from exc
        if not ray.is_initialized():
            ray.init(address=self.settings.ray_address, ignore_reinit_error=True, include_dashboard=False,
                     log_to_driver=True, runtime_env={"env_vars": {"PYTHONPATH": str(_REPO)}})
            self._started_ray = True
        return ray

    def _spawn(self, slot: int) -> None:
        ray = self._ray()
        cls = ray.remote(_RayWorker).options(num_cpus=self.settings.cpus_per_worker,
                                             num_gpus=self.settings.gpus_per_worker or None, max_concurrency=2)
        # the id is made here, so a worker still waiting for resources (a GPU) blocks nothing
        worker_id = f"ray:{socket.gethostname()}:{os.getpid()}:{slot}.{self._restarts[slot]}:{uuid.uuid4().hex[:8]}"
        actor = cls.remote(self.settings.to_json(), worker_id)
        self._actors[slot], self._ids[slot] = actor, worker_id
        self._runs[slot] = actor.run.remote()

    def _start_workers(self) -> None:
        n = self.settings.workers
        self._actors, self._runs, self._ids, self._restarts = [None] * n, [None] * n, [""] * n, [0] * n
        for slot in range(n):
            self._spawn(slot)

    def _check(self) -> None:
        ray = self._ray()
        for slot, ref in enumerate(self._runs):
            if ref is None:
                self._spawn(slot)
                continue
            ready, _ = ray.wait([ref], timeout=0)
            if not ready:
                continue
            try:
                ray.get(ref)
                log.warning("ray worker %s stopped", self._ids[slot])
            except Exception as exc:
                log.warning("ray worker %s died: %s", self._ids[slot], exc)
            ended = self.store.expire_leases_of(self._ids[slot])
            if ended:
                log.warning("%d job(s) of ray worker %s go back to the queue", ended, self._ids[slot])
            self._restarts[slot] += 1
            time.sleep(_backoff(self._restarts[slot] - 1))
            self._spawn(slot)

    def _stop_workers(self) -> None:
        ray = self._ray()
        for actor in self._actors:
            if actor is not None:
                try:
                    actor.shutdown.remote()
                except Exception as exc:
                    log.warning("could not ask a ray worker to stop: %s", exc)
        runs = [r for r in self._runs if r is not None]
        if runs:
            ray.wait(runs, num_returns=len(runs), timeout=self.settings.shutdown_grace_s)
        for slot, actor in enumerate(self._actors):
            if actor is not None:
                ray.kill(actor)
                self.store.expire_leases_of(self._ids[slot])
        self._actors = [None] * len(self._actors)
        if self._started_ray:
            ray.shutdown()

    def workers(self) -> list[WorkerInfo]:
        """The worker slots (alive: the actor's run has not returned)."""
        out = []
        for slot, ref in enumerate(self._runs):
            alive = False
            if ref is not None:
                import ray

                alive = not ray.wait([ref], timeout=0)[0]
            out.append(WorkerInfo(slot, self._ids[slot], alive, self._restarts[slot]))
        return out


def make_executor(settings: Settings, store: JobStore) -> Executor:
    """The executor ``settings.executor`` names."""
    return RayExecutor(settings, store) if settings.executor == "ray" else LocalExecutor(settings, store)
