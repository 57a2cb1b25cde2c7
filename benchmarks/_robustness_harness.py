"""How ``robustness.py`` runs an input and records its verdict: forked reads, capped subprocesses, a pool.

:func:`run_forked` runs a function in a forked child, :func:`run_command` a command in
its own session, both under an address-space cap with a timeout and their peak memory
measured; :func:`pooled` runs many of them on threads within a budget. Each run ends
as an :class:`Outcome`.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _robustness_inputs import Case, remove
from _vqpu_common import subprocess_env

#: A CLI run is a hang when it has not exited this long after its start (its --time-limit is 5 s).
CLI_TIMEOUT = 30.0

#: An in-process read of a file under 1 MB is a hang after this long.
PARSE_TIMEOUT = 20.0

TIME_LIMIT = 5.0

#: The done-when target: peak resident memory under 1 GB for any input under 1 MB.
MEMORY_TARGET_KB = 2**20

#: Address-space caps: a safety net against a run eating the machine, well above the target.
PARSE_CAP_BYTES = 3 * 2**30

CLI_CAP_BYTES = 4 * 2**30

VERDICTS = ("clear", "ok", "traceback", "hang", "wrong")

#: ``python -c MEASURE CAP REPORT ARGV...`` runs ARGV under an address-space cap of CAP bytes and
#: writes its exit code and peak RSS to REPORT. Being small, it keeps the benchmark's own memory
#: out of the child's ``ru_maxrss`` (an exec'd child inherits its parent's high-water mark).
_MEASURE = """
import json, resource, subprocess, sys
cap, report, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
code = subprocess.call(argv)
with open(report, "w") as file:
    json.dump({"code": code, "peak_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}, file)
sys.exit(code if code >= 0 else 128 - code)
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class Outcome:
    """The verdict on one input of one part."""

    part: str
    kind: str
    name: str
    size: int  # bytes of the input
    verdict: str
    detail: str = ""
    peak_kb: int = 0
    seconds: float = 0.0
    path: str = ""
    command: str = ""
    notes: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, part: str, case: Case, verdict: str, detail: str, **more: Any) -> Outcome:
        """The outcome of ``case``, without its bytes (thousands of them stay in memory)."""
        return cls(part, case.kind, case.name, len(case.data), verdict, detail, **more)

    @property
    def category(self) -> str:
        return f"{self.part} {self.kind}"


def vm_size() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def run_forked(fn: Callable[[], dict], timeout: float, cap: int) -> tuple[dict, int, float]:
    """Run ``fn`` in a forked child under an address-space cap; its result, peak RSS (KB) and seconds."""
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    tic = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(read_fd)
            resource.setrlimit(resource.RLIMIT_AS, (cap, resource.getrlimit(resource.RLIMIT_AS)[1]))
            payload = json.dumps(fn()).encode()
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(payload)
        except BaseException:  # noqa: BLE001 - reported as a crash by the parent
            code = 70
        finally:
            os._exit(code)
    os.close(write_fd)
    chunks, hung = [], False
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        while True:
            left = tic + timeout - time.monotonic()
            if left <= 0:
                hung = True
                os.kill(pid, signal.SIGKILL)
                break
            if select.select([pipe], [], [], left)[0]:
                chunk = pipe.read(1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.monotonic() - tic
    if hung:
        return {"verdict": "hang", "detail": f"no answer within {timeout:g} s"}, usage.ru_maxrss, seconds
    code = os.waitstatus_to_exitcode(status)
    if code != 0 or not chunks:
        how = f"killed by signal {-code}" if code < 0 else f"exit {code}"
        return {"verdict": "traceback", "detail": f"child crashed ({how})"}, usage.ru_maxrss, seconds
    return json.loads(b"".join(chunks)), usage.ru_maxrss, seconds


def keep(outcome: Outcome, folder: Path) -> None:
    """Remove the input of an unremarkable outcome; keep the others for their reproducers."""
    path = Path(outcome.path)
    if outcome.verdict in ("clear", "ok") and outcome.peak_kb < MEMORY_TARGET_KB and not outcome.notes:
        remove(path)


def pooled(
    items: Iterator[Any],
    run: Callable[[Any, int], Outcome],
    *,
    budget: float,
    limit: int,
    jobs: int,
    folder: Path,
    progress: Callable[[str], None],
) -> list[Outcome]:
    """``run(item, index)`` on ``jobs`` threads until ``budget`` s have passed or ``limit`` items ran."""
    deadline = time.monotonic() + budget
    lock = threading.Lock()
    counter = iter(range(limit))

    def worker() -> list[Outcome]:
        done = []
        while time.monotonic() < deadline:
            with lock:
                index = next(counter, None)
                if index is None:
                    break
                item = next(items)
            outcome = run(item, index)
            done.append(outcome)
            keep(outcome, folder)
            if index % 10 == 0:
                progress(f"{outcome.part}: {index + 1} runs")
        return done

    with ThreadPoolExecutor(jobs) as pool:
        results = [pool.submit(worker) for _ in range(jobs)]
        return [outcome for future in results for outcome in future.result()]


@dataclass
class Run:
    """A finished (or killed) subprocess."""

    returncode: int
    stdout: str
    stderr: str
    peak_kb: int
    seconds: float
    hung: bool
    leftovers: bool


def _group(group: int) -> dict[int, int]:
    """The processes of a process group that have not exited (zombies left out): pid -> VmHWM in KB."""
    members = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            state, _, pgrp = stat.read_text().rsplit(")", 1)[1].split()[:3]
            if int(pgrp) == group and state != "Z":
                status = (stat.parent / "status").read_text().splitlines()
                members[int(stat.parent.name)] = next(
                    (int(line.split()[1]) for line in status if line.startswith("VmHWM:")), 0
                )
    return members


def run_command(argv: list[str], timeout: float, cwd: Path, cap: int = CLI_CAP_BYTES) -> Run:
    """Run ``argv`` under an address-space cap in its own session; kill the session after ``timeout`` s."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        report = cwd / f"run-{threading.get_ident()}-{time.monotonic_ns()}.json"
        tic = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, "-c", _MEASURE, str(cap), str(report), *argv],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            cwd=cwd,
            env=subprocess_env(),
            start_new_session=True,
        )
        hung, peak = False, 0
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            hung, peak = True, max(_group(process.pid).values(), default=0)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        seconds = time.monotonic() - tic
        grace = time.monotonic() + 2.0  # pool workers may take a moment to wind down
        while not hung and _group(process.pid) and time.monotonic() < grace:
            time.sleep(0.05)
        leftovers = not hung and bool(_group(process.pid))
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # processes the run left behind
        code = process.returncode
        with contextlib.suppress(OSError, ValueError):
            measured = json.loads(report.read_text())
            code, peak = measured["code"], measured["peak_kb"]
        report.unlink(missing_ok=True)
        out.seek(0)
        err.seek(0)
        text = [f.read().decode("utf-8", "replace") for f in (out, err)]
    return Run(code, text[0], text[1], peak, seconds, hung, leftovers)
