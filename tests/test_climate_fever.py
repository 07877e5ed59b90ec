"""CLIMATE-FEVER as FER's second dataset: sentence ids, the sentence-label qrels, the relevance ranking and the
claim labels in the verifier's label set."""

import pandas as pd
import pytest

from lib.analysis import climate_fever as CF
from lib.analysis import utility as U
from lib.data.climate_fever import TO_AVERITEC, ClimateClaim, ClimateEvidence


def _claim(label, sentence_labels):
    evs = tuple(ClimateEvidence(f"e{j}", "A", f"sentence {j}", lb, ()) for j, lb in enumerate(sentence_labels))
    return ClimateClaim("x", "a claim", label, evs)


CLAIMS = {
    0: _claim("SUPPORTS", ["NOT_ENOUGH_INFO", "SUPPORTS", "REFUTES"]),
    4: _claim("NOT_ENOUGH_INFO", ["NOT_ENOUGH_INFO", "NOT_ENOUGH_INFO"]),
}


def test_evidence_qrels_are_the_supporting_and_refuting_sentences():
    assert CF.evidence_qrels(CLAIMS) == {"0": {"0:1": 1, "0:2": 1}, "4": {}}


def test_relevance_rows_rank_by_similarity_with_ties_in_sentence_order():
    rows = CF.relevance_rows(CLAIMS, {0: [0.2, 0.9, 0.2], 4: [0.5, 0.5]})
    first = rows[rows["claim_id"] == 0]
    assert first["doc_id"].tolist() == ["0:1", "0:0", "0:2"] and first["rank"].tolist() == [1, 2, 3]
    assert first["reciprocal_rank"].tolist() == pytest.approx([1, 1 / 2, 1 / 3])
    assert first["sentence_label"].tolist() == ["SUPPORTS", "NOT_ENOUGH_INFO", "REFUTES"]
    assert rows[rows["claim_id"] == 4]["doc_id"].tolist() == ["4:0", "4:1"]


def test_climate_fever_labels_in_averitecs_vocabulary():
    assert TO_AVERITEC == {
        "SUPPORTS": "Supported",
        "REFUTES": "Refuted",
        "NOT_ENOUGH_INFO": "Not Enough Evidence",
        "DISPUTED": "Conflicting Evidence/Cherrypicking",
    }


def test_verifier_label_in_each_label_set():
    disputed = _claim("DISPUTED", ["SUPPORTS"])
    assert CF.verifier_label(disputed, "averitec4") == "Conflicting Evidence/Cherrypicking"
    assert CF.verifier_label(disputed, "averitec3") == "Not Enough Evidence/Conflicting"
    assert CF.verifier_label(disputed, "averitec2") is None
    assert CF.verifier_label(CLAIMS[0], "averitec2") == "Supported"


def test_load_qrels_reads_the_sentence_labels_back(tmp_path):
    rows = CF.relevance_rows(CLAIMS, {0: [0.2, 0.9, 0.2], 4: [0.5, 0.5]})
    rows.to_parquet(tmp_path / "candidates.parquet", index=False)
    assert CF.load_qrels(tmp_path) == CF.evidence_qrels(CLAIMS)


def test_the_section_refuses_k_of_zero_and_one_fold():
    good = {"k": 2, "folds": 5, "alpha": 1.0, "seed": 0, "encoder": "m", "device": "cpu", "max_claims": None}
    assert U.ClimateFeverSection.model_validate(good).k == 2
    for bad in ({"k": 0}, {"folds": 1}):
        with pytest.raises(ValueError):
            U.ClimateFeverSection.model_validate(good | bad)


def test_stage_on_a_small_file(tiny_nli, tiny_climate, tmp_path):
    from conftest import TINY_CLIMATE

    from lib.analysis import utility as U

    data, out, report = tiny_climate
    assert report["claims_in_file"] == 5 and report["claims"] == 5 and report["sentences"] == 15
    cands = pd.read_parquet(out / "candidates.parquet")
    assert (cands["utility"] <= 1e-9).all() and cands.groupby("claim_id")["rank"].max().eq(3).all()
    sel = pd.read_parquet(out / "selections.parquet")
    assert set(sel["selection"]) == set(U.SELECTIONS) and sel["doc_ids"].map(len).eq(2).all()
    oracle = sel[sel["selection"] == "relevance_oracle"].set_index("claim_id")["doc_ids"].map(sorted)
    assert oracle.loc[0] == ["0:0", "0:2"]  # the two evidence sentences
    assert sel.loc[sel["claim_id"] == 3, "label"].iloc[0] == "Conflicting Evidence/Cherrypicking"
    with pytest.raises(ValueError, match="fewer than 2 folds"):
        CF.stage(TINY_CLIMATE | {"max_claims": 1}, data, tiny_nli[2], tmp_path / "out1")


def _record(i, sentences):
    return {
        "claim_id": str(i),
        "claim": f"claim {i}",
        "claim_label": "SUPPORTS",
        "evidences": [
            {"evidence_id": f"A:{j}", "article": "A", "evidence": f"s {j}", "evidence_label": "SUPPORTS", "votes": []}
            for j in range(sentences)
        ],
    }


def test_a_claim_with_no_more_sentences_than_k_stops_the_stage_before_any_work(tmp_path):
    import json

    from lib.data import DataError

    (tmp_path / "climate_fever").mkdir()
    path = tmp_path / "climate_fever" / "climate-fever.jsonl"
    path.write_text("".join(json.dumps(_record(i, n)) + "\n" for i, n in enumerate([5, 2, 1])))
    params = {"k": 2, "folds": 2, "alpha": 1.0, "seed": 0, "encoder": "m", "device": "cpu", "max_claims": None}
    with pytest.raises(DataError) as err:
        CF.stage(params, tmp_path, tmp_path / "no_verifier", tmp_path / "out")  # refused before the verifier is read
    assert str(err.value) == (
        f"{path}: record 1: field 'evidences': 2 sentences, not more than k = 2 (utility.climate_fever.k): no "
        "selection to compare (2 such claims; CLIMATE-FEVER gives each claim 5)"
    )


def test_the_reader_refuses_an_empty_sentence_or_claim_id(tmp_path):
    import json

    from lib.data import DataError
    from lib.data.climate_fever import load_climate_fever

    record = _record(0, 5)
    record["evidences"][3]["evidence"] = "  "
    (tmp_path / "a.jsonl").write_text(json.dumps(record) + "\n")
    with pytest.raises(DataError, match=r"record 0: field 'evidences\[3\]\.evidence'"):
        load_climate_fever(tmp_path / "a.jsonl")
    (tmp_path / "b.jsonl").write_text(json.dumps({**_record(0, 5), "claim_id": " "}) + "\n")
    with pytest.raises(DataError, match=r"record 0: field 'claim_id': empty \(expected the claim's id\)"):
        load_climate_fever(tmp_path / "b.jsonl")


def test_relevance_rows_take_one_similarity_per_sentence():
    """The thirty-second pass: a shorter list dropped sentences without a word, a longer one was an IndexError."""
    for sims in ([0.2, 0.9], [0.2, 0.9, 0.2, 0.1]):
        with pytest.raises(ValueError, match=rf"^claim 0: {len(sims)} similarities for its 3 evidence sentences"):
            CF.relevance_rows(CLAIMS, {0: sims, 4: [0.5, 0.5]})
    with pytest.raises(ValueError, match="claim 0: similarities .* hold a value that is not finite"):  # ranked last
        CF.relevance_rows(CLAIMS, {0: [float("nan"), 0.9, 0.2], 4: [0.5, 0.5]})
