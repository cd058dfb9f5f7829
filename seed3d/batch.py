"""Batch generation: every job of a CSV or JSONL manifest through ``run_job``, resumable, on local worker processes
or a Ray cluster.

Layout of the output folder ``DIR``::

    DIR/items/<key>/     one finished asset folder per job (``JobSpec.key()``: a hash of inputs and options),
                         written atomically by ``run_job``, so a folder that exists is complete
    DIR/summary.csv      one row per manifest row: status, validity (valid, physically sound, functional, the
                         failed checks' names), parts, joints, seconds, folder, error
    DIR/summary.json     the same with counts and settings; written last, after the CSV

A job whose folder exists is skipped (resume is the default), so an interrupted batch continues where it stopped
and each job is generated once; two manifest rows with the same key share one folder. A job that fails is
recorded (its error in one line) and the batch goes on; failed jobs run again on the next resume. A row with
``require_valid`` whose asset fails validation is a failed row naming the failed checks (its folder is kept).

Backends: ``inline`` (this process, the pipeline loaded once), ``processes`` (``workers`` spawned processes, each
loading the pipeline once) and ``ray`` (``workers`` Ray actors, each asking for one CPU, and one GPU when the
device is cuda; ``ray="local"`` starts a cluster on this machine, otherwise ``ray`` is the address of a running
one and ``DIR`` must be on storage every node can write).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from seed3d.asset import atomic_file
from seed3d.errors import AssetInvalidError, InvalidInputError, Seed3DError
from seed3d.pipeline import JobSpec, Seed3DPipeline, check_device, invalid_asset_message, run_job, verdict_of_report
from seed3d.typed import PathType

log = logging.getLogger(__name__)

#: Manifest fields: those of ``JobSpec``.
FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(JobSpec))
_INTS = ("seed", "target_faces", "texture_size", "steps", "resolution")
_LISTS = ("stages", "formats")
#: Columns of summary.csv (and keys of each summary row).
SUMMARY_COLUMNS: tuple[str, ...] = ("row", "key", "name", "status", "valid", "sound", "functional", "failed_checks",
                                    "parts", "joints", "movable_joints", "faces", "seconds", "folder", "error")
_BOOLS = ("require_valid",)
_TRUE, _FALSE = ("true", "yes", "1", "y", "on"), ("false", "no", "0", "n", "off")


class ManifestError(InvalidInputError):
    """The manifest cannot be read as jobs (its format, not one job's values)."""


@dataclass
class ManifestRow:
    """One manifest row: its number (data rows count from 1), the job (None when its values are bad), its key."""

    row: int
    spec: JobSpec | None = None
    key: str | None = None
    error: str | None = None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return first if isinstance(exc, Seed3DError) else f"{type(exc).__name__}: {first}"


_DEFAULT = object()  # a manifest value that means "the field's default"
_NULLABLE = ("text", "image", "target_faces", "name", "category")


def _convert(name: str, value: Any, base: Path) -> Any:
    """A manifest value as the ``JobSpec`` field ``name`` wants it (CSV cells are strings): an empty cell (or
    null for a field that cannot be None) is the default; "none" (or null) sets target_faces to None."""
    if value is None:
        return None if name in _NULLABLE else _DEFAULT
    if isinstance(value, str):
        value = value.strip()
        if value == "":
            return _DEFAULT
        if name == "target_faces" and value.lower() == "none":
            return None
        if name in _INTS:
            try:
                return int(value)
            except ValueError:
                raise InvalidInputError(f"{name} must be an integer, got {value!r}") from None
        if name in _BOOLS:
            if value.lower() in _TRUE + _FALSE:
                return value.lower() in _TRUE
            raise InvalidInputError(f"{name} must be true or false, got {value!r}")
        if name == "guidance":
            try:
                return float(value)
            except ValueError:
                raise InvalidInputError(f"guidance must be a number, got {value!r}") from None
        if name in _LISTS:
            return tuple(v for v in value.replace(";", ",").replace("|", ",").replace(" ", ",").split(",") if v)
    if name in _LISTS and isinstance(value, list):
        return tuple(value)
    if name == "image" and isinstance(value, str):
        path = Path(value).expanduser()
        return str(path if path.is_absolute() else base / path)
    return value


def _records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(row number, raw fields) of a .csv (header row) or .jsonl (one object per line) manifest."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ManifestError(f"{path}: no such manifest file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{path}: cannot read the manifest ({exc})") from None
    suffix = path.suffix.lower()
    records: list[tuple[int, dict[str, Any]]] = []
    if suffix == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        header = [h.strip() for h in reader.fieldnames or []]
        if not header:
            raise ManifestError(f"{path}: empty CSV manifest (it needs a header row of job fields)")
        unknown = [h for h in header if h not in FIELDS]
        if unknown:
            raise ManifestError(f"{path}: unknown column(s) {', '.join(map(repr, unknown))}; columns are "
                                f"{', '.join(FIELDS)}")
        reader.fieldnames = header
        for i, rec in enumerate(reader, start=1):
            if None in rec:
                raise ManifestError(f"{path}: data row {i} has more cells than the header")
            if any((v or "").strip() for v in rec.values()):
                records.append((i, {k: v for k, v in rec.items() if v is not None}))
    elif suffix in (".jsonl", ".ndjson"):
        for i, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ManifestError(f"{path}: line {i} is not JSON ({exc.msg})") from None
            if not isinstance(rec, dict):
                raise ManifestError(f"{path}: line {i} is not a JSON object of job fields")
            unknown = [k for k in rec if k not in FIELDS]
            if unknown:
                raise ManifestError(f"{path}: line {i}: unknown field(s) {', '.join(map(repr, unknown))}; fields "
                                    f"are {', '.join(FIELDS)}")
            records.append((i, rec))
    else:
        raise ManifestError(f"{path}: a manifest is a .csv or .jsonl file, got {path.suffix or 'no extension'!r}")
    if not records:
        raise ManifestError(f"{path}: the manifest lists no jobs")
    return records


def read_manifest(path: PathType) -> list[ManifestRow]:
    """The jobs of a manifest; a row whose values make no valid job carries its error instead of a spec.

    Raises ``ManifestError`` when the file itself is unusable (missing, wrong format, unknown fields, no jobs).
    Image paths are relative to the manifest's folder.
    """
    path = Path(path)
    base = path.resolve().parent
    rows = []
    for number, rec in _records(path):
        try:
            values = {k: _convert(k, v, base) for k, v in rec.items()}
            spec = JobSpec(**{k: v for k, v in values.items() if v is not _DEFAULT})
            rows.append(ManifestRow(number, spec, spec.key()))
        except Seed3DError as exc:
            rows.append(ManifestRow(number, error=_one_line(exc)))
        except (TypeError, ValueError) as exc:
            rows.append(ManifestRow(number, error=f"bad value: {exc}"))
    return rows


def finished_summary(folder: Path) -> dict[str, Any] | None:
    """The ``run_job`` summary of a complete item folder (from its report.json), else None."""
    try:
        doc = json.loads((folder / "report.json").read_text())
    except (OSError, json.JSONDecodeError):
        return None
    summary = doc.get("summary") if isinstance(doc, dict) else None
    if not isinstance(summary, dict):
        return None
    if "failed_checks" not in summary:  # folders written before the summary carried the verdict
        summary = {**summary, **verdict_of_report(doc)}
    return summary


# --------------------------------------------------------------------------------------------- running items


def _run_item(pipe: Seed3DPipeline, spec: dict[str, Any], folder: str, device: str) -> dict[str, Any]:
    """Run one job into ``folder``; returns {"status": "done", "summary", "seconds"} or {"status": "failed",
    "error", "seconds"} (errors never escape, except interrupts)."""
    t0 = time.perf_counter()
    try:
        summary = run_job(JobSpec(**spec), folder, pipe=pipe, device=device, overwrite=True)
        return {"status": "done", "summary": summary, "seconds": round(time.perf_counter() - t0, 3)}
    except AssetInvalidError as exc:  # require_valid: a failed row that still shows its asset and checks
        return {"status": "failed", "error": _one_line(exc), "summary": exc.summary,
                "seconds": round(time.perf_counter() - t0, 3)}
    except Exception as exc:
        if not isinstance(exc, Seed3DError):
            log.error("job in %s failed unexpectedly", folder, exc_info=exc)
        return {"status": "failed", "error": _one_line(exc), "seconds": round(time.perf_counter() - t0, 3)}


_WORKER_PIPE: Seed3DPipeline | None = None
_WORKER_DEVICE = "cpu"


def _worker_init(weights: str | None, device: str, low_memory: bool, threads: int) -> None:
    """Process-pool initialiser: load the pipeline once per worker process."""
    global _WORKER_PIPE, _WORKER_DEVICE
    import torch

    torch.set_num_threads(max(1, threads))
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    _WORKER_PIPE = Seed3DPipeline.from_pretrained(weights, device=device, low_memory=low_memory)
    _WORKER_DEVICE = device


def _worker_run(key: str, spec: dict[str, Any], folder: str) -> tuple[str, dict[str, Any]]:
    assert _WORKER_PIPE is not None, "worker process was not initialised"
    return key, _run_item(_WORKER_PIPE, spec, folder, _WORKER_DEVICE)


class _RayWorker:
    """A Ray actor holding one loaded pipeline."""

    def __init__(self, weights: str | None, device: str, low_memory: bool) -> None:
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
        self.pipe = Seed3DPipeline.from_pretrained(weights, device=device, low_memory=low_memory)
        self.device = device

    def run(self, key: str, spec: dict[str, Any], folder: str) -> tuple[str, dict[str, Any]]:
        """Run one job (see ``_run_item``)."""
        return key, _run_item(self.pipe, spec, folder, self.device)


Task = tuple[str, dict[str, Any], str]  # key, JobSpec fields, item folder


def _inline(tasks: list[Task], weights: str | None, device: str, low_memory: bool) -> Iterator[tuple[str, dict]]:
    pipe = Seed3DPipeline.from_pretrained(weights, device=device, low_memory=low_memory)
    for key, spec, folder in tasks:
        yield key, _run_item(pipe, spec, folder, device)


def _processes(tasks: list[Task], workers: int, weights: str | None, device: str, low_memory: bool
               ) -> Iterator[tuple[str, dict]]:
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    threads = max(1, (os.cpu_count() or 1) // workers)
    with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"), initializer=_worker_init,
                             initargs=(weights, device, low_memory, threads)) as pool:
        pending = {pool.submit(_worker_run, *t): t[0] for t in tasks}
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    key = pending.pop(fut)
                    try:
                        yield fut.result()
                    except Exception as exc:  # a worker process died (killed, out of memory)
                        yield key, {"status": "failed", "error": f"worker process failed: {_one_line(exc)}",
                                    "seconds": None}
        finally:
            for fut in pending:
                fut.cancel()


def _ray(tasks: list[Task], workers: int, address: str, weights: str | None, device: str, low_memory: bool
         ) -> Iterator[tuple[str, dict]]:
    try:
        import ray
        from ray.util import ActorPool
    except ImportError as exc:
        raise InvalidInputError(f"--ray needs the ray package (pip install 'ray[default]'): {exc}") from None
    started_here = not ray.is_initialized()
    if started_here:
        if address == "local":
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                     runtime_env={"env_vars": {"OMP_NUM_THREADS": "1"}})
        else:
            ray.init(address=address, log_to_driver=False)
    try:
        gpus = 1 if device.startswith("cuda") else 0
        actor = ray.remote(num_cpus=1, num_gpus=gpus)(_RayWorker)
        actors = [actor.remote(weights, device, low_memory) for _ in range(workers)]
        pool = ActorPool(actors)
        for t in tasks:
            pool.submit(lambda a, v: a.run.remote(*v), t)
        while pool.has_next():
            try:
                yield pool.get_next_unordered()
            except ray.exceptions.RayError as exc:
                # an actor died (jobs' own errors come back as results): ActorPool cannot tell which job it ran,
                # so the batch stops here; finished folders stay and a resumed run does the rest
                raise Seed3DError(f"a Ray actor failed ({_one_line(exc)}); run the batch again to resume") from exc
    finally:
        if started_here:
            ray.shutdown()


