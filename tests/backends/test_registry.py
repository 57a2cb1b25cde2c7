"""Spec parsing, the errors of get_backend, and the per-process cache of shared_backend."""

import doctest
import multiprocessing
import subprocess
import sys
import threading
import time
import types

import pytest

import backends
from backends import (
    BACKENDS,
    SPEC_FORMS,
    BackendUnavailableError,
    InvalidParameterError,
    UnknownBackendError,
    check_spec,
    get_backend,
    registry,
    shared_backend,
)
from backends.aer import AerBackend

FORMS = (
    "aer, aer:mps, aer:noisy-<device>, iqm-fake:<device>, iqm:<server url>[#<quantum computer>], "
    "null[:<qubits>], vqpu:<http://host:port>, mpi:<service name>|world[:<rank>]"
)


@pytest.mark.parametrize(("spec", "method"), [("aer", "automatic"), ("aer:mps", "matrix_product_state")])
def test_aer_specs(spec, method):
    backend = get_backend(spec, sleep_factor=0.5, seed=3, label="run-1")
    assert isinstance(backend, AerBackend)
    assert backend.simulator.options.method == method
    assert (backend.name, backend.sleep_factor, backend.seed, backend.label) == (spec, 0.5, 3, "run-1")


def test_noisy_aer_uses_the_device_noise_and_topology():
    backend = get_backend("aer:noisy-adonis")
    assert backend.simulator.options.noise_model is not None
    assert backend.num_qubits == 5
    star = {frozenset((2, leaf)) for leaf in (0, 1, 3, 4)}  # QB3 is the centre
    assert {frozenset(edge) for edge in backend.device.coupling_map.get_edges()} == star


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("qpu", f"unknown backend spec 'qpu'; valid forms: {FORMS}"),
        ("", f"unknown backend spec ''; valid forms: {FORMS}"),
        (7, f"unknown backend spec 7; valid forms: {FORMS}"),
        (
            "aer:gpu",
            "unknown Aer simulator 'gpu' in spec 'aer:gpu'; valid forms: aer, aer:mps, aer:noisy-<device>",
        ),
    ],
)
def test_unknown_specs_list_the_valid_forms(spec, message):
    with pytest.raises(UnknownBackendError) as info:
        get_backend(spec)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "spec", ["aerx", "iqm-fakex:adonis", "aer-noisy-adonis", "VQPU:http://h:1", "noisy-adonis"]
)
def test_near_misses_are_unknown_and_list_every_spec_form(spec):
    with pytest.raises(UnknownBackendError) as info:
        get_backend(spec)
    assert str(info.value) == f"unknown backend spec {spec!r}; valid forms: {', '.join(SPEC_FORMS)}"
    assert FORMS == ", ".join(SPEC_FORMS)


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("aer", ("aer", "")),
        ("aer:mps", ("aer", "mps")),
        ("aer:noisy-adonis", ("aer:noisy-", "adonis")),
        ("aer:noisy-", ("aer:noisy-", "")),
        ("iqm-fake:deneb", ("iqm-fake", "deneb")),
        ("iqm:https://h:1#garnet", ("iqm", "https://h:1#garnet")),
        ("vqpu:http://127.0.0.1:8765", ("vqpu", "http://127.0.0.1:8765")),
        ("iqm-fakex", None),
    ],
)
def test_the_longest_prefix_wins(spec, match):
    assert registry._match(spec) == match


def test_noisy_specs_resolve_through_iqm_noisy_aer(monkeypatch):
    from backends import iqm

    calls = []
    monkeypatch.setattr(iqm, "noisy_aer", lambda device, **kwargs: calls.append((device, kwargs)) or "noisy")

    assert get_backend("aer:noisy-adonis", seed=1, sleep_factor=0.5) == "noisy"
    assert calls == [("adonis", {"name": "aer:noisy-adonis", "seed": 1, "sleep_factor": 0.5})]


