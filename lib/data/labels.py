"""Label vocabularies of the datasets, and the one place label spellings are normalised."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any, Literal

import numpy as np

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
_QUANTEMP_ALIASES = {"true": "True", "false": "False", "conflicting": "Conflicting", "halftruefalse": "Conflicting"}


def normalise_label(label: Any, scheme: str = "averitec") -> str:
    """The canonical label of `scheme` (`averitec` or `quantemp`); `ValueError` if unknown."""
    aliases = {"averitec": _AVERITEC_ALIASES, "quantemp": _QUANTEMP_ALIASES}[scheme]
    if isinstance(label, str) and _key(label) in aliases:
        return aliases[_key(label)]
    raise ValueError(f"unknown {scheme} label {label!r} (expected one of {sorted(set(aliases.values()))})")


def exact_label(label: Any, scheme: str = "averitec") -> str:
    """`label` when it is one of `scheme`'s labels exactly as written; `ValueError` otherwise, naming the label
    it would normalise to. For files a scorer reads: the organisers compare labels as exact strings, so
    "refUTed!!" scores 0 there and must not score 1 here."""
    labels = {"averitec": AVERITEC_LABELS, "quantemp": QUANTEMP_LABELS}[scheme]
    if isinstance(label, str) and label in labels:
        return label
    raise ValueError(f"unknown {scheme} label {label!r} (expected one of {list(labels)}){spelling_hint(label, scheme)}")


def spelling_hint(label: Any, scheme: str = "averitec") -> str:
    """ "; write it as 'Refuted' ..." for a label that is another spelling of one of `scheme`'s, else ""."""
    try:
        return f"; write it as {normalise_label(label, scheme)!r} (labels are compared as exact strings)"
    except ValueError:
        return ""


# --------------------------------------------------------------------------- label sets of the classifiers

# The AVeriTeC reductions. 3-way: Not Enough Evidence and Conflicting Evidence/Cherrypicking become one
# "not verifiable either way" class (the FEVER-style SUPPORTS / REFUTES / NOT ENOUGH INFO).
# 2-way: Papelo's "reducing the problem to two classes": the classifier only ever says Supported or
# Refuted; claims whose gold is neither cannot be answered correctly, and are left out of its training.
OTHER = "Not Enough Evidence/Conflicting"
LABEL_SETS: dict[str, tuple[str, ...]] = {
    "averitec4": AVERITEC_LABELS,
    "averitec3": ("Supported", "Refuted", OTHER),
    "averitec2": ("Supported", "Refuted"),
    "quantemp3": QUANTEMP_LABELS,
}
AveritecLabelSet = Literal["averitec4", "averitec3", "averitec2"]  # the AVeriTeC verifier's choices
_REDUCE = {"Not Enough Evidence": OTHER, "Conflicting Evidence/Cherrypicking": OTHER}


def map_label(label: str, label_set: str) -> str | None:
    """`label` in `label_set`; None where the set has no such class (2-way: NEE and Conflicting)."""
    if label_set not in LABEL_SETS:
        raise ValueError(f"unknown label set {label_set!r} (available: {sorted(LABEL_SETS)})")
    labels = LABEL_SETS[label_set]
    if label in labels:
        return label
    if label_set == "averitec3" and label in _REDUCE:
        return _REDUCE[label]
    if label_set == "averitec2" and (label in _REDUCE or label == OTHER):  # a 3-way classifier read in 2 ways
        return None
    raise ValueError(f"label {label!r} does not belong to label set {label_set!r} {labels}")


def collapse(probs: np.ndarray, source: str, target: str) -> np.ndarray:
    """Class probabilities of a `source` classifier read in the coarser `target` set: probabilities of
    the classes that merge are summed; classes the target lacks (2-way) are dropped and the rest
    renormalised, so the argmax is the best class the target allows."""
    src, tgt = LABEL_SETS[source], LABEL_SETS[target]
    out = np.zeros((len(probs), len(tgt)))
    for i, label in enumerate(src):
        mapped = map_label(label, target) if label not in tgt else label
        if mapped is not None:
            out[:, tgt.index(mapped)] += probs[:, i]
    return out / np.clip(out.sum(axis=1, keepdims=True), 1e-12, None)


# --------------------------------------------------------------------------- verdicts written as text

# `verdict:` where a sentence starts (the text's start, after . ! ? ; a bracket or a line break), as QGEN is
# trained to write it: anywhere, "what was the court verdict: refuted or upheld?" was a stop with a verdict
_VERDICT = re.compile(r"(?:^|(?<=[.!?;(\[\n]))\s*(?:final\s+)?verdict\s*[:\-]\s*", re.IGNORECASE)


def said_verdict(text: str) -> str | None:
    """What follows `verdict:` (or `verdict -`) at a sentence's start in a generated text; None when the text
    gives no verdict. Decoded BERT text spaces its punctuation ("verdict : refuted"), so spaces around the
    colon are allowed."""
    m = _VERDICT.search(text)
    return " ".join(text[m.end() :].split()) if m else None


def match_label(said: str, labels: tuple[str, ...] | list[str] = AVERITEC_LABELS) -> str | None:
    """The label of `labels` that `said` starts with, compared on letters only ("conflicting evidence /
    cherrypicking", "Refuted." and "refuted, because" all match); the longest label wins; None if none."""
    key = _key(said)
    for label in sorted(labels, key=len, reverse=True):
        if key.startswith(_key(label)):
            return label
    return None


def majority_label(items: Iterable[Any]) -> str:
    """The most frequent `.label` of the items (claims); ties: alphabetical first."""
    counts = Counter(x.label for x in items)
    return min(counts, key=lambda label: (-counts[label], label))
