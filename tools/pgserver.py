"""A throwaway PostgreSQL server in a directory of its own, for tests, benchmarks and trying
the PostgreSQL store: `initdb` into the directory, listening on 127.0.0.1 on a free
port (and a unix socket in the directory), trusted for the `postgres` superuser.

The server refuses to run as root, so as root it runs as the `postgres` user (which
Debian's `postgresql` package creates). From a shell (what `.ci/run` does)::

    eval "$(python -m tools.pgserver start DIR)"   # exports ZERDA_TEST_POSTGRES_URL
    python -m tools.pgserver stop DIR
"""

from __future__ import annotations

import argparse
import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from zerda.errors import StoreError

# Who may connect, and how: the superuser without a password (tests create what they
# need through it), any other role with its password, so a wrong one is refused.
HBA = """\
local all all trust
host all postgres 127.0.0.1/32 trust
host all all 127.0.0.1/32 scram-sha-256
"""
RUN_AS_ROOT = "postgres"
URL_VARIABLE = "ZERDA_TEST_POSTGRES_URL"


def find_bin() -> Path | None:
    """The directory of `initdb` and `pg_ctl`: on PATH, else the newest Debian install."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    installed = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
    )
    return Path(installed[-1]).parent if installed else None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Throwaway:
    """A server whose data, socket and log live in `directory`."""

    directory: Path
    port: int
    bin: Path
    durable: bool = False

    @property
    def data(self) -> Path:
        return self.directory / "data"

    @property
    def log(self) -> Path:
        return self.directory / "server.log"

    def url(self, database: str = "postgres", user: str = "postgres", password: str = "") -> str:
        """A URL of this server (TCP on 127.0.0.1)."""
        secret = f":{password}" if password else ""
        return f"postgresql://{user}{secret}@127.0.0.1:{self.port}/{database}"

    def _run(self, *argv: str, timeout: float = 120) -> None:
        command = [*_as_server_user(), str(self.bin / argv[0]), *argv[1:]]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()
            raise StoreError(f"{argv[0]} failed: {detail[-1] if detail else done.returncode}")

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.directory} "
            "-c max_connections=200"
        )
        if not self.durable:
            # Commits still reach the kernel before they are acknowledged, so a killed or
            # crashed server loses none; only a power cut could.
            options += " -c fsync=off -c full_page_writes=off"
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            options,
            "-w",
            "-t",
            "60",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (`fast`: end sessions cleanly; `immediate`: as if it crashed)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def restart(self, mode: str = "fast") -> None:
        """Stop and start again on the same port."""
        self.stop(mode)
        self.start()

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()


def create(directory: Path, *, durable: bool = False) -> Throwaway:
    """initdb into `directory` (made if missing, and given to the server's user); not started.

    `durable=False` turns fsync off: fast, and safe from everything but a power cut
    (a server killed or restarted mid-run keeps every acknowledged commit).
    """
    bin_dir = find_bin()
    if bin_dir is None:
        raise StoreError(
            "PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql)"
        )
    directory.mkdir(parents=True, exist_ok=True)
    if not reachable(directory):
        raise StoreError(f"the {RUN_AS_ROOT} user cannot reach {directory} (a parent is private)")
    _give_to_server_user(directory)
    server = Throwaway(directory, free_port(), bin_dir, durable)
    server._run(
        "initdb",
        "-D",
        str(server.data),
        "-U",
        "postgres",
        "-A",
        "trust",
        "-E",
        "UTF8",
        "--locale=C.UTF-8",
        "--no-sync",
    )
    (server.data / "pg_hba.conf").write_text(HBA)
    _give_to_server_user(server.data / "pg_hba.conf")
    return server


def started(directory: Path, *, durable: bool = False) -> Throwaway:
    """`create` and start, trying another port if the chosen one was taken meanwhile."""
    server = create(directory, durable=durable)
    for attempt in range(3):
        try:
            server.start()
            return server
        except StoreError:
            if attempt == 2:
                raise
            server.port = free_port()
    return server


def reachable(directory: Path) -> bool:
    """True when the server's user can reach `directory` (as root: every parent is open
    to others; otherwise the user is ourselves)."""
    if os.geteuid() != 0:
        return True
    parents = [p for p in directory.resolve().parents if p.exists()]
    return all(p.stat().st_mode & 0o001 for p in parents)


def _as_server_user() -> list[str]:
    """The prefix that runs a server program as a user the server accepts."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(RUN_AS_ROOT)
    except KeyError:
        raise StoreError(
            f"PostgreSQL refuses to run as root and there is no {RUN_AS_ROOT!r} user"
        ) from None
    return ["runuser", "-u", RUN_AS_ROOT, "--"]


def _give_to_server_user(path: Path) -> None:
    if os.geteuid() == 0:
        user = pwd.getpwnam(RUN_AS_ROOT)
        os.chown(path, user.pw_uid, user.pw_gid)


def main(argv: list[str] | None = None) -> int:
    """`start DIR` prints `export ZERDA_TEST_POSTGRES_URL=...`; `stop DIR` stops it."""
    parser = argparse.ArgumentParser(prog="python -m tools.pgserver", description=__doc__)
    parser.add_argument("action", choices=["start", "stop"])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--durable", action="store_true", help="keep fsync on")
    args = parser.parse_args(argv)
    if args.action == "start":
        server = started(args.directory.resolve(), durable=args.durable)
        (args.directory / "port").write_text(str(server.port))
        print(f"export {URL_VARIABLE}={server.url()}")
        return 0
    bin_dir = find_bin()
    port_file = args.directory / "port"
    if bin_dir is None or not port_file.exists():
        return 0
    server = Throwaway(args.directory.resolve(), int(port_file.read_text()), bin_dir)
    if server.running():
        server.stop()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except StoreError as exc:
        sys.stderr.write(f"error: {exc}\n")
        sys.exit(1)
