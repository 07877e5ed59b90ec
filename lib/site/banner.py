"""The banner that executed notebooks and report pages carry when their numbers are not the study's:
a smaller profile (params section `profile`) or another evidence store than the pooled one."""

from __future__ import annotations

import re
from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, model_validator

from lib.params import Section, Text, section
from lib.paths import PARAMS_FILE


class ProfileSection(Section):
    """Which settings the outputs come from: `study` (the committed params.yaml) or a smaller profile
    (`profiles/<name>.yaml`, run by `make all PROFILE=<name>` in `workspaces/<name>`), whose notebooks and
    report index carry `note` as a banner so nobody mistakes them for the study's figures."""

    name: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$")]
    note: Text | None = None

    @model_validator(mode="after")
    def _noted(self) -> ProfileSection:
        if self.name != "study" and not self.note:
            raise ValueError(f"profile {self.name!r} needs a note saying how it differs from the study")
        return self


# What the banner reads: every stage that runs a notebook declares these params (tests/test_notebooks.py).
BANNER_PARAMS = ("profile", "store.source", "store.knowledge_store")


def banner(profile: Mapping[str, Any], store: Mapping[str, Any] | None = None) -> str | None:
    """The warning that outputs of a smaller profile (params section `profile`) or of another evidence
    store than the pooled one (`store.source`) carry; None for the study on the pooled store."""
    parts = []
    if profile["name"] != "study":
        parts.append(
            f"**{profile['name'].replace('_', ' ').capitalize()} profile, not the study's figures.** {profile['note']} "
            "The study's numbers are in the repository's `outputs/metrics/`."
        )
    if store is not None and store["source"] != "pooled":
        ks = store["knowledge_store"]
        ends = (ks["first"], ks["last"])
        claims = (
            "every claim it holds"
            if ends == (None, None)
            else f"claims {0 if ks['first'] is None else ks['first']} to {'the last' if ks['last'] is None else ks['last']}"
            # `last: 0` is claim 0 (`or` read it as "to the last")
        )
        parts.append(
            f"**Evidence store: the knowledge store at `{ks['path']}`** ({ks['split']} {claims}, {ks['unit']} "
            "passages), not the published systems' pooled evidence: a claim's documents are the passages of "
            "its pages."
        )
    return " ".join(parts) or None


def params_banner(params: Path | str | None = None) -> str | None:
    """`banner` from a parameter file (default: params.yaml)."""
    path = PARAMS_FILE if params is None else params
    return banner(section("profile", path), section("store", path))


def inline_markdown(text: str) -> str:
    """Markdown's `code`, **bold**, *italics* and [links](url) as HTML, the rest escaped (one-line texts of the
    report pages: banners, questions, the course file)."""
    out = escape(text)
    out = re.sub(r"`(.+?)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", out)
    out = re.sub(r"\*(.+?)\*", r"<i>\1</i>", out)
    return re.sub(r"\[(.+?)\]\((.+?)\)", r'<a href="\2">\1</a>', out)


def banner_html(banner: str | None) -> str:
    if not banner:
        return ""
    return f'<p style="background:#fff3cd;border:1px solid #e0c060;padding:.7em">{inline_markdown(banner)}</p>\n'
