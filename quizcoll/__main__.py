"""``python -m quizcoll``: the same as the ``quizcoll`` command."""

from quizcoll.cli.main import main

raise SystemExit(main())
