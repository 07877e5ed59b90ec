"""Notebooks executed by papermill on the tiny fixture (store, plans, runs), then rendered to HTML."""

import ast
import html
import json
import os
import re

import pytest
from conftest import FIXTURE_DATA

from lib import models as MD
from lib.analysis import utility as U
from lib.site import checks as CK
from lib.site import grading as GR
from lib.site import reports as RP
from lib.site.execute import run_notebook
from lib.site.render import render_html
from lib.store.build import save_store


def test_notebook_01_runs_on_a_tiny_store(tiny_store, tmp_path):
    store_dir = tmp_path / "store"
    save_store(tiny_store, store_dir)
    metrics_path = tmp_path / "metrics" / "store.json"
    executed = run_notebook(
        "01_knowledge_store",
        {
            "store_dir": str(store_dir),
            "data_dir": str(FIXTURE_DATA),
            "metrics_path": str(metrics_path),
            "top_domains": 5,
        },
        out_dir=tmp_path / "executed",
        timeout_s=300,
        banner="**Classroom profile.** Smaller.",
    )
    metrics = json.loads(metrics_path.read_text())
    assert metrics["documents"] == 12 and metrics["gold_coverage_all_systems"] == 1.0
    assert metrics["quantemp_val_claims"] == 3 and metrics["quantemp_val_without_snippets"] == 1
    html = render_html(executed, tmp_path / "reports").read_text()
    assert fixture_findings(executed) == []  # clean outputs, readable figures with alt text
    assert "No description has been provided" not in html and 'alt="Figure: ' in html
    assert_exercises(executed, tmp_path / "reports")
    assert "The store holds <strong>12 documents</strong>" in html
    assert html.index("Classroom profile") < html.index("The store holds")  # the banner comes first
    assert "Traceback" not in html


def assert_exercises(executed, reports):
    """Every exercise's check passed with the worked solution; the students' report has the stubs instead
    of the solutions, the teacher's report the solutions; exercises and definitions are well formed."""
    import nbformat

    from lib.site import course as CO

    assert CO.exercise_problems(executed) == []
    CO.definitions(executed)
    outputs = "".join(
        o.get("text", "") for c in nbformat.read(executed, as_version=4).cells for o in c.get("outputs", [])
    )
    text = lambda page: html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))  # noqa: E731
    student, teacher = text(render_html(executed, reports)), text(render_html(executed, reports, teacher=True))
    records = GR.records(nbformat.read(executed, as_version=4))
    for ex in CO.exercises(executed):
        assert f"Exercise {ex.number}: correct." in outputs
        assert_passed_with_mistakes(records[ex.number])
        assert f"NotImplementedError('Exercise {ex.number}')" in student
        assert f"Exercise {ex.number}: correct." not in student  # the reference answer passing is not shown
    assert "BEGIN SOLUTION" in teacher and "BEGIN SOLUTION" not in student
    assert "Traceback" not in teacher


def fixture_findings(executed):
    """The report check's findings, but for the teacher's notes that an example cannot tell a mistake from the
    right answer: the fixture is too small for every example to separate them (the committed study's
    notebooks are checked for that, `assert_tells_mistakes`)."""
    return [str(f) for f in RP.scan_notebook(executed) if not f.excerpt.startswith(CK.TEACHER_NOTE)]


def assert_passed_with_mistakes(record):
    """An exercise's check passed the worked solution and knows at least one typical mistake."""
    assert record["passed"] and record["attempted"], record
    assert record["mistakes"], f"exercise {record['exercise']}: no typical mistake written down beside it"


def assert_tells_mistakes(record):
    """...and fails every one of them on this build's data (an example where a mistake gives the right value
    teaches nothing), naming the step."""
    assert_passed_with_mistakes(record)
    for what, wrong in record["mistakes"].items():
        problem = CK.verdict(wrong, record["expected"], record["tol"], record["mistakes"])
        assert problem is not None, f"exercise {record['exercise']}: '{what}' ({wrong}) passes the check"
        assert what in problem  # and the failed check names the step


def run_on_fixture(name, params, tmp_path):
    executed = run_notebook(name, params, out_dir=tmp_path / "executed", timeout_s=300)
    html = render_html(executed, tmp_path / "reports").read_text()
    assert "Traceback" not in html and "Error" not in html.split("Conclusion")[-1].split(">Exercises<")[0]
    assert fixture_findings(executed) == []  # clean outputs, readable figures with alt text
    assert "No description has been provided" not in html
    assert html.count("<img") == html.count('alt="Figure') + html.count('alt="Figure without')  # every figure described
    assert_exercises(executed, tmp_path / "reports")
    return html


def test_notebook_02_runs_on_the_fixture_study(tiny_study, tmp_path):
    metrics_path = tmp_path / "query_planning.json"
    html = run_on_fixture(
        "02_query_planning",
        {
            "runs_dir": str(tiny_study / "runs"),
            "store_dir": str(tiny_study / "store"),
            "plans_dir": str(tiny_study / "plans"),
            "embeddings_dir": str(tiny_study / "embeddings"),
            "data_dir": str(FIXTURE_DATA),
            "metrics_path": str(metrics_path),
        },
        tmp_path,
    )
    metrics = json.loads(metrics_path.read_text())
    assert metrics["claims_evaluated"] == 3 and set(metrics["ndcg@10"]) == {
        "bm25/claim",
        "bm25/global",
        "dense/claim",
        "dense/global",
    }
    assert "CLAIM-ONLY reaches NDCG@10" in html
    judged = metrics["judged@10"]
    assert set(judged) == set(metrics["ndcg@10"]) and all(0 <= v <= 1 for s in judged.values() for v in s.values())
    assert set(metrics["top_group"]) == {"ndcg@10", "condensed_ndcg@10", "bpref"}
    assert "Holm over the notebook's" in html


def test_notebook_03_runs_on_the_fixture_study(tiny_study, tmp_path):
    metrics_path = tmp_path / "aggregation.json"
    html = run_on_fixture(
        "03_aggregation",
        {
            "runs_dir": str(tiny_study / "runs"),
            "store_dir": str(tiny_study / "store"),
            "plans_dir": str(tiny_study / "plans"),
            "data_dir": str(FIXTURE_DATA),
            "metrics_path": str(metrics_path),
        },
        tmp_path,
    )
    metrics = json.loads(metrics_path.read_text())
    assert set(metrics["mean_ndcg@10_by_judgements"]) == {
        "official",
        "answer_match",
        "gold_answers",
        "gold_urls",
        "answer_matches",
    }
    assert set(metrics["ndcg@10"]["bm25/claim"]) == {
        "TOP-1",
        "CONCAT",
        "COMBMAX",
        "COMBSUM",
        "COMBMAX-NORM",
        "COMBSUM-NORM",
        "RRF",
        "CombMNZ",
        "WSUM-NORM",
    }
    assert "COMBMAX-NORM is in the top group by NDCG@10 in" in html
    assert "drawn at random give" in html  # the spread against its permutation reference
    tops = metrics["top_group_of_six"]["ndcg@10"]
    assert set(tops) == set(metrics["ndcg@10"]) and all(tops.values())
    # top and bottom of the six (5 rivals, 3 measures), and all 9 methods under each judgement variant
    assert metrics["group_comparisons"] == 2 * 5 * len(tops) * 3 + 8 * len(metrics["top_group_by_judgements"])


