"""Entities with a shape of their own: DATE, TIME, MONEY, QUANTITY, PERCENT, EMAIL, URL,
PHONE and CODE, found by regular expressions.

Each pattern opens with a lookbehind that refuses to start inside a run of the characters it
consumes, so a match is tried once per run; repetitions are bounded or separated by a
character they cannot consume. A megabyte of text is linear work.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise

from zerda.entities import _spans as spans
from zerda.entities._lists import words
from zerda.entities._spans import Candidate

# -- numbers -----------------------------------------------------------------------------

NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_UNITS = "two|three|four|five|six|seven|eight|nine"
_TEENS = "ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
# Spelled numbers from two up ("one day" is an idiom more often than a duration).
WORD_NUM = rf"(?i:(?:{_TENS})(?:-(?:one|{_UNITS}))?|{_TEENS}|{_UNITS}|a\shundred|hundred)"
SCALE_WORD = r"(?:thousand|million|billion|trillion)"
START = r"(?<![\w.,$€£¥₹/:-])"  # not inside a longer number, word or path

# -- MONEY, PERCENT ----------------------------------------------------------------------

_SYMBOL = r"(?:US\$|USD\$|AU\$|A\$|CA\$|C\$|NZ\$|HK\$|S\$|R\$|\$|€|£|¥|₹|₩|₽|₺|₪|₫|₱|฿|₦|₴)"
_CODE = (
    r"(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|CNY|RMB|HKD|SGD|INR|KRW|BRL|MXN|SEK|NOK|DKK|PLN|"
    r"CZK|HUF|ZAR|RUB|AED|SAR|ILS|THB|IDR|MYR)"
)
_SCALE = rf"(?:\s?{SCALE_WORD}\b|\s?(?:bn|mn)\b|[kKmMbB]\b)"
_CURRENCY_WORD = (
    r"(?i:dollars?|euros?|cents?|pence|yen|yuan|renminbi|rupees?|francs?|pesos?|reais|"
    r"rubles?|roubles?|bucks|quid|pounds sterling|dirhams?|kronor|kroner|krona|lira|"
    r"shekels?|baht|naira|zloty)"
)
MONEY = re.compile(
    rf"(?<![\w$€£¥₹]){_SYMBOL}\s?{NUM}{_SCALE}?(?:\s{_CODE}\b)?(?![\d])"
    rf"|(?<![\w]){_CODE}\s?{NUM}{_SCALE}?(?![\d])"
    rf"|{START}{NUM}{_SCALE}?\s?(?:€|£|¢)"
    rf"|{START}(?:{NUM}|{WORD_NUM})(?:\s{SCALE_WORD})?\s(?:{_CODE}|{_CURRENCY_WORD})\b"
)
PERCENT = re.compile(
    rf"{START}(?:[-+\u2212](?=\d))?{NUM}(?:\s?[-\u2013]\s?{NUM})?\s?%"
    rf"|{START}(?:{NUM}|{WORD_NUM})\s(?:percent|per\s?cent|percentage points?|pct)\b"
)

# -- QUANTITY ----------------------------------------------------------------------------

# Written right after the number or after one space; case matters (MB is not mb).
_SYMBOL_UNITS = sorted(
    words(
        """
    km cm mm nm µm mi ft yd kg mg µg g lb lbs oz ml mL cl L gal KB kB MB GB TB PB KiB MiB
    GiB TiB Kb Mb Gb kbps Kbps Mbps Gbps MB/s GB/s Hz kHz MHz GHz W kW MW GW kWh MWh Wh V kV
    mV mA mAh ms µs h hr hrs min mins sec secs px pt dpi ppi fps rpm mph kph km/h m/s kcal
    cal °C °F ° sqft m² km² cm² yrs mpg psi dB
    """
    ),
    key=lambda unit: (-len(unit), unit),
)
_WORD_UNITS = r"""
    kilomet(?:er|re)s? | met(?:er|re)s? | centimet(?:er|re)s? | millimet(?:er|re)s? | miles? |
    feet | foot | inch(?:es)? | yards? | kilograms? | kilos? | grams? | milligrams? |
    pounds? | ounces? | tons? | tonnes? | lit(?:er|re)s? | millilit(?:er|re)s? | gallons? |
    cups? | tablespoons? | teaspoons? | pints? | quarts? | bytes? | kilobytes? | megabytes? |
    gigabytes? | terabytes? | bits? | megabits? | gigabits? | hertz | watts? | kilowatts? |
    volts? | amps? | milliseconds? | seconds? | minutes? | hours? | days? | weeks? | months? |
    years? | decades? | centur(?:y|ies) | degrees?(?:\s(?:Celsius|Fahrenheit|C|F)\b)? |
    calories? | kilocalories? | acres? | hectares? | sq\.?\s?ft |
    square\s(?:feet|foot|met(?:er|re)s?|miles?|kilomet(?:er|re)s?) | cubic\smet(?:er|re)s? |
    light-years? | knots? | horsepower | pixels?
