"""trec_eval semantics, hand-computed, and against ir_measures (pytrec_eval) on random runs."""

import math
import random
import warnings

import ir_measures
import pytest

from lib.evaluation import metrics as MET
from lib.store import trec as TREC

QRELS = {
    "q1": {"a": 2, "b": 1, "c": 0, "e": 1},  # 3 relevant (a, b, e), e never retrieved
    "q2": {"x": 0},  # no relevant document: excluded
    "q3": {"z": 1},
}  # relevant, but q3 is missing from the run
RUN = {"q1": {"a": 0.5, "c": 0.9, "d": 0.9, "b": 0.1}, "q2": {"x": 1.0}}
# q1 ranking: d, c (tie at 0.9: doc id descending), a, b


def test_ranking_breaks_ties_by_doc_id_descending():
    assert TREC.rank({"a": 0.5, "c": 0.9, "d": 0.9, "b": 0.1}) == ["d", "c", "a", "b"]


def test_hand_computed_values_for_one_query():
    v = MET.query_measures(
        QRELS["q1"], RUN["q1"], ["ndcg@10", "ndcg@3", "recall@3", "recall@100", "p@2", "p@10", "mrr", "mrr@2", "map"]
    )
    dcg = 2 / math.log2(4) + 1 / math.log2(5)  # a at rank 3, b at rank 4
    idcg = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)  # ideal: a, b, e
    assert v["ndcg@10"] == pytest.approx(dcg / idcg, abs=1e-15)
    assert v["ndcg@3"] == pytest.approx((2 / math.log2(4)) / idcg, abs=1e-15)
    assert v["recall@3"] == pytest.approx(1 / 3) and v["recall@100"] == pytest.approx(2 / 3)
    assert v["p@2"] == 0.0 and v["p@10"] == pytest.approx(2 / 10)  # divides by k, not by retrieved
    assert v["mrr"] == pytest.approx(1 / 3) and v["mrr@2"] == 0.0
    assert v["map"] == pytest.approx((1 / 3 + 2 / 4) / 3)


def test_means_exclude_queries_without_relevant_documents_and_missing_runs_score_zero():
    per = MET.evaluate(QRELS, RUN, ["recall@100", "mrr"], per_query=True)
    assert set(per) == {"q1", "q3"} and per["q3"] == {"recall@100": 0.0, "mrr": 0.0}
    assert MET.excluded_queries(QRELS) == ["q2"]
    means = MET.evaluate(QRELS, RUN, ["recall@100", "mrr"])
    assert means == {"recall@100": pytest.approx((2 / 3) / 2), "mrr": pytest.approx((1 / 3) / 2)}


def _only(qrels, grades):
    """Qrels where only `grades` count as relevant (the judgement variants of lib.store.judgements do this)."""
    return {q: {d: (g if g in grades else 0) for d, g in docs.items()} for q, docs in qrels.items()}


