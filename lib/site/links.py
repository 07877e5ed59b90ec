"""Addresses of the evidence explorer's views, the one format its page and the notebooks share.

A view is a claim and, optionally, a planner, a retriever and a scope:
`explorer.html#claim=12&planner=oracle&retriever=bm25&scope=global`. The page (`lib.site.explorer`) reads
this fragment on load and writes it back when a reader chooses another view, so a view can be linked
("see claim 12 in the explorer") and bookmarked. The page lies beside the executed notebooks
(`outputs/notebooks/`) and beside the rendered reports (`reports/`), so the same relative link works in both.
"""

from __future__ import annotations

import html
from urllib.parse import parse_qsl, urlencode

EXPLORER_PAGE = "explorer.html"
FIELDS = ("claim", "planner", "retriever", "scope")


def explorer_url(
    claim_id: int, planner: str | None = None, retriever: str | None = None, scope: str | None = None
) -> str:
    """The relative address of one view; fields left as None take the page's defaults."""
    if isinstance(claim_id, bool) or not isinstance(claim_id, int) or claim_id < 0:
        raise ValueError(f"a claim id is a non-negative integer, got {claim_id!r}")
    values = dict(zip(FIELDS, (claim_id, planner, retriever, scope)))
    return f"{EXPLORER_PAGE}#" + urlencode({k: v for k, v in values.items() if v is not None})


def parse_fragment(fragment: str) -> dict[str, str]:
    """The view named by an address's fragment (with or without its `#`); unknown fields are an error."""
    pairs = dict(parse_qsl(fragment.lstrip("#"), keep_blank_values=False))
    unknown = sorted(set(pairs) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown explorer field(s) {', '.join(unknown)} (fields: {', '.join(FIELDS)})")
    return pairs


def explorer_link(claim_id: int, text: str | None = None, **view: str):
    """A notebook's "see claim N in the explorer" link (an HTML output, so it survives nbconvert)."""
    from IPython.display import HTML

    url = explorer_url(int(claim_id), **view)
    label = text or f"see claim {int(claim_id)} in the explorer"
    return HTML(f'<a href="{html.escape(url)}" target="_blank">{html.escape(label)}</a>')
