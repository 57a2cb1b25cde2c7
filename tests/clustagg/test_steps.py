import json

import numpy as np
import pytest

from clustagg import steps
from clustagg.clusterers import ALGORITHMS, draw_parameters, fit_labels
from clustagg.errors import InvalidParameterError, StepInputError
from clustagg.loop import LoopState
from clustagg.solvers import ExactSolver

SEED = 4


class FakeRequest:
    def Test(self):
        return True


class FakeComm:
    """Rank ``rank`` of a communicator of ``size`` ranks whose other ranks sent ``parts``."""

    def __init__(self, rank, size, parts=()):
        self.rank, self.size, self.parts, self.sent = rank, size, list(parts), None

    def Ibarrier(self):
        return FakeRequest()

    def gather(self, obj, root=0):
        self.sent = obj
        return [obj, *self.parts] if self.rank == root else None


@pytest.fixture
def round_files(points_1000, tmp_path):
    """One round's three steps run on files, with the in-memory results beside them."""
    X = points_1000
    files = {
        name: tmp_path / "round" / name
        for name in ("clusters.npz", "selection.json", "score.json", "labels.npy")
    }
    steps.cluster_file(X, SEED, files["clusters.npz"])
    selection = steps.aggregate_file(files["clusters.npz"], SEED, files["selection.json"], ExactSolver())
    state = steps.score_file(
        X,
        files["clusters.npz"],
        files["selection.json"],
        SEED,
        files["score.json"],
        files["labels.npy"],
        sample_size=None,
    )
    return files, selection, state


def test_cluster_in_memory_runs_the_three_base_clusterings(points_1000):
    candidates = steps.cluster(points_1000, SEED)
    params = draw_parameters(SEED)
    assert candidates.algorithms == ALGORITHMS
    assert candidates.labelings.shape == (3, 1000)
    for row, name in zip(candidates.labelings, ALGORITHMS, strict=True):
        np.testing.assert_array_equal(row, fit_labels(name, points_1000, params[name]))


def test_cluster_splits_the_algorithms_over_ranks_and_gathers_on_rank_0(points_1000):
    serial = steps.cluster(points_1000, SEED)
    worker = FakeComm(rank=1, size=2)
    assert steps.cluster(points_1000, SEED, worker) is None
    assert sorted(worker.sent) == ["dbscan"]  # ALGORITHMS[1::2]
    root = FakeComm(rank=0, size=2, parts=[worker.sent])
    gathered = steps.cluster(points_1000, SEED, root)
    assert sorted(root.sent) == ["hclust", "kmeans"]  # ALGORITHMS[0::2]
    np.testing.assert_array_equal(gathered.labelings, serial.labelings)


def test_cluster_file_round_trips_through_clusters_npz(points_1000, tmp_path):
    out = tmp_path / "round" / "clusters.npz"  # the directory is created
    steps.cluster_file(points_1000, SEED, out)
    candidates, meta = steps.load_clusters(out, seed=SEED, n_samples=1000)
    expected = steps.cluster(points_1000, SEED)
    np.testing.assert_array_equal(candidates.labelings, expected.labelings)
    assert candidates.algorithms == expected.algorithms
    assert meta["seed"] == SEED and meta["n_samples"] == 1000
    assert meta["parameters"] == draw_parameters(SEED)
    assert meta["seconds"] >= 0


def test_aggregate_file_equals_the_in_memory_step(points_1000, round_files):
    files, selection, _ = round_files
    on_disk = steps.load_json(files["selection.json"], seed=SEED)
    assert on_disk == selection
    in_memory = steps.aggregate(steps.cluster(points_1000, SEED), ExactSolver(), SEED)
    for key in ("seed", "chosen", "chosen_clusters", "n_candidates", "fallbacks"):
        assert on_disk[key] == in_memory[key]
    assert on_disk["chosen"] == sorted(on_disk["chosen"]) and on_disk["chosen"]


