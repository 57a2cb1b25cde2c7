"""The message tags and the reply."""

from backends.mpi_service import protocol


def test_tags_are_distinct():
    tags = [protocol.HELLO, protocol.RUN, protocol.BYE, protocol.SHUTDOWN, protocol.REPLY]
    assert len(set(tags)) == len(tags)


def test_a_reply_without_error_has_none():
    reply = protocol.Reply([{"0": 1}], 1.0, 2.0)
    assert reply.error is None and reply.ended - reply.started == 1.0
