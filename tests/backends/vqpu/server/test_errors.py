"""The error answered to a client: its status, code and message."""

import pytest

from backends.vqpu.server.errors import APIError
from backends.vqpu.server.service import APIError as ServiceAPIError


def test_an_api_error_keeps_status_code_and_detail():
    error = APIError(429, "queue_full", "queue is full: 2 batches waiting, limit 2; retry later")
    assert (error.status, error.code, error.detail) == (
        429,
        "queue_full",
        "queue is full: 2 batches waiting, limit 2; retry later",
    )
    assert str(error) == error.detail
    with pytest.raises(APIError):
        raise error


def test_the_service_answers_the_same_class():
    assert ServiceAPIError is APIError