def test_score_file_equals_score_round(points_1000, round_files):
    files, selection, state = round_files
    candidates = steps.cluster(points_1000, SEED)
    labels, silhouette = steps.score_round(points_1000, candidates, selection, sample_size=None)
    np.testing.assert_array_equal(np.load(files["labels.npy"]), labels)
    written = steps.load_json(files["score.json"], seed=SEED)
    assert written["round_silhouette"] == pytest.approx(silhouette)
    assert LoopState.from_json(written) == state
    assert state.iterations == [pytest.approx(silhouette)] and state.best_iteration == 0
    assert state.parameters == [draw_parameters(SEED)]
    assert len(np.unique(labels)) == len(selection["chosen"])


def test_score_file_continues_the_previous_round(points_1000, round_files, tmp_path):
    files, _, first = round_files
    seed = SEED + 1
    clusters, selection = tmp_path / "c1.npz", tmp_path / "s1.json"
    steps.cluster_file(points_1000, seed, clusters)
    chosen = steps.aggregate_file(clusters, seed, selection, ExactSolver())
    state = steps.score_file(
        points_1000,
        clusters,
        selection,
        seed,
        tmp_path / "score1.json",
        tmp_path / "labels1.npy",
        previous=files["score.json"],
        previous_labels=files["labels.npy"],
        sample_size=None,
    )
    labels, silhouette = steps.score_round(
        points_1000, steps.cluster(points_1000, seed), chosen, sample_size=None
    )
    assert state.iterations == [first.iterations[0], pytest.approx(silhouette)]
    best = labels if silhouette > first.iterations[0] else np.load(files["labels.npy"])
    np.testing.assert_array_equal(np.load(tmp_path / "labels1.npy"), best)
    assert state.silhouette == max(state.iterations)


def test_aggregate_reports_delay_and_solver_fallbacks(points_1000):
    class CountingSolver:
        fallbacks = 0

        def __call__(self, problem, *, seed):
            self.fallbacks += 1
            return ExactSolver()(problem, seed=seed)

    selection = steps.aggregate(steps.cluster(points_1000, SEED), CountingSolver(), SEED, quantum_delay=0.05)
    assert selection["fallbacks"] == 1
    assert selection["seconds"] >= 0.05
    with pytest.raises(InvalidParameterError, match="quantum_delay must be a finite number >= 0, got -1"):
        steps.aggregate(steps.cluster(points_1000, SEED), ExactSolver(), SEED, quantum_delay=-1)


@pytest.mark.parametrize("keep", [0, 10, 0.5, -3])
def test_truncated_clusters_file_raises(round_files, keep):
    files, _, _ = round_files
    path = files["clusters.npz"]
    content = path.read_bytes()
    path.write_bytes(content[: int(keep * len(content)) if isinstance(keep, float) else keep])
    with pytest.raises(StepInputError, match="missing or unreadable clusters file"):
        steps.load_clusters(path)
    with pytest.raises(StepInputError, match="missing or unreadable clusters file"):
        steps.aggregate_file(path, SEED, files["selection.json"], ExactSolver())


def test_foreign_npz_raises(tmp_path):
    path = tmp_path / "other.npz"
    np.savez(path, labelings=np.zeros((3, 4), dtype=np.int32))
    with pytest.raises(StepInputError, match="missing or unreadable clusters file"):
        steps.load_clusters(path)
    np.savez(path, labelings=np.zeros((1, 4), np.int32), algorithms=np.array(["a"]), meta=np.array("{}"))
    with pytest.raises(StepInputError, match="missing or unreadable clusters file"):
        steps.load_clusters(path)


@pytest.mark.parametrize("keep", [0, 10, -3])
def test_truncated_labels_raise(round_files, keep):
    files, _, _ = round_files
    path = files["labels.npy"]
    path.write_bytes(path.read_bytes()[:keep])
    with pytest.raises(StepInputError, match="missing or unreadable labels"):
        steps.load_labels(path)


def test_clusters_of_another_round_or_data_raise(points_1000, round_files, tmp_path):
    files, _, _ = round_files
    with pytest.raises(
        StepInputError, match=f"clusters of seed {SEED}, 1000 points; expected seed {SEED + 1}$"
    ):
        steps.aggregate_file(files["clusters.npz"], SEED + 1, tmp_path / "s.json", ExactSolver())
    with pytest.raises(StepInputError, match=f"clusters of seed {SEED}, 1000 points; expected 999 points$"):
        steps.load_clusters(files["clusters.npz"], seed=SEED, n_samples=999)
    with pytest.raises(StepInputError):
        steps.score_file(
            points_1000[:999],
            files["clusters.npz"],
            files["selection.json"],
            SEED,
            tmp_path / "score.json",
            tmp_path / "labels.npy",
        )
    assert not (tmp_path / "s.json").exists() and not (tmp_path / "score.json").exists()


