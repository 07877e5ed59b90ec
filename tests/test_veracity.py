"""The veracity study: evidence settings, splits, the published-systems match, and both stages end to end
on small data with a tiny classifier."""

import dataclasses
import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from lib import models as MD
from lib.data import averitec
from lib.data import labels as LB
from lib.data.labels import AVERITEC_LABELS
from lib.paths import from_repo
from lib.verifier import nli as N
from lib.verifier import quantemp as NQ
from lib.verifier import stages as NT
from lib.verifier import veracity as V
from tests.conftest import FIXTURE_DATA, tiny_classifier


def test_majority_and_stratified_split():
    # the naive setting's label: lib.data.labels.majority_label, ties alphabetical first
    assert LB.majority_label([SimpleNamespace(label=x) for x in ["b", "a", "b", "a", "c"]]) == "a"
    labels = ["x"] * 40 + ["y"] * 10
    tr, te = NT.stratified_split(labels, 0.2, seed=0)
    assert len(te) == 10 and sorted(tr + te) == list(range(50))
    assert [labels[i] for i in te].count("y") == 2  # stratified: 20% of each class
    assert NT.stratified_split(labels, 0.2, seed=0) == (tr, te) != NT.stratified_split(labels, 0.2, seed=1)
    with pytest.raises(ValueError, match="fraction"):
        NT.stratified_split(labels, 1.0, 0)


def test_gold_evidence_uses_boolean_explanations_in_question_order():
    claim = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")[0]
    assert V.gold_evidence(claim) == ("The moon is made of rock and dust.", "NASA never said the moon is cheese.")
    assert V.gold_evidence(claim, 1) == ("The moon is made of rock and dust.",)


def test_examples_leave_out_labels_outside_the_set():
    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")  # Refuted, Supported, NEE
    four = V.examples(claims, None, "averitec4")
    assert [e.label for e in four] == ["Refuted", "Supported", "Not Enough Evidence"] and four[0].evidence == ()
    assert [e.label for e in V.examples(claims, None, "averitec3")][-1] == LB.OTHER
    two = V.examples(claims, {0: ["e1", "e2"]}, "averitec2", prefix="dev:")
    assert [e.uid for e in two] == ["dev:0", "dev:1"] and two[0].evidence == ("e1", "e2") and two[1].evidence == ()


def test_top_k_evidence_and_planner_runs(tiny_study):
    runs_path = tiny_study / "runs" / "runs.parquet"
    setting = {"retriever": "bm25", "scope": "claim", "temporal": False, "fusion": "combmax_norm"}
    runs = V.planner_runs([runs_path], ["oracle", "claim_only"], setting)
    assert list(runs) == ["oracle", "claim_only"]
    docs = pd.read_parquet(tiny_study / "store" / "documents.parquet")
    run = runs["oracle"]
    top = V.top_k_evidence(run, docs, 2)
    text = dict(zip(docs["doc_id"], docs["text"]))
    first = run[run["claim_id"] == 0].sort_values("rank")["doc_id"].tolist()[:2]
    assert top[0] == tuple(text[d] for d in first)
    with pytest.raises(ValueError, match="no runs for planners \\['qgen'\\]"):
        V.planner_runs([runs_path], ["qgen"], setting)
    with pytest.raises(ValueError, match="one run configuration"):
        V.top_k_evidence(pd.read_parquet(runs_path), docs, 2)


def _write_csv(path, header, rows, sep=","):
    pd.DataFrame(rows, columns=header).to_csv(path, index=False, sep=sep)


def test_published_systems_match_by_normalised_claim_text(tmp_path, capsys):
    q = tmp_path / "quantemp"
    q.mkdir()
    feats = ['[Claim]:"Prices doubled since 2010."[Evidences]:an article', "[Claim]:Taxes rose 5%.[Evidences]:another"]
    pd.DataFrame({"features": feats, "true_label": ["False", "True"], "pred_label": ["False", "False"]}).to_csv(
        q / "test_subset_gold_with_article.csv"
    )
    _write_csv(
        q / "sys.csv",
        ["claim", "verdict"],
        [
            ["prices doubled since 2010.", "Conflicting"],
            ["Unrelated claim", "True"],
            ["“Prices doubled since 2010.”", "True"],
        ],
    )
    table, counts = NQ.published_systems({"sys": "sys.csv"}, tmp_path)
    # the claim predicted twice with two verdicts is named, and the rule said (it was left to the file's order)
    assert "sys.csv: 1 gold-subset claim(s) predicted twice with different verdicts, each scored by its first row" in (
        capsys.readouterr().err
    )
    assert counts["matched"] == {"gpt4o_gold_article": 2, "sys": 1} and counts["predictions"] == {"sys": 3}
    row = table[table["system"] == "sys"].iloc[0]
    assert (row["label"], row["pred"]) == ("False", "Conflicting")  # the first matching prediction counts
    assert NQ.norm_claim("“Prices  doubled”") == "prices doubled"


