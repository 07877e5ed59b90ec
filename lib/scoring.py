"""The AVeriTeC score: Hungarian METEOR over question-answer evidence, gated verdict accuracy.

Same semantics as the organisers' evaluation script (`eval.py`, `utils.py` in MichSchli/AVeriTeC):
- pair score = NLTK METEOR, `single_meteor_score(word_tokenize(reference), word_tokenize(candidate))`;
- Q-only: the first 10 predicted questions against all gold questions; Q+A: the first 10 predicted
  "question answer" strings (one per answer) against all gold ones. A Boolean answer appends ". " + its
  explanation; a question without answers gets " No answer could be found.". A prediction without
  questions uses its string evidence for both;
- the Hungarian assignment maximising the summed pair scores (`scipy.optimize.linear_sum_assignment`),
  divided by the number of gold strings;
- AVeriTeC score at level l: the share of claims whose label is right and whose Q+A score is > l;
- accuracy, per-label and macro F1 over the four verdicts (scikit-learn, as the organisers);
- per claim type: the organisers report the Q+A score zeroed at or below a threshold (`type_qa`);
  this module also gives the AVeriTeC score per type (`type_averitec`).

Faster than the organisers' script, same numbers: each string is tokenised once, each (candidate,
reference) pair is scored once, WordNet synonyms and Porter stems are memoised per word, and claims are
spread over worker processes (`jobs`).

Predictions come in the official format (a list aligned with the references: `label` plus `questions`
with `answers`, or `string_evidence`) or the 2024 shared-task format (`claim_id`, `evidence` of
{question, answer, url}, `pred_label`), detected per file. Labels are normalised with
`lib.data.normalise_label`; anything outside the four verdicts is an error naming the record.
"""
from __future__ import annotations

import argparse
import functools
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from lib import data as D

VERDICTS = D.AVERITEC_LABELS  # the organisers' order: Supported, Refuted, NEE, Conflicting
LEVELS = (0.1, 0.2, 0.25, 0.3, 0.4, 0.5)
MAX_QUESTIONS = 10
NO_ANSWER = " No answer could be found."


@dataclass(frozen=True)
class Evidence:
    """One side of the comparison for one claim: its label and evidence strings."""

    label: str | None
    questions: tuple[str, ...]   # used by Q-only when `has_questions`
    strings: tuple[str, ...]     # "question answer" strings, then any string evidence
    has_questions: bool = True
    claim_types: tuple[str, ...] = ()


def qa_string(question: str, answer: str, answer_type: str | None = None, explanation: str | None = None) -> str:
    """The comparison string of one answer: "question answer" (+ ". explanation" for a Boolean answer)."""
    s = question + " " + answer
    if answer_type == "Boolean":
        s += ". " + (explanation or "")
    return s


def reference_evidence(claim: D.Claim) -> Evidence:
    """The gold side from a loaded AVeriTeC claim."""
    strings: list[str] = []
    for q in claim.questions:
        strings.extend(qa_string(q.text, a.text, a.answer_type, a.boolean_explanation) for a in q.answers)
        if not q.answers:
            strings.append(q.text + NO_ANSWER)
    return Evidence(claim.label, tuple(q.text for q in claim.questions), tuple(strings), True, claim.claim_types)


def _official(path: Path, record: int, raw: Any) -> Evidence:
    """One prediction in the official format."""
    if not isinstance(raw, dict):
        raise D.DataError(path, record, None, "expected a prediction object")
    try:
        label = D.normalise_label(raw["label"]) if "label" in raw else None
    except ValueError:
        raise D.DataError(path, record, "label", f"{raw['label']!r} is not one of the four verdicts") from None
    questions, strings = [], []
    has_questions = "questions" in raw
    for qi, q in enumerate(raw.get("questions") or []):
        if not isinstance(q, dict) or not isinstance(q.get("question"), str):
            raise D.DataError(path, record, f"questions[{qi}].question", "missing or not a string")
        answers = q.get("answers", [])
        answers = answers if isinstance(answers, list) else [answers]
        questions.append(q["question"])
        for ai, a in enumerate(answers):
            if not isinstance(a, dict) or not isinstance(a.get("answer"), str):
                raise D.DataError(path, record, f"questions[{qi}].answers[{ai}].answer", "missing or not a string")
            strings.append(qa_string(q["question"], a["answer"], a.get("answer_type"), a.get("boolean_explanation")))
        if not answers:
            strings.append(q["question"] + NO_ANSWER)
    string_evidence = raw.get("string_evidence") or []
    if not isinstance(string_evidence, list) or not all(isinstance(s, str) for s in string_evidence):
        raise D.DataError(path, record, "string_evidence", "expected a list of strings")
    strings.extend(string_evidence)
    return Evidence(label, tuple(questions), tuple(strings), has_questions)


