"""The options of ``python -m backends.vqpu``, by command and by group.

:func:`add_serve_arguments` and the others fill a command's parser; the limits default
to those of :class:`~backends.vqpu.server.limits.Limits`. Numbers go through the
project's checked argument types (:mod:`backends.utils.arguments`).
"""

from __future__ import annotations

import argparse

from backends.utils.arguments import integer, real
from backends.vqpu.server.limits import SQLITE_INT_MAX, Limits
from backends.vqpu.server.sessions import DEFAULT_TTL

__all__ = [
    "add_maintenance_arguments",
    "count_bounds",
    "add_probe_arguments",
    "add_report_arguments",
    "add_serve_arguments",
]

#: Argument types: counts up to SQLite's 64-bit integers, seconds up to about 31 years.
_COUNT = integer(1, SQLITE_INT_MAX)
_SECONDS = real(0.0, 1e9)
_POSITIVE_SECONDS = real(1e-3, 1e9)
#: Widest probe circuit: far beyond any device, yet built in about a second (qiskit would
#: try to allocate a register of any width first, and fail only at 2**32 qubits).
_MAX_PROBE_QUBITS = 2**16


def add_serve_arguments(serve: argparse.ArgumentParser) -> None:
    """Options of ``serve``; the limits default to those of :class:`~backends.vqpu.server.limits.Limits`.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_serve_arguments(parser)
    >>> args = parser.parse_args(["--backend", "null", "--port", "8765"])
    >>> args.max_queue, args.policy
    (1000, 'fifo')
    """
    _add_server_arguments(serve)
    _add_access_arguments(serve)
    _add_batch_limit_arguments(serve)
    _add_resource_limit_arguments(serve)
    _add_maintenance_serve_arguments(serve)
    _add_count_serve_arguments(serve)
    serve.add_argument(
        "--docs", action="store_true", help="serve /docs, /redoc and /openapi.json (public, no token)"
    )
    serve.add_argument(
        "--threads",
        type=_COUNT,
        default=1,
        help="OpenMP threads of a simulator backend (default %(default)s: batches run one at a time, and "
        "idle spinning threads would steal cores from the server and its clients)",
    )


def _add_server_arguments(serve: argparse.ArgumentParser) -> None:
    """Options of ``serve`` naming the device, the address, the tokens, the scheduling and the database."""
    serve.add_argument("--backend", required=True, help="physical backend spec, e.g. aer, iqm-fake:adonis")
    serve.add_argument("--port", type=integer(1, 65535), required=True, help="TCP port (0 < P < 65536)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default %(default)s)")
    serve.add_argument(
        "--token-file", help="file with one 'name token [user]' line per job; absent: open mode"
    )
    serve.add_argument(
        "--policy",
        choices=("fifo", "round-robin", "fair-share"),
        default="fifo",
        help="order of the queued batches: arrival order, fair share between jobs, or fair share between "
        "Slurm accounts by decayed usage (default %(default)s)",
    )
    serve.add_argument(
        "--max-wait", type=_SECONDS, help="seconds after which a waiting batch goes first (default: no bound)"
    )
    serve.add_argument(
        "--job-quota", type=_SECONDS, help="device seconds each job (token) may use (default: no quota)"
    )
    serve.add_argument(
        "--user-quota",
        type=_SECONDS,
        help="device seconds each user may use over all jobs (default: no quota)",
    )
    serve.add_argument(
        "--account-quotas",
        metavar="FILE",
        help="file with one 'account seconds [share]' line per Slurm account ('-': no quota; '*': any "
        "other account): quotas, and shares for --policy fair-share; re-read when it changes",
    )
    serve.add_argument(
        "--fair-share-half-life",
        type=_POSITIVE_SECONDS,
        default=600.0,
        help="seconds after which an account's usage counts half under --policy fair-share "
        "(default %(default)s)",
    )
    serve.add_argument("--db", default="vqpu.sqlite", help="SQLite accounting database (default %(default)s)")
    serve.add_argument(
        "--latency",
        type=_SECONDS,
        default=0.0,
        help="emulated device seconds per circuit (default %(default)s)",
    )


