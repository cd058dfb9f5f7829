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


def test_api_key_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["api-key", "create", "--name", "laptop", "--data-dir", str(tmp_path)]) == 0
    key = capsys.readouterr().out.strip()
    store = JobStore(f"sqlite:///{tmp_path / 'seed3d.db'}")
    key_id = verify_key(store, key)
    assert key_id is not None
    assert main(["api-key", "list", "--data-dir", str(tmp_path)]) == 0
    listing = capsys.readouterr().out
    assert key_id in listing and "laptop" in listing and key not in listing
    assert main(["api-key", "revoke", key_id, "--data-dir", str(tmp_path)]) == 0
    assert verify_key(store, key) is None
    assert main(["api-key", "revoke", key_id, "--data-dir", str(tmp_path)]) == 2
    store.close()