def from_system_output(out: D.SystemOutput) -> Evidence:
    """A 2024-format prediction (`lib.data.load_system_output`): one "question answer" string per pair."""
    qa = [(e.question, e.text) for e in out.evidence if e.question is not None]
    strings = [qa_string(q, a) for q, a in qa] if qa else [e.text for e in out.evidence]
    return Evidence(out.pred_label, tuple(q for q, _ in qa), tuple(strings), bool(qa))


def load_predictions(path: Path | str, references: Sequence[D.Claim]) -> list[Evidence]:
    """Predictions aligned with `references`, from either format (see the module docstring)."""
    path = Path(path)
    rows = D.read_json_records(path)
    if not rows:
        raise D.DataError(path, None, None, "no predictions")
    first = rows[0][1]
    if isinstance(first, dict) and ("pred_label" in first or "evidence" in first):
        outputs = D.load_system_output(path)
        by_id = {o.claim_id: o for o in outputs}
        missing = [c.claim_id for c in references if c.claim_id not in by_id]
        if missing:
            raise D.DataError(path, None, "claim_id", f"no prediction for {len(missing)} reference claims "
                              f"(first: {missing[:5]})")
        preds = [from_system_output(by_id[c.claim_id]) for c in references]
    else:
        if len(rows) != len(references):
            raise D.DataError(path, None, None, f"{len(rows)} predictions for {len(references)} references "
                              "(the official format is aligned by position)")
        preds = [_official(path, r, raw) for r, raw in rows]
    return preds


# --------------------------------------------------------------------------- METEOR and the assignment


class _Memo:
    """Wraps an object so that one method's results are memoised (METEOR calls WordNet's `synsets` and
    the Porter stemmer's `stem` again for every pair; both are pure functions of the word)."""

    def __init__(self, obj: Any, method: str):
        setattr(self, method, functools.lru_cache(maxsize=None)(getattr(obj, method)))


class Meteor:
    """METEOR pair scores with tokenisation, stem, synonym and pair memoisation (state: the caches).

    Identical to `single_meteor_score(word_tokenize(reference), word_tokenize(candidate))`: NLTK's METEOR
    takes the WordNet reader and the stemmer as arguments, and gets memoising wrappers of the same ones."""

    def __init__(self):
        from nltk import word_tokenize
        from nltk.corpus import wordnet
        from nltk.stem.porter import PorterStemmer
        from nltk.translate.meteor_score import single_meteor_score

        from lib.resources import use_nltk_data

        use_nltk_data()
        wn, stemmer = _Memo(wordnet, "synsets"), _Memo(PorterStemmer(), "stem")
        self._tokenize = word_tokenize
        self._meteor = functools.partial(single_meteor_score, wordnet=wn, stemmer=stemmer)
        self.tokens: dict[str, list[str]] = {}
        self.pairs: dict[tuple[str, str], float] = {}

    def tok(self, s: str) -> list[str]:
        if s not in self.tokens:
            self.tokens[s] = self._tokenize(s)
        return self.tokens[s]

    def score(self, candidate: str, reference: str) -> float:
        key = (candidate, reference)
        if key not in self.pairs:
            self.pairs[key] = self._meteor(self.tok(reference), self.tok(candidate))
        return self.pairs[key]

    def matrix(self, candidates: Sequence[str], references: Sequence[str]) -> np.ndarray:
        m = np.empty((len(candidates), len(references)))
        for i, c in enumerate(candidates):
            for j, r in enumerate(references):
                m[i, j] = self.score(c, r)
        return m


def hungarian(scores: np.ndarray, n_reference: int) -> float:
    """Maximum-weight assignment of candidates to references, summed, divided by the reference count."""
    from scipy.optimize import linear_sum_assignment

    if scores.size == 0 or n_reference == 0:
        return 0.0
    rows, cols = linear_sum_assignment(scores, maximize=True)
    return float(scores[rows, cols].sum() / n_reference)


def claim_scores(pred: Evidence, ref: Evidence, meteor: Meteor) -> tuple[float, float]:
    """(Q-only, Q+A) Hungarian METEOR of one claim."""
    q_pred = list(pred.questions if pred.has_questions else pred.strings)[:MAX_QUESTIONS]
    q_only = hungarian(meteor.matrix(q_pred, ref.questions), len(ref.questions))
    qa = hungarian(meteor.matrix(list(pred.strings)[:MAX_QUESTIONS], ref.strings), len(ref.strings))
    return q_only, qa


_PAIRS: list[tuple[Evidence, Evidence]] = []


def _own_wordnet_files() -> None:
    """Forked workers must not share WordNet's open data files: the file offset is shared between
    processes, so concurrent seek-and-read returns the wrong synsets. Each worker reopens them."""
    from nltk.corpus import wordnet

    files = getattr(wordnet, "_data_file_map", None)
    if isinstance(files, dict):
        files.clear()


