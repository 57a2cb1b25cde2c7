"""The emulated Slurm cluster of ``vqpu_governance.py``: daemons, accounts, jobs, a Slurm-bound server.

Everything runs in one folder: ``examples/slurm/cluster/start.sh`` (munged, MariaDB,
slurmdbd, slurmctld, four slurmd) and a vQPU server on the ``null`` backend with
``--slurm-auth``. Needs root, as the cluster does.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "examples" / "slurm" / "cluster"
JOB = Path(__file__).resolve().parent / "_governance_job.py"
sys.path.insert(0, str(ROOT / "src"))

from _vqpu_common import free_port  # noqa: E402

from backends.vqpu import munge  # noqa: E402


def run(env: dict[str, str], *command: str, check: bool = True, timeout: float = 60) -> str:
    """``command``'s stdout; RuntimeError with its stderr when it fails and ``check``."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()[:400]}")
    return done.stdout


def eventually(condition, what: str, timeout: float = 120.0, pace: float = 0.2):
    """``condition()``'s first true value; RuntimeError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise RuntimeError(f"not within {timeout:g} s: {what}")
        time.sleep(pace)
    return value


@contextlib.contextmanager
def emulated_cluster(folder: Path) -> Iterator[dict[str, str]]:
    """Start the cluster in ``folder/state``; yield the environment of its commands; stop it."""
    state = folder / "state"
    done = subprocess.run(["bash", str(CLUSTER / "start.sh"), str(state)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the emulated cluster did not start: {done.stderr.strip()[-600:]}")
    env = {
        **os.environ,
        "SLURM_CONF": str(state / "slurm.conf"),
        "MUNGE_SOCKET": str(state / "munge" / "munge.socket"),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
    }
    try:
        yield env
    finally:
        subprocess.run(["bash", str(CLUSTER / "stop.sh"), str(state)], capture_output=True, timeout=120)


def add_accounts(env: dict[str, str], accounts: list[str]) -> None:
    """Slurm accounts (associations in slurmdbd) with this process's user in each."""
    user = run(env, "id", "-un").strip()
    for account in accounts:
        run(env, "sacctmgr", "-i", "add", "account", account, "cluster=qcluster")
        run(env, "sacctmgr", "-i", "add", "user", user, f"account={account}")


def set_remote_licence(env: dict[str, str], server: str, count: int) -> None:
    """The remote licence ``vqpu@server`` with ``count``, made if new; waits until slurmctld shows it."""
    shown = run(env, "sacctmgr", "-n", "-P", "show", "resource", "name=vqpu", f"server={server}")
    if not shown.strip():
        add = ["add", "resource", "name=vqpu", f"server={server}", "type=license"]
        run(env, "sacctmgr", "-i", *add, f"count={count}", "cluster=qcluster", "percentallowed=100")
    else:
        run(
            env,
            "sacctmgr",
            "-i",
            "modify",
            "resource",
            "name=vqpu",
            f"server={server}",
            "set",
            f"count={count}",
        )
    eventually(lambda: licence_total(env, f"vqpu@{server}") == count, f"vqpu@{server} has {count}", 30)


def licence_total(env: dict[str, str], name: str) -> int | None:
    found = re.search(
        rf"LicenseName={re.escape(name)} Total=(\d+)", run(env, "scontrol", "show", "license", "-o")
    )
    return int(found[1]) if found else None


def submit(env: dict[str, str], cwd: Path, command: str, *options: str, extra: dict | None = None) -> int:
    """``sbatch -p qpushared OPTIONS`` of a job running ``command`` in ``cwd``; its id."""
    script = cwd / f"job-{time.monotonic_ns()}.sh"
    script.write_text(f"#!/bin/bash\n{command}\n")
    out = run(
        {**env, **(extra or {})},
        "sbatch", "--parsable", "-p", "qpushared", f"--chdir={cwd}", f"--output={cwd}/slurm-%j.out",
        *options, str(script),
    )  # fmt: skip
    return int(out.strip().split(";")[0])


def job_command(mode: str, *arguments: object) -> str:
    """The command of a job running ``_governance_job.py MODE OUT ARGUMENTS`` (OUT: ``MODE-JOBID.json``)."""
    args = " ".join(str(a) for a in arguments)
    return f'{sys.executable} {JOB} {mode} "{mode}-$SLURM_JOB_ID.json" {args}'