def _add_access_arguments(serve: argparse.ArgumentParser) -> None:
    """Options of ``serve`` on who may connect and how: TLS, Slurm-bound access, open mode."""
    group = serve.add_argument_group("access (docs/howto/vqpu-admin.md)")
    group.add_argument("--tls-cert", metavar="FILE", help="serve HTTPS with this certificate chain (PEM)")
    group.add_argument("--tls-key", metavar="FILE", help="the private key of --tls-cert (PEM)")
    group.add_argument(
        "--slurm-auth",
        action="store_true",
        help="admit only MUNGE credentials of running Slurm jobs that hold the vQPU resource",
    )
    group.add_argument(
        "--slurm-resource", default="vqpu", help="licence or GRES name of a vQPU (default %(default)s)"
    )
    group.add_argument(
        "--slurm-poll",
        type=real(0.05, 60.0),
        default=1.0,
        help="seconds between reads of Slurm's running jobs: how long an ended job is still admitted "
        "(default %(default)s)",
    )
    group.add_argument(
        "--session-ttl",
        type=real(0.0, 3600.0),
        default=DEFAULT_TTL,
        help="seconds a session ticket, earned by an admitted MUNGE credential, stands for one; "
        "0 asks a credential of every request (default %(default)s)",
    )
    group.add_argument("--munge-socket", help="munged's socket (default: MUNGE_SOCKET, else MUNGE's default)")
    group.add_argument("--instance", help="this server's name in credentials (default: HOST:PORT)")
    group.add_argument(
        "--insecure-open",
        action="store_true",
        help="allow open mode (no authentication) on an address beyond loopback: anyone who reaches "
        "the port may submit",
    )


def _add_batch_limit_arguments(serve: argparse.ArgumentParser) -> None:
    """Options of ``serve`` limiting what one batch may ask: shots, circuits, sizes, queue."""
    serve.add_argument(
        "--max-shots",
        type=_COUNT,
        help="shots per circuit; more than the backend's own limit (1000000 for aer and null) is refused "
        f"(default: {Limits.max_shots}, or the backend's limit if lower)",
    )
    serve.add_argument(
        "--max-circuits", type=_COUNT, default=1_000, help="circuits per batch (default %(default)s)"
    )
    serve.add_argument(
        "--max-queue",
        type=_COUNT,
        default=1_000,
        help="batches queued or running (default %(default)s)",
    )
    serve.add_argument(
        "--batches-per-share",
        type=_COUNT,
        help="batches one job may have queued or running per vQPU it holds (vqpu:N is N shares; "
        "without --slurm-auth every job holds one) (default: no bound per job)",
    )
    serve.add_argument(
        "--max-payload",
        type=_COUNT,
        default=8 * 2**20,
        help="request body bytes (default %(default)s)",
    )
    serve.add_argument(
        "--max-result-bytes",
        type=_COUNT,
        default=64 * 2**20,
        help="bytes the counts of one batch may take as JSON; a batch that could exceed it is "
        "refused with 422 (default %(default)s)",
    )
    serve.add_argument("--max-qubits", type=_COUNT, help="default: the backend's qubits")
    serve.add_argument("--max-clbits", type=_COUNT, default=1_024, help="per circuit (default %(default)s)")
    serve.add_argument(
        "--max-instructions", type=_COUNT, default=10_000, help="per circuit (default %(default)s)"
    )


def _add_resource_limit_arguments(serve: argparse.ArgumentParser) -> None:
    """Options of ``serve`` limiting the server's decoder and connections."""
    serve.add_argument(
        "--max-decode-bytes",
        type=_COUNT,
        default=2**30,
        help="memory the decoder process may use for one batch (default %(default)s)",
    )
    serve.add_argument(
        "--max-decode-seconds",
        type=_POSITIVE_SECONDS,
        default=10.0,
        help="time the decoder process may use for one batch (default %(default)s)",
    )
    serve.add_argument(
        "--max-read-seconds",
        type=_POSITIVE_SECONDS,
        default=10.0,
        help="time a client has to send a request head, and again its body (default %(default)s)",
    )
    serve.add_argument(
        "--max-connections",
        type=_COUNT,
        default=512,
        help="connections and requests at once, 503 beyond (default %(default)s)",
    )
    serve.add_argument(
        "--max-head-bytes",
        type=_COUNT,
        default=64 * 2**10,
        help="bytes of a request head (request line and headers), 431 beyond (default %(default)s)",
    )


