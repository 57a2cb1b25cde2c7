import numpy as np
import pytest

import cutting
from backends import get_backend
from bbqmis.mis.classical import maximum_independent_set

from .conftest import exact_counts, exact_distribution, to_vector


def optimal_mis_probability(problem, distribution):
    best = problem.cost(problem.to_bits(maximum_independent_set(problem.graph)))
    k = np.arange(distribution.size)
    bits = ((k[:, None] >> np.arange(problem.num_nodes)) & 1).astype(np.uint8)
    return distribution[np.isclose(problem.cost(bits), best)].sum()


def test_exact_fragments_give_exact_distribution(plan9, angles9):
    counts = {
        label: [exact_counts(plan9, angles9, c) for c in cs] for label, cs in plan9.subexperiments.items()
    }
    quasi = cutting.quasi_distribution(plan9, cutting.collect(plan9, counts))
    assert np.max(np.abs(quasi - exact_distribution(plan9.problem, angles9))) < 1e-12


def test_cut_sampling_matches_uncut(plan9, angles9, results9):
    exact = exact_distribution(plan9.problem, angles9)
    result = cutting.draw(plan9, results9, 1_000_000, seed=1)
    sampled = to_vector(result.counts, 9)
    assert 0.5 * np.abs(sampled - exact).sum() <= 0.05
    assert optimal_mis_probability(plan9.problem, sampled) == pytest.approx(
        optimal_mis_probability(plan9.problem, exact), abs=0.02
    )
    assert result.kappa == 4 and result.method == "exact"
    assert result.total == pytest.approx(1, abs=0.05) and 0 <= result.negative_fraction < 0.05
    assert sum(result.counts.values()) == 1_000_000


def test_montecarlo_and_rank(plan9, angles9, results9):
    exact = exact_distribution(plan9.problem, angles9)
    mc = cutting.draw(plan9, results9, 400_000, seed=2, method="montecarlo")
    assert mc.method == "montecarlo"
    assert 0.5 * np.abs(to_vector(mc.counts, 9) - exact).sum() <= 0.1
    ranked = cutting.draw(plan9, results9, 5, negative="rank")
    assert list(ranked.counts.values()) == [1] * 5
    top = np.argsort(-exact)[:20]
    assert {int(k, 2) for k in ranked.counts} <= set(top.tolist())


def test_sample_api(plan9, angles9, aer):
    counts = cutting.sample(plan9, angles9, aer, 200, 300, seed=5)
    assert sum(counts.values()) == 300 and all(len(k) == 9 for k in counts)
    assert counts == cutting.sample(plan9, angles9, aer, 200, 300, seed=5)


def test_sample_reports_subexperiments_done_out_of_total(plan9, angles9, aer):
    snapshots = []
    counts = cutting.sample(plan9, angles9, aer, 200, 300, seed=5, progress=snapshots.append)
    total = plan9.num_subexperiments
    assert {s["total"] for s in snapshots} == {total}
    bind = [s["done"] for s in snapshots if s["phase"] == "bind"]
    assert bind == list(range(total))
    later = [(s["phase"], s["done"]) for s in snapshots if s["phase"] != "bind"]
    assert later == [("run", 0), ("run", total), ("draw", total)]
    # Watching does not change the result.
    assert counts == cutting.sample(plan9, angles9, aer, 200, 300, seed=5)


@pytest.mark.slow
def test_fake_adonis(problem9, angles9):
    device = get_backend("iqm-fake:adonis")
    plan = cutting.cut_qaoa(problem9, device.num_qubits)
    assert device.num_qubits == 5 and max(plan.widths) <= 5
    result = cutting.sample_result(plan, angles9, device, 500, 1000, seed=1)
    assert sum(result.counts.values()) == 1000 and all(len(k) == 9 for k in result.counts)