@pytest.mark.parametrize(("spec", "device"), [("aer:noisy-", ""), ("aer:noisy-nowhere", "nowhere")])
def test_noisy_spec_with_an_unknown_device_lists_the_known_devices(spec, device):
    from backends import iqm

    with pytest.raises(UnknownBackendError) as info:
        get_backend(spec)
    known = ", ".join(iqm.fake_devices())
    assert "adonis" in known
    assert str(info.value) == f"unknown IQM device {device!r} in spec {spec!r}; known devices: {known}"


def test_vqpu_entry_is_a_lazy_import():
    assert BACKENDS["vqpu"] == "backends.vqpu.client:VQPUBackend"


def test_missing_module_gives_a_clear_error(monkeypatch):
    monkeypatch.setitem(BACKENDS, "vqpu", "backends.vqpu.not_written_yet:VQPUBackend")
    with pytest.raises(BackendUnavailableError) as info:
        get_backend("vqpu:http://127.0.0.1:8765")
    assert str(info.value) == (
        "backend spec 'vqpu:http://127.0.0.1:8765' needs backends.vqpu.not_written_yet:VQPUBackend, "
        "which cannot be imported: No module named 'backends.vqpu.not_written_yet'"
    )


def test_a_new_entry_is_called_with_argument_name_and_options(monkeypatch):
    calls = []
    module = types.SimpleNamespace(make=lambda argument, **kwargs: calls.append((argument, kwargs)) or "made")
    monkeypatch.setitem(sys.modules, "fake_backend_module", module)
    monkeypatch.setitem(BACKENDS, "echo", "fake_backend_module:make")

    assert get_backend("echo:http://h:1#x", seed=2) == "made"
    assert calls == [("http://h:1#x", {"name": "echo:http://h:1#x", "seed": 2})]


def test_a_backend_instance_passes_through():
    backend = get_backend("aer")
    assert get_backend(backend) is backend
    with pytest.raises(InvalidParameterError) as info:
        get_backend(backend, seed=1)
    assert str(info.value) == (
        "options ['seed'] apply to spec strings only, got a backend instance "
        "AerBackend(name='aer', num_qubits=30)"
    )


@pytest.mark.parametrize(
    "spec",
    [
        "aer",
        "aer:mps",
        "aer:noisy-adonis",
        "iqm-fake:garnet",
        "iqm-fake:Deneb",
        "iqm:https://example.org#garnet",
        "null",
        "null:5",
        "vqpu:http://127.0.0.1:8765",
        "vqpu:https://vqpu.example.org",
        "mpi:qpu",
        "mpi:world:1",
    ],
)
def test_check_spec_returns_a_good_spec_unchanged(spec):
    assert check_spec(spec) == spec


#: Specs get_backend refuses with UnknownBackendError before it connects anywhere.
BAD_SPECS = [
    "qpu",
    "",
    7,
    None,
    "aerx",
    "VQPU:http://h:1",
    "aer:gpu",
    "aer:noisy-",
    "aer:noisy-nope",
    "iqm-fake",
    "iqm-fake:nope",
    "iqm:ftp://example.org",
    "iqm:example.org#garnet",
    "null:0",
    "null:wide",
    "vqpu:",
    "vqpu:ftp://x",
    "vqpu:127.0.0.1:8765",
    "vqpu:http://",
    "vqpu:http://h:99999",
]


@pytest.mark.parametrize("spec", BAD_SPECS)
def test_check_spec_refuses_what_get_backend_refuses_with_the_same_message(spec):
    with pytest.raises(UnknownBackendError) as made:
        get_backend(spec)
    with pytest.raises(UnknownBackendError) as checked:
        check_spec(spec)
    assert str(checked.value) == str(made.value)


def test_check_spec_knows_the_devices_and_simulators_get_backend_knows():
    from backends import aer, iqm

    assert registry._FAKE_IQM_DEVICES == tuple(iqm.fake_devices())  # the same names, in the same order
    assert registry._AER_ARGUMENTS == tuple(aer.METHODS)


def test_check_spec_checks_every_kind_but_mpi():
    assert set(registry._CHECKS) == set(BACKENDS) - {"mpi"}


