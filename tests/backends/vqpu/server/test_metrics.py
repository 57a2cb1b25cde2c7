"""Tests of backends.vqpu.server.metrics: the Prometheus text of a snapshot, parsed back."""

from prometheus_client.parser import text_string_to_metric_families

from backends.vqpu.server.accounting import Usage
from backends.vqpu.server.metrics import CONTENT_TYPE, Snapshot, render


def samples(snapshot):
    text = render(snapshot).decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for f in text_string_to_metric_families(text)
        for s in f.samples
    }


def test_every_status_user_and_total_is_exposed_with_its_value():
    snapshot = Snapshot(
        statuses={"queued": 2, "running": 1, "done": 7},
        users={"alice": Usage(3, 6, 600, 1.5, 0.25, 0.5), "bob": Usage(1, 1, 10, 0.5, 0.05, 0.0)},
        quota_refusals=4,
        uptime_seconds=12.0,
    )
    got = samples(snapshot)
    assert got[("vqpu_batches", (("status", "failed"),))] == 0
    assert got[("vqpu_batches", (("status", "done"),))] == 7
    assert got[("vqpu_queue_length", ())] == 3
    assert got[("vqpu_quantum_seconds_total", ())] == 2.0
    assert got[("vqpu_transpile_seconds_total", ())] == 0.3
    assert got[("vqpu_quota_refusals_total", ())] == 4
    assert got[("vqpu_uptime_seconds", ())] == 12.0
    assert got[("vqpu_user_shots_total", (("user", "alice"),))] == 600
    assert got[("vqpu_user_queue_seconds_total", (("user", "bob"),))] == 0.0


def test_an_idle_server_exposes_zeros_and_the_text_format_version():
    got = samples(Snapshot({}, {}, 0, 0.0))
    assert got[("vqpu_queue_length", ())] == 0 and got[("vqpu_quantum_seconds_total", ())] == 0
    assert "version=0.0.4" in CONTENT_TYPE