def test_notebook_04_runs_on_the_fixture_study(tiny_study, tmp_path):
    import pandas as pd

    metrics_path = tmp_path / "retrieval.json"
    settings = {
        "runs_dir": str(tiny_study / "runs"),
        "store_dir": str(tiny_study / "store"),
        "data_dir": str(FIXTURE_DATA),
        "metrics_path": str(metrics_path),
        "plots_dir": str(tmp_path / "plots"),
        "max_k": 10,
        "n_resamples": 200,
        "judging": {
            "sheet_path": str(tmp_path / "sheet.csv"),
            "filled_sheet": str(tmp_path / "filled.csv"),
            "per_stratum": 2,
            "unjudged_depth": 3,
            "seed": 0,
        },
    }
    run_on_fixture("04_retrieval_metrics", settings, tmp_path)  # no filled sheet yet: it writes the blank one
    assert json.loads(metrics_path.read_text())["judging_agreement"] is None
    # a class's filled judging sheet: four pairs of the sheet judged, marked relevant exactly when the store's
    # grade is >= 1 (0 for a pair it never graded), the other rows left blank
    qrels = pd.read_parquet(tiny_study / "store" / "qrels.parquet")
    grade = {(str(q), d): g for q, d, g in zip(qrels["qid"], qrels["doc_id"], qrels["grade"])}
    filled = pd.read_csv(tmp_path / "sheet.csv", dtype=str, keep_default_na=False)
    judged = [int(grade.get((c, d), 0) >= 1) for c, d in zip(filled["claim_id"], filled["doc_id"])]
    filled["relevant"] = [str(j) if i < 4 else "" for i, j in enumerate(judged)]
    filled.to_csv(tmp_path / "filled.csv", index=False)
    run_on_fixture("04_retrieval_metrics", settings, tmp_path)
    metrics = json.loads(metrics_path.read_text())
    assert set(metrics["significant_vs_baseline"]) == {"ORACLE-QUERIES", "BLOOM-QG", "HEURISTIC"}
    significant = {p for p, s in metrics["significant_vs_baseline"].items() if s}
    assert set(metrics["survives_coverage"]) == significant
    assert all("judged@10" in v for v in metrics["ablation"].values())
    curve = (tmp_path / "plots" / "recall_at_k.csv").read_text().splitlines()
    assert curve[0] == "k,claim_only,oracle,bloom_qg,heuristic" and len(curve) == 11
    sheet = pd.read_csv(tmp_path / "sheet.csv")
    assert list(sheet.columns) == ["sheet_id", "claim_id", "doc_id", "claim", "document", "relevant", "comment"]
    assert metrics["judging_sheet_pairs"] == len(sheet) > 0
    official = metrics["judging_agreement"]["official"]
    assert official["items"] == 4 and official["agreement"] == 1.0
    assert set(metrics["by_judgements"]) == {"official", "answer_match", "gold_answers", "gold_urls", "answer_matches"}
    assert {"bpref", "condensed_ndcg@10"} <= set(metrics["by_judgements"]["official"]["oracle"])


def test_metrics_are_flattened_with_dvc_style_keys():
    from lib.site.catalogue import flatten

    assert flatten({"a": {"b": 1, "c": {"d": [2]}}, "e": "x"}) == {"a.b": 1, "a.c.d": [2], "e": "x"}


def test_notebook_05_runs_on_fixture_scores(tmp_path):
    import pandas as pd

    from lib.averitec import evidence as E
    from lib.averitec import scoring as SC
    from lib.data import averitec

    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    refs = [SC.reference_evidence(c) for c in claims]
    oracle = [SC.Evidence("Refuted", r.questions, r.strings[:1]) for r in refs]
    runs = {
        "oracle": ("planner", oracle),
        "oracle__duplicated": ("planner", [SC.Evidence(p.label, p.questions, p.strings * 10) for p in oracle]),
        "sys_x": ("system", [SC.Evidence("Supported", ("What?",), ("What? Cheese.",)) for _ in refs]),
        # right on the first two claims (the third is Not Enough Evidence): an accuracy unlike sys_x's
        "baseline": (
            "system",
            [
                SC.Evidence(lb, r.questions[:1], r.strings[:1])
                for lb, r in zip(["Refuted", "Supported", "Refuted"], refs)
            ],
        ),
        **{name: ("reference", preds) for name, preds in E.reference_runs(claims).items()},
    }
    runs["baseline__x3"] = ("ablation", [E.repeated(e, 3) for e in runs["baseline"][1]])  # params averitec.repeats
    table = pd.concat(
        [
            SC.per_claim(p, refs).assign(run=r, kind=k, n_pairs=[len(x.strings[:10]) for x in p])
            for r, (k, p) in runs.items()
        ],
        ignore_index=True,
    )
    table.to_parquet(tmp_path / "scores.parquet", index=False)
    y25 = _averitec_2025(tmp_path)
    metrics_path = tmp_path / "averitec.json"
    html = run_on_fixture(
        "05_averitec_score",
        {
            "scores_path": str(tmp_path / "scores.parquet"),
            "averitec_2025_dir": str(y25),
            "metrics_path": str(metrics_path),
            "data_dir": str(FIXTURE_DATA),
        },
        tmp_path,
    )
    metrics = json.loads(metrics_path.read_text())
    assert set(metrics["runs"]) == set(runs) and metrics["runs"]["reference_gold"]["accuracy"] == 1.0
    best = max(["sys_x", "baseline"], key=lambda r: metrics["runs"][r]["averitec@0.25"])  # the first on a tie
    assert f"Best published system at level 0.25: {best}" in html
    gain = metrics["runs"]["baseline__x3"]["qa"] - metrics["runs"]["baseline"]["qa"]
    assert abs(metrics["duplication_exact"]["baseline"]["qa_gain"] - gain) < 2e-4  # each run's Q+A rounded to 4 places
    assert (
        f"each pair of baseline submitted 3 times: Q+A {metrics['duplication_exact']['baseline']['qa_gain']:+.3f}"
        in html
    )
    # the overview's Table 4 groups of the fixture's dev claims, for every run
    assert set(metrics["by_gold_pairs"]["sys_x"]) <= {"1", "2", "3+"} and metrics["by_medium"]["reference_gold"]
    assert set(metrics["fever8_meteor"]) == {"oracle", "sys_x", "reference_gold"}
    gold = metrics["fever8_meteor"]["reference_gold"]  # METEOR of a string with itself is just under 1
    assert gold["averitec"] == 1.0 and 0.99 < gold["q_only"] < 1 and 0.99 < gold["qa"] < 1
    assert set(metrics["ev2r"]) == {"oracle", "sys_x", "reference_gold"}
    assert "Rank agreement of the old and the new score over 3 runs: Kendall" in html
    assert "Ev2R judge stub-judge (temperature 0, max 3000 tokens, prompt sha256" in html