# --------------------------------------------------------------------------------------------- the batch


@dataclass
class BatchResult:
    """What a batch did: one summary row per manifest row, counts, where the summary files are."""

    out: Path
    rows: list[dict[str, Any]]
    backend: str
    workers: int
    seconds: float
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """0 when every job is finished and valid, 1 otherwise."""
        return 0 if all(r["status"] in ("done", "resumed") and r["valid"] for r in self.rows) else 1


def _summary_row(row: ManifestRow, result: dict[str, Any] | None, items: Path, out: Path) -> dict[str, Any]:
    doc: dict[str, Any] = dict.fromkeys(SUMMARY_COLUMNS)
    doc.update(row=row.row, key=row.key)
    if row.error is not None:
        doc.update(status="failed", error=row.error)
        return doc
    assert row.spec is not None and row.key is not None and result is not None
    doc.update(name=row.spec.asset_name(), status=result["status"], seconds=result.get("seconds"))
    if result["status"] == "failed":
        doc["error"] = result["error"]
    s = result.get("summary")
    if s is not None:
        doc.update(valid=bool(s.get("valid")), sound=s.get("sound"), functional=s.get("functional"),
                   failed_checks=list(s.get("failed_checks") or []), parts=s.get("parts"), joints=s.get("joints"),
                   movable_joints=s.get("movable_joints"), faces=s.get("faces"), name=s.get("name", doc["name"]),
                   folder=(items / row.key).relative_to(out).as_posix())
        if doc["seconds"] is None:
            doc["seconds"] = (s.get("timings") or {}).get("total")
        if row.spec.require_valid and doc["status"] != "failed" and not doc["valid"]:
            doc.update(status="failed", error=invalid_asset_message(s))  # a resumed folder that never passed
    return doc