def test_selection_of_another_round_is_refused_by_score(points_1000, round_files, tmp_path):
    files, selection, _ = round_files
    steps.save_json(files["selection.json"], {**selection, "seed": SEED + 1})
    with pytest.raises(StepInputError, match=f"not the output of the step with seed {SEED}"):
        steps.score_file(
            points_1000,
            files["clusters.npz"],
            files["selection.json"],
            SEED,
            tmp_path / "score.json",
            tmp_path / "labels.npy",
        )


@pytest.mark.parametrize(
    ("name", "message"), [("absent.npy", "missing or unreadable labels"), (None, "labels are needed")]
)
def test_missing_previous_labels_raise(points_1000, round_files, tmp_path, name, message):
    files, _, _ = round_files
    with pytest.raises(StepInputError, match=message):
        steps.score_file(
            points_1000,
            files["clusters.npz"],
            files["selection.json"],
            SEED,
            tmp_path / "score.json",
            tmp_path / "labels.npy",
            previous=files["score.json"],
            previous_labels=None if name is None else tmp_path / name,
        )
    assert not (tmp_path / "score.json").exists()


# -- inputs that do not fit: the library refuses them as the command line does ---------------
@pytest.fixture(scope="module")
def one_round(points_1000, tmp_path_factory):
    """One round's files, never modified: tests write bad copies next to their own tmp_path."""
    folder = tmp_path_factory.mktemp("one_round")
    steps.cluster_file(points_1000, SEED, folder / "clusters.npz")
    steps.aggregate_file(folder / "clusters.npz", SEED, folder / "selection.json", ExactSolver())
    steps.score_file(
        points_1000,
        folder / "clusters.npz",
        folder / "selection.json",
        SEED,
        folder / "score.json",
        folder / "labels.npy",
    )
    return folder


def rewrite_clusters(source, target, labelings=None, algorithms=None, meta=None):
    """A copy of ``source`` (clusters.npz) with some of its arrays changed."""
    with np.load(source) as data:
        np.savez(
            target,
            labelings=data["labelings"] if labelings is None else labelings(data["labelings"]),
            algorithms=data["algorithms"] if algorithms is None else np.array(algorithms),
            meta=data["meta"] if meta is None else np.array(json.dumps(meta(json.loads(str(data["meta"]))))),
        )
    return target


def rewrite_selection(source, target, **changes):
    """A copy of ``source`` (selection.json) with ``changes``; a value None drops the key."""
    data = {**json.loads(source.read_text()), **changes}
    target.write_text(json.dumps({key: value for key, value in data.items() if value is not None}))
    return target


def score(one_round, tmp_path, X, clusters=None, selection=None, **previous):
    return steps.score_file(
        X,
        clusters or one_round / "clusters.npz",
        selection or one_round / "selection.json",
        SEED,
        tmp_path / "score.json",
        tmp_path / "labels.npy",
        **previous,
    )


BAD_CLUSTERS = [
    pytest.param(lambda x: x[:, :100], None, "labelings of 100 points; expected 1000", id="too-short"),
    pytest.param(
        lambda x: np.concatenate([x, x], axis=1),
        None,
        "labelings of 2000 points; expected 1000",
        id="too-long",
    ),
    pytest.param(
        lambda x: x.astype(float) + 0.5,
        None,
        "missing or unreadable clusters file (labelings must be integers, got dtype float64)",
        id="non-integer-label",
    ),
    pytest.param(
        lambda x: x - 1,
        None,
        "missing or unreadable clusters file "
        "(labelings must be non-negative (noise is a cluster of its own))",
        id="negative-label",
    ),
    pytest.param(
        lambda x: x[:2],
        ["kmeans", "dbscan"],
        "clusterings of kmeans, dbscan; expected kmeans, dbscan, hclust",
        id="other-algorithms",
    ),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("labelings", "algorithms", "message"), BAD_CLUSTERS)
