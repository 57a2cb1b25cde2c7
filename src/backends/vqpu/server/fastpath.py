"""A well-formed ``POST /batches`` answered ahead of FastAPI's routing; anything else left to it.

Every batch a client submits would pass FastAPI's layers: its exception middleware,
the router, the request object, the dependency solver and the body's validation.
Skipping them takes 0.1 to 0.2 ms off a lone request (1.1 to 1.3 ms inside the server)
and about 0.4 ms off the median at saturation (docs/results/vqpu-multiplexing.md,
"Submissions past FastAPI's layers"). :class:`FastSubmit` is an ASGI
middleware that answers the submissions that the client library sends (a JSON body
that validates, an admitted caller, no query or one plain ``wait=S``) itself, with the
same checks and the same ``submit`` coroutine as the route, so the answer is the route's.
Every other request, and every submission that fails a check, goes on to the
application unchanged (its body replayed), so each refusal is the route's own, and the
route stays the API's description (``/openapi.json``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable

from pydantic import ValidationError
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from backends.vqpu.server.service import BatchIn
from backends.vqpu.server.tokens import Caller

__all__ = ["CALLER", "FastSubmit"]

#: The scope key under which a request carries its caller (or the refusal), found once before
#: this middleware and the routes: a MUNGE credential decodes once (a second decode is refused
#: as a replay).
CALLER = "vqpu.caller"

Submit = Callable[[Caller, BatchIn, float], Awaitable[Response]]

#: The query strings answered here: none, or one ``wait`` of plain decimal seconds (never
#: negative, never infinite). Others (``wait=1e3``, a repeated ``wait``...) go to the route.
_PLAIN_WAIT = re.compile(rb"(?:wait=([0-9]{1,9}(?:\.[0-9]{1,9})?))?")


class FastSubmit:
    """ASGI middleware: answer a well-formed ``POST /batches`` with ``submit``, pass on the rest.

    A request is answered here when it is a ``POST`` to exactly ``/batches`` whose
    ``Content-Type`` is ``application/json``, whose query is empty or one plain
    ``wait=S`` (decimal seconds), whose caller was admitted (``scope[CALLER]``, a
    :class:`~backends.vqpu.server.tokens.Caller`, not a refusal) and whose body parses as
    JSON and validates as :class:`~backends.vqpu.server.service.BatchIn`: the checks the
    route makes, each passed. ``submit(caller, body, wait)`` then makes the answer,
    refusals included (the same coroutine the route awaits). Any other request goes to
    ``app`` with its body, which the body guard in front has read whole, replayed.

    Parameters
    ----------
    app : ASGI application
        The application behind (FastAPI's), answering whatever is not answered here.
    submit : async callable
        ``await submit(caller, body, wait)``: the answer to an accepted submission.

    Examples
    --------
    >>> import asyncio
    >>> from starlette.responses import JSONResponse
    >>> async def submit(caller, body, wait):
    ...     return JSONResponse({"key": body.key, "job": caller.job, "wait": wait}, status_code=202)
    >>> async def app(scope, receive, send):  # the application behind: here it refuses all
    ...     await JSONResponse({"error": "route"}, status_code=400)(scope, receive, send)
    >>> fast = FastSubmit(app, submit=submit)
    >>> async def post(query, body):
    ...     scope = {"type": "http", "method": "POST", "path": "/batches", "query_string": query,
    ...              "headers": [(b"content-type", b"application/json")], CALLER: Caller("job-a", "ann")}
    ...     answer = []
    ...     async def receive():
    ...         return {"type": "http.request", "body": body, "more_body": False}
    ...     async def send(message):
    ...         answer.append(message)
    ...     await fast(scope, receive, send)
    ...     return answer[0]["status"], answer[1]["body"]
    >>> asyncio.run(post(b"wait=2.5", b'{"key": "k1", "circuits": "UUlTS0lU", "shots": 10}'))
    (202, b'{"key":"k1","job":"job-a","wait":2.5}')
    >>> asyncio.run(post(b"", b'{"key": "k1", "shots": 10}'))  # no circuits: the route's turn
    (400, b'{"error":"route"}')
    """

    def __init__(self, app: ASGIApp, *, submit: Submit) -> None:
        self.app = app
        self.submit = submit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer the request if it is a well-formed submission, else hand it to ``app``."""
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != "/batches":
            await self.app(scope, receive, send)
            return
        message = await receive()
        accepted = _accepted(scope, message)
        if accepted is None:
            await self.app(scope, _replay(message, receive), send)
            return
        response = await self.submit(*accepted)
        await response(scope, receive, send)


def _accepted(scope: Scope, message: Message) -> tuple[Caller, BatchIn, float] | None:
    """The caller, body and wait of a submission that passes every check of the route, else None."""
    wait = _PLAIN_WAIT.fullmatch(scope["query_string"])
    if wait is None or message["type"] != "http.request" or message.get("more_body", False):
        return None
    caller = scope[CALLER]
    if (
        not isinstance(caller, Caller)
        or Headers(scope=scope).get("content-type", "").lower() != "application/json"
    ):
        return None
    try:
        body = BatchIn.model_validate(json.loads(message.get("body", b"")))
    except (ValidationError, ValueError, RecursionError):
        return None
    return caller, body, float(wait.group(1) or 0.0)


def _replay(message: Message, receive: Receive) -> Receive:
    """``receive``, giving back ``message`` (already received) first."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return message
        return await receive()

    return replay