def _averitec_2025(tmp_path):
    """Stage averitec_2025 on three fixture runs, judged by the stub server (live)."""
    from test_ev2r import judge_answer, llm_params
    from test_ev2r import params as ev2r_params

    from lib.averitec import ev2r as EV
    from tests.llm_stub import StubLLM

    dev = json.loads((FIXTURE_DATA / "averitec" / "dev.json").read_text())
    preds = tmp_path / "averitec" / "predictions"
    preds.mkdir(parents=True)
    one = [{**c, "label": "Refuted", "questions": c["questions"][:1]} for c in dev]
    cheese = [{"label": "Supported", "questions": [{"question": "What?", "answers": [{"answer": "Cheese."}]}]}] * len(
        dev
    )
    for name, records in {"reference_gold": dev, "oracle": one, "sys_x": cheese}.items():
        (preds / f"{name}.json").write_text(json.dumps(records))
    out = tmp_path / "averitec_2025"
    with StubLLM(judge_answer) as stub:
        EV.stage(
            ev2r_params(tmp_path),
            llm_params("live", stub.base_url),
            {"systems": {}},
            FIXTURE_DATA,
            tmp_path / "averitec",
            out,
        )
    return out


def test_notebook_06_runs_on_the_fixture_study(tiny_study, tiny_qgen, tiny_generative, tiny_veracity, tmp_path):
    params, emb_dir, gen = tiny_generative
    metrics_path = tmp_path / "generative.json"
    html = run_on_fixture(
        "06_generative_planners",
        {
            "gen_dir": str(gen),
            "plans_dir": str(tiny_study / "plans"),
            "store_dir": str(tiny_study / "store"),
            "data_dir": str(FIXTURE_DATA),
            "model_dir": str(tiny_qgen[0]),
            "embeddings_dir": str(emb_dir),
            "metrics_path": str(metrics_path),
            "n_resamples": 200,
            "mmr_gammas": [0.0, 0.2, 0.4],
            "examples": 1,
            "generative": params["generative"],
            "retrieval": params["retrieval"],
            "timings_dir": str(gen.parent / "timings"),
            "verification_report": str(tiny_veracity / "report.json"),
        },
        tmp_path,
    )
    metrics = json.loads(metrics_path.read_text())
    plans = {"claim_only", "oracle", "bloom_qg", "mmr_pool", "pursuit_seq_seq", "qgen"}
    assert metrics["llm_mode"] == "off" and set(metrics["retrieval"]) == set(metrics["evidence"]) == plans
    assert set(metrics["retrieval"]["qgen"]) == {"bm25/claim", "bm25/global"}
    assert set(metrics["skipped"]) == {
        "claimdecomp",
        "pgmfc",
        "all_at_once",
        "agq",
        "pursuit_seq_llm",
        "pursuit_llm_llm",
    }
    assert "No LLM was configured" in html and "Not run here (llm.mode <code>off</code>)" in html
    assert "the best generative planner by NDCG@10 is" in html
    # the compute budget from the fixture stages' costs (no `plans` stage ran: the baselines' planning is missing)
    assert "Cost against evidence quality, one point per planner" in html
    assert "verification: the classifier" in html
    assert "3 of 3 planners stay within 60 s per claim" in html
    assert "Not counted, some work unrecorded: CLAIM-ONLY, ORACLE-QUERIES, BLOOM-QG." in html


def test_notebook_07_runs_on_the_fixture_study(
    tiny_study, tiny_nli, tiny_generative, tiny_veracity, tiny_quantemp, tmp_path
):
    data, averitec_dir, _ = tiny_nli
    gen = tiny_generative[2]
    metrics_path = tmp_path / "nli.json"
    html = run_on_fixture(
        "07_nli_veracity",
        {
            "averitec_dir": str(averitec_dir),
            "planners_dir": str(tiny_veracity),
            "quantemp_dir": str(tiny_quantemp),
            "runs_dir": str(tiny_study / "runs"),
            "gen_dir": str(gen),
            "store_dir": str(tiny_study / "store"),
            "data_dir": str(data),
            "averitec_scores": [str(gen / "scores.parquet")],
            "metrics_path": str(metrics_path),
            "timings_dir": str(tmp_path / "timings"),  # none: the fixture's trainings ran untimed
            "n_resamples": 200,
        },
        tmp_path,
    )
    metrics = json.loads(metrics_path.read_text())
    settings = set(metrics["averitec"]["settings"])
    assert {"naive", "claim_only_no_evidence", "gold", "planner:claim_only", "planner:qgen"} <= settings
    assert set(metrics["quantemp"]["settings"]) == {"naive", "claim_only_no_evidence", "bm25_snippets"}
    assert set(metrics["quantemp"]["published"]) == {"gpt4o_gold_article", "claim_only", "unified_claimdecomp"}
    assert "Retrieval vs verdicts: the planner with the largest ndcg@10 gain" in html
    assert "Protocol: Mean validation macro-F1 on retrieved evidence by training evidence" in html
    assert metrics["averitec"]["protocol"]["trained_on"] == "gold"


def _doc_embeddings(tiny_study, tmp_path):
    """Random unit vectors for the fixture's documents, saved where notebook 08 reads them."""
    import numpy as np
    import pandas as pd

    from lib.retrieval import dense as DN

    ids = pd.read_parquet(tiny_study / "store" / "documents.parquet")["doc_id"].tolist()
    v = np.random.default_rng(0).normal(size=(len(ids), 8)).astype(np.float32)
    out = tmp_path / "doc_embeddings"
    DN.save_embeddings(
        out / MD.model_slug(MD.BUNDLED_MINILM), ids, v / np.linalg.norm(v, axis=1, keepdims=True), MD.BUNDLED_MINILM
    )
    return out


