"""The `agent-cassettes` pytest entry point: it loads `agent.cli.pytest_plugin` under that
module's own name, so that an installed package (which loads this) and `-p agent.cli.pytest_plugin`
on the command line are the same plugin, registered once (pytest refuses one module registered
under two names). `-p no:agent-cassettes` leaves it out."""

pytest_plugins = ["agent.cli.pytest_plugin"]
