"""The quantum MIS solver that every workload uses: colouring branches, pricing, clustering.

:class:`QuantumMISSolver` samples bitstrings of an :class:`~bbqmis.mis.MISProblem` from the
single-layer QAOA state: angles from the closed form (:func:`bbqmis.mis.qaoa.optimize`, no
circuit runs), ``shots`` shots on any backend spec. A problem wider than the device is
sampled through circuit cutting (:func:`cutting.cut_qaoa`, :func:`cutting.sample`) when a
vertex separator allows it, otherwise by simulated annealing as a counted fallback, so a
run always answers and always says how much of the answer the device gave.

With ``angles="trained"`` (or a :class:`~bbqmis.mis.training.Training`) the angles of every
problem are trained on the backend first (:func:`bbqmis.mis.training.train`): energies
estimated from the circuit's counts, or for a cut problem from the cut expectation-value
reconstruction (:func:`cutting.expectation`), starting from the closed-form optimum or a
seeded random point; each problem trains afresh (no warm start). The counters then tell
training from sampling (``training_*`` and ``sampling_*``, :func:`training_summary`).

The solver holds a backend *spec* (a string), so it pickles to process-pool and MPI
workers; each process builds its backend once (:func:`backends.shared_backend`), and the
quantum work of every call is counted from that call's own timing records
(:func:`backends.record_timings`), never by slicing a shared list.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

import numpy as np

from backends import QuantumBackend, record_timings, shared_backend
from backends.utils.errors import InvalidParameterError
from backends.utils.validation import SeedLike, check_nonnegative, check_positive_int, check_random_state

from .mis import qaoa
from .mis.classical import simulated_annealing
from .mis.problem import MISProblem
from .mis.training import (
    TrainedAngles,
    Training,
    check_angle_mode,
    count_device_work,
    sample_energy,
    train,
    training_summary,
)
from .samples import STAT_KEYS, MISSamples, Stats, add_stats, annealing_reads, new_stats

__all__ = ["DEFAULT_MAX_QUBITS", "QuantumMISSolver", "training_summary"]

#: Widest circuit sent to a backend when ``max_qubits`` is not given: a statevector of more
#: qubits takes GBs and minutes per circuit on a simulator.
DEFAULT_MAX_QUBITS = 24


class QuantumMISSolver:
    """Single-layer QAOA sampling of MIS QUBOs on any backend, with cutting and a fallback.

    Parameters
    ----------
    backend : str or QuantumBackend, default="aer"
        Backend spec for :func:`backends.shared_backend` (``"aer"``,
        ``"iqm-fake:adonis"``, ``"vqpu:http://host:port"``, ...), or a backend object
        (used as is: it must pickle if the solver is sent to other processes).
    shots : int, default=1024
        Shots per circuit, and annealing reads of the fallback.
    max_qubits : int, optional
        Widest circuit to run; default the backend's qubits, at most
        :data:`DEFAULT_MAX_QUBITS`. Pass a larger value explicitly for a larger device.
    sleep_factor : float, default=0.0
        Passed to a backend built from a spec: sleep alpha x quantum seconds after each
        execution (a backend object keeps its own).
    cut : bool, default=True
        Sample problems wider than ``max_qubits`` through circuit cutting.
    max_cut_overhead : float, default=256.0
        Largest sampling overhead ``16**cuts`` accepted (256: two wire cuts); a problem
        that needs more falls back to annealing. Cutting is not tried for a problem of
        more than ``(cuts + 1) * max_qubits`` vertices, which no plan within the bound fits.
    fallback_sweeps : int, default=200
        Sweeps of the annealing fallback, which takes ``shots`` reads, or fewer on a
        problem so large that they would exceed :data:`ANNEALING_WORK` (:func:`annealing_reads`).
    angles : {"closed-form", "trained"} or Training, default="closed-form"
        Where the p = 1 angles come from: the closed form (exact, no circuit), or training
        on the backend (``"trained"``: :class:`~bbqmis.mis.training.Training` defaults; its
        ``shots`` default to ``shots``).

    Attributes
    ----------
    stats : Stats
        Totals of :attr:`MISSamples.stats` over every call of this object in this process.

    Raises
    ------
    InvalidParameterError
        If a parameter is out of range.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> solver = QuantumMISSolver("aer", shots=256)
    >>> samples = solver.sample(MISProblem(nx.path_graph(4)), seed=1)
    >>> samples.bits.shape[1], int(samples.counts.sum()), int(samples.stats["fallbacks"])
    (4, 256, 0)
    >>> from bbqmis.mis.training import Training
    >>> trained = QuantumMISSolver("aer", shots=256, angles=Training(evaluations=8))
    >>> stats = trained.sample(MISProblem(nx.path_graph(4)), seed=1).stats
    >>> stats["training_evaluations"] <= 8, stats["training_circuits"] == stats["training_evaluations"]
    (True, True)
    """

    def __init__(
        self,
        backend: str | QuantumBackend = "aer",
        *,
        shots: int = 1024,
        max_qubits: int | None = None,
        sleep_factor: float = 0.0,
        cut: bool = True,
        max_cut_overhead: float = 256.0,
        fallback_sweeps: int = 200,
        angles: str | Training = "closed-form",
    ) -> None:
        if not isinstance(backend, str | QuantumBackend):
            raise InvalidParameterError(
                f"backend must be a spec such as 'aer' or a QuantumBackend, got {backend!r}"
            )
        self.backend = backend
        self.shots = check_positive_int(shots, "shots")
        self.max_qubits = None if max_qubits is None else check_positive_int(max_qubits, "max_qubits")
        self.sleep_factor = check_nonnegative(sleep_factor, "sleep_factor")
        self.cut = bool(cut)
        self.max_cut_overhead = check_nonnegative(max_cut_overhead, "max_cut_overhead")
        self.fallback_sweeps = check_positive_int(fallback_sweeps, "fallback_sweeps")
        self.angles = angles
        self.training = check_angle_mode(angles)
        self.stats: Stats = new_stats()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(backend={self.backend!r}, shots={self.shots}, "
            f"max_qubits={self.max_qubits}, cut={self.cut}"
            + ("" if self.training is None else f", angles={self.angles!r}")
            + ")"
        )

    def _settings(self) -> tuple[object, ...]:
        return (
            self.backend,
            self.shots,
            self.max_qubits,
            self.sleep_factor,
            self.cut,
            self.max_cut_overhead,
            self.training,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, QuantumMISSolver):
            return NotImplemented
        return self._settings() == other._settings() and self.fallback_sweeps == other.fallback_sweeps

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def device(self) -> QuantumBackend:
        """Return the backend of this process for :attr:`backend` (built on first use).

        Returns
        -------
        QuantumBackend
            Shared by every solver of this process with the same spec.

        Examples
        --------
        >>> QuantumMISSolver("aer").device() is QuantumMISSolver("aer", shots=10).device()
        True
        """
        if isinstance(self.backend, str):
            return shared_backend(self.backend, sleep_factor=self.sleep_factor)
        return self.backend

    def width(self) -> int:
        """Widest problem sampled without cutting: ``max_qubits`` capped by the device.

        Returns
        -------
        int
            Qubits.

        Examples
        --------
        >>> QuantumMISSolver("aer", max_qubits=5).width(), QuantumMISSolver("aer").width()  # aer: 30 qubits
        (5, 24)
        """
        return min(self.max_qubits or DEFAULT_MAX_QUBITS, self.device().num_qubits)

    def sample(self, problem: MISProblem, seed: SeedLike = None) -> MISSamples:
        """Sample bitstrings of ``problem`` from its p = 1 QAOA state.

        Parameters
        ----------
        problem : MISProblem
            The QUBO to sample (any weights and penalty).
        seed : None, int or numpy.random.Generator
            Seeds the simulator, the cut sampling and the fallback.

        Returns
        -------
        MISSamples
            With ``shots`` samples in all.

        Examples
        --------
        >>> import networkx as nx
        >>> solver = QuantumMISSolver("aer", shots=256, max_qubits=3)  # 5 vertices: cut once
        >>> samples = solver.sample(MISProblem(nx.path_graph(5)), seed=1)
        >>> int(samples.counts.sum()), samples.stats["cut_problems"], samples.stats["circuits"]
        (256, 1.0, 16.0)
        >>> solver.stats["calls"]  # totals over every call of this solver
        1.0
        """
        start = time.perf_counter()
        rng = check_random_state(seed)
        stats = new_stats(**{**dict.fromkeys(STAT_KEYS, 0.0), "calls": 1})
        if problem.num_nodes == 0:
            samples = MISSamples.from_rows(np.zeros((self.shots, 0), np.uint8), stats)
        else:
            with record_timings() as records:
                samples = self._sample(problem, rng, stats)
            for record in records:
                stats["circuits"] += record.circuits
                stats["shots"] += record.shots * record.circuits
                stats["quantum_seconds"] += record.quantum_seconds
        stats["seconds"] += time.perf_counter() - start
        with self._lock:
            add_stats(self.stats, stats)
        return samples

    def _sample(self, problem: MISProblem, rng: np.random.Generator, stats: Stats) -> MISSamples:
        width = self.width()
        seed = int(rng.integers(2**31))
        if problem.num_nodes <= width:
            device, shots = self.device(), self._training_shots()

            def estimate(gamma: float, beta: float, seed: int) -> tuple[float, float]:
                return sample_energy(problem, (gamma, beta), device, shots, seed=seed)

            angles = self._angles(problem, estimate, rng, stats)
            with record_timings() as records:
                counts = qaoa.sample(
                    problem, (angles.gamma, angles.beta), device, shots=self.shots, seed=seed
                )
            count_device_work(stats, "sampling", records)
            return MISSamples.from_counts(counts, problem.num_nodes, stats, angles)
        cut = self._cut(problem, width, seed, rng, stats)
        if cut is not None:
            stats["cut_problems"] += 1
            return MISSamples.from_counts(cut[0], problem.num_nodes, stats, cut[1])
        stats["fallbacks"] += 1
        reads = annealing_reads(self.shots, self.fallback_sweeps, problem.num_nodes + len(problem.edges))
        rows = simulated_annealing(problem, num_reads=reads, num_sweeps=self.fallback_sweeps, seed=rng)
        return MISSamples.from_rows(rows, stats)

    def _training_shots(self) -> int:
        return self.shots if self.training is None or self.training.shots is None else self.training.shots

    def _angles(
        self,
        problem: MISProblem,
        estimate: Callable[[float, float, int], tuple[float, float]],
        rng: np.random.Generator,
        stats: Stats,
    ) -> qaoa.QAOAAngles | TrainedAngles:
        """The closed-form angles, or angles trained by ``estimate(gamma, beta, seed)``, counted in ``stats``.

        Every evaluation gets its own seed (independent shot noise, as on a device), drawn
        from a generator seeded by ``rng``.
        """
        closed = qaoa.optimize(problem)
        if self.training is None:
            return closed
        seeds = np.random.default_rng(int(rng.integers(2**63)))
        with record_timings() as records:
            trained = train(
                problem,
                lambda gamma, beta: estimate(gamma, beta, int(seeds.integers(2**31))),
                self.training,
                seed=seeds,
                closed_form=closed,
            )
        count_device_work(stats, "training", records)
        stats["training_problems"] += 1
        stats["training_evaluations"] += trained.evaluations
        stats["training_gap"] += trained.gap
        stats["training_relative_gap"] += trained.relative_gap
        return trained

    def _cut(
        self, problem: MISProblem, width: int, seed: int, rng: np.random.Generator, stats: Stats
    ) -> tuple[dict[str, int], qaoa.QAOAAngles | TrainedAngles] | None:
        """Counts and angles through circuit cutting, or None when no plan within the bounds exists.

        The angles are optimised only for a problem that has a plan: on a problem far
        wider than the device (a residual of a thousand vertices, say) the closed-form
        energy alone would take time and memory that the fallback does not need. Trained
        angles are trained on the cut circuit: every evaluation runs the plan's
        subexperiments and reconstructs the energy (:func:`cutting.expectation`).
        """
        if not self.cut:
            return None
        max_cuts = int(math.log(max(self.max_cut_overhead, 1.0)) / math.log(16.0) + 1e-9)
        if problem.num_nodes > (max_cuts + 1) * width:
            return None
        import cutting  # qiskit-addon-cutting is imported only by processes that cut

        try:
            plan = cutting.cut_qaoa(problem, width, max_overhead=self.max_cut_overhead)
        except cutting.CuttingError:  # no separator, too costly, or a layout cut_wires cannot take
            return None
        device, shots = self.device(), self._training_shots()

        def estimate(gamma: float, beta: float, seed: int) -> tuple[float, float]:
            return cutting.expectation(plan, gamma, beta, device, shots, seed=seed)

        angles = self._angles(problem, estimate, rng, stats)
        with record_timings() as records:
            counts = cutting.sample(plan, angles, device, self.shots, self.shots, seed=seed)
        count_device_work(stats, "sampling", records)
        return counts, angles
