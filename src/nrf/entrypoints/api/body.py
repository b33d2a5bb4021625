"""Take the request body the server gate already read (under its size limit and deadline).

The gate (``http_server/gate.py``) counts the body as it arrives and gives the app the whole of
it with its length; the size is checked again here against the input limits, so the app
refuses the same bodies under any server, a test client included.
"""

from __future__ import annotations

import falcon

from nrf.entrypoints.api.problems import ApiProblem


def read_body(req: falcon.Request, max_bytes: int) -> bytes:
    """The whole body, or ApiProblem: 413 over ``max_bytes``, 400 shorter than declared."""
    length = req.content_length
    if length is not None and length > max_bytes:
        detail = f"the request body is {length:,} bytes; at most {max_bytes:,} are allowed"
        raise ApiProblem("body_too_large", detail)
    # Without a length (a WSGI server that passes chunked bodies through), the stream ends
    # where the body does; reading one byte more than allowed is enough to know.
    stream = req.bounded_stream if length is not None else req.stream
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        detail = f"the request body is over {max_bytes:,} bytes, the most allowed"
        raise ApiProblem("body_too_large", detail)
    if length is not None and len(data) < length:
        raise ApiProblem("incomplete_body", "the request body is shorter than its Content-Length")
    return data