def test_averitec_stage_end_to_end(tiny_nli):
    _, out, planners = tiny_nli
    preds, merged = V.averitec_predictions(out, planners)
    settings = preds.groupby(["setting", "k"]).size().to_dict()
    assert settings == {
        ("naive", -1): 3,
        ("gold_justification", -1): 3,
        ("claim_only_no_evidence", -1): 3,
        ("gold", 1): 3,
        ("gold", 2): 3,
        ("planner:claim_only", 2): 3,
        ("planner:oracle", 1): 3,
        ("planner:oracle", 2): 3,
        ("planner:claim_only@global", 2): 3,
        ("planner:oracle@global", 2): 3,
    }
    kinds = preds.groupby("setting")["kind"].first()
    assert kinds["planner:oracle@global"] == "planner_scope" and kinds["planner:oracle"] == "planner"
    assert kinds["gold_justification"] == "justification"
    assert set(preds.loc[preds["setting"] == "naive", "pred"]) == {"Refuted"}
    probs = preds[[f"p:{lb}" for lb in AVERITEC_LABELS]].to_numpy()
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    assert (preds.loc[preds["setting"] == "planner:oracle", "n_evidence"] <= 2).all()
    report = json.loads((out / "report.json").read_text())
    assert set(report["training"]) == {"claim_only/seed0", "gold/seed0"} and report["naive_label"] == "Refuted"
    assert (out / "models" / "gold" / "training.json").exists()
    # the weights stay beside the committed report, recorded with it (lib.models); the report names them
    # relative to the repository where they are inside it, so it is the same file in every checkout
    assert MD.holds_weights(out / "models", out / "report.json")
    assert from_repo(report["models"]["gold/seed0"]).resolve() == (out / "models" / "gold").resolve()
    assert (
        merged["retrieval"]["retriever"] == "bm25"
        and from_repo(merged["verifier"]).resolve() == (out / "models" / "gold").resolve()
    )
    with pytest.raises(FileNotFoundError, match="nli_planners"):
        V.averitec_predictions(out, out / "nowhere")


def test_quantemp_stage_end_to_end(tiny_bert, tmp_path):
    q = tmp_path / "data" / "quantemp"
    q.mkdir(parents=True)
    labels = ["True", "False", "Half True/False"]
    val = [
        {
            "claim": f"In {2000 + i} the rate rose {i} percent.",
            "label": labels[i % 3],
            "evidences": [{"questions": "q", "top_k_doc": [f"snippet {i} a", f"snippet {i} b"] if i % 4 else []}],
        }
        for i in range(30)
    ]
    (q / "val_claims_bm25_evidence.json").write_text(json.dumps(val))
    tax = [[f"In {2000 + i} the rate was {i}", "temporal"] for i in range(6)] + [
        [f"{i} percent of people agree", "statistical"] for i in range(6)
    ]
    _write_csv(q / "taxonomy_labelled_claims.csv", ["claim", "taxonomy_labels"], tax, sep="@")
    pd.DataFrame(
        {
            "features": ["[Claim]:In 2003 the rate rose 3 percent.[Evidences]:x"],
            "true_label": ["True"],
            "pred_label": ["False"],
        }
    ).to_csv(q / "test_subset_gold_with_article.csv")
    _write_csv(q / "sys.csv", ["claim", "verdict"], [["In 2003 the rate rose 3 percent.", "True"]])
    params = {
        "classifier": tiny_classifier(tiny_bert),
        "seeds": [0, 1],
        "k": 3,
        "test_fraction": 0.2,
        "split_seed": 0,
        "taxonomy": {"model": N.NLISettings().model, "folds": 2, "seed": 0},
        "published": {"sys": "sys.csv"},
    }
    preds = NQ.quantemp_stage(params, tmp_path / "data", tmp_path / "out")
    assert preds.groupby(["setting", "seed"]).size().to_dict() == {
        ("bm25_snippets", 0): 6,
        ("bm25_snippets", 1): 6,
        ("claim_only_no_evidence", 0): 6,
        ("claim_only_no_evidence", 1): 6,
        ("naive", 0): 6,
    }
    assert set(preds["taxonomy"]) <= {"temporal", "statistical"} and preds["has_snippets"].dtype == bool
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["test_claims"] == 6 and report["published"]["matched"] == {"gpt4o_gold_article": 1, "sys": 1}
    assert 0 <= report["taxonomy"]["cv_accuracy"] <= 1 and len(report["taxonomy"]["cv_accuracy_folds"]) == 2
    published = pd.read_parquet(tmp_path / "out" / "published.parquet")
    assert sorted(published["system"]) == ["gpt4o_gold_article", "sys"]


