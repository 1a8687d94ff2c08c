"""A session row's running totals: its columns, and the statement that counts them
afresh from the session's messages (a repair, and `compact`)."""

from __future__ import annotations

from zerda.messages import ANSWER, ASK

# The totals columns of a session row, in the order `_tally` takes them.
TOTALS = "messages, turns, chars, tokens, system, after_user, first_at, last_at"
# The running totals of a session counted from its messages: ASK opens a turn, and an
# ANSWER opens one too unless it closes the one an ASK opened (as `Tally.add` counts).
_COUNTS = f"""(
        SELECT count(*) AS messages,
            count(*) FILTER (WHERE part = '{ASK}')
                + count(*) FILTER (WHERE part = '{ANSWER}'
                                   AND previous IS DISTINCT FROM '{ASK}') AS turns,
            coalesce(sum(length(content)) FILTER (WHERE part IN ('{ASK}', '{ANSWER}')), 0)
                AS chars,
            coalesce(sum(token_count), 0) AS tokens,
            count(*) FILTER (WHERE role_type = 'system') AS system
        FROM (
            SELECT part, content, token_count, role_type,
                lag(part) OVER (PARTITION BY part IN ('{ASK}', '{ANSWER}') ORDER BY seq)
                    AS previous
            FROM zerda_messages WHERE session_id = %(id)s
        ) AS m
    ) AS t"""
_AFTER_USER = f"""coalesce((
            SELECT part = '{ASK}' FROM zerda_messages
            WHERE session_id = %(id)s AND part IN ('{ASK}', '{ANSWER}')
            ORDER BY seq DESC LIMIT 1), false)"""
_FIRST_AT = "(SELECT created_at FROM zerda_messages WHERE session_id = %(id)s ORDER BY seq LIMIT 1)"
_LAST_AT = (
    "(SELECT created_at FROM zerda_messages WHERE session_id = %(id)s ORDER BY seq DESC LIMIT 1)"
)
RECOUNT = f"""
    UPDATE zerda_sessions AS s SET
        messages = t.messages, turns = t.turns, chars = t.chars, tokens = t.tokens,
        system = t.system, after_user = {_AFTER_USER},
        first_at = {_FIRST_AT}, last_at = {_LAST_AT}
    FROM {_COUNTS}
    WHERE s.id = %(id)s
"""
# The same totals counted, as a row in TOTALS order, writing nothing (a check).
COUNTED = f"""
    SELECT t.messages, t.turns, t.chars, t.tokens, t.system, {_AFTER_USER},
        {_FIRST_AT}, {_LAST_AT}
    FROM {_COUNTS}
"""