def test_notebook_08_runs_on_the_fixture_study(tiny_study, tiny_nli, tmp_path):
    from lib.analysis import errors as ER

    data, nli_dir, planners_dir = tiny_nli
    metrics_path = tmp_path / "errors.json"
    filled = tmp_path / "filled.csv"
    params = {
        "nli_dir": str(nli_dir),
        "planners_dir": str(planners_dir),
        "runs": [str(tiny_study / "runs" / "runs.parquet")],
        "quantemp_dir": str(tmp_path / "no_quantemp"),
        "store_dir": str(tiny_study / "store"),
        "data_dir": str(FIXTURE_DATA),
        "embeddings_dir": str(_doc_embeddings(tiny_study, tmp_path)),
        "systems": {"sys_b": "sys_b.json"},
        "out_dir": str(tmp_path / "errors"),
        "metrics_path": str(metrics_path),
        "rules": {},
        "sensitivity": {"found_share": [0.5, 1.0]},
        "sheet_per_code": 2,
        "filled_sheet": str(filled),
    }
    import pandas as pd

    qt = tmp_path / "no_quantemp"
    qt.mkdir()
    pd.DataFrame(
        {"setting": ["bm25_snippets"], "seed": [0], "label": ["True"], "pred": ["False"], "taxonomy": ["statistical"]}
    ).to_parquet(qt / "predictions.parquet")
    html = run_on_fixture("08_error_analysis", params, tmp_path)
    metrics = json.loads(metrics_path.read_text())
    codes = pd.read_parquet(tmp_path / "errors" / "codes.parquet")
    assert metrics["methods"] == 2 and metrics["wrong_verdicts"] == int((codes["code"] != ER.CORRECT).sum())
    assert metrics["kappa"] is None and not metrics["agreement_measured"] and "Try it" in html
    assert "has not been measured" in html
    assert set(metrics["baseline"]) == set(ER.FAMILIES) and "Against the right verdicts" in html
    sheet = pd.read_csv(tmp_path / "errors" / "coding_sheet.csv", dtype=str, keep_default_na=False)
    assert sheet["claim_id"].is_unique  # one row per claim
    auto = codes.set_index(["method", "claim_id"])["code"]
    coded = 0
    for i, row in sheet.iterrows():  # a rater who agrees with every automatic code
        for col in [c for c in sheet.columns if c.startswith(ER.CODE_PREFIX)]:
            method = col.removeprefix(ER.CODE_PREFIX)
            if row[f"prediction:{method}"]:
                sheet.loc[i, col] = auto[(method, int(row["claim_id"]))]
                coded += 1
    sheet.to_csv(filled, index=False)
    run_on_fixture("08_error_analysis", params, tmp_path)
    metrics = json.loads(metrics_path.read_text())
    assert metrics["manual_items"] == coded > 0 and metrics["kappa"] == 1.0 and metrics["agreement_measured"]


def test_notebook_09_runs_on_the_fixture_study(tiny_study, tiny_nli, tiny_utility, tiny_climate, tmp_path):
    data, nli_dir, planners_dir = tiny_nli
    metrics_path = tmp_path / "utility.json"
    html = run_on_fixture(
        "09_relevance_vs_utility",
        {
            "nli_dir": str(nli_dir),
            "planners_dir": str(planners_dir),
            "utility_dir": str(tiny_utility[0]),
            "climate_dir": str(tiny_climate[1]),
            "runs": [str(tiny_study / "runs" / "runs.parquet")],
            "store_dir": str(tiny_study / "store"),
            "data_dir": str(data),
            "metrics_path": str(metrics_path),
            "timings_dir": str(tmp_path / "timings"),  # none: the fixture's trainings ran untimed
            "k": 2,
            "measures": ["ndcg@3", "recall@3", "ndcg@10", "recall@10"],
            "n_resamples": 50,
        },
        tmp_path,
    )
    metrics = json.loads(metrics_path.read_text())
    assert set(metrics["mean_kl"]) == {"claim_only", "oracle"} and set(metrics["contrasts"]) == {
        "relevant_but_useless",
        "irrelevant_but_useful",
    }
    assert {"claim_only|relevance", "claim_only|utility"} <= set(metrics["selector"])
    assert "Reranking by predicted utility" in html
    assert metrics["climate_fever"]["claims"] == 5 and set(metrics["climate_fever"]["selections"]) == set(U.SELECTIONS)
    assert "CLIMATE-FEVER (5 claims, k = 2 sentences per claim" in html


def test_summaries_headline_metrics_and_banner(tmp_path):
    import nbformat
    import pytest

    from lib.cli import NamedError
    from lib.data import DataError
    from lib.site.banner import banner, banner_html
    from lib.site.catalogue import headline_lines, headlines, summary

    nbs, metrics = tmp_path / "nbs", tmp_path / "metrics"
    nbs.mkdir()
    metrics.mkdir()
    for name, first in [
        ("01_a", "# 01 · Store: what is in it?\n\ntext"),
        ("02_b", "# 02 · Planning\n\n**Question.** x"),
    ]:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_markdown_cell(first)]
        nbformat.write(nb, nbs / f"{name}.ipynb")
    (metrics / "m.json").write_text(json.dumps({"a": {"b": 0.12345, "c": "x"}}))
    assert summary(nbs / "01_a.ipynb") == ("Store", "what is in it?") and summary(nbs / "02_b.ipynb") == (
        "Planning",
        "Planning",
    )
    assert headlines({"first": "m.json:a.b"}, metrics) == {"first": 0.12345}
    with pytest.raises(NamedError, match=r"report.headlines.gone: m.json has no metric 'a.d' \(see `python -m"):
        headlines({"gone": "m.json:a.d"}, metrics)  # a params typo: one line, not a KeyError's traceback
    (metrics / "cut.json").write_text('{"a": {"b": 0.1')
    (metrics / "latin.json").write_bytes('{"a": "caf\xe9"}'.encode("latin-1"))
    os.mkfifo(metrics / "fifo.json")  # never opened: it would wait for a writer
    for name, message in [("cut", "malformed JSON"), ("latin", "not UTF-8 text"), ("fifo", "not a regular file")]:
        with pytest.raises(DataError, match=f"{name}.json: .*{message}"):
            headlines({"x": f"{name}.json:a.b"}, metrics)
    assert headline_lines({"01_a": {"first": "m.json:a.b", "second": "m.json:a.c"}}, nbs, metrics) == [
        "01 Store: first 0.123; second x"
    ]
    # an undefined metric is said to be one; a list or a null was printed as if it were the headline
    (metrics / "odd.json").write_text('{"nan": NaN, "list": [0.5], "null": null}')
    assert headline_lines({"01_a": {"n": "odd.json:nan"}}, nbs, metrics) == ["01 Store: n undefined (NaN)"]
    for key, value in (("list", "[0.5]"), ("null", "None")):
        with pytest.raises(
            NamedError, match=rf"report.headlines.x: odd.json's '{key}' is {re.escape(value)}, expected"
        ):
            headlines({"x": f"odd.json:{key}"}, metrics)
    note = banner({"name": "classroom", "note": "200 claims, <short> training."})
    assert "<b>Classroom profile, not the study&#x27;s figures.</b> 200 claims, &lt;short&gt; training." in banner_html(
        note
    )
    assert banner({"name": "study", "note": None}) is None and banner_html(None) == ""


def test_the_store_setting_line_keeps_a_share_off_100_percent(tmp_path):
    """The forty-third pass: 0.99951 of dev claims read "100.0% of dev claims have a relevant document" (and
    its headline 1.000)."""
    from lib.site.catalogue import format_value, store_setting

    store = {
        "settings": {"source": "pooled", "include_gold": True},
        "claims_with_relevant_share": 0.99951,
        "claims_with_relevant_without_gold_share": 0.0004,
    }
    (tmp_path / "store.json").write_text(json.dumps(store))
    assert "so 99.95% of dev claims have a relevant document (an estimated 0.04% without them)" in store_setting(
        tmp_path
    )
    assert [format_value(v) for v in (0.99951, 1.0, -0.0, 0.994, -0.9996)] == [
        "0.9995", "1.000", "0.000", "0.994", "-0.9996"  # the forty-fourth pass: -0.9996 read "-1.000"
    ]  # fmt: skip


