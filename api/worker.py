"""Workers: processes that claim jobs from the store, run them and publish their files.

A worker claims the oldest queued job with a lease, renews the lease from a heartbeat thread (which also
reads cancel requests) and runs the job: generations through ``seed3d.pipeline.run_job`` (the pipeline stays
loaded between jobs), scenes through ``seed3d.scene.generate_scene``. A cancel request, a lost lease or a
shutdown stops the job at its next stage boundary. Only the worker holding the lease can finish a job, so a
job finishes exactly once even when a worker died and another retried it.

``python -m api.worker --worker-id ID`` runs one worker with the settings in ``$SEED3D_API_SETTINGS``
(JSON, ``Settings.to_json``); the local executor starts workers this way.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import os
import shutil
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from api.artifacts import publish_generation, publish_scene
from api.settings import Settings
from api.store import Claim, JobStore
from seed3d.errors import InvalidInputError, NotBuiltError, Seed3DError

log = logging.getLogger(__name__)

SETTINGS_ENV = "SEED3D_API_SETTINGS"


#: What a finished generation's ``result`` keeps of ``run_job``'s summary.
RESULT_KEYS: tuple[str, ...] = ("name", "key", "valid", "sound", "functional", "failed_checks", "failures", "faces",
                                "parts", "joints", "movable_joints", "generator")


class Stopped(Exception):
    """Raised from a progress callback to stop a job at a stage boundary (cancel, shutdown, lost lease)."""


class _Refused(Exception):
    """A ``require_valid`` job whose asset failed validation: it ends failed, its files published."""

    def __init__(self, detail: str, files: list[dict[str, Any]], timings: dict[str, Any], summary: dict[str, Any]
                 ) -> None:
        super().__init__(detail)
        self.detail, self.files, self.timings, self.summary = detail, files, timings, summary


def worker_name(slot: str | int) -> str:
    """A worker id unique across hosts and restarts: ``host:pid:slot``."""
    return f"{socket.gethostname()}:{os.getpid()}:{slot}"


def lease_holder(owner: str) -> tuple[str, int] | None:
    """(host, pid) of the process behind a lease owner: a local worker ``host:pid:slot`` or a Ray worker
    ``ray:host:server pid:...`` (its actors live and die with that server); None for any other name."""
    parts = owner.split(":")
    if parts[0] == "ray":
        parts = parts[1:]
    if len(parts) < 3 or not parts[0] or not parts[1].isascii() or not parts[1].isdigit():
        return None
    return parts[0], int(parts[1])


def _process_start(pid: int) -> tuple[float, str] | None:
    """(start time in epoch seconds, state letter) of a process from /proc; None where /proc cannot tell."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        boot = next(float(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) ": state is field 3, starttime field 22
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK"), fields[0]
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def process_alive(pid: int, since: float | None = None) -> bool:
    """Whether process ``pid`` runs on this host; a zombie is dead, and so is a process that started after
    ``since`` (epoch seconds: the pid was reused by another program after the lease was taken)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, owned by another user
    info = _process_start(pid)
    if info is None:
        return True
    started, state = info
    if state in ("Z", "X"):
        return False
    return since is None or started <= since + 2.0  # /proc's boot time has a one-second grain


def job_spec_kwargs(options: dict[str, Any], image: str | None) -> dict[str, Any]:
    """The ``JobSpec`` keyword arguments of a generation job's stored options."""
    kw: dict[str, Any] = {"text": options.get("text"), "image": image, "seed": int(options.get("seed", 0))}
    if options.get("stages") is not None:
        kw["stages"] = ("geometry", *options["stages"])
    if options.get("formats") is not None:
        kw["formats"] = tuple(options["formats"])
    for key in ("target_faces", "texture_size", "steps", "resolution", "guidance"):
        if options.get(key) is not None:
            kw[key] = options[key]
    kw["generator"] = options.get("generator") or "auto"  # jobs stored before the choice existed: auto
    if options.get("params"):
        kw["params"] = dict(options["params"])
    if options.get("require_valid"):
        kw["require_valid"] = True
    return kw