def test_load_clusters_refuses_clusters_that_do_not_fit(one_round, tmp_path, labelings, algorithms, message):
    bad = rewrite_clusters(one_round / "clusters.npz", tmp_path / "c.npz", labelings, algorithms)
    with pytest.raises(StepInputError) as caught:
        steps.load_clusters(bad, seed=SEED, algorithms=ALGORITHMS)
    assert str(caught.value) == f"{bad}: {message}"


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("labelings", "algorithms", "message"), BAD_CLUSTERS)
def test_aggregate_file_refuses_clusters_that_do_not_fit(one_round, tmp_path, labelings, algorithms, message):
    bad = rewrite_clusters(one_round / "clusters.npz", tmp_path / "c.npz", labelings, algorithms)
    with pytest.raises(StepInputError) as caught:
        steps.aggregate_file(bad, SEED, tmp_path / "s.json", ExactSolver())
    assert str(caught.value) == f"{bad}: {message}"
    assert not (tmp_path / "s.json").exists()


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("labelings", "algorithms", "message"), BAD_CLUSTERS)
def test_score_file_refuses_clusters_that_do_not_fit(
    points_1000, one_round, tmp_path, labelings, algorithms, message
):
    bad = rewrite_clusters(one_round / "clusters.npz", tmp_path / "c.npz", labelings, algorithms)
    with pytest.raises(StepInputError) as caught:
        score(one_round, tmp_path, points_1000, clusters=bad)
    assert str(caught.value) == f"{bad}: {message}"
    assert not (tmp_path / "score.json").exists() and not (tmp_path / "labels.npy").exists()


@pytest.mark.timeout(60)
def test_load_clusters_leaves_the_algorithms_unchecked_unless_given(one_round, tmp_path):
    two = rewrite_clusters(
        one_round / "clusters.npz", tmp_path / "c.npz", lambda x: x[:2], ["kmeans", "dbscan"]
    )
    candidates, _ = steps.load_clusters(two, seed=SEED, n_samples=1000)
    assert candidates.algorithms == ("kmeans", "dbscan")


@pytest.mark.timeout(60)
def test_score_file_refuses_clusters_without_parameters(points_1000, one_round, tmp_path):
    bad = rewrite_clusters(
        one_round / "clusters.npz",
        tmp_path / "c.npz",
        meta=lambda meta: {key: value for key, value in meta.items() if key != "parameters"},
    )
    with pytest.raises(StepInputError) as caught:
        score(one_round, tmp_path, points_1000, clusters=bad)
    assert str(caught.value) == f"{bad}: no parameters in its meta; expected the cluster step's output"


def bad_selections(n):
    """(changes to selection.json, message) for a round of ``n`` candidates."""
    return [
        ({"chosen": [-1, 2]}, f"chosen[0] must be a candidate id in 0..{n - 1}, found -1"),
        ({"chosen": [1, n]}, f"chosen[1] must be a candidate id in 0..{n - 1}, found {n}"),
        ({"chosen": [1.0, 2]}, f"chosen[0] must be a candidate id in 0..{n - 1}, found 1.0"),
        ({"chosen": ["1"]}, f"chosen[0] must be a candidate id in 0..{n - 1}, found '1'"),
        ({"chosen": []}, "chosen must name at least one candidate cluster, found none"),
        ({"chosen": None}, "chosen must be a list of candidate ids, found None"),
        ({"n_candidates": n + 1}, f"a selection among {n + 1} candidates; expected {n}"),
        ({"fallbacks": None}, "no fallbacks; expected the aggregate step's output"),
    ]


CASES = range(len(bad_selections(1)))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("case", CASES)
def test_load_selection_refuses_a_selection_that_does_not_fit(one_round, tmp_path, case):
    candidates, _ = steps.load_clusters(one_round / "clusters.npz")
    changes, message = bad_selections(int(candidates.offsets[-1]))[case]
    bad = rewrite_selection(one_round / "selection.json", tmp_path / "s.json", **changes)
    with pytest.raises(StepInputError) as caught:
        steps.load_selection(bad, candidates, seed=SEED)
    assert str(caught.value) == f"{bad}: {message}"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("case", CASES)
