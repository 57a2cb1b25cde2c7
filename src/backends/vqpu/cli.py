"""Command line of the vQPU: ``serve``, ``report``, ``probe`` and ``maintenance``.

Run ``python -m backends.vqpu --help`` for examples.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib.metadata
import json
import logging
import os
import socket
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from backends.errors import BackendError
from backends.utils.arguments import CommandParser
from backends.vqpu.options import (
    add_maintenance_arguments,
    add_probe_arguments,
    add_report_arguments,
    add_serve_arguments,
)
from backends.vqpu.server.limits import Limits, backend_max_shots
from backends.vqpu.server.network import check_exposure, tls_options

if TYPE_CHECKING:
    from backends.base import QuantumBackend
    from backends.vqpu.server.accounting import Ledger
    from backends.vqpu.server.maintenance import Maintenance
    from backends.vqpu.server.service import VQPUService
    from backends.vqpu.server.shares import AccountBook
    from backends.vqpu.server.slurm_auth import SlurmAuth
    from backends.vqpu.server.vqpu_count import SlurmLicence

__all__ = ["main"]

EXAMPLES = """\
examples:
  # one physical backend shared by many jobs, device time emulated as 50 ms per circuit
  python -m backends.vqpu serve --backend aer --port 8765 --latency 0.05 --db vqpu.sqlite
  # with per-job tokens (one 'name token' per line), API docs at /docs
  python -m backends.vqpu serve --backend iqm-fake:adonis --port 8765 --token-file tokens.txt --docs
  # a job: any command of the package, with the vQPU as backend
  VQPU_TOKEN=... python -m bbqmis graph.col --backend vqpu:http://127.0.0.1:8765
  # a small test circuit through the client
  python -m backends.vqpu probe --url http://127.0.0.1:8765 --shots 100
  # fair share between jobs, no batch waits beyond 30 s, 600 device seconds per user
  python -m backends.vqpu serve --backend aer --port 8765 --token-file tokens.txt \\
      --policy round-robin --max-wait 30 --user-quota 600
  # accounting: per-user and per-job tables, CSV for billing, JSON and figures
  python -m backends.vqpu report --db vqpu.sqlite --csv jobs.csv --json report.json --figures figures/
  # maintenance: no batch starts, clients wait (503 Retry-After), nothing accepted is lost; then 'off'
  python -m backends.vqpu maintenance on --db vqpu.sqlite --reason "cryostat warm-up"
