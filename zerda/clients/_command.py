"""The command client: a program run per reply, the context on its stdin, its stdout the reply.

The context goes in as JSON (`{"messages": [...]}`) or as `role: content` lines.
The reply counts only when the program exits with status 0; any other end (a
non-zero status, a signal, a cancel) raises ClientError quoting the last line the
program wrote to stderr.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import threading
from collections.abc import Generator, Iterator, Sequence
from typing import IO

from zerda.clients._base import ClientError, Ending, Messages, Reply, one_line
from zerda.clients._redact import redact, redact_stream
from zerda.formats.openai import content_text

CHUNK = 4096
STDERR_TAIL = 4096


def as_text(messages: Messages) -> str:
    """The context in the `role: content` text form, one message after another."""
    return "\n".join(f"{m['role']}: {content_text(m.get('content'))}" for m in messages) + "\n"


def parse_command(command: str | Sequence[str]) -> list[str]:
    """The argv of a command line (shell quoting, no shell); ClientError if unusable."""
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ClientError(f"cannot parse --command: {exc}") from None
    else:
        argv = list(command)
    if not argv:
        raise ClientError("--command is empty")
    return argv


def check_program(program: str) -> None:
    """Refuse a program that cannot be run, before any reply is asked of it."""
    if os.sep in program:
        if not os.path.isfile(program):
            raise ClientError(f"command not found: {one_line(program)}")
        if not os.access(program, os.X_OK):
            raise ClientError(f"cannot run {one_line(program)}: not executable")
        return
    if shutil.which(program) is None:
        raise ClientError(f"command not found: {one_line(program)} (not on PATH)")


class CommandClient:
    """Runs `command` per reply: the context on its stdin, its stdout (streamed) is the reply.

    The program must exist when the client is made. It inherits the environment
    (plus `env`), API key included, so `secret` (that key) is redacted from its
    reply and from the stderr line quoted when it fails. `model` names what answers
    in the provenance; by default it is the command line itself (the key redacted).
    """

    name = "command"

    def __init__(
        self,
        command: str | Sequence[str],
        text_format: bool = False,
        env: dict[str, str] | None = None,
        secret: str | None = None,
        model: str | None = None,
    ) -> None:
        self.argv = parse_command(command)
        check_program(self.argv[0])
        self.text_format = text_format
        self.env = env or {}
        self._secret = secret
        self.model: str | None = model or one_line(redact(shlex.join(self.argv), secret))
        self._running: subprocess.Popen[bytes] | None = None

    def __repr__(self) -> str:
        return f"CommandClient(model={self.model!r})"

    def reply(self, messages: Messages) -> Reply:
        """The program's stdout as it comes; a non-zero exit raises ClientError."""
        return Reply(self.name, self.model, lambda ending: self._produce(messages, ending))

    def _produce(self, messages: Messages, ending: Ending) -> Iterator[str]:
        output = self._output(messages)
        try:
            yield from redact_stream(output, self._secret)
        finally:
            output.close()
        ending.finish_reason = "stop"

    def _payload(self, messages: Messages) -> bytes:
        if self.text_format:
            return as_text(messages).encode()
        return json.dumps({"messages": messages}, ensure_ascii=False).encode()

    def _start(self) -> subprocess.Popen[bytes]:
        try:
            # Own session: Ctrl-C in a terminal reaches the caller only, which then ends it.
            return subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**os.environ, **self.env},
                start_new_session=True,
            )
        except FileNotFoundError:
            raise ClientError(f"command not found: {one_line(self.argv[0])}") from None
        except OSError as exc:
            raise ClientError(f"cannot run {self.argv[0]}: {exc.strerror or exc}") from None

    def _output(self, messages: Messages) -> Generator[str, None, None]:
        proc = self._running = self._start()
        assert proc.stdin and proc.stdout and proc.stderr
        tail = bytearray()
        threads = [
            threading.Thread(target=_feed, args=(proc.stdin, self._payload(messages)), daemon=True),
            threading.Thread(target=_drain, args=(proc.stderr, tail), daemon=True),
        ]
        for thread in threads:
            thread.start()
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            while chunk := os.read(proc.stdout.fileno(), CHUNK):
                if text := decoder.decode(chunk):
                    yield text
            if text := decoder.decode(b"", final=True):
                yield text
            status = proc.wait()
            threads[1].join()
            if status != 0:
                raise ClientError(self._failure(status, bytes(tail)))
        finally:
            _stop(proc, threads)

    def cancel(self) -> None:
        """End the running program (and its children); its reply then fails."""
        proc = self._running
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)

    def _failure(self, status: int, stderr: bytes) -> str:
        name = os.path.basename(self.argv[0])
        how = f"killed by signal {-status}" if status < 0 else f"exited with status {status}"
        lines = [ln for ln in stderr.decode(errors="replace").splitlines() if ln.strip()]
        return f"{name} {how}" + (f": {one_line(redact(lines[-1], self._secret))}" if lines else "")


def _feed(pipe: IO[bytes], data: bytes) -> None:
    """Write the context to the program; it may exit without reading it all."""
    try:
        pipe.write(data)
        pipe.close()
    except (BrokenPipeError, OSError):
        pass


def _drain(pipe: IO[bytes], tail: bytearray) -> None:
    """Keep the last few KB of the program's stderr for the error message."""
    try:
        while chunk := pipe.read1(CHUNK):  # type: ignore[attr-defined]
            tail.extend(chunk)
            del tail[:-STDERR_TAIL]
    except (OSError, ValueError):
        pass


def _stop(proc: subprocess.Popen[bytes], threads: list[threading.Thread]) -> None:
    """End the program (and its children) if it is still running, reap it, close pipes."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=2)
        except (ProcessLookupError, PermissionError):
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    for thread in threads:
        thread.join(timeout=1)
    if proc.stdout:
        proc.stdout.close()
