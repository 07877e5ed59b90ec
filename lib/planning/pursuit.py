"""Multi-hop evidence pursuit (Papelo, FEVER 2024, Algorithms 1 and 2).

    q1 = first(claim)
    for i in 1..n:  a_i = answer(q_i) from the store;  next = next(claim, (q1, a1) ... (q_i, a_i))
                    stop when `next` is a verdict (or repeats an asked question, or i = n)
    fill-up to n pairs with paraphrases of the asked questions (kept in the trace, flagged `fill_up`)

Question generators (`QuestionSource`):
- `seq`: the QGEN model's `next:` task (`lib.planning.qgen`): the first question from the claim alone, the next from
  the claim and the QA pairs so far; it stops by writing `verdict: <label>`. Paraphrases for the fill-up
  are its other beam outputs.
- `llm`: Papelo's prompts (`lib.planning.prompted.first_messages`, `next_messages`) through `lib.planning.llm`.
Variants: Seq+Seq (both `seq`), Seq+LLM, LLM+LLM. ALL-AT-ONCE is the ablation (QGEN's `plan:` task, or
the prompted ALL-AT-ONCE planner).

Fill-up (Papelo Tables 2 and 3): the trace keeps the pursued hops and, flagged `fill_up`, the paraphrase hops
that fill it up to n; `fill_up_variants` turns one pursuit into Papelo's ablations without asking again: no
fill-up, repeating the pursued pairs, the paraphrase fill-up (Papelo's Algorithm 1) and that inflated to 10 pairs.

Answers (`Answerer`, Papelo's GetAnswer): the claim and the question as the search query in the claim's pool
(BM25 by default), the best passage read with a window of its page. A pursuit is scored with these, its
own answers, so its QA pairs differ from those of its questions run as a static plan (`lib.averitec.evidence`:
the question alone, the best sentence). The verdict of the AVeriTeC predictions comes from the verdict
source of `lib.averitec.evidence`; the generator's own stop verdict is kept in the trace.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args

import numpy as np
import pandas as pd
from tqdm import tqdm

from lib.data import averitec
from lib.planning.llm import first_question
from lib.planning.prompted import first_messages, next_messages, parse_next
from lib.planning.qgen_text import parse_next as qgen_parse_next
from lib.retrieval import fusion as F
from lib.retrieval import retrievers as R

FillUp = Literal["none", "repeat", "paraphrase"]  # params generative.pursuit.fill_up
FILL_UP_VARIANT: dict[str, str] = {"none": "no_fill_up", "repeat": "repeat", "paraphrase": "paraphrase"}
Query = Literal["claim_and_question", "question"]  # params generative.pursuit.query


@dataclass
class Hop:
    question: str
    doc_id: str | None
    answer: str
    fill_up: bool = False


@dataclass
class Trace:
    claim_id: int
    hops: list[Hop] = field(default_factory=list)
    stop: str = "max_questions"  # verdict | max_questions | repeat | no_question
    stop_verdict: str | None = None  # the generator's own verdict, when it stopped with one

    @property
    def pursued(self) -> list[Hop]:
        """The hops the pursuit asked (without the fill-up paraphrases)."""
        return [h for h in self.hops if not h.fill_up]

    def to_json(self) -> dict[str, Any]:
        return {
            "claim_id": self.claim_id,
            "stop": self.stop,
            "stop_verdict": self.stop_verdict,
            "hops": [vars(h) for h in self.hops],
        }

    @classmethod
    def from_json(cls, rec: Mapping[str, Any]) -> Trace:
        return cls(int(rec["claim_id"]), [Hop(**h) for h in rec["hops"]], rec["stop"], rec.get("stop_verdict"))


class QuestionSource(Protocol):
    """Batched question generation: for each claim, candidates best first (a verdict is ("verdict", label))."""

    def first(self, claims: Sequence[averitec.Claim]) -> list[list[tuple[str, str]]]: ...

    def next(
        self, claims: Sequence[averitec.Claim], pairs: Sequence[Sequence[tuple[str, str]]]
    ) -> list[list[tuple[str, str]]]: ...


class SeqSource:
    """QGEN's `next:` task; `alternatives` beam outputs per step (the fill-up paraphrases).

    Whether to stop is the model's probability that its output starts with `verdict` (`stop_threshold`,
    default 0.5: stop when the model finds stopping more likely than asking), not the beam ranking, which
    prefers any short verdict over a longer question."""

    def __init__(self, generator, alternatives: int = 4, batch_size: int = 32, stop_threshold: float | None = 0.5):
        self.g, self.k, self.batch_size, self.stop_threshold = generator, alternatives, batch_size, stop_threshold

    def _run(self, claims, pairs) -> list[list[tuple[str, str]]]:
        sources = [self.g.next_source(c, p) for c, p in zip(claims, pairs)]
        outs = self.g.generate(sources, num_return=self.k, batch_size=self.batch_size, max_new_tokens=32)
        cands = [[qgen_parse_next(t) for t in texts] for texts in outs]
        if self.stop_threshold is None:  # the beam ranking decides (the naive reading)
            return cands
        p_stop = self.g.verdict_probability(sources, self.batch_size)
        out = []
        for options, p in zip(cands, p_stop):
            verdicts = [o for o in options if o[0] == "verdict"][:1] or [("verdict", None)]
            questions = [o for o in options if o[0] == "question"]
            out.append(verdicts + questions if p >= self.stop_threshold else questions)
        return out

    def first(self, claims):
        return self._run(claims, [[] for _ in claims])

    def next(self, claims, pairs):
        return self._run(claims, pairs)


class LLMSource:
    """Papelo's first- and next-question prompts through `lib.planning.llm` (one candidate per step)."""

    def __init__(self, llm):
        self.llm = llm

    def first(self, claims):

        texts = self.llm.chat_many(  # an unusable cached answer (empty) is asked again in a live run
            [first_messages(c) for c in claims],
            desc="llm first question",
            usable=lambda t: first_question(t) is not None,
        )
        return [[("question", q)] if (q := first_question(t)) else [] for t in texts]

    def next(self, claims, pairs):

        texts = self.llm.chat_many(
            [next_messages(c, p) for c, p in zip(claims, pairs)],
            desc="llm next question",
            usable=lambda t: parse_next(t) is not None,
        )
        return [[r] if (r := parse_next(t)) else [] for t in texts]