class _Heartbeat(threading.Thread):
    """Renews a lease every ``heartbeat_s`` and records cancel requests and a lost lease."""

    def __init__(self, store: JobStore, job_id: str, worker: str, settings: Settings) -> None:
        super().__init__(name=f"heartbeat-{job_id}", daemon=True)
        self.store, self.job_id, self.worker, self.settings = store, job_id, worker, settings
        self.cancel = False
        self.lost = False
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(self.settings.heartbeat_s):
            try:
                held, cancel = self.store.heartbeat(self.job_id, self.worker, self.settings.lease_s)
            except Exception as exc:  # a busy database must not kill the job; the lease has slack
                log.warning("heartbeat of job %s failed: %s", self.job_id, exc)
                continue
            self.cancel = self.cancel or cancel
            if not held:
                log.warning("job %s: %s lost its lease; stopping at the next stage boundary", self.job_id,
                            self.worker)
                self.lost = True
                return

    def stop(self) -> None:
        self._done.set()


class _Progress:
    """Maps (stage, fraction) reports to one monotonic 0..99 figure and writes them, throttled, to the store.

    Each stage takes the share of the figure it takes of the time on the job's path (``seed3d.progress``'s
    ``OverallProgress``: the learned path's geometry about 70 %, the program path's preview about 60 %); the store
    sets 100 when the job succeeds. Thread-safe: reports may come from a heartbeat thread
    (``seed3d.progress.heartbeat``) as well as the job's."""

    def __init__(self, store: JobStore, job_id: str, worker: str, stages: list[str]) -> None:
        from seed3d.progress import OverallProgress

        self.store, self.job_id, self.worker, self.stages = store, job_id, worker, stages
        self.overall = OverallProgress(stages)
        self.value, self.stage, self.last = 0.0, None, 0.0
        self._lock = threading.Lock()

    def __call__(self, stage: str, fraction: float, message: str = "") -> None:
        with self._lock:
            self.value = max(self.value, min(100.0 * self.overall(stage, fraction), 99.0))
            now = time.monotonic()
            if stage != self.stage or now - self.last > 0.5:
                self.stage, self.last = stage, now
                with contextlib.suppress(Exception):  # progress is advisory; never fail a job for it
                    self.store.set_progress(self.job_id, self.worker, stage, round(self.value, 1), message)


