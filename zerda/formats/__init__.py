"""Mappings between zerda's messages and foreign message formats, one module per format."""
