"""The files between the steps: atomic writes, and reads that refuse what does not fit."""

import json

import numpy as np
import pytest

from clustagg import step_files, steps
from clustagg.errors import StepInputError

SEED = 4


def test_steps_re_exports_the_file_functions():
    for name in step_files.__all__:
        assert getattr(steps, name) is getattr(step_files, name), name
        assert name in steps.__all__


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"seed": ', "missing or unreadable step output"),
        ("[1, 2]", "not the output of the step with seed 4"),
        (b"\xff\xfe{", "missing or unreadable step output"),
        ('{"seed": 5}', "not the output of the step with seed 4"),
    ],
)
def test_truncated_or_foreign_json_raises(tmp_path, content, message):
    path = tmp_path / "selection.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(StepInputError, match=message):
        step_files.load_json(path, seed=SEED)


def test_missing_input_raises(tmp_path):
    with pytest.raises(StepInputError, match="missing or unreadable step output"):
        step_files.load_json(tmp_path / "absent.json")
    with pytest.raises(StepInputError, match="missing or unreadable clusters file"):
        step_files.load_clusters(tmp_path / "absent.npz")


def test_atomic_write_leaves_the_old_file_when_writing_fails(tmp_path):
    path = tmp_path / "out.json"
    step_files.save_json(path, {"seed": 1})

    def fail(handle):
        handle.write(b'{"seed": ')
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError, match="killed"):
        step_files.atomic_write(path, fail)
    assert json.loads(path.read_text()) == {"seed": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]  # no temporary file left


def test_save_clusters_round_trip(tmp_path):
    from clustagg.aggregate import Candidates

    candidates = Candidates(np.array([[0, 0, 1], [1, 0, 2]], dtype=np.int32), ("kmeans", "dbscan"))
    meta = {"seed": 7, "n_samples": 3, "parameters": {}}
    step_files.save_clusters(tmp_path / "c.npz", candidates, meta)
    loaded, loaded_meta = step_files.load_clusters(tmp_path / "c.npz", seed=7, n_samples=3)
    np.testing.assert_array_equal(loaded.labelings, candidates.labelings)
    assert loaded.algorithms == candidates.algorithms and loaded_meta == meta


@pytest.mark.timeout(60)
def test_load_labels_refuses_an_archive(tmp_path):
    bad = tmp_path / "labels.npy"
    with bad.open("wb") as handle:
        np.savez(handle, labels=np.zeros(3, dtype=np.int32))
    with pytest.raises(StepInputError) as caught:
        step_files.load_labels(bad)
    assert str(caught.value) == f"{bad}: an .npz archive; expected labels saved by np.save"