def test_score_file_refuses_a_selection_that_does_not_fit(points_1000, one_round, tmp_path, case):
    candidates, _ = steps.load_clusters(one_round / "clusters.npz")
    changes, message = bad_selections(int(candidates.offsets[-1]))[case]
    bad = rewrite_selection(one_round / "selection.json", tmp_path / "s.json", **changes)
    with pytest.raises(StepInputError) as caught:
        score(one_round, tmp_path, points_1000, selection=bad)
    assert str(caught.value) == f"{bad}: {message}"
    assert not (tmp_path / "score.json").exists()


@pytest.mark.timeout(60)
def test_a_selection_of_overlapping_clusters_names_the_file_and_the_point(points_1000, one_round, tmp_path):
    candidates, _ = steps.load_clusters(one_round / "clusters.npz")
    point = 0
    first, second = candidates.global_labels[:2, point].tolist()  # kmeans' and dbscan's clusters of point 0
    bad = rewrite_selection(one_round / "selection.json", tmp_path / "s.json", chosen=[second, first])
    with pytest.raises(StepInputError) as caught:
        score(one_round, tmp_path, points_1000, selection=bad)
    assert str(caught.value) == f"{bad}: chosen clusters {first} and {second} share point {point}"


BAD_LABELS = [
    pytest.param(np.zeros(999, dtype=np.int32), "labels of 999 points; expected 1000", id="too-short"),
    pytest.param(
        np.zeros(1000),
        "labels of dtype float64 and shape (1000,); expected integers of shape (n_samples,)",
        id="non-integer-label",
    ),
    pytest.param(
        np.zeros((2, 500), dtype=np.int32),
        "labels of dtype int32 and shape (2, 500); expected integers of shape (n_samples,)",
        id="two-dimensional",
    ),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("labels", "message"), BAD_LABELS)
def test_load_labels_refuses_labels_that_do_not_fit(tmp_path, labels, message):
    bad = tmp_path / "labels.npy"
    np.save(bad, labels)
    with pytest.raises(StepInputError) as caught:
        steps.load_labels(bad, n_samples=1000)
    assert str(caught.value) == f"{bad}: {message}"


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("labels", "message"), BAD_LABELS)
def test_score_file_refuses_previous_labels_that_do_not_fit(
    points_1000, one_round, tmp_path, labels, message
):
    bad = tmp_path / "previous.npy"
    np.save(bad, labels)
    with pytest.raises(StepInputError) as caught:
        score(one_round, tmp_path, points_1000, previous=one_round / "score.json", previous_labels=bad)
    assert str(caught.value) == f"{bad}: {message}"
    assert not (tmp_path / "score.json").exists()


@pytest.mark.timeout(60)
def test_score_file_refuses_a_previous_score_that_is_not_one(points_1000, one_round, tmp_path):
    bad = tmp_path / "previous.json"
    steps.save_json(bad, {"seed": SEED - 1, "silhouette": 0.5})
    with pytest.raises(StepInputError) as caught:
        score(one_round, tmp_path, points_1000, previous=bad, previous_labels=one_round / "labels.npy")
    assert str(caught.value) == f"{bad}: no 'iterations'; expected the score step's output"


@pytest.mark.timeout(60)
def test_score_file_refuses_previous_labels_without_their_score(points_1000, one_round, tmp_path):
    labels = one_round / "labels.npy"
    with pytest.raises(StepInputError) as caught:
        score(one_round, tmp_path, points_1000, previous_labels=labels)
    assert str(caught.value) == f"{labels}: the previous round's score is needed with it"


def test_cluster_file_malleable_outside_slurm_clusters_alone_like_cluster_file(
    points_1000, tmp_path, monkeypatch
):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    nodes = steps.cluster_file_malleable(points_1000, 7, tmp_path / "new" / "m.npz", nodes=3)
    steps.cluster_file(points_1000, 7, tmp_path / "c.npz")
    grown, meta = steps.load_clusters(tmp_path / "new" / "m.npz", seed=7, n_samples=1000)
    plain, _ = steps.load_clusters(tmp_path / "c.npz", seed=7, n_samples=1000)
    assert nodes == ["localhost"] and meta["processes"] == 1
    assert np.array_equal(grown.labelings, plain.labelings)
    assert not list((tmp_path / "new").glob(".reconfiguration-*"))  # its ready folder is gone
