"""A throwaway PostgreSQL cluster for the store and service tests.

``PostgresCluster.start()`` runs ``initdb`` into a fresh temporary folder and ``pg_ctl start`` on a Unix socket
in that folder (no TCP port, so nothing to collide with), as the ``postgres`` system user when the tests run as
root (PostgreSQL refuses to run as root). Each test gets a database of its own (``new_database``); ``stop``
shuts the server down and deletes the folder. Durability is off (``fsync=off``): the data is thrown away.

``$SEED3D_TEST_POSTGRES_URL`` (a superuser URL, e.g. ``postgresql+psycopg://postgres@localhost/postgres``) uses
a running server instead of starting one.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

#: Binaries ``start`` needs, looked up on $PATH then in Debian's /usr/lib/postgresql/<version>/bin (newest first).
BINARIES: tuple[str, ...] = ("initdb", "pg_ctl")
#: The socket's "port": only names the socket file (``.s.PGSQL.5432``) inside the cluster's private folder.
SOCKET_PORT = 5432


class ClusterUnavailable(Exception):
    """No PostgreSQL cluster could be started here; the message says why and what to install."""


def _bindir() -> Path:
    """The folder holding ``initdb`` and ``pg_ctl``."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    debian = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                    key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0, reverse=True)
    if debian:
        return Path(debian[0]).parent
    raise ClusterUnavailable("initdb and pg_ctl not found on $PATH or in /usr/lib/postgresql/*/bin (install "
                             "Debian's postgresql package: scripts/bootstrap.sh --dev does)")


def _server_user() -> pwd.struct_passwd | None:
    """The account the server runs as: None (this one) unless we are root, then ``postgres`` (or ``nobody``)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise ClusterUnavailable("running as root and neither a 'postgres' nor a 'nobody' account exists to run the "
                             "server as (PostgreSQL refuses root)")


class PostgresCluster:
    """A PostgreSQL server in a temporary folder (or ``$SEED3D_TEST_POSTGRES_URL``'s), with a database per test."""

    def __init__(self) -> None:
        self.root: Path | None = None
        self.admin_url = os.environ.get("SEED3D_TEST_POSTGRES_URL") or ""
        self._bindir: Path | None = None
        self._user: pwd.struct_passwd | None = None

    def _run(self, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
        assert self._bindir is not None and self.root is not None
        kw: dict[str, Any] = {}
        if self._user is not None:
            kw = {"user": self._user.pw_uid, "group": self._user.pw_gid, "extra_groups": []}
        env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
        env.pop("PGDATA", None)
        return subprocess.run([str(self._bindir / args[0]), *args[1:]], cwd=self.root, env=env, capture_output=True,
                              text=True, timeout=timeout, check=False, **kw)

    def start(self) -> None:
        """Start the server (or check ``$SEED3D_TEST_POSTGRES_URL``); ``ClusterUnavailable`` saying why not."""
        try:
            import psycopg  # noqa: F401
        except ImportError as exc:
            raise ClusterUnavailable(f"the psycopg driver is not installed ({exc}); run scripts/bootstrap.sh") from None
        if self.admin_url:
            self._connect_admin().close()
            return
        self._bindir, self._user = _bindir(), _server_user()
        self.root = Path(tempfile.mkdtemp(prefix="seed3d-pg-"))
        if self._user is not None:
            os.chown(self.root, self._user.pw_uid, self._user.pw_gid)
        data, log = self.root / "data", self.root / "server.log"
        init = self._run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                         "--locale=C", "--no-sync")
        if init.returncode != 0:
            self.stop()
            raise ClusterUnavailable(f"initdb failed ({init.returncode}): {(init.stderr or init.stdout)[-600:]}")
        options = (f"-k {self.root} -p {SOCKET_PORT} -c listen_addresses='' -c fsync=off -c synchronous_commit=off "
                   "-c full_page_writes=off -c max_connections=300")
        started = self._run("pg_ctl", "-D", str(data), "-l", str(log), "-o", options, "-w", "-t", "60", "start")
        if started.returncode != 0:
            tail = log.read_text(errors="replace")[-600:] if log.exists() else started.stderr
            self.stop()
            raise ClusterUnavailable(f"pg_ctl start failed ({started.returncode}): {tail}")
        self.admin_url = f"postgresql+psycopg://postgres@/postgres?host={quote(str(self.root))}&port={SOCKET_PORT}"
        self._connect_admin().close()

    def _connect_admin(self) -> Any:
        import psycopg

        url = self.admin_url.replace("postgresql+psycopg://", "postgresql://", 1)
        try:
            return psycopg.connect(url, autocommit=True, connect_timeout=30)
        except psycopg.Error as exc:
            raise ClusterUnavailable(f"cannot connect to {url}: {exc}") from None

    def new_database(self) -> str:
        """Create an empty database and return its SQLAlchemy URL."""
        name = f"t_{uuid.uuid4().hex[:16]}"
        with self._connect_admin() as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0 STRATEGY FILE_COPY')
        base, _, query = self.admin_url.partition("?")
        return f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")

    def drop_database(self, url: str) -> None:
        """Drop a database ``new_database`` made (closing whatever connections are left to it)."""
        name = url.partition("?")[0].rsplit("/", 1)[1]
        with self._connect_admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        """Stop the server this cluster started and delete its folder."""
        if self.root is None:
            return
        if (self.root / "data" / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.root / "data"), "-m", "immediate", "-w", "-t", "60", "stop")
        shutil.rmtree(self.root, ignore_errors=True)
        self.root = None


__all__ = ["ClusterUnavailable", "PostgresCluster"]