def test_check_spec_imports_neither_qiskit_nor_iqm():
    code = (
        "import sys\n"
        "from backends import UnknownBackendError, check_spec\n"
        "check_spec('iqm-fake:garnet'); check_spec('aer:noisy-adonis'); check_spec('vqpu:http://h:1')\n"
        "for spec in ('iqm-fake:nope', 'aer:gpu', 'vqpu:ftp://x'):\n"
        "    try:\n"
        "        check_spec(spec)\n"
        "    except UnknownBackendError:\n"
        "        pass\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'qiskit', 'qiskit_aer', 'iqm', 'exa'}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "[]\n"


def test_doctests():
    for name in backends.__all__:  # load the lazy names, as pytest's doctest collection does
        getattr(backends, name)
    for module in (registry, backends):
        assert doctest.testmod(module).failed == 0


# ---- shared_backend -------------------------------------------------------------------------


@pytest.fixture
def counting_factory(monkeypatch):
    """Register spec ``counted[:<argument>]``: a slow factory that records every backend it makes."""
    made = []

    def make(argument, *, name, **options):
        time.sleep(0.02)  # widen the window in which concurrent callers could both build one
        backend = types.SimpleNamespace(name=name, argument=argument, options=options)
        made.append(backend)
        return backend

    module = types.SimpleNamespace(make=make)
    monkeypatch.setitem(sys.modules, "counted_backend_module", module)
    monkeypatch.setitem(BACKENDS, "counted", "counted_backend_module:make")
    monkeypatch.setattr(registry, "_SHARED", {})
    return made


def test_shared_backend_is_made_once_per_spec_and_options(counting_factory):
    first = shared_backend("counted:x", seed=3, sleep_factor=0.5)
    again = shared_backend("counted:x", sleep_factor=0.5, seed=3)  # keyword order does not matter

    assert again is first
    assert counting_factory == [first]
    assert (first.name, first.argument, first.options) == ("counted:x", "x", {"seed": 3, "sleep_factor": 0.5})


def test_shared_backend_differs_for_other_options_or_specs(counting_factory):
    base = shared_backend("counted", seed=3)
    others = [
        shared_backend("counted", seed=4),
        shared_backend("counted"),
        shared_backend("counted:y", seed=3),
    ]

    assert all(other is not base for other in others)
    assert len({id(backend) for backend in [base, *others]}) == 4 == len(counting_factory)
    assert get_backend("counted", seed=3) is not base  # get_backend always makes a new one


def test_shared_backend_returns_a_real_backend():
    assert shared_backend("aer", seed=19) is shared_backend("aer", seed=19)
    assert shared_backend("aer", seed=19).name == "aer"


def test_unhashable_option_is_refused(counting_factory):
    with pytest.raises(InvalidParameterError) as info:
        shared_backend("counted", coupling=[[0, 1]])
    assert str(info.value) == "shared_backend options must be hashable: unhashable type: 'list'"
    assert counting_factory == [] and registry._SHARED == {}


def test_concurrent_first_calls_build_one_backend(counting_factory):
    results = []
    barrier = threading.Barrier(8)

    def call():
        barrier.wait()
        results.append(shared_backend("counted", seed=1))

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert len(results) == 8 and all(result is results[0] for result in results)
    assert counting_factory == [results[0]]


def _child_checks_its_backend(parent_backend, pipe):
    """In a forked child: the shared backend is new, and stays the child's one."""
    mine = shared_backend("counted", seed=1)
    pipe.send((mine is parent_backend, mine is shared_backend("counted", seed=1), mine.name))
    pipe.close()


@pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")
def test_a_forked_child_builds_its_own_backend_even_if_the_lock_was_held(counting_factory):
    parent_backend = shared_backend("counted", seed=1)
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    with registry._SHARED_LOCK:  # as if another thread of the parent were building a backend
        child = context.Process(target=_child_checks_its_backend, args=(parent_backend, send))
        child.start()
    send.close()
    try:
        assert receive.poll(30), "the child did not answer: it is stuck on the parent's lock"
        assert receive.recv() == (False, True, "counted")
        child.join(timeout=30)
        assert child.exitcode == 0
    finally:
        if child.is_alive():
            child.kill()
            child.join()
    assert shared_backend("counted", seed=1) is parent_backend  # the parent's cache is untouched
