"""lib.planning.pursuit: Algorithm 1 with scripted question sources, and answers equal to lib.retrieval.runs' best documents."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.data import averitec
from lib.planning import pursuit as PU
from lib.planning.qgen_text import parse_next as qgen_parse_next
from lib.retrieval import bm25 as BM
from lib.retrieval import retrievers as R
from lib.store.build import claim_pools
from tests.conftest import FIXTURE_DATA


class Scripted:
    """Candidates from a script: {claim_id: [step0 candidates, step1 candidates, ...]}; records the pairs seen."""

    def __init__(self, script):
        self.script, self.seen = script, []

    def first(self, claims):
        return [self.script[c.claim_id][0] for c in claims]

    def next(self, claims, pairs):
        self.seen.extend((c.claim_id, list(p)) for c, p in zip(claims, pairs))
        return [self.script[c.claim_id][len(p)] for c, p in zip(claims, pairs)]


def fake_answer(cid, q):
    return f"d{cid}", f"answer to {q}"


@pytest.fixture(scope="module")
def claims():
    return averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")


def test_stops_at_a_verdict_a_repeat_or_the_limit(claims):
    q = lambda t: ("question", t)  # noqa: E731
    script = {
        0: [[("verdict", "Supported"), q("A?")], [q("B?")], [("verdict", "Refuted")]],  # no verdict before evidence
        1: [[q("C?")], [q("C?")]],  # repeats itself, no alternative
        2: [[q("D?")], [q("d?"), q("E?")], [q("F?")]],  # the repeat is skipped for the next beam output
    }
    src = Scripted(script)
    traces = PU.pursue(claims, src, src, fake_answer, max_questions=3, progress=False)
    assert [t.stop for t in traces] == ["verdict", "repeat", "max_questions"]
    assert traces[0].stop_verdict == "Refuted"
    assert PU.as_plan(traces) == {0: ["A?", "B?"], 1: ["C?"], 2: ["D?", "E?", "F?"]}
    assert traces[0].hops[1].answer == "answer to B?"
    # the next question sees the claim's QA pairs so far
    assert (0, [("A?", "answer to A?"), ("B?", "answer to B?")]) in src.seen
    assert PU.stop_counts(traces) == {"verdict": 1, "repeat": 1, "max_questions": 1}


def test_empty_generated_texts_are_no_question_not_a_repeat(claims):
    """The forty-eighth pass: QGEN's empty outputs parse as empty questions, and the stop read "repeat"
    though nothing had been asked; a repeat needs a question asked before."""
    script = {c.claim_id: [[qgen_parse_next(t) for t in ("", " ", "")]] for c in claims}
    traces = PU.pursue(claims, Scripted(script), Scripted(script), fake_answer, max_questions=3, progress=False)
    assert [(t.stop, t.hops) for t in traces] == [("no_question", [])] * len(claims)
    script = {c.claim_id: [[("question", "A?")], [("question", ""), ("question", "a?")]] for c in claims}
    traces = PU.pursue(claims, Scripted(script), Scripted(script), fake_answer, max_questions=3, progress=False)
    assert [t.stop for t in traces] == ["repeat"] * len(claims)


def test_fill_up_uses_other_beam_outputs(claims):
    q = lambda t: ("question", t)  # noqa: E731
    script = {
        0: [[q("A?"), q("A2?"), q("A3?")], [("verdict", "Supported"), q("B?")]],
        1: [[q("C?")], [("verdict", "Refuted")]],
        2: [[], []],
    }
    src = Scripted(script)
    traces = PU.pursue(claims, src, src, fake_answer, max_questions=3, fill_up=True, progress=False)
    assert PU.as_plan(traces) == {0: ["A?", "A2?", "A3?"], 1: ["C?"], 2: []}
    assert [h.fill_up for h in traces[0].hops] == [False, True, True]
    assert traces[2].stop == "no_question"


def test_fill_up_variants_are_papelos_ablations_of_one_pursuit(claims):
    q = lambda t: ("question", t)  # noqa: E731
    script = {
        0: [[q("A?"), q("A2?"), q("A3?")], [("verdict", "Supported"), q("B?")]],
        1: [[q("C?")], [q("D?")], [q("E?")]],
        2: [[], []],
    }
    src = Scripted(script)
    traces = PU.pursue(claims, src, src, fake_answer, max_questions=3, fill_up=True, progress=False)
    assert [len(t.pursued) for t in traces] == [1, 3, 0] and PU.as_plan(traces, fill_up=False)[0] == ["A?"]
    v = PU.fill_up_variants(traces, max_questions=3, max_pairs=10)
    assert list(v) == list(PU.FILL_UPS)
    assert v["no_fill_up"] == ({0: ["A?"], 1: ["C?", "D?", "E?"], 2: []}, 3, False)
    assert v["repeat"] == (v["no_fill_up"][0], 3, True)
    assert v["paraphrase"] == ({0: ["A?", "A2?", "A3?"], 1: ["C?", "D?", "E?"], 2: []}, 3, False)
    assert v["inflated"] == (v["paraphrase"][0], 10, True)
    answers = PU.hop_answers(traces)
    assert answers.to_dict("list") == {
        "claim_id": [0, 0, 0, 1, 1, 1],
        "query": ["A?", "A2?", "A3?", "C?", "D?", "E?"],
        "doc_id": ["d0", "d0", "d0", "d1", "d1", "d1"],
        "answer": ["answer to A?", "answer to A2?", "answer to A3?", "answer to C?", "answer to D?", "answer to E?"],
    }
    unanswered = PU.Trace(5, [PU.Hop("Q?", None, averitec.NO_ANSWER)])
    assert PU.hop_answers([unanswered]).empty


def test_trace_round_trip(claims):
    t = PU.Trace(3, [PU.Hop("Q?", "d1", "A.")], "verdict", "Refuted")
    assert PU.Trace.from_json(t.to_json()) == t


def test_answers_are_the_runs_best_documents(tiny_store, tiny_study):
    docs = tiny_store.docs
    retriever = R.Retriever("bm25", "claim", BM.BM25.from_texts(docs["text"]), None, claim_pools(docs))
    answer = PU.Answerer(retriever, docs, query="question")
    answers = pd.read_parquet(tiny_study / "runs" / "answers.parquet")
    sel = answers[(answers.retriever == "bm25") & (answers.scope == "claim") & (~answers.temporal)]
    assert len(sel) > 3
    text = dict(zip(docs["doc_id"], docs["text"]))
    for cid, query, doc_id in zip(sel["claim_id"], sel["query"], sel["doc_id"]):
        assert answer(int(cid), query) == (doc_id, text[doc_id])
    assert answer(99, "anything") == (None, averitec.NO_ANSWER)  # a claim without a pool


def window_store():
    docs = pd.DataFrame(
        {
            "doc_id": ["a", "b", "c", "d", "e"],
            "text": [
                "Ohio cut income tax by two percent in 2019.",
                "The governor signed the income tax bill in March.",
                "Tax revenue in Texas rose.",
                "Critics said the tax cut favoured the rich.",
                "A recipe for soup.",
            ],
            "norm_url": ["news.com/ohio", "news.com/ohio", "other.com/texas", "news.com/ohio", ""],
        }
    )
    pools = {0: np.arange(5)}
    return R.Retriever("bm25", "claim", BM.BM25.from_texts(docs["text"]), None, pools), docs


def test_answer_searches_with_the_claim_and_reads_a_window_of_the_page():
    retriever, docs = window_store()
    claims = {0: "Ohio cut income tax"}
    alone = PU.Answerer(retriever, docs, claims, query="question")
    both = PU.Answerer(retriever, docs, claims, query="claim_and_question", window=1)
    assert both.search_text(0, "By how much?") == "Ohio cut income tax By how much?"
    assert alone.search_text(0, "By how much?") == "By how much?"
    assert alone(0, "Who signed the bill?") == ("b", docs["text"][1])  # the question alone finds the signing
    doc_id, text = both(0, "By how much?")  # the question alone matches nothing; the claim finds the cut
    assert doc_id == "a"
    # the best passage, then the page's next best one (window 1: the critics share "tax cut" with the claim);
    # the page's third passage and the other pages are left out
    assert text == f"{docs['text'][0]} {docs['text'][3]}"
    wide = PU.Answerer(retriever, docs, claims, window=5)
    assert wide(0, "By how much?")[1].split(". ")[0] == docs["text"][0].rstrip(".")
    assert len(wide(0, "By how much?")[1].split(". ")) == 3  # three passages of news.com/ohio, none of another page


def test_answer_settings_are_checked():
    retriever, docs = window_store()
    with pytest.raises(ValueError, match="query 'claim'"):
        PU.Answerer(retriever, docs, {0: "x"}, query="claim")
    with pytest.raises(ValueError, match="needs the claims"):
        PU.Answerer(retriever, docs)
    with pytest.raises(ValueError, match=">= 0"):
        PU.Answerer(retriever, docs, {0: "x"}, window=-1)


class FakeGenerator:
    def __init__(self, texts, p_stop):
        self.texts, self.p_stop = texts, p_stop

    def verdict_probability(self, sources, batch_size):
        return self.p_stop[: len(sources)]

    def next_source(self, claim, pairs):
        return f"{claim.claim_id}:{len(pairs)}"

    def generate(self, sources, num_return, batch_size, max_new_tokens):
        return [self.texts for _ in sources]


def test_seq_source_stops_by_the_verdict_probability_not_the_beam_rank(claims, monkeypatch):
    texts = ["verdict : refuted", "who said it?", "when?"]
    src = PU.SeqSource(FakeGenerator(texts, [0.7, 0.2]), stop_threshold=0.5)
    out = src.next(claims[:2], [[("q?", "a")], [("q?", "a")]])
    assert out[0] == [("verdict", "Refuted"), ("question", "who said it?"), ("question", "when?")]
    assert out[1] == [("question", "who said it?"), ("question", "when?")]
    naive = PU.SeqSource(FakeGenerator(texts, [0.2, 0.2]), stop_threshold=None)
    assert naive.next(claims[:1], [[("q?", "a")]])[0][0] == ("verdict", "Refuted")  # the beam ranking decides


def test_verdict_probability_is_a_probability(tiny_qgen, claims):
    from conftest import TINY_DECODING

    from lib.planning.qgen import Decoding, Generator

    g = Generator(Decoding.model_validate(TINY_DECODING), tiny_qgen[0])
    p = g.verdict_probability([g.next_source(c, []) for c in claims])
    assert p.shape == (3,) and ((p >= 0) & (p <= 1)).all()