def test_rebuilt_store_counts_outside_their_range_are_named(tmp_path):
    """The forty-fourth pass: 600 of 500 claims read "120.0% in the store rebuilt without them"."""
    from lib.cli import NamedError
    from lib.site.catalogue import store_setting

    store = {"settings": {"source": "pooled", "include_gold": True}, "claims_with_relevant_share": 0.9}
    (tmp_path / "store.json").write_text(json.dumps(store))
    for bad in (600, -5):
        (tmp_path / "without_gold.json").write_text(json.dumps({"store": {"claims_with_relevant": bad, "claims": 500}}))
        with pytest.raises(
            NamedError, match=r"store counts are \[-?[0-9]+, 500\]: claims_with_relevant must lie from 0"
        ):
            store_setting(tmp_path)
    (tmp_path / "without_gold.json").write_text(json.dumps({"store": {"claims_with_relevant": 0, "claims": 0}}))
    with pytest.raises(NamedError, match=r"without_gold.json: store.claims is 0, expected at least 1"):
        store_setting(tmp_path)  # the forty-fifth pass: "expected whole n... (67 characters)"


def test_the_store_setting_line_reads_the_metrics_on_each_side(tmp_path):
    import pytest

    from lib.cli import NamedError
    from lib.site.catalogue import store_setting

    assert store_setting(tmp_path) is None  # before the store's notebook ran
    store = {
        "settings": {"source": "pooled", "include_gold": True},
        "claims_with_relevant_share": 0.994,
        "claims_with_relevant_without_gold_share": 0.364,
    }
    (tmp_path / "store.json").write_text(json.dumps(store))
    assert store_setting(tmp_path) == (
        "Every headline rests on the pooled store with `store.include_gold: true`: the dev annotators' gold answers "
        "are documents in it, so 99.4% of dev claims have a relevant document (an estimated 36.4% without them)."
    )
    (tmp_path / "without_gold.json").write_text(json.dumps({"store": {"claims_with_relevant": 213, "claims": 500}}))
    assert store_setting(tmp_path).endswith(
        "(42.6% in the store rebuilt without them); notebook 10, section 5, sets the main figures beside those of "
        "that store."
    )
    store["settings"]["include_gold"] = False
    (tmp_path / "store.json").write_text(json.dumps(store))
    assert store_setting(tmp_path) == (
        "Every headline rests on the pooled store with `store.include_gold: false`: only retrieved documents are "
        "in it, and 99.4% of dev claims have a relevant document."
    )
    for edited in (
        [store],
        {**store, "settings": None},
        {**store, "claims_with_relevant_share": "most"},
        {**store, "claims_with_relevant_share": float("nan")},  # printed "nan% of dev claims"
        {**store, "settings": {**store["settings"], "include_gold": "false"}},  # the text read as true
    ):
        (tmp_path / "store.json").write_text(json.dumps(edited))  # a traceback, once for a list-wrapped file
        with pytest.raises(NamedError, match=r"store.json \(or without_gold.json\): not the metrics the store's"):
            store_setting(tmp_path)


def test_the_banner_names_a_knowledge_store_and_only_then():
    from lib.params import section
    from lib.site.banner import banner, params_banner

    study, store = {"name": "study", "note": None}, section("store")
    assert store["source"] == "pooled" and banner(study, store) is None and params_banner() is None
    ks = {**store, "source": "knowledge_store", "knowledge_store": {**store["knowledge_store"], "first": 0, "last": 59}}
    note = banner(study, ks)
    assert note.startswith(
        "**Evidence store: the knowledge store at `data/averitec/knowledge_store/dev`** (dev claims 0 to 59,"
    )
    both = banner({"name": "synthetic", "note": "A synthetic store."}, ks)
    assert both.startswith("**Synthetic profile") and "A synthetic store." in both and "Evidence store" in both
    ks["knowledge_store"] = {**ks["knowledge_store"], "first": None, "last": None, "unit": "chunk"}
    assert "(dev every claim it holds, chunk passages)" in banner(study, ks)
    ks["knowledge_store"] = {**ks["knowledge_store"], "last": 0}  # one claim: it was "claims 0 to the last"
    assert "(dev claims 0 to 0, chunk passages)" in banner(study, ks)
    ks["knowledge_store"] = {**ks["knowledge_store"], "first": 5, "last": None}
    assert "(dev claims 5 to the last, chunk passages)" in banner(study, ks)


def test_every_stage_that_runs_the_notebooks_declares_the_banners_params():
    from lib import closure as CL
    from lib.site.banner import BANNER_PARAMS

    missing, runs_notebooks = {}, []
    for name, stage in CL.stages().items():
        if "lib.site.execute" in stage["cmd"] or "lib.site.render" in stage["cmd"]:
            runs_notebooks.append(name)
            declared = {p for entry in stage.get("params", []) for p in ([entry] if isinstance(entry, str) else entry)}
            if set(BANNER_PARAMS) - declared:
                missing[name] = sorted(set(BANNER_PARAMS) - declared)
    assert missing == {} and len(runs_notebooks) == 11  # ten notebooks and the render stage


