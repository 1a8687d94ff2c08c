"""The `zerda chat` loop: read a message, get the reply from a backend, record the turn.

A turn reaches the session file only when its reply is complete, in one write
(`SessionStore.append_turn` through the bound memory); a cancelled or failed reply
leaves the file as it was.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from zerda.errors import ZerdaError
from zerda.memory import (
    BaseMemory,
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ConversationSummaryBufferMemory,
    ConversationTokenBufferMemory,
)
from zerda.memory.turns import last_turns, turns_from_messages
from zerda.messages import Message
from zerda.paths import private_dir, validate_session_id
from zerda.store import SessionStore
from zerda.tokens import count_tokens
from zerda_cli.backends import Backend, BackendError, ManualBackend, Messages
from zerda_cli.chatview import ChatView
from zerda_cli.config import ChatConfig, ConfigError, MemorySpec, parse_memory
from zerda_cli.inputs import decode
from zerda_cli.sanitize import neutralize, one_line, to_json
from zerda_cli.slash import COMMANDS, is_command, parse, unescape

SYSTEM_KEY = "system"
SHOW_DEFAULT = 10

StoredTurn = tuple[Message, Message]
Emit = Callable[[int, StoredTurn], None]


def bind_memory(spec: MemorySpec, store: SessionStore, session_id: str) -> BaseMemory:
    """The memory class `spec` names, restored from and writing to the session."""
    common: dict[str, Any] = {"store": store, "session_id": session_id, "encoding": store.encoding}
    if spec.kind == "window":
        return ConversationBufferWindowMemory(k=spec.size, **common)
    if spec.kind == "token":
        return ConversationTokenBufferMemory(max_token_limit=spec.size, **common)
    if spec.kind == "summary":
        return _resummarized(ConversationSummaryBufferMemory(max_token_limit=spec.size, **common))
    return ConversationBufferMemory(**common)


def _resummarized(memory: ConversationSummaryBufferMemory) -> ConversationSummaryBufferMemory:
    """`memory` with a summary of exactly the session's turns it does not hold verbatim.

    The stored summary can lag the file: /undo and /retry rewrite the last turns, and
    a session written by other memories has none. It is recomputed from the turns
    (offline and deterministic) and stored only when it differs.
    """
    store, session_id = memory.store, memory.session_id
    if store is None or session_id is None or not store.exists(session_id):
        return memory
    turns = turns_from_messages(store.iter_messages(session_id))
    older = turns[: len(turns) - len(memory.chat_memory)]
    summary = memory.summarizer("", older) if older else ""
    if summary != memory.summary:
        store.set_summary(session_id, summary)
        memory.summary = summary
    return memory


@contextmanager
def sigint_deferred() -> Iterator[None]:
    """Hold off Ctrl-C while a turn is written, so what is on disk and in memory agree."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def typing_hidden() -> Iterator[None]:
    """While a reply streams, keys typed (and the ^C of Ctrl-C) are not echoed into it."""
    try:
        import termios

        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
    except (ImportError, OSError, ValueError):
        yield
        return
    quiet = list(saved)
    quiet[3] &= ~(termios.ECHO | termios.ECHOCTL)
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)


