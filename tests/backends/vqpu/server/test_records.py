"""Records of the store: a batch as stored (its row, its wait, its public view) and a queued batch."""

from backends.vqpu.server.database import COLUMNS
from backends.vqpu.server.records import Batch, Queued


def test_batch_queue_seconds_before_the_start():
    batch = Batch(1, "j", "k", 1, 1, 1, None, "queued", 5.0, None, None, None, 0, None, None, 0)
    assert batch.queue_seconds is None and batch.to_json()["queue_seconds"] is None


def test_a_row_in_the_order_of_the_columns_is_a_batch():
    assert len(COLUMNS.split(",")) == len(Batch.__dataclass_fields__)
    row = (2, "j", "k", 1, 2, 10, 7, "done", 1.0, 2.5, 3.0, 0.5, 1, '[{"00": 10}]', None, 3, "ann", 0.25)
    batch = Batch.from_row(row)
    assert (batch.id, batch.counts, batch.fetched, batch.user, batch.transpile_seconds) == (
        2,
        [{"00": 10}],
        3,
        "ann",
        0.25,
    )
    assert batch.queue_seconds == 1.5
    view = batch.to_json()
    assert "job" not in view and "user" not in view and view["counts"] == [{"00": 10}]


def test_a_queued_batch_is_a_named_tuple():
    queued = Queued(3, "job-a", 1.5)
    assert (queued.id, queued.job, queued.submitted) == (3, "job-a", 1.5)
    assert tuple(queued) == (3, "job-a", 1.5, "")  # no Slurm account
    assert Queued(4, "41", 2.0, "physics").account == "physics"
