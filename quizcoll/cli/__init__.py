"""The ``quizcoll`` command line: one module per subcommand (``cmd_<name>.py``), dispatched by ``main``."""
