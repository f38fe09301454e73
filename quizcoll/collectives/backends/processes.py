"""How a real run's worker processes start and where their sockets listen.

:func:`worker_command` is a worker's command line with a safe ``sys.path``;
:func:`socket_env` binds gloo's and NCCL's sockets to loopback unless the user names an
interface (:func:`loopback_interface` finds it). Shared by the local process group
(:mod:`.local`) and launches under torchrun (:mod:`.launch`), so neither imports the other.
"""

from __future__ import annotations

import socket
import sys

from quizcoll.collectives.backends import BackendError


def worker_command(module: str) -> list[str]:
    """The command line of a worker process running ``module``, with a safe ``sys.path``:
    ``-P`` (Python 3.11+) keeps ``python -m`` from putting the current folder first, so a
    ``json/`` or ``numpy/`` in the folder where the user runs ``quizcoll sim`` is never
    imported; the package root comes from an explicit ``PYTHONPATH``, and the worker runs
    in the group's private temporary folder (``cwd``), so even an empty ``PYTHONPATH``
    entry names nothing the user's folder holds."""
    return [sys.executable, "-P", "-m", module]


def loopback_interface() -> str:
    """This machine's loopback interface (``lo`` on Linux, ``lo0`` on macOS)."""
    names = [name for _, name in socket.if_nameindex()]
    for name in names:
        if name == "lo" or name.startswith("lo0"):
            return name
    for name in names:
        if name.startswith("lo"):
            return name
    raise BackendError("this machine has no loopback interface to bind gloo/NCCL sockets to")


def socket_env(interface: str | None) -> dict[str, str]:
    """The variables that bind gloo's and NCCL's sockets: to ``interface`` when the user
    names one, else to loopback (a local run never listens on the network)."""
    if interface is not None:
        names = [name for _, name in socket.if_nameindex()]
        if interface not in names:
            raise BackendError(
                f"--interface {interface!r} is not a network interface here "
                f"(this machine has {', '.join(names)})"
            )
        chosen = interface
    else:
        chosen = loopback_interface()
    return {"GLOO_SOCKET_IFNAME": chosen, "NCCL_SOCKET_IFNAME": chosen}