"""


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``python -m backends.vqpu``."""
    parser = CommandParser(
        prog="python -m backends.vqpu",
        description="Virtual QPU: share one quantum backend between many jobs.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {importlib.metadata.version('bbqmis')}"
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=CommandParser)
    for name, help, add_arguments in (
        ("serve", "run the server", add_serve_arguments),
        ("report", "accounting of a run", add_report_arguments),
        ("probe", "run a small GHZ circuit through the vQPU client", add_probe_arguments),
        ("maintenance", "put the vQPU in maintenance or take it out of it", add_maintenance_arguments),
    ):
        command = commands.add_parser(
            name, help=help, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        add_arguments(command)
    return parser


def _serve(args: argparse.Namespace) -> int:
    """``serve``: run the server until interrupted.

    The options are checked, ``--max-shots`` against the backend's own limit included,
    before anything else; then the port is bound, and only then the store opened, which
    locks the database before it reads it (:class:`~backends.vqpu.server.store.Store`): a
    second server on the same port or database stops with one line and changes nothing
    (its start would otherwise re-queue, and run again, the batch the first one is
    running).
    """
    # Read when the simulator's OpenMP runtime loads, i.e. before the backend is made.
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    try:
        import uvicorn

        from backends.vqpu.server.app import (
            Policy,
            Quotas,
            TokenBook,
            VQPUService,
            create_app,
            uvicorn_config,
        )
    except ModuleNotFoundError as error:
        raise ValueError(
            f"serve needs the server extra ({error.name} is not installed): pip install 'bbqmis[server]'"
        ) from None
    from backends import get_backend

    tls, authenticated, warning = _access(args)
    tokens = _opened("--token-file", args.token_file, TokenBook) if args.token_file else None
    accounts = _account_book(args.account_quotas)
    backend = get_backend(args.backend)
    limits, licence = _limits(args, backend), _dynamic_licence(args)
    sock = _bind(args.host, args.port)
    with sock, _slurm_access(args) as slurm:
        service = _opened(
            "--db",
            args.db,
            lambda db: VQPUService(
                backend,
                db,
                tokens=tokens,
                slurm=slurm,
                warnings=[warning] if warning else [],
                latency=args.latency,
                limits=limits,
                policy=Policy(
                    args.policy,
                    args.max_wait,
                    half_life=args.fair_share_half_life,
                    shares=accounts.share if accounts else None,
                ),
                quotas=Quotas(job_seconds=args.job_quota, user_seconds=args.user_quota, accounts=accounts),
                maintenance=_maintenance(args, backend),
            ),
        )
        _log_start(
            open_mode=not authenticated,
            warning=warning,
            max_shots_option=args.max_shots,
            limits=limits,
            backend_name=backend.name,
        )
        config = uvicorn_config(
            create_app(service, docs=args.docs), limits, host=args.host, port=args.port, access_log=False,
            log_level="info", **tls,
        )  # fmt: skip
        with _usage_in_slurm(slurm, service.ledger), _dynamic_count(args, licence, service):
            uvicorn.Server(config).run(sockets=[sock])
    return 0


def _account_book(path: str | None) -> AccountBook | None:
    """The ``--account-quotas`` file, read and checked before the server starts (None without one)."""
    from backends.vqpu.server.shares import AccountBook

    return _opened("--account-quotas", path, AccountBook) if path else None


def _access(args: argparse.Namespace) -> tuple[dict[str, str], bool, str | None]:
    """``serve``'s TLS options, whether it authenticates callers, and its exposure warning.

    Raises
    ------
    ValueError
        For two ways of authenticating, half of the TLS options, or open mode beyond loopback.
    """
    if args.slurm_auth and args.token_file:
        raise ValueError("--slurm-auth and --token-file are two ways to authenticate: give one")
    if (args.dynamic_count is None) != (args.licence_server is None) or (
        args.dynamic_count and not args.slurm_auth
    ):
        raise ValueError("--dynamic-count needs --slurm-auth and --licence-server, and the other way round")
    tls = tls_options(args.tls_cert, args.tls_key)
    authenticated = bool(args.slurm_auth or args.token_file)
    warning = check_exposure(
        args.host, authenticated=authenticated, tls=bool(tls), insecure_open=args.insecure_open
    )
    return tls, authenticated, warning


def _maintenance(args: argparse.Namespace, backend: QuantumBackend) -> Maintenance:
    """``serve``'s maintenance: the flag next to ``--db``, probes of ``backend``, Slurm's hold."""
    from backends.vqpu.server import maintenance as m
    from backends.vqpu.server.slurm_hold import SlurmHold

    hold = SlurmHold(args.slurm_resource) if args.slurm_auth else None
    probe = m.probe_device(backend)
    return m.Maintenance(
        flag=m.flag_path(args.db), probe=probe, probe_interval=args.probe_interval, hold=hold
    )


def _maintenance_command(args: argparse.Namespace) -> int:
    """``maintenance on|off|status``: write, remove or show the flag the server of ``--db`` reads."""
    from backends.vqpu.server.maintenance import switch

    print(_opened("--db", args.db, lambda db: switch(db, args.action, args.reason)))
    return 0


@contextlib.contextmanager
def _usage_in_slurm(slurm: SlurmAuth | None, ledger: Ledger) -> Iterator[None]:
    """Under ``--slurm-auth``, each job's usage copied into its Slurm record while the server runs."""
    if slurm is None:
        yield
        return
    from backends.vqpu.server.slurm_accounting import SlurmUsageWriter

    writer = SlurmUsageWriter(ledger).start()
    try:
        yield
    finally:
        writer.stop()


def _dynamic_licence(args: argparse.Namespace) -> SlurmLicence | None:
    """The remote licence of ``--dynamic-count``, checked in Slurm before anything starts (None without).

    Raises
    ------
    ValueError
        If Slurm has no such licence, or cannot be reached.
    """
    if args.dynamic_count is None:
        return None
    from backends.vqpu.server.vqpu_count import SlurmLicence

    licence = SlurmLicence(args.slurm_resource, args.licence_server)
    try:
        licence.read()
    except RuntimeError as exc:
        raise ValueError(f"--dynamic-count: {exc}") from None
    return licence


@contextlib.contextmanager
def _dynamic_count(
    args: argparse.Namespace, licence: SlurmLicence | None, service: VQPUService
) -> Iterator[None]:
    """Under ``--dynamic-count``, the count of ``licence`` following the load while the server runs."""
    if licence is None:
        yield
        return
    from backends.vqpu.server.vqpu_count import CountController, CountRule

    controller = CountController(
        service.ledger,
        licence,
        CountRule(*args.dynamic_count),
        interval=args.count_interval,
        paused=lambda: service.maintenance.active,
    )
    try:
        controller.start()
    except RuntimeError as exc:
        raise ValueError(f"--dynamic-count: {exc}") from None
    try:
        yield
    finally:
        controller.stop()


@contextlib.contextmanager
def _slurm_access(args: argparse.Namespace) -> Iterator[SlurmAuth | None]:
    """The Slurm-bound authority of ``--slurm-auth`` (its job table polling), or ``None``."""
    if not args.slurm_auth:
        yield None
        return
    from backends.vqpu.server.sessions import SessionBook
    from backends.vqpu.server.slurm_auth import SlurmAuth
    from backends.vqpu.server.slurm_jobs import JobTable

    jobs = JobTable(resource=args.slurm_resource, interval=args.slurm_poll, max_age=5 * args.slurm_poll)
    instance = args.instance or f"{socket.gethostname()}:{args.port}"
    try:
        sessions = SessionBook(args.session_ttl) if args.session_ttl > 0 else None
        yield SlurmAuth(jobs.start(), instance, socket=args.munge_socket, sessions=sessions)
    finally:
        jobs.stop()


def _limits(args: argparse.Namespace, backend: object) -> Limits:
    """The request limits of ``serve``'s options, ``--max-shots`` checked against the backend's own limit."""
    return Limits(
        max_payload_bytes=args.max_payload,
        max_result_bytes=args.max_result_bytes,
        max_shots=_max_shots(args.max_shots, backend),
        max_circuits=args.max_circuits,
        max_queue=args.max_queue,
        max_batches_per_share=args.batches_per_share,
        max_qubits=args.max_qubits,
        max_clbits=args.max_clbits,
        max_instructions=args.max_instructions,
        max_decode_bytes=args.max_decode_bytes,
        max_decode_seconds=args.max_decode_seconds,
        max_read_seconds=args.max_read_seconds,
        max_connections=args.max_connections,
        max_head_bytes=args.max_head_bytes,
    )


def _log_start(
    *, open_mode: bool, warning: str | None, max_shots_option: int | None, limits: Limits, backend_name: str
) -> None:
    """Set up the server's log: warn of open mode and credentials in clear, tell a lowered shot limit."""
    logging.basicConfig(format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("backends.vqpu").setLevel(logging.INFO)
    if open_mode:
        logging.getLogger("backends.vqpu").warning(
            "no --token-file or --slurm-auth: open mode, every local process may submit"
        )
    if warning:
        logging.getLogger("backends.vqpu").warning(warning)
    if max_shots_option is None and limits.max_shots < Limits.max_shots:
        logging.getLogger("backends.vqpu").info(
            "no --max-shots: %d shots per circuit, the limit of backend '%s'",
            limits.max_shots,
            backend_name,
        )


def _max_shots(option: int | None, backend: object) -> int:
    """The shots per circuit a server on ``backend`` accepts: ``--max-shots``, or its default.

    An HPC admin who asks for more shots than the backend runs gets told at once,
    rather than a server whose users find out batch by batch; without the option, the
    default (:attr:`Limits.max_shots`) is lowered to the backend's limit if that is lower.

    Parameters
    ----------
    option : int or None
        The value of ``--max-shots``; None when it was not given.
    backend : QuantumBackend
        The physical backend; its own limit is :func:`~backends.vqpu.server.limits.backend_max_shots`.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``option`` exceeds the backend's own limit; the message names both.

    Examples
    --------
    >>> from backends import get_backend
    >>> backend = get_backend("aer")
    >>> _max_shots(None, backend), _max_shots(1_000_000, backend)
    (100000, 1000000)
    >>> _max_shots(2_000_000, backend)
    Traceback (most recent call last):
    ...
    ValueError: --max-shots 2000000 exceeds the shot limit of backend 'aer' (1000000 per circuit)
    """
    own = backend_max_shots(backend)
    if option is None:
        return Limits.max_shots if own is None else min(Limits.max_shots, own)
    if own is not None and option > own:
        name = getattr(backend, "name", type(backend).__name__)
        raise ValueError(
            f"--max-shots {option} exceeds the shot limit of backend '{name}' ({own} per circuit)"
        )
    return option


_T = TypeVar("_T")


def _opened(option: str, path: str, open_: Callable[[str], _T]) -> _T:
    """``open_(path)``; its errors about ``path`` become one line naming ``option`` and ``path``.

    I/O and SQLite errors get ``OPTION PATH: reason``; a ValueError naming the path (a
    foreign database, a bad line of a token file) gets ``OPTION`` in front.
    """
    if os.path.isdir(path):
        raise ValueError(f"{option} {path}: is a directory")
    try:
        return open_(path)
    except ValueError as exc:
        if not str(exc).startswith((path, str(Path(path)))):
            raise
        raise ValueError(f"{option} {exc}") from exc
    except OSError as exc:
        raise ValueError(f"{option} {path}: {exc.strerror or exc}") from exc
    except sqlite3.Error as exc:
        raise ValueError(f"{option} {path}: {exc}") from exc


def _bind(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port``, not yet listening; IPv6 if ``host`` has a colon (as uvicorn)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart need not wait out TIME_WAIT
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        option = (
            "--host" if isinstance(exc, socket.gaierror) or exc.errno == errno.EADDRNOTAVAIL else "--port"
        )
        raise ValueError(f"{option}: cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    return sock


def _report(args: argparse.Namespace) -> int:
    """``report``: print the accounting tables; write CSV, JSON and figures if asked.

    The outputs are checked before the database is read, so a bad one stops the
    command before it prints anything.
    """
    from backends.utils.files import check_writable
    from backends.vqpu.server.report import (
        format_table,
        save_figures,
        summarize,
        usage_tables,
        write_csv,
        write_json,
    )
    from backends.vqpu.server.store import read_batches

    for option, path in (("--csv", args.csv), ("--json", args.json)):
        if path:
            check_writable(path, option)
    if args.figures:
        _check_figures_folder(args.figures)
    batches = _opened("--db", args.db, read_batches)
    summary = summarize(batches)
    print(format_table(summary))
    print()
    print(usage_tables(batches))
    if args.csv:
        write_csv(batches, args.csv)
        print(f"wrote {args.csv}")
    if args.json:
        write_json(summary, args.json)
    if args.figures:
        for path in save_figures(batches, summary, args.figures):
            print(f"wrote {path}")
    return 0


def _check_figures_folder(path: str) -> None:
    """Refuse a ``--figures`` folder that cannot be made or written into."""
    from backends.utils.files import check_folder_writable

    target = Path(path)
    if target.exists() and not target.is_dir():
        raise ValueError(f"--figures {path}: not a directory")
    folder = next(p for p in (target, *target.parents) if p.exists())  # made from there on
    check_folder_writable(folder, "--figures", path)


def _probe(args: argparse.Namespace) -> int:
    """``probe``: run a GHZ circuit through the client; print counts and timings as JSON."""
    from qiskit import QuantumCircuit

    from backends import get_backend

    backend = get_backend(f"vqpu:{args.url}", token=args.token, sleep_factor=args.sleep_factor)
    ghz = QuantumCircuit(args.qubits, args.qubits)
    ghz.h(0)
    for q in range(1, args.qubits):
        ghz.cx(0, q)
    ghz.measure(range(args.qubits), range(args.qubits))
    counts = [backend.run([ghz], args.shots, seed=args.seed)[0] for _ in range(args.repeat)]
    timings = [record.to_json() for record in backend.timings]
    print(json.dumps({"backend": backend.name, "counts": counts, "timings": timings}))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code (2 on bad input, with a one-line reason)."""
    args = build_parser().parse_args(argv)
    try:
        commands = {"serve": _serve, "report": _report, "probe": _probe, "maintenance": _maintenance_command}
        return commands[args.command](args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"python -m backends.vqpu {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BackendError as exc:  # refused by the server (a quota, a limit) or unreachable
        print(f"python -m backends.vqpu {args.command}: error: {exc}", file=sys.stderr)
        return 1