def _write_summary(result: BatchResult, manifest: Path) -> None:
    with atomic_file(result.out / "summary.csv") as tmp, tmp.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=SUMMARY_COLUMNS)
        writer.writeheader()
        writer.writerows({**r, "failed_checks": ";".join(r["failed_checks"] or [])} for r in result.rows)
    doc = {"manifest": str(manifest), "backend": result.backend, "workers": result.workers,
           "seconds": round(result.seconds, 3), "counts": result.counts, "items": result.rows}
    with atomic_file(result.out / "summary.json") as tmp:
        tmp.write_text(json.dumps(doc, indent=2) + "\n")


def run_batch(manifest: PathType, out: PathType, *, workers: int = 1, ray: str | None = None,
              weights: PathType | None = None, device: str = "cpu", resume: bool = True, low_memory: bool = False,
              show_progress: bool = False, on_result: Callable[[dict[str, Any]], None] | None = None) -> BatchResult:
    """Run every job of ``manifest`` into ``out/items/<key>``; write ``out/summary.csv`` then
    ``out/summary.json``; returns the ``BatchResult``.

    ``workers``: 1 runs in this process; more spawn that many local processes (or Ray actors with ``ray``).
    ``ray``: "local" (start a cluster here) or the address of a running cluster. ``resume`` skips jobs whose
    folder is complete (else they run again and replace it). ``on_result(row)`` is called as each manifest row
    gets its result. A bad manifest raises ``ManifestError`` before anything runs.
    """
    t_start = time.perf_counter()
    if workers < 1:
        raise InvalidInputError(f"workers must be at least 1, got {workers}")
    check_device(device)
    manifest, out = Path(manifest), Path(out)
    rows = read_manifest(manifest)
    if out.exists() and not out.is_dir():
        raise InvalidInputError(f"{out} exists and is not a folder")
    items = out / "items"
    items.mkdir(parents=True, exist_ok=True)
    weights_str = str(Path(weights).resolve()) if weights is not None else None
    backend = "ray" if ray else ("processes" if workers > 1 else "inline")

    results: dict[str, dict[str, Any]] = {}
    tasks: list[Task] = []
    queued: set[str] = set()
    for r in rows:
        if r.key is None or r.key in results or r.key in queued:
            continue
        queued.add(r.key)
        done = finished_summary(items / r.key) if resume else None
        if done is not None:
            results[r.key] = {"status": "resumed", "summary": done, "seconds": None}
        else:
            assert r.spec is not None
            tasks.append((r.key, r.spec.to_dict(), str(items / r.key)))
    log.info("batch %s: %d rows, %d jobs to run, %d finished before (%s backend)", manifest, len(rows), len(tasks),
             len(results), backend)

    by_key: dict[str, list[ManifestRow]] = {}
    for r in rows:
        if r.key is not None:
            by_key.setdefault(r.key, []).append(r)
    summary_rows: dict[int, dict[str, Any]] = {}

    def record(row: ManifestRow, result: dict[str, Any] | None) -> None:
        doc = _summary_row(row, result, items, out)
        summary_rows[row.row] = doc
        if on_result is not None:
            on_result(doc)

    bar = None
    if show_progress:
        from tqdm import tqdm

        bar = tqdm(total=len(rows), desc="batch", unit="job", file=sys.stderr, leave=True)
    try:
        for r in rows:
            if r.key is None or r.key in results:
                record(r, results.get(r.key) if r.key else None)
                if bar is not None:
                    bar.update(1)
        if tasks:
            if backend == "ray":
                stream = _ray(tasks, workers, str(ray), weights_str, device, low_memory)
            elif backend == "processes":
                stream = _processes(tasks, min(workers, len(tasks)), weights_str, device, low_memory)
            else:
                stream = _inline(tasks, weights_str, device, low_memory)
            for key, result in stream:
                results[key] = result
                for r in by_key[key]:
                    record(r, result)
                if bar is not None:
                    bar.update(len(by_key[key]))
                    failed = sum(d["status"] == "failed" for d in summary_rows.values())
                    bar.set_postfix_str(f"{failed} failed" if failed else "", refresh=True)
    finally:
        if bar is not None:
            bar.close()

    ordered = [summary_rows[r.row] for r in rows]
    counts = {s: sum(d["status"] == s for d in ordered) for s in ("done", "resumed", "failed")}
    counts["valid"] = sum(bool(d["valid"]) for d in ordered)
    counts["rows"] = len(ordered)
    result = BatchResult(out, ordered, backend, workers, time.perf_counter() - t_start, counts)
    _write_summary(result, manifest)
    return result