def test_every_notebook_ends_with_try_it_then_exercises_and_has_headlines():
    import nbformat

    from lib.params import section
    from lib.paths import NOTEBOOKS_DIR

    names = sorted(p.stem for p in NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
    for name in names:
        cells = nbformat.read(NOTEBOOKS_DIR / f"{name}.ipynb", as_version=4).cells
        starts = [c.source.split("\n")[0] for c in cells if c.cell_type == "markdown"]
        # the computed conclusion, then "Try it", then the exercises close every notebook
        assert starts.index("## Try it") == starts.index("## Exercises") - 1, name
        heading = next(c for c in cells if c.source.startswith("## Exercises"))
        assert heading.metadata["tags"] == ["exercises"], name
    assert sorted(section("report")["headlines"]) == names


def test_notebook_10_synthesis_runs_on_the_committed_metrics(tmp_path):
    from lib.params import section
    from lib.paths import METRICS_DIR

    html = run_on_fixture(
        "10_synthesis",
        {"metrics_dir": str(METRICS_DIR), "focus": "bm25/claim", "averitec": section("averitec")},
        tmp_path,
    )
    assert "NDCG@10 (bm25/claim): ORACLE-QUERIES" in html and "Judgement completeness." in html


def test_every_notebook_defaults_to_the_parameters_the_pipeline_passes_it():
    """Opened and run by hand, a notebook computes what the pipeline computes: each parameter the stage
    passes (its params section, and each `--with` section whole) is the parameters cell's default."""
    import ast
    import shlex

    import papermill as pm

    from lib import closure as CL
    from lib.paths import NOTEBOOKS_DIR
    from lib.site.execute import stage_parameters

    checked, differ = [], {}
    for stage in CL.stages().values():
        argv = shlex.split(stage["cmd"])
        if "lib.site.execute" not in argv:
            continue
        name = argv[argv.index("lib.site.execute") + 1]
        shared = [argv[i + 1] for i, a in enumerate(argv) if a == "--with"]
        passed = stage_parameters(argv[argv.index("--section") + 1], shared)
        defaults = pm.inspect_notebook(str(NOTEBOOKS_DIR / f"{name}.ipynb"))
        for key, value in passed.items():
            if ast.literal_eval(defaults[key]["default"]) != value:
                differ[f"{name}: {key}"] = (defaults[key]["default"], value)
        checked.append(name)
    assert differ == {} and len(checked) == 10


def test_a_notebook_run_by_hand_writes_under_scratch_not_the_studys_outputs(monkeypatch, capsys):
    from lib.paths import ROOT

    monkeypatch.delenv(RP.PIPELINE_ENV, raising=False)
    assert RP.output(ROOT / "outputs/metrics/errors.json") == RP.SCRATCH_DIR / "outputs/metrics/errors.json"
    assert RP.output("outputs/errors") == RP.SCRATCH_DIR / "outputs/errors"
    assert RP.output("/elsewhere/x.json") == RP.SCRATCH_DIR / "x.json"
    assert capsys.readouterr().out.splitlines()[0] == (
        "run by hand, not by the pipeline: writing scratch/outputs/metrics/errors.json, not outputs/metrics/errors.json"
    )
    monkeypatch.setenv(RP.PIPELINE_ENV, "1")  # what lib.site.execute sets for the kernel
    assert RP.output(ROOT / "outputs/metrics/errors.json") == ROOT / "outputs/metrics/errors.json"
    assert capsys.readouterr().out == ""


def test_a_run_by_hand_never_writes_outside_scratch_and_a_stray_flag_is_named(monkeypatch):
    from lib.paths import ROOT

    monkeypatch.delenv(RP.PIPELINE_ENV, raising=False)
    scratch = RP.SCRATCH_DIR.resolve()
    assert RP.output("../../etc/x.json") == RP.SCRATCH_DIR / "x.json"
    assert RP.output("outputs/../../x.json") == RP.SCRATCH_DIR / "x.json"
    assert RP.output(ROOT / "outputs" / ".." / "outputs/metrics/nli.json") == scratch / "outputs/metrics/nli.json"
    assert RP.output("..") == RP.SCRATCH_DIR / ROOT.resolve().parent.name
    for value in ("0", "yes", "true"):
        monkeypatch.setenv(RP.PIPELINE_ENV, value)
        with pytest.raises(
            ValueError, match=f"STUDY_PIPELINE_RUN='{value}': only `python -m lib.site.execute` sets it"
        ):
            RP.output("outputs/metrics/nli.json")


def test_settle_strips_what_changes_between_runs_and_records_the_metrics(tmp_path, monkeypatch):
    import hashlib

    import nbformat

    from lib.site import execute as E

    metrics = tmp_path / "m.json"
    metrics.write_text('{"a": 1}\n')
    nb = nbformat.v4.new_notebook()
    nb.metadata["papermill"] = {"start_time": "2026-01-01T00:00:00", "input_path": "/work/x/notebooks/n.ipynb"}
    cell = nbformat.v4.new_code_cell("print(1)", id="c1")
    cell.metadata = {"tags": ["parameters"], "execution": {"iopub.status.idle": "2026"}, "papermill": {"duration": 1}}
    cell.execution_count = 3
    cell.outputs = [nbformat.v4.new_output("stream", text="1\n")]
    injected = nbformat.v4.new_code_cell("k = 3", id="a1b2c3d4")
    injected.metadata = {"tags": ["injected-parameters"]}
    styled = nbformat.v4.new_code_cell("t.style", id="s1")
    styled.outputs = [
        nbformat.v4.new_output(
            "display_data",
            {"text/html": "<table/>", "text/plain": "<pandas.io.formats.style.Styler at 0x7f50d0a43350>"},
        ),
        nbformat.v4.new_output(
            "display_data", {"text/plain": "<Figure size 900x360 with 1 Axes>", "image/png": "iVBO"}
        ),
    ]
    nb.cells = [cell, injected, styled]
    out = E.settle(nb, {"metrics_path": str(metrics), "k": 3})
    assert out.cells[1].id == "injected-parameters"  # papermill draws a random id each run
    assert [sorted(o["data"]) for o in out.cells[2].outputs] == [["text/html"], ["image/png", "text/plain"]]
    assert "papermill" not in out.metadata and out.cells[0].metadata == {"tags": ["parameters"]}
    assert out.cells[0].outputs[0]["text"] == "1\n" and out.cells[0].execution_count == 3 and out.cells[0].id == "c1"
    assert out.metadata["study"] == {
        "parameters": {"metrics_path": str(metrics), "k": 3},
        "metrics": {"m.json": hashlib.sha256(b'{"a": 1}\n').hexdigest()},
    }


def test_the_committed_executed_notebooks_carry_the_committed_metrics():
    """Read before any run (README): the executed notebooks in outputs/notebooks/ are committed with the code,
    and each records the sha256 of the metrics file it wrote (or, notebook 10, read), which must be the
    committed file's: an executed notebook older than its numbers fails here."""
    import hashlib

    from lib.paths import NOTEBOOKS_DIR, ROOT

    executed = sorted((ROOT / "outputs" / "notebooks").glob("*.ipynb"))
    assert [p.name for p in executed] == sorted(p.name for p in NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
    stale = {}
    for path in executed:
        recorded = json.loads(path.read_text())["metadata"]["study"]["metrics"]
        assert recorded, f"{path.name} records no metrics file"
        for metrics, sha in recorded.items():
            if hashlib.sha256((ROOT / metrics).read_bytes()).hexdigest() != sha:
                stale[path.name] = metrics
    assert stale == {}, f"executed notebooks older than the metrics they show (rerun the stage): {stale}"


def test_every_committed_exercise_check_tells_its_mistakes_from_the_answer():
    """In the study's executed notebooks every exercise's check passed the worked solution and fails each typical
    mistake written beside it, naming the step (an 02.1 whose expected Recall@10 is 0.0, or a 05.1 example
    where greedy matching gives the best pairing's value, fails here)."""
    import nbformat

    from lib.paths import EXECUTED_DIR
    from lib.site import course as CO

    executed = sorted(EXECUTED_DIR.glob("[0-9][0-9]_*.ipynb"))
    assert len(executed) == 10
    for path in executed:
        nb = nbformat.read(path, as_version=4)
        records = GR.records(nb)
        for ex in CO.exercises(nb):
            assert ex.number in records, f"{path.name}: exercise {ex.number} left no check record"
            assert_tells_mistakes(records[ex.number])


STYLER = re.compile(r"\.style\b(?!\.set_uuid\()(\.\w+)?")  # a Styler whose first call is not set_uuid


def test_the_styler_pattern_finds_bare_and_chained_styles():
    found = [m.group(0) for m in STYLER.finditer("display(df.style)\nt.style.format('{:.2f}')\nu.style.set_uuid('u')")]
    assert found == [".style", ".style.format"]


def test_every_styled_table_has_a_fixed_id():
    """pandas' Styler draws a random table id on every run, which would make a committed executed notebook
    differ on a rerun with nothing changed: every `.style` of a notebook sets one (`set_uuid`)."""
    from lib.paths import NOTEBOOKS_DIR

    unfixed = []
    for path in sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            code = "".join(cell["source"]) if cell["cell_type"] == "code" else ""
            unfixed += [f"{path.stem}: {m.group(0)}" for m in STYLER.finditer(code)]
    assert unfixed == []


WRITERS = {"to_csv": 0, "to_parquet": 0, "write_text": None, "write_bytes": None, "savefig": 0, "write_metrics": 1}


def _root_name(node):
    """The variable a path expression starts from: `out_dir / "x.csv"` -> out_dir, `p.parent` -> p."""
    while True:
        if isinstance(node, ast.BinOp):
            node = node.left
        elif isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            return node.id if isinstance(node, ast.Name) else None


def written_paths(code: str) -> set[str]:
    """The variables a notebook's code writes files under (the path argument of a writer, or the object
    `write_text`/`mkdir` is called on)."""
    out = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name, pos = node.func.attr, WRITERS.get(node.func.attr, "no")
            if name in ("write_text", "write_bytes", "mkdir"):
                out.add(_root_name(node.func.value))
            elif pos != "no" and len(node.args) > pos:
                out.add(_root_name(node.args[pos]))
    return out - {None}


def routed_through_output(code: str) -> set[str]:
    """The variables assigned from `RP.output(...)` (alone or in a tuple)."""
    out = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Assign):
            targets = [t for tgt in node.targets for t in (tgt.elts if isinstance(tgt, ast.Tuple) else [tgt])]
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value] * len(targets)
            for t, v in zip(targets, values):
                calls = [c for c in ast.walk(v) if isinstance(c, ast.Call)]
                if isinstance(t, ast.Name) and any(getattr(c.func, "attr", None) == "output" for c in calls):
                    out.add(t.id)
    return out


