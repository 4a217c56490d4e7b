"""The `assist` command line: the entry point and the subcommands that are not a subsystem of
their own (`config`, `doctor`, `say`, `engines`)."""