QUERIES: tuple[str, ...] = get_args(Query)


class Answerer:
    """The answer to a question from a claim's candidates (one retriever and scope), as Papelo's GetAnswer:
    the search query is the claim followed by the question (`query="claim_and_question"`; `"question"`
    searches with the question alone), and the answer is the best document read with up to `window` more
    passages of its page (Papelo reads a five-sentence window around the best passage). The pooled store
    keeps no sentence order within a page, so the window is the page's next-best passages among the claim's
    candidates, joined in rank order after the best one."""

    def __init__(
        self,
        retriever: R.Retriever,
        docs: pd.DataFrame,
        claims: Mapping[int, str] | None = None,
        query: str = "claim_and_question",
        window: int = 0,
    ):
        if query not in QUERIES:
            raise ValueError(f"pursuit query {query!r}: expected one of {QUERIES}")
        if query == "claim_and_question" and claims is None:
            raise ValueError("a claim_and_question search needs the claims' texts")
        if window < 0:
            raise ValueError(f"pursuit window must be >= 0 (got {window})")
        self.retriever, self.claims, self.query, self.window = retriever, claims or {}, query, window
        ids = docs["doc_id"].to_numpy()
        self.doc_ids, self.texts = ids, docs["text"].to_numpy()
        self.pages = docs["norm_url"].fillna("").to_numpy() if "norm_url" in docs else np.full(len(ids), "")
        self.tiebreak = F.id_tiebreak(ids)  # as lib.retrieval.runs ranks ties

    def search_text(self, claim_id: int, question: str) -> str:
        """What the retriever is asked: the claim and the question, or the question alone."""
        return f"{self.claims[claim_id]} {question}" if self.query == "claim_and_question" else question

    def __call__(self, claim_id: int, question: str) -> tuple[str | None, str]:
        query = self.search_text(claim_id, question)
        rows = self.retriever.candidates(claim_id, [query])
        if len(rows) == 0:
            return None, averitec.NO_ANSWER
        scores = self.retriever.score(claim_id, [query], rows)[0]
        ranked = F.top_k(scores, len(rows) if self.window else 1, self.tiebreak[rows])
        if not len(ranked):
            return None, averitec.NO_ANSWER
        best = int(rows[ranked[0]])
        page = self.pages[best]
        more = [int(rows[i]) for i in ranked[1:] if page and self.pages[int(rows[i])] == page][: self.window]
        return str(self.doc_ids[best]), " ".join(str(self.texts[r]) for r in [best, *more])


def _pick(cands: Sequence[tuple[str, str]], asked: set[str], verdict_allowed: bool) -> tuple[str, str] | None:
    """The best candidate: a verdict (once there is evidence), or the first question not asked yet."""
    for kind, text in cands:
        if kind == "verdict" and verdict_allowed or kind == "question" and text and text.lower() not in asked:
            return kind, text
    return None


