"""The form's report links the same quote in every other format, as files saved from the page.

A plain form's answer is one page, so the JSON, the levy table and the GeoJSON (in WGS 84 and in
British National Grid) of that very
quote ride in it as ``data:`` links with a ``download`` name: no second request, nothing kept on
the server (so nothing to expire, share between tasks or guard with the key), no script, and the
pages' Content-Security-Policy, which lets a page load nothing, is untouched: a download is not
a fetch. Each link holds the API's own bytes for its format, made with the report's stamp. A
format larger than ``LINK_LIMIT`` is not put in the page (base64 makes it a third larger, and
the page must stay quick to open); its item says to choose that format in the form instead.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from html import escape

from nrf.entrypoints.api.form_outputs import OUTPUTS, FormOutput, download_name
from nrf.entrypoints.api.representations import HTML

LINK_LIMIT = 8 * 1024 * 1024  # bytes of one format, before base64


def _size(n: int) -> str:
    return f"{n:,} bytes" if n < 10_240 else f"{n / 1024:,.0f} KB"


def download_links(
    input_name: str | None, render: Callable[[FormOutput], tuple[str, bytes]]
) -> str:
    """The section of links; ``render(output)`` gives (Content-Type, body) as the API does."""
    items = []
    for output in OUTPUTS:
        if output.media_type == HTML:
            continue  # the page itself
        content_type, body = render(output)
        name = download_name(input_name, output)
        if len(body) > LINK_LIMIT:
            items.append(
                f"<li>{escape(output.label)}: {_size(len(body))}, too large to put in this page;"
                " choose it under “Answer with” in the form.</li>"
            )
            continue
        uri = f"data:{content_type.replace(' ', '')};base64,{base64.b64encode(body).decode()}"
        items.append(
            f'<li><a href="{uri}" download="{escape(name)}">{escape(output.label)}</a>: '
            f"<code>{escape(name)}</code>, {_size(len(body))}</li>"
        )
    return (
        '<section class="downloads" aria-labelledby="downloads">'
        '<h2 id="downloads">This quote as files</h2>'
        f"<ul>{''.join(items)}</ul></section>"
    )
