"""Prompted query planners (they need an LLM endpoint, `lib.planning.llm`) and the thesis' AGQ oracle-query generator.

- CLAIMDECOMP (`claimdecomp`): yes/no sub-questions in the style of ClaimDecomp (Chen et al. 2022); the
  in-context examples are the human decompositions of `data/claimdecomp/dev.jsonl` nearest to the claim by
  embedding similarity; temperature 0.1, as in the thesis.
- PGMFC (`pgmfc`): a ProgramFC-style reasoning program (Pan et al. 2023); the strings of its `Verify` and
  `Question` steps become the queries.
- ALL-AT-ONCE (`all_at_once`): Papelo's prompt: the questions that would help verify the claim, as a
  JSON list (the ablation of multi-hop pursuit).
- AGQ (`agq`): the thesis' oracle-query generator: claim, claim date and the fact-checker's justification
  in the prompt, then the MMR filter (`lib.planning.mmr`). It sees the verdict's reasoning, so it is an oracle.

Papelo's next-question step (`next_messages`, `parse_next`) serves the LLM variants of `lib.planning.pursuit`.
The prompts are this study's own wording of the published ideas.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, get_args

import numpy as np

from lib.data import averitec, claimdecomp, quantemp
from lib.data.labels import AVERITEC_LABELS
from lib.planning.llm import LLM, Messages, first_question, json_values, parse_list

Prompted = Literal["claimdecomp", "pgmfc", "all_at_once", "agq"]
PROMPTED: tuple[str, ...] = get_args(Prompted)
TEMPERATURE = {"claimdecomp": 0.1}  # the thesis' setting; the others use llm.temperature

SYSTEM = "You help professional fact-checkers plan their research. Answer exactly in the format asked for."


def _user(text: str) -> Messages:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]


def _when(claim: averitec.Claim) -> str:
    return claim.claim_date.isoformat() if claim.claim_date else "unknown"


# --------------------------------------------------------------------------- CLAIMDECOMP


def decomposition_examples(claims: Sequence[claimdecomp.ClaimDecompClaim]) -> list[tuple[str, list[str]]]:
    """(claim, questions) from the first human annotation of each ClaimDecomp claim that has one."""
    out = []
    for c in claims:
        for ann in c.annotations:
            qs = [" ".join(q.split()) for q in ann.questions if q.strip()]
            if qs:
                out.append((" ".join(c.text.split()), qs))
                break
    return out


def nearest(claim_emb: np.ndarray, example_emb: np.ndarray, k: int) -> list[int]:
    """Indices of the k most similar examples (cosine of normalised embeddings), ties to the lower index."""
    sims = example_emb @ claim_emb
    return sorted(range(len(sims)), key=lambda i: (-float(sims[i]), i))[:k]


def claimdecomp_messages(claim: averitec.Claim, examples: Sequence[tuple[str, list[str]]]) -> Messages:
    shots = "\n\n".join(f"Claim: {text}\nQuestions: {json_list(qs)}" for text, qs in examples)
    return _user(
        "Decompose the claim into yes/no questions whose answers decide whether it is true, as fact-checkers "
        "do: cover what is stated explicitly and what is implied. Reply with a JSON list of questions.\n\n"
        f"{shots}\n\nClaim: {claim.text}\nQuestions:"
    )


def json_list(items: Sequence[str]) -> str:

    return json.dumps(list(items), ensure_ascii=False)


# --------------------------------------------------------------------------- PGMFC

_PROGRAM_EXAMPLE = """Claim: The city that hosted the 2012 Summer Olympics has more than 10 million inhabitants.
def program():
    answer_1 = Question("Which city hosted the 2012 Summer Olympics?")
    fact_1 = Verify(f"{answer_1} has more than 10 million inhabitants.")
    label = Predict(fact_1)

Claim: A vaccine approved in 2021 was tested on fewer than 1,000 people and was withdrawn a year later.
def program():
    fact_1 = Verify("A vaccine approved in 2021 was tested on fewer than 1,000 people.")
    fact_2 = Verify("The vaccine was withdrawn a year after its approval.")
    label = Predict(fact_1 and fact_2)"""

_STEP = re.compile(r"\b(?:Verify|Question)\(\s*f?(?P<q>\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')\s*\)")


def pgmfc_messages(claim: averitec.Claim) -> Messages:
    return _user(
        "Write a Python-like program of reasoning steps that verifies the claim: Question(...) asks for a "
        "fact, Verify(...) checks a simple statement, Predict(...) combines them. Earlier answers may be "
        "used as {answer_n}.\n\n"
        f"{_PROGRAM_EXAMPLE}\n\nClaim: {claim.text}\ndef program():"
    )


def program_queries(text: str | None) -> list[str]:
    """The strings of a program's Question/Verify steps, with {answer_n} placeholders removed."""
    out = []
    for m in _STEP.finditer(text or ""):
        q = m.group("q")[1:-1]
        q = re.sub(r"\{[^{}]*\}", " ", q)
        q = " ".join(q.split())
        if q:
            out.append(q)
    return out


# --------------------------------------------------------------------------- ALL-AT-ONCE, AGQ


def all_at_once_messages(claim: averitec.Claim) -> Messages:
    return _user(
        f"Claim (made on {_when(claim)}): {claim.text}\n\n"
        "Which questions would help verify this claim? Reply with a JSON list of questions only."
    )


