"""What the `zerda` commands share besides output (`zerda_cli.render`): their options and
how command-line values are read, and where their sessions are.

- `params`: the shared arguments and options (SESSION, --home, --store, --json, ...), their
  completion and checks; `spans`: --since/--until and spans of time.
- `inputs`: arguments as strict UTF-8, `-` for stdin; `errors`: what a command reports
  as such (usage problems, unusable input, its own exit status).
- `paths`: the data, config and state directories; `settings`: config.toml outside the
  chat's table; `location`: which store a command works on; `opening`: opening it;
  `lenient`: --lenient's one warning about skipped lines.
- `files`: output files written whole or not at all; `contexts`: a memory class bound to
  a session, as `zerda window`, `context` and `demo` load it.
- `coercion` and `helpdisplay`: Typer set up to parse fast and show help as meant.

`errors`, `inputs`, `paths`, `location` and `opening` import no Typer: the quick path
(`zerda_cli.quick`) uses them.
"""
