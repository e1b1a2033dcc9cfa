# A command that needs a subcommand says which there are.
topology