def agq_messages(claim: averitec.Claim) -> Messages:
    return _user(
        "A fact-checker verified the claim below and wrote the justification. Write the search queries, as "
        "questions, that find the evidence the justification relies on. Reply with a JSON list.\n\n"
        f"Claim: {claim.text}\nClaim date: {_when(claim)}\nJustification: {claim.justification}"
    )


# --------------------------------------------------------------------------- Papelo's next step


def first_messages(claim: averitec.Claim) -> Messages:
    return _user(
        f"Claim (made on {_when(claim)}): {claim.text}\n\n"
        "What is the first question you would search for to verify this claim? Reply with one question."
    )


def next_messages(
    claim: averitec.Claim, pairs: Sequence[tuple[str, str]], verdicts: Sequence[str] = AVERITEC_LABELS
) -> Messages:
    history = "\n".join(f"Q{i}: {q}\nA{i}: {a}" for i, (q, a) in enumerate(pairs, start=1))
    return _user(
        f"Claim (made on {_when(claim)}): {claim.text}\n\nQuestions asked so far and the answers found:\n"
        f"{history}\n\nIf the answers suffice, reply 'Verdict: <label>' with one of: {', '.join(verdicts)}. "
        "Otherwise reply with the one next question to search for."
    )


def _labels_said(said: str, verdicts: Sequence[str]) -> list[str]:
    """The label a verdict's text starts with (longest first; `Conflicting Evidence` for the cherrypicking one)."""
    said = said.strip().lower()
    return [
        v for v in sorted(verdicts, key=len, reverse=True) if said.startswith((v.lower(), v.split("/")[0].lower()))
    ][:1]


def parse_next(text: str | None, verdicts: Sequence[str] = AVERITEC_LABELS) -> tuple[str, str] | None:
    """("verdict", label) when the reply gives a verdict, ("question", q) for a question, None otherwise."""
    if not text:
        return None
    for value in json_values(text):  # `{"verdict": "Refuted"}` was no verdict, `{"next_question": ...}` a query of JSON
        if isinstance(value, dict):
            said = value.get("verdict")
            if isinstance(said, str) and (label := next(iter(_labels_said(said, verdicts)), None)):
                return "verdict", label
            # no label said ("", "undecided", null): the reply's question, as the text form reads it; the
            # next question of `{"verdict": "", "next_question": ...}` was dropped and the pursuit got nothing
            q = next((value[k] for k in ("next_question", "question", "query") if isinstance(value.get(k), str)), None)
            if q:
                return "question", q.strip()
    # at a line's start, as the prompt asks ('Verdict: <label>'): anywhere, "Was the verdict - refuted in
    # appeal - final?" was read as a stop with the verdict Refuted
    m = re.search(r"^[^\S\n]*(?:final[^\S\n]+)?verdict[^\S\n]*[:\-][^\S\n]*(.+)", text, re.IGNORECASE | re.MULTILINE)
    if m:
        for v in _labels_said(m.group(1), verdicts):
            return "verdict", v
    q = first_question(text)
    return ("question", q) if q else None


# --------------------------------------------------------------------------- planners


def messages_for(kind: str, claim: averitec.Claim, examples: Sequence[tuple[str, list[str]]] = ()) -> Messages:
    if kind == "claimdecomp":
        return claimdecomp_messages(claim, examples)
    if kind == "pgmfc":
        return pgmfc_messages(claim)
    if kind == "all_at_once":
        return all_at_once_messages(claim)
    if kind == "agq":
        return agq_messages(claim)
    raise ValueError(f"unknown prompted planner {kind!r} (expected one of {PROMPTED})")


def parse_for(kind: str, text: str | None) -> list[str]:
    return program_queries(text) if kind == "pgmfc" else parse_list(text)


def prompted_plan(
    llm: LLM,
    kind: str,
    claims: Sequence[averitec.Claim],
    examples_for: Callable[[averitec.Claim], Sequence[tuple[str, list[str]]]] | None = None,
    progress: bool = True,
) -> tuple[dict[int, list[str]], dict[str, Any]]:
    """One prompted planner over the claims: the plan (AGQ before its MMR filter) and counts of answers
    that failed (no answer after retries) or parsed to no query."""
    batch = [messages_for(kind, c, examples_for(c) if examples_for else ()) for c in claims]
    extra = {"temperature": TEMPERATURE[kind]} if kind in TEMPERATURE else {}
    # a cached answer that parses to no query is asked again in a live run (an empty 200 was kept for good)
    usable = lambda text: bool(parse_for(kind, text))  # noqa: E731
    answers = llm.chat_many(batch, progress=progress, desc=f"llm {kind}", usable=usable, **extra)
    plan, failed, unparsed = {}, 0, 0
    for c, text in zip(claims, answers):
        queries = parse_for(kind, text)
        failed += text is None
        unparsed += text is not None and not queries
        plan[c.claim_id] = queries
    llm.counters.parse_failures += unparsed
    return plan, {"claims": len(claims), "failed": failed, "unparsed": unparsed}


def stats_of_decompositions(decomposed: Sequence[quantemp.DecomposedClaim]) -> Mapping[int, list[str]]:
    """The QuanTemp test claims' published ClaimDecomp questions as a plan (for plan statistics)."""
    return {i: list(d.questions) for i, d in enumerate(decomposed)}
