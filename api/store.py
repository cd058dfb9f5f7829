"""The job store: jobs, attempts, uploads and API keys in one SQL database (SQLAlchemy).

SQLite (WAL journal, synchronous=FULL, ``BEGIN IMMEDIATE`` for writes) is the default; PostgreSQL works by URL.
Every state change is one short transaction guarded by a compare-and-set ``WHERE`` clause, so concurrent
workers and API threads never both win: a job is claimed by one worker (``lease_owner``), renewed by that
worker's heartbeats, and finished only by the worker that still holds its lease. A job whose lease ran out is
claimed again (a new attempt) until ``max_attempts``; then it fails with code ``worker_lost``.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    and_,
    create_engine,
    event,
    func,
    select,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from seed3d.errors import Seed3DError

log = logging.getLogger(__name__)

#: Job statuses; the last three are terminal.
STATUSES: tuple[str, ...] = ("queued", "running", "succeeded", "failed", "canceled")
TERMINAL: frozenset[str] = frozenset({"succeeded", "failed", "canceled"})
ACTIVE: tuple[str, ...] = ("queued", "running")


#: 64-bit keys and counters: BIGINT (BIGSERIAL for keys) on PostgreSQL; on SQLite an ``INTEGER PRIMARY KEY`` (the
#: rowid, 64-bit already, which a BIGINT key would not be).
BIGINT_KEY = BigInteger().with_variant(Integer(), "sqlite")
#: Columns that were 32-bit INTEGER in stores created before 0.1 and are widened when such a store is opened.
_WIDENED: tuple[tuple[str, str], ...] = (("jobs", "seq"), ("jobs", "version"), ("attempts", "id"), ("uploads", "size"))


class Base(DeclarativeBase):
    """Declarative base of the service's tables."""


class JobRow(Base):
    """One job (generation or scene)."""

    __tablename__ = "jobs"
    seq: Mapped[int] = mapped_column(BIGINT_KEY, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(40), unique=True, nullable=False)
    owner: Mapped[str] = mapped_column(String(64), nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="queued")
    stage: Mapped[str | None] = mapped_column(String(64))
    message: Mapped[str | None] = mapped_column(Text)
    progress: Mapped[float] = mapped_column(Float, nullable=False, default=0.0)
    options: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    input_path: Mapped[str | None] = mapped_column(String(255))
    idempotency_key: Mapped[str | None] = mapped_column(String(255))
    request_hash: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[float] = mapped_column(Float, nullable=False)
    started_at: Mapped[float | None] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=3)
    lease_owner: Mapped[str | None] = mapped_column(String(128))
    lease_expires_at: Mapped[float | None] = mapped_column(Float)
    cancel_requested: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    timings: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    error_code: Mapped[str | None] = mapped_column(String(64))
    error_detail: Mapped[str | None] = mapped_column(Text)
    files: Mapped[list[dict[str, Any]]] = mapped_column(JSON, nullable=False, default=list)
    files_dir: Mapped[str | None] = mapped_column(String(255))
    summary: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False, default=dict)
    expired: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    version: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)

    __table_args__ = (
        UniqueConstraint("owner", "idempotency_key", name="uq_jobs_owner_idempotency"),
        Index("ix_jobs_status_seq", "status", "seq"),
        Index("ix_jobs_owner_seq", "owner", "seq"),
    )


class AttemptRow(Base):
    """One attempt at a job by one worker, and how it ended (running, succeeded, failed, canceled, lost)."""

    __tablename__ = "attempts"
    id: Mapped[int] = mapped_column(BIGINT_KEY, primary_key=True, autoincrement=True)
    job_id: Mapped[str] = mapped_column(String(40), ForeignKey("jobs.id"), nullable=False, index=True)
    attempt: Mapped[int] = mapped_column(Integer, nullable=False)
    worker: Mapped[str] = mapped_column(String(128), nullable=False)
    started_at: Mapped[float] = mapped_column(Float, nullable=False)
    ended_at: Mapped[float | None] = mapped_column(Float)
    outcome: Mapped[str] = mapped_column(String(16), nullable=False, default="running")

    __table_args__ = (UniqueConstraint("job_id", "attempt", name="uq_attempts_job_attempt"),
                      Index("ix_attempts_ended_at", "ended_at"))


