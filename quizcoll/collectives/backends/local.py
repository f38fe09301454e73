"""A process group of N local worker processes that serves real runs one after another.

Each worker is ``python -P -m quizcoll.collectives.backends.worker`` (a safe path, run in the
group's private folder: :func:`~.processes.worker_command`) with the rank in its
environment; the group meets through a file store in a private temporary folder (no
port to pick or collide on), and gloo's (or NCCL's) own sockets bind to the interface the
caller gives (:func:`~.processes.socket_env`: loopback unless the user names one). :meth:`LocalGroup.run` sends a spec to every worker and
waits for every answer; any failure, or no answer within the timeout, closes the group
and raises :class:`~quizcoll.collectives.backends.BackendError` with the first message.
Workers are ended by their own handles only.
"""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import tempfile
import threading
from pathlib import Path
from types import TracebackType
from typing import IO

from quizcoll.collectives.backends import BackendError, Measurement, RunSpec
from quizcoll.collectives.backends.processes import socket_env, worker_command

RUN_TIMEOUT_S = 600.0  # start-up (importing torch) plus one run, per answer


class LocalGroup:
    """``world`` local ranks of ``backend`` (gloo, or nccl with one GPU per rank)."""

    def __init__(
        self,
        backend: str,
        world: int,
        *,
        timeout_s: float = RUN_TIMEOUT_S,
        env: dict[str, str] | None = None,
        node_size: int | None = None,
    ) -> None:
        self.backend, self.world, self.timeout_s = backend, world, timeout_s
        # GLOO_SOCKET_IFNAME/NCCL_SOCKET_IFNAME: loopback unless the caller names one
        self.env = socket_env(None) if env is None else dict(env)
        self.node_size = node_size  # ranks per simulated node (reported host names)
        self._dir = tempfile.TemporaryDirectory(prefix="quizcoll-group-")
        self._answers: queue.Queue[tuple[int, str | None]] = queue.Queue()
        self._workers: list[subprocess.Popen[str]] = []
        self._logs: list[IO[str]] = []
        try:
            for rank in range(world):
                self._start(rank)
        except OSError as exc:
            self.close()
            raise BackendError(f"cannot start a worker process: {exc}") from None

    def _start(self, rank: int) -> None:
        package_root = str(Path(__file__).resolve().parents[3])  # holds quizcoll/
        env = dict(os.environ)
        env.update(
            RANK=str(rank),
            LOCAL_RANK=str(rank),
            WORLD_SIZE=str(self.world),
            LOCAL_WORLD_SIZE=str(self.world),
            QUIZCOLL_BACKEND=self.backend,
            QUIZCOLL_INIT_METHOD=f"file://{self._dir.name}/rendezvous",
            PYTHONPATH=os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")])),
        )
        env.setdefault("OMP_NUM_THREADS", "1")  # as torchrun does: N processes share the cores
        env.update(self.env)
        if self.node_size:
            env["QUIZCOLL_NODE_NAME"] = f"{socket.gethostname()}-node{rank // self.node_size}"
        log = open(Path(self._dir.name) / f"rank{rank}.log", "w+", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self._logs.append(log)
        worker = subprocess.Popen(
            worker_command("quizcoll.collectives.backends.worker"),  # safe path (F11)
            cwd=self._dir.name,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env=env,
        )
        self._workers.append(worker)
        threading.Thread(target=self._read, args=(rank, worker), daemon=True).start()

    def _read(self, rank: int, worker: subprocess.Popen[str]) -> None:
        assert worker.stdout is not None
        for line in worker.stdout:
            self._answers.put((rank, line))
        self._answers.put((rank, None))  # the worker is gone

    def run(self, spec: RunSpec) -> Measurement:
        """Run ``spec`` on every rank; rank 0's measurement."""
        if not self._workers:
            raise BackendError("the process group is closed")
        text = spec.to_json() + "\n"
        for worker in self._workers:
            try:
                assert worker.stdin is not None
                worker.stdin.write(text)
                worker.stdin.flush()
            except OSError:
                pass  # reported below, when its answer does not come
        result: Measurement | None = None
        for _ in range(self.world):
            rank, line = self._next_answer()
            answer = json.loads(line) if line else None
            if not answer or not answer.get("ok"):
                message = answer["error"] if answer else self._last_log_line(rank)
                self.close()
                raise BackendError(f"{self.backend} rank {rank}: {message}")
            if rank == 0:
                result = Measurement.from_json(answer["measurement"])
        assert result is not None
        return result

    def _next_answer(self) -> tuple[int, str | None]:
        try:
            return self._answers.get(timeout=self.timeout_s)
        except queue.Empty:
            self.close()
            raise BackendError(
                f"the {self.backend} group gave no answer within {self.timeout_s:.0f} s"
            ) from None

    def _last_log_line(self, rank: int) -> str:
        log = self._logs[rank]
        log.flush()
        log.seek(0)
        lines = [line.strip() for line in log.read().splitlines() if line.strip()]
        return f"the worker exited ({lines[-1] if lines else 'no message'})"

    def close(self) -> None:
        """End the workers (politely first: end of input), then remove the rendezvous."""
        workers, self._workers = self._workers, []
        for worker in workers:
            try:
                assert worker.stdin is not None
                worker.stdin.close()
            except OSError:
                pass
        for worker in workers:
            try:
                worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                worker.kill()  # one of ours, by its handle
                worker.wait()
        for log in self._logs:
            log.close()
        self._logs = []
        self._dir.cleanup()

    def __enter__(self) -> LocalGroup:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
