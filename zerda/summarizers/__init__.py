"""Summarizers: `(previous_summary, new_turns) -> str`, each keeping its summary bounded.

`ExtractiveSummarizer` needs no model (the default of the summary memories);
`OpenAISummarizer` and `CommandSummarizer` ask a model through `zerda.clients`, and
load it only when made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zerda.errors import SummarizerError
from zerda.summarizers._base import DEFAULT_SUMMARY_TOKENS, Summarizer, describe, fit, fold
from zerda.summarizers._extractive import ExtractiveSummarizer

if TYPE_CHECKING:
    from zerda.summarizers._model import CommandSummarizer, ModelSummarizer, OpenAISummarizer

_LAZY = ("CommandSummarizer", "ModelSummarizer", "OpenAISummarizer")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from zerda.summarizers import _model as model

        return getattr(model, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_SUMMARY_TOKENS",
    "CommandSummarizer",
    "ExtractiveSummarizer",
    "ModelSummarizer",
    "OpenAISummarizer",
    "Summarizer",
    "SummarizerError",
    "describe",
    "fit",
    "fold",
]
