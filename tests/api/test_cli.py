"""``seed3d serve`` and ``seed3d api-key``: the entry point registers them, options become settings, keys are
made, listed and revoked."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from api.cli import main, register, settings_from_args
from api.keys import verify_key
from api.store import JobStore


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_serve_options_become_settings(tmp_path: Path) -> None:
    args = _parse("serve", "--host", "0.0.0.0", "--port", "9001", "--data-dir", str(tmp_path), "--workers", "3",
                  "--executor", "ray", "--gpus-per-worker", "1", "--queue-limit", "7", "--retention-hours", "2")
    s = settings_from_args(args)
    assert (s.host, s.port, s.data_dir, s.workers, s.executor, s.queue_limit) == ("0.0.0.0", 9001, tmp_path, 3,
                                                                                 "ray", 7)
    assert s.retention_s == 7200 and s.keys_enabled and s.worker_device == "cuda"
    assert s.db_url == f"sqlite:///{tmp_path / 'seed3d.db'}"
    local = settings_from_args(_parse("serve", "--data-dir", str(tmp_path)))
    assert not local.keys_enabled and local.workers == 1 and local.executor == "local"
    assert not settings_from_args(_parse("serve", "--host", "0.0.0.0", "--no-api-keys")).keys_enabled
    with pytest.raises(SystemExit):
        _parse("serve", "--workers", "-1")


def test_seed3d_cli_loads_serve_through_the_entry_point() -> None:
    from seed3d.cli import build_parser

    args = build_parser().parse_args(["serve", "--port", "8123"])
    assert args.port == 8123 and args.func.__name__ == "cmd_serve"


def test_api_key_commands(tmp_path: Path, database_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    where = ["--data-dir", str(tmp_path / "data")]  # SQLite: the default file in the data folder
    if not database_url.startswith("sqlite"):
        where += ["--database-url", database_url]
    assert main(["api-key", "create", "--name", "laptop", *where]) == 0
    key = capsys.readouterr().out.strip()
    store = JobStore(database_url)
    key_id = verify_key(store, key)
    assert key_id is not None
    assert main(["api-key", "list", *where]) == 0
    listing = capsys.readouterr().out
    assert key_id in listing and "laptop" in listing and key not in listing
    assert main(["api-key", "revoke", key_id, *where]) == 0
    assert verify_key(store, key) is None
    assert main(["api-key", "revoke", key_id, *where]) == 2
    store.close()


def test_a_store_url_whose_driver_is_missing_is_a_one_line_error(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    url = "postgresql+pg8000://user@localhost/seed3d"  # a driver Seed3D does not install
    assert main(["api-key", "list", "--data-dir", str(tmp_path), "--database-url", url]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'pg8000' is not installed" in err and "Traceback" not in err