class Chat:
    """One REPL: the session, its bound memory, the backend and what is shown."""

    def __init__(
        self,
        store: SessionStore,
        session_id: str,
        config: ChatConfig,
        view: ChatView,
        backend: Backend,
    ) -> None:
        self.store = store
        self.config = config
        self.view = view
        self.backend = backend
        self.spec = config.memory_spec
        self.confirm: Callable[[str], bool] = lambda question: False
        self.open(session_id)

    # -- state ---------------------------------------------------------------------

    def open(self, session_id: str) -> None:
        """Bind the memory to `session_id` and count what it holds."""
        self.session_id = session_id
        self.memory = bind_memory(self.spec, self.store, session_id)
        exists = self.store.exists(session_id)
        self.turn_count = self.store.session_stats(session_id).turn_count if exists else 0
        self.session_system = self._stored_system() if exists else None
        self._update_tokens()

    def _stored_system(self) -> str | None:
        metadata = self.store.get_session(self.session_id).metadata
        return str(metadata[SYSTEM_KEY]) if SYSTEM_KEY in metadata else None

    def _update_tokens(self) -> None:
        self.context_tokens = self.tokens(self.context(None))

    def tokens(self, messages: Messages) -> int:
        """Tokens of the messages' contents, in the store's encoding."""
        return sum(count_tokens(m["content"], self.store.encoding) for m in messages)

    def system_prompt(self) -> str | None:
        """The session's own system prompt, else the configured default."""
        if self.session_system is not None:
            return self.session_system
        return self.config.system or None

    def context(self, user_text: str | None) -> Messages:
        """What the next request carries: system prompt, the memory's history, the message."""
        system = self.system_prompt()
        messages = [{"role": "system", "content": system}] if system else []
        messages += self.memory.context_messages()
        if user_text is not None:
            messages.append({"role": "user", "content": user_text})
        return messages

    def toolbar(self) -> str:
        """The bottom line: where the turns go and what the next request costs."""
        turns = f"{self.turn_count} turn{'s' * (self.turn_count != 1)}"
        return (
            f" {self.session_id} · {turns} · context {self.context_tokens} tokens"
            f" ({self.spec.describe()}) · {self.backend.name}"
            " · Alt-Enter: new line · /help "
        )

    # -- turns ---------------------------------------------------------------------

    def ask(self, messages: Messages) -> str | None:
        """The backend's reply, shown as it arrives; None when cancelled, failed or empty."""
        pieces = self.backend.reply(messages)
        try:
            if self.backend.needs_terminal:
                reply = "".join(pieces)
                # Its prompt is erased once typed: shown again like any reply, as Markdown.
                if reply.strip():
                    self.view.reply(reply)
            else:
                waiting = f"waiting for {self.backend.name} · Ctrl-C cancels"
                with typing_hidden():
                    reply = self.view.stream(pieces, waiting)
        except (KeyboardInterrupt, EOFError):
            self.view.note("cancelled: nothing recorded")
            return None
        except BackendError as exc:
            self.view.error(f"{exc}; nothing recorded")
            return None
        finally:
            pieces.close()
        if not reply.strip():
            self.view.note("empty reply: nothing recorded")
            return None
        return reply

    def record(self, user_text: str, reply: str) -> StoredTurn | None:
        """Append the turn to the session in one write; None (and a message) if that failed."""
        try:
            with sigint_deferred():
                self.memory.save_context({"input": user_text}, {"output": reply})
        except ZerdaError as exc:
            self.view.error(f"turn not recorded: {exc}")
            return None
        self.turn_count += 1
        self._update_tokens()
        return self.memory.last_stored_turn

    def send(self, user_text: str) -> None:
        """One turn: ask the backend, record the turn when the reply is complete."""
        reply = self.ask(self.context(user_text))
        if reply is not None:
            self.record(user_text, reply)

    def handle(self, line: str) -> bool:
        """Act on one input line; False when the REPL should end."""
        if not line.strip():
            return True
        if not is_command(line):
            self.send(unescape(line))
            return True
        name, argument = parse(line)
        if not name:
            self.view.error(f"unknown command {one_line(line.split()[0])}; /help lists them")
            return True
        try:
            return getattr(self, f"cmd_{name}")(argument) is not False
        except (ZerdaError, ValueError) as exc:
            self.view.error(str(exc))
            return True

    # -- on entry and exit -------------------------------------------------------------

    def welcome(self) -> None:
        """The banner and the last few turns, so the user sees where they left off."""
        exists = self.store.exists(self.session_id)
        self.view.banner(self.session_id, not exists, self.backend.name, self.spec.describe())
        if exists and self.config.show > 0:
            self.show_turns(self.config.show)

    def show_turns(self, count: int) -> None:
        """The last `count` turns, read from the end of the file."""
        turns = last_turns(self.store.iter_messages_reversed(self.session_id), count)
        self.view.turns(turns, earlier=self.turn_count - len(turns))

    def goodbye(self) -> None:
        """Where the conversation is kept."""
        self.view.note(
            f"{self.turn_count} turn{'s' * (self.turn_count != 1)} in session "
            f"{self.session_id} · zerda show {self.session_id}"
        )

    # -- slash commands (each gets the text after the name) ---------------------------

    def cmd_help(self, argument: str) -> None:
        """/help: the commands and keys."""
        self.view.help(COMMANDS.values())

    def cmd_exit(self, argument: str) -> bool:
        """/exit: leave."""
        return False

    def cmd_show(self, argument: str) -> None:
        """/show [N]: the last N turns."""
        if not self.store.exists(self.session_id):
            self.view.note("no turns yet")
            return
        self.show_turns(_count(argument, SHOW_DEFAULT))

    def cmd_stats(self, argument: str) -> None:
        """/stats: the session's numbers and the REPL's settings."""
        exists = self.store.exists(self.session_id)
        stats = self.store.session_stats(self.session_id) if exists else None
        path = self.store.sessions_dir / f"{self.session_id}.jsonl"
        system = self.system_prompt()
        self.view.stats(
            stats,
            [
                ("session", self.session_id),
                ("file", str(path) if exists else f"{path} (created by the first turn)"),
                ("memory", self.spec.describe()),
                ("next context", f"{self.context_tokens} tokens + your message"),
                ("backend", self.backend.name),
                ("system prompt", system if system else "none"),
            ],
        )

    def cmd_window(self, argument: str) -> None:
        """/window [K]: the context of the next request, or of the last K turns."""
        if not argument:
            messages = self.context(None)
            title = f"next request ({self.spec.describe()}), before your message"
        else:
            k = _count(argument, 1)
            window = bind_memory(MemorySpec("window", k), self.store, self.session_id)
            system = self.system_prompt()
            messages = [{"role": "system", "content": system}] if system else []
            messages += window.context_messages()
            title = f"window of the last {k} turn{'s' * (k != 1)}"
        self.view.context(messages, self.tokens(messages), title)

    def cmd_memory(self, argument: str) -> None:
        """/memory KIND [N]: choose which history goes into the context."""
        if argument:
            try:
                self.spec = parse_memory(argument)
            except ConfigError as exc:
                self.view.error(str(exc))
                return
            self.memory = bind_memory(self.spec, self.store, self.session_id)
            self._update_tokens()
        self.view.note(f"memory {self.spec.describe()} · context {self.context_tokens} tokens")

    def cmd_system(self, argument: str) -> None:
        """/system [TEXT|-]: show, set or remove the session's system prompt."""
        if not argument:
            current = self.system_prompt()
            self.view.note(f"system prompt: {current}" if current else "no system prompt")
            return
        session = (
            self.store.get_session(self.session_id) if self.store.exists(self.session_id) else None
        )
        metadata = dict(session.metadata) if session else {}
        if argument == "-":
            metadata.pop(SYSTEM_KEY, None)
        else:
            metadata[SYSTEM_KEY] = argument
        self.store.create_session(
            self.session_id, user_id=session.user_id if session else None, metadata=metadata
        )
        self.session_system = metadata.get(SYSTEM_KEY)
        self._update_tokens()
        self.view.note("system prompt removed" if argument == "-" else "system prompt set")

    def cmd_undo(self, argument: str) -> None:
        """/undo: remove the last turn from the session."""
        removed = (
            self.store.delete_last_turn(self.session_id)
            if self.store.exists(self.session_id)
            else []
        )
        if not removed:
            self.view.note("nothing to undo")
            return
        self.open(self.session_id)
        self.view.note(f"removed the last turn: {_excerpt(removed[0].content)}")

    def cmd_retry(self, argument: str) -> None:
        """/retry: a new reply to the last message; the old one goes only once it is complete."""
        last = _last_exchange(self.store, self.session_id)
        if last is None:
            self.view.note("nothing to retry")
            return
        question, old_reply = last
        messages = _without_last_turn(self.context(None), question.content, old_reply)
        self.view.turn(question.content, None)
        reply = self.ask([*messages, {"role": "user", "content": question.content}])
        if reply is None:
            self.view.note("the previous reply stays")
            return
        with sigint_deferred():
            # One rewrite: a crash leaves the old turn or the new one, never neither.
            self.store.replace_last_turn(
                self.session_id, question.content, reply, replaces=question.uuid
            )
            self.open(self.session_id)

    def cmd_clear(self, argument: str) -> None:
        """/clear: remove every turn, after asking."""
        if not self.store.exists(self.session_id) or self.turn_count == 0:
            self.view.note("nothing to clear")
            return
        question = f"Remove all {self.turn_count} turns of {self.session_id}? [y/N] "
        if not self.confirm(question):
            self.view.note("kept")
            return
        self.memory.clear()
        self.open(self.session_id)
        self.view.note("session cleared")

    def cmd_session(self, argument: str) -> None:
        """/session ID: switch sessions."""
        if not argument:
            self.view.note(f"session {self.session_id} (/session ID switches)")
            return
        self.open(validate_session_id(argument))
        self.welcome()

    # -- without a terminal --------------------------------------------------------------

    def run_piped(self, lines: Iterable[bytes], emit: Emit) -> int:
        """One message per line, each recorded turn to `emit`; 1 if any turn failed, else 0."""
        failures = 0
        for number, raw in enumerate(lines, 1):
            text = decode(raw, f"stdin line {number}").rstrip("\r\n")
            if not text.strip():
                continue
            try:
                reply = "".join(self.backend.reply(self.context(text)))
            except BackendError as exc:
                self.view.error(f"line {number}: {exc}; nothing recorded")
                failures += 1
                continue
            if not reply.strip():
                self.view.error(f"line {number}: empty reply; nothing recorded")
                failures += 1
                continue
            stored = self.record(text, reply)
            if stored is None:
                failures += 1
                continue
            emit(number, stored)
        return 1 if failures else 0


