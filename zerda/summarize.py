"""Where the summarizers lived before `zerda.summarizers`; the names are kept importable."""

from zerda.summarizers import ExtractiveSummarizer, Summarizer

__all__ = ["ExtractiveSummarizer", "Summarizer"]
