"""The state one server process shares between requests: settings, job store, executor, metrics, and the
operations routes use (submitting a job, rendering a job object, the retention sweep)."""

from __future__ import annotations

import hashlib
import json
import logging
import math
import shutil
import socket
import statistics
import threading
import time
from datetime import UTC, datetime
from typing import Any

from api.errors import CODES, JOB_CODES, ApiError, problem_type
from api.executors import Executor
from api.metrics import Metrics
from api.settings import Settings
from api.store import TERMINAL, IdempotencyConflict, JobStore, QueueFullError, new_id
from api.worker import lease_holder, process_alive
from seed3d.asset import atomic_file

log = logging.getLogger(__name__)

#: Seconds a job is assumed to take before the service has measured any (the first 429s of a fresh server).
DEFAULT_JOB_S = 30.0
#: Bounds of a 429's Retry-After, in seconds.
RETRY_AFTER_BOUNDS: tuple[int, int] = (1, 600)


def iso(t: float | None) -> str | None:
    """Epoch seconds as ISO 8601 UTC with milliseconds (None stays None)."""
    if t is None:
        return None
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Service:
    """One server process's shared state."""

    def __init__(self, settings: Settings, store: JobStore) -> None:
        self.settings, self.store = settings, store
        self.metrics = Metrics()
        self.executor: Executor | None = None
        self._submit_lock = threading.Lock()
        self._sweeper: threading.Thread | None = None
        self._stop = threading.Event()
        self._job_s: tuple[float, float] | None = None  # (measured seconds per job, when measured)

    # ------------------------------------------------------------------------------------------ jobs

    def job_view(self, row: dict[str, Any], position: int | None = None) -> dict[str, Any]:
        """The job object clients see (CONTRACT section 2)."""
        base = f"/v1/generations/{row['id']}"
        if position is None and row["status"] == "queued":
            position = self.store.queue_position(row)
        summary = row.get("summary") or None
        error = None
        if row["error_code"]:
            code = row["error_code"]
            error = {"type": problem_type(code), "title": JOB_CODES.get(code) or CODES.get(code) or code,
                     "code": code, "detail": row["error_detail"] or ""}
            if code == "asset_invalid" and summary:
                error["failed_checks"] = list(summary.get("failed_checks") or [])
        files = [{"name": f["name"], "content_type": f["content_type"], "size": f["size"],
                  "url": f"{base}/files/{f['name']}"} for f in (row["files"] or [])]
        # a failed job has a result when it made an asset (require_valid refused it): the checks say why
        result = summary if row["status"] in ("succeeded", "failed") else None
        return {"id": row["id"], "kind": row["kind"], "status": row["status"], "stage": row["stage"],
                "message": row["message"], "progress": round(float(row["progress"] or 0.0), 1),
                "queue_position": position, "created_at": iso(row["created_at"]),
                "started_at": iso(row["started_at"]), "finished_at": iso(row["finished_at"]),
                "attempts": row["attempts"], "timings": row["timings"] or {}, "error": error,
                "options": row["options"], "result": result, "files": files, "expired": bool(row["expired"]),
                "links": {"self": base, "events": f"{base}/events", "cancel": f"{base}/cancel",
                          "files": f"{base}/files"}}

    def job_seconds(self) -> float:
        """Seconds a job takes here: the median of the latest attempts that ran to an end (within the last hour;
        ``DEFAULT_JOB_S`` before any), measured at most every few seconds."""
        now = time.monotonic()
        if self._job_s is None or now - self._job_s[1] > 5.0:
            durations = self.store.recent_durations(limit=20)
            self._job_s = (statistics.median(durations) if durations else DEFAULT_JOB_S, now)
        return self._job_s[0]

    def retry_after(self, active: int | None = None) -> int:
        """Seconds a refused client should wait: the time the queue takes to drain at its measured throughput
        (seconds per job x active jobs / workers), within ``RETRY_AFTER_BOUNDS``."""
        active = self.store.count_active() if active is None else active
        workers = max(1, self.settings.workers)
        low, high = RETRY_AFTER_BOUNDS
        return int(min(high, max(low, math.ceil(self.job_seconds() * active / workers))))

    def submit(self, *, owner: str, kind: str, options: dict[str, Any], image_png: bytes | None,
               idempotency_key: str | None, hash_extra: str = "") -> tuple[dict[str, Any], bool]:
        """Store a new job (its input image first) and commit it; returns (job row, created).

        Raises ApiError 429 (queue full) or 422 (Idempotency-Key reused with another body)."""
        request_hash = hashlib.sha256(json.dumps({"kind": kind, "options": options, "extra": hash_extra},
                                                 sort_keys=True).encode()).hexdigest()
        if idempotency_key is not None:
            earlier = self.store.find_idempotent(owner, idempotency_key)
            if earlier is not None:
                if earlier["request_hash"] != request_hash:
                    raise ApiError(409, "idempotency_key_reused", "this Idempotency-Key was used before with "
                                                                  "another request body; use a new key")
                return earlier, False
        job_id = new_id()
        job_dir = self.settings.jobs_dir / job_id
        input_rel = None
        if image_png is not None:
            with atomic_file(job_dir / "input.png") as tmp:
                tmp.write_bytes(image_png)
            input_rel = f"jobs/{job_id}/input.png"
        try:
            with self._submit_lock:
                row, created = self.store.create(
                    owner=owner, kind=kind, options=options, max_attempts=self.settings.max_attempts,
                    queue_limit=self.settings.queue_limit, job_id=job_id, input_path=input_rel,
                    idempotency_key=idempotency_key, request_hash=request_hash)
        except QueueFullError as exc:
            shutil.rmtree(job_dir, ignore_errors=True)
            self.metrics.job_refused("queue_full")
            raise ApiError(429, "queue_full", f"the queue is full ({exc}); retry later",
                           headers={"Retry-After": str(self.retry_after(exc.active))}) from None
        except IdempotencyConflict:
            shutil.rmtree(job_dir, ignore_errors=True)
            raise ApiError(409, "idempotency_key_reused", "this Idempotency-Key was used before with another "
                                                          "request body; use a new key") from None
        except BaseException:
            shutil.rmtree(job_dir, ignore_errors=True)
            raise
        if not created:
            shutil.rmtree(job_dir, ignore_errors=True)
        else:
            self.metrics.job_submitted(kind)
        return row, created

    # ------------------------------------------------------------------------------------------ retention

    def sweep(self, now: float | None = None) -> dict[str, int]:
        """Delete the files of jobs finished more than ``retention_s`` ago (rows stay, marked expired) and of
        expired uploads; returns counts."""
        now = time.time() if now is None else now
        jobs = 0
        for row in self.store.expirable(now - self.settings.retention_s):
            shutil.rmtree(self.settings.jobs_dir / row["id"], ignore_errors=True)
            self.store.mark_expired(row["id"])
            jobs += 1
        orphans = 0
        if self.settings.jobs_dir.is_dir():  # folders of submissions that failed before their row was committed
            for folder in self.settings.jobs_dir.iterdir():
                if (folder.is_dir() and now - folder.stat().st_mtime > self.settings.retention_s
                        and self.store.get(folder.name) is None):
                    shutil.rmtree(folder, ignore_errors=True)
                    orphans += 1
        uploads = 0
        for up in self.store.expired_uploads(now):
            (self.settings.data_dir / up["path"]).unlink(missing_ok=True)
            self.store.delete_upload(up["token"])
            uploads += 1
        if jobs or uploads or orphans:
            log.info("retention sweep: files of %d job(s), %d upload(s) and %d orphan folder(s) deleted", jobs,
                     uploads, orphans)
        return {"jobs": jobs, "uploads": uploads, "orphans": orphans}

    def _sweep_loop(self) -> None:
        while not self._stop.wait(self.settings.sweep_interval_s):
            try:
                self.sweep()
            except Exception:
                log.exception("retention sweep failed")

    # ------------------------------------------------------------------------------------------ lifecycle

    def reclaim_dead_leases(self) -> int:
        """Give back at once the jobs whose lease is held by a worker of this host whose process is gone (a server
        restarted after its workers died with it); returns how many. Leases of live processes and of other hosts
        run their course."""
        host = socket.gethostname()
        dead: set[str] = set()
        for lease in self.store.held_leases():
            holder = lease_holder(lease["owner"])
            if holder is not None and holder[0] == host and not process_alive(holder[1], lease["since"]):
                dead.add(lease["owner"])
        reclaimed = sum(self.store.expire_leases_of(owner, requeue=True) for owner in sorted(dead))
        if reclaimed:
            log.warning("%d job(s) held by %d dead worker(s) of this host (%s) go back to the queue now", reclaimed,
                        len(dead), ", ".join(sorted(dead)))
        return reclaimed

    def start(self, executor: Executor | None) -> None:
        """Reclaim the jobs of this host's dead workers, start the executor (if any) and the retention sweeper."""
        try:
            self.reclaim_dead_leases()
        except Exception:  # never keep a server from starting; the leases then run out as usual
            log.exception("reclaiming the leases of dead workers failed")
        self.executor = executor
        if executor is not None:
            executor.start()
        self._sweeper = threading.Thread(target=self._sweep_loop, name="retention-sweep", daemon=True)
        self._sweeper.start()

    def stop(self) -> None:
        """Stop the sweeper and the workers (their jobs go back to the queue)."""
        self._stop.set()
        if self.executor is not None:
            self.executor.stop()
        self.store.close()

    def workers_alive(self) -> tuple[int, int]:
        """(alive workers, restarts so far)."""
        if self.executor is None:
            return 0, 0
        infos = self.executor.workers()
        return sum(w.alive for w in infos), sum(w.restarts for w in infos)


__all__ = ["TERMINAL", "Service", "iso"]
