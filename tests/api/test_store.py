"""The job store, on SQLite and on PostgreSQL: claims, leases, heartbeats, retries, exactly-once finishing,
idempotency, the queue limit, 64-bit keys."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text

from api.keys import create_key, verify_key
from api.store import IdempotencyConflict, JobStore, QueueFullError


@pytest.fixture
def store(database_url: str) -> Iterator[JobStore]:
    s = JobStore(database_url)
    yield s
    s.close()


def _job(store: JobStore, **kw: object) -> dict:
    args = {"owner": "a", "kind": "generation", "options": {"text": "x"}, "max_attempts": 2, "queue_limit": 100}
    args.update(kw)
    row, created = store.create(**args)  # type: ignore[arg-type]
    assert created
    return row


@pytest.mark.parametrize("backend", ["sqlite"])
def test_sqlite_store_uses_wal(store: JobStore) -> None:
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_claim_takes_the_oldest_job_once(store: JobStore) -> None:
    first, second = _job(store), _job(store)
    a = store.claim("w1", lease_s=30)
    b = store.claim("w2", lease_s=30)
    assert a is not None and b is not None
    assert (a.job["id"], b.job["id"]) == (first["id"], second["id"])
    assert a.attempt == 1 and a.job["status"] == "running" and a.job["lease_owner"] == "w1"
    assert store.claim("w3", lease_s=30) is None


def test_only_the_lease_holder_finishes_and_only_once(store: JobStore) -> None:
    job = _job(store)
    claim = store.claim("w1", lease_s=30)
    assert claim is not None
    assert not store.finish(job["id"], "intruder", claim.attempt, "succeeded", files=[])
    assert store.finish(job["id"], "w1", claim.attempt, "succeeded", files=[], timings={"geometry": 1.0})
    assert not store.finish(job["id"], "w1", claim.attempt, "failed", error_code="x", error_detail="y")
    row = store.get(job["id"])
    assert row is not None and row["status"] == "succeeded" and row["progress"] == 100.0
    assert [a["outcome"] for a in store.attempts(job["id"])] == ["succeeded"]


def test_an_expired_lease_is_retried_then_fails_when_attempts_run_out(store: JobStore) -> None:
    job = _job(store, max_attempts=2)
    first = store.claim("w1", lease_s=0.05)
    assert first is not None and first.attempt == 1
    time.sleep(0.1)
    second = store.claim("w2", lease_s=0.05)
    assert second is not None and second.job["id"] == job["id"] and second.attempt == 2
    assert not store.heartbeat(job["id"], "w1", 30)[0]  # the first worker lost the job
    assert not store.finish(job["id"], "w1", 1, "succeeded", files=[])
    time.sleep(0.1)
    assert store.claim("w3", lease_s=30) is None
    row = store.get(job["id"])
    assert row is not None and row["status"] == "failed" and row["error_code"] == "worker_lost"
    assert [a["outcome"] for a in store.attempts(job["id"])] == ["lost", "lost"]


def test_heartbeat_keeps_the_lease_and_reports_cancel(store: JobStore) -> None:
    job = _job(store)
    claim = store.claim("w1", lease_s=30)
    assert claim is not None
    held = claim.job["lease_expires_at"]
    for i in range(3):  # each heartbeat moves the lease's end on (leases long enough for any machine's load)
        assert store.heartbeat(job["id"], "w1", 3600 + i) == (True, False)
        renewed = store.get(job["id"])["lease_expires_at"]  # type: ignore[index]
        assert renewed > held
        held = renewed
    assert not store.heartbeat(job["id"], "intruder", 3600)[0]
    assert store.claim("w2", lease_s=30) is None  # still held
    after = store.request_cancel(job["id"], "a")
    assert after is not None and after["status"] == "running" and after["cancel_requested"]
    assert store.heartbeat(job["id"], "w1", 3600) == (True, True)


def test_cancel_of_a_queued_job_is_immediate_and_owner_scoped(store: JobStore) -> None:
    job = _job(store)
    assert store.request_cancel(job["id"], "someone-else") is None
    row = store.request_cancel(job["id"], "a")
    assert row is not None and row["status"] == "canceled" and row["finished_at"] is not None
    assert store.claim("w1", lease_s=30) is None


def test_release_requeues_without_counting_the_attempt(store: JobStore) -> None:
    job = _job(store)
    claim = store.claim("w1", lease_s=30)
    assert claim is not None
    assert store.release(job["id"], "w1", claim.attempt, "shutting down")
    row = store.get(job["id"])
    assert row is not None and row["status"] == "queued" and row["attempts"] == 0
    again = store.claim("w2", lease_s=30)
    assert again is not None and again.attempt == 1


def test_expire_leases_of_a_dead_worker(store: JobStore) -> None:
    job = _job(store)
    assert store.claim("dead", lease_s=3600) is not None
    assert store.expire_leases_of("dead") == 1
    claim = store.claim("alive", lease_s=30)
    assert claim is not None and claim.job["id"] == job["id"] and claim.attempt == 2


def test_idempotency_and_queue_limit(store: JobStore) -> None:
    a, created = store.create(owner="a", kind="scene", options={}, max_attempts=1, queue_limit=2,
                              idempotency_key="k", request_hash="h1")
    assert created
    again, created = store.create(owner="a", kind="scene", options={}, max_attempts=1, queue_limit=2,
                                  idempotency_key="k", request_hash="h1")
    assert not created and again["id"] == a["id"]
    with pytest.raises(IdempotencyConflict):
        store.create(owner="a", kind="scene", options={}, max_attempts=1, queue_limit=2, idempotency_key="k",
                     request_hash="h2")
    other, created = store.create(owner="b", kind="scene", options={}, max_attempts=1, queue_limit=2,
                                  idempotency_key="k", request_hash="h2")  # keys are per owner
    assert created and other["id"] != a["id"]
    with pytest.raises(QueueFullError):
        store.create(owner="a", kind="scene", options={}, max_attempts=1, queue_limit=2)


def test_api_keys_are_hashed_and_revocable(store: JobStore) -> None:
    key = create_key(store, "tests")
    key_id = verify_key(store, key)
    assert key_id is not None and key_id in key
    rows = store.list_keys()
    assert len(rows) == 1 and "digest" not in rows[0]
    with store.engine.connect() as conn:
        stored = conn.exec_driver_sql("SELECT salt || digest FROM api_keys").scalar()
    secret = key.split("_", 2)[2]  # the url-safe secret may itself hold '_'
    assert len(secret) >= 40 and secret not in stored
    assert verify_key(store, key[:-1] + ("A" if key[-1] != "A" else "B")) is None
    assert verify_key(store, "not a key") is None
    assert store.revoke_key(key_id)
    assert verify_key(store, key) is None


def _seq_after(store: JobStore, last: int) -> None:
    """Make the next job's ``seq`` ``last + 1`` (past the 32-bit range when ``last`` is)."""
    with store.engine.begin() as conn:
        if store.is_sqlite:  # an INTEGER PRIMARY KEY takes max(rowid) + 1
            conn.execute(text("INSERT INTO jobs (seq, id, owner, kind, status, options, created_at, attempts, "
                              "max_attempts, cancel_requested, timings, files, summary, expired, version, progress) "
                              "VALUES (:seq, 'job_marker', 'nobody', 'scene', 'canceled', '{}', 0, 0, 1, 0, '{}', "
                              "'[]', '{}', 0, 0, 0)"), {"seq": last})
        else:
            conn.execute(text("SELECT setval(pg_get_serial_sequence('jobs', 'seq'), :seq)"), {"seq": last})


