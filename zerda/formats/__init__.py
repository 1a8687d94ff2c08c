"""Mappings between zerda's messages and foreign message formats, one module per format."""

# The formats are the public modules `zerda.formats.openai` and `zerda.formats.langchain`,
# imported by name (a star import brings nothing).
__all__: list[str] = []