class JobRunner:
    """Runs claimed jobs in this process; the pipeline is loaded once and reused."""

    def __init__(self, settings: Settings, store: JobStore, worker: str, stop: threading.Event) -> None:
        self.settings, self.store, self.worker, self.stop = settings, store, worker, stop
        self._pipe: Any = None

    def pipe(self) -> Any:
        """The pipeline (loaded on first use)."""
        if self._pipe is None:
            from seed3d.pipeline import Seed3DPipeline

            self._pipe = Seed3DPipeline.from_pretrained(self.settings.weights, device=self.settings.worker_device)
        return self._pipe

    def _redact(self) -> tuple[str, ...]:
        return (str(self.settings.data_dir), str(self.settings.data_dir.resolve()))

    def _result(self, summary: dict[str, Any], run_dir: Path) -> dict[str, Any]:
        """The job's ``result``: ``RESULT_KEYS`` of the summary, server paths in check messages replaced by a dot."""
        keep = {k: summary.get(k) for k in RESULT_KEYS if k in summary}
        prefixes = sorted({*self._redact(), str(run_dir), str(run_dir.resolve())}, key=len, reverse=True)
        failures = []
        for failure in keep.get("failures") or []:
            message = str(failure.get("message", ""))
            for prefix in prefixes:
                message = message.replace(prefix, ".")
            failures.append({**failure, "message": message})
        if "failures" in keep:
            keep["failures"] = failures
        return keep

    def run(self, claim: Claim) -> str:
        """Run one claimed job to a terminal status (or give it back on shutdown); returns what happened."""
        job, attempt = claim.job, claim.attempt
        job_dir = self.settings.jobs_dir / job["id"]
        run_dir, pub_dir = job_dir / f"run-{attempt}", job_dir / f"files-{attempt}"
        if job_dir.is_dir():  # leftovers of attempts whose worker died (this worker holds the lease now)
            for stale in job_dir.iterdir():
                if stale.name != "input.png":
                    shutil.rmtree(stale) if stale.is_dir() else stale.unlink()
        beat = _Heartbeat(self.store, job["id"], self.worker, self.settings)
        beat.start()

        def should_stop() -> bool:
            return beat.cancel or beat.lost or self.stop.is_set()

        status, error_code, error_detail = "succeeded", None, None
        try:
            if job["kind"] == "scene":
                files, timings, summary = self._scene(job, run_dir, pub_dir, should_stop)
            else:
                files, timings, summary = self._generation(job, run_dir, pub_dir, should_stop)
        except _Refused as exc:  # asked for a valid asset and did not get one: failed, with its files and checks
            files, timings, summary = exc.files, exc.timings, exc.summary
            status, error_code, error_detail = "failed", "asset_invalid", exc.detail[:2000]
        except BaseException as exc:
            shutil.rmtree(run_dir, ignore_errors=True)
            shutil.rmtree(pub_dir, ignore_errors=True)
            return self._end_with(exc, job, attempt, beat)
        finally:
            beat.stop()
        shutil.rmtree(run_dir, ignore_errors=True)
        if beat.lost or not self.store.finish(job["id"], self.worker, attempt, status, files=files,
                                              files_dir=pub_dir.name, timings=timings, summary=summary,
                                              error_code=error_code, error_detail=error_detail):
            shutil.rmtree(pub_dir, ignore_errors=True)
            log.warning("job %s: finished after losing its lease; another attempt owns it", job["id"])
            return "lost"
        log.info("job %s %s (attempt %d, %d files)", job["id"], status, attempt, len(files))
        return status

    def _end_with(self, exc: BaseException, job: dict[str, Any], attempt: int, beat: _Heartbeat) -> str:
        from seed3d.pipeline import JobCancelled

        job_id = job["id"]
        if isinstance(exc, Stopped | JobCancelled):
            if beat.lost:
                return "lost"
            if beat.cancel:
                self.store.finish(job_id, self.worker, attempt, "canceled", error_code="canceled",
                                  error_detail="canceled at a stage boundary")
                return "canceled"
            self.store.release(job_id, self.worker, attempt, "requeued: its worker shut down")
            return "released"
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            self.store.release(job_id, self.worker, attempt, "requeued: its worker shut down")
            raise exc
        if isinstance(exc, NotBuiltError):
            code = "not_built"
        elif isinstance(exc, InvalidInputError):
            code = "invalid_input"
        elif isinstance(exc, Seed3DError):
            code = "generation_failed"
        else:
            log.error("job %s failed unexpectedly", job_id, exc_info=exc)
            code = "internal_error"
        detail = str(exc) if isinstance(exc, Seed3DError) else f"{type(exc).__name__}: {exc}"
        self.store.finish(job_id, self.worker, attempt, "failed", error_code=code, error_detail=detail[:2000])
        return "failed"

    def _generation(self, job: dict[str, Any], run_dir: Path, pub_dir: Path, should_stop: Callable[[], bool]
                    ) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
        from seed3d.errors import AssetInvalidError
        from seed3d.pipeline import POST_STAGES, JobCancelled, JobSpec, invalid_asset_message, run_job

        options = job["options"]
        image = str(self.settings.data_dir / job["input_path"]) if job.get("input_path") else None
        kw = job_spec_kwargs(options, image)
        known = {f.name for f in dataclasses.fields(JobSpec)}
        spec = JobSpec(**{k: v for k, v in kw.items() if k in known})
        first = [] if spec.generator == "learned" else ["program"]  # choosing (and building) the program
        progress = _Progress(self.store, job["id"], self.worker, [*first, *spec.stages, *POST_STAGES])
        if should_stop():
            raise JobCancelled("stopped before it started")
        try:
            summary = run_job(spec, run_dir, pipe=self.pipe(), weights=self.settings.weights,
                              device=self.settings.worker_device, progress=progress, should_cancel=should_stop)
        except AssetInvalidError as exc:
            files = publish_generation(run_dir, exc.summary, pub_dir, self._redact())
            result = self._result(exc.summary, run_dir)
            detail = f"{invalid_asset_message(result)} (require_valid; report.json among the files says more)"
            raise _Refused(detail, files, dict(exc.summary.get("timings") or {}), result) from exc
        files = publish_generation(run_dir, summary, pub_dir, self._redact())
        return files, dict(summary.get("timings") or {}), self._result(summary, run_dir)

    def _scene(self, job: dict[str, Any], run_dir: Path, pub_dir: Path, should_stop: Callable[[], bool]
               ) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
        from seed3d.scene import generate_scene

        options = job["options"]
        progress = _Progress(self.store, job["id"], self.worker, ["scene"])

        def report(fraction: float, message: str) -> None:
            if should_stop():  # generate_scene reports between its steps: those are its stage boundaries
                raise Stopped(message)
            progress("scene", fraction, message)

        room = tuple(options["room_size"]) if options.get("room_size") else None
        report(0.0, "starting")
        # a job builds what it can; what the text named that was left out or built as a stand-in is listed
        result = generate_scene(options["text"], room_size=room, seed=int(options.get("seed", 0)), out=run_dir,
                                progress=report, overwrite=True, allow_missing=True)
        files = publish_scene(result.paths, pub_dir, (*self._redact(), str(run_dir)))
        checks = result.report.get("checks") or {}
        summary = {"objects": len(result.scene.objects), "unmet": result.report.get("unmet") or [],
                   "collision_free": checks.get("collision_free") if isinstance(checks, dict) else None,
                   "omissions": result.report.get("omissions") or []}
        return files, dict(result.report.get("timings") or {}), summary


