"""The package's public names."""

import backends.mpi_service as package


def test_public_names():
    assert sorted(package.__all__) == ["MPIServiceBackend", "PendingRun", "ServiceStats", "serve"]
    assert all(hasattr(package, name) for name in package.__all__)
