"""One module per ``perfeval`` subcommand; each has ``run(args) -> int``."""
