import numpy as np
import pytest

from clustagg.plotting import plot_clustering, plot_timelines

PNG = b"\x89PNG"


@pytest.mark.parametrize("n_features", [1, 2, 3])
def test_plot_clustering_saves_an_image(tmp_path, n_features):
    X = np.random.default_rng(0).normal(size=(50, n_features))
    path = tmp_path / "clusters.png"
    plot_clustering(X, np.arange(50) % 3, path, title="three")
    assert path.read_bytes()[:4] == PNG


def test_plot_clustering_titles_by_cluster_count(tmp_path):
    X = np.random.default_rng(0).normal(size=(20, 2))
    plot_clustering(X, np.arange(20) % 4, tmp_path / "c.svg")
    assert "4 clusters" in (tmp_path / "c.svg").read_text()


def test_plot_timelines_draws_one_panel_per_mode(tmp_path):
    record = {"iteration": 0, "phase": "cluster", "start": 0.0, "end": 1.0, "nodes": 3}
    timelines = {
        "baseline mode": (3, [[record, {**record, "phase": "quantum", "start": 1.0, "end": 4.0}]]),
        "workflow mode": (0, [[record], [{**record, "start": 0.5, "end": 2.0}]]),  # two workloads stacked
    }
    plot_timelines(timelines, tmp_path / "t.svg", title="node use")
    text = (tmp_path / "t.svg").read_text()
    assert all(name in text for name in ("baseline mode", "workflow mode", "node use", "time (s)"))
