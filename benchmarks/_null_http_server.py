"""A do-nothing HTTP server on the vQPU server's HTTP stack: the floor of ``--scale``.

``python benchmarks/_null_http_server.py --port P`` serves, with uvicorn (httptools,
uvloop) like ``python -m backends.vqpu serve``, an application that answers every
request at once with a finished batch and ``Server-Timing: app;dur=0``. Clients of
:class:`backends.vqpu.api.VQPUSession` run against it unchanged, so what they measure
is the cost of the clients, HTTP and the machine alone: no server can do better.
"""

from __future__ import annotations

import argparse
import json

import uvicorn

BATCH = {
    "id": 1,
    "key": "floor",
    "status": "done",
    "submitted": 0.0,
    "started": 0.0,
    "ended": 0.0,
    "quantum_seconds": 0.0,
    "queue_seconds": 0.0,
    "circuits": 1,
    "shots": 16,
    "counts": [{"000": 16}],
    "error": None,
}
BODY = json.dumps(BATCH).encode()
HEADERS = [
    (b"content-type", b"application/json"),
    (b"content-length", str(len(BODY)).encode()),
    (b"server-timing", b"app;dur=0"),
]


async def app(scope, receive, send) -> None:
    """ASGI: read the request body, answer the finished batch."""
    if scope["type"] != "http":  # lifespan: nothing to start or stop
        return
    more = True
    while more:
        more = (await receive()).get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BODY})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=args.port,
        http="httptools",
        lifespan="off",
        access_log=False,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
