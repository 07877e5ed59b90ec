"""Judgement kinds, the answer-match judgement, the variants, and the manual judging kit end to end."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from lib.data import averitec
from lib.store import judgements as J

ANSWER = "The council raised the budget by twelve million dollars in March"  # 10 distinct tokens


def _claim(claim_id, answers):
    qs = (averitec.Question("What happened?", tuple(averitec.Answer(t, kind, "", None) for t, kind in answers)),)
    return averitec.Claim(claim_id, "dev", f"claim {claim_id}", "Refuted", None, (), (), "", None, None, None, qs)


CLAIMS = [
    _claim(1, [(ANSWER, "Extractive"), ("Yes", "Boolean")]),
    _claim(2, [("No answer could be found.", "Unanswerable")]),
]
DOCS = pd.DataFrame(
    {
        "doc_id": ["g1", "u1", "m1", "p1", "p2", "x1", "o1"],
        "text": [
            ANSWER,
            "A sentence from the cited page.",
            "In March the council raised its budget by twelve million dollars, officials said.",  # all 10 tokens
            "The council raised the budget, officials said.",  # 4 of 10 tokens
            "Weather was fine.",
            "Another claim's gold answer from the same page.",
            "Pooled for claim 2.",
        ],
        "origin": [["gold"], ["hero_qa"], ["hero_qa"], ["uhh_top3"], ["fever8"], ["gold_train"], ["fever8"]],
        "claim_ids": [[1], [1], [1], [1], [1], [], [2]],  # the store pools a dev claim's own gold answers
    }
)
QRELS = pd.DataFrame(
    {
        "qid": ["1", "1", "1", "1", "1", "1", "2"],
        "doc_id": ["g1", "u1", "x1", "m1", "p1", "p2", "o1"],
        "grade": [2, 1, 1, 0, 0, 0, 0],
        "reason": ["gold_answer", "gold_url", "gold_url", "pooled", "pooled", "pooled", "pooled"],
    }
)


@pytest.fixture
def judged():
    return J.annotate(QRELS, DOCS, CLAIMS, min_answer_tokens=5)


def test_answer_overlap_is_the_best_share_of_one_answers_tokens():
    answers = J.answer_token_sets(CLAIMS[0], 5)
    assert len(answers) == 1  # "Yes" is Boolean and too short
    assert J.answer_overlap(DOCS["text"][2], answers) == 1.0
    assert J.answer_overlap(DOCS["text"][3], answers) == pytest.approx(4 / 10)
    assert math.isnan(J.answer_overlap("anything", J.answer_token_sets(CLAIMS[1], 1)))  # unanswerable only


def test_annotate_says_where_each_judgement_comes_from(judged):
    row = judged.set_index(["qid", "doc_id"])
    assert row.loc[("1", "x1"), "in_pool"] == False  # noqa: E712 (numpy bool)
    assert row.loc[("1", "g1"), "in_pool"] == True  # noqa: E712
    assert row.loc[("1", "x1"), "source"] == "annotators"
    assert row.loc[("1", "u1"), "source"] == "systems"
    assert row.loc[("1", "m1"), "answer_overlap"] == 1.0
    assert math.isnan(row.loc[("1", "g1"), "answer_overlap"])  # only grade 0 is matched
    assert math.isnan(row.loc[("2", "o1"), "answer_overlap"])


def test_annotate_rejects_unknown_claims_and_bad_settings():
    with pytest.raises(ValueError, match="not among"):
        J.annotate(QRELS, DOCS, CLAIMS[:1])
    with pytest.raises(ValueError, match="min_answer_tokens"):
        J.annotate(QRELS, DOCS, CLAIMS, min_answer_tokens=0)


def test_variants_at_a_threshold(judged):
    v = J.variants(judged, 0.8)
    assert list(v) == list(J.VARIANTS)
    assert v["official"]["1"] == {"g1": 2, "u1": 1, "x1": 1, "m1": 0, "p1": 0, "p2": 0}
    assert v["answer_match"]["1"]["m1"] == 1 and v["answer_match"]["1"]["p1"] == 0
    assert v["gold_answers"]["1"] == {"g1": 2, "u1": 0, "x1": 0, "m1": 0, "p1": 0, "p2": 0}
    assert v["gold_urls"]["1"]["u1"] == 1 and v["gold_urls"]["1"]["g1"] == 0
    assert [d for d, g in v["answer_matches"]["1"].items() if g] == ["m1"]
    assert v["official"]["2"] == {"o1": 0}  # every claim stays, with all its judged documents
    assert J.variant(judged, "answer_match", 0.4)["1"]["p1"] == 1  # 4/10 >= 0.4
    assert J.variants(judged, 0.8, names=[]) == {}
    with pytest.raises(ValueError, match="unknown judgement variant"):
        J.variant(judged, "both", 0.8)
    for bad in (0, 1.5):
        with pytest.raises(ValueError, match="threshold"):
            J.variant(judged, "answer_match", bad)


def test_grade_counts_and_threshold_sweep(judged):
    counts = J.grade_counts(judged, 0.8)
    assert list(counts.index) == ["gold_answer", "gold_url", "answer_match", "pooled"]
    assert counts.loc["gold_url"].to_dict() == {
        "grade": 1,
        "judgements": 2,
        "claims": 1,
        "in the claim's pool": 1,
        "outside the pool": 1,
        "annotators' answers": 1,
        "systems only": 1,
    }
    assert counts.loc["answer_match", "judgements"] == 1 and counts.loc["pooled", "judgements"] == 3
    sweep = J.threshold_sweep(judged, [1.0, 0.4, 0.8, 0.8])  # sorted, each threshold once
    assert sweep.index.tolist() == [0.4, 0.8, 1.0] and sweep["answer matches"].tolist() == [2, 1, 1]
    with pytest.raises(ValueError, match="at least one threshold"):
        J.threshold_sweep(judged, [])
    assert sweep["claims with no other relevant document"].tolist() == [0, 0, 0]


def test_judging_kit_end_to_end(judged, tmp_path):
    unjudged = pd.DataFrame({"claim_id": [1, 1, 2], "doc_id": ["p2", "z9", "z8"]})  # p2 is judged: not sampled
    sample = J.judging_sample(judged, 0.8, unjudged, per_stratum=2, seed=0)
    assert sorted(sample["stratum"].value_counts().items()) == [
        ("answer_match", 1),
        ("gold_answer", 1),
        ("gold_url", 2),
        ("pooled", 2),
        ("unjudged", 2),
    ]
    un = sample[sample["stratum"] == "unjudged"]
    assert set(zip(un["claim_id"], un["doc_id"])) == {(1, "z9"), (2, "z8")}
    assert sample.equals(J.judging_sample(judged, 0.8, unjudged, per_stratum=2, seed=0))  # seeded
    docs = pd.concat([DOCS, pd.DataFrame({"doc_id": ["z9", "z8"], "text": ["Unjudged one.", "Unjudged two."]})])
    sheet = J.judging_sheet(sample, docs, CLAIMS)
    assert list(sheet.columns) == J.SHEET_COLUMNS and "stratum" not in sheet  # blind
    # a class's filled sheet: relevant for grade 2, grade 1 and the answer match, not for the rest
    relevant = {"g1": "1", "u1": "1", "x1": "0", "m1": "1", "p1": "0", "p2": "0", "o1": "0", "z9": "1", "z8": "0"}
    sheet["relevant"] = sheet["doc_id"].map(relevant)
    sheet.loc[sheet.index[-1], "relevant"] = ""  # not judged yet
    path = tmp_path / "filled.csv"
    sheet.to_csv(path, index=False)
    filled = J.read_judging_sheet(path, doc_ids=docs["doc_id"], claim_ids=[1, 2], pairs=sample)
    assert len(filled) == len(sheet) - 1 and filled["relevant"].dtype.kind == "i"
    # the claim column sorted alone: every row still names a known claim and document, but not its pair
    scrambled = sheet.assign(claim_id=sorted(sheet["claim_id"], reverse=True))
    stray = sum((c, d) not in set(zip(sample["claim_id"], sample["doc_id"])) for c, d in
                zip(scrambled["claim_id"], scrambled["doc_id"]))  # fmt: skip
    assert stray  # the fixture's sort does move pairs
    scrambled.to_csv(tmp_path / "scrambled.csv", index=False)
    with pytest.raises(ValueError, match=r"is not a pair of the judging sheet \(\d+ judged rows are not; was a column"):
        J.read_judging_sheet(tmp_path / "scrambled.csv", doc_ids=docs["doc_id"], claim_ids=[1, 2], pairs=sample)
    # the block claim_id .. document sorted together, `relevant` left in place: every pair is the sheet's,
    # but each judgement now sits on another pair (44 of 100 moved on the study's sheet)
    block = ["claim_id", "doc_id", "claim", "document"]
    moved = sheet.copy()
    moved[block] = sheet[block].sort_values(["claim_id", "doc_id"]).to_numpy()
    assert (moved["doc_id"] != sheet["doc_id"]).any()  # the fixture's sort does move rows
    moved.to_csv(tmp_path / "moved.csv", index=False)
    with pytest.raises(
        ValueError, match=r"row \d+: sheet_id \d+ was written for claim \d with document '\w+', but the"
    ):
        J.read_judging_sheet(tmp_path / "moved.csv", doc_ids=docs["doc_id"], claim_ids=[1, 2], pairs=sample)
    # the same block sorted, and the sheet_id column deleted: nothing would tell the moved rows, so it is required
    moved.drop(columns="sheet_id").to_csv(tmp_path / "no_id.csv", index=False)
    with pytest.raises(ValueError, match=r"no_id.csv: no sheet_id column; it ties each row to the pair"):
        J.read_judging_sheet(tmp_path / "no_id.csv", doc_ids=docs["doc_id"], claim_ids=[1, 2], pairs=sample)
    agreement = J.judging_agreement(filled, judged, 0.8)
    assert list(agreement.index) == list(J.VARIANTS)
    for name, row in agreement.iterrows():
        auto = [
            int(J.variant(judged, name, 0.8).get(str(c), {}).get(d, 0) >= 1)
            for c, d in zip(filled["claim_id"], filled["doc_id"])
        ]
        assert row["agreement"] == pytest.approx(np.mean(np.array(auto) == filled["relevant"].to_numpy()))
        assert row["automatic relevant"] == sum(auto)
    assert agreement["items"].dtype.kind == "i" and agreement["manual relevant"].dtype.kind == "i"
    by_stratum = J.manual_relevance_by_stratum(filled, judged, 0.8)
    assert by_stratum.loc["answer_match", "share relevant"] == 1.0
    assert by_stratum.loc["pooled", "share relevant"] == 0.0
    with pytest.raises(ValueError, match="not among"):
        J.judging_sheet(sample.assign(claim_id=7), docs, CLAIMS)
    # a copied but unfilled sheet: no judged rows, no error
    sheet.assign(relevant="").to_csv(path, index=False)
    assert J.read_judging_sheet(path).empty


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("claim_id,doc_id\n1,g1\n", "needs the columns"),
        ("claim_id,doc_id,relevant\n1,g1,yes\n", "row 2: relevant = 'yes'"),
        ("claim_id,doc_id,relevant\nabc,g1,1\n", "row 2: claim_id"),
        ("claim_id,doc_id,relevant\n1,g1,1\n1,g1,0\n", "rows 2 and 3: claim_id 1, doc_id g1 judged twice"),
        (
            "claim_id,doc_id,relevant\n1,g1,1\n01, g1 ,0\n",
            "rows 2 and 3: claim_id 1, doc_id g1 judged twice",
        ),  # stripped
        ('claim_id,doc_id,relevant\n1,"g1,1\n', "not a CSV judging sheet"),
        ("claim_id,doc_id,relevant\n1,nope,1\n", "row 2: doc_id = 'nope' is not a document of this study"),
        ("claim_id,doc_id,relevant\n9,g1,1\n", "row 2: claim_id = 9 is not a claim of this study"),
        ("", "the file is empty"),
    ],
)
def test_a_wrongly_filled_sheet_is_a_named_error(tmp_path, content, message):
    path = tmp_path / "sheet.csv"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        J.read_judging_sheet(path, doc_ids=DOCS["doc_id"], claim_ids=[1, 2])


def test_no_sheet_is_none(tmp_path):
    assert J.read_judging_sheet(tmp_path / "missing.csv") is None


def test_claim_scope_depth_says_whether_a_run_holds_the_whole_pool():
    small = J.claim_scope_depth([12, 40, 99, 100], 100)
    assert small.startswith("Every claim's pool holds at most 100 documents (median 69.5), no more than the 100")
    assert "Recall@100 is the same for all of them there" in small
    one = J.claim_scope_depth([12, 40, 600], 100)
    assert one == (
        "In the `claim` scope 1 of 3 claims' pools holds more than the 100 documents a run keeps (median 40, at most "
        "600), so both Recall@100 and the order can separate methods there, Recall@100 only on that claim."
    )
    assert "2 of 3 claims' pools hold more" in J.claim_scope_depth([12, 400, 600], 100)
    assert J.claim_scope_depth([12, 400, 600], 100).endswith("Recall@100 only on those claims.")
    every = J.claim_scope_depth([600, 620], 100)
    assert "every claim's pool holds more than the 100 documents a run keeps (median 610, at most 620)" in every
    assert every.endswith("so both Recall@100 and the order can separate methods there.")
    with pytest.raises(ValueError, match="pool sizes and a depth"):
        J.claim_scope_depth([], 100)


def test_judgement_limit_follows_the_store_source():
    assert J.judgement_limit("pooled").startswith("A claim's judgements cover its pool (what systems retrieved")
    assert "but no other passage of other claims' pages" in J.judgement_limit("knowledge_store")
    with pytest.raises(ValueError, match="store source 'web'"):
        J.judgement_limit("web")


# --- pinned by mutation testing (`make mutation`) -------------------------------------------------------


def test_grade_counts_whole_table(judged):
    counts = J.grade_counts(judged, 0.8)
    assert counts.index.name == "judgement"
    assert counts.to_dict("index") == {
        "gold_answer": {"grade": 2, "judgements": 1, "claims": 1, "in the claim's pool": 1, "outside the pool": 0,
                        "annotators' answers": 1, "systems only": 0},
        "gold_url": {"grade": 1, "judgements": 2, "claims": 1, "in the claim's pool": 1, "outside the pool": 1,
                     "annotators' answers": 1, "systems only": 1},
        "answer_match": {"grade": 1, "judgements": 1, "claims": 1, "in the claim's pool": 1, "outside the pool": 0,
                         "annotators' answers": 0, "systems only": 1},
        "pooled": {"grade": 0, "judgements": 3, "claims": 2, "in the claim's pool": 3, "outside the pool": 0,
                   "annotators' answers": 0, "systems only": 3},
    }  # fmt: skip


def test_threshold_sweep_counts_claims_whose_only_relevant_document_is_a_match():
    frame = pd.DataFrame(
        {
            "qid": ["1", "1", "2", "2", "3"],
            "doc_id": ["a", "b", "c", "d", "e"],
            "grade": [1, 0, 0, 0, 2],  # claim 1 has a grade-1 document, claim 2 none, claim 3 a grade-2 one
            "reason": ["gold_url", "pooled", "pooled", "pooled", "gold_answer"],
            "in_pool": [True, True, True, True, True],
            "source": ["systems"] * 5,
            "answer_overlap": [np.nan, 0.9, 0.9, 0.5, np.nan],
        }
    )
    sweep = J.threshold_sweep(frame, [0.8])
    assert sweep.to_dict("index") == {
        0.8: {"answer matches": 2, "claims": 2, "claims with no other relevant document": 1}
    }
    with pytest.raises(ValueError, match="^threshold_sweep needs at least one threshold$"):
        J.threshold_sweep(frame, [])


def test_judging_sample_strata_defaults_and_shape(judged):
    unjudged = pd.DataFrame({"claim_id": ["1"] * 30, "doc_id": [f"z{i:02d}" for i in range(30)]})  # ids as text
    unjudged = pd.concat([unjudged, pd.DataFrame({"claim_id": ["1"], "doc_id": ["p2"]})])  # judged: never sampled
    sample = J.judging_sample(judged, 0.8, unjudged)
    assert sample.columns.tolist() == ["claim_id", "doc_id", "stratum"] and sample.index.tolist() == list(
        range(len(sample))
    )
    assert sample["claim_id"].dtype.kind == "i"
    assert sample["stratum"].value_counts().to_dict() == {
        "unjudged": 20,
        "pooled": 3,
        "gold_url": 2,
        "gold_answer": 1,
        "answer_match": 1,
    }  # fmt: skip  (the default: 20 per stratum)
    assert not sample.duplicated(["claim_id", "doc_id"]).any() and "p2" not in set(
        sample.loc[sample["stratum"] == "unjudged", "doc_id"]
    )
    assert sample.equals(J.judging_sample(judged, 0.8, unjudged, per_stratum=20, seed=0))
    assert not sample.equals(J.judging_sample(judged, 0.8, unjudged, seed=1))


def test_judging_agreement_columns_names_empty_and_unknown_claims(judged):
    filled = pd.DataFrame({"claim_id": [1, 1, 9], "doc_id": ["g1", "p1", "q"], "relevant": [1, 1, 0]})  # 9: no qrels
    table = J.judging_agreement(filled, judged, 0.8, names=["official"])
    assert table.index.tolist() == ["official"] and table.index.name == "variant"
    assert table.columns.tolist() == ["items", "agreement", "kappa", "automatic relevant", "manual relevant"]
    assert (
        table.loc["official", "agreement"] == pytest.approx(2 / 3) and table.loc["official", "automatic relevant"] == 1
    )
    empty = J.judging_agreement(filled.iloc[:0], judged, 0.8, names=["official"])
    assert empty.loc["official", "items"] == 0 and np.isnan(empty.loc["official", "agreement"])


def test_stratum_of_and_relevance_by_stratum(judged):
    pairs = pd.DataFrame({"claim_id": [1, 1, 2], "doc_id": ["m1", "z", "o1"]}, index=[5, 6, 7])
    strata = J.stratum_of(pairs, judged, 0.8)
    assert strata.name == "stratum" and strata.index.tolist() == [5, 6, 7]
    assert strata.tolist() == ["answer_match", "unjudged", "pooled"]
    table = J.manual_relevance_by_stratum(pairs.assign(relevant=[1, 0, 0]), judged, 0.8)
    assert table.columns.tolist() == ["judged", "share relevant"]
    assert table.index.tolist() == ["answer_match", "pooled", "unjudged"]  # STRATA order, not alphabetical
    assert table["judged"].tolist() == [1, 1, 1] and table["share relevant"].tolist() == [1.0, 0.0, 0.0]


def test_judgement_limit_texts_in_full():
    assert J.judgement_limit("pooled") == (
        "A claim's judgements cover its pool (what systems retrieved for it, and its gold answers) and the "
        "documents from its gold source URLs; the pool is shallow, so a planner that finds other relevant "
        "sentences is scored as if they were not relevant."
    )
    assert J.judgement_limit("knowledge_store") == (
        "A claim's judgements cover every passage of its own pages (and its gold answers) and the passages "
        "from its gold source URLs, but no other passage of other claims' pages: in the `global` scope a "
        "planner that finds relevant text there is scored as if it were not. Grade 1 marks every passage of "
        "a gold source page, whether or not it states the evidence."
    )


def test_tokens_and_answer_sets_at_the_minimum():
    assert J.tokens("The Cat, the cat!") == frozenset({"the", "cat"})
    five = _claim(5, [("one two three four five", "Abstractive")])
    assert J.answer_token_sets(five, 5) == [frozenset({"one", "two", "three", "four", "five"})]  # exactly 5: kept
    assert J.answer_token_sets(five, 6) == []


def test_annotate_defaults_bounds_and_its_error_lists_claims_in_numeric_order():
    five = _claim(1, [("the council raised budget now", "Extractive")])  # exactly 5 tokens
    docs = DOCS.assign(text=DOCS["text"].where(DOCS["doc_id"] != "p1", "the council raised budget now"))
    assert J.annotate(QRELS, docs, [five, CLAIMS[1]]).set_index("doc_id").at["p1", "answer_overlap"] == 1.0  # default 5
    assert J.annotate(QRELS, docs, [five, CLAIMS[1]], min_answer_tokens=1).shape[0] == len(QRELS)  # 1 is allowed
    qrels = pd.DataFrame({"qid": ["10", "9", "11", "12", "13", "14"], "doc_id": ["g1"] * 6, "grade": [2] * 6,
                          "reason": ["gold_answer"] * 6})  # fmt: skip
    with pytest.raises(
        ValueError, match=r"^qrels name claims \['9', '10', '11', '12', '13'\] that are not among the 2"
    ):
        J.annotate(qrels, DOCS, CLAIMS)


def test_answer_matches_variant_gives_grade_one(judged):
    assert J.variant(judged, "answer_matches", 0.8)["1"]["m1"] == 1


def test_grade_counts_orders_kinds_whatever_order_they_come_in():
    frame = pd.DataFrame(
        {"qid": ["1", "1", "1"], "doc_id": ["p", "m", "g"], "grade": [0, 0, 2], "reason": ["pooled", "pooled", "gold_answer"],
         "in_pool": [True, True, True], "source": ["systems"] * 3, "answer_overlap": [0.1, 0.9, np.nan]}
    )  # fmt: skip
    assert J.grade_counts(frame, 0.8).index.tolist() == ["gold_answer", "answer_match", "pooled"]


def test_judging_sheet_defaults(judged):
    long = DOCS.assign(text=DOCS["text"].where(DOCS["doc_id"] != "g1", "x" * 700))
    sample = pd.DataFrame({"claim_id": [1], "doc_id": ["g1"], "stratum": ["gold_answer"]})
    sheet = J.judging_sheet(sample, long, CLAIMS)
    assert len(sheet.at[0, "document"]) == 600 and sheet.at[0, "relevant"] == "" and sheet.at[0, "comment"] == ""
    many = pd.DataFrame({"claim_id": [3, 4, 5, 6, 7, 8], "doc_id": ["g1"] * 6})
    with pytest.raises(ValueError, match=r"^the sample names claims \[3, 4, 5, 6, 7\] that are not among the 2 claims"):
        J.judging_sheet(many, DOCS, CLAIMS)


def test_read_judging_sheet_keeps_a_clean_index(tmp_path):
    path = tmp_path / "sheet.csv"
    path.write_text("claim_id,doc_id,relevant\n1,g1,\n1,u1,1\n2,o1,0\n")
    sheet = J.read_judging_sheet(path)
    assert sheet.index.tolist() == [0, 1] and "index" not in sheet.columns


def test_agreement_of_an_empty_sheet_is_nan_without_warnings(judged):
    empty = pd.DataFrame({"claim_id": [], "doc_id": [], "relevant": []})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(J.judging_agreement(empty, judged, 0.8, names=["official"]).loc["official", "agreement"])


def test_relevance_by_stratum_in_strata_order_not_alphabetical(judged):
    pairs = pd.DataFrame({"claim_id": [1, 1], "doc_id": ["m1", "u1"], "relevant": [1, 1]})
    assert J.manual_relevance_by_stratum(pairs, judged, 0.8).index.tolist() == ["gold_url", "answer_match"]


def test_claim_scope_depth_accepts_a_depth_of_one():
    assert J.claim_scope_depth([1, 1], 1).startswith("Every claim's pool holds at most 1 documents")


# ---------------------------------------------------------------- the sheet's errors, word for word


PAIRS = pd.DataFrame({"claim_id": [1, 1, 2], "doc_id": ["a", "b", "c"]})


def _sheet(tmp_path, rows, header="sheet_id,claim_id,doc_id,relevant"):
    path = tmp_path / "sheet.csv"
    path.write_text(header + "\n" + "".join(r + "\n" for r in rows))
    return path


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (["1,abc,a,1"], "{p}, row 2: claim_id = 'abc'; expected a dev claim id (an integer)"),
        (["1,1,a,1", "1,1,a,0"], "{p}, rows 2 and 3: claim_id 1, doc_id a judged twice; each is written once"),
        (
            ["1,1,a,1", "2,2,a,0", "3,2,b,1"],  # two pairs the sheet did not write: the first is named
            "{p}, row 3: claim 2 with document 'a' is not a pair of the judging sheet (2 judged rows are not; "
            "was a column sorted alone?)",
        ),
        (["x,1,a,1"], "{p}, row 2: sheet_id = 'x'; expected the row number the sheet was written with (an integer)"),
        (
            [
                "1,1,a,1",
                "1,1,b,1",
                "1,2,c,0",
            ],  # two rows moved: the first is named, with the pair its id was written for
            "{p}, row 3: sheet_id 1 was written for claim 1 with document 'a', but the row holds claim 1 with "
            "document 'b' (2 judged rows moved; were columns sorted without `relevant`?)",
        ),
        (
            ["3,1,a,1"],  # the last row's id: its pair is named
            "{p}, row 2: sheet_id 3 was written for claim 2 with document 'c', but the row holds claim 1 with "
            "document 'a' (1 judged rows moved; were columns sorted without `relevant`?)",
        ),
        (
            ["9,1,a,1"],
            "{p}, row 2: sheet_id 9 is not a row of the sheet (1 to 3), but the row holds claim 1 with document 'a' "
            "(1 judged rows moved; were columns sorted without `relevant`?)",
        ),
    ],
)
def test_each_error_of_a_filled_sheet_names_its_file_row_and_pair(tmp_path, rows, message):
    path = _sheet(tmp_path, rows)
    with pytest.raises(ValueError) as err:
        J.read_judging_sheet(path, pairs=PAIRS)
    assert str(err.value) == message.format(p=path)


def test_a_sheet_without_its_ids_is_refused_in_words(tmp_path):
    path = _sheet(tmp_path, ["1,a,1"], header="claim_id,doc_id,relevant")
    with pytest.raises(ValueError) as err:
        J.read_judging_sheet(path, pairs=PAIRS)
    assert str(err.value) == (
        f"{path}: no sheet_id column; it ties each row to the pair it was written for (a block of columns sorted in "
        "a spreadsheet cannot be told otherwise): keep the column as the sheet was written"
    )


def test_a_correct_sheet_reads_to_its_last_row_and_pairs_given_as_text(tmp_path):
    path = _sheet(tmp_path, ["1,1,a,1", "2,1,b,", "3,2,c,0"])
    filled = J.read_judging_sheet(path, pairs=PAIRS)
    assert filled[["claim_id", "doc_id", "relevant"]].values.tolist() == [[1, "a", 1], [2, "c", 0]]
    # the pairs' claim ids read from a file as text are the same claims
    as_text = J.read_judging_sheet(path, pairs=PAIRS.astype({"claim_id": str}))
    assert as_text[["claim_id", "doc_id", "relevant"]].values.tolist() == [[1, "a", 1], [2, "c", 0]]


def test_an_unjudged_document_is_not_printed_as_grade_0():
    """The fiftieth pass (N 6): notebook 08's examples printed unjudged documents as "(grade 0)", judged
    non-relevant."""
    assert J.grade_text(2) == "grade 2"
    assert J.grade_text(0, judged=True) == "grade 0"
    assert J.grade_text(0, judged=False) == "unjudged"
