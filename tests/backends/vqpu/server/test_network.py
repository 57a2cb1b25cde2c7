"""Where the server may listen: no open mode beyond loopback, TLS options checked up front."""

import subprocess
from pathlib import Path

import pytest

from backends.utils.errors import InvalidParameterError
from backends.vqpu.server.network import check_exposure, is_loopback, tls_options

ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    """A throw-away CA and a server certificate for localhost, made by the examples' script."""
    folder = tmp_path_factory.mktemp("tls")
    subprocess.run(
        ["bash", str(ROOT / "examples" / "slurm" / "make_tls.sh"), str(folder)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return folder


@pytest.mark.parametrize("host", ["127.0.0.1", "127.200.3.4", "::1", "[::1]", "localhost"])
def test_loopback_addresses_are_loopback(host):
    assert is_loopback(host)


@pytest.mark.parametrize(
    "host", ["0.0.0.0", "::", "10.0.0.1", "192.168.1.2", "8.8.8.8", "no-such-host.invalid"]
)
def test_other_addresses_are_not_loopback(host):
    assert not is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.0.0.1"])
@pytest.mark.parametrize("tls_on", [False, True])
def test_open_mode_beyond_loopback_is_refused(host, tls_on):
    with pytest.raises(
        InvalidParameterError, match=f"--host {host} is not a loopback address.*--insecure-open"
    ):
        check_exposure(host, authenticated=False, tls=tls_on)


def test_open_mode_on_loopback_starts_silently():
    assert check_exposure("127.0.0.1", authenticated=False, tls=False) is None


def test_insecure_open_is_allowed_with_a_warning():
    warning = check_exposure("0.0.0.0", authenticated=False, tls=True, insecure_open=True)
    assert "open mode (--insecure-open)" in warning


def test_authentication_without_tls_on_the_network_warns():
    warning = check_exposure("0.0.0.0", authenticated=True, tls=False)
    assert "without TLS" in warning and "--tls-cert" in warning


def test_authentication_with_tls_on_the_network_is_quiet():
    assert check_exposure("0.0.0.0", authenticated=True, tls=True) is None


def test_tls_options_load_the_certificate_and_key(tls):
    options = tls_options(tls / "server.pem", tls / "server.key")
    assert options == {"ssl_certfile": str(tls / "server.pem"), "ssl_keyfile": str(tls / "server.key")}


@pytest.mark.parametrize("given", ["cert", "key"])
def test_half_of_the_tls_options_is_refused(tls, given):
    cert, key = (tls / "server.pem", None) if given == "cert" else (None, tls / "server.key")
    with pytest.raises(InvalidParameterError, match="go together: got only --tls-"):
        tls_options(cert, key)


def test_a_key_that_does_not_match_is_refused(tls):
    with pytest.raises(InvalidParameterError, match="do not load as a certificate and its key"):
        tls_options(tls / "server.pem", tls / "ca.key")


def test_a_missing_certificate_is_refused(tls):
    with pytest.raises(InvalidParameterError, match="no-such.pem"):
        tls_options(tls / "no-such.pem", tls / "server.key")
