"""``python -m quizcoll``: the same as the ``quizcoll`` command."""

from quizcoll.cli.main import main

# Guarded: a child process started with "spawn" imports this module again (as __mp_main__).
if __name__ == "__main__":
    raise SystemExit(main())
