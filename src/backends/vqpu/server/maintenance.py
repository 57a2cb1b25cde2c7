"""Maintenance of a vQPU: the device is down, by the admin's word or because it stopped answering.

While the server is in maintenance its executor starts no batch; the batches accepted stay
queued in the store (a restart keeps them), new submissions and polls of unfinished
batches are answered 503 with ``Retry-After``, and ``/health`` says ``"maintenance": true``
with the reason and since when. Two causes, either enough:

- **the admin**: a flag file next to the database, ``<db>.maintenance``
  (:func:`flag_path`), made by ``python -m backends.vqpu maintenance on --db DB`` (or
  ``touch``) and removed by ``... off``. The server reads it every ``poll`` seconds and at
  start, so a server restarted in maintenance starts paused. The authority is the file
  system: who may write the database's folder may put the vQPU in maintenance, and no
  one else, the person who could already change the database. No secret to store, no
  endpoint to expose, and it works while the server is down. A flag file owned by
  another user than root or the server's own is ignored (a world-writable folder such as
  ``/tmp`` gives no one the power to stop the vQPU).
- **the device**: a batch whose execution raises a connection-type error
  (:func:`is_device_fault`: :class:`ConnectionError`, e.g.
  :class:`~backends.errors.BackendConnectionError`, or :class:`TimeoutError`) goes back to
  the queue and the server enters maintenance by itself. It probes the device every
  ``probe_interval`` seconds (:func:`probe_device`: one 1-qubit circuit, one shot) and
  leaves maintenance at the first answer.

Under ``--slurm-auth`` Slurm is told as well
(:class:`~backends.vqpu.server.slurm_hold.SlurmHold`): entering maintenance creates the
reservation ``vqpu-maintenance`` of every ``vqpu`` licence (``Flags=ANY_NODES``, a
reservation of licences only), so Slurm starts no new job asking for one (they stay
``PENDING`` with reason ``Licenses``) while running jobs keep running; leaving deletes it,
and the pending jobs start within a scheduler pass.
"""

from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from backends.utils.validation import check_interval
from backends.vqpu.server.errors import APIError
from backends.vqpu.server.slurm_hold import SlurmHold

if TYPE_CHECKING:
    from backends.base import QuantumBackend

__all__ = [
    "Maintenance",
    "Period",
    "clear_flag",
    "flag_path",
    "is_device_fault",
    "probe_device",
    "read_flag",
    "set_flag",
]

log = logging.getLogger("backends.vqpu")


@dataclass(frozen=True)
class Period:
    """One cause of maintenance: why, and since when (epoch seconds).

    Examples
    --------
    >>> Period("firmware update", 1.5e9).since
    1500000000.0
    """

    reason: str
    since: float


def flag_path(db: str | os.PathLike[str]) -> Path:
    """The admin's maintenance flag of the server whose database is ``db``: ``<db>.maintenance``.

    Examples
    --------
    >>> flag_path("/var/lib/vqpu/accounting.sqlite").name
    'accounting.sqlite.maintenance'
    """
    return Path(f"{os.fspath(db)}.maintenance")


def set_flag(path: str | os.PathLike[str], reason: str, *, now: float | None = None) -> Period:
    """Put the vQPU in maintenance: write the flag ``path`` (atomically) with ``reason``.

    A flag already there keeps its start time (and gets the new reason).

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> flag = Path(folder.name) / "vqpu.sqlite.maintenance"
    >>> set_flag(flag, "cryostat warm-up", now=100.0)
    Period(reason='cryostat warm-up', since=100.0)
    >>> set_flag(flag, "cryostat warm-up, day 2", now=200.0).since
    100.0
    >>> folder.cleanup()
    """
    known = read_flag(path)
    period = Period(reason, known.since if known else time.time() if now is None else now)
    target = Path(path)
    scratch = target.with_name(f".{target.name}.{os.getpid()}")
    scratch.write_text(json.dumps({"reason": period.reason, "since": period.since}) + "\n")
    scratch.chmod(0o644)
    os.replace(scratch, target)
    return period