def _preds(rows, labels=AVERITEC_LABELS, setting="s", k=3, seed=0):
    """Prediction rows from (claim_id, gold, predicted index or probability list)."""
    out = []
    for cid, gold, p in rows:
        probs = p if isinstance(p, list) else [float(i == p) for i in range(len(labels))]
        out.append(
            {
                "setting": setting,
                "kind": "planner",
                "k": k,
                "seed": seed,
                "claim_id": cid,
                "label": gold,
                "pred": labels[int(np.argmax(probs))],
                **{f"p:{lb}": x for lb, x in zip(labels, probs)},
            }
        )
    return pd.DataFrame(out)


def test_setting_scores_in_reduced_label_sets():
    rows = [
        (0, "Supported", [0.4, 0.1, 0.3, 0.2]),
        (1, "Not Enough Evidence", [0.3, 0.2, 0.25, 0.25]),
        (2, "Refuted", [0.1, 0.6, 0.2, 0.1]),
        (3, "Conflicting Evidence/Cherrypicking", [0.1, 0.3, 0.3, 0.3]),
    ]
    preds = _preds(rows)
    four = V.setting_scores(preds, "averitec4").iloc[0]
    assert four["accuracy"] == 0.5 and four["n"] == 4  # Supported and Refuted right
    three = V.setting_scores(preds, "averitec4", "averitec3").iloc[0]
    # merged NEE+Conflicting: claim 0 now loses to it (0.5 > 0.4); claims 1 and 3 win with it (0.5, 0.6)
    assert three["accuracy"] == 0.75
    two = V.setting_scores(preds, "averitec4", "averitec2").iloc[0]
    assert two["accuracy"] == 0.5 and two[f"f1:{LB.OTHER}"] == 0.0  # never predicts the merged class
    assert V.read_labels(preds, "averitec4", "averitec2")[1] == ["Supported", "Supported", "Refuted", "Refuted"]


def test_nli_verdicts_in_the_trained_or_a_coarser_label_set():
    rows = [(0, "Supported", [0.4, 0.1, 0.3, 0.2]), (1, "Refuted", [0.1, 0.2, 0.6, 0.1])]
    preds = _preds(rows).assign(setting="planner:p", k=3, seed=0)
    assert V.nli_verdicts(preds, "planner:p", 3) == dict(zip(preds["claim_id"], preds["pred"]))
    # claim 1's best class is NEE (0.6); in two classes Refuted (0.2) beats Supported (0.1)
    assert V.nli_verdicts(preds, "planner:p", 3, None, "averitec4", "averitec2") == {0: "Supported", 1: "Refuted"}
    with pytest.raises(ValueError, match="needs the classifier's own"):
        V.nli_verdicts(preds, "planner:p", 3, target="averitec2")
    with pytest.raises(ValueError, match="no classifier predictions for planner:q"):
        V.nli_verdicts(preds, "planner:q", 3)


def test_over_seeds_and_against_baseline():
    gold = ["Supported", "Refuted"] * 10
    right = _preds([(i, g, AVERITEC_LABELS.index(g)) for i, g in enumerate(gold)], setting="good")
    wrong = _preds([(i, g, 2) for i, g in enumerate(gold)], setting="base")
    seed1 = _preds([(i, g, 2) for i, g in enumerate(gold)], setting="good", seed=1)
    preds = pd.concat([right, wrong, seed1], ignore_index=True)
    scores = V.setting_scores(preds, "averitec4")
    summary = V.over_seeds(scores).set_index("setting")
    assert summary.loc["good", "accuracy_mean"] == 0.5 and summary.loc["good", "seeds"] == 2
    assert summary.loc["good", "accuracy_std"] == pytest.approx(np.std([1.0, 0.0], ddof=1))
    tests = V.against_baseline(preds, ("base", 3), "averitec4", n_resamples=500).set_index("setting")
    assert tests.loc["good", "delta_accuracy"] == 1.0 and tests.loc["good", "p_mcnemar"] == pytest.approx(2 * 0.5**20)
    assert tests.loc["good", "significant"] and tests.loc["base", "p_bootstrap"] == 1.0
    assert V.nli_verdicts(preds, "good", 3) == dict(enumerate(gold))
    with pytest.raises(ValueError, match="no classifier predictions"):
        V.nli_verdicts(preds, "good", 5)
    with pytest.raises(ValueError, match="baseline"):
        V.against_baseline(preds, ("nothing", 3), "averitec4")
    # three claims: no bootstrap test, and no "not significant" (the thirty-third pass)
    few = preds[preds["claim_id"] < 3]
    tiny = V.against_baseline(few, ("base", 3), "averitec4", n_resamples=100).set_index("setting")
    assert np.isnan(tiny.loc["good", "p_bootstrap"]) and tiny.loc["good", "significant"] is None


