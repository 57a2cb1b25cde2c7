"""``GET /metrics`` of a vQPU server in the Prometheus text format (prometheus-client).

Read at scrape time from the server's :class:`~backends.vqpu.server.accounting.Ledger` and
the batch counts of its store, so scraping costs no work per batch. Counters restart
from the stored history when the server restarts. Names (``user`` label on the
``vqpu_user_*`` families; per-job figures are in ``report``, not in labels, to keep
the number of series bounded):

=====================================  =======  ==========================================
name                                   type     meaning
=====================================  =======  ==========================================
``vqpu_batches{status}``               gauge    batches per status (queued, running, ...)
``vqpu_queue_length``                  gauge    batches queued or running
``vqpu_quantum_seconds_total``         counter  device seconds (execution only)
``vqpu_transpile_seconds_total``       counter  server seconds decoding and transpiling
``vqpu_quota_refusals_total``          counter  submissions refused over a quota
``vqpu_uptime_seconds``                gauge    seconds since the server started
``vqpu_user_quantum_seconds_total``    counter  device seconds per user
``vqpu_user_queue_seconds_total``      counter  queue seconds per user
``vqpu_user_batches_total``            counter  batches started per user
``vqpu_user_circuits_total``           counter  circuits per user
``vqpu_user_shots_total``              counter  shots per user
=====================================  =======  ==========================================
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from backends.vqpu.server.accounting import Usage

__all__ = ["CONTENT_TYPE", "Snapshot", "render"]

#: Media type of the answer.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

_STATUSES = ("queued", "running", "done", "failed")

#: ``vqpu_user_<name>_total`` families: Usage attribute and help text.
_PER_USER = (
    ("quantum_seconds", "Device seconds (execution only) per user."),
    ("queue_seconds", "Seconds batches waited in the queue, per user."),
    ("batches", "Batches started per user."),
    ("circuits", "Circuits run per user."),
    ("shots", "Shots run per user (circuits x shots per circuit)."),
)


@dataclass(frozen=True)
class Snapshot:
    """What ``/metrics`` reports, taken at scrape time.

    Attributes
    ----------
    statuses : mapping of str to int
        Batches per status.
    users : mapping of str to Usage
        Usage per user.
    quota_refusals : int
        Submissions refused because a quota was used up.
    uptime_seconds : float
        Seconds since the server started.

    Examples
    --------
    >>> snapshot = Snapshot({"queued": 2, "running": 1}, {}, quota_refusals=1, uptime_seconds=9.5)
    >>> [line for line in render(snapshot).decode().splitlines() if line.startswith("vqpu_queue")]
    ['vqpu_queue_length 3.0']
    """

    statuses: Mapping[str, int]
    users: Mapping[str, Usage]
    quota_refusals: int
    uptime_seconds: float


class _SnapshotCollector(Collector):
    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot

    def collect(self) -> Iterator[Metric]:
        s = self.snapshot
        batches = GaugeMetricFamily("vqpu_batches", "Batches per status.", labels=["status"])
        for status in _STATUSES:
            batches.add_metric([status], s.statuses.get(status, 0))
        yield batches
        pending = s.statuses.get("queued", 0) + s.statuses.get("running", 0)
        yield GaugeMetricFamily("vqpu_queue_length", "Batches queued or running.", value=pending)
        users = s.users.values()
        yield CounterMetricFamily(
            "vqpu_quantum_seconds",
            "Device seconds (execution only).",
            value=sum(u.quantum_seconds for u in users),
        )
        yield CounterMetricFamily(
            "vqpu_transpile_seconds",
            "Server seconds spent decoding and transpiling.",
            value=sum(u.transpile_seconds for u in users),
        )
        yield CounterMetricFamily(
            "vqpu_quota_refusals", "Submissions refused over a quota.", value=s.quota_refusals
        )
        yield GaugeMetricFamily("vqpu_uptime_seconds", "Seconds since the server started.", s.uptime_seconds)
        for attribute, help_text in _PER_USER:
            family = CounterMetricFamily(f"vqpu_user_{attribute}", help_text, labels=["user"])
            for user, usage in s.users.items():
                family.add_metric([user], getattr(usage, attribute))
            yield family


def render(snapshot: Snapshot) -> bytes:
    """The Prometheus text exposition of ``snapshot``.

    Examples
    --------
    >>> text = render(Snapshot({"done": 2}, {"alice": Usage(2, 2, 200, 1.5, 0.1, 0.25)}, 0, 3.0))
    >>> print(text.decode().split("# HELP vqpu_user_quantum_seconds_total")[1].splitlines()[2])
    vqpu_user_quantum_seconds_total{user="alice"} 1.5
    """
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_SnapshotCollector(snapshot))
    return generate_latest(registry)
