"""The SQL of a search on the server: the filters in a WHERE clause, newest first, a LIMIT.

The query's clause picks candidates (the trigram index on SEARCH_TEXT for a string, and
for each of the words of `Words`);
each candidate is then checked exactly in Python (`Matcher.found`), so the clause must
never leave out a match. A string's LIKE over the casefolded text is exact, and then
LIMIT is too. A pattern goes to the server (`~*`, or `~` when compiled without
`re.IGNORECASE`) only when it means the same in PostgreSQL's regular expressions and
the content is ASCII (Python's and the server's case folding differ beyond it);
otherwise every message that passes the other filters is a candidate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from zerda.store._matching import Filters, Matcher
from zerda.store.postgres import _rows as rows
from zerda.store.postgres._schema import SEARCH_TEXT

_SELECT = f"SELECT session_id, {rows.MESSAGE_COLUMNS} FROM zerda_messages"
_ORDER = "ORDER BY created_at DESC, session_id, seq DESC"
# Python and PostgreSQL read these differently (escapes, `$` before a final newline,
# inline flags, bracket classes, braces that Python takes literally, possessive
# quantifiers, what Python may come to read as class set operations): left to Python.
_UNSHARED = re.compile(r"[\\${]|\(\?|\[[:=.]|[*+?]\+|--|&&|~~|\|\|")
_SHARED_FLAGS = re.IGNORECASE | re.UNICODE


class SearchQuery:
    """The statement and parameters of one search, and whether its LIMIT is exact."""

    def __init__(
        self,
        matcher: Matcher,
        filters: Filters,
        session_id: str | None,
        limit: int | None,
        *,
        server_pattern: bool = True,
    ) -> None:
        self.where: list[str] = []
        self.params: list[Any] = []
        # The pattern the server matches, if any (else Python alone matches).
        self.pattern: str | None = None
        self.server_pattern = server_pattern
        self.exact = self._match(matcher)
        self._filter(filters, session_id)
        self.limit = limit if self.exact else None

    def statement(self) -> str:
        """The SELECT, newest first, limited when that is exact."""
        where = f" WHERE {' AND '.join(self.where)}" if self.where else ""
        limit = f" LIMIT {int(self.limit)}" if self.limit is not None else ""
        return f"{_SELECT}{where} {_ORDER}{limit}"

    def _add(self, clause: str, *params: Any) -> None:
        self.where.append(clause)
        self.params.extend(params)

    def _match(self, matcher: Matcher) -> bool:
        """Add the query's clause; True when it finds exactly what `matcher` finds."""
        if matcher.needle is not None:
            needle = matcher.needle.replace(rows.NUL, rows.NUL_STAND_IN)
            self._add(f"{SEARCH_TEXT} LIKE %s", "%" + like_escaped(needle) + "%")
            return rows.NUL_STAND_IN not in needle
        if matcher.words is not None:  # each word's LIKE: the words are checked here
            for text in sorted({text for term in matcher.needles for text in term}):
                self._add(f"{SEARCH_TEXT} LIKE %s", "%" + like_escaped(text) + "%")
            return False
        pattern = matcher.pattern
        if pattern is not None and self.server_pattern and _shared(pattern):
            self.pattern = pattern.pattern
            operator = "~*" if pattern.flags & re.IGNORECASE else "~"
            ascii_only = "octet_length(content) = char_length(content)"
            self._add(f"(content {operator} %s OR NOT {ascii_only})", pattern.pattern)
        return False

    def _filter(self, filters: Filters, session_id: str | None) -> None:
        if session_id is not None:
            self._add("session_id = %s", session_id)
        if filters.roles:
            roles = sorted(filters.roles)
            self._add("(role = ANY(%s) OR role_type = ANY(%s))", roles, roles)
        if filters.since is not None:
            self._add("created_at >= %s", filters.since)
        if filters.until is not None:
            self._add("created_at < %s", filters.until)


def _shared(pattern: re.Pattern[str]) -> bool:
    """True when `pattern` means the same to PostgreSQL on ASCII text."""
    text = pattern.pattern
    return text.isascii() and not pattern.flags & ~_SHARED_FLAGS and not _UNSHARED.search(text)


def like_escaped(text: str) -> str:
    """`text` matched literally by LIKE (whose escape character is the backslash)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def holding_count(texts: Sequence[str]) -> tuple[str, list[str]]:
    """The SELECT counting the messages whose casefolded text holds every one of `texts`
    (with the trigram index: never fewer than hold a term of them)."""
    clause = " AND ".join([f"{SEARCH_TEXT} LIKE %s"] * len(texts)) or "TRUE"
    params = ["%" + like_escaped(text.replace(rows.NUL, rows.NUL_STAND_IN)) + "%" for text in texts]
    return f"SELECT count(*) FROM zerda_messages WHERE {clause}", params