class UploadRow(Base):
    """An uploaded image, stored under a name the server chose."""

    __tablename__ = "uploads"
    token: Mapped[str] = mapped_column(String(64), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64), nullable=False, index=True)
    path: Mapped[str] = mapped_column(String(255), nullable=False)
    size: Mapped[int] = mapped_column(BigInteger, nullable=False)
    sha256: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[float] = mapped_column(Float, nullable=False)
    expires_at: Mapped[float] = mapped_column(Float, nullable=False, index=True)


class ApiKeyRow(Base):
    """An API key: public id, salt and sha256 of salt + secret (the secret itself is never stored)."""

    __tablename__ = "api_keys"
    key_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(128), nullable=False)
    salt: Mapped[str] = mapped_column(String(64), nullable=False)
    digest: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[float] = mapped_column(Float, nullable=False)
    revoked_at: Mapped[float | None] = mapped_column(Float)


JOB_COLUMNS = [c.name for c in JobRow.__table__.columns]


@dataclass
class Claim:
    """A job a worker has claimed: its row (as a dict) and the attempt number."""

    job: dict[str, Any]
    attempt: int


class QueueFullError(Exception):
    """The queue holds ``limit`` active jobs already."""

    def __init__(self, active: int, limit: int) -> None:
        super().__init__(f"{active} jobs are queued or running (limit {limit})")
        self.active, self.limit = active, limit


class IdempotencyConflict(Exception):
    """The Idempotency-Key was used before with another request body."""


def new_id(prefix: str = "job") -> str:
    """A random, URL-safe identifier such as ``job_3f9c...`` (80 bits)."""
    return f"{prefix}_{secrets.token_hex(10)}"


def _sqlite_engine(url: str) -> Engine:
    engine = create_engine(url, connect_args={"timeout": 60, "check_same_thread": False}, pool_pre_ping=False)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (below)
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=FULL")
        cur.execute("PRAGMA busy_timeout=60000")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # writes take the write lock up front, so a transaction never has to upgrade a read lock (which SQLite
        # refuses with SQLITE_BUSY instead of waiting when another writer committed in between)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("write") else "BEGIN")

    return engine


def _server_engine(url: str) -> Engine:
    """The engine of a database server (PostgreSQL): a pool as large as the API's thread pool can use at once."""
    if url.startswith(("postgresql://", "postgres://")):  # the driver Seed3D installs, not SQLAlchemy's default
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    try:
        return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=40)
    except ModuleNotFoundError as exc:  # the URL names a driver that is not installed
        hint = ("write the URL as postgresql+psycopg://... (Seed3D installs psycopg 3)" if exc.name == "psycopg2"
                else "pip install 'psycopg[binary]' (part of Seed3D's default install)")
        raise StoreError(f"job store {url.split('://')[0]}://...: the Python module {exc.name!r} is not "
                         f"installed; {hint}") from None


class StoreError(Seed3DError):
    """The job store cannot be opened as configured."""


