"""Spec parsing and the errors of get_backend."""

import ast
import doctest
import pathlib
import sys
import types

import pytest

import backends
from backends import (
    BACKENDS,
    BackendError,
    BackendUnavailableError,
    InvalidParameterError,
    UnknownBackendError,
    get_backend,
    registry,
)
from backends.aer import AerBackend

FORMS = (
    "aer, aer:mps, aer:noisy-<device>, iqm-fake:<device>, iqm:<server url>[#<quantum computer>], "
    "vqpu:<http://host:port>"
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


def test_errors_are_value_errors():
    for error in (
        UnknownBackendError,
        backends.CircuitTooWideError,
        backends.MissingTokenError,
    ):
        assert issubclass(error, BackendError)
        assert issubclass(error, ValueError)


def test_one_invalid_parameter_error_for_the_whole_project():
    import bbqmis
    import clustagg
    import cutting

    assert bbqmis.InvalidParameterError is cutting.InvalidParameterError is clustagg.InvalidParameterError
    assert InvalidParameterError is bbqmis.InvalidParameterError
    assert issubclass(InvalidParameterError, ValueError) and issubclass(InvalidParameterError, TypeError)


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


def test_backends_is_the_lowest_layer():
    package = pathlib.Path(backends.__file__).parent
    imported = set()
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module.split(".")[0])
    assert "backends" in imported
    assert imported.isdisjoint({"bbqmis", "cutting", "clustagg"})


def test_doctests():
    for module in (registry, backends):
        assert doctest.testmod(module).failed == 0
