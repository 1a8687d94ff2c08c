"""The `zerda chat` session: read a message, get the reply from a backend, record the turn.

A turn reaches the session file only when its reply is complete (it ended as its
protocol says: see `zerda.clients`), in one write through the bound memory, with
the reply's provenance in the assistant message's metadata. A cancelled or failed
reply leaves the file as it was, and `/retry` sends that message again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from zerda.clients._base import Provenance
from zerda.errors import SummarizerError, ZerdaError
from zerda.formats.openai import content_text
from zerda.limits import over_limit, too_large
from zerda.memory._turns import last_turns
from zerda.messages import Memory, Message
from zerda.store.base import Store
from zerda.tokens import count_tokens
from zerda_cli.chat.backends import Backend, BackendError, ManualBackend, Messages
from zerda_cli.chat.config import ChatConfig, MemorySpec
from zerda_cli.chat.memory import bind_chat_memory, bind_memory, chat_summarizer
from zerda_cli.chat.slash_commands import is_command, parse, unescape
from zerda_cli.chat.slash_handlers import HANDLERS
from zerda_cli.chat.streaming import ReplyTooLarge, in_background, within_limit
from zerda_cli.chat.terminal import sigint_deferred, typing_hidden
from zerda_cli.chat.view import ChatView
from zerda_cli.render.sanitize import one_line

SYSTEM_KEY = "system"

StoredTurn = tuple[Message, Message]
RETRY_HINT = "/retry sends it again"


@dataclass(frozen=True)
class Answer:
    """A complete reply and how it was made."""

    text: str
    provenance: Provenance | None

    def metadata(self) -> dict[str, object] | None:
        """What the assistant message records about the reply."""
        return self.provenance.metadata() if self.provenance else None


class Chat:
    """One REPL: the session, its bound memory, the backend and what is shown."""

    def __init__(
        self,
        store: Store,
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
        # The message of the last turn that failed (None once a turn is recorded):
        # what /retry sends again.
        self.failed: str | None = None
        # Text the next prompt starts with (set by /edit).
        self.draft = ""
        self.session_id = session_id
        self.open(session_id)

    # -- state ---------------------------------------------------------------------

    def open(self, session_id: str) -> None:
        """Bind the memory to `session_id` and count what it holds."""
        if session_id != self.session_id:
            self.failed = None
        self.session_id = session_id
        self._bind()
        exists = self.store.exists(session_id)
        self.turn_count = self.store.session_stats(session_id).turn_count if exists else 0
        self.session_system = self._stored_system() if exists else None
        self._update_tokens()

    def use_memory(self, spec: MemorySpec) -> None:
        """From now on, pick the context with the memory `spec` names."""
        self.spec = spec
        self._bind()
        self._update_tokens()

    def _bind(self) -> None:
        """Bind the memory the spec names; should its summarizer fail to bring the
        summary up to date, say so and go on with the newest turns within the budget."""
        summarizer = chat_summarizer(self.config, self.spec, self.backend, self.store.encoding)
        self.memory, failed = bind_chat_memory(self.spec, self.store, self.session_id, summarizer)
        self.unsummarized = failed is not None
        if failed is not None:
            self.view.error(
                f"summary not updated: {failed}; until it is, the context is the newest "
                f"turns within {self.spec.size} tokens"
            )

    def set_session_system(self, text: str | None) -> None:
        """Store `text` as the session's own system prompt; None removes it."""
        # Metadata merges: a key set to None is removed, the others are kept.
        self.store.create_session(self.session_id, metadata={SYSTEM_KEY: text})
        self.session_system = text
        self._update_tokens()

    def _stored_system(self) -> str | None:
        metadata = self.store.get_session(self.session_id).metadata
        return str(metadata[SYSTEM_KEY]) if SYSTEM_KEY in metadata else None

    def _update_tokens(self) -> None:
        self.context_tokens = self.tokens(self.context(None))

    def tokens(self, messages: Messages) -> int:
        """Tokens of the messages' contents, in the store's encoding."""
        return sum(
            count_tokens(content_text(m.get("content")), self.store.encoding) for m in messages
        )

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

    def ask(self, messages: Messages, hint: str = "") -> Answer | None:
        """The backend's complete reply, shown as it arrives; None (and one line saying
        why, ending in `hint`) when it was cancelled, failed, empty or too large."""
        reply = self.backend.reply(messages)
        after = f" · {hint}" if hint else ""
        try:
            if isinstance(self.backend, ManualBackend):
                text = reply.read()
                # Its prompt is erased once typed: shown again like any reply.
                if text.strip():
                    self.view.reply(text)
            else:
                waiting = f"waiting for {self.backend.name} · Ctrl-C cancels"
                # Bounded in the worker, so no more than the limit is ever read ahead.
                pieces = in_background(within_limit(reply), self.backend.cancel)
                with typing_hidden(), contextlib.closing(pieces):
                    text = self.view.stream(pieces, waiting)
        except ReplyTooLarge:
            self.view.error(too_large("the reply") + after)
            return None
        except (KeyboardInterrupt, EOFError):
            self.view.note(f"cancelled: nothing recorded{after}")
            return None
        except BackendError as exc:
            self.view.error(f"{exc}; nothing recorded{after}")
            return None
        finally:
            with contextlib.suppress(ValueError):  # still running in a worker after a cancel
                reply.close()
        if not text.strip():
            self.view.note(f"empty reply: nothing recorded{after}")
            return None
        if over_limit(text):
            self.view.error(too_large("the reply") + after)
            return None
        answer = Answer(text, reply.provenance)
        self.say_if_truncated(answer)
        return answer

    def say_if_truncated(self, answer: Answer) -> None:
        """A note when the model stopped before it meant to (the reply is kept, marked)."""
        if answer.provenance is not None and answer.provenance.truncated:
            self.view.note(truncation_note(answer.provenance))

    def record(self, user_text: str, answer: Answer) -> StoredTurn | None:
        """Append the turn to the session in one write; None (and a message) if that failed."""
        try:
            with sigint_deferred():
                self.memory.save_context(
                    {"input": user_text}, {"output": answer.text}, reply_metadata=answer.metadata()
                )
        except SummarizerError as exc:
            return self._record_unsummarized(user_text, answer, exc)
        except ZerdaError as exc:
            self.view.error(f"turn not recorded: {exc}")
            return None
        return self._recorded()

    def _record_unsummarized(
        self, user_text: str, answer: Answer, failed: SummarizerError
    ) -> StoredTurn | None:
        """The summarizer failed folding older turns in: the turn is recorded as it is
        (the summary stays as it was), and folding is tried again after the next turn."""
        self.view.error(f"summary not updated: {failed}; the turn is recorded without it")
        reply = Message("assistant", answer.text, answer.metadata() or {})
        try:
            with sigint_deferred():
                stored = self.store.add_memory(
                    self.session_id, Memory(messages=[Message("user", user_text), reply])
                )
        except ZerdaError as exc:
            self.view.error(f"turn not recorded: {exc}")
            return None
        self.memory = bind_memory(MemorySpec("token", self.spec.size), self.store, self.session_id)
        self.unsummarized = True
        self.turn_count += 1
        self._update_tokens()
        return stored[0], stored[1]

    def _recorded(self) -> StoredTurn | None:
        if self.unsummarized:  # the summarizer may work again
            self._bind()
        self.turn_count += 1
        self._update_tokens()
        return self.memory.last_stored_turn

    def send(self, user_text: str) -> None:
        """One turn: ask the backend, record the turn when the reply is complete.

        A message over the size limit is refused before it is sent. When the turn
        fails, its message is kept for /retry.
        """
        if over_limit(user_text):
            self.view.error(too_large("your message"))
            return
        answer = self.ask(self.context(user_text), hint=RETRY_HINT)
        stored = self.record(user_text, answer) if answer is not None else None
        self.failed = None if stored is not None else user_text

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
            return HANDLERS[name](self, argument) is not False
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
        """Where the conversation is kept (a session never written was never made)."""
        if not self.store.exists(self.session_id):
            self.view.note(f"no turns recorded: session {self.session_id} was not created")
            return
        self.view.note(
            f"{self.turn_count} turn{'s' * (self.turn_count != 1)} in session "
            f"{self.session_id} · zerda show {self.session_id}"
        )


def truncation_note(provenance: Provenance) -> str:
    """What to say about a reply the model stopped early (`finish_reason` length or
    content_filter): it is recorded as it is and marked."""
    why = {
        "length": "it reached its length limit",
        "content_filter": "its content filter stopped it",
    }.get(provenance.finish_reason or "", "it was stopped")
    return (
        f"the reply was cut short: {why} (finish_reason {provenance.finish_reason}); "
        "recorded as it is, marked truncated in its metadata"
    )