def _add_maintenance_serve_arguments(serve: argparse.ArgumentParser) -> None:
    """Options of ``serve`` for maintenance (docs/howto/vqpu-admin.md, "Maintenance")."""
    help = "seconds between probes of a device that stopped answering (default %(default)s)"
    serve.add_argument("--probe-interval", type=_POSITIVE_SECONDS, default=10.0, help=help)


def count_bounds(text: str) -> tuple[int, int]:
    """``MIN:MAX`` of ``--dynamic-count``, 1 <= MIN <= MAX.

    Examples
    --------
    >>> count_bounds("2:6")
    (2, 6)
    >>> count_bounds("6:2")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected MIN:MAX with 1 <= MIN <= MAX, got '6:2'
    """
    low, _, high = text.partition(":")
    if low.isdigit() and high.isdigit() and 1 <= int(low) <= int(high) <= SQLITE_INT_MAX:
        return int(low), int(high)
    raise argparse.ArgumentTypeError(f"expected MIN:MAX with 1 <= MIN <= MAX, got {text!r}")


def _add_count_serve_arguments(serve: argparse.ArgumentParser) -> None:
    """Options of ``serve`` for the dynamic vQPU count (docs/howto/vqpu-admin.md, "A vQPU count ...")."""
    group = serve.add_argument_group("dynamic vQPU count (with --slurm-auth)")
    group.add_argument(
        "--dynamic-count",
        type=count_bounds,
        metavar="MIN:MAX",
        help="set the count of the remote licence RESOURCE@--licence-server from the device's occupancy "
        "and queue wait, within MIN:MAX",
    )
    group.add_argument(
        "--licence-server", help="the server of the remote licence (sacctmgr add resource ... server=NAME)"
    )
    help = "seconds between two steps of the count (default %(default)s)"
    group.add_argument("--count-interval", type=real(0.1, 3600.0), default=30.0, help=help)


def add_maintenance_arguments(maintenance: argparse.ArgumentParser) -> None:
    """Options of ``maintenance``: the flag file ``<db>.maintenance`` that the server reads.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_maintenance_arguments(parser)
    >>> args = parser.parse_args(["on", "--db", "vqpu.sqlite"])
    >>> args.db
    'vqpu.sqlite'
    """
    maintenance.add_argument("action", choices=("on", "off", "status"), help="enter, leave or show")
    maintenance.add_argument("--db", required=True, help="the server's SQLite database (its --db)")
    help = "shown on /health and in 503 answers (default %(default)r)"
    maintenance.add_argument("--reason", default="by the administrator", help=help)


def add_report_arguments(report: argparse.ArgumentParser) -> None:
    """Options of ``report``.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_report_arguments(parser)
    >>> args = parser.parse_args(["--db", "vqpu.sqlite"])
    >>> args.db
    'vqpu.sqlite'
    """
    report.add_argument("--db", required=True, help="the server's SQLite database")
    report.add_argument("--json", help="write the summary as JSON to this file")
    report.add_argument("--csv", help="write one row per job (user, seconds, circuits, shots) to this file")
    report.add_argument("--figures", help="write timeline.png and jobs.png into this directory")


def add_probe_arguments(probe: argparse.ArgumentParser) -> None:
    """Options of ``probe``.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_probe_arguments(parser)
    >>> args = parser.parse_args(["--url", "https://localhost:8765"])
    >>> args.shots, args.qubits
    (100, 2)
    """
    probe.add_argument("--url", required=True, help="server address, http://127.0.0.1:PORT")
    probe.add_argument("--shots", type=_COUNT, default=100, help="shots (default %(default)s)")
    probe.add_argument(
        "--qubits",
        type=integer(1, _MAX_PROBE_QUBITS),
        default=2,
        help="GHZ width (default %(default)s)",
    )
    probe.add_argument(
        "--repeat", type=_COUNT, default=1, help="circuits run one after another (default %(default)s)"
    )
    probe.add_argument(
        "--sleep-factor",
        type=real(0.0, 1e3),
        default=0.0,
        help="sleep A x quantum time after each run (default %(default)s)",
    )
    probe.add_argument("--seed", type=integer(0, SQLITE_INT_MAX))
    probe.add_argument("--token", help="job token (default: environment VQPU_TOKEN)")