def _claim(cid: int, answers: list[tuple[str, str]]) -> averitec.Claim:
    qs = tuple(
        averitec.Question(f"q{i}", (averitec.Answer(t, kind, "u", None),)) for i, (t, kind) in enumerate(answers)
    )
    return averitec.Claim(cid, "train", f"claim {cid}", "Refuted", None, (), (), "", None, None, None, qs)


def test_mixed_evidence_drops_unanswerable_text_and_mixes_in_other_claims_answers():
    from lib.verifier import averitec as NAV

    claims = [
        _claim(
            0,
            [
                ("own zero a", "Extractive"),
                ("No answer could be found.", "Unanswerable"),
                ("own zero b", "Abstractive"),
            ],
        ),
        _claim(1, [("own one a", "Extractive")]),
        _claim(2, [("own two a", "Extractive"), ("own two b", "Extractive")]),
    ]
    kept = NAV.mixed_evidence(claims, 3, 0.0, seed=0)
    assert {"own zero a", "own zero b"} < set(kept[0]) and "No answer could be found." not in kept[0]
    assert (
        sum(t.startswith("own zero") for t in kept[0]) == 2 and len(kept[1]) == 3
    )  # free slots: other claims' answers
    assert kept[1].count("own one a") == 1 and all(
        t.startswith(("own zero", "own two")) for t in kept[1] if t != "own one a"
    )
    swapped = NAV.mixed_evidence(claims, 3, 1.0, seed=0)
    for c in claims:  # every piece replaced: none is the claim's own
        assert not any(t.startswith(f"own {('zero', 'one', 'two')[c.claim_id]}") for t in swapped[c.claim_id])
    assert NAV.mixed_evidence(claims, 3, 0.5, seed=3) == NAV.mixed_evidence(claims, 3, 0.5, seed=3)
    assert NAV.training_evidence(claims, 2, "gold")[0] == ("own zero a", "No answer could be found.")
    assert NAV.training_evidence(claims, 3, "mixed", {"distractor_share": 0.0, "seed": 0}) == kept
    with pytest.raises(ValueError, match="needs the claims' retrieved documents"):
        NAV.training_evidence(claims, 3, "retrieved")
    with pytest.raises(ValueError, match="no retrieved evidence for claim 1"):
        NAV.training_evidence(claims, 3, "retrieved", retrieved={0: ("a",)})
    assert NAV.training_evidence(claims[:1], 1, "retrieved", retrieved={0: ("a", "b")}) == {0: ("a",)}
    with pytest.raises(ValueError, match="training evidence 'other'"):
        NAV.training_evidence(claims, 3, "other")
    with pytest.raises(ValueError, match="distractor_share"):
        NAV.mixed_evidence(claims, 3, 1.5, 0)
    with pytest.raises(ValueError, match="two claims"):
        NAV.mixed_evidence(claims[:1], 3, 0.5, 0)


def test_against_baseline_gives_the_minimum_detectable_difference():
    gold = ["Supported", "Refuted"] * 10
    a = _preds([(i, g, AVERITEC_LABELS.index(g) if i % 3 else 2) for i, g in enumerate(gold)], setting="a")
    base = _preds([(i, g, 2) for i, g in enumerate(gold)], setting="base")
    tests = V.against_baseline(pd.concat([a, base]), ("base", 3), "averitec4", n_resamples=300).set_index("setting")
    assert tests.loc["base", "mde_macro_f1"] == 0.0  # a setting against itself: no spread
    assert tests.loc["a", "mde_macro_f1"] == pytest.approx(2.8016 * tests.loc["a", "se_delta_macro_f1"], rel=1e-4)
    assert tests.loc["a", "se_delta_macro_f1"] > 0


