"""Writing imported conversations into a store: each checked first, only what is new
written, everything counted in a `Report`.

A conversation's messages carry uuids derived from the source, so a session already
holding some of them as they are gets only the others (and those the source changed,
in place): importing the same export again writes nothing, a newer export only what
it adds. When the conversation has left a branch the session holds (a message edited
or a reply regenerated at the source), the session is rewritten in one step to the
conversation's current path, followed by the messages added to it in zerda.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from zerda._paths import SESSION_ID
from zerda.errors import ImportFailed, InvalidMessageError
from zerda.importers._base import Conversation, Found, Problem
from zerda.importers._held import lined_up, metadata_for, session_id_of
from zerda.messages import Message
from zerda.store._copying import new_session_undone_on_failure
from zerda.store._sources import ListSource
from zerda.store.base import Store
from zerda.store.files._records import check_storable


@dataclass
class Report:
    """What an import did (or, dry, would do)."""

    sessions: int = 0  # sessions written to (created, or given new messages)
    messages: int = 0  # messages added (or changed at the source)
    unchanged: int = 0  # sessions that already held everything
    removed: int = 0  # messages of branches a conversation left, taken out
    skipped: dict[str, int] = field(default_factory=dict)  # messages left out, by reason
    problems: list[Problem] = field(default_factory=list)

    def summary(self) -> str:
        """ "imported 2 sessions, 9 messages (3 skipped: 2 branch, 1 hidden); 0 problems"."""
        line = f"imported {_count(self.sessions, 'session')}, {_count(self.messages, 'message')}"
        if self.skipped:
            ranked = sorted(self.skipped.items(), key=_most_first)
            reasons = ", ".join(f"{n} {why}" for why, n in ranked)
            line += f" ({sum(self.skipped.values())} skipped: {reasons})"
        if self.removed:
            line += f"; {_count(self.removed, 'message')} of left branches removed"
        if self.unchanged:
            line += f"; {_count(self.unchanged, 'session')} already up to date"
        return f"{line}; {_count(len(self.problems), 'problem')}"


def _most_first(reason: tuple[str, int]) -> tuple[int, str]:
    return -reason[1], reason[0]


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def import_conversations(
    store: Store,
    found: Iterable[Found],
    *,
    dry_run: bool = False,
    strict: bool = False,
    prefix: str | None = None,
    progress: Callable[[Report], None] | None = None,
) -> Report:
    """Check and write each conversation of `found` as a session of `store`.

    A conversation becomes session `conversation.session_id`, or `PREFIX-<that>`; when
    `found` holds only one conversation, `prefix` is its session id. A problem is
    counted and passed over, or under `strict` raised (ImportFailed) before anything
    of it is written. `dry_run` reads the store but writes nothing.
    """
    report = Report()
    items, single = _lookahead(iter(found))
    for item in items:
        problem = item if isinstance(item, Problem) else _checked(item)
        if problem is None and isinstance(item, Conversation):
            session_id = session_id_of(store, item, prefix, single)
            problem = _bad_id(item, session_id)
            if problem is None:
                _write(store, item, session_id, dry_run, report)
        if problem is not None:
            if strict:
                raise ImportFailed(str(problem))
            report.problems.append(problem)
        if progress is not None:
            progress(report)
    return report


def _lookahead(found: Iterator[Found]) -> tuple[Iterator[Found], bool]:
    """(the same items, whether they hold exactly one conversation): reads ahead to the
    second conversation, no further."""
    ahead: list[Found] = []
    conversations = 0
    for item in found:
        ahead.append(item)
        conversations += isinstance(item, Conversation)
        if conversations > 1:
            break
    return itertools.chain(ahead, found), conversations == 1


def _where(conversation: Conversation) -> str:
    return f"{conversation.source} conversation {conversation.source_id!r}"


def _bad_id(conversation: Conversation, session_id: str) -> Problem | None:
    if SESSION_ID.fullmatch(session_id):
        return None
    return Problem(_where(conversation), f"session id {session_id!r} is too long")


def _checked(conversation: Conversation) -> Problem | None:
    """The Problem that keeps `conversation` out of a store (a message or its metadata
    not storable as UTF-8 JSON), or None."""
    records = [{"type": "session", "metadata": conversation.metadata}]
    records += [{"type": "message", **m.to_dict()} for m in conversation.messages]
    try:
        check_storable(records)
    except InvalidMessageError as exc:
        return Problem(_where(conversation), str(exc))
    return None


def _write(
    store: Store, conversation: Conversation, session_id: str, dry_run: bool, report: Report
) -> None:
    """Write what `conversation` adds to session `session_id`, counting it."""
    for reason, count in conversation.skipped.items():
        report.skipped[reason] = report.skipped.get(reason, 0) + count
    exists = store.exists(session_id)
    held = list(store.iter_messages(session_id)) if exists else []
    conversation.messages = lined_up(conversation, held)
    kept = {m.uuid: _kept(m) for m in held}
    new = [m for m in conversation.messages if kept.get(m.uuid) != _kept(m)]
    left = sum(1 for m in held if m.uuid in conversation.off_path)
    facts = store.get_session(session_id).metadata if exists else None
    metadata = metadata_for(facts, conversation)
    changed = facts is not None and any(facts.get(k) != v for k, v in metadata.items())
    if exists and not new and not left and not changed:
        report.unchanged += 1
        return
    report.sessions += 1
    report.messages += len(new)
    report.removed += left
    if dry_run:
        return
    with new_session_undone_on_failure(store, session_id):
        if not exists or changed:
            created = conversation.created_at
            store.create_session(session_id, None, metadata, created_at=created)
        if left:
            store.replace_messages(session_id, _current_path(conversation, held))
            if conversation.summary is not None:
                store.set_summary(session_id, conversation.summary)
        elif new:
            store.import_messages(session_id, ListSource(new), conversation.summary)


def _current_path(conversation: Conversation, held: list[Message]) -> list[Message]:
    """The conversation's messages, then those the session holds that are not of it
    (added in zerda), in their order: what a session holding a left branch becomes."""
    ours = {m.uuid for m in conversation.messages} | conversation.off_path
    return conversation.messages + [m for m in held if m.uuid not in ours]


def _kept(m: Message) -> tuple[object, ...]:
    """What an import gives a message (the store adds its token count)."""
    return (m.role, m.role_type, m.content, m.metadata, m.created_at, m.extra)