def _code(path) -> str:
    cells = json.loads(path.read_text())["cells"]
    return "\n".join(
        line
        for c in cells
        if c["cell_type"] == "code"
        for line in "".join(c["source"]).splitlines()
        if not line.lstrip().startswith(("%", "!"))
    )


def test_the_write_check_tells_a_routed_path_from_a_direct_one():
    code = 'a = RP.output(ROOT / a)\nb, c = RP.output(b), RP.output(c)\nd = ROOT / "x"\nx.to_csv(a / "f.csv")\n'
    code += 'RP.write_metrics(m, b)\nc.parent.mkdir()\ny.to_parquet(d / "y.parquet")\nplt.savefig("z.png")\n'
    assert written_paths(code) == {"a", "b", "c", "d"} and routed_through_output(code) == {"a", "b", "c"}


def test_every_notebook_writes_only_through_the_output_function():
    """A notebook run by hand must write under scratch/, never the study's outputs (lib.site.reports.output):
    every variable a notebook writes under is assigned from `RP.output(...)`."""
    from lib.paths import NOTEBOOKS_DIR

    direct = {}
    for path in sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb")):
        code = _code(path)
        left = written_paths(code) - routed_through_output(code)
        if left:
            direct[path.stem] = sorted(left)
    assert direct == {}


def test_a_notebook_that_fails_leaves_no_half_executed_copy(tmp_path):
    import nbformat

    from lib.site.execute import NotebookFailed

    src = tmp_path / "notebooks"
    src.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    params = nbformat.v4.new_code_cell("x = 1")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 99 · fails"),
        params,
        nbformat.v4.new_code_cell("raise RuntimeError('stop')"),
    ]
    nbformat.write(nb, src / "99_fails.ipynb")
    out = tmp_path / "executed"
    out.mkdir()
    (out / "99_fails.ipynb").write_text("the last good run")
    with pytest.raises(
        NotebookFailed,
        match=r"notebook 99_fails: cell \[3\] stopped with RuntimeError: stop \(the run with its traceback: .*99_fails.failed.ipynb\)",
    ):
        run_notebook(
            "99_fails", {"x": 2}, out_dir=out, notebooks_dir=src, timeout_s=60, failed_dir=tmp_path / "scratch"
        )
    assert (out / "99_fails.ipynb").read_text() == "the last good run"  # papermill wrote a temporary file
    assert sorted(p.name for p in out.iterdir()) == ["99_fails.ipynb"]
    kept = nbformat.read(tmp_path / "scratch" / "99_fails.failed.ipynb", as_version=4)
    assert kept.cells[-1].outputs[0].output_type == "error"


def test_the_executed_copy_never_replaces_its_source_or_the_source_notebooks(tmp_path):
    from lib.cli import NamedError
    from lib.site import course as CO

    src = tmp_path / "notebooks"
    src.mkdir()
    (src / "99_x.ipynb").write_text("{}")
    with pytest.raises(NamedError, match="is also an input of this command"):
        run_notebook("99_x", {}, out_dir=src, notebooks_dir=src)
    with pytest.raises(NamedError, match="is also an input of this command"):
        CO.write_exercises(src, notebooks_dir=src)
    assert (src / "99_x.ipynb").read_text() == "{}"


def _notebook(src, name: str, *cells: str, parameters: str = "x = 1") -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    params = nbformat.v4.new_code_cell(parameters)
    params.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell(f"# {name}"), params, *map(nbformat.v4.new_code_cell, cells)]
    nbformat.write(nb, src / f"{name}.ipynb")


def test_a_run_that_fails_after_writing_its_metrics_puts_the_old_metrics_back(tmp_path):
    """The metrics are written midway, the executed notebook at the end: a failure (or a stop) between them
    left new metrics beside the old notebook."""
    from lib.site.execute import NotebookFailed

    src, out = tmp_path / "notebooks", tmp_path / "executed"
    src.mkdir()
    metrics = tmp_path / "m.json"
    metrics.write_text('{"old": 1}')
    _notebook(
        src,
        "99_m",
        "from pathlib import Path; Path(metrics_path).write_text('{\"new\": 2}')",
        "raise RuntimeError('later')",
        parameters="metrics_path = 'm.json'",
    )
    with pytest.raises(NotebookFailed, match="RuntimeError: later"):
        run_notebook("99_m", {"metrics_path": str(metrics)}, out_dir=out, notebooks_dir=src, failed_dir=tmp_path)
    assert metrics.read_text() == '{"old": 1}'


def test_a_run_that_fails_puts_back_what_was_in_the_folder_it_writes_and_touches_nothing_else(tmp_path, monkeypatch):
    """Notebook 08 writes its error codes (`out_dir`) early: a stopped or failed run left the new codes beside
    the old metrics and notebook. Put back: the files that were there. Left alone: files that appeared in a
    folder a parameter names (`out_dir: .` deleted a user's file and the run's own failure report)."""
    from lib.cli import NamedError
    from lib.site import execute as EX

    src = tmp_path / "notebooks"
    src.mkdir()
    out_dir = tmp_path / "errors"
    out_dir.mkdir()
    (out_dir / "codes.csv").write_text("old")
    write = (
        "from pathlib import Path; d = Path(out_dir); d.mkdir(exist_ok=True); (d / 'codes.csv').write_text('new'); "
        "(d / 'user.txt').write_text('a user wrote this meanwhile')"
    )
    _notebook(src, "99_o", write, "raise RuntimeError('later')", parameters="out_dir = 'x'")
    run = dict(out_dir=tmp_path / "executed", notebooks_dir=src, failed_dir=out_dir)
    with pytest.raises(EX.NotebookFailed, match="RuntimeError: later"):
        EX.run_notebook("99_o", {"out_dir": str(out_dir)}, **run)
    files = {f.name: f.read_text()[:3] for f in out_dir.iterdir()}
    assert files == {"codes.csv": "old", "user.txt": "a u", "99_o.failed.ipynb": "{\n "}
    monkeypatch.setattr(EX, "MAX_KEPT_BYTES", 10)  # a folder too big to keep aside: refused, not read whole
    with pytest.raises(NamedError, match=r"errors: holds over 0 MiB, too much to keep aside"):
        EX.run_notebook("99_o", {"out_dir": str(out_dir)}, **run)


