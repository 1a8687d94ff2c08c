"""Entities stored with messages and summaries, on every store: found as they are written,
kept when given, read back exactly, found afterwards for history stored without them."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import close

from zerda.entities import Entity, EntityMatch, extract, stored_entities
from zerda.errors import NotFoundError
from zerda.messages import Memory, Message, Summary
from zerda.store._opening import open_store
from zerda.store.base import Store

MET = "Ada Lovelace met Charles Babbage in London on June 3, 1833."
MAIL = "Write to ada@example.com before 5 pm."
SUMMARY = "Ada Lovelace wrote to Babbage from Paris."


def named(entities: tuple[Entity, ...] | None) -> list[tuple[str, str]]:
    assert entities is not None
    return [(e.label, e.name) for e in entities]


def test_messages_and_summaries_get_their_entities_as_they_are_stored(store: Store) -> None:
    stored = store.add_memory("s", Memory([Message("user", MET), Message("ai", MAIL)], SUMMARY))
    assert named(stored[0].entities) == [
        ("PERSON", "Ada Lovelace"),
        ("PERSON", "Charles Babbage"),
        ("GPE", "London"),
        ("DATE", "June 3, 1833"),
    ]
    assert named(stored[1].entities) == [("EMAIL", "ada@example.com"), ("TIME", "5 pm")]
    assert [m.entities for m in stored] == [stored_entities(MET), stored_entities(MAIL)]
    memory = store.get_memory("s")
    assert memory.messages == stored == list(store.iter_messages("s"))
    assert store.get_memory("s", lastn=1).messages == stored[1:]
    assert memory.summary is not None and memory.summary.entities == stored_entities(SUMMARY)
    assert [found for _, found in store.search("babbage")] == [stored[0]]
    for match in stored[0].entities or ():
        assert [MET[m.start : m.end] for m in match.matches] == [m.text for m in match.matches]


def test_entities_given_with_a_message_are_kept(store: Store) -> None:
    given = (Entity("ORG", "Zerda", (EntityMatch(0, 5, "zerda"),)),)
    stored = store.add_message("s", Message("user", "zerda keeps history", entities=given))
    none = store.add_message("s", Message("user", "nothing to name here", entities=()))
    assert (stored.entities, none.entities) == (given, ())
    assert store.get_memory("s").messages == [stored, none]


def test_a_message_replaced_by_uuid_gets_the_entities_of_its_new_text(store: Store) -> None:
    first = store.add_message("s", Message("user", MET))
    again = store.add_message("s", replace(first, content=MAIL, entities=None))
    assert again.uuid == first.uuid and again.entities == stored_entities(MAIL)
    assert store.get_memory("s").messages == [again]


def test_the_dict_form_carries_entities_both_ways(store: Store) -> None:
    stored = store.add_message("s", Message("user", MET))
    data = stored.to_dict()
    assert data["entities"][0] == {
        "label": "PERSON",
        "name": "Ada Lovelace",
        "matches": [{"start": 0, "end": 12, "text": "Ada Lovelace"}],
    }
    assert Message.from_dict(data) == stored
    assert "entities" not in Message("user", MET).to_dict()  # not extracted: no key


def test_history_stored_without_entities_gets_them_afterwards(kind: str, location: str) -> None:
    plain = open_store(location, extract_entities=False)
    try:
        plain.add_memory("s", Memory([Message("user", MET), Message("ai", MAIL)], SUMMARY))
        plain.add_message("t", Message("user", "Paris in May"))
        before = plain.get_memory("s")
        assert [m.entities for m in before.messages] == [None, None]
        assert before.summary is not None and before.summary.entities is None
        assert plain.fill_entities("s") == 2
        after = plain.get_memory("s")
        assert after.messages == [
            replace(m, entities=stored_entities(m.content)) for m in before.messages
        ]
        assert after.summary == replace(before.summary, entities=stored_entities(SUMMARY))
        assert plain.fill_entities("s") == 0  # nothing left without them
        assert plain.get_memory("s") == after
        assert plain.fill_entities("s", again=True) == 2
        assert plain.get_memory("s").messages == after.messages
        assert [m.entities for m in plain.get_memory("t").messages] == [None]  # untouched
        with pytest.raises(NotFoundError):
            plain.fill_entities("nobody")
    finally:
        close(plain)


def test_filling_keeps_messages_that_hold_entities_already(kind: str, location: str) -> None:
    plain = open_store(location, extract_entities=False)
    try:
        given = (Entity("ORG", "Zerda", (EntityMatch(0, 5, "zerda"),)),)
        kept = plain.add_message("s", Message("user", "zerda in London", entities=given))
        bare = plain.add_message("s", Message("user", MET))
        assert plain.fill_entities("s") == 1
        assert plain.get_memory("s").messages == [kept, replace(bare, entities=extract(MET))]
        assert plain.fill_entities("s", again=True) == 2
        assert plain.get_memory("s").messages[0].entities == stored_entities(kept.content)
    finally:
        close(plain)


def test_a_long_text_is_read_for_entities_up_to_a_bound(store: Store) -> None:
    from zerda.entities import SCANNED

    text = "Ada Lovelace. " + "x " * SCANNED + "Charles Babbage"
    stored = store.add_message("s", Message("user", text))
    assert named(stored.entities) == [("PERSON", "Ada Lovelace")]
    assert store.set_summary("s", Summary(text)).entities == stored.entities


def test_summaries_keep_entities_given_with_them(store: Store) -> None:
    given = (Entity("GPE", "Rome", (EntityMatch(0, 4, "Rome"),)),)
    store.add_message("s", Message("user", "q"))
    stored = store.set_summary("s", Summary("Rome, mostly.", entities=given))
    assert stored.entities == given and store.get_summary("s") == stored


def test_an_openai_message_keeps_its_own_entities_key() -> None:
    from zerda.formats.openai import from_openai, to_openai

    for value in (None, [], ["not", "ours"], [{"label": "GPE", "name": "P"}]):
        sent = {"role": "user", "content": "Paris", "entities": value}
        found = from_openai(sent)
        assert found.entities is None and to_openai(found) == sent
    ours = Message("user", MET, role_type="user", entities=stored_entities(MET))
    assert from_openai(ours.to_dict()) == ours
