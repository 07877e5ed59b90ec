"""Leakage and coverage on the tiny fixture store, computed by hand (see test_store.py's docstring)."""

import shutil

import pandas as pd
import pytest
from conftest import FIXTURE_DATA, fixture_settings

from lib.data import averitec
from lib.store import leakage as LK
from lib.store.build import build_store


@pytest.fixture(scope="module")
def claims():
    return LK.claim_table(averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json"))


def test_pool_sizes(tiny_store):
    assert LK.pool_sizes(tiny_store).to_dict("index") == {
        0: {"all": 5, "systems": 4, "gold": 2},
        1: {"all": 2, "systems": 2, "gold": 1},
        2: {"all": 3, "systems": 2, "gold": 1},
    }


def test_contribution_and_overlap(tiny_store):
    assert LK.contribution(tiny_store).to_dict("index") == {
        "sys_a": {"pairs": 6, "documents": 6, "unique_pairs": 5},
        "sys_b": {"pairs": 3, "documents": 3, "unique_pairs": 2},
    }
    overlap = LK.origin_overlap(tiny_store)
    assert overlap.loc["sys_a", "sys_b"] == pytest.approx(1 / 8) and overlap.loc["sys_a", "sys_a"] == 1


def test_gold_coverage(tiny_store, claims):
    cov = LK.gold_coverage(tiny_store, claims)["gold_coverage"]
    assert cov.to_dict() == pytest.approx({"sys_a": 2 / 3, "sys_b": 1 / 3, LK.ALL_SYSTEMS: 1.0})


def test_fact_check_leakage(tiny_store, claims):
    fc = LK.fact_check_leakage(tiny_store, claims)
    assert fc.loc["sys_a"].to_dict() == pytest.approx(
        {
            "claims_fact_check_site": 1 / 3,
            "claims_fact_check_domain": 2 / 3,
            "claims_own_article": 1 / 3,
            "hits_fact_check_site": 1 / 6,
            "hits_fact_check_domain": 2 / 6,
        }
    )
    assert fc.loc["sys_b"].to_dict() == pytest.approx(dict.fromkeys(fc.columns, 0.0))


def test_conclusion_phrases_name_ties_and_no_leader_where_every_system_is_zero(tiny_store, claims):
    import pandas as pd

    best_cov = LK.gold_coverage(tiny_store, claims)["gold_coverage"].drop(index=LK.ALL_SYSTEMS)
    assert LK.best_coverage_phrase(best_cov) == "the best single system, sys_a, for 66.7%"
    fc = LK.fact_check_leakage(tiny_store, claims)["claims_fact_check_site"].drop(index=LK.ALL_SYSTEMS)
    assert LK.leakiest_phrase(fc) == "the most leaky system is sys_a (33.3%)"
    # every system at 0: `idxmax` named the first as "the most leaky system (0.0%)"
    assert LK.leakiest_phrase(fc * 0) == "no single system's evidence comes from a fact-checking site"
    assert LK.best_coverage_phrase(best_cov * 0) == "no single system retrieved one"
    # as printed (the twenty-sixth pass): 30.004% and 30.0% are a tie, 0.04% no leak

    assert (
        LK.best_coverage_phrase(pd.Series({"X": 0.30004, "Y": 0.3}))
        == "the best single systems, tied, X and Y, for 30.0% each"
    )
    assert (
        LK.leakiest_phrase(pd.Series({"X": 0.30004, "Y": 0.3})) == "the most leaky systems are X and Y (tied at 30.0%)"
    )
    # 0.04% is no 0 (the thirty-second pass: "no single system retrieved one" of a system that did): compared as
    # numbers, printed apart from 0
    assert LK.leakiest_phrase(pd.Series({"X": 0.0004, "Y": 0.0})) == "the most leaky system is X (0.04%)"
    assert LK.best_coverage_phrase(pd.Series({"X": 0.0004, "Y": 0.0001})) == "the best single system, X, for 0.04%"
    assert LK.best_coverage_phrase(pd.Series({"X": 0.0004, "Y": 0.0004})) == (
        "the best single systems, tied, X and Y, for 0.04% each"
    )
    assert LK.best_coverage_phrase(pd.Series({"X": float("nan")})).startswith("no system's gold coverage is defined")
    assert LK.grade1_share(float("nan")) == "undefined" and "undefined here" in LK.grade1_reach(float("nan"))
    nan = pd.Series({"bm25": float("nan"), "dense": float("nan")})  # the thirty-third pass: read as "no ... site"
    assert LK.leakiest_phrase(nan) == "no system's fact-checking leakage is defined (no claim)"
    assert LK.temporal_sentence(float("nan"), 0.2).startswith("no hit is dated by its URL path; 20.0% of hits")
    tie = pd.Series({"x": 0.25, "y": 0.25, "z": 0.1})
    assert LK.best_coverage_phrase(tie) == "the best single systems, tied, x and y, for 25.0% each"
    assert LK.leakiest_phrase(tie) == "the most leaky systems are x and y (tied at 25.0%)"
    assert LK.leakiest_phrase(pd.Series(dtype=float)) == "no system to compare"  # the forty-third pass: no finding


def test_temporal_leakage(tiny_store, claims):
    tl = LK.temporal_leakage(tiny_store, claims)
    assert tl.loc[("sys_a", "url_path")].to_dict() == pytest.approx(
        {"dated_hits": 2, "share_after_claim": 0.5, "claims_with_post_claim_doc": 1 / 3}
    )
    assert tl.loc[("sys_a", "wayback")].to_dict() == pytest.approx(
        {"dated_hits": 2, "share_after_claim": 1.0, "claims_with_post_claim_doc": 2 / 3}
    )
    assert "sys_b" not in tl.index.get_level_values("system")


def test_misinfo_and_relevance_coverage(tiny_store):
    assert LK.misinfo_share(tiny_store).to_dict() == pytest.approx(
        {"sys_a": 0.0, "sys_b": 1 / 3, LK.ALL_SYSTEMS: 1 / 8}
    )
    assert LK.relevance_coverage(tiny_store) == {
        "claims": 3,
        "with_grade_2": 3,
        "with_grade_1": 2,
        "with_any_relevant": 3,
        "without_gold_answers": 2,
    }


def test_duplicates(tiny_store):
    dup = LK.duplicates(tiny_store)
    assert dup["candidates"] == 19 and dup["skipped"] == 4 and dup["documents"] == 12
    assert dup["candidates_per_document"] == pytest.approx(15 / 12)
    assert dup["texts_under_several_urls"] == 1  # the cheese sentence
    assert dup["urls_with_several_sentences"] == 3  # nasa.gov/moon, politifact, fakenews


def test_store_metrics(tiny_store, claims):
    m = LK.store_metrics(tiny_store, claims)
    assert m["documents"] == 12 and m["documents_from_systems"] == 8 and m["judgements"] == 11
    assert m["gold_coverage_all_systems"] == 1.0
    assert m["fact_check_leak_claims_strict"] == round(1 / 3, 4)
    assert m["post_claim_hits_url_path"] == 0.5 and m["post_claim_hits_wayback"] == 1.0
    assert m["misinfo_hits_share"] == 0.125


def test_document_source_and_retrieved_by_systems(tiny_store):
    text = tiny_store.docs["text"]
    source = dict(zip(text, LK.document_source(tiny_store)))
    assert source["The moon is made of rock and dust."] == "gold (dev)"  # gold, also returned by sys_a
    assert source["Economy grew strongly, washingtonpost reports."] == "system"
    assert source["Another distractor text here."] == "distractor (train/test gold)"
    assert LK.document_source(tiny_store).value_counts().to_dict() == {
        "system": 6,
        "gold (dev)": 4,
        "distractor (train/test gold)": 2,
    }
    retrieved = dict(zip(text, LK.retrieved_by_systems(tiny_store)))
    assert retrieved["The moon is made of rock and dust."] and not retrieved["NASA never said the moon is cheese."]
    assert int(LK.retrieved_by_systems(tiny_store).sum()) == 8


def test_identical_systems_are_merged_into_one_and_distinct_ones_kept(tiny_store, claims, tmp_path):
    assert LK.identical_systems(tiny_store) == [] and LK.merge_identical_systems(tiny_store) is tiny_store
    data = tmp_path / "data"  # two files with one system's output (one file under two names is refused)
    shutil.copytree(FIXTURE_DATA, data)
    shutil.copy(data / "averitec" / "systems" / "sys_a.jsonl", data / "averitec" / "systems" / "sys_a_copy.jsonl")
    twice = build_store(
        fixture_settings(systems={"sys_a": "sys_a.jsonl", "sys_b": "sys_b.json", "sys_a_again": "sys_a_copy.jsonl"}),
        data,
    )
    assert LK.identical_systems(twice) == [["sys_a", "sys_a_again"]]
    merged = LK.merge_identical_systems(twice)
    assert LK.system_names(merged) == ["sys_a = sys_a_again", "sys_b"]
    assert merged.report["systems"]["sys_a = sys_a_again"] == "sys_a.jsonl = sys_a_copy.jsonl"
    assert twice.report["systems"] == {
        "sys_a": "sys_a.jsonl",
        "sys_b": "sys_b.json",
        "sys_a_again": "sys_a_copy.jsonl",
    }
    a = twice.hits[twice.hits["origin"] == "sys_a"]
    m = merged.hits[merged.hits["origin"] == "sys_a = sys_a_again"]
    assert set(zip(a["claim_id"], a["doc_id"])) == set(zip(m["claim_id"], m["doc_id"])) and len(m) == len(a)
    assert not (merged.docs["origin"].map(lambda o: "sys_a" in o or "sys_a_again" in o)).any()
    # the per-system tables: one row for the merged run, the same numbers as either name had
    assert LK.gold_coverage(merged, claims).loc["sys_a = sys_a_again", "gold_coverage"] == pytest.approx(
        LK.gold_coverage(twice, claims).loc["sys_a", "gold_coverage"]
    )


@pytest.mark.parametrize(
    ("share", "reach"),
    [
        (0.0, "no claim"),  # the forty-second pass: 0% was "a minority of claims"
        (1e-4, "a minority of claims"),
        (0.3, "a minority of claims"),
        (0.5, "half of the claims"),  # the forty-second pass: exactly half was "most claims, not all"
        (0.5001, "most claims, not all"),
        (0.99, "most claims, not all"),
        (1.0, "every claim"),
    ],
)
def test_grade1_reach_says_how_many_claims_grade_1_speaks_for(share, reach):
    assert LK.grade1_reach(share) == f"Results that rest on grade 1 alone speak for {reach}."


def test_grade1_share_prints_its_side_of_0_half_and_all():
    """The share beside `grade1_reach`'s words keeps apart from each threshold the words read it against."""
    assert [LK.grade1_share(s) for s in (0.0, 1e-4, 0.4999, 0.5, 0.9996, 1.0)] == [
        "0.0%", "0.01%", "49.99%", "50.0%", "99.96%", "100.0%"
    ]  # fmt: skip


def test_pool_scale_states_the_sizes_and_what_the_pools_are_for_each_source():
    pooled = LK.pool_scale([30, 10, 50], "pooled")
    assert "these pools hold a median of 30 documents (10 to 50): sentences that systems already chose" in pooled
    assert "a median of 20.5 documents (1 to 40)" in LK.pool_scale([1, 40], "pooled")
    store = LK.pool_scale([600, 580, 1200], "knowledge_store")
    assert (
        "the passages of its own pages in the knowledge store" in store
        and "a median of 600 documents (580 to 1,200)" in store
    )
    with pytest.raises(ValueError, match="store source 'web'"):
        LK.pool_scale([1], "web")
    with pytest.raises(ValueError, match="no claim pool"):
        LK.pool_scale([], "pooled")


def test_temporal_sentence_with_and_without_hits_dated_each_way():
    assert LK.temporal_sentence(0.017, 0.983) == (
        "1.7% of hits dated by their URL path were published after the claim, against 98.3% of hits dated only by "
        "a Wayback capture, which mostly measures when annotators archived pages, not leakage."
    )
    # a store without archive.org URLs: no hit dated by a capture (the notebook formatted None and stopped)
    assert LK.temporal_sentence(0.02, None) == (
        "2.0% of hits dated by their URL path were published after the claim; no hit is dated only by a Wayback "
        "capture."
    )
    assert LK.temporal_sentence(None, 0.4) == (
        "no hit is dated by its URL path; 40.0% of hits dated only by a Wayback capture were published after the "
        "claim (which mostly measures when annotators archived pages)."
    )


def test_a_store_without_a_dated_hit_has_no_temporal_figures(tiny_store, claims):
    """The thirty-second pass: a store whose hits carry no date (a synthetic store) stopped `store_metrics` with
    a KeyError."""
    from dataclasses import replace

    import pandas as pd

    undated = replace(tiny_store, docs=tiny_store.docs.assign(date=pd.NaT))
    assert LK.temporal_leakage(undated, claims).empty
    m = LK.store_metrics(undated, claims)
    assert m["post_claim_hits_url_path"] is None and m["post_claim_hits_wayback"] is None


def test_a_leader_at_0_but_for_noise_is_no_leader_and_no_system_is_no_finding():
    """The forty-third pass: 1e-17 was "the most leaky system is bm25 (0.0%)", and no system at all read "no
    single system's evidence comes from a fact-checking site"."""
    noise = pd.Series({"bm25": 1e-17, "dense": 0.0})
    assert LK.leakiest_phrase(noise) == "no single system's evidence comes from a fact-checking site"
    assert LK.best_coverage_phrase(noise) == "no single system retrieved one"
    assert LK.leakiest_phrase(pd.Series(dtype=float)) == "no system to compare"
    assert LK.best_coverage_phrase(pd.Series({"bm25": 4e-4, "dense": 0.0})) == "the best single system, bm25, for 0.04%"


def test_the_temporal_sentence_keeps_shares_off_0_and_100_and_refuses_no_share():
    """The forty-third pass: 0.04% of hits printed "0.0% ... published after the claim", and inf and -0.2
    printed "inf%" and "-20.0%"."""
    assert LK.temporal_sentence(0.0004, 0.9996).startswith(
        "0.04% of hits dated by their URL path were published after the claim, against 99.96% of hits"
    )
    assert LK.temporal_sentence(0.017, 0.983).startswith("1.7% of hits dated by their URL path")
    for bad in (float("inf"), -0.2):
        with pytest.raises(ValueError, match="post_claim_hits_url_path is .*, expected a share from 0 to 1"):
            LK.temporal_sentence(bad, 0.2)


def test_grade1_reach_at_1_but_for_noise_is_every_claim():
    """The forty-fourth pass: 1 - 1e-16 printed "100.0%" beside "most claims, not all"."""
    assert LK.grade1_share(1 - 1e-16) == "100.0%"
    assert LK.grade1_reach(1 - 1e-16) == "Results that rest on grade 1 alone speak for every claim."


def test_a_share_just_under_100_percent_is_no_tie_with_100():
    """The forty-fifth pass: 1.0 and 0.9996 were "tied at 100.0%"."""
    assert LK.leakiest_phrase(pd.Series({"a": 1.0, "b": 0.9996})) == "the most leaky system is a (100.0%)"
    assert LK.best_coverage_phrase(pd.Series({"a": 0.9996, "b": 0.9997})) == "the best single system, b, for 99.97%"


def test_grade1_reach_refuses_a_share_outside_0_to_1():
    """The forty-fifth pass: 1.0000000001 and True read "every claim"."""
    for bad in (1.0000000001, True, -0.1):
        with pytest.raises(ValueError, match="expected 0 to 1"):
            LK.grade1_reach(bad)


def test_the_median_of_no_pools_is_named():
    """The forty-seventh pass, third round: `median_text([])` was the text 'nan'."""
    with pytest.raises(ValueError, match="no pool sizes"):
        LK.median_text([])


def test_a_share_metric_keeps_four_places_or_the_digits_off_0_and_1():
    """The forty-seventh pass, third round (F 1): `store_metrics` rounded 1 post-claim hit in 30,000 to 0.0, and the
    sentence read from the file said "0.0% of hits ... were published after the claim"."""
    assert LK.share_metric(0.01654321) == 0.0165 and LK.share_metric(0.0) == 0.0 and LK.share_metric(1.0) == 1.0
    assert LK.share_metric(1 / 30000) == 0.00003 and LK.share_metric(1 - 1 / 30000) == 0.99997
    assert LK.temporal_sentence(LK.share_metric(1 / 30000), 0.5).startswith("0.003% of hits dated by their URL path")
    assert LK.share_metric(1e-30) == 1e-30  # past 17 places: the value itself