def clear_flag(path: str | os.PathLike[str]) -> bool:
    """End the admin's maintenance: remove the flag ``path``; whether there was one.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> flag = Path(folder.name) / "vqpu.sqlite.maintenance"
    >>> _ = set_flag(flag, "test")
    >>> clear_flag(flag), clear_flag(flag)
    (True, False)
    >>> folder.cleanup()
    """
    try:
        Path(path).unlink()
    except FileNotFoundError:
        return False
    return True


def read_flag(path: str | os.PathLike[str]) -> Period | None:
    """The admin's maintenance the flag ``path`` declares, or None without one.

    A flag that is not the JSON :func:`set_flag` writes (a ``touch``) counts, since its
    modification time. A flag owned by another user than root or this process's is
    ignored, with a warning.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> flag = Path(folder.name) / "vqpu.sqlite.maintenance"
    >>> read_flag(flag) is None
    True
    >>> _ = flag.write_text("")  # touch
    >>> read_flag(flag).reason
    'maintenance (flag file present)'
    >>> folder.cleanup()
    """
    try:
        status = os.stat(path)
        text = Path(path).read_text(errors="replace")
    except FileNotFoundError:
        return None
    if status.st_uid not in (0, os.geteuid()):
        log.warning(
            "ignoring maintenance flag %s: owned by uid %d, not root or the server", path, status.st_uid
        )
        return None
    try:
        fields = json.loads(text)
        return Period(str(fields["reason"])[:500], float(fields["since"]))
    except (ValueError, TypeError, KeyError):
        return Period("maintenance (flag file present)", status.st_mtime)


def is_device_fault(error: BaseException) -> bool:
    """Whether ``error`` says the device stopped answering (maintenance), not that the batch is bad.

    Examples
    --------
    >>> from backends.errors import BackendConnectionError
    >>> is_device_fault(BackendConnectionError("no route to host")), is_device_fault(TimeoutError())
    (True, True)
    >>> is_device_fault(ValueError("circuits are not QPY"))
    False
    """
    return isinstance(error, (ConnectionError, TimeoutError))


def probe_device(backend: QuantumBackend) -> Callable[[], object]:
    """A cheap call that raises while ``backend`` does not answer: one 1-qubit circuit, one shot.

    Examples
    --------
    >>> from backends.null import NullBackend
    >>> probe_device(NullBackend(seed=1))()
    [{'0': 1}]
    """

    def probe() -> object:
        from qiskit import QuantumCircuit

        circuit = QuantumCircuit(1, 1)
        circuit.measure(0, 0)
        return backend.run([circuit], 1)

    return probe


