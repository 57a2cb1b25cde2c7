"""Messages between the clients and the quantum service (both sides import them from here).

Every message is a pickled Python object sent with mpi4py's lowercase calls; its tag says
what it is. A client sends :data:`HELLO` once, any number of :data:`RUN` requests, then
:data:`BYE`; :data:`SHUTDOWN` stops the service at once. The service answers HELLO and
every RUN, in order, with a :data:`REPLY`.

=========  ==========================================  ==================================
tag        client sends                                service replies
=========  ==========================================  ==================================
HELLO      ``None``                                    ``(device_name, num_qubits)``
RUN        ``(circuits, shots, seed)``                 ``Reply``
BYE        ``None``                                    nothing (closes the connection)
SHUTDOWN   ``None``                                    nothing (the service stops)
=========  ==========================================  ==================================
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["BYE", "HELLO", "REPLY", "RUN", "SHUTDOWN", "Reply"]

HELLO = 11
RUN = 12
BYE = 13
SHUTDOWN = 14
REPLY = 15


class Reply(NamedTuple):
    """The service's answer to one RUN request.

    Attributes
    ----------
    counts : list of dict of str to int
        One counts dict per circuit (empty on error), clbit 0 rightmost.
    started, ended : float
        Unix epoch seconds of the execution on the service's backend (with the emulated
        latency, if any).
    error : str or None
        ``"<ExceptionType>: <message>"`` when the backend refused or failed the batch.

    Examples
    --------
    >>> import pickle
    >>> reply = Reply([{"00": 60, "11": 40}], started=100.0, ended=100.25)
    >>> pickle.loads(pickle.dumps(reply)) == reply, reply.ended - reply.started, reply.error
    (True, 0.25, None)
    """

    counts: list[dict[str, int]]
    started: float
    ended: float
    error: str | None = None