def state(env: dict[str, str], job: int) -> str:
    """The job's state (``squeue``, else ``sacct``)."""
    shown = run(env, "squeue", "-h", "-j", str(job), "-o", "%T", check=False).strip()
    if shown:
        return shown
    return (
        run(env, "sacct", "-j", str(job), "-X", "-n", "-P", "-o", "State", check=False).strip() or "UNKNOWN"
    )


FINISHED = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY")


def wait_finished(env: dict[str, str], jobs: list[int], timeout: float) -> dict[int, str]:
    """Wait until every job has finished; their final states."""

    def finished() -> dict[int, str] | None:
        states = {job: state(env, job) for job in jobs}
        return states if all(value.startswith(FINISHED) for value in states.values()) else None

    return eventually(finished, f"jobs {jobs} finished", timeout, pace=0.5)


def times(env: dict[str, str], job: int) -> dict[str, float]:
    """``submit``, ``start`` and ``end`` of an ended job from Slurm's accounting (epoch seconds)."""
    fields = run(env, "sacct", "-j", str(job), "-X", "-n", "-P", "-o", "Submit,Start,End").strip().split("|")
    epoch = [
        datetime.fromisoformat(text).timestamp() if text[:1].isdigit() else float("nan") for text in fields
    ]
    return dict(zip(("submit", "start", "end"), epoch, strict=True))


def credential(env: dict[str, str], job: int, instance: str) -> str:
    """A fresh MUNGE credential naming ``job`` for the server ``instance``."""
    return munge.encode(munge.job_payload(str(job), instance), socket=env["MUNGE_SOCKET"])


def as_nobody(env: dict[str, str], job: int, instance: str) -> str:
    """A credential naming ``job`` encoded as the user nobody (MUNGE takes the socket peer's UID).

    The cluster's state folders are root's (mode 700): opened for traversal meanwhile, as a
    real cluster's /run/munge is.
    """
    folder = Path(env["MUNGE_SOCKET"]).parent
    modes = {f: f.stat().st_mode for f in [folder, *folder.parents] if not f.stat().st_mode & 0o001}
    try:
        for f in modes:
            f.chmod(0o755)
        os.setegid(65534)
        os.seteuid(65534)
        try:
            return credential(env, job, instance)
        finally:
            os.seteuid(0)
            os.setegid(0)
    finally:
        for f, mode in modes.items():
            f.chmod(mode)


def answer(url: str, token: str, scheme: str = "MUNGE") -> int:
    """The status of ``GET /health`` with ``Authorization: <scheme> <token>`` (a credential, or a ticket)."""
    return httpx.get(f"{url}/health", headers={"Authorization": f"{scheme} {token}"}, timeout=10).status_code


def ticket(url: str, credential: str) -> str:
    """The session ticket a server answers an admitted MUNGE credential with."""
    answered = httpx.get(f"{url}/health", headers={"Authorization": f"MUNGE {credential}"}, timeout=10)
    return answered.raise_for_status().headers["x-vqpu-session"]


@dataclass
class SlurmBoundServer:
    """``python -m backends.vqpu serve --backend null --slurm-auth`` on a free port, in ``folder``."""

    folder: Path
    instance: str
    options: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.db = self.folder / f"{self.instance}.sqlite"

    @contextlib.contextmanager
    def running(self, env: dict[str, str]) -> Iterator[SlurmBoundServer]:
        command = [
            sys.executable, "-m", "backends.vqpu", "serve", "--backend", "null", "--port", str(self.port),
            "--db", str(self.db), "--slurm-auth", "--instance", self.instance, *self.options,
        ]  # fmt: skip
        log_path = self.folder / f"{self.instance}.log"
        with log_path.open("ab") as log:
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:

            def up() -> bool:
                if process.poll() is not None:
                    raise RuntimeError(f"the server exited: {log_path.read_text()[-800:]}")
                with contextlib.suppress(httpx.TransportError):
                    return httpx.get(f"{self.url}/health", timeout=2).status_code == 401
                return False

            eventually(up, "the vQPU server answers", 60)
            yield self
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