def test_a_notebook_stage_keeps_its_stages_outputs_and_the_paths_its_parameters_name():
    from lib.paths import ROOT
    from lib.site.execute import written_outputs

    params = {"metrics_path": "outputs/metrics/errors.json", "out_dir": "x/y", "judging": {"sheet_path": "j.csv"}}
    owned, named = written_outputs("08_error_analysis", params)
    assert owned == [ROOT / "outputs/errors", ROOT / "outputs/metrics/errors.json"]
    assert named == [ROOT / "x/y", ROOT / "j.csv"]
    assert ROOT / "outputs/judging" in written_outputs("04_retrieval_metrics", {})[0]


def test_a_cell_past_the_timeout_is_one_named_error(tmp_path):
    from lib.site.execute import NotebookFailed

    src = tmp_path / "notebooks"
    src.mkdir()
    _notebook(src, "99_slow", "import time; time.sleep(30)")
    with pytest.raises(NotebookFailed, match=r"notebook 99_slow: CellTimeoutError \(--timeout 2 s per cell\)"):
        run_notebook("99_slow", {}, out_dir=tmp_path / "out", notebooks_dir=src, timeout_s=2, failed_dir=tmp_path)


@pytest.mark.parametrize(
    "metrics_path, problem",
    [
        ("README.md", "is a file of the study"),
        ("lib/x.json", "lies inside lib/, the study's code"),
        ("outputs/averitec/scores.parquet", "lies inside the output of stage `averitec`"),
        ("/dev/null", "metrics_path /dev/null: not a regular file"),  # the metrics went nowhere, exit 0
    ],
)
def test_a_metrics_path_over_the_studys_files_or_another_stages_output_is_refused(tmp_path, metrics_path, problem):
    from lib.cli import NamedError

    src = tmp_path / "notebooks"
    src.mkdir()
    _notebook(src, "05_averitec_score", "1", parameters="metrics_path = 'm.json'")
    with pytest.raises(NamedError, match=problem):
        run_notebook("05_averitec_score", {"metrics_path": metrics_path}, out_dir=tmp_path / "o", notebooks_dir=src)


def test_a_metrics_path_that_is_the_executed_notebook_or_a_damaged_notebook_is_refused(tmp_path):
    """The metrics written over by the executed notebook at the end (exit 0, no metrics anywhere); a notebook
    whose cell source is a number ended in papermill's traceback."""
    import json as _json

    from lib.cli import NamedError

    src, out = tmp_path / "notebooks", tmp_path / "executed"
    src.mkdir()
    _notebook(src, "99_m", "1", parameters="metrics_path = 'm.json'")
    with pytest.raises(NamedError, match="is also an input of this command"):
        run_notebook("99_m", {"metrics_path": str(out / "99_m.ipynb")}, out_dir=out, notebooks_dir=src)
    raw = _json.loads((src / "99_m.ipynb").read_text())
    raw["cells"][2]["source"] = 123
    (src / "99_m.ipynb").write_text(_json.dumps(raw))
    with pytest.raises(NamedError, match="99_m.ipynb: cell 2: expected a cell with a type and text source"):
        run_notebook("99_m", {"metrics_path": str(tmp_path / "m.json")}, out_dir=out, notebooks_dir=src)


def test_a_notebook_name_with_a_path_is_refused(tmp_path):
    """`execute ../outputs/notebooks/05_…` ran an executed copy as the source, into outputs/outputs/."""
    from lib.cli import NamedError

    for name in ("../outputs/notebooks/05_averitec_score", "sub/05_x", ".."):
        with pytest.raises(NamedError, match="expected the name of a notebook in"):
            run_notebook(name, {}, out_dir=tmp_path)


def test_two_runs_of_one_notebook_at_once_are_refused(tmp_path):
    """Two runs wrote one metrics file; the one stopped put the old metrics back over the finished one's."""
    import pytest

    from lib.cli import NamedError
    from lib.site import execute as EX

    with EX._one_run("03_aggregation", tmp_path):
        with pytest.raises(NamedError, match="notebook 03_aggregation: another run of it is in progress"):
            with EX._one_run("03_aggregation", tmp_path):
                pass
        with EX._one_run("04_retrieval_metrics", tmp_path):  # another notebook runs beside it
            pass
    with EX._one_run("03_aggregation", tmp_path):  # the first ended: free again
        pass


def test_an_empty_object_in_a_metrics_file_is_a_leaf_not_dropped():
    """The forty-fourth pass: `render metrics` showed `y: []` but nothing for `x: {}`."""
    from lib.site.catalogue import flatten

    assert flatten({"x": {}, "y": [], "z": {"a": 1, "b": {}}}) == {"x": {}, "y": [], "z.a": 1, "z.b": {}}
    assert flatten({}) == {}


def test_a_notebook_named_with_its_suffix_or_not_at_all_is_named_with_the_names_it_takes():
    """The forty-ninth pass: `01_knowledge_store.ipynb` ended in errno text about '01_knowledge_store.ipynb.ipynb'."""
    from lib.site import execute as E

    for name in ("01_knowledge_store.ipynb", "99_nothing"):
        with pytest.raises(SystemExit) as err:
            E.main([name, "--section", "knowledge_store", "--with", "judgements"])
        assert str(err.value).startswith(f"error: {name}: no notebook notebooks/{name}.ipynb; give a name without")
        assert "01_knowledge_store, 02_query_planning" in str(err.value)


def test_no_notebook_shows_a_table_rounded_by_numpy():
    """The fifty-first pass, second round (V 5): notebook 07 displayed `table.round(3)` (numpy rounds 0.2005 to
    0.200) beside a sentence that reads the same level as `format` prints it (0.201). A displayed table is rounded
    by the display (`display.precision`, a Styler's format), as the sentences are."""
    import nbformat

    from lib.paths import NOTEBOOKS_DIR

    rounded = re.compile(r"display\(.*\.round\(|^\S.*\.round\(\d?\)\s*$", re.M)  # shown, or a cell's last value
    found = [
        f"{path.name} cell {i}"
        for path in sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
        for i, cell in enumerate(nbformat.read(path, as_version=4).cells)
        if cell.cell_type == "code" and rounded.search(cell.source)
    ]
    assert found == []
    assert rounded.search("display(t.round(3))") and rounded.search("x = 1\nt.round(3)")  # the check can fail
    assert not rounded.search('"mean_rank": t["r"].round(2).to_dict(),')
