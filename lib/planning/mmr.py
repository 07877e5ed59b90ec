"""The thesis' MMR filter for candidate queries: relevant to the claim and the justification, not redundant.

    s(q) = alpha * MMR(q, claim, lambda) + (1 - alpha) * MMR(q, justification, lambda);  keep q when s(q) > gamma

with alpha = 0.8, lambda = 0.4, gamma = 0.4 in the thesis and cosine similarities of a sentence encoder.
MMR (Carbonell and Goldstein 1998) is computed greedily: each step takes the candidate with the highest
s(q), whose redundancy term is its largest similarity to the queries already kept, counted from 0:

    MMR(q, ref, lambda) = w_rel * sim(q, ref) - w_div * max(0, max_{k in kept} sim(q, k))   (0 for the first pick)

The floor at 0 is this study's choice (Carbonell and Goldstein's max has none, and the thesis does not say):
a candidate unlike every kept query is not redundant, but neither is it more relevant for that. It decides
only where two candidates of a claim point apart (a negative cosine): on the study's MMR pool (dev, the
all-MiniLM-L6-v2 encoder, measured on 2026-11-29 against the unfloored max) it changed what 10 of 500 claims
keep under the `relevance` reading at gamma = 0 in notebook 06's sweep, and nothing under the default.

Which weight lambda is differs between write-ups, and with cosine similarities it decides whether
gamma = 0.4 can be reached at all, so it is a parameter:
- `lambda_weights: relevance` (Carbonell and Goldstein): w_rel = lambda, w_div = 1 - lambda. With
  lambda = 0.4, s(q) <= 0.4 always, so gamma = 0.4 keeps nothing.
- `lambda_weights: diversity` (KeyBERT's `diversity`): w_rel = 1 - lambda, w_div = lambda. With the
  thesis' numbers a query must reach a weighted similarity above 2/3 before any redundancy penalty.
The default is `diversity`, the reading under which the thesis' numbers keep queries; notebook 06 shows
how many candidates each reading keeps.

Scores only fall as queries are kept (the redundancy term, floored at 0, never shrinks), so stopping at
the first best candidate with s(q) <= gamma is exact. The filter needs no LLM: it runs on any candidate pool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

import numpy as np
from pydantic import Field

from lib.params import Section, Share

# --------------------------------------------------------------------------- params


class MMRSection(Section):
    alpha: Share
    lam: Share
    gamma: Annotated[float, Field(ge=-1, le=1)]
    lambda_weights: Literal["relevance", "diversity"]


LAMBDA_WEIGHTS = ("relevance", "diversity")


@dataclass(frozen=True)
class MMRParams:
    alpha: float = 0.8
    lam: float = 0.4
    gamma: float = 0.4
    lambda_weights: str = "diversity"

    def __post_init__(self):
        if self.lambda_weights not in LAMBDA_WEIGHTS:
            raise ValueError(f"lambda_weights must be one of {LAMBDA_WEIGHTS}, got {self.lambda_weights!r}")
        if not 0.0 <= self.alpha <= 1.0 or not 0.0 <= self.lam <= 1.0:
            raise ValueError(f"alpha and lam must lie in [0, 1], got {self.alpha}, {self.lam}")
        if not -1.0 <= self.gamma <= 1.0:  # as the params section checks it (NaN included)
            raise ValueError(f"gamma must lie in [-1, 1] (a threshold on a weighted cosine), got {self.gamma}")

    @property
    def weights(self) -> tuple[float, float]:
        """(w_rel, w_div)."""
        return (self.lam, 1 - self.lam) if self.lambda_weights == "relevance" else (1 - self.lam, self.lam)


def mmr_filter(
    queries: np.ndarray, claim: np.ndarray, justification: np.ndarray | None = None, params: MMRParams = MMRParams()
) -> tuple[list[int], list[float]]:
    """Indices of the kept candidates in selection order, and their s(q) when picked.

    `queries` (n x d), `claim` and `justification` (d) are L2-normalised embeddings. Without a
    justification (None) s(q) is MMR(q, claim) alone (alpha = 1). Ties go to the earlier candidate."""
    queries = np.asarray(queries, dtype=np.float64)
    if len(queries) == 0:
        return [], []
    for what, vectors in (("candidate query", queries), ("claim", claim), ("justification", justification)):
        if vectors is not None and not np.isfinite(vectors).all():  # argmax took a NaN candidate and kept nothing
            at = f" {int(np.argwhere(~np.isfinite(queries))[0][0])}" if what == "candidate query" else ""
            raise ValueError(f"MMR: the {what}{at} has an embedding that is not finite (NaN or inf)")
    w_rel, w_div = params.weights
    alpha = params.alpha if justification is not None else 1.0
    relevance = alpha * (queries @ np.asarray(claim, dtype=np.float64))
    if justification is not None:
        relevance = relevance + (1 - alpha) * (queries @ np.asarray(justification, dtype=np.float64))
    # alpha*(w_rel*sim_c - w_div*red) + (1-alpha)*(w_rel*sim_j - w_div*red) = w_rel*relevance - w_div*red
    pair = queries @ queries.T
    redundancy = np.zeros(len(queries))  # the floor at 0 (module docstring)
    open_ = np.ones(len(queries), dtype=bool)
    kept, scores = [], []
    while open_.any():
        s = np.where(open_, w_rel * relevance - w_div * redundancy, -np.inf)
        best = int(np.argmax(s))
        if not s[best] > params.gamma:
            break
        kept.append(best)
        scores.append(float(s[best]))
        open_[best] = False
        redundancy = np.maximum(redundancy, pair[best])
    return kept, scores