def reply_writer(out: IO[str]) -> Emit:
    """Piped output for people and simple scripts: each reply, ending in a newline."""

    def emit(number: int, turn: StoredTurn) -> None:
        reply = turn[1].content
        shown = neutralize(reply) if out.isatty() else reply
        out.write(shown if shown.endswith("\n") else shown + "\n")
        out.flush()

    return emit


def turn_writer(out: IO[str], session_id: str) -> Emit:
    """Piped output with `--jsonl`: each recorded turn as one JSON object a line."""

    def emit(number: int, turn: StoredTurn) -> None:
        user, assistant = turn
        out.write(to_json(turn_object(session_id, number, user, assistant), indent=None) + "\n")
        out.flush()

    return emit


def turn_object(session_id: str, line: int, user: Message, assistant: Message) -> dict[str, Any]:
    """The `--jsonl` shape of one recorded turn (see README, zerda chat, For scripts)."""
    return {
        "session": session_id,
        "line": line,
        "input": user.content,
        "output": assistant.content,
        "user_uuid": user.uuid,
        "assistant_uuid": assistant.uuid,
        "created_at": assistant.to_dict()["created_at"],
        "input_tokens": user.token_count,
        "output_tokens": assistant.token_count,
    }


def _count(argument: str, default: int) -> int:
    """A positive whole-number argument, or `default` when absent."""
    if not argument:
        return default
    if not argument.isdigit() or int(argument) < 1:
        raise ValueError(f"expected a whole number >= 1, got {one_line(argument)!r}")
    return int(argument)


