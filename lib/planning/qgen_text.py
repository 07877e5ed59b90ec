"""QGEN's two tasks as text: what the model reads and writes, shared by its training (`lib.planning.qgen_training`),
its inference (`lib.planning.qgen`) and multi-hop pursuit (`lib.planning.pursuit`).

- `plan: <claim>` -> all its gold questions ("q1? q2? q3?"): the QGEN planner (all questions at once);
- `next: <claim> || <q1> <a1> || ...` -> the next gold question, or `verdict: <label>` after the last
  pair: the question generator of multi-hop pursuit (Papelo's Seq+Seq), which stops when it writes a
  verdict.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lib.data.labels import match_label, said_verdict
from lib.paths import OUTPUTS_DIR

MODEL_DIR = OUTPUTS_DIR / "models" / "qgen"  # the trained model (stage `qgen`)
SEP = " || "
VERDICT = "verdict:"


def as_question(text: str) -> str:
    q = " ".join(text.split()).rstrip(" .")
    return q if q.endswith("?") else q + "?"


def plan_source(claim: str) -> str:
    return "plan: " + " ".join(claim.split())


def plan_target(questions: Sequence[str]) -> str:
    return " ".join(as_question(q) for q in questions)


def next_source(claim: str, pairs: Sequence[tuple[str, str]], history_pairs: int = 4, answer_words: int = 30) -> str:
    """The claim and the most recent QA pairs (answers cut to `answer_words` words)."""
    shown = (
        [f"{as_question(q)} {' '.join(a.split()[:answer_words])}" for q, a in pairs[-history_pairs:]]
        if history_pairs
        else []
    )
    return SEP.join(["next: " + " ".join(claim.split()), *shown])


def verdict_target(label: str) -> str:
    return f"{VERDICT} {label}"


def split_questions(text: str) -> list[str]:
    """Generated text -> distinct questions (split after each '?'; a tail without one is dropped)."""
    out, seen = [], set()
    for q in re.findall(r"(?:(?<=\?)|^)[^?]*\?", text):  # tried only where a question can start: linear
        q = " ".join(q.split()).replace(" ?", "?")
        if len(q) > 1 and q.lower() not in seen:
            seen.add(q.lower())
            out.append(q)
    return out


def plan_questions(outputs: Sequence[str], max_questions: int) -> list[str]:
    """A claim's plan from its beam outputs (best first): the distinct questions of the best output that
    holds a question; when none does, the first non-empty output as a question. Empty only when every
    output is empty, so a QGEN plan is never empty for want of a question mark."""
    for text in outputs:
        qs = split_questions(text)
        if qs:
            return qs[:max_questions]
    first = next((t for t in outputs if t.strip() and t.strip(" ?")), None)
    return [as_question(first)] if first else []


def parse_next(text: str) -> tuple[str, str]:
    """("verdict", label) when the model wrote a verdict (`lib.data.labels.match_label`; the text itself when it
    names no label), else ("question", its first question)."""
    t = " ".join(text.split())
    said = said_verdict(t)
    if said is not None:
        return "verdict", match_label(said) or said
    qs = split_questions(t)
    return "question", qs[0] if qs else as_question(t) if t else ""
