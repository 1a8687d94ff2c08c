"""Tools for working on zerda, not part of the installed package: a throwaway PostgreSQL
server for tests and benchmarks (`pgserver`), the command reference generator
(`cli_reference`)."""