def test_retrieved_evidence_ranks_by_bm25_and_leaves_out_the_claims_own_answers():
    from lib.store.build import doc_id_for
    from lib.store.urls import normalise_url
    from lib.verifier import retrieved_training as NAV

    claim = dataclasses.replace(
        _claim(0, [("the tower is tall in paris", "Extractive")]), text="how tall is the tower in paris"
    )
    own = doc_id_for(normalise_url("u"), "the tower is tall in paris")
    filler = [f"bananas number {i}" for i in range(8)]  # a corpus where the claim's words are rare (positive idf)
    docs = pd.DataFrame(
        {
            "doc_id": [own, "d_far", "d_near", *[f"f{i}" for i in range(8)]],
            "text": ["the tower is tall in paris", "paris is a city", "the tower in paris is tall", *filler],
        }
    )
    got = NAV.retrieved_evidence([claim], docs, 2)
    assert got == {0: ("the tower in paris is tall", "paris is a city")}  # its own answer, the best match, is left out
    assert NAV.retrieved_evidence([claim], docs, 4)[0][-2:] == (
        "bananas number 0",
        "bananas number 1",
    )  # zero scores: store order
    with pytest.raises(ValueError, match="depth = 0"):
        NAV.retrieved_evidence([claim], docs, 0)
    with pytest.raises(ValueError, match="a store with documents"):
        NAV.retrieved_evidence([claim], docs.iloc[:0], 2)


def test_the_stage_trains_on_retrieved_evidence_from_the_store(tiny_study, tiny_nli, tiny_bert, tmp_path):
    from conftest import tiny_classifier

    from lib.verifier import averitec as NAV
    from lib.verifier import retrieved_training as RT

    data, _, _ = tiny_nli
    params = {
        "classifier": tiny_classifier(tiny_bert),
        "seeds": [0],
        "label_set": "averitec4",
        "training_evidence": "retrieved",
        "k": 2,
        "ablation_ks": [],
    }
    with pytest.raises(FileNotFoundError, match="run stage training_evidence"):
        NAV.averitec_stage(params, data, tmp_path / "averitec", tmp_path / "none.parquet")
    evidence = RT.stage(params, data_dir=data, store_dir=tiny_study / "store", out=tmp_path / "evidence.parquet")
    assert NAV.load_retrieved(tmp_path / "evidence.parquet") == evidence and {len(v) for v in evidence.values()} == {2}
    NAV.averitec_stage(params, data, tmp_path / "averitec", tmp_path / "evidence.parquet")
    report = json.loads((tmp_path / "averitec" / "report.json").read_text())
    assert report["training_evidence"] == "retrieved" and report["training"]["gold/seed0"]["steps_run"] > 0


def test_the_stages_that_load_the_verifier_train_it_where_its_weights_are_missing(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(MD, "ensure_weights", lambda *a: calls.append(a))
    NT.ensure_verifier("p.yaml", tmp_path)  # nli_planners, utility, climate_fever: before loading the models
    assert calls == [
        (tmp_path / "models", tmp_path / "report.json", ["-m", "lib.verifier.averitec", "--params", "p.yaml"])
    ]


@pytest.mark.parametrize(
    "module, args",
    [("lib.analysis.utility", []), ("lib.analysis.climate_fever", []), ("lib.verifier.veracity", ["planners"])],
)
def test_a_bad_params_file_is_refused_before_the_verifier_is_trained(tmp_path, monkeypatch, module, args):
    """The verifier's training (about ten minutes) was started before the stage's own section was read."""
    from lib.params import ParamsError

    trained = []
    monkeypatch.setattr(MD, "ensure_weights", lambda *a: trained.append(a))
    (tmp_path / "p.yaml").write_text("- a list, not sections\n")
    module_ = __import__(module, fromlist=["main"])
    monkeypatch.setattr(module_, "study_params_only", lambda *a: None)  # another file is refused at once (below)
    main = module_.main
    with pytest.raises(ParamsError):
        main([*args, "--params", str(tmp_path / "p.yaml")])
    assert trained == []


@pytest.mark.parametrize("args", [["--ks", "-1"], ["--ks", "0"], ["--ablation-ks", "-3"], ["--seeds", "-7"]])
def test_the_sweep_refuses_counts_out_of_range_before_any_training(args, capsys):
    """`--ks -1 0` and `--seeds -7` were taken; training evidence at k = -1 kept all documents but the last."""
    from lib.verifier import sweep as SW

    with pytest.raises(SystemExit) as end:
        SW.main(args)
    assert end.value.code == 2 and f"argument {args[0]}" in capsys.readouterr().err
