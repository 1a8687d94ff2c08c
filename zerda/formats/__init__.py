"""Mappings between zerda's messages and foreign message formats, one module per format."""

# The formats are the public modules `zerda.formats.openai` and `zerda.formats.langchain`.
__all__ = ["langchain", "openai"]