"""
QUANTITY = re.compile(
    rf"""
    {START}(?:[-+\u2212](?=\d))?{NUM}(?:\s?[-\u2013]\s?{NUM})?
    (?: \s?(?:{"|".join(re.escape(u) for u in _SYMBOL_UNITS)})(?![\w°²/])
      | \sm(?![\w°²/])
      | [\s-](?i:{_WORD_UNITS})\b(?!-) )
    | (?<![\w-]){WORD_NUM}[\s-](?i:{_WORD_UNITS})\b(?!-)
    """,
    re.VERBOSE,
)

# -- DATE, TIME --------------------------------------------------------------------------

_MONTH_NAMES = "january|february|march|april|june|july|august|september|october|november|december"
# Full month names in any case but "may", which is a verb first; abbreviations capitalised.
MONTH = rf"(?:May|(?i:{_MONTH_NAMES})|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?)"
MONTH_FULL = rf"(?:May|(?i:{_MONTH_NAMES}))"
WEEKDAY = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
_WEEKDAY_ABBR = r"(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\.?"
DAY = r"(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?"
YEAR = r"(?:1\d{3}|20\d{2})"
_ON_DAY = rf"(?:(?:{WEEKDAY}|{_WEEKDAY_ABBR}),?\s)?"
_PERIOD = r"(?:week|weekend|month|year|quarter|semester|term|decade|century)"
_SEASON = r"(?:spring|summer|autumn|fall|winter)"

_DAY_OR_MONTH = r"(?:0?[1-9]|[12]\d|3[01])"
DATE = re.compile(
    rf"""
    (?<![\w]){_ON_DAY}{MONTH}\s+{DAY}(?:,?\s+{YEAR})?(?![\w])           # June 22, 1947
    | {START}{_ON_DAY}{DAY}\s+(?:of\s+)?{MONTH}(?:,?\s+{YEAR})?(?![\w])  # 22 June 1947
    | (?<![\w]){MONTH}(?:\s+of)?,?\s+{YEAR}(?![\w])                     # May 2024
    | {START}{YEAR}([-/])(?:0[1-9]|1[0-2])\1(?:0[1-9]|[12]\d|3[01])(?!\d)  # 2026-12-06
    | (?<![\w./-]){_DAY_OR_MONTH}/{_DAY_OR_MONTH}/(?:\d{{4}}|\d{{2}})(?![\w/])  # 12/06/2026
    | (?<![\w./-]){_DAY_OR_MONTH}([.-]){_DAY_OR_MONTH}\2\d{{4}}(?![\w.-]\d|\w)  # 06.12.2026
    | \b(?i:yesterday|today|tomorrow)\b
    | \b(?i:day\safter\stomorrow|day\sbefore\syesterday)\b
    | \b(?:[Ll]ast|[Nn]ext|[Tt]his|[Cc]oming|[Pp]ast)\s
      (?:{WEEKDAY}|{MONTH_FULL}|(?i:{_PERIOD}|{_SEASON}))\b              # next Monday
    | \b(?:(?:Black|Good|Cyber|Easter|Holy|Ash|Super)\s)?{WEEKDAY}s?\b   # Mondays, Black Friday
    | (?<![\w-])(?:1\d|20)\d0s\b | (?<![\w])['\u2019]\d0s\b             # 1990s, '90s
    | \bQ[1-4]\s{YEAR}\b                                               # Q3 2024
    | (?i:{_SEASON})\s(?:of\s)?{YEAR}\b                                # summer 2024
    | {START}(?:\d+|{WORD_NUM}|an?|a\sfew|several)\s
      (?i:days?|weeks?|months?|years?|decades?)\sago\b                 # 3 days ago
    """,
    re.VERBOSE,
)

# A calendar word named on its own is a date only after one of these words; the group
# `m` is the date. Months that are also verbs, names and modals need this.
DATE_AFTER = re.compile(
    rf"""
    \b(?:[Ii]n|[Bb]y|[Ss]ince|[Uu]ntil|[Tt]ill|[Bb]efore|[Aa]fter|[Dd]uring|[Ff]rom|
       [Tt]hrough|[Ee]arly|[Ll]ate|[Mm]id|[Ee]nd\sof|[Ss]tart\sof|[Bb]eginning\sof)
    \s(?:the\s)?(?P<m>{MONTH_FULL}(?!\s\d)|(?i:{_SEASON})(?!\s\d))\b
    """,
    re.VERBOSE,
)
# Months that are no other word are dates wherever they stand.
PLAIN_MONTH = re.compile(r"\b(?:January|February|July|September|October|November|December)\b")
# A year after one of these words; `plural_after` then rules out "in 2000 files".
YEAR_AFTER = re.compile(
    rf"""\b(?:[Ii]n|[Ss]ince|[Bb]y|[Uu]ntil|[Tt]ill|[Bb]efore|[Aa]fter|[Dd]uring|[Ff]rom|
    [Cc]irca|[Aa]round|[Ee]arly|[Ll]ate|[Mm]id|[Tt]hrough|[Yy]ear|[Oo]f)
    \s(?P<m>{YEAR})(?![\w,.]\d|\w|%)""",
    re.VERBOSE,
)
YEAR_RANGE = re.compile(
    rf"\b(?:[Ff]rom\s(?P<a>{YEAR})\s?(?:to|until|till|through|-|\u2013|\u2014)\s?(?P<b>{YEAR})"
    rf"|[Bb]etween\s(?P<c>{YEAR})\sand\s(?P<d>{YEAR})"
    rf"|\((?P<e>{YEAR})\s?[-\u2013]\s?(?P<f>{YEAR})\))(?!\w)"
)
_NOT_PLURAL = words("was has is this his its thus as us yes always perhaps")
_NEXT_WORD = re.compile(r"\s+([a-z]+)")

_AMPM = r"(?:[AaPp]\.[Mm]\.|[AaPp][Mm]\b)"
_ZONE = (
    r"(?:\s(?:UTC|GMT|EST|EDT|CST|CDT|MST|MDT|PST|PDT|CET|CEST|BST|IST|JST|KST|AEST|AEDT|"
    r"SGT|HKT|WET|EET)(?:[+-]\d{1,2}(?::?\d\d)?)?\b)"
)
TIME = re.compile(
    rf"""
    (?:(?<![\w:.])|(?<=\dT))(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s?{_AMPM})?{_ZONE}?(?![\d:])
    | (?<![\w:.])(?:1[0-2]|0?[1-9])\s?{_AMPM}{_ZONE}?
    | \b(?:12\s)?(?i:noon|midnight|midday)\b
    | \b(?i:tonight)\b
    | \b(?i:(?:this|tomorrow|yesterday|last)\s(?:morning|afternoon|evening|night))\b
    | \b(?:\d{{1,2}}|(?i:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve))
      \s?o['\u2019]clock\b
    | {START}(?:\d+|an?|a\sfew|several)\s(?i:seconds?|minutes?|hours?)\sago\b
    """,
    re.VERBOSE,
)

# -- EMAIL, URL, PHONE -------------------------------------------------------------------

EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}"
)
URL = re.compile(
    r"(?<![\w@/.-])(?:https?://|www\.)[^\s<>\"'`]+"
    r"|(?<![\w@/.:-])(?:[A-Za-z0-9-]{1,63}\.){1,6}(?P<tld>[A-Za-z]{2,12})/[^\s<>\"'`]*"
)
# Bare domains need one of these (or a two-letter country code) before their path.
TLDS = words(
    """
    com org net io dev ai app co edu gov info biz me ly so gg tv xyz tech cloud page site
    online blog news shop store int mil
    """
)
# Two-letter country codes that are far more often file extensions.
_EXTENSION_CODES = words("py md sh pl cc rb ts js")
_TRAILING = ".,;:!?'\"*"
PHONE = re.compile(
    r"(?<![\w+])\+\d[\d \t().-]{6,22}\d(?![\w])"
    r"|(?<![\w+.-])(?:1[-. ])?(?:\(\d{3}\)\s?\d{3}-|\d{3}-\d{3}-|\d{3}\.\d{3}\.)\d{4}(?![\w-]|\.\d)"
)

# -- CODE --------------------------------------------------------------------------------

_ID_START = r"(?<![\w.$@/-])"
CODE_SHAPES = re.compile(
    rf"""
    {_ID_START}_{{0,2}}[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+_{{0,2}}(?![\w])   # snake_case
    | {_ID_START}__[a-z][a-z0-9]*__(?![\w])                                 # __init__
    | {_ID_START}[a-z][a-z0-9]+(?:[A-Z][a-z0-9]+)+(?![\w])                  # camelCase
    | {_ID_START}[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+){{2,}}(?![\w])              # ThreeHumpClass
    | {_ID_START}[A-Z][a-z]+(?:[A-Z][a-z0-9]*)*(?:Error|Exception|Warning)(?![\w])
    | {_ID_START}[A-Z][a-z0-9]+[A-Z][a-z0-9]+(?=\(|\s(?:class|object|instance|constructor|
      component|interface|enum|struct|trait|exception|type)\b)               # Pascal class
    | (?<![\w-])--[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*                     # --dry-run
    | (?<![\w$])\$[A-Z_][A-Z0-9_]*\b                                         # $PATH
    | {_ID_START}[A-Za-z_][A-Za-z0-9_]*\(\)                                  # sorted()
    | \b(?:Dockerfile|Makefile|Procfile|Gemfile|Jenkinsfile|Vagrantfile|Rakefile|Pipfile|
      Justfile|CMakeLists\.txt)\b
    """,
    re.VERBOSE,
)
DOTTED = re.compile(r"(?<![\w.$@/-])[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_EXTENSIONS = sorted(
    words(
        """
    py pyi pyc ipynb js mjs cjs ts tsx jsx json jsonl toml yaml yml ini cfg conf env md rst
    txt csv tsv xml html htm css scss sass less rs go java kt kts scala swift c h cc cpp hpp
    cs rb php sh bash zsh fish ps1 bat sql db sqlite lock log pdf docx xlsx pptx png jpg jpeg
    gif svg webp mp3 mp4 wav zip tar gz tgz whl exe dll so dylib wasm vue svelte lua dart ex
    exs erl hs ml clj tf proto graphql gradle nix mk cmake pem crt bin iso dmg apk parquet pkl
    pt onnx safetensors gguf ckpt h5 lock
    """
    ),
    key=lambda ext: (-len(ext), ext),
)
EXTENSIONS = frozenset(_EXTENSIONS)
FILES = re.compile(
    rf"(?<![\w./~-])(?:~?/)?(?:[\w.-]+/)*[\w-][\w.-]*\.(?P<ext>{'|'.join(_EXTENSIONS)})(?![\w/-])"
    r"|(?<![\w./~-])(?:~|\.{1,2})?/(?:[\w.-]+/)+[\w.-]*[\w]"
    r"|(?<![\w./-])(?:~/)?\.(?:env|gitignore|bashrc|zshrc|profile|vimrc|npmrc|dockerignore|"
    r"editorconfig|prettierrc|eslintrc|gitconfig|ssh)\b"
)
# First parts of a dotted name that make it code even when nothing else does (`re.sub`).
MODULES = words(
    """
    os sys re json np pd self cls this math time datetime torch tf asyncio subprocess pathlib
    collections itertools functools typing logging random console document window Math JSON
    Object Array String Promise process fs path http requests django flask app db df plt
    """
)
BACKTICKS = re.compile(r"(?<!`)`([^`\n]{1,200})`(?!`)")
FENCES = re.compile(r"```[\s\S]*?(?:```|\Z)")
_CALL_ARGS = re.compile(r"\([^()\n]{0,60}\)")


def find(text: str) -> list[Candidate]:
    """Every pattern candidate in `text`."""
    found: list[Candidate] = []
    for pattern, label, rank in (
        (MONEY, "MONEY", spans.MONEY),
        (PERCENT, "PERCENT", spans.PERCENT),
        (QUANTITY, "QUANTITY", spans.QUANTITY),
        (DATE, "DATE", spans.DATE),
        (PLAIN_MONTH, "DATE", spans.DATE),
        (TIME, "TIME", spans.TIME),
        (PHONE, "PHONE", spans.PHONE),
    ):
        found += (Candidate(m.start(), m.end(), label, rank) for m in pattern.finditer(text))
    found += _dates_after(text)
    found += _emails(text)
    found += _urls(text)
    found += _code(text)
    return [c for c in found if c.label != "PHONE" or _phone_ok(text[c.start : c.end])]


def _dates_after(text: str) -> Iterator[Candidate]:
    for match in DATE_AFTER.finditer(text):
        yield Candidate(match.start("m"), match.end("m"), "DATE", spans.DATE)
    for match in YEAR_AFTER.finditer(text):
        following = _NEXT_WORD.match(text, match.end())
        word = following.group(1) if following else ""
        if not (word.endswith("s") and word not in _NOT_PLURAL):
            yield Candidate(match.start("m"), match.end("m"), "DATE", spans.DATE)
    for match in YEAR_RANGE.finditer(text):
        for group in "abcdef":
            if match.group(group):
                yield Candidate(match.start(group), match.end(group), "DATE", spans.DATE)


def _emails(text: str) -> Iterator[Candidate]:
    for match in EMAIL.finditer(text):
        found = match.group().rstrip(".-")
        if found.rpartition(".")[2].isalpha() and len(found.rpartition(".")[2]) >= 2:
            yield Candidate(match.start(), match.start() + len(found), "EMAIL", spans.EMAIL)


def _urls(text: str) -> Iterator[Candidate]:
    for match in URL.finditer(text):
        tld = (match.group("tld") or "").lower()
        if tld and not (tld in TLDS or (len(tld) == 2 and tld not in _EXTENSION_CODES)):
            continue
        found = _trim_url(match.group())
        yield Candidate(match.start(), match.start() + len(found), "URL", spans.URL)


def _trim_url(url: str) -> str:
    """`url` without the punctuation that ends the sentence around it or a bracket that
    closes one opened before it."""
    while url:
        last = url[-1]
        if last in _TRAILING or any(
            last == close and url.count(close) > url.count(open_)
            for open_, close in ("()", "[]", "{}")
        ):
            url = url[:-1]
        else:
            return url
    return url


def _phone_ok(found: str) -> bool:
    """8 to 15 digits with sane separators: not a run of figures that happens to start with +."""
    digits = sum(ch.isdigit() for ch in found)
    if not 8 <= digits <= 15 or found.count("(") != found.count(")"):
        return False
    return not re.search(r"[ .-]{2}|[().-][.-]|\d[ ]{2}", found)


def _code(text: str) -> Iterator[Candidate]:
    for match in CODE_SHAPES.finditer(text):
        yield Candidate(match.start(), _with_call(text, match.end()), "CODE", spans.CODE)
    for match in FILES.finditer(text):
        stem = match.group()
        if match.group("ext") == "js" and "/" not in stem and stem[0].isupper():
            continue  # Node.js, Vue.js: frameworks, not files
        yield Candidate(match.start(), match.end(), "CODE", spans.CODE)
    for match in DOTTED.finditer(text):
        if _dotted_code(text, match):
            yield Candidate(match.start(), _with_call(text, match.end()), "CODE", spans.CODE)


def _dotted_code(text: str, match: re.Match[str]) -> bool:
    """`os.path.join`, `self.max_tokens`, `re.sub(...)`: code; `e.g`, `example.com`: not."""
    parts = match.group().split(".")
    if parts[-1].lower() in EXTENSIONS or all(len(part) == 1 for part in parts):
        return False
    if text.startswith("(", match.end()) or parts[0] in MODULES:
        return True
    if any("_" in part or _humped(part) for part in parts):
        return True
    long_enough = all(len(part) >= 2 for part in parts) and parts[-1] not in TLDS
    return len(parts) >= 3 and long_enough and parts[0][0].islower()


def _humped(word: str) -> bool:
    return any(a.islower() and b.isupper() for a, b in pairwise(word))


def _with_call(text: str, end: int) -> int:
    """`end` moved past a short argument list written right after a name: `f(x, y)`."""
    args = _CALL_ARGS.match(text, end)
    return args.end() if args else end


def blocked(text: str) -> tuple[list[Candidate], list[tuple[int, int]]]:
    """Text in backticks (one CODE entity each) and fenced code blocks (no entity): the
    spans no other rule may claim."""
    fences = [match.span() for match in FENCES.finditer(text)]
    inline = [
        Candidate(match.start(1), match.end(1), "CODE", spans.CODE)
        for match in BACKTICKS.finditer(text)
        if not any(start <= match.start() < end for start, end in fences)
    ]
    return inline, fences