def worker_loop(settings: Settings, worker: str, stop: threading.Event, max_jobs: int | None = None,
                parent_pid: int | None = None) -> int:
    """Claim and run jobs until ``stop`` is set (or ``max_jobs`` ran, or the parent process is gone);
    returns the number of jobs run."""
    store = JobStore(settings.db_url, create=False)
    runner = JobRunner(settings, store, worker, stop)
    done = 0
    log.info("worker %s started", worker)
    try:
        while not stop.is_set() and (max_jobs is None or done < max_jobs):
            if parent_pid is not None and os.getppid() != parent_pid:
                log.warning("worker %s: the server (pid %d) is gone; stopping", worker, parent_pid)
                break
            try:
                claim = store.claim(worker, settings.lease_s)
            except Exception as exc:
                log.warning("worker %s: claiming failed (%s); retrying", worker, exc)
                stop.wait(settings.poll_s * 4)
                continue
            if claim is None:
                stop.wait(settings.poll_s)
                continue
            log.info("worker %s: job %s attempt %d", worker, claim.job["id"], claim.attempt)
            runner.run(claim)
            done += 1
    finally:
        store.close()
    log.info("worker %s stopped after %d job(s)", worker, done)
    return done


def preload_libraries() -> None:
    """Import open3d before anything imports coacd: coacd's pybind11 types, once loaded, make a later open3d
    import fail (ImportError: std::bad_cast), which would break the articulation stage of every job after the
    first one that computed collision hulls in this process."""
    try:
        import open3d  # noqa: F401
    except ImportError as exc:
        log.warning("open3d is not importable (%s); the articulation stage will fail", exc)


def main(argv: list[str] | None = None) -> int:
    """Entry point of a worker process (``python -m api.worker``)."""
    parser = argparse.ArgumentParser(prog="python -m api.worker", description="Run one Seed3D job worker.")
    parser.add_argument("--worker-id", required=True, help="slot name (made unique with host and pid)")
    parser.add_argument("--parent-pid", type=int, help="stop when this process is no longer the parent")
    parser.add_argument("--max-jobs", type=int, help="stop after this many jobs")
    args = parser.parse_args(argv)
    logging.basicConfig(level=os.environ.get("SEED3D_LOG_LEVEL", "INFO"),
                        format="%(asctime)s %(levelname)s %(name)s[%(process)d]: %(message)s")
    text = os.environ.get(SETTINGS_ENV)
    if not text:
        print(f"python -m api.worker: set {SETTINGS_ENV} to the service settings (JSON)", file=sys.stderr)
        return 2
    settings = Settings.from_json(text)
    preload_libraries()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the server, which stops its workers
    worker_loop(settings, worker_name(args.worker_id), stop, args.max_jobs, args.parent_pid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