def format_summary(result: BatchResult) -> str:
    """The summary as a text table, one line per manifest row, and a totals line."""
    head = f"{'row':>4}  {'status':8} {'valid':5} {'parts':>5} {'joints':>6} {'sec':>7}  name / error / failed checks"
    lines = [head, "-" * len(head)]
    for d in result.rows:
        valid = "-" if d["valid"] is None else ("yes" if d["valid"] else "NO")
        sec = "-" if d["seconds"] is None else f"{d['seconds']:.1f}"
        what = d["error"] if d["status"] == "failed" else f"{d['name']}  ({d['folder']})"
        if d["failed_checks"] and d["status"] != "failed":
            what += f"  failed: {', '.join(d['failed_checks'])}"
        lines.append(f"{d['row']:>4}  {d['status']:8} {valid:5} {d['parts'] if d['parts'] is not None else '-':>5} "
                     f"{d['joints'] if d['joints'] is not None else '-':>6} {sec:>7}  {what}")
    c = result.counts
    lines.append(f"{c['rows']} rows: {c['done']} generated, {c['resumed']} already done, {c['failed']} failed; "
                 f"{c['valid']} valid; {result.seconds:.1f} s ({result.backend}, {result.workers} worker(s))")
    lines.append(f"summary: {result.out / 'summary.json'}  {result.out / 'summary.csv'}")
    return "\n".join(lines)

