"""The `zerda` commands, one module each (or one per group of close ones, as `manage`,
`remove` and `context`): each holds the command function (or a Typer group), registered by
`zerda_cli.app`, and imports its heavy modules inside it. `chat` and `browse` have packages
of their own (`zerda_cli.chat`, `zerda_cli.browse`)."""
