"""The offline entity extractor: what it finds under each label, with exact offsets; merging,
no overlaps, no false alarms on tricky sentences, determinism, the dict shape, and a
megabyte of text in reasonable time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import pytest

from zerda.entities import EXTRACTOR, LABELS, Entity, EntityMatch, extract
from zerda.errors import InvalidMessageError

GOLD = Path(__file__).parents[1] / "bench" / "entities_gold.jsonl"


def found(text: str) -> list[tuple[str, str]]:
    """(label, matched text) of every match, left to right, offsets checked."""
    matches = []
    for entity in extract(text):
        assert entity.label in LABELS
        for match in entity.matches:
            assert text[match.start : match.end] == match.text
            matches.append((match.start, entity.label, match.text))
    return [(label, matched) for _, label, matched in sorted(matches)]


SEED = (
    "Octavia Estelle Butler (June 22, 1947 \u2013 February 24, 2006) was an American"
    " science fiction author."
)


def test_the_seed_sentence() -> None:
    entities = extract(SEED)
    assert [(e.label, e.name) for e in entities] == [
        ("PERSON", "Octavia Estelle Butler"),
        ("DATE", "June 22, 1947"),
        ("DATE", "February 24, 2006"),
    ]
    assert entities[0].matches == (EntityMatch(0, 22, "Octavia Estelle Butler"),)
    assert entities[1].matches == (EntityMatch(24, 37, "June 22, 1947"),)
    assert entities[2].matches == (EntityMatch(40, 57, "February 24, 2006"),)


EXPECTED = {
    "PERSON": [
        ("Who was Octavia Butler?", [("PERSON", "Octavia Butler")]),
        ("Ask Dr. Okafor first.", [("PERSON", "Okafor")]),
        ("Prime Minister Jacinda Ardern spoke.", [("PERSON", "Jacinda Ardern")]),
        ("Written by Ursula K. Le Guin.", [("PERSON", "Ursula K. Le Guin")]),
        ("J. K. Rowling lives in Edinburgh.", [("PERSON", "J. K. Rowling"), ("GPE", "Edinburgh")]),
        ("Martin Luther King Jr. spoke.", [("PERSON", "Martin Luther King Jr.")]),
        ("My colleague Tanvir Hasan is off.", [("PERSON", "Tanvir Hasan")]),
        ("A new novel by Tanvir Hasan.", [("PERSON", "Tanvir Hasan")]),
        ("Tanvir Hasan said no.", [("PERSON", "Tanvir Hasan")]),
        ("Thanks, Priya!", [("PERSON", "Priya")]),
        ("Grace Hopper wrote compilers.", [("PERSON", "Grace Hopper")]),
        (
            "Octavia Butler wrote it; Butler's books sell.",
            [("PERSON", "Octavia Butler"), ("PERSON", "Butler")],
        ),
    ],
    "ORG": [
        ("She works at Microsoft.", [("ORG", "Microsoft")]),
        ("Acme Corp and Zerda Labs merged.", [("ORG", "Acme Corp"), ("ORG", "Zerda Labs")]),
        ("Acme, Inc. hired me.", [("ORG", "Acme, Inc.")]),
        ("I studied at the University of Leeds.", [("ORG", "University of Leeds")]),
        ("Ask the European Space Agency.", [("ORG", "European Space Agency")]),
        ("NASA and the BBC agree.", [("ORG", "NASA"), ("ORG", "BBC")]),
        ("He sold it on eBay.", [("ORG", "eBay")]),
    ],
    "GPE": [
        ("Flights from Lisbon to Tokyo.", [("GPE", "Lisbon"), ("GPE", "Tokyo")]),
        ("I live in New York City.", [("GPE", "New York City")]),
        ("Is Quebec in Canada?", [("GPE", "Quebec"), ("GPE", "Canada")]),
        ("The US and the UK.", [("GPE", "US"), ("GPE", "UK")]),
    ],
    "LOC": [
        ("The Nile and the Alps.", [("LOC", "Nile"), ("LOC", "Alps")]),
        ("Is Lake Como near Mount Blanc?", [("LOC", "Lake Como"), ("LOC", "Mount Blanc")]),
        ("The Gulf of Mexico is warm.", [("LOC", "Gulf of Mexico")]),
        ("Sail the Zambezi River.", [("LOC", "Zambezi River")]),
    ],
    "DATE": [
        ("Born June 22, 1947.", [("DATE", "June 22, 1947")]),
        ("Born 22 June 1947.", [("DATE", "22 June 1947")]),
        ("Due 2026-12-06 or 12/06/2026.", [("DATE", "2026-12-06"), ("DATE", "12/06/2026")]),
        ("Launch in May 2024.", [("DATE", "May 2024")]),
        ("I saw her last Tuesday.", [("DATE", "last Tuesday")]),
        ("I saw her yesterday.", [("DATE", "yesterday")]),
        ("It was published in 1993.", [("DATE", "1993")]),
        ("From 2005 to 2021 she led.", [("DATE", "2005"), ("DATE", "2021")]),
        ("We met three weeks ago.", [("DATE", "three weeks ago")]),
        ("Music of the 1990s.", [("DATE", "1990s")]),
        ("Results for Q3 2024.", [("DATE", "Q3 2024")]),
        ("The webinar is Wednesday, October 8.", [("DATE", "Wednesday, October 8")]),
        ("Closed on Mondays, open in April.", [("DATE", "Mondays"), ("DATE", "April")]),
    ],
    "TIME": [
        ("Meet at 14:30.", [("TIME", "14:30")]),
        ("Meet at 2pm.", [("TIME", "2pm")]),
        ("Meet at 2:30 p.m. sharp.", [("TIME", "2:30 p.m.")]),
        ("Lunch at noon.", [("TIME", "noon")]),
        ("Call at 9:00 AM EST.", [("TIME", "9:00 AM EST")]),
        ("What about tonight?", [("TIME", "tonight")]),
    ],
    "MONEY": [
        ("It costs $1,200.50.", [("MONEY", "$1,200.50")]),
        ("It costs \u20ac30.", [("MONEY", "\u20ac30")]),
        ("It costs 30 USD.", [("MONEY", "30 USD")]),
        ("It costs 5 million dollars.", [("MONEY", "5 million dollars")]),
        ("Revenue was $94.9 billion.", [("MONEY", "$94.9 billion")]),
        ("Under $60k.", [("MONEY", "$60k")]),
    ],
    "QUANTITY": [
        ("A 5 km run.", [("QUANTITY", "5 km")]),
        ("It is 3.2 GB.", [("QUANTITY", "3.2 GB")]),
        ("It weighs 10 kg.", [("QUANTITY", "10 kg")]),
        ("It takes 3 hours.", [("QUANTITY", "3 hours")]),
        ("It was 72\u00b0F.", [("QUANTITY", "72\u00b0F")]),
        ("A 10-minute walk.", [("QUANTITY", "10-minute")]),
        ("Done in two days.", [("QUANTITY", "two days")]),
    ],
    "PERCENT": [
        ("Up 20%.", [("PERCENT", "20%")]),
        ("Up 20 percent.", [("PERCENT", "20 percent")]),
        ("Cut by 0.25 percentage points.", [("PERCENT", "0.25 percentage points")]),
    ],
    "EMAIL": [
        ("Mail jane.doe@example.com.", [("EMAIL", "jane.doe@example.com")]),
        ("Mail a+b@mail.co.uk, please.", [("EMAIL", "a+b@mail.co.uk")]),
    ],
    "URL": [
        ("See https://example.com/a?b=1.", [("URL", "https://example.com/a?b=1")]),
        ("See www.example.org for more", [("URL", "www.example.org")]),
        ("See docs.python.org/3/library.", [("URL", "docs.python.org/3/library")]),
        ("See [docs](https://example.com/x).", [("URL", "https://example.com/x")]),
    ],
    "PHONE": [
        ("Call +1 415 555 0132.", [("PHONE", "+1 415 555 0132")]),
        ("Call +44 20 7946 0958.", [("PHONE", "+44 20 7946 0958")]),
        ("Call (212) 555-0187.", [("PHONE", "(212) 555-0187")]),
        (
            "Call 212-555-0199 or 1-800-555-0199.",
            [("PHONE", "212-555-0199"), ("PHONE", "1-800-555-0199")],
        ),
        ("Call 415.555.0142.", [("PHONE", "415.555.0142")]),
    ],
    "CODE": [
        ("Why does `os.path.join()` fail?", [("CODE", "os.path.join()")]),
        ("Set max_retries in config.toml.", [("CODE", "max_retries"), ("CODE", "config.toml")]),
        ("Use useEffect or getElementById.", [("CODE", "useEffect"), ("CODE", "getElementById")]),
        ("Call json.loads(text) here.", [("CODE", "json.loads(text)")]),
        ("It raised TypeError again.", [("CODE", "TypeError")]),
        ("Try --dry-run and $PATH.", [("CODE", "--dry-run"), ("CODE", "$PATH")]),
        ("Edit src/app/main.py and .env files.", [("CODE", "src/app/main.py"), ("CODE", ".env")]),
        ("The ConversationBufferMemory class.", [("CODE", "ConversationBufferMemory")]),
        ("Set DATABASE_URL first.", [("CODE", "DATABASE_URL")]),
    ],
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [case for cases in EXPECTED.values() for case in cases],
    ids=[f"{label}-{n}" for label, cases in EXPECTED.items() for n in range(len(cases))],
)
def test_finds(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


def test_every_label_is_covered() -> None:
    assert set(EXPECTED) == set(LABELS)


TRICKY = [
    "I think so.",
    "The Company said it would grow.",
    "This Is Great News",
    "May I ask a question?",
    "Will it rain?",
    "March on!",
    "August is hot this time.",
    "Grace under pressure is rare.",
    "Mark the task as done.",
    "Apple pie or cherry pie?",
    "Turkey or ham for dinner?",
    "Target the older browsers.",
    "Hello World",
    "Dear Sir or Madam,",
    "TELL US WHAT YOU THINK",
    "# Getting Started With Django\nInstall it with pip.",
    "Quarterly Review For Sarah Connor\nThe numbers are in.",
    "1. Open Settings\n2. Click Privacy\n3. Turn off Tracking",
    "I have 3 cats and 2 dogs.",
    "Version 3.11.4 fixed issue 1234.",
    "The ratio is 16:9 and we met 1:1.",
    "Lines 10-20 are wrong; use 2 spaces, not 4.",
    "The order number is 4155550132.",
    "The server is at 10.0.4.12.",
    "Is Node.js single-threaded?",
    "The iPhone and macOS are products.",
    "The Berlin Wall fell.",
    "A 5-year-old can do it.",
    "Sure! Here's what I found.",
    "OK. Next question: What Is The Best Way To Learn?",
    "The Great Gatsby is a novel.",
    "e.g. this, i.e. that, etc.",
    "```python\nuser = User(name='Sarah Connor', city='Paris', when='2024-01-01')\n```",
    "",
]


@pytest.mark.parametrize("text", TRICKY)
def test_no_false_alarms(text: str) -> None:
    assert found(text) == []


def test_a_name_found_twice_is_one_entity_with_its_matches_in_order() -> None:
    text = "Paris in May 2024, then Paris again, then Lyon; Paris is best."
    entities = extract(text)
    assert [(e.label, e.name) for e in entities] == [
        ("GPE", "Paris"),
        ("DATE", "May 2024"),
        ("GPE", "Lyon"),
    ]
    assert [m.start for m in entities[0].matches] == [0, 24, 48]


def test_the_same_name_under_two_labels_is_two_entities() -> None:
    text = "Paris Hilton flew to Paris."
    assert [(e.label, e.name) for e in extract(text)] == [
        ("PERSON", "Paris Hilton"),
        ("GPE", "Paris"),
    ]


def test_the_name_has_its_whitespace_normalised_the_match_keeps_it() -> None:
    entity = extract("Due June\n22,  1947 at the latest.")[0]
    assert entity.name == "June 22, 1947"
    assert entity.matches[0].text == "June\n22,  1947"


def test_longest_match_wins() -> None:
    text = "Mail ann@example.com or see https://example.com/config.toml about 3 days ago."
    assert found(text) == [
        ("EMAIL", "ann@example.com"),
        ("URL", "https://example.com/config.toml"),
        ("DATE", "3 days ago"),
    ]


def gold_texts() -> list[str]:
    return [json.loads(line)["text"] for line in GOLD.read_text(encoding="utf-8").splitlines()]


def test_matches_never_overlap() -> None:
    for text in [*gold_texts(), *TRICKY, *(t for c in EXPECTED.values() for t, _ in c)]:
        spans = sorted((m.start, m.end) for e in extract(text) for m in e.matches)
        for (_, end), (start, _) in pairwise(spans):
            assert end <= start, text


DUMP = (
    "import json, sys; from zerda.entities import extract; "
    "texts = json.load(sys.stdin); "
    "print(json.dumps([[e.to_dict() for e in extract(t)] for t in texts]))"
)


def test_deterministic_across_hash_seeds() -> None:
    texts = json.dumps(gold_texts())
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", DUMP],
            input=texts,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1


def test_dict_round_trip() -> None:
    for entity in extract(SEED + " Mail ann@example.com; Octavia Butler said so."):
        data = entity.to_dict()
        assert json.loads(json.dumps(data)) == data
        assert Entity.from_dict(data) == entity
    assert Entity.from_dict(
        {"label": "GPE", "name": "Paris", "matches": [{"start": 0, "end": 5, "text": "Paris"}]}
    ) == Entity("GPE", "Paris", (EntityMatch(0, 5, "Paris"),))


def test_from_dict_ignores_keys_it_does_not_know() -> None:
    data = {
        "label": "ORG",
        "name": "NASA",
        "matches": [{"start": 1, "end": 5, "text": "NASA", "score": 0.9}],
        "extractor": EXTRACTOR,
    }
    assert Entity.from_dict(data) == Entity("ORG", "NASA", (EntityMatch(1, 5, "NASA"),))


GOOD_MATCH = {"start": 0, "end": 5, "text": "Paris"}
BAD: list[object] = [
    None,
    [],
    "PERSON",
    {"name": "Paris", "matches": [GOOD_MATCH]},
    {"label": "", "name": "Paris", "matches": [GOOD_MATCH]},
    {"label": 5, "name": "Paris", "matches": [GOOD_MATCH]},
    {"label": "GPE", "matches": [GOOD_MATCH]},
    {"label": "GPE", "name": "", "matches": [GOOD_MATCH]},
    {"label": "GPE", "name": 5, "matches": [GOOD_MATCH]},
    {"label": "GPE", "name": "Paris"},
    {"label": "GPE", "name": "Paris", "matches": []},
    {"label": "GPE", "name": "Paris", "matches": GOOD_MATCH},
    {"label": "GPE", "name": "Paris", "matches": ["Paris"]},
    {"label": "GPE", "name": "Paris", "matches": [{"start": 0, "end": 5}]},
    {"label": "GPE", "name": "Paris", "matches": [{"start": "0", "end": 5, "text": "Paris"}]},
    {"label": "GPE", "name": "Paris", "matches": [{"start": True, "end": 5, "text": "Paris"}]},
    {"label": "GPE", "name": "Paris", "matches": [{"start": 0, "end": 5.0, "text": "Paris"}]},
    {"label": "GPE", "name": "Paris", "matches": [{"start": -1, "end": 5, "text": "Paris"}]},
    {"label": "GPE", "name": "Paris", "matches": [{"start": 6, "end": 5, "text": "Paris"}]},
    {"label": "GPE", "name": "Paris", "matches": [{"start": 0, "end": 5, "text": None}]},
]


@pytest.mark.parametrize("data", BAD, ids=[str(n) for n in range(len(BAD))])
def test_from_dict_rejects_bad_shapes(data: object) -> None:
    with pytest.raises(InvalidMessageError):
        Entity.from_dict(data)


def test_a_label_of_another_model_is_kept_as_given() -> None:
    for label in ("NORP", "WORK_OF_ART", "gpe"):
        data = {"label": label, "name": "Paris", "matches": [GOOD_MATCH]}
        assert Entity.from_dict(data).to_dict() == data


PARIS = EntityMatch(0, 5, "Paris")
BAD_MADE: list[Callable[[], object]] = [
    lambda: Entity("", "Paris", (PARIS,)),
    lambda: Entity("GPE", " ", (PARIS,)),
    lambda: Entity("GPE", "Paris", ()),
    lambda: Entity("GPE", "Paris", ("Paris",)),  # type: ignore[arg-type]
    lambda: EntityMatch(6, 5, "Paris"),
    lambda: EntityMatch(-1, 5, "Paris"),
    lambda: EntityMatch(0, 5, None),  # type: ignore[arg-type]
    lambda: EntityMatch(True, 5, "Paris"),
]


@pytest.mark.parametrize("make", BAD_MADE, ids=[str(n) for n in range(len(BAD_MADE))])
def test_a_bad_entity_cannot_be_made_either(make: Callable[[], object]) -> None:
    with pytest.raises(InvalidMessageError):
        make()


def test_extractor_name_and_labels() -> None:
    assert EXTRACTOR == "zerda-rules-1"
    assert LABELS[:4] == ("PERSON", "ORG", "GPE", "LOC")
    assert len(set(LABELS)) == 13


MEGABYTE = """
import json, sys
from zerda.entities import extract
texts = json.load(sys.stdin)
pieces = ["\\n".join(texts)]
pieces += [
    "a" * 50_000, "Abc " * 20_000, "1" * 50_000, "1 " * 20_000, "a." * 20_000, "a_b." * 10_000,
    "+1 " * 20_000, "$1," * 20_000, "`a" * 20_000, "1:2" * 20_000, "a/" * 20_000,
    "a@b." * 10_000, "aB" * 20_000, "a-" * 20_000, "f(" * 20_000, "12/12/" * 10_000,
    "John Smith " * 5_000, "twenty-one " * 5_000, "Dr. " * 10_000, "\\n" * 20_000,
    "```" + "x" * 20_000,
]
text = ""
while len(text) < 1_000_000:
    text += "\\n".join(pieces) + "\\n"
print(len(text), len(extract(text)))
"""


def test_a_megabyte_of_text_is_no_catastrophe() -> None:
    """Prose and runs built to make a regular expression backtrack; one run, a generous
    limit (a few seconds is normal)."""
    done = subprocess.run(
        [sys.executable, "-c", MEGABYTE],
        input=json.dumps(gold_texts()),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    size, count = map(int, done.stdout.split())
    assert size >= 1_000_000 and count > 0
