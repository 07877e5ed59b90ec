"""Label vocabularies of the datasets, and the one place label spellings are normalised."""
from __future__ import annotations

import re
from typing import Any

# --------------------------------------------------------------------------- labels and dates

AVERITEC_LABELS = ("Supported", "Refuted", "Not Enough Evidence", "Conflicting Evidence/Cherrypicking")
QUANTEMP_LABELS = ("True", "False", "Conflicting")
CLAIMDECOMP_LABELS = ("pants-fire", "false", "barely-true", "half-true", "mostly-true", "true")
CLIMATE_FEVER_LABELS = ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO", "DISPUTED")


def _key(label: str) -> str:
    return re.sub(r"[^a-z]", "", label.lower())


_AVERITEC_ALIASES = {_key(x): x for x in AVERITEC_LABELS} | {
    "conflictingevidencecherrypicking": "Conflicting Evidence/Cherrypicking",
    "conflicting": "Conflicting Evidence/Cherrypicking",
    "notenoughinfo": "Not Enough Evidence",
}
# QuanTemp's three classes; "Half True/False" is the published name of Conflicting.
_QUANTEMP_ALIASES = {"true": "True", "false": "False", "conflicting": "Conflicting",
                     "halftruefalse": "Conflicting"}


def normalise_label(label: Any, scheme: str = "averitec") -> str:
    """The canonical label of `scheme` (`averitec` or `quantemp`); `ValueError` if unknown."""
    aliases = {"averitec": _AVERITEC_ALIASES, "quantemp": _QUANTEMP_ALIASES}[scheme]
    if isinstance(label, str) and _key(label) in aliases:
        return aliases[_key(label)]
    raise ValueError(f"unknown {scheme} label {label!r} (expected one of {sorted(set(aliases.values()))})")

