"""One rank of a local group: ``python -m quizcoll.collectives.backends.worker``.

Started by :class:`~quizcoll.collectives.backends.local.LocalGroup` with ``RANK``,
``WORLD_SIZE``, ``LOCAL_RANK``, ``QUIZCOLL_BACKEND`` and ``QUIZCOLL_INIT_METHOD`` in its
environment. It joins the process group once, then reads one :class:`RunSpec` per line
on stdin and answers each with one JSON line on stdout: ``{"ok": true, "measurement":
…}`` (rank 0; null elsewhere) or ``{"ok": false, "error": "…"}``. Anything else the
libraries print goes to stderr, so stdout carries the answers only.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta

from quizcoll.collectives.backends import RunSpec

GROUP_TIMEOUT_S = 120  # a rank that stops answering fails the group after this long


def main() -> int:
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray output, even from C, to stderr

    import torch.distributed as dist

    from quizcoll.collectives.backends.launch import join_group
    from quizcoll.collectives.backends.torch_ops import measure_in_group

    backend = os.environ["QUIZCOLL_BACKEND"]
    join_group(backend, os.environ["QUIZCOLL_INIT_METHOD"], timedelta(seconds=GROUP_TIMEOUT_S))
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                result = measure_in_group(RunSpec.from_json(line), "local processes")
                answer = {"ok": True, "measurement": result and result.to_json()}
            except Exception as exc:  # reported to the parent as one line
                message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                answer = {"ok": False, "error": f"{type(exc).__name__}: {message}"}
            answers.write(json.dumps(answer) + "\n")
    finally:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
