"""The Slurm reservation that keeps Slurm from starting vQPU jobs while the vQPU is in maintenance."""

from __future__ import annotations

import logging
import re
import subprocess
from collections.abc import Sequence

__all__ = ["RESERVATION", "SlurmHold"]

log = logging.getLogger("backends.vqpu.maintenance")

#: Name of the reservation that holds the vQPU licences during maintenance.
RESERVATION = "vqpu-maintenance"


class SlurmHold:
    """The Slurm reservation that keeps Slurm from starting jobs that ask for the vQPU licence.

    ``scontrol create reservation ReservationName=vqpu-maintenance StartTime=now
    Duration=infinite Users=root Flags=ANY_NODES Licenses=vqpu:TOTAL`` (TOTAL read from
    ``scontrol show license``): Slurm 22.05 cannot change a local licence's count at run time
    (``scontrol update`` has no licence entity; slurm.conf only), but a reservation of
    licences only (``Flags=ANY_NODES``) takes them all from every job that does not ask for
    the reservation. Running jobs keep theirs; new ones stay ``PENDING (Licenses)``.

    Parameters
    ----------
    resource : str
        The licence's name (``vqpu``; a remote ``vqpu@server`` counts).
    name : str
        The reservation's name.
    scontrol : sequence of str
        The ``scontrol`` command.

    Examples
    --------
    >>> hold = SlurmHold(scontrol=["false"])
    >>> hold.held()
    False
    >>> try:
    ...     hold.hold()
    ... except RuntimeError as error:
    ...     print(str(error).split(":")[0])
    scontrol show license -o failed (1)
    """

    def __init__(
        self, resource: str = "vqpu", *, name: str = RESERVATION, scontrol: Sequence[str] = ("scontrol",)
    ):
        self.resource = resource
        self.name = name
        self.command = list(scontrol)

    def _run(self, *arguments: str, ok: bool = False) -> subprocess.CompletedProcess[str]:
        """``scontrol ARGUMENTS``; RuntimeError on failure unless ``ok``."""
        try:
            done = subprocess.run([*self.command, *arguments], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise RuntimeError(f"scontrol {' '.join(arguments)} could not run: {exc}") from None
        if done.returncode != 0 and not ok:
            problem = (done.stderr or done.stdout).strip()[:300]
            raise RuntimeError(f"scontrol {' '.join(arguments)} failed ({done.returncode}): {problem}")
        return done

    def licences(self) -> str:
        """``name:total,...`` for every licence named ``resource`` (``vqpu`` or ``vqpu@server``).

        Raises
        ------
        RuntimeError
            If ``scontrol`` fails, or Slurm has no such licence (a GRES cannot be reserved so).

        Examples
        --------
        >>> shown = "LicenseName=vqpu Total=4 Used=1 Free=3 Reserved=0 Remote=no"
        >>> SlurmHold(scontrol=["echo", shown, "#"]).licences()
        'vqpu:4'
        """
        shown = self._run("show", "license", "-o").stdout
        found = re.findall(r"LicenseName=(\S+) Total=(\d+)", shown)
        held = [f"{name}:{total}" for name, total in found if name.split("@")[0] == self.resource]
        if not held or all(item.endswith(":0") for item in held):
            raise RuntimeError(f"Slurm has no licence {self.resource!r} to reserve")
        return ",".join(held)

    def held(self) -> bool:
        """Whether the reservation exists.

        Examples
        --------
        >>> SlurmHold(scontrol=["true"]).held(), SlurmHold(scontrol=["false"]).held()
        (True, False)
        """
        return self._run("show", "reservation", self.name, ok=True).returncode == 0

    def hold(self) -> None:
        """Create the reservation of all the vQPU licences (nothing if it exists).

        Raises
        ------
        RuntimeError
            If ``scontrol`` fails.

        Examples
        --------
        >>> SlurmHold(scontrol=["true"]).hold()  # the reservation exists already: nothing to do
        """
        if self.held():
            return
        self._run(
            "create", "reservation", f"ReservationName={self.name}", "StartTime=now",
            "Duration=infinite", "Users=root", "Flags=ANY_NODES", f"Licenses={self.licences()}",
        )  # fmt: skip
        log.warning(
            "Slurm reservation %s holds the %s licences: no new vQPU job starts", self.name, self.resource
        )

    def release(self) -> None:
        """Delete the reservation (nothing if there is none).

        Raises
        ------
        RuntimeError
            If ``scontrol`` fails.

        Examples
        --------
        >>> SlurmHold(scontrol=["false"]).release()  # no reservation: nothing to delete
        """
        if self.held():
            self._run("delete", f"ReservationName={self.name}")
            log.warning("Slurm reservation %s deleted: vQPU jobs start again", self.name)
