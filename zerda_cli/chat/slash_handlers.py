"""What the slash commands of `zerda chat` do (`slash_commands` has their names and syntax).

Each handler gets the chat and the text after the command's name; only /exit returns
False, which ends the REPL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from zerda._paths import validate_session_id
from zerda.messages import Message
from zerda.store.base import Store
from zerda_cli.chat.backends import Messages
from zerda_cli.chat.config import MemorySpec, parse_memory
from zerda_cli.chat.memory import bind_memory
from zerda_cli.chat.slash_commands import COMMANDS
from zerda_cli.chat.terminal import sigint_deferred
from zerda_cli.render.sanitize import one_line

if TYPE_CHECKING:
    from zerda_cli.chat.repl import Chat

SHOW_DEFAULT = 10


def show_help(chat: Chat, argument: str) -> None:
    """/help: the commands and keys; /retry's line says what it would do now."""
    rows = dict(COMMANDS)
    usage, meaning = rows["retry"]
    if chat.failed is not None:
        now = f"now: sends your failed message again ({_excerpt(chat.failed, 40)})"
    else:
        now = "now: asks again for the last recorded reply"
    rows["retry"] = (usage, f"{meaning}; {now}")
    chat.view.help(rows.values())


def leave(chat: Chat, argument: str) -> bool:
    """/exit: leave."""
    return False


def show_last_turns(chat: Chat, argument: str) -> None:
    """/show [N]: the last N turns."""
    if not chat.store.exists(chat.session_id):
        chat.view.note("no turns yet")
        return
    chat.show_turns(_count(argument, SHOW_DEFAULT))


def show_stats(chat: Chat, argument: str) -> None:
    """/stats: the session's numbers and the REPL's settings."""
    exists = chat.store.exists(chat.session_id)
    stats = chat.store.session_stats(chat.session_id) if exists else None
    where = chat.store.describe(chat.session_id)
    system = chat.system_prompt()
    chat.view.stats(
        stats,
        [
            ("session", chat.session_id),
            ("stored in", where if exists else f"{where} (created by the first turn)"),
            ("memory", chat.spec.describe()),
            ("summarizer", _summarizer(chat)),
            ("next context", f"{chat.context_tokens} tokens + your message"),
            ("backend", chat.backend.name),
            ("system prompt", system if system else "none"),
        ],
    )


def _summarizer(chat: Chat) -> str:
    if chat.spec.kind != "summary":
        return "none (summary memory only)"
    kind = "the chat's model" if chat.config.summarizer == "model" else "extractive (offline)"
    return f"{kind}, not up to date" if chat.unsummarized else kind


def show_window(chat: Chat, argument: str) -> None:
    """/window [K]: the context of the next request, or of the last K turns."""
    if not argument:
        messages = chat.context(None)
        title = f"next request ({chat.spec.describe()}), before your message"
    else:
        k = _count(argument, 1)
        window = bind_memory(MemorySpec("window", k), chat.store, chat.session_id)
        system = chat.system_prompt()
        messages = [{"role": "system", "content": system}] if system else []
        messages += window.context_messages()
        title = f"window of the last {k} turn{'s' * (k != 1)}"
    chat.view.context(messages, chat.tokens(messages), title)


def choose_memory(chat: Chat, argument: str) -> None:
    """/memory KIND [N]: choose which history goes into the context."""
    if argument:
        chat.use_memory(parse_memory(argument))
    chat.view.note(f"memory {chat.spec.describe()} · context {chat.context_tokens} tokens")


def system_prompt(chat: Chat, argument: str) -> None:
    """/system [TEXT|-]: show, set or remove the session's system prompt."""
    if not argument:
        current = chat.system_prompt()
        chat.view.note(f"system prompt: {current}" if current else "no system prompt")
        return
    chat.set_session_system(None if argument == "-" else argument)
    chat.view.note("system prompt removed" if argument == "-" else "system prompt set")