def _excerpt(text: str, limit: int = 60) -> str:
    flat = one_line(text)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _last_exchange(store: SessionStore, session_id: str) -> tuple[Message, str | None] | None:
    """The session's last user message and the reply after it, read from the end."""
    if not store.exists(session_id):
        return None
    reply = None
    for message in store.iter_messages_reversed(session_id):
        if message.role == "user":
            return message, reply
        if message.role == "assistant":
            reply = message.content
    return None


def _without_last_turn(messages: Messages, user_text: str, reply: Any) -> Messages:
    """The context minus the turn being retried (it sits at the end, if the memory holds it)."""
    tail = [{"role": "user", "content": user_text}]
    if reply is not None:
        tail.append({"role": "assistant", "content": str(reply)})
    if messages[-len(tail) :] == tail:
        return messages[: -len(tail)]
    return messages


def history_file(directory: Path) -> Path:
    """The input-history file in `directory`: created private (0600), never through a symlink."""
    private_dir(directory)
    path = directory / "history"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return path


def run_terminal(chat: Chat, history: Path | None) -> None:
    """The interactive loop on prompt-toolkit."""
    from zerda_cli.prompts import Prompts

    prompts = Prompts(chat, history)
    if isinstance(chat.backend, ManualBackend):
        chat.backend.ask = prompts.reply
    chat.confirm = prompts.confirm
    chat.welcome()
    while True:
        try:
            line = prompts.message()
        except KeyboardInterrupt:
            continue
        except EOFError:
            break
        if not chat.handle(line):
            break
    chat.goodbye()


def stdin_lines() -> Iterator[bytes]:
    """Stdin's lines as bytes (decoded per line, so a bad byte names its line)."""
    yield from sys.stdin.buffer