class Maintenance:
    """Whether the vQPU is in maintenance, and why; the thread that watches the flag and the device.

    Parameters
    ----------
    flag : str or Path, optional
        The admin's flag file (:func:`flag_path` of the database); None: no admin maintenance.
    probe : callable, optional
        A cheap device call (:func:`probe_device`) that raises while the device is down;
        None: device maintenance ends only with the server.
    probe_interval : float
        Seconds between probes while the device is down.
    poll : float
        Seconds between reads of the flag file.
    retry_after : float
        Seconds a refused client is told to wait (``Retry-After``, rounded up).
    hold : SlurmHold, optional
        Slurm's reservation of the vQPU licences, held during maintenance.

    Raises
    ------
    InvalidParameterError
        If ``probe_interval``, ``poll`` or ``retry_after`` is not within (0, 86400].

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> flag = flag_path(Path(folder.name) / "vqpu.sqlite")
    >>> maintenance = Maintenance(flag=flag)
    >>> maintenance.check(); maintenance.active
    False
    >>> _ = set_flag(flag, "cryostat warm-up", now=1.5e9)
    >>> maintenance.check(); maintenance.state()
    {'maintenance': True, 'maintenance_reason': 'admin: cryostat warm-up', 'maintenance_since': 1500000000.0}
    >>> refusal = maintenance.refusal()
    >>> refusal.status, refusal.code, refusal.headers
    (503, 'maintenance', {'Retry-After': '5'})
    >>> _ = clear_flag(flag); maintenance.check(); maintenance.refusal() is None
    True
    >>> folder.cleanup()
    """

    def __init__(
        self,
        *,
        flag: str | os.PathLike[str] | None = None,
        probe: Callable[[], object] | None = None,
        probe_interval: float = 10.0,
        poll: float = 1.0,
        retry_after: float = 5.0,
        hold: SlurmHold | None = None,
    ) -> None:
        self.flag = None if flag is None else Path(flag)
        self.probe = probe
        self.probe_interval = check_interval(probe_interval, "probe_interval", 0, 86400.0)
        self.poll = check_interval(poll, "poll", 0, 86400.0)
        self.retry_after = check_interval(retry_after, "retry_after", 0, 86400.0)
        self.slurm = hold
        self._admin: Period | None = None
        self._device: Period | None = None
        self._was_active = False
        self._held: bool | None = None  # unknown until the first pass looks
        self._slurm_problem: str | None = None
        self._probed_at = 0.0
        self._listeners: list[Callable[[], object]] = []
        self._lock = threading.Lock()  # one pass at a time: the thread's, or a caller's
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def active(self) -> bool:
        """Whether the vQPU is in maintenance (by the admin, or the device being down)."""
        return self._admin is not None or self._device is not None

    def periods(self) -> list[Period]:
        """The causes of the maintenance in force, the admin's first (empty: none).

        Examples
        --------
        >>> maintenance = Maintenance()
        >>> maintenance.device_failed("BackendConnectionError: timed out", now=7.0)
        >>> maintenance.periods()
        [Period(reason='device: BackendConnectionError: timed out', since=7.0)]
        """
        admin, device = self._admin, self._device
        return [p for p in (admin and Period(f"admin: {admin.reason}", admin.since), device) if p]

    def state(self) -> dict[str, Any]:
        """``/health``'s view: ``maintenance`` (bool), ``maintenance_reason`` and ``maintenance_since``.

        Examples
        --------
        >>> Maintenance().state()
        {'maintenance': False, 'maintenance_reason': None, 'maintenance_since': None}
        """
        periods = self.periods()
        return {
            "maintenance": bool(periods),
            "maintenance_reason": "; ".join(p.reason for p in periods) or None,
            "maintenance_since": min(p.since for p in periods) if periods else None,
        }

    def refusal(self) -> APIError | None:
        """The 503 answer (with ``Retry-After``) to a request the maintenance stops, or None.

        Examples
        --------
        >>> maintenance = Maintenance(retry_after=2.5)
        >>> maintenance.refusal() is None
        True
        >>> maintenance.device_failed("ConnectionError: refused", now=0.0)
        >>> error = maintenance.refusal()
        >>> error.headers["Retry-After"], error.detail
        ('3', 'the vQPU is in maintenance since 1970-01-01T00:00:00Z (device: ConnectionError: refused); \
the batches it accepted are kept and run after it: retry later')
        """
        if not self.active:  # the common case, on every request: nothing built
            return None
        state = self.state()
        if not state["maintenance"]:  # ended meanwhile
            return None
        since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(state["maintenance_since"]))
        detail = (
            f"the vQPU is in maintenance since {since} ({state['maintenance_reason']}); "
            "the batches it accepted are kept and run after it: retry later"
        )
        return APIError(503, "maintenance", detail, {"Retry-After": str(math.ceil(self.retry_after))})

    def add_listener(self, listener: Callable[[], object]) -> None:
        """Call ``listener()`` (on the thread that noticed) whenever maintenance begins or ends.

        Examples
        --------
        >>> seen = []
        >>> maintenance = Maintenance()
        >>> maintenance.add_listener(lambda: seen.append(maintenance.active))
        >>> maintenance.device_failed("TimeoutError: ")
        >>> seen
        [True]
        """
        self._listeners.append(listener)

    def device_failed(self, reason: str, *, now: float | None = None) -> None:
        """The device stopped answering: enter maintenance until a probe succeeds.

        Examples
        --------
        >>> maintenance = Maintenance(probe=lambda: None, probe_interval=1e-3)
        >>> maintenance.device_failed("ConnectionError: refused")
        >>> maintenance.active
        True
        >>> time.sleep(2e-3); maintenance.check(); maintenance.active  # the probe answered
        False
        """
        with self._lock:
            if self._device is None:
                self._device = Period(f"device: {reason}"[:500], time.time() if now is None else now)
                self._probed_at = time.monotonic()
            self._notice()
        self._wake.set()  # the thread holds Slurm's licences at once

    def check(self) -> None:
        """One pass: read the flag, probe a device that is down when due, bring Slurm in line.

        Examples
        --------
        >>> import tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> maintenance = Maintenance(flag=flag_path(f"{folder.name}/vqpu.db"))
        >>> _ = set_flag(maintenance.flag, "calibration")
        >>> maintenance.check(); maintenance.active
        True
        >>> _ = clear_flag(maintenance.flag); maintenance.check(); maintenance.active
        False
        >>> folder.cleanup()
        """
        with self._lock:
            if self.flag is not None:
                self._admin = read_flag(self.flag)
            due = time.monotonic() - self._probed_at >= self.probe_interval
            if self._device is not None and self.probe is not None and due:
                self._probe()
            self._notice()
            self._sync_slurm()

    def _probe(self) -> None:
        """Call the probe; the device's maintenance ends when it answers."""
        self._probed_at = time.monotonic()
        try:
            self.probe()  # type: ignore[misc]  # checked by the caller
        except Exception as exc:  # noqa: BLE001 - any failure: still down
            log.info("the device is still down: %s: %s", type(exc).__name__, exc)
            return
        log.warning("the device answers again")
        self._device = None

    def _notice(self) -> None:
        """Log a change of state and tell the listeners."""
        if self.active == self._was_active:
            return
        self._was_active = self.active
        if self.active:
            log.warning("maintenance begins: %s", self.state()["maintenance_reason"])
        else:
            log.warning("maintenance ends: batches run again")
        for listener in self._listeners:
            listener()

    def _sync_slurm(self) -> None:
        """Hold Slurm's vQPU licences during maintenance, release them after; retried next pass on failure."""
        want = self.active
        if self.slurm is None or want == self._held:
            return
        try:
            self.slurm.hold() if want else self.slurm.release()
        except RuntimeError as exc:
            problem = f"cannot {'hold' if want else 'release'} the vQPU licences in Slurm: {exc}"
            if problem != self._slurm_problem:  # once, not at every pass
                log.error("%s (retried every %g s)", problem, self.poll)
            self._slurm_problem = problem
            return
        self._held, self._slurm_problem = want, None

    def start(self) -> Maintenance:
        """One pass now (a server restarted in maintenance starts paused), then one every ``poll`` s.

        Examples
        --------
        >>> maintenance = Maintenance(poll=0.05).start()
        >>> maintenance.active
        False
        >>> maintenance.stop(); maintenance.stop()
        """
        self.check()
        self._thread = threading.Thread(target=self._run, name="vqpu-maintenance", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread; release Slurm's licences unless the admin's flag holds them. Safe twice.

        Examples
        --------
        >>> maintenance = Maintenance().start()
        >>> maintenance.stop(); maintenance.stop()
        """
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
        with self._lock:
            if self._admin is None and self._held:
                self._device = None  # no server left to probe the device: Slurm decides again
                self._notice()
                self._sync_slurm()

    def _run(self) -> None:
        while True:
            self._wake.wait(min(self.poll, self.probe_interval))
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.check()
            except Exception:  # noqa: BLE001 - the watch goes on
                log.exception("maintenance check failed")


def switch(db: str | os.PathLike[str], action: str, reason: str = "by the administrator") -> str:
    """``python -m backends.vqpu maintenance on|off|status --db DB``: the admin's flag; the line to print.

    Raises
    ------
    ValueError
        If ``action`` is not ``on``, ``off`` or ``status``.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> db = Path(folder.name) / "vqpu.sqlite"
    >>> switch(db, "on", "cryostat warm-up").split(" since ")[0], switch(db, "status")[:14]
    ('maintenance on', 'maintenance on')
    >>> switch(db, "off").split(" (")[0], switch(db, "status").split(" (")[0]
    ('maintenance off', 'no maintenance by the administrator')
    >>> folder.cleanup()
    """
    flag = flag_path(db)
    if action not in ("on", "off", "status"):
        raise ValueError(f"maintenance: action must be on, off or status, got {action!r}")
    if action == "off":
        return f"maintenance off ({flag} removed)" if clear_flag(flag) else f"no maintenance ({flag} absent)"
    period = set_flag(flag, reason) if action == "on" else read_flag(flag)
    if period is None:
        return f"no maintenance by the administrator ({flag} absent)"
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(period.since))
    return f"maintenance on since {since}: {period.reason} ({flag})"