def pursue(
    claims: Sequence[averitec.Claim],
    first: QuestionSource,
    nxt: QuestionSource,
    answer: Callable[[int, str], tuple[str | None, str]],
    max_questions: int = 5,
    fill_up: bool = False,
    progress: bool = True,
) -> list[Trace]:
    """Algorithm 1 for every claim, hop by hop in batches (claims still pursuing move on together)."""
    traces = {c.claim_id: Trace(c.claim_id) for c in claims}
    spare: dict[int, list[str]] = {c.claim_id: [] for c in claims}  # other beam outputs: fill-up paraphrases
    active = list(claims)
    cands = first.first(active)
    bar = tqdm(total=max_questions, desc="pursuit hops", disable=not progress)
    for hop in range(max_questions):
        still, pending = [], []
        for c, options in zip(active, cands):
            t = traces[c.claim_id]
            asked = {h.question.lower() for h in t.hops}
            choice = _pick(options, asked, verdict_allowed=hop > 0)  # no verdict before any evidence
            spare[c.claim_id].extend(q for k, q in options if k == "question" and q and q.lower() not in asked)
            if choice is None:
                # an empty generated text parses as an empty question: none was asked, so no repeat
                t.stop = "repeat" if any(k == "question" and q for k, q in options) else "no_question"
                continue
            if choice[0] == "verdict":
                t.stop, t.stop_verdict = "verdict", choice[1]
                continue
            doc_id, text = answer(c.claim_id, choice[1])
            t.hops.append(Hop(choice[1], doc_id, text))
            if hop + 1 < max_questions:
                still.append(c)
                pending.append([(h.question, h.answer) for h in t.hops])
        bar.update()
        active = still
        if not active:
            break
        cands = nxt.next(active, pending)
    bar.close()
    if fill_up:
        for cid, t in traces.items():
            asked = {h.question.lower() for h in t.hops}
            for q in spare[cid]:
                if len(t.hops) >= max_questions:
                    break
                if q.lower() not in asked:
                    asked.add(q.lower())
                    doc_id, text = answer(cid, q)
                    t.hops.append(Hop(q, doc_id, text, fill_up=True))
    return [traces[c.claim_id] for c in claims]


def as_plan(traces: Sequence[Trace], fill_up: bool = True) -> dict[int, list[str]]:
    """The questions of a pursuit as a plan (for the retrieval metrics): with the fill-up paraphrases or only
    the pursued ones."""
    return {t.claim_id: [h.question for h in (t.hops if fill_up else t.pursued)] for t in traces}


def hop_answers(traces: Sequence[Trace]) -> pd.DataFrame:
    """The pursuit's own answers (columns claim_id, query, doc_id, answer: the text read, with its window),
    one per answered hop, in the form `lib.averitec.evidence.qa_predictions` reads."""
    rows = [(t.claim_id, h.question, h.doc_id, h.answer) for t in traces for h in t.hops if h.doc_id is not None]
    return pd.DataFrame(rows, columns=["claim_id", "query", "doc_id", "answer"])


FILL_UPS: tuple[str, ...] = ("no_fill_up", "repeat", "paraphrase", "inflated")


def fill_up_variants(
    traces: Sequence[Trace], max_questions: int, max_pairs: int = 10
) -> dict[str, tuple[dict[int, list[str]], int, bool]]:
    """Papelo's fill-up ablations of one pursuit, as {variant: (plan, pairs, cycle)} for
    `lib.averitec.evidence.qa_predictions` (at most `pairs` pairs; `cycle`: repeat them up to that many):
    `no_fill_up` the pursued pairs only; `repeat` those repeated up to `max_questions`; `paraphrase` the pursued
    pairs, then paraphrase hops up to `max_questions` (Papelo's Algorithm 1); `inflated` those repeated up to
    `max_pairs` (Papelo Table 3: 5 pairs submitted as 10)."""
    pursued, full = as_plan(traces, fill_up=False), as_plan(traces, fill_up=True)
    return {
        "no_fill_up": (pursued, max_questions, False),
        "repeat": (pursued, max_questions, True),
        "paraphrase": (full, max_questions, False),
        "inflated": ({c: qs[:max_questions] for c, qs in full.items()}, max_pairs, True),
    }


def stop_counts(traces: Sequence[Trace]) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in traces:
        out[t.stop] = out.get(t.stop, 0) + 1
    return out