def _score_chunk(bounds: tuple[int, int]) -> list[tuple[float, float]]:
    meteor = Meteor()
    return [claim_scores(p, r, meteor) for p, r in _PAIRS[bounds[0]:bounds[1]]]


def evidence_scores(preds: Sequence[Evidence], refs: Sequence[Evidence], jobs: int = 1) -> np.ndarray:
    """(claims x 2) array of Q-only and Q+A scores; `jobs` > 1 splits the claims over forked processes."""
    global _PAIRS
    if len(preds) != len(refs):
        raise ValueError(f"{len(preds)} predictions for {len(refs)} references")
    if jobs <= 1 or len(preds) < 2 * jobs:
        meteor = Meteor()
        return np.array([claim_scores(p, r, meteor) for p, r in zip(preds, refs)]).reshape(-1, 2)
    import multiprocessing as mp

    from nltk.corpus import wordnet

    Meteor()  # puts nltk_data on the path before forking
    wordnet.ensure_loaded()  # load WordNet once, before forking
    _PAIRS = list(zip(preds, refs))
    edges = np.linspace(0, len(preds), jobs * 4 + 1).astype(int)
    try:
        with mp.get_context("fork").Pool(jobs, initializer=_own_wordnet_files) as pool:
            parts = pool.map(_score_chunk, list(zip(edges[:-1], edges[1:])))
    finally:
        _PAIRS = []
    return np.array([s for part in parts for s in part]).reshape(-1, 2)


# --------------------------------------------------------------------------- the score


def per_claim(preds: Sequence[Evidence], refs: Sequence[Evidence], claim_ids: Sequence[int] | None = None,
              jobs: int = 1) -> pd.DataFrame:
    """One row per claim: q_only, qa, label, pred_label, correct, claim_types."""
    s = evidence_scores(preds, refs, jobs)
    return pd.DataFrame({"claim_id": list(claim_ids) if claim_ids is not None else list(range(len(refs))),
                         "q_only": s[:, 0], "qa": s[:, 1], "label": [r.label for r in refs],
                         "pred_label": [p.label for p in preds],
                         "correct": [p.label == r.label for p, r in zip(preds, refs)],
                         "claim_types": [r.claim_types for r in refs]})


def summarise(table: pd.DataFrame, levels: Iterable[float] = LEVELS) -> dict[str, Any]:
    """The organisers' numbers from a `per_claim` table."""
    from sklearn.metrics import f1_score

    gold = table["label"].tolist()
    pred = [p if p is not None else "" for p in table["pred_label"]]
    f1 = f1_score(gold, pred, labels=list(VERDICTS), average=None, zero_division=0)
    out = {"claims": len(table), "q_only": float(table["q_only"].mean()), "qa": float(table["qa"].mean()),
           "accuracy": float(table["correct"].mean()),
           "macro_f1": float(f1_score(gold, pred, labels=list(VERDICTS), average="macro", zero_division=0)),
           "f1": {v: float(x) for v, x in zip(VERDICTS, f1)},
           "averitec": {f"{level:g}": float(((table["qa"] > level) & table["correct"]).mean()) for level in levels}}
    types = table.explode("claim_types").dropna(subset=["claim_types"])
    if not types.empty:
        out["type_averitec@0.25"] = {t: float(((g["qa"] > 0.25) & g["correct"]).mean())
                                     for t, g in types.groupby("claim_types")}
        for t in (0.2, 0.3):
            out[f"type_qa@{t:g}"] = {k: float(np.where(g["qa"] > t, g["qa"], 0.0).mean())
                                     for k, g in types.groupby("claim_types")}
    return out


def score_file(predictions: Path | str, references: Path | str, jobs: int = 1) -> tuple[dict[str, Any], pd.DataFrame]:
    """Score a prediction file against an AVeriTeC reference file: (summary, per-claim table)."""
    claims = D.load_averitec("dev", references)
    preds = load_predictions(predictions, claims)
    table = per_claim(preds, [reference_evidence(c) for c in claims], [c.claim_id for c in claims], jobs)
    return summarise(table), table


def main(argv: list[str] | None = None) -> None:
    """`python -m lib.scoring --predictions P --references R`: one JSON object on stdout."""
    ap = argparse.ArgumentParser(prog="python -m lib.scoring", description=main.__doc__)
    ap.add_argument("--predictions", required=True)
    ap.add_argument("--references", default=str(D.DATA_DIR / "averitec" / "dev.json"))
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--all", action="store_true", help="also print the per claim type scores")
    args = ap.parse_args(argv)
    try:
        summary, _ = score_file(args.predictions, args.references, args.jobs)
    except D.DataError as err:
        sys.exit(f"error: {err}")
    keys = ["q_only", "qa", "accuracy", "macro_f1", "f1", "averitec"]
    print(json.dumps(summary if args.all else {k: summary[k] for k in keys}, indent=2))


if __name__ == "__main__":
    main()