class JobStore:
    """All reads and writes of the service's tables."""

    def __init__(self, url: str, create: bool = True) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        self.engine = _sqlite_engine(url) if self.is_sqlite else _server_engine(url)
        if create:
            Base.metadata.create_all(self.engine)
            if self.engine.dialect.name == "postgresql":
                self._widen_postgresql()

    def close(self) -> None:
        """Release the connection pool."""
        self.engine.dispose()

    @property
    def max_seq(self) -> int:
        """The largest job sequence number the ``jobs.seq`` column holds (64-bit on every backend)."""
        return 2**63 - 1

    def _widen_postgresql(self) -> None:
        """Widen the 32-bit columns (and the sequences behind the keys) of a PostgreSQL store created by an
        earlier version to BIGINT; a no-op on a store created by this one."""
        with self._write() as conn:
            for table, column in _WIDENED:
                kind = conn.exec_driver_sql(
                    "SELECT data_type FROM information_schema.columns WHERE table_schema = current_schema() "
                    "AND table_name = %(t)s AND column_name = %(c)s", {"t": table, "c": column}).scalar()
                if kind != "integer":
                    continue
                log.warning("job store: widening %s.%s from integer to bigint", table, column)
                conn.exec_driver_sql(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" TYPE BIGINT')
                sequence = conn.exec_driver_sql("SELECT pg_get_serial_sequence(%(t)s, %(c)s)",
                                                {"t": table, "c": column}).scalar()
                if sequence:
                    conn.exec_driver_sql(f"ALTER SEQUENCE {sequence} AS BIGINT")

    @contextlib.contextmanager
    def _write(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            conn = conn.execution_options(write=True)
            with conn.begin():
                yield conn

    @contextlib.contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn, conn.begin():
            yield conn

    # ------------------------------------------------------------------------------------------ jobs

    def get(self, job_id: str, owner: str | None = None) -> dict[str, Any] | None:
        """The job ``job_id`` as a dict (None when missing or owned by someone else than ``owner``)."""
        q = select(JobRow.__table__).where(JobRow.id == job_id)
        if owner is not None:
            q = q.where(JobRow.owner == owner)
        with self._read() as conn:
            row = conn.execute(q).mappings().first()
        return dict(row) if row else None

    def find_idempotent(self, owner: str, key: str) -> dict[str, Any] | None:
        """The job created earlier by ``owner`` with Idempotency-Key ``key``."""
        with self._read() as conn:
            row = conn.execute(select(JobRow.__table__).where(JobRow.owner == owner,
                                                              JobRow.idempotency_key == key)).mappings().first()
        return dict(row) if row else None

    def count_active(self) -> int:
        """Jobs queued or running."""
        with self._read() as conn:
            return int(conn.execute(select(func.count()).select_from(JobRow)
                                    .where(JobRow.status.in_(ACTIVE))).scalar_one())

    def create(self, *, owner: str, kind: str, options: dict[str, Any], max_attempts: int, queue_limit: int,
               job_id: str | None = None, input_path: str | None = None, idempotency_key: str | None = None,
               request_hash: str | None = None) -> tuple[dict[str, Any], bool]:
        """Insert a queued job and commit; returns (job, created).

        With an ``idempotency_key`` seen before for ``owner`` the earlier job comes back (``created`` False) when
        ``request_hash`` matches and ``IdempotencyConflict`` is raised when it does not. ``QueueFullError`` when
        ``queue_limit`` jobs are active. The caller serialises calls within one process (the queue check and
        the insert are two statements).
        """
        if idempotency_key is not None:
            earlier = self.find_idempotent(owner, idempotency_key)
            if earlier is not None:
                if earlier["request_hash"] != request_hash:
                    raise IdempotencyConflict(idempotency_key)
                return earlier, False
        active = self.count_active()
        if active >= queue_limit:
            raise QueueFullError(active, queue_limit)
        values = {"id": job_id or new_id(), "owner": owner, "kind": kind, "status": "queued", "options": options,
                  "input_path": input_path, "idempotency_key": idempotency_key, "request_hash": request_hash,
                  "created_at": time.time(), "max_attempts": max_attempts, "timings": {}, "files": [],
                  "summary": {}, "progress": 0.0, "attempts": 0, "cancel_requested": False, "expired": False,
                  "version": 0}
        try:
            with self._write() as conn:
                conn.execute(JobRow.__table__.insert().values(**values))
        except IntegrityError:
            if idempotency_key is None:
                raise
            earlier = self.find_idempotent(owner, idempotency_key)  # a concurrent request with the same key won
            if earlier is None:
                raise
            if earlier["request_hash"] != request_hash:
                raise IdempotencyConflict(idempotency_key) from None
            return earlier, False
        job = self.get(values["id"])
        assert job is not None
        return job, True

    def list(self, owner: str, limit: int, before_seq: int | None = None) -> list[dict[str, Any]]:
        """``owner``'s jobs, newest first, at most ``limit``, older than ``before_seq`` when given."""
        q = select(JobRow.__table__).where(JobRow.owner == owner)
        if before_seq is not None:
            q = q.where(JobRow.seq < before_seq)
        with self._read() as conn:
            rows = conn.execute(q.order_by(JobRow.seq.desc()).limit(limit)).mappings().all()
        return [dict(r) for r in rows]

    def queue_position(self, job: dict[str, Any]) -> int | None:
        """1 for the next job a worker will take; None unless queued."""
        if job["status"] != "queued":
            return None
        with self._read() as conn:
            ahead = conn.execute(select(func.count()).select_from(JobRow).where(
                JobRow.status == "queued", JobRow.seq < job["seq"])).scalar_one()
        return int(ahead) + 1

    def status_counts(self) -> dict[str, int]:
        """Jobs per status (every status present, zeros included)."""
        with self._read() as conn:
            rows = conn.execute(select(JobRow.status, func.count()).group_by(JobRow.status)).all()
        counts = dict.fromkeys(STATUSES, 0)
        counts.update({status: int(n) for status, n in rows})
        return counts

    def request_cancel(self, job_id: str, owner: str) -> dict[str, Any] | None:
        """Cancel ``job_id``: a queued job at once, a running one at its next stage boundary (its worker sees
        ``cancel_requested``); returns the job after the change (None when not found)."""
        now = time.time()
        with self._write() as conn:
            conn.execute(update(JobRow).where(JobRow.id == job_id, JobRow.owner == owner, JobRow.status == "queued")
                         .values(status="canceled", finished_at=now, cancel_requested=True,
                                 error_code="canceled", error_detail="canceled before it started",
                                 version=JobRow.version + 1))
            conn.execute(update(JobRow).where(JobRow.id == job_id, JobRow.owner == owner,
                                              JobRow.status == "running", JobRow.cancel_requested.is_(False))
                         .values(cancel_requested=True, version=JobRow.version + 1))
        return self.get(job_id, owner)

    # ------------------------------------------------------------------------------------------ workers

    def _fail_exhausted(self, conn: Connection, now: float) -> None:
        """Jobs whose lease ran out: fail those out of attempts, cancel those asked to cancel."""
        expired = and_(JobRow.status == "running", JobRow.lease_expires_at < now)
        rows = conn.execute(select(JobRow.id, JobRow.attempts, JobRow.max_attempts, JobRow.cancel_requested,
                                   JobRow.lease_owner).where(expired)).all()
        for job_id, attempts, max_attempts, cancel, owner in rows:
            conn.execute(update(AttemptRow).where(AttemptRow.job_id == job_id, AttemptRow.attempt == attempts,
                                                  AttemptRow.outcome == "running")
                         .values(outcome="lost", ended_at=now))
            if cancel:
                values = {"status": "canceled", "error_code": "canceled",
                          "error_detail": "canceled (its worker stopped before the next stage)"}
            elif attempts >= max_attempts:
                values = {"status": "failed", "error_code": "worker_lost",
                          "error_detail": f"the job's worker stopped responding on each of {attempts} attempt(s)"}
            else:
                log.warning("job %s: worker %s lost its lease; the job will be retried", job_id, owner)
                values = {"status": "queued", "stage": None, "message": "retrying: its worker stopped responding"}
                conn.execute(update(JobRow).where(JobRow.id == job_id, JobRow.status == "running",
                                                  JobRow.lease_owner == owner)
                             .values(**values, lease_owner=None, lease_expires_at=None, version=JobRow.version + 1))
                continue
            conn.execute(update(JobRow).where(JobRow.id == job_id, JobRow.status == "running",
                                              JobRow.lease_owner == owner)
                         .values(**values, finished_at=now, lease_expires_at=None, version=JobRow.version + 1))

    def claim(self, worker: str, lease_s: float) -> Claim | None:
        """Claim the oldest queued job for ``worker`` (after recycling lost leases); None when there is none."""
        now = time.time()
        with self._write() as conn:
            self._fail_exhausted(conn, now)
            seq = conn.execute(select(JobRow.seq).where(JobRow.status == "queued")
                               .order_by(JobRow.seq).limit(1)).scalar()
            if seq is None:
                return None
            res = conn.execute(update(JobRow).where(JobRow.seq == seq, JobRow.status == "queued").values(
                status="running", lease_owner=worker, lease_expires_at=now + lease_s,
                attempts=JobRow.attempts + 1, started_at=func.coalesce(JobRow.started_at, now), stage=None,
                message="starting", version=JobRow.version + 1))
            if res.rowcount != 1:
                return None  # another worker took it between the two statements (PostgreSQL)
            row = dict(conn.execute(select(JobRow.__table__).where(JobRow.seq == seq)).mappings().one())
            conn.execute(AttemptRow.__table__.insert().values(job_id=row["id"], attempt=row["attempts"],
                                                              worker=worker, started_at=now, outcome="running"))
        return Claim(row, row["attempts"])

    def heartbeat(self, job_id: str, worker: str, lease_s: float) -> tuple[bool, bool]:
        """Renew ``worker``'s lease on ``job_id``; returns (still held, cancel requested)."""
        with self._write() as conn:
            res = conn.execute(update(JobRow).where(JobRow.id == job_id, JobRow.lease_owner == worker,
                                                    JobRow.status == "running")
                               .values(lease_expires_at=time.time() + lease_s))
            cancel = conn.execute(select(JobRow.cancel_requested).where(JobRow.id == job_id)).scalar()
        return res.rowcount == 1, bool(cancel)

    def set_progress(self, job_id: str, worker: str, stage: str | None, progress: float, message: str) -> bool:
        """Record the stage and progress (0..100) of a running job; False when ``worker`` no longer holds it."""
        with self._write() as conn:
            res = conn.execute(update(JobRow).where(JobRow.id == job_id, JobRow.lease_owner == worker,
                                                    JobRow.status == "running")
                               .values(stage=stage, progress=progress, message=message[:500],
                                       version=JobRow.version + 1))
        return res.rowcount == 1

    def finish(self, job_id: str, worker: str, attempt: int, status: str, *, files: list[dict[str, Any]] | None = None,
               files_dir: str | None = None, timings: dict[str, Any] | None = None,
               summary: dict[str, Any] | None = None, error_code: str | None = None,
               error_detail: str | None = None) -> bool:
        """End ``worker``'s attempt with a terminal ``status``; True when it held the lease (the job finished
        now, exactly once), False when the lease had passed to someone else."""
        if status not in TERMINAL:
            raise ValueError(f"not a terminal status: {status}")
        now = time.time()
        values: dict[str, Any] = {"status": status, "finished_at": now, "lease_expires_at": None,
                                  "error_code": error_code, "error_detail": error_detail,
                                  "version": JobRow.version + 1}
        if status == "succeeded":
            values["progress"] = 100.0
            values["message"] = "done"
        if files is not None:
            values["files"] = files
            values["files_dir"] = files_dir
        if timings is not None:
            values["timings"] = timings
        if summary is not None:
            values["summary"] = summary
        with self._write() as conn:
            res = conn.execute(update(JobRow).where(JobRow.id == job_id, JobRow.lease_owner == worker,
                                                    JobRow.status == "running", JobRow.attempts == attempt)
                               .values(**values))
            if res.rowcount == 1:
                conn.execute(update(AttemptRow).where(AttemptRow.job_id == job_id, AttemptRow.attempt == attempt)
                             .values(outcome=status, ended_at=now))
        return res.rowcount == 1

    def release(self, job_id: str, worker: str, attempt: int, reason: str) -> bool:
        """Give a running job back to the queue without counting the attempt (a worker shutting down)."""
        with self._write() as conn:
            res = conn.execute(update(JobRow).where(JobRow.id == job_id, JobRow.lease_owner == worker,
                                                    JobRow.status == "running", JobRow.attempts == attempt)
                               .values(status="queued", lease_owner=None, lease_expires_at=None, stage=None,
                                       attempts=JobRow.attempts - 1, message=reason[:500],
                                       version=JobRow.version + 1))
            if res.rowcount == 1:
                conn.execute(AttemptRow.__table__.delete().where(AttemptRow.job_id == job_id,
                                                                 AttemptRow.attempt == attempt))
        return res.rowcount == 1

    def expire_leases_of(self, worker: str, requeue: bool = False) -> int:
        """End the leases ``worker`` holds now (its process is known dead), so the next claim retries its jobs;
        with ``requeue`` its jobs go back to the queue (or fail, out of attempts) in the same transaction."""
        now = time.time()
        with self._write() as conn:
            res = conn.execute(update(JobRow).where(JobRow.lease_owner == worker, JobRow.status == "running")
                               .values(lease_expires_at=now - 1.0))
            if requeue and res.rowcount:
                self._fail_exhausted(conn, now)
        return int(res.rowcount)

    def held_leases(self) -> list[dict[str, Any]]:
        """Running jobs' leases: ``job_id``, ``owner`` and ``since`` (when that attempt was claimed)."""
        q = (select(JobRow.id, JobRow.lease_owner, AttemptRow.started_at)
             .join(AttemptRow, and_(AttemptRow.job_id == JobRow.id, AttemptRow.attempt == JobRow.attempts),
                   isouter=True)
             .where(JobRow.status == "running", JobRow.lease_owner.is_not(None)))
        with self._read() as conn:
            rows = conn.execute(q).all()
        return [{"job_id": job_id, "owner": owner, "since": since} for job_id, owner, since in rows]

    def recent_durations(self, limit: int = 20, within_s: float = 3600.0) -> list[float]:
        """Seconds the latest ``limit`` attempts that ran to an end (succeeded or failed) in the last ``within_s``
        seconds took, newest first."""
        since = time.time() - within_s
        with self._read() as conn:
            rows = conn.execute(select(AttemptRow.started_at, AttemptRow.ended_at).where(
                AttemptRow.outcome.in_(("succeeded", "failed")), AttemptRow.ended_at.is_not(None),
                AttemptRow.ended_at >= since).order_by(AttemptRow.ended_at.desc()).limit(limit)).all()
        return [max(0.0, float(end) - float(start)) for start, end in rows]

    def attempts(self, job_id: str) -> list[dict[str, Any]]:
        """Attempts at ``job_id`` in order."""
        with self._read() as conn:
            rows = conn.execute(select(AttemptRow.__table__).where(AttemptRow.job_id == job_id)
                                .order_by(AttemptRow.attempt)).mappings().all()
        return [dict(r) for r in rows]

    # ------------------------------------------------------------------------------------------ retention

    def expirable(self, before: float, limit: int = 500) -> list[dict[str, Any]]:
        """Finished jobs whose files are older than ``before`` and not yet swept."""
        with self._read() as conn:
            rows = conn.execute(select(JobRow.id, JobRow.files_dir).where(
                JobRow.status.in_(TERMINAL), JobRow.finished_at < before, JobRow.expired.is_(False))
                .limit(limit)).mappings().all()
        return [dict(r) for r in rows]

    def mark_expired(self, job_id: str) -> None:
        """Keep the job row, forget its files."""
        with self._write() as conn:
            conn.execute(update(JobRow).where(JobRow.id == job_id).values(
                expired=True, files=[], files_dir=None, input_path=None, version=JobRow.version + 1))

    # ------------------------------------------------------------------------------------------ uploads

    def add_upload(self, token: str, owner: str, path: str, size: int, sha256: str, ttl_s: float) -> dict[str, Any]:
        """Record an uploaded image."""
        now = time.time()
        values = {"token": token, "owner": owner, "path": path, "size": size, "sha256": sha256, "created_at": now,
                  "expires_at": now + ttl_s}
        with self._write() as conn:
            conn.execute(UploadRow.__table__.insert().values(**values))
        return values

    def get_upload(self, token: str, owner: str) -> dict[str, Any] | None:
        """``owner``'s upload ``token`` (None when missing or someone else's)."""
        with self._read() as conn:
            row = conn.execute(select(UploadRow.__table__).where(UploadRow.token == token,
                                                                 UploadRow.owner == owner)).mappings().first()
        return dict(row) if row else None

    def expired_uploads(self, now: float) -> list[dict[str, Any]]:
        """Uploads past their expiry."""
        with self._read() as conn:
            rows = conn.execute(select(UploadRow.__table__).where(UploadRow.expires_at < now)).mappings().all()
        return [dict(r) for r in rows]

    def delete_upload(self, token: str) -> None:
        """Forget an upload."""
        with self._write() as conn:
            conn.execute(UploadRow.__table__.delete().where(UploadRow.token == token))

    # ------------------------------------------------------------------------------------------ keys

    def add_key(self, key_id: str, name: str, salt: str, digest: str) -> None:
        """Store an API key's id, salt and digest."""
        with self._write() as conn:
            conn.execute(ApiKeyRow.__table__.insert().values(key_id=key_id, name=name, salt=salt, digest=digest,
                                                             created_at=time.time()))

    def get_key(self, key_id: str) -> dict[str, Any] | None:
        """A live (not revoked) API key's row."""
        with self._read() as conn:
            row = conn.execute(select(ApiKeyRow.__table__).where(ApiKeyRow.key_id == key_id,
                                                                 ApiKeyRow.revoked_at.is_(None))).mappings().first()
        return dict(row) if row else None

    def list_keys(self) -> list[dict[str, Any]]:
        """Every API key (without secrets: they are not stored)."""
        with self._read() as conn:
            rows = conn.execute(select(ApiKeyRow.key_id, ApiKeyRow.name, ApiKeyRow.created_at,
                                       ApiKeyRow.revoked_at).order_by(ApiKeyRow.created_at)).mappings().all()
        return [dict(r) for r in rows]

    def revoke_key(self, key_id: str) -> bool:
        """Revoke a key; True when it existed and was live."""
        with self._write() as conn:
            res = conn.execute(update(ApiKeyRow).where(ApiKeyRow.key_id == key_id, ApiKeyRow.revoked_at.is_(None))
                               .values(revoked_at=time.time()))
        return res.rowcount == 1

    def count_live_keys(self) -> int:
        """API keys not revoked."""
        with self._read() as conn:
            return int(conn.execute(select(func.count()).select_from(ApiKeyRow)
                                    .where(ApiKeyRow.revoked_at.is_(None))).scalar_one())


__all__ = ["ACTIVE", "STATUSES", "TERMINAL", "ApiKeyRow", "AttemptRow", "Claim", "IdempotencyConflict", "JobRow",
           "JobStore", "QueueFullError", "StoreError", "UploadRow", "new_id"]
