import pytest

from clustagg import make_reference_points, run
from clustagg.errors import InvalidParameterError
from clustagg.loop import LoopSettings
from clustagg.reference import REFERENCE_ROUNDS, reference_parameters

#: The reference application's published silhouettes, one per iteration; it stops above 0.8.
PUBLISHED = [0.702, 0.702, 0.590, 0.838]


def test_reference_parameters_follow_the_notes_table():
    assert len(REFERENCE_ROUNDS) == 10
    first = reference_parameters(0)
    assert first == {
        "kmeans": {
            "n_clusters": 9,
            "init_rows": [31551, 62648, 63875, 72932, 15804, 26818, 61458, 22222, 44318],
            "tol": 0.0,
        },
        "dbscan": {"eps": 4.469032, "min_samples": 10},
        "hclust": {"n_clusters": 4},
    }
    # glibc treats srand(0) as srand(1): rounds 0 and 1 share their k-means.
    assert reference_parameters(1)["kmeans"] == first["kmeans"]
    ks = [reference_parameters(s)["kmeans"]["n_clusters"] for s in range(10)]
    assert ks == [9, 9, 8, 7, 10, 5, 4, 7, 6, 5]
    assert all(max(r.kmeans_rows) < 80_000 for r in REFERENCE_ROUNDS)


def test_loop_settings_choose_drawn_or_reference_parameters():
    assert LoopSettings(reference=True).parameters(2) == reference_parameters(2)
    assert LoopSettings().parameters(2)["kmeans"]["n_clusters"] in range(4, 11)
    with pytest.raises(InvalidParameterError, match="seed must be a reference round seed in 0..9, got 10"):
        LoopSettings(reference=True).parameters(10)


@pytest.mark.parametrize(
    "options",
    [{"mode": "workflow"}, {"seed": 1}, {"max_iter": 11}],
)
def test_reference_run_refuses_what_the_reference_never_ran(options):
    with pytest.raises(InvalidParameterError, match="reference=True replays the reference's 10 rounds"):
        run(make_reference_points(100), reference=True, **options)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_reference_run_reproduces_the_published_trajectory():
    result = run(make_reference_points(), solver="exact", reference=True)
    assert len(result.iterations) == 4  # stops after iteration 4, above 0.8
    for got, published in zip(result.iterations, PUBLISHED, strict=True):
        assert abs(got - published) < 0.005, (result.iterations, PUBLISHED)
    assert result.best_iteration == 3 and result.silhouette > 0.8
    assert len(result.chosen_clusters) == 7  # two close blobs merged
    assert result.parameters == [reference_parameters(s) for s in range(4)]
