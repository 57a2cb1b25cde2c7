"""Rounds on files, shared by the malleable and workflow modes.

A run's directory holds ``points.npy`` and one ``round-NNN/`` per round with the outputs
of its three phases (formats in :mod:`clustagg.steps`)::

    points.npy
    checkpoint.json          last (iteration, phase) done, and the run's seed
    round-000/clusters.npz   cluster phase
    round-000/selection.json quantum phase
    round-000/score.json     score phase (loop state), with round-000/labels.npy
    round-001/...

:meth:`RoundFiles.run` skips every phase whose output is already complete for this run's
seed, so rerunning on the same directory resumes where a killed run stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from . import steps
from .errors import ClustAggError, StepInputError
from .loop import LoopSettings, LoopState
from .result import AggregationResult, collect_result
from .timeline import Timeline

__all__ = ["PHASES", "RoundFiles"]

#: The phases of a round, in order.
PHASES = ("cluster", "quantum", "score")


class RoundFiles:
    """File layout of a run: ``round-NNN/`` per round under ``workdir``.

    Parameters
    ----------
    workdir : path
        Created if missing; ``points.npy`` is written there on first use.
    X : ndarray of shape (n_samples, n_features)
        The run's points.
    seed : int
        The run's seed; round ``i`` has seed ``seed + i``.

    Raises
    ------
    StepInputError
        If ``workdir`` holds the files of other points.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from clustagg import StepInputError
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     files = RoundFiles(Path(folder), np.eye(2), seed=0)
    ...     print(sorted(p.name for p in Path(folder).iterdir()))
    ...     try:
    ...         RoundFiles(Path(folder), np.ones((2, 2)), seed=0)
    ...     except StepInputError as error:
    ...         print(str(error).removeprefix(folder))
    ['points.npy']
     holds the files of other points; use a new workdir
    """

    def __init__(self, workdir: Path, X: NDArray[np.float64], seed: int) -> None:
        self.workdir = Path(workdir)
        self.points = self.workdir / "points.npy"
        self.seed = seed
        self.n_samples = len(X)
        self.workdir.mkdir(parents=True, exist_ok=True)
        if not self.points.exists():
            steps.atomic_write(self.points, lambda handle: np.save(handle, X))
        elif not np.array_equal(np.load(self.points, allow_pickle=False), X):
            raise StepInputError(f"{self.workdir} holds the files of other points; use a new workdir")

    def path(self, i: int, name: str) -> Path:
        """File ``name`` of round ``i``.

        Examples
        --------
        >>> import tempfile
        >>> import numpy as np
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     files = RoundFiles(Path(folder), np.eye(2), seed=0)
        ...     files.path(7, "clusters.npz").relative_to(folder).as_posix()
        'round-007/clusters.npz'
        """
        return self.workdir / f"round-{i:03d}" / name

    def outputs(self, i: int) -> dict[str, Path]:
        """Output of each phase of round ``i``, by phase name.

        Examples
        --------
        >>> import tempfile
        >>> import numpy as np
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     files = RoundFiles(Path(folder), np.eye(2), seed=0)
        ...     {phase: path.name for phase, path in files.outputs(0).items()}
        {'cluster': 'clusters.npz', 'quantum': 'selection.json', 'score': 'score.json'}
        """
        return {
            "cluster": self.path(i, "clusters.npz"),
            "quantum": self.path(i, "selection.json"),
            "score": self.path(i, "score.json"),
        }

    def labels(self, i: int) -> Path:
        """Best labels after round ``i`` (``.npy``, written by its score phase).

        Examples
        --------
        >>> import tempfile
        >>> import numpy as np
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     files = RoundFiles(Path(folder), np.eye(2), seed=0)
        ...     files.labels(1).relative_to(folder).as_posix()
        'round-001/labels.npy'
        """
        return self.path(i, "labels.npy")

    def done(self, i: int, phase: str) -> bool:
        """Whether ``phase`` of round ``i`` has a complete output for this run's seed.

        Examples
        --------
        A selection of round 1 must carry the round's seed, here ``10 + 1``:

        >>> import tempfile
        >>> import numpy as np
        >>> from clustagg.steps import save_json
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     files = RoundFiles(Path(folder), np.eye(2), seed=10)
        ...     before = files.done(1, "quantum")
        ...     save_json(files.outputs(1)["quantum"], {"seed": 11})
        ...     before, files.done(1, "quantum"), files.done(1, "score")
        (False, True, False)
        """
        out, seed = self.outputs(i)[phase], self.seed + i
        try:
            if phase == "cluster":
                steps.load_clusters(out, seed=seed, n_samples=self.n_samples)
            else:
                steps.load_json(out, seed=seed)
                if phase == "score":
                    steps.load_labels(self.labels(i))
        except ClustAggError:
            return False
        return True

    def previous(self, i: int) -> dict[str, Path]:
        """Keyword arguments passing round ``i - 1``'s loop state to round ``i``'s score step.

        Examples
        --------
        >>> import tempfile
        >>> import numpy as np
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     files = RoundFiles(Path(folder), np.eye(2), seed=0)
        ...     first, second = files.previous(0), files.previous(1)
        ...     first, {key: path.relative_to(folder).as_posix() for key, path in second.items()}
        ({}, {'previous': 'round-000/score.json', 'previous_labels': 'round-000/labels.npy'})
        """
        if i == 0:
            return {}
        return {"previous": self.path(i - 1, "score.json"), "previous_labels": self.labels(i - 1)}

    def state(self, i: int) -> LoopState:
        """Loop state after round ``i`` (from its ``score.json``).

        Examples
        --------
        >>> import tempfile
        >>> import numpy as np
        >>> from clustagg.steps import save_json
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     files = RoundFiles(Path(folder), np.eye(2), seed=3)
        ...     saved = LoopState(iterations=[0.4], best_iteration=0, silhouette=0.4)
        ...     save_json(files.outputs(0)["score"], {"seed": 3, **saved.to_json()})
        ...     files.state(0) == saved
        True
        """
        return LoopState.from_json(steps.load_json(self.outputs(i)["score"], seed=self.seed + i))

    def checkpoint(self, i: int, phase: str) -> None:
        """Record ``phase`` of round ``i`` as the last one done (``checkpoint.json``).

        Examples
        --------
        >>> import json
        >>> import tempfile
        >>> import numpy as np
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     files = RoundFiles(Path(folder), np.eye(2), seed=3)
        ...     files.checkpoint(2, "quantum")
        ...     json.loads((Path(folder) / "checkpoint.json").read_text())
        {'iteration': 2, 'phase': 'quantum', 'seed': 3}
        """
        steps.save_json(self.workdir / "checkpoint.json", {"iteration": i, "phase": phase, "seed": self.seed})

    def run(
        self,
        timeline: Timeline,
        loop: LoopSettings,
        execute: Mapping[str, Callable[[int], object]],
        nodes: Mapping[str, int],
        mode: str,
        *,
        quantum_step_on: str = "rank0",
    ) -> AggregationResult:
        """Run rounds, skipping phases already on disk.

        Parameters
        ----------
        timeline : Timeline
            Receives every phase run (not the skipped ones).
        loop : LoopSettings
        execute : mapping of str to callable
            ``execute[phase](i)`` writes the output of ``phase`` of round ``i``.
        nodes : mapping of str to int
            Classical nodes each phase holds.
        mode : str
            Recorded in the result.
        quantum_step_on : str, default="rank0"
            Where ``execute["quantum"]`` runs the quantum step, recorded in the result.

        Returns
        -------
        AggregationResult

        Examples
        --------
        Two rounds of the three steps on files; a second run on the same directory finds
        every phase done and runs none:

        >>> import tempfile
        >>> from clustagg.data import make_reference_points
        >>> from clustagg.solvers import ExactSolver
        >>> X = make_reference_points(300)
        >>> folder = tempfile.TemporaryDirectory()
        >>> files = RoundFiles(Path(folder.name), X, seed=0)
        >>> def score(i):
        ...     out = files.outputs(i)
        ...     steps.score_file(
        ...         X, out["cluster"], out["quantum"], i, out["score"], files.labels(i), **files.previous(i)
        ...     )
        >>> execute = {
        ...     "cluster": lambda i: steps.cluster_file(X, i, files.outputs(i)["cluster"]),
        ...     "quantum": lambda i: steps.aggregate_file(
        ...         files.outputs(i)["cluster"], i, files.outputs(i)["quantum"], ExactSolver()
        ...     ),
        ...     "score": score,
        ... }
        >>> nodes = {"cluster": 3, "quantum": 1, "score": 1}
        >>> loop = LoopSettings(threshold=1.0, max_iter=2)
        >>> first = files.run(Timeline(floor=1), loop, execute, nodes, mode="demo")
        >>> len(first.iterations), len(first.timeline), len(first.labels)
        (2, 6, 300)
        >>> again = files.run(Timeline(floor=1), loop, execute, nodes, mode="demo")
        >>> again.timeline, again.silhouette == first.silhouette
        ([], True)
        >>> folder.cleanup()
        """
        state = LoopState()
        for i in range(loop.max_iter):
            for phase in PHASES:
                if self.done(i, phase):
                    continue
                loop.report(i, phase, state)
                with timeline.phase(i, phase, nodes[phase]):
                    execute[phase](i)
                self.checkpoint(i, phase)
            state = self.state(i)
            if state.done(loop.threshold, loop.max_iter):
                break
        loop.report(i, "done", state)
        labels = steps.load_labels(self.labels(i))
        return collect_result(labels, state, timeline, mode, self.seed, quantum_step_on=quantum_step_on)