def test_graded_gain_and_grade_views():
    qrels = {"q": {"g2": 2, "g1": 1}}
    run = {"q": {"g1": 2.0, "g2": 1.0}}
    assert MET.evaluate(qrels, run, ["ndcg@2"])["ndcg@2"] == pytest.approx(
        (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    )
    only2 = _only(qrels, [2])
    assert only2 == {"q": {"g2": 2, "g1": 0}}
    assert MET.evaluate(only2, run, ["mrr"])["mrr"] == 0.5
    assert MET.evaluate(_only(qrels, [1]), run, ["mrr"])["mrr"] == 1.0
    assert math.isnan(MET.evaluate({"q": {"g2": 0}}, run, ["mrr"])["mrr"])  # nothing to average


@pytest.mark.parametrize(
    "bad", ["ndcg@0", "recall", "p", "bpref@10", "condensed_bpref", "condensed_p", "condensed_", "ndcg@x"]
)
def test_unknown_or_incomplete_measures_are_errors(bad):
    with pytest.raises(ValueError):
        MET.evaluate(QRELS, RUN, [bad])


def test_agrees_with_trec_eval_through_ir_measures_on_random_runs():
    rnd = random.Random(7)
    docs = [f"d{i:02d}" for i in range(40)]
    qrels, run = {}, {}
    for q in range(30):
        judged = rnd.sample(docs, 15)
        qrels[f"q{q}"] = {d: rnd.choice([0, 0, 1, 2]) for d in judged}
        # coarse scores make ties common, so the tie-break is exercised
        run[f"q{q}"] = {d: float(rnd.randint(0, 5)) for d in rnd.sample(docs, 25)}
    ours = MET.evaluate(qrels, run, ["ndcg@10", "ndcg@5", "recall@10", "p@5", "mrr", "map", "ndcg"], per_query=True)
    ref = {}
    for m in ir_measures.iter_calc(
        [
            ir_measures.nDCG @ 10,
            ir_measures.nDCG @ 5,
            ir_measures.R @ 10,
            ir_measures.P @ 5,
            ir_measures.RR,
            ir_measures.AP,
            ir_measures.nDCG,
        ],
        qrels,
        run,
    ):
        ref.setdefault(m.query_id, {})[str(m.measure)] = m.value
    names = {
        "ndcg@10": "nDCG@10",
        "ndcg@5": "nDCG@5",
        "recall@10": "R@10",
        "p@5": "P@5",
        "mrr": "RR",
        "map": "AP",
        "ndcg": "nDCG",
    }
    assert set(ours) <= set(ref)
    for q, values in ours.items():
        for ours_name, ref_name in names.items():
            assert values[ours_name] == pytest.approx(ref[q][ref_name], abs=1e-4), (q, ours_name)


def test_bpref_by_hand():
    # R = 2 relevant (a, c), N = 2 judged non-relevant (b, e); x is unjudged and ignored
    judged = {"a": 1, "b": 0, "c": 2, "e": 0}
    assert MET.bpref(judged, ["x", "b", "a", "c"]) == 0.5  # one non-relevant above each: (1/2 + 1/2) / 2
    assert MET.bpref(judged, ["a", "c", "b"]) == 1.0
    assert MET.bpref(judged, ["b", "e", "a"]) == 0.0  # min(2, R) / min(R, N) = 1; c never retrieved
    assert MET.bpref({"a": 1}, ["z", "a"]) == 1.0  # no judged non-relevant document: 1 per relevant one
    assert MET.bpref({"b": 0}, ["b"]) == 0.0
    # a negative grade is unjudged, as trec_eval reads it (it was counted non-relevant: 0.0 against trec_eval's 1.0)
    assert MET.bpref({"a": -1, "b": 1, "c": 0}, ["a", "b", "c"]) == 1.0
    assert MET.bpref({"n": -2, "b": 0, "a": 1, "c": 1}, ["n", "b", "a", "c"]) == 0.0  # R = 2, N = 1: min(1, 2) / 1
    assert MET.bpref({"n": -1, "a": 1, "b": 0, "c": 1, "e": 0}, ["b", "n", "a", "c"]) == 0.5


def test_condensed_measures_drop_unjudged_documents():
    judged = {"a": 1, "b": 0}
    run = {"q": {"x": 3.0, "y": 2.0, "a": 1.0, "b": 0.5}}
    ours = MET.evaluate({"q": judged}, run, ["p@1", "condensed_p@1", "mrr", "condensed_mrr", "condensed_ndcg@2"])
    assert ours == {"p@1": 0.0, "condensed_p@1": 1.0, "mrr": 1 / 3, "condensed_mrr": 1.0, "condensed_ndcg@2": 1.0}


def test_bpref_and_condensed_lists_agree_with_trec_eval_through_ir_measures():
    rnd = random.Random(11)
    docs = [f"d{i:02d}" for i in range(40)]
    qrels, run = {}, {}
    for q in range(40):
        judged = rnd.sample(docs, rnd.randint(3, 15))
        qrels[f"q{q}"] = {d: rnd.choice([0, 0, 0, 1, 2]) for d in judged}
        run[f"q{q}"] = {d: float(rnd.randint(0, 5)) for d in rnd.sample(docs, rnd.randint(5, 30))}
    names = {
        "bpref": ir_measures.Bpref,
        "condensed_ndcg@10": ir_measures.nDCG(judged_only=True) @ 10,
        "condensed_ndcg": ir_measures.nDCG(judged_only=True),
        "condensed_p@5": ir_measures.P(judged_only=True) @ 5,
    }
    ours = MET.evaluate(qrels, run, list(names), per_query=True)
    ref: dict = {}
    for m in ir_measures.iter_calc(list(names.values()), qrels, run):
        ref.setdefault(m.query_id, {})[str(m.measure)] = m.value
    checked = 0
    for q, values in ours.items():
        for ours_name, measure in names.items():
            assert values[ours_name] == pytest.approx(ref[q][str(measure)], abs=1e-4), (q, ours_name)
            checked += 1
    assert checked >= 4 * 30  # most random queries have a relevant document


def test_metric_curves_equal_evaluate_at_each_cutoff():
    curves = MET.metric_curves(QRELS, RUN, max_k=5)
    assert list(curves.index) == [1, 2, 3, 4, 5]
    for k in (1, 3, 5):
        expect = MET.evaluate(QRELS, RUN, [f"ndcg@{k}", f"recall@{k}", f"p@{k}"])
        assert curves.loc[k, "ndcg"] == pytest.approx(expect[f"ndcg@{k}"])
        assert curves.loc[k, "recall"] == pytest.approx(expect[f"recall@{k}"])
        assert curves.loc[k, "p"] == pytest.approx(expect[f"p@{k}"])


def test_trec_files_round_trip(tmp_path):
    TREC.write_trec_run(RUN, tmp_path / "run.txt", tag="t")
    lines = (tmp_path / "run.txt").read_text().splitlines()
    assert lines[0] == "q1 Q0 d 1 0.9 t" and lines[1] == "q1 Q0 c 2 0.9 t"
    assert TREC.read_trec_run(tmp_path / "run.txt") == RUN
    TREC.write_trec_qrels(QRELS, tmp_path / "qrels.txt")
    assert TREC.read_trec_qrels(tmp_path / "qrels.txt") == QRELS
    (tmp_path / "bad.txt").write_text("q1 Q0 d 1\n")
    with pytest.raises(ValueError, match="bad.txt:1"):
        TREC.read_trec_run(tmp_path / "bad.txt")


def test_ids_of_other_types_in_qrels_and_run_are_an_error():
    """An int claim id in the qrels never met its text form in the run: NDCG and MRR 0, unsaid."""
    with pytest.raises(TypeError, match=r"the qrels' query ids are int \(1\), the run's str \('1'\)"):
        MET.evaluate({1: {"d1": 2}}, {"1": {"d1": 1.0}}, ["ndcg@10", "mrr"])
    with pytest.raises(TypeError, match=r"document ids are str \('7'\), the run's int \(7\)"):
        MET.evaluate({"1": {"7": 2}}, {"1": {7: 1.0}}, ["ndcg@10"])
    assert MET.evaluate({"1": {"d1": 2}}, {"1": {"d1": 1.0}}, ["mrr"]) == {"mrr": 1.0}
    with pytest.raises(TypeError, match=r"the run's int \(7\); give both as text$"):
        MET.evaluate({"1": {"7": 2}}, {"1": {7: 1.0}}, ["ndcg@10"])
    # an empty qrels or run has no id to compare: no error from the check itself
    MET.same_id_types({}, {"1": {"d1": 1.0}})
    MET.same_id_types({"1": {}}, {})


def test_a_nan_score_is_no_rank():
    """A NaN among a query's scores left the order to the dict's: MRR 1.0, 0.333 or 0.5 for one run."""
    nan = float("nan")
    for run in ({"a": 0.1, "b": nan, "c": 0.5}, {"b": nan, "a": 0.1, "c": 0.5}):
        with pytest.raises(ValueError, match="document 'b' has the score NaN: a ranking needs a number"):
            MET.evaluate({"1": {"a": 1}}, {"1": run}, ["mrr"])
    assert TREC.rank({"": 0.2, "x": 0.1}) == ["", "x"]  # an empty doc id is a doc id


@pytest.mark.parametrize("score", ["nan", "inf", "-inf", "high"])
def test_a_run_file_score_that_is_no_finite_number_is_named(tmp_path, score):
    (tmp_path / "run.txt").write_text(f"q1 Q0 d 1 0.5 t\nq1 Q0 e 2 {score} t\n")
    with pytest.raises(
        ValueError, match=rf"run.txt: run line 2 \(query q1, document e\): score '{score}' is not a finite"
    ):
        TREC.read_trec_run(tmp_path / "run.txt")


@pytest.mark.parametrize(
    "reader, content, message",
    [
        # a document listed twice: the second score replaced the first (d1 from rank 1 to rank 2)
        (
            "run",
            "q1 Q0 d1 1 5.0 t\nq1 Q0 d2 2 4.0 t\nq1 Q0 d1 3 1.0 t\n",
            r"run line 3: document d1 is ranked twice for query q1",
        ),
        ("run", "q1 Q0 d1 1 5.0 t\n\nq1 Q0 d2 2 x t\n", r"run line 3 \(query q1, document d2\)"),  # the file's line
        ("qrels", "q1 0 d1 1\nq1 0 d1 0\n", r"qrels line 2: document d1 is judged twice for query q1"),
        ("qrels", "q1 0 d1 x\n", r"qrels line 1 \(query q1, document d1\): grade 'x' is not an integer"),
        ("qrels", "q1 0 d1 1.5\n", r"grade '1.5' is not an integer"),
    ],
)
def test_trec_files_name_the_line_of_a_repeat_or_a_bad_grade(tmp_path, reader, content, message):
    (tmp_path / "f.txt").write_text(content)
    read = TREC.read_trec_run if reader == "run" else TREC.read_trec_qrels
    with pytest.raises(ValueError, match=message):
        read(tmp_path / "f.txt")


def test_a_trec_file_that_is_not_utf8_names_its_byte(tmp_path):
    from lib.data import DataError

    (tmp_path / "f.txt").write_bytes(b"q1 0 caf\xe9 1\n")
    with pytest.raises(DataError, match=r"f.txt: .*not UTF-8"):
        TREC.read_trec_qrels(tmp_path / "f.txt")


# --- pinned by mutation testing (`make mutation`) -------------------------------------------------------


def test_parse_measure_errors_say_what_is_expected():
    with pytest.raises(ValueError) as err:
        MET.parse_measure("ndgc@10")
    assert str(err.value) == (
        "unknown measure 'ndgc@10': expected ndcg[@k], recall@k, p@k, mrr[@k], map[@k] or bpref, "
        "or condensed_ before one of the first five"
    )
    with pytest.raises(ValueError, match=r"^measure 'recall' needs a cutoff, e\.g\. recall@10$"):
        MET.parse_measure("recall")
    with pytest.raises(ValueError, match=r"^measure 'p@0': the cutoff must be >= 1$"):
        MET.parse_measure("p@0")


def test_a_measure_in_params_is_written_in_lower_case():
    from pydantic import TypeAdapter, ValidationError

    adapter = TypeAdapter(MET.Measure)
    assert adapter.validate_python("condensed_ndcg@10") == "condensed_ndcg@10"
    with pytest.raises(ValidationError, match=r"write the measure 'NDCG@10' in lower case, without spaces"):
        adapter.validate_python("NDCG@10")
    with pytest.raises(ValidationError, match="unknown measure 'ndgc'"):
        adapter.validate_python("ndgc")
    assert adapter.validate_python("mrr") == "mrr"  # a measure without a cutoff is written as its name
    with pytest.raises(ValidationError, match=r"write the measure 'recall@0100' as 'recall@100'"):
        adapter.validate_python("recall@0100")


def test_a_query_without_relevant_documents_scores_zero_not_nan():
    judged, scores = {"x": 0, "y": -1}, {"x": 0.9, "y": 0.5}
    measures = ["ndcg", "ndcg@5", "recall@5", "p@5", "mrr", "map", "bpref", "condensed_ndcg@5"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no 0 / 0 on the way
        assert MET.query_measures(judged, scores, measures) == dict.fromkeys(measures, 0.0)


def test_evaluate_logs_the_excluded_queries_and_gives_nan_for_no_query(caplog):
    with caplog.at_level("INFO", logger="lib.evaluation.metrics"):
        MET.evaluate(QRELS, RUN, ["mrr"])
    assert caplog.messages == ["evaluate: 1 of 3 queries have no relevant document and are excluded"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no mean of an empty list
        assert math.isnan(MET.evaluate({"q": {"x": 0}}, {}, ["mrr"])["mrr"])


def test_metric_curves_defaults_per_query_and_empty():
    curves = MET.metric_curves(QRELS, RUN)  # max_k defaults to 100
    assert curves.index.name == "k" and curves.index.tolist() == list(range(1, 101))
    assert curves.columns.tolist() == ["ndcg", "recall", "p"]
    per = MET.metric_curves(QRELS, RUN, max_k=3, per_query=True)
    assert per.index.names == ["qid", "k"] and per.columns.tolist() == ["ndcg", "recall", "p"]
    assert per.index.tolist() == [("q1", 1), ("q1", 2), ("q1", 3), ("q3", 1), ("q3", 2), ("q3", 3)]
    q1 = MET.query_measures(QRELS["q1"], RUN["q1"], ["ndcg@3", "recall@3", "p@3"])
    assert per.loc[("q1", 3)].tolist() == pytest.approx([q1["ndcg@3"], q1["recall@3"], q1["p@3"]])
    assert per.loc["q3"].to_numpy().tolist() == [[0.0, 0.0, 0.0]] * 3
    none = MET.metric_curves({"q": {"x": 0}}, {}, max_k=2)
    assert none.shape == (2, 3) and none.isna().all().all() and all(d.kind == "f" for d in none.dtypes)
    empty = MET.metric_curves({}, {}, max_k=2, per_query=True)
    assert (
        empty.shape == (0, 3)
        and empty.index.names == ["qid", "k"]
        and empty.columns.tolist() == ["ndcg", "recall", "p"]
    )


def test_condensed_lists_drop_negative_grades_as_trec_eval_does():
    """The thirty-first pass: a document graded -1 stayed in the condensed list (trec_eval -J drops it)."""
    import pytrec_eval

    qrels = {"q": {"a": -1, "b": 1, "c": 0}}
    run = {"q": {"a": 3.0, "c": 2.5, "b": 2.0, "x": 1.5}}
    ours = MET.evaluate(qrels, run, ["condensed_p@1", "condensed_mrr", "condensed_ndcg@10"], per_query=True)["q"]
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"P_1", "recip_rank", "ndcg_cut_10"}, judged_docs_only_flag=True)
    theirs = ref.evaluate(run)["q"]
    assert ours["condensed_p@1"] == theirs["P_1"] == 0.0  # c, judged non-relevant, comes first once a is dropped
    assert ours["condensed_mrr"] == theirs["recip_rank"] == 0.5
    assert ours["condensed_ndcg@10"] == pytest.approx(theirs["ndcg_cut_10"])


def test_metric_curves_refuse_ids_of_other_types_as_evaluate_does():
    """The forty-second pass: int run ids beside text qrels ids gave all-zero curves, unsaid."""
    with pytest.raises(TypeError, match=r"metric_curves: the qrels' document ids are str \('1'\), the run's int"):
        MET.metric_curves({"q1": {"1": 1}}, {"q1": {1: 2.0}}, 2)
    assert MET.metric_curves({"q1": {"1": 1}}, {"q1": {"1": 2.0}}, 2)["ndcg"].tolist() == [1.0, 1.0]