def test_job_numbers_and_counters_go_past_32_bits(store: JobStore) -> None:
    _seq_after(store, 2**31 + 5)
    first, second = _job(store), _job(store)
    assert (first["seq"], second["seq"]) == (2**31 + 6, 2**31 + 7)
    assert [r["id"] for r in store.list("a", 10, before_seq=2**31 + 7)] == [first["id"]]
    claim = store.claim("w1", lease_s=30)
    assert claim is not None and claim.job["id"] == first["id"]
    assert store.finish(first["id"], "w1", claim.attempt, "succeeded", files=[])
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE jobs SET version = :v WHERE id = :id"), {"v": 2**40, "id": second["id"]})
    row = store.request_cancel(second["id"], "a")
    assert row is not None and row["version"] == 2**40 + 1 and row["status"] == "canceled"
    assert store.max_seq == 2**63 - 1


@pytest.mark.parametrize("backend", ["postgresql"])
def test_a_postgresql_store_with_32_bit_columns_is_widened_on_open(database_url: str) -> None:
    engine = create_engine(database_url)
    with engine.begin() as conn:  # the schema earlier versions created: SERIAL keys, INTEGER counters
        conn.execute(text("CREATE TABLE jobs (seq SERIAL PRIMARY KEY, id VARCHAR(40) UNIQUE NOT NULL, "
                          "version INTEGER NOT NULL DEFAULT 0)"))
        conn.execute(text("CREATE TABLE attempts (id SERIAL PRIMARY KEY, job_id VARCHAR(40))"))
        conn.execute(text("CREATE TABLE uploads (token VARCHAR(64) PRIMARY KEY, size INTEGER NOT NULL)"))
        conn.execute(text("INSERT INTO jobs (id) VALUES ('job_old')"))
    store = JobStore(database_url)
    try:
        with store.engine.begin() as conn:
            kinds = dict(conn.execute(text(
                "SELECT table_name || '.' || column_name, data_type FROM information_schema.columns "
                "WHERE table_name IN ('jobs', 'attempts', 'uploads') AND column_name IN ('seq', 'version', 'id', "
                "'size')")).all())
            assert kinds == {"jobs.seq": "bigint", "jobs.version": "bigint", "jobs.id": "character varying",
                             "attempts.id": "bigint", "uploads.size": "bigint"}
            conn.execute(text("SELECT setval(pg_get_serial_sequence('jobs', 'seq'), :n)"), {"n": 2**31 + 1})
            assert conn.execute(text("INSERT INTO jobs (id) VALUES ('job_new') RETURNING seq")).scalar() == 2**31 + 2
        JobStore(database_url).close()  # opening it again changes nothing
    finally:
        store.close()
        engine.dispose()
