"""Who is asking: the job and user of a request, from its token or its job header."""

import pytest

from backends.vqpu.server.callers import MAX_JOB_NAME, caller_of
from backends.vqpu.server.errors import APIError
from backends.vqpu.server.tokens import Caller, TokenBook


def refusal(headers, tokens):
    with pytest.raises(APIError) as info:
        caller_of(headers, tokens)
    return info.value.status, info.value.code, info.value.detail


def test_open_mode_bills_the_job_of_the_header_as_its_own_user():
    assert caller_of({"x-vqpu-job": "job-7"}, None) == Caller("job-7", "job-7")
    assert caller_of({}, None) == Caller("anonymous", "anonymous")
    assert caller_of({"x-vqpu-job": "j" * MAX_JOB_NAME}, None).job == "j" * MAX_JOB_NAME
    assert refusal({"x-vqpu-job": "j" * (MAX_JOB_NAME + 1)}, None) == (
        400,
        "bad_request",
        f"X-VQPU-Job has {MAX_JOB_NAME + 1} characters, the limit is {MAX_JOB_NAME}",
    )


def test_a_job_name_sent_as_utf8_is_decoded():
    as_starlette_sees_it = "jöb".encode().decode("latin-1")
    assert caller_of({"x-vqpu-job": as_starlette_sees_it}, None).job == "jöb"


def test_tokens_name_the_job_and_user(tmp_path):
    path = tmp_path / "tokens.txt"
    path.write_bytes("job-a secret-a ann\njöb sécret\n".encode())
    tokens = TokenBook(path)
    assert caller_of({"authorization": "Bearer secret-a", "x-vqpu-job": "ignored"}, tokens) == Caller(
        "job-a", "ann"
    )
    assert caller_of({"authorization": "Bearer " + "sécret".encode().decode("latin-1")}, tokens).job == "jöb"
    missing = (401, "unauthorized", "missing token: send 'Authorization: Bearer <token>'")
    assert refusal({}, tokens) == missing
    assert refusal({"authorization": "Basic secret-a"}, tokens) == missing
    assert refusal({"authorization": "Bearer guess"}, tokens) == (401, "unauthorized", "unknown token")
    path.unlink()
    assert refusal({"authorization": "Bearer secret-a"}, tokens) == (
        503,
        "tokens_unavailable",
        "the server's token file is unusable; every token is refused until it is fixed",
    )
