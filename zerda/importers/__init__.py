"""Importers: other tools' chat histories as zerda sessions (see `base` for the model)."""