def undo_last_turn(chat: Chat, argument: str) -> None:
    """/undo: remove the last turn from the session."""
    exists = chat.store.exists(chat.session_id)
    removed = chat.store.delete_last_turn(chat.session_id) if exists else []
    if not removed:
        chat.view.note("nothing to undo")
        return
    chat.open(chat.session_id)
    chat.view.note(f"removed the last turn: {_excerpt(removed[0].content)}")


def retry(chat: Chat, argument: str) -> None:
    """/retry: after a failed turn, send its message again; else a new reply to the last
    message, which replaces the old reply only once it is complete."""
    if chat.failed is not None:
        message = chat.failed
        chat.view.turn(message, None)
        chat.send(message)
        return
    retry_last_reply(chat)


def retry_last_reply(chat: Chat) -> None:
    """Ask again for the last recorded reply; swap it in with one rewrite when complete."""
    last = _last_exchange(chat.store, chat.session_id)
    if last is None:
        chat.view.note("nothing to retry")
        return
    question, old_reply = last
    messages = _without_last_turn(chat.context(None), question.content, old_reply)
    chat.view.turn(question.content, None)
    answer = chat.ask([*messages, {"role": "user", "content": question.content}])
    if answer is None:
        chat.view.note("the previous reply stays")
        return
    with sigint_deferred():
        # One rewrite: a crash leaves the old turn or the new one, never neither.
        chat.store.replace_last_turn(
            chat.session_id,
            question.content,
            answer.text,
            replaces=question.uuid,
            reply_metadata=answer.metadata(),
        )
        chat.open(chat.session_id)


def edit_message(chat: Chat, argument: str) -> None:
    """/edit [TEXT]: write the next message in $EDITOR (starting from TEXT, else from the
    message of a failed turn); it waits at the prompt, Enter sends it."""
    from zerda_cli.chat.editor import edit_text

    text = edit_text(argument or chat.failed or "")
    if not text.strip():
        chat.view.note("the editor left the message empty: nothing to send")
        return
    chat.draft = text


def clear_session(chat: Chat, argument: str) -> None:
    """/clear: remove every turn, after asking."""
    if not chat.store.exists(chat.session_id) or chat.turn_count == 0:
        chat.view.note("nothing to clear")
        return
    count = chat.turn_count
    turns = {1: "the only turn", 2: "both turns"}.get(count, f"all {count} turns")
    question = f"Remove {turns} of {chat.session_id}? [y/N] "
    if not chat.confirm(question):
        chat.view.note("kept")
        return
    chat.memory.clear()
    chat.open(chat.session_id)
    chat.view.note("session cleared")


def switch_session(chat: Chat, argument: str) -> None:
    """/session ID: switch sessions."""
    if not argument:
        chat.view.note(f"session {chat.session_id} (/session ID switches)")
        return
    chat.open(validate_session_id(argument))
    chat.welcome()


def fork_session(chat: Chat, argument: str) -> None:
    """/fork NEW: copy the session as it stands into NEW and go on there."""
    if not argument:
        raise ValueError("/fork NEW: name the new session")
    new = validate_session_id(argument)
    if not chat.store.exists(chat.session_id):
        raise ValueError("nothing to fork yet: the session has no turns")
    old = chat.session_id
    chat.store.fork_session(old, new)
    chat.open(new)
    chat.view.note(f"forked session {old} into {new}; the chat goes on in {new}")


Handler = Callable[["Chat", str], "bool | None"]

# One handler for each name in `slash.COMMANDS`.
HANDLERS: dict[str, Handler] = {
    "help": show_help,
    "show": show_last_turns,
    "stats": show_stats,
    "window": show_window,
    "memory": choose_memory,
    "system": system_prompt,
    "undo": undo_last_turn,
    "retry": retry,
    "edit": edit_message,
    "clear": clear_session,
    "session": switch_session,
    "fork": fork_session,
    "exit": leave,
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


def _last_exchange(store: Store, session_id: str) -> tuple[Message, str | None] | None:
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
