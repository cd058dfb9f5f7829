"""Reliability of the REST service against a live server (``python -m api`` under uvicorn, one local worker), on
SQLite and on PostgreSQL (a throwaway cluster, started as the tests start one: ``tests/api/postgres.py``).

Run: ``python eval/bench_service.py`` → writes eval/results/service.json (takes a few minutes on 2 cores).

1. **Concurrent submissions**: N (default 200) generation requests at once against a queue limit of 10:
   accepted (202) / refused (429 + Retry-After) / other; "lost" = accepted jobs the server no longer lists or
   stores. Then every accepted job runs (reduced options: 2 flow steps, 64³ extraction, GLB only) and the final
   statuses are counted.
2. **Status-poll latency**: ``GET /v1/generations/{id}`` timed side by side with ``GET /healthz`` (the
   baseline: same server, same connection, no database read beyond two counts) while the worker is busy and
   when it is idle; figures are milliseconds and the poll/healthz ratio of medians.
3. **kill -9 of a worker mid-job**: the worker process is killed during the geometry stage; recorded: final
   status, attempts, each attempt's outcome, seconds from the kill to success.
   **kill -9 of the server** (the uvicorn process alone; its worker, running a job, is orphaned) and **of both**
   (the server's process group: server and worker together), each during a job's geometry stage, then a new
   server on the same data folder and job store; recorded: who finished the job, attempts and outcomes, seconds
   from the restart to the retry's start and to success, seconds of work redone, exactly once, and whether any
   old worker still runs afterwards.
4. **Schemathesis**: every operation of the OpenAPI schema fuzzed in-process with every check, on data the
   schema calls valid and on data it calls invalid (bounded examples); cases, status classes, 5xx, failures.

Sections 1 to 3 run once per job store (``--backends``, default SQLite and PostgreSQL), in one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results"
FAST = {"text": "a wooden chair", "generator": "learned", "stages": [], "steps": 2, "resolution": 64,
        "target_faces": 2000, "formats": ["glb"]}
TERMINAL = ("succeeded", "failed", "canceled")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``python -m api`` in a subprocess."""

    def __init__(self, data_dir: Path, queue_limit: int, database_url: str | None = None) -> None:
        self.queue_limit = queue_limit
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data_dir = data_dir
        self.database_url = database_url or f"sqlite:///{data_dir / 'seed3d.db'}"
        self.log = data_dir.parent / "server.log"
        env = dict(os.environ, OMP_NUM_THREADS="1", SEED3D_HOME=str(data_dir.parent / "home"), PYTHONUNBUFFERED="1")
        cmd = [sys.executable, "-m", "api", "--port", str(self.port), "--data-dir", str(data_dir), "--workers", "1",
               "--queue-limit", str(queue_limit), "--log-level", "warning"]
        if database_url:
            cmd += ["--database-url", database_url]
        with open(self.log, "ab") as out:  # a session of its own: its workers share its process group (kill -9 both)
            self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        deadline = time.monotonic() + 180
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(self.log.read_text())
            try:
                if httpx.get(f"{self.url}/healthz", timeout=5).json()["workers_alive"] >= 1:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"server did not start: {self.log.read_text()[-2000:]}")
            time.sleep(0.3)

    def worker_pids(self) -> list[int]:
        """Pids of the server's worker processes (children running api.worker; Linux /proc)."""
        pids = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except (OSError, ValueError, IndexError):
                continue
            if ppid == self.proc.pid and "api.worker" in cmdline:
                pids.append(int(entry.name))
        return pids

    def restart(self) -> Server:
        """A new server on the same data folder and job store (this one is dead)."""
        return Server(self.data_dir, self.queue_limit, None if self.database_url.startswith("sqlite") else
                      self.database_url)

    def stop(self) -> None:
        if self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _wait(client: httpx.Client, job_id: str, timeout: float = 900.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        job = client.get(f"/v1/generations/{job_id}").json()
        if job["status"] in TERMINAL or time.monotonic() > deadline:
            return job
        time.sleep(0.25)


def _ms(values: list[float]) -> dict[str, float]:
    v = sorted(values)
    def at(q: float) -> float:
        return round(1000 * v[int(q * (len(v) - 1))], 2)

    return {"n": len(v), "p50": round(1000 * statistics.median(v), 2), "p95": at(0.95), "p99": at(0.99),
            "max": round(1000 * v[-1], 2)}


def poll_latency(client: httpx.Client, job_id: str, n: int) -> dict[str, Any]:
    """``n`` status polls interleaved with ``n`` healthz calls on one keep-alive connection."""
    polls, health = [], []
    for _ in range(n):
        t = time.perf_counter()
        assert client.get(f"/v1/generations/{job_id}").status_code == 200
        polls.append(time.perf_counter() - t)
        t = time.perf_counter()
        assert client.get("/healthz").status_code == 200
        health.append(time.perf_counter() - t)
    p, h = _ms(polls), _ms(health)
    return {"status_poll_ms": p, "healthz_ms": h, "ratio_p50": round(p["p50"] / h["p50"], 3)}


async def _burst(url: str, n: int) -> tuple[list[httpx.Response], float]:
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
    async with httpx.AsyncClient(base_url=url, timeout=300, limits=limits) as client:
        t = time.perf_counter()
        out = await asyncio.gather(*(client.post("/v1/generations", json={**FAST, "seed": 1}) for _ in range(n)),
                                   return_exceptions=True)
        return [r for r in out if isinstance(r, httpx.Response)], time.perf_counter() - t


def concurrent(server: Server, n: int, polls: int) -> dict[str, Any]:
    from api.store import JobStore

    responses, seconds = asyncio.run(_burst(server.url, n))
    codes = Counter(r.status_code for r in responses)
    accepted = [r.json() for r in responses if r.status_code == 202]
    refused = [r for r in responses if r.status_code == 429]
    retry_after_ok = all(r.headers.get("retry-after", "").isdigit() and r.json().get("code") == "queue_full"
                         for r in refused)
    ids = {j["id"] for j in accepted}
    out: dict[str, Any] = {"submissions": n, "queue_limit": 10, "accepted": len(accepted), "refused_429": len(refused),
                           "other": n - len(accepted) - len(refused), "transport_errors": n - len(responses),
                           "status_codes": {str(k): v for k, v in sorted(codes.items())},
                           "refusals_with_retry_after_and_code": retry_after_ok, "burst_seconds": round(seconds, 2)}
    with httpx.Client(base_url=server.url, timeout=120) as client:
        listed = {j["id"] for j in client.get("/v1/generations", params={"limit": 100}).json()["items"]}
        store = JobStore(server.database_url, create=False)
        stored = {i for i in ids if store.get(i) is not None}
        order = sorted(accepted, key=lambda j: j["created_at"])
        client.get(f"/v1/generations/{order[0]['id']}")
        busy = poll_latency(client, order[0]["id"], polls)
        final = {i: _wait(client, i) for i in ids}
        idle = poll_latency(client, order[0]["id"], polls)
        store.close()
    out["lost"] = len(ids - listed) + len(ids - stored)
    out["final_status"] = dict(Counter(j["status"] for j in final.values()))
    out["unfinished"] = sum(j["status"] not in TERMINAL for j in final.values())
    out["all_succeeded"] = all(j["status"] == "succeeded" for j in final.values())
    out["seconds_per_job"] = [j["timings"].get("total") for j in final.values()]
    return {"concurrent": out, "latency": {"worker_busy": busy, "worker_idle": idle}}


def _wait_for_geometry(client: httpx.Client, job_id: str, timeout: float = 300) -> dict[str, Any]:
    """Poll until the job runs its geometry stage (where the kills strike); the job resource then."""
    deadline = time.monotonic() + timeout
    while True:
        cur: dict[str, Any] = client.get(f"/v1/generations/{job_id}").json()
        if cur["status"] == "running" and cur["stage"] == "geometry":
            return cur
        if time.monotonic() > deadline:
            raise RuntimeError(f"job never reached the geometry stage: {cur}")
        time.sleep(0.1)


def kill_worker(server: Server) -> dict[str, Any]:
    from api.store import JobStore

    with httpx.Client(base_url=server.url, timeout=120) as client:
        job = client.post("/v1/generations", json={**FAST, "seed": 3}).json()
        _wait_for_geometry(client, job["id"])
        pids = server.worker_pids()
        t_kill = time.perf_counter()
        os.kill(pids[0], signal.SIGKILL)
        done = _wait(client, job["id"])
        recovered = time.perf_counter() - t_kill
    store = JobStore(server.database_url, create=False)
    attempts = store.attempts(job["id"])
    store.close()
    published = sorted(p.name for p in (server.data_dir / "jobs" / job["id"]).iterdir())
    return {"killed_pid": pids[0], "final_status": done["status"], "attempts": done["attempts"],
            "attempt_outcomes": [a["outcome"] for a in attempts], "finished_exactly_once":
            [a["outcome"] for a in attempts].count("succeeded") == 1 and published == [f"files-{done['attempts']}"],
            "seconds_from_kill_to_success": round(recovered, 1), "files": [f["name"] for f in done["files"]]}


def _alive(pid: int) -> bool:
    from api.worker import process_alive

    return process_alive(pid)


def _wait_gone(pids: list[int], timeout: float) -> list[int]:
    """Wait until none of ``pids`` runs (or ``timeout``); the pids still running."""
    deadline = time.monotonic() + timeout
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    return [p for p in pids if _alive(p)]


def kill_server(server: Server, what: str) -> tuple[dict[str, Any], Server]:
    """kill -9 of the server (``what="server"``: the uvicorn process alone, its worker runs on as an orphan) or of
    the server and its workers together (``"both"``: the process group) while the worker runs a job in its geometry
    stage; then a new server starts on the same data folder and job store. Returns the figures and the new server.

    Recorded: who finished the job, its attempts and their outcomes, seconds from the restart (the new server's
    process start) to the retry's start and to success, seconds of work redone (the killed attempt's run time),
    exactly once (one succeeded attempt, one published folder, no run folder left), and that the old workers are
    gone afterwards (an orphan stops after its job: its parent is gone)."""
    from api.store import JobStore

    with httpx.Client(base_url=server.url, timeout=120) as client:
        job = client.post("/v1/generations", json={**FAST, "seed": 5 if what == "server" else 7}).json()
        cur = _wait_for_geometry(client, job["id"])
    workers = server.worker_pids()
    t_kill = time.time()
    if what == "both":
        os.killpg(server.proc.pid, signal.SIGKILL)
    else:
        os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait()
    t_restart = time.time()
    new = server.restart()
    ready = time.time()
    with httpx.Client(base_url=new.url, timeout=120) as client:
        done = _wait(client, job["id"])
    t_done = time.time()  # a bound: the poll that saw the end
    orphans_left = _wait_gone(workers, timeout=600)
    store = JobStore(new.database_url, create=False)
    attempts = store.attempts(job["id"])
    store.close()
    outcomes = [a["outcome"] for a in attempts]
    job_dir = new.data_dir / "jobs" / job["id"]
    published = sorted(p.name for p in job_dir.iterdir() if p.name != "input.png")
    first, last = attempts[0], attempts[-1]
    killed_pids = {str(p) for p in workers}
    out: dict[str, Any] = {
        "killed": "server (uvicorn, kill -9 of its pid); its worker ran on" if what == "server" else
                  "server and its workers (kill -9 of the process group)",
        "stage_at_kill": cur["stage"], "progress_at_kill": cur["progress"],
        "final_status": done["status"], "attempts": done["attempts"], "attempt_outcomes": outcomes,
        "attempt_workers": [a["worker"] for a in attempts],
        "finished_by": "the old server's worker (orphaned)" if last["worker"].split(":")[1] in killed_pids
                       else "the new server's worker",
        "retried": len(attempts) > 1,
        "finished_exactly_once": outcomes.count("succeeded") == 1 and done["status"] == "succeeded"
                                 and published == [f"files-{done['attempts']}"],
        "published": published,
        "seconds_kill_to_restart": round(t_restart - t_kill, 2),
        "seconds_restart_to_ready": round(ready - t_restart, 1),
        "seconds_restart_to_retry_start": round(last["started_at"] - t_restart, 1) if len(attempts) > 1 else None,
        "seconds_restart_to_success": round((last["ended_at"] or t_done) - t_restart, 1),
        "seconds_redone": round(t_kill - first["started_at"], 1) if len(attempts) > 1 else 0.0,
        "old_workers_still_running": orphans_left}
    return out, new


def fuzz(max_examples: int) -> dict[str, Any]:
    """Every operation, on valid and on invalid data, every schemathesis check (as tests/api/test_schemathesis.py:
    a refusal of an image whose pixels JSON Schema cannot describe is not counted as a failure)."""
    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from hypothesis.errors import Unsatisfiable
    from schemathesis.checks import CHECKS, load_all_checks
    from schemathesis.core.failures import Failure, FailureGroup
    from schemathesis.generation.modes import GenerationMode

    from api import Settings, create_app

    image_codes = {"invalid_image", "invalid_image_dimensions", "unsupported_image", "image_too_many_pixels",
                   "image_side_too_long"}
    load_all_checks()
    checks = list(CHECKS.get_all())
    statuses: Counter[int] = Counter()
    per_op: dict[str, int] = {}
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(Settings(data_dir=Path(tmp) / "data", workers=0, queue_limit=10**6))
        schema = schemathesis.openapi.from_asgi("/openapi.json", app)
        for result in schema.get_all_operations():
            op = result.ok()
            name = f"{op.method.upper()} {op.path}"
            per_op[name] = 0
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                def run(op: Any = op, name: str = name, mode: GenerationMode = mode) -> None:
                    @given(case=op.as_strategy(generation_mode=mode))
                    @settings(max_examples=max_examples, deadline=None, suppress_health_check=list(HealthCheck),
                              database=None)
                    def check(case: Any) -> None:
                        response = case.call()
                        statuses[response.status_code] += 1
                        per_op[name] += 1
                        try:
                            case.validate_response(response, checks=checks)
                        except (Failure, FailureGroup) as exc:
                            found = list(exc.exceptions) if isinstance(exc, FailureGroup) else [exc]
                            code = response.json().get("code") if response.status_code >= 400 else None
                            failures.extend(f"{mode.value} {name}: {f.title}" for f in found
                                            if not (f.title == "Schema-valid request rejected" and code in image_codes))

                    try:
                        check()
                    except Unsatisfiable:
                        if mode == GenerationMode.POSITIVE:
                            failures.append(f"{name}: no valid request could be generated")

                run()
    return {"max_examples_per_operation_and_mode": max_examples, "modes": ["positive", "negative"],
            "checks": sorted(c.__name__ for c in checks), "operations": len(per_op),
            "cases": sum(per_op.values()), "cases_per_operation": per_op,
            "status_codes": {str(k): v for k, v in sorted(statuses.items())},
            "server_errors_5xx": sum(v for k, v in statuses.items() if k >= 500), "failures": len(failures),
            "failure_kinds": dict(Counter(failures))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--polls", type=int, default=300)
    parser.add_argument("--examples", type=int, default=50, help="schemathesis examples per operation")
    parser.add_argument("--backends", default="sqlite,postgresql", help="job stores to run on, comma-separated")
    args = parser.parse_args()
    started = time.time()
    doc: dict[str, Any] = {"benchmark": "REST service reliability (live server, 1 local worker, 2 CPU cores)",
                           "command": f"python eval/bench_service.py --submissions {args.submissions} "
                                      f"--polls {args.polls} --examples {args.examples} --backends {args.backends}",
                           "machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version()}
    for backend in args.backends.split(","):
        cluster = None
        url = None
        if backend == "postgresql":  # a throwaway cluster, as the tests start one
            sys.path.insert(0, str(ROOT))
            from tests.api.postgres import PostgresCluster

            cluster = PostgresCluster()
            cluster.start()
            url = cluster.new_database()
        part: dict[str, Any] = {}
        try:
            with tempfile.TemporaryDirectory() as tmp:
                servers = [Server(Path(tmp) / "data", queue_limit=10, database_url=url)]
                try:
                    part.update(concurrent(servers[0], args.submissions, args.polls))
                    part["kill9"] = kill_worker(servers[0])
                    for what in ("server", "both"):
                        part[f"kill9_{what}"], new = kill_server(servers[-1], what)
                        servers.append(new)
                finally:
                    for server in servers:
                        server.stop()
        finally:
            if cluster is not None:
                cluster.stop()
        doc[backend] = part
    doc["schemathesis"] = fuzz(args.examples)
    doc["seconds"] = round(time.time() - started, 1)
    RESULTS.mkdir(exist_ok=True)
    from seed3d.asset import atomic_file

    with atomic_file(RESULTS / "service.json") as f:
        f.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc, indent=2))


if __name__ == "__main__":
    main()
