"""``seed3d serve`` and ``seed3d api-key``: run the service, manage its API keys.

``register(subparsers)`` adds both commands to the ``seed3d`` parser (entry point group ``seed3d.commands``, so
seed3d never imports api/). ``python -m api [serve options]`` runs the server directly.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from api.settings import EXECUTORS, Settings, default_data_dir
from seed3d.errors import Seed3DError

log = logging.getLogger(__name__)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {value}")
    return value


def _store_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", type=Path, metavar="DIR",
                   help=f"data folder: job database, uploads, job files (default: $SEED3D_HOME or ~/.seed3d; now "
                        f"{default_data_dir()})")
    p.add_argument("--database-url", metavar="URL", default=os.environ.get("SEED3D_DATABASE_URL"),
                   help="job store URL, e.g. postgresql+psycopg://user@host/seed3d (default: SQLite in the data "
                        "folder; env SEED3D_DATABASE_URL)")


def add_serve_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``seed3d serve`` / ``python -m api``."""
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; API keys are "
                                                       "required on any other address unless --no-api-keys)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    _store_options(p)
    p.add_argument("--workers", type=_count, default=1, help="job workers (default 1; 0: API only)")
    p.add_argument("--weights", type=Path, metavar="DIR", help="weights folder with pipeline.json (default: shipped)")
    p.add_argument("--executor", choices=EXECUTORS, default="local",
                   help="run workers as local processes (default) or Ray actors")
    p.add_argument("--ray-address", metavar="ADDR", help="Ray cluster to join (default: start a local one)")
    p.add_argument("--gpus-per-worker", type=float, default=0.0, help="GPUs each Ray worker requests (default 0)")
    p.add_argument("--device", choices=("cpu", "cuda"), help="pipeline device (default: cuda when GPUs are "
                                                              "requested, else cpu)")
    p.add_argument("--queue-limit", type=_count, default=100, help="most jobs queued or running (default 100)")
    p.add_argument("--retention-hours", type=_positive_float, default=168.0,
                   help="hours finished jobs' files are kept (default 168)")
    p.add_argument("--api-keys", action=argparse.BooleanOptionalAction, default=None,
                   help="require API keys (default: only when not bound to localhost)")
    p.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"),
                   help="log level (default info)")


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Settings from parsed ``serve`` options."""
    kw = {"host": args.host, "port": args.port, "workers": args.workers, "weights": args.weights,
          "executor": args.executor, "ray_address": args.ray_address, "gpus_per_worker": args.gpus_per_worker,
          "device": args.device, "queue_limit": max(1, args.queue_limit),
          "retention_s": args.retention_hours * 3600.0, "api_keys": args.api_keys,
          "database_url": args.database_url}
    if args.data_dir is not None:
        kw["data_dir"] = args.data_dir
    return Settings(**kw)


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/"


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the REST service and its workers until interrupted."""
    import uvicorn

    from api.app import create_app
    from api.keys import create_key
    from api.store import JobStore

    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("SEED3D_LOG_LEVEL", args.log_level.upper())
    settings = settings_from_args(args)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    if settings.keys_enabled:
        store = JobStore(settings.db_url)
        if store.count_live_keys() == 0:
            key = create_key(store, "first key (seed3d serve)")
            print(f"API key (shown once; make more with `seed3d api-key create`): {key}", flush=True)
        store.close()
    app = create_app(settings)
    print(f"Seed3D service: {_url(settings.host, settings.port)}  (API docs {_url(settings.host, settings.port)}"
          f"docs; data {settings.data_dir}; {settings.workers} {settings.executor} worker(s); API keys "
          f"{'on' if settings.keys_enabled else 'off'})", flush=True)
    uvicorn.run(app, host=settings.host, port=settings.port, log_level=args.log_level, timeout_graceful_shutdown=5)
    return 0


def cmd_api_key(args: argparse.Namespace) -> int:
    """Create, list or revoke API keys (the store keeps salted hashes; a key is shown once, when made)."""
    from api.keys import create_key
    from api.store import JobStore

    data_dir = args.data_dir or default_data_dir()
    data_dir.mkdir(parents=True, exist_ok=True)
    store = JobStore(args.database_url or f"sqlite:///{data_dir / 'seed3d.db'}")
    try:
        if args.key_command == "create":
            print(create_key(store, args.name))
        elif args.key_command == "list":
            for row in store.list_keys():
                state = "revoked" if row["revoked_at"] else "live"
                print(f"{row['key_id']}  {state:7s}  {row['name']}")
        elif args.key_command == "revoke":
            if not store.revoke_key(args.key_id):
                raise Seed3DError(f"no live key {args.key_id!r} (see `seed3d api-key list`)")
            print(f"revoked {args.key_id}")
        else:
            print("give an action: create, list or revoke", file=sys.stderr)
            return 2
    finally:
        store.close()
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``serve`` and ``api-key`` to the ``seed3d`` command (entry point group ``seed3d.commands``)."""
    p = subparsers.add_parser("serve", help=cmd_serve.__doc__, description=cmd_serve.__doc__)
    add_serve_arguments(p)
    p.set_defaults(func=cmd_serve)

    p = subparsers.add_parser("api-key", help=cmd_api_key.__doc__, description=cmd_api_key.__doc__)
    sub = p.add_subparsers(dest="key_command", metavar="ACTION")
    c = sub.add_parser("create", help="make a key and print it (shown once)")
    c.add_argument("--name", default="default", help="a label for the key")
    _store_options(c)
    c = sub.add_parser("list", help="key ids, state and labels")
    _store_options(c)
    c = sub.add_parser("revoke", help="revoke a key by its id (the 16 hex digits after s3d_)")
    c.add_argument("key_id")
    _store_options(c)
    p.set_defaults(func=cmd_api_key, data_dir=None, database_url=os.environ.get("SEED3D_DATABASE_URL"))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m api``: ``serve`` options (the default) or ``api-key ...``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m api", description="The Seed3D REST service.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    register(sub)
    if not argv or argv[0] not in ("serve", "api-key", "-h", "--help"):
        argv = ["serve", *argv]
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except Seed3DError as exc:
        print(f"seed3d {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


__all__ = ["add_serve_arguments", "cmd_api_key", "cmd_serve", "main", "register", "settings_from_args"]
