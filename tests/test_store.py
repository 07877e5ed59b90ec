"""The tiny fixture's store, worked out by hand (see tests/fixtures/data).

Documents (12): dev gold G0 moon-rock@nasa.gov/moon (also sys_a, whitespace differs), G1 NASA-never@politifact,
G2 growth@stats.example.org/growth (also sys_a, utm parameter differs), G3 published-on@fakenews; sys_a A1
politifact sentence, A2 cheese@wikipedia (also sys_b), A3 washingtonpost economy, A4 vaccines@healthsite (wayback);
sys_b B1 cheese@cheese.example.com, B2 hoax@fakenews; distractors T1 train@nasa.gov/moon, E1 test@other.example.net.
"""

import json
import os
import re
import shutil
from datetime import date

import pandas as pd
import pytest
from conftest import FIXTURE_DATA, fixture_settings

from lib import outputs as OUT
from lib.cli import NamedError
from lib.data import DataError, averitec
from lib.params import ParamsError, validate
from lib.paths import STORE_DIR
from lib.store.build import (
    BuildStats,
    Candidate,
    StoreSettings,
    build_store,
    claim_pools,
    doc_id_for,
    gold_candidates,
    load_store,
    pool,
    qrels_dict,
    save_store,
    scope_doc_ids,
)


def texts(docs, ids):
    return sorted(docs.set_index("doc_id").loc[ids, "text"])


def by_text(store, text):
    [row] = store.docs[store.docs["text"] == text].to_dict("records")
    return row


def test_documents_are_unique_url_text_pairs(tiny_store):
    docs = tiny_store.docs
    assert len(docs) == 12
    assert docs["doc_id"].is_unique
    moon = by_text(tiny_store, "The moon is made of rock and dust.")
    assert moon["origin"] == ["gold", "sys_a"] and moon["claim_ids"] == [0] and moon["gold_claim_ids"] == [0]
    assert moon["norm_url"] == "nasa.gov/moon"
    cheese = docs[docs["text"] == "Cheese is a dairy product."]
    assert sorted(cheese["norm_url"]) == ["cheese.example.com", "en.wikipedia.org/wiki/Cheese"]
    wiki = cheese[cheese["norm_url"] == "en.wikipedia.org/wiki/Cheese"].iloc[0]
    assert wiki["origin"] == ["sys_a", "sys_b"]
    distractor = by_text(tiny_store, "Distractor sentence about rock and dust.")
    assert distractor["origin"] == ["gold_train"] and distractor["claim_ids"] == []


def test_boolean_answers_use_their_explanation_and_skips_are_counted(tiny_store):
    assert by_text(tiny_store, "NASA never said the moon is cheese.")["origin"] == ["gold"]
    rep = tiny_store.report
    assert rep["candidates"] == {"gold": 6, "sys_a": 6, "sys_b": 4, "gold_train": 2, "gold_test": 1}
    assert rep["skipped"] == {
        "gold": {"fewer_than_3_words": 1, "no_answer": 1},
        "sys_b": {"fewer_than_3_words": 1},
        "gold_train": {"fewer_than_3_words": 1},
    }
    assert rep["n_documents"] == 12 and rep["n_judgements"] == 11
    assert rep["fact_check_domains"] == ["politifact.com", "washingtonpost.com"]


def test_doc_ids_are_stable_and_order_free():
    a = Candidate("x", "Some text here.", "https://a.org/p", 0)
    b = Candidate("y", "Some  text here.", "http://www.a.org/p/", 1)
    docs1, _ = pool([a, b], 1, BuildStats())
    docs2, _ = pool([b, a], 1, BuildStats())
    assert docs1["doc_id"].tolist() == docs2["doc_id"].tolist() == [doc_id_for("a.org/p", "Some text here.")]
    assert docs1["claim_ids"].tolist() == [[0, 1]]


def test_flags(tiny_store):
    politifact = by_text(tiny_store, "Moon cheese claims are false, fact check finds.")
    assert politifact["fact_checking_site"] and politifact["fact_checking_domain"]
    wapo = by_text(tiny_store, "Economy grew strongly, washingtonpost reports.")
    assert wapo["fact_checking_domain"] and not wapo["fact_checking_site"]  # news site, no fact-check marker
    misinfo = tiny_store.docs.loc[tiny_store.docs["misinfo_site"], "text"].tolist()
    assert sorted(misinfo) == [
        "Chips in vaccines is a hoax from fakenews.",
        "It was published on fakenews.example.com blog.",
    ]


def test_dates(tiny_store):
    moon = by_text(tiny_store, "The moon is made of rock and dust.")
    assert (moon["date"], moon["date_source"]) == (date(2021, 3, 20), "wayback")
    assert by_text(tiny_store, "Moon cheese claims are false, fact check finds.")["date_source"] == "url_path"
    assert by_text(tiny_store, "Economy grew strongly, washingtonpost reports.")["date"] == date(2020, 1, 1)
    hoax = by_text(tiny_store, "Chips in vaccines is a hoax from fakenews.")
    assert hoax["date"] is None and pd.isna(hoax["date_source"])


def test_graded_qrels(tiny_store):
    q = qrels_dict(tiny_store.qrels)
    name = dict(zip(tiny_store.docs["doc_id"], tiny_store.docs["text"].str[:12] + "@" + tiny_store.docs["domain"]))
    named = {qid: {name[d]: g for d, g in judged.items()} for qid, judged in q.items()}
    assert named == {
        "0": {
            "The moon is @nasa.gov": 2,
            "NASA never s@politifact.com": 2,
            "Moon cheese @politifact.com": 1,
            "Distractor s@nasa.gov": 1,
            "Cheese is a @en.wikipedia.org": 0,
            "Cheese is a @cheese.example.com": 0,
        },
        "1": {"Growth was 5@stats.example.org": 2, "Economy grew@washingtonpost.com": 0},
        "2": {
            "It was publi@fakenews.example.com": 2,
            "Chips in vac@fakenews.example.com": 1,
            "Vaccines do @healthsite.org": 0,
        },
    }
    assert tiny_store.qrels["grade"].value_counts().to_dict() == {2: 4, 1: 3, 0: 4}


def test_without_gold_answers_only_url_relevance_remains():
    store = build_store(fixture_settings(include_gold=False), FIXTURE_DATA)
    assert len(store.docs) == 10
    assert set(store.qrels["grade"]) == {0, 1}
    relevant = store.qrels[store.qrels["grade"] == 1].groupby("qid").size().to_dict()
    assert relevant == {"0": 3, "1": 1, "2": 1}


def test_scopes(tiny_store):
    docs = tiny_store.docs
    assert texts(docs, scope_doc_ids(docs, 1, "claim")) == [
        "Economy grew strongly, washingtonpost reports.",
        "Growth was 5 percent in 2019.",
    ]
    assert len(scope_doc_ids(docs, 1, "global")) == 12
    with pytest.raises(ValueError, match="unknown scope 'web'"):
        scope_doc_ids(docs, 1, "web")
    pools = claim_pools(docs)
    assert {c: len(rows) for c, rows in pools.items()} == {0: 5, 1: 2, 2: 3}


def test_hits_keep_each_systems_ranking(tiny_store):
    hits = tiny_store.hits
    a0 = hits[(hits["origin"] == "sys_a") & (hits["claim_id"] == 0)].sort_values("rank")
    assert [t[:10] for t in texts_in_order(tiny_store, a0["doc_id"])] == ["The moon i", "Moon chees", "Cheese is "]
    assert len(hits[hits["origin"] == "sys_b"]) == 3


def texts_in_order(store, ids):
    lookup = dict(zip(store.docs["doc_id"], store.docs["text"]))
    return [lookup[i] for i in ids]


def test_save_load_roundtrip_and_trec_format(tiny_store, tmp_path):
    save_store(tiny_store, tmp_path)
    back = load_store(tmp_path)
    pd.testing.assert_frame_equal(back.docs, tiny_store.docs)
    pd.testing.assert_frame_equal(back.qrels, tiny_store.qrels)
    lines = (tmp_path / "qrels.txt").read_text().splitlines()
    assert len(lines) == 11
    qid, zero, did, grade = lines[0].split()
    assert zero == "0" and qid == "0" and did.startswith("D") and grade in {"0", "1", "2"}


def test_a_store_without_a_column_or_with_a_bad_date_is_named(tiny_store, tmp_path):
    """The fifty-first pass (S 3): a documents.parquet without `origin` ended in KeyError: 'origin', a date
    "2020-99-01" in `month must be in 1..12`, and a build report holding a list passed."""
    from lib.cli import NamedError
    from lib.store.build import STORE_COLUMNS

    save_store(tiny_store, tmp_path)
    docs = pd.read_parquet(tmp_path / "documents.parquet")
    docs.drop(columns=["origin"]).to_parquet(tmp_path / "documents.parquet")
    with pytest.raises(NamedError, match=r"documents\.parquet: no column 'origin' \(expected a store written by"):
        load_store(tmp_path)
    bad = docs.copy()
    bad.loc[1, "path_date"] = "2020-99-01"
    bad.to_parquet(tmp_path / "documents.parquet")
    with pytest.raises(
        NamedError, match=rf"document {bad.loc[1, 'doc_id']!r}, column 'path_date': '2020-99-01' is no ISO"
    ):
        load_store(tmp_path)
    docs.to_parquet(tmp_path / "documents.parquet")
    (tmp_path / "build_report.json").write_text("[1, 2]")
    with pytest.raises(NamedError, match=r"build_report\.json: expected a JSON object, got list"):
        load_store(tmp_path)
    (tmp_path / "build_report.json").write_text("{}")
    assert len(load_store(tmp_path).docs) == len(docs)  # every column the readers take, nothing more asked
    assert set(STORE_COLUMNS["hits.parquet"]) <= set(pd.read_parquet(tmp_path / "hits.parquet").columns)


def test_missing_store_and_bad_settings(tmp_path):
    with pytest.raises(FileNotFoundError, match="documents.parquet is missing: expected a store written by"):
        load_store(tmp_path)  # a folder of the user's: no stage to name
    with pytest.raises(FileNotFoundError, match="dvc repro store"):
        load_store(STORE_DIR / "absent")  # inside the pipeline's store: the stage that makes it
    with pytest.raises(ValueError, match="min_word"):
        StoreSettings.model_validate({"systems": {"a": "a.json"}, "min_word": 3})
    with pytest.raises(ValueError, match="systems"):
        StoreSettings.model_validate({"systems": {}})


def test_unknown_claim_id_in_a_system_output_is_an_error(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(FIXTURE_DATA, data)
    (data / "averitec" / "systems" / "sys_a.jsonl").write_text('{"claim_id": 9, "claim": "c", "top_3": []}\n')
    with pytest.raises(DataError, match="sys_a.jsonl: record 0: field 'claim_id': 9 is not a claim id of the split"):
        build_store(fixture_settings(), data)


def test_a_system_record_whose_claim_text_is_another_claims_is_an_error(tmp_path):
    # ids are positions: a claim added to dev.json, or two records swapped, moves every id after it
    data = tmp_path / "data"
    shutil.copytree(FIXTURE_DATA, data)
    sys_a = data / "averitec" / "systems" / "sys_a.jsonl"
    rows = [json.loads(line) for line in sys_a.read_text().splitlines()]
    rows[0]["claim_id"], rows[1]["claim_id"] = rows[1]["claim_id"], rows[0]["claim_id"]
    sys_a.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(DataError, match=r"sys_a.jsonl: record 0: field 'claim': differs from claim \d+ at character 1"):
        build_store(fixture_settings(), data)


@pytest.mark.parametrize(
    "content, problem",
    [
        (b"", "lists no domain"),
        (b"# only a comment\n\n", "lists no domain"),
        (b"\xff\xfeab\n", "record at line 1: not UTF-8 text"),
    ],
)
def test_a_misinfo_list_that_lists_nothing_or_is_not_text_is_an_error(tmp_path, content, problem):
    data = tmp_path / "data"
    shutil.copytree(FIXTURE_DATA, data)
    (data / "averitec" / "misinfo_domains.txt").write_bytes(content)
    with pytest.raises(DataError, match=f"misinfo_domains.txt: {problem}"):
        build_store(fixture_settings(), data)


def test_a_misinfo_list_that_is_a_pipe_is_refused_unread(tmp_path):
    os.mkfifo(tmp_path / "fifo.txt")
    with pytest.raises(DataError, match="fifo.txt: not a regular file"):
        averitec.load_misinfo_domains(tmp_path / "fifo.txt")


def test_a_system_file_is_named_alone_never_a_path_out_of_the_systems_folder():
    with pytest.raises(
        ParamsError,
        match=r"store.systems.a: expected a file's name alone \(no folder part, no control character\), got '../dev.json'",
    ):
        validate(StoreSettings, {"systems": {"a": "../dev.json"}}, "params.yaml", ("store",), [])


def test_real_store_builds_with_default_params(real_store):
    """The default settings on the real data: sizes the README and notebook 01 rely on."""
    store = real_store
    assert len(store.docs) > 20_000 and store.docs["doc_id"].is_unique
    assert store.qrels["qid"].nunique() == 500
    assert set(store.qrels["grade"]) == {0, 1, 2}


# --------------------------------------------------------------------------- source: knowledge_store

KS_PAGES = {  # claim id: pages of its store file (the claims of tests/fixtures/data/averitec/dev.json)
    0: [
        {
            "url": "https://www.nasa.gov/moon",
            "url2text": ["The moon is made of rock and dust.", "Rockets fly to the moon often."],
        },
        {"url": "https://blog.example.com/a", "url2text": ["Cheese is a dairy product made from milk.", "Ok."]},
        {"url": "https://empty.example.com/", "url2text": []},
    ],
    1: [
        {
            "url": "https://stats.example.org/growth",
            "url2text": ["Growth was 5 percent in 2019.", "Other economic news of the year."],
        }
    ],
    2: [{"url": "https://other.example.net/x", "url2text": ["Vaccines do not contain microchips at all."]}],
}


@pytest.fixture
def ks_data(tmp_path):
    """The fixture data with a knowledge store for its three dev claims under data/averitec/knowledge_store/dev."""
    import json

    data = tmp_path / "data"
    shutil.copytree(FIXTURE_DATA, data)
    store = data / "averitec" / "knowledge_store" / "dev"
    store.mkdir(parents=True)
    for cid, pages in KS_PAGES.items():
        (store / f"{cid}.json").write_text("".join(json.dumps(p) + "\n" for p in pages))
    return data


def ks_settings(**overrides):
    from lib.store.build import KnowledgeStoreSettings

    return fixture_settings(source="knowledge_store", knowledge_store=KnowledgeStoreSettings(**overrides))


def graded(store, qid):
    lookup = dict(zip(store.docs["doc_id"], store.docs["text"]))
    q = store.qrels[store.qrels["qid"] == qid]
    return {lookup[d]: (g, why) for d, g, why in zip(q["doc_id"], q["grade"], q["reason"])}


def test_a_knowledge_store_gives_the_same_tables_with_its_passages_as_documents(ks_data):
    store = build_store(ks_settings(), ks_data)
    moon = by_text(store, "The moon is made of rock and dust.")  # the gold answer, found on its source page
    assert moon["origin"] == ["gold", "knowledge_store"] and moon["claim_ids"] == [0]
    assert by_text(store, "Rockets fly to the moon often.")["origin"] == ["knowledge_store"]
    assert graded(store, "0") == {
        "The moon is made of rock and dust.": (2, "gold_answer"),
        "NASA never said the moon is cheese.": (2, "gold_answer"),
        "Rockets fly to the moon often.": (1, "gold_url"),  # another sentence of a gold source page
        "Cheese is a dairy product made from milk.": (0, "pooled"),
        "Distractor sentence about rock and dust.": (1, "gold_url"),  # a train answer from the same URL, as pooled
    }
    assert graded(store, "1") == {
        "Growth was 5 percent in 2019.": (2, "gold_answer"),
        "Other economic news of the year.": (1, "gold_url"),
    }
    assert graded(store, "2")["Vaccines do not contain microchips at all."] == (0, "pooled")
    hits = store.hits[store.hits["origin"] == "knowledge_store"]
    assert hits.groupby("claim_id")["rank"].apply(list).to_dict() == {0: [0, 1, 2], 1: [0, 1], 2: [0]}
    assert store.report["source"] == "knowledge_store"
    assert store.report["systems"] == {"knowledge_store": "data/averitec/knowledge_store/dev"}
    assert store.report["knowledge_store"] == {
        "path": "data/averitec/knowledge_store/dev",
        "claims_read": 3,
        "claims_in_store": 3,
        "empty_url2text": 1,
        "pages": 5,
        "passages": 7,  # 2 + 2 + 2 + 1 sentences on the four pages with text
        "sentences": 7,
    }
    assert store.report["skipped"]["knowledge_store"] == {"fewer_than_3_words": 1}  # "Ok."
    assert "Distractor sentence about rock and dust." in set(store.docs["text"])  # distractors as before


def test_a_knowledge_store_without_gold_documents_judges_by_url_only(ks_data):
    store = build_store(fixture_settings(source="knowledge_store", include_gold=False, distractor_splits=[]), ks_data)
    assert set(store.docs["origin"].map(tuple)) == {("knowledge_store",)}
    assert graded(store, "0")["The moon is made of rock and dust."] == (1, "gold_url")
    assert set(store.qrels["grade"]) == {0, 1}


def test_a_claim_range_reads_and_judges_only_its_claims(ks_data):
    store = build_store(ks_settings(first=1, last=1), ks_data)
    assert sorted(store.qrels["qid"].unique()) == ["1"]
    assert store.docs["claim_ids"].map(tuple).isin([(), (1,)]).all()
    assert store.report["knowledge_store"]["claims_read"] == 1
    assert store.report["candidates"]["gold"] == 3  # claim 1's answers only (of 6)


def test_a_process_pool_builds_the_same_store(ks_data):
    from lib.compute import ComputeSettings

    serial = build_store(ks_settings(), ks_data)
    pooled = build_store(ks_settings(), ks_data, ComputeSettings(backend="local", workers=2))
    pd.testing.assert_frame_equal(serial.docs, pooled.docs)
    pd.testing.assert_frame_equal(serial.qrels, pooled.qrels)
    assert serial.report == pooled.report


def test_knowledge_store_errors_name_the_store_and_claim(ks_data):
    (ks_data / "averitec" / "knowledge_store" / "dev" / "2.json").unlink()
    with pytest.raises(DataError, match=r"dev.*record 2: 1 dev claim\(s\) of the range have no <claim_id>.json"):
        build_store(ks_settings(), ks_data)
    with pytest.raises(DataError, match="no dev claim in the range"):
        build_store(ks_settings(first=7), ks_data)
    with pytest.raises(NamedError, match="expected a path under data/averitec/"):
        build_store(ks_settings(path="data/averitec/../../outside"), ks_data)
    with pytest.raises(FileNotFoundError, match="no such knowledge store"):
        build_store(ks_settings(path="data/averitec/knowledge_store/test"), ks_data)
    with pytest.raises(ValueError, match="source"):
        StoreSettings.model_validate({"systems": {"a": "a.json"}, "source": "web"})
    with pytest.raises(ValueError, match=r"knowledge_store\.pth"):
        StoreSettings.model_validate({"systems": {"a": "a.json"}, "knowledge_store": {"pth": "x"}})


def test_chunk_passages_are_indexed_with_their_context(ks_data):
    store = build_store(ks_settings(unit="chunk", chunk_chars=20, context_chars=5), ks_data)
    texts = set(store.docs.loc[store.docs["origin"].map(lambda o: "knowledge_store" in o), "text"])
    # claim 0's first page: two chunks of one sentence each, each with 5 characters of the other
    assert "The moon is made of rock and dust. Rocke" in texts
    assert "dust. Rockets fly to the moon often." in texts


def test_gold_doc_ids_are_the_ids_the_pool_gives_a_claims_answers():
    from lib.verifier.retrieved_training import gold_doc_ids

    answers = (
        averitec.Answer("The tower is 330 metres  tall.", "Extractive", "https://www.a.org/p/", None),
        averitec.Answer("Yes", "Boolean", "https://b.org/q", None, "It was built in 1889 for the fair."),
    )
    claim = averitec.Claim(
        7, "train", "c", "Refuted", None, (), (), "", None, None, None, (averitec.Question("q", answers),)
    )
    docs, _ = pool(gold_candidates([claim], "gold_train", pooled=False), 3, BuildStats())
    assert set(docs["doc_id"]) == gold_doc_ids(claim) and len(docs) == 2
    assert doc_id_for("a.org/p", "The tower is 330 metres tall.") in gold_doc_ids(claim)


def test_the_store_is_never_built_into_another_stages_output():
    """`--out-dir outputs/plans` wrote the store's five files into stage plans' output (DVC deletes them)."""
    from lib.cli import NamedError
    from lib.paths import OUTPUTS_DIR
    from lib.store import build

    with pytest.raises(NamedError, match=r"plans/x: lies inside the output of stage `plans`"):
        build.main(["--out-dir", str(OUTPUTS_DIR / "plans" / "x")])


def test_another_data_folder_or_parameter_file_builds_only_into_a_named_folder(tmp_path):
    """The forty-eighth pass: `--data-dir OTHER` (or `--params OTHER`) without `--out-dir` rebuilt the study's
    outputs/store from another data folder, which every notebook then read."""
    from lib.cli import NamedError
    from lib.paths import DATA_DIR, PARAMS_FILE, STORE_DIR
    from lib.store import build

    other = tmp_path / "params.yaml"
    other.write_text(PARAMS_FILE.read_text())
    for argv, named in (
        (["--data-dir", str(FIXTURE_DATA)], f"--data-dir {FIXTURE_DATA}"),
        (["--params", str(other)], f"--params {other}"),
    ):
        with pytest.raises(NamedError, match=rf"^{re.escape(named)}: not the study's own; the study's outputs/store"):
            build.main(argv)
    given = (("--data-dir", str(DATA_DIR), DATA_DIR), ("--params", None, PARAMS_FILE))
    assert OUT.own_output(None, STORE_DIR, given, "x", own="store") == STORE_DIR
    assert OUT.own_output(str(tmp_path / "s"), STORE_DIR, given, "x", own="store") == tmp_path / "s"
    with pytest.raises(NamedError, match="is also an input of this command"):
        OUT.own_output(str(FIXTURE_DATA), STORE_DIR, (("--data-dir", str(FIXTURE_DATA), DATA_DIR),), "x")


def test_two_names_of_one_system_file_are_refused():
    """`store.systems: {a: x.json, b: x.json}` pooled one system's documents as two origins."""
    from lib.store.build import StoreSettings

    with pytest.raises(ValueError, match="store.systems: 'a' and 'b' both read x.json; name each system once"):
        StoreSettings.model_validate({"systems": {"a": "x.json", "b": "x.json"}})
    assert list(StoreSettings.model_validate({"systems": {"a": "x.json", "b": "y.json"}}).systems) == ["a", "b"]


def test_fact_check_domains_are_bare_domains():
    for domains in (["https://www.snopes.com/"], ["Snopes.com "], ["www.reuters.com"], ["apnews.com/"]):
        with pytest.raises(ParamsError, match="expected a bare lower-case domain"):
            validate(
                StoreSettings, {"systems": {"a": "a.json"}, "extra_fact_check_domains": domains}, "p", ("store",), []
            )


def test_a_store_that_keeps_no_document_is_an_error(tmp_path):
    with pytest.raises(NamedError, match=r"store: no document kept \(store.min_words = 100000\)"):
        build_store(fixture_settings(min_words=100000, include_gold=False), FIXTURE_DATA)


@pytest.mark.parametrize("name", ["gold", "gold_train", "knowledge_store", "", "a b"])
def test_a_system_named_like_the_stores_own_documents_is_refused(name):
    """A system named `gold` merged its hits with the gold answers' (5,900 "gold" documents for 1,262)."""
    from lib.store.build import StoreSettings

    with pytest.raises(ValueError, match="store.systems: .*a system's name is letters"):
        StoreSettings.model_validate({"systems": {name: "a.json"}})


@pytest.mark.parametrize("name", ["oracle", "oracle__duplicated", "hero__x3", "reference_gold", " "])
def test_a_published_system_named_like_another_run_is_refused(name):
    """`averitec.systems: {oracle: ...}` replaced ORACLE's scores with the system's (0.185 for 0.489), exit 0."""
    from lib.averitec.section import AveritecSection
    from lib.params import section

    raw = {
        **section("averitec"),
        "plans": ["oracle"],
        "systems": {name: "x.json"},
        "repeat_systems": [],
        "duplicate_for": ["oracle"],
    }
    with pytest.raises(ValueError, match="names another run|should match pattern"):  # " ": no plan name at all
        AveritecSection.model_validate(raw)


def test_a_system_name_is_a_file_name_and_names_one_file():
    """The forty-eighth pass: `averitec.systems: {../../zz: ...}` wrote its submission CSV outside the stage's
    folder, and two names of one file scored one system twice (the across-systems rho moved)."""
    from lib.averitec.section import AveritecSection
    from lib.params import ParamsError, section, validate

    base = {**section("averitec"), "plans": ["oracle"], "repeat_systems": [], "duplicate_for": ["oracle"]}
    for key, raw in (
        ("averitec.systems: the key", {**base, "systems": {"../../zz": "x.json"}}),
        (r"averitec.plans\[0\]", {**base, "plans": ["../x"], "duplicate_for": ["../x"]}),
    ):
        with pytest.raises(ParamsError, match=rf"{key}: expected a plan name of lower-case letters, digits and _"):
            validate(AveritecSection, raw, "params.yaml", ("averitec",), [])
    with pytest.raises(ParamsError, match="averitec.systems: 'a' and 'b' both read x.json; name each system once"):
        validate(AveritecSection, {**base, "systems": {"a": "x.json", "b": "x.json"}}, "params.yaml", ("averitec",), [])


def test_a_system_file_cut_short_is_said(tmp_path, capsys):
    """A system file cut to a fifth of the dev claims was pooled without a word; its coverage fell with it."""
    import shutil

    data = tmp_path / "data"
    shutil.copytree(FIXTURE_DATA, data)
    lines = (data / "averitec" / "systems" / "sys_a.jsonl").read_text().splitlines(keepends=True)
    (data / "averitec" / "systems" / "sys_a.jsonl").write_text(lines[0])
    build_store(fixture_settings(), data)
    assert "warning: store.systems.sys_a (sys_a.jsonl) has records for 1 of the 3 dev claims" in capsys.readouterr().err
    build_store(fixture_settings(), FIXTURE_DATA)
    assert "warning" not in capsys.readouterr().err


def test_trec_writers_refuse_what_their_readers_refuse_and_keep_every_score(tmp_path):
    from lib.store import trec as T

    T.write_trec_run({"q1": {"a": 1.00000000001, "b": 1.0}}, tmp_path / "r.txt")
    back = T.read_trec_run(tmp_path / "r.txt")
    assert T.rank(back["q1"]) == ["a", "b"]  # `.10g` wrote both as 1: read back, b ranked first
    for run, tag in (
        ({"q 1": {"a": 1.0}}, "t"),
        ({"q1": {"": 1.0}}, "t"),
        ({"q1": {"a\n": 1.0}}, "t"),
        ({"q1": {"a": 1.0}}, "my run"),
    ):
        with pytest.raises(ValueError, match="a TREC field needs text without white space"):
            T.write_trec_run(run, tmp_path / "bad.txt", tag=tag)
    for bad in (float("inf"), -float("inf"), 10**400, "1.5"):  # 10**400: a bare OverflowError; "1.5": a TypeError
        with pytest.raises(ValueError, match="is not a finite number"):
            T.write_trec_run({"q1": {"a": bad}}, tmp_path / "inf.txt")
    assert not (tmp_path / "inf.txt").exists()
    for depth in (0, -1):  # -1 dropped the last document
        with pytest.raises(ValueError, match=f"depth {depth}: a run keeps a whole number of at least 1 document"):
            T.write_trec_run({"q1": {"a": 1.0}}, tmp_path / "d.txt", depth=depth)
    # integer document ids tie as the file holds them, as text: 10 was ranked above 9, the file's reader put 9 first
    T.write_trec_run({0: {9: 1.0, 10: 1.0, 3: 0.5}}, tmp_path / "tie.txt")
    assert T.rank({9: 1.0, 10: 1.0, 3: 0.5}) == [9, 10, 3]
    assert T.rank(T.read_trec_run(tmp_path / "tie.txt")["0"]) == ["9", "10", "3"]
    (tmp_path / "bom.txt").write_text("0 0 d1 2\n0 0 d2 1\n", encoding="utf-8-sig")  # a byte-order mark: Notepad
    assert T.read_trec_qrels(tmp_path / "bom.txt") == {"0": {"d1": 2, "d2": 1}}  # was {"\ufeff0": {"d1": 2}, ...}
    T.write_trec_run({1: {"a": 1.0}, 20: {"b": 2.0}}, tmp_path / "ints.txt")  # integer query ids: a TypeError before
    assert (tmp_path / "ints.txt").read_text().splitlines()[0].startswith("1 Q0 a 1")
    for grade in (1.5, True, float("nan"), 10**10):
        with pytest.raises(ValueError, match=r"grade .* is not an integer"):
            T.write_trec_qrels({"q1": {"a": grade}}, tmp_path / "q.txt")
    for score in ("1_000", "١", "0x10"):
        (tmp_path / "s.txt").write_text(f"q1 Q0 a 1 {score} t\n", encoding="utf-8")
        with pytest.raises(ValueError, match="is not a finite number"):
            T.read_trec_run(tmp_path / "s.txt")


def test_the_run_writer_refuses_ids_that_print_alike_and_a_depth_or_score_of_another_type(tmp_path):
    """The thirty-second pass: queries 1 and "1" became one query of the file; documents 1 and "1" were written
    and the file's reader refused them; depth True was 1, 1.5 a bare TypeError; a score True was 1.0."""
    import numpy as np

    from lib.store import trec as T

    path = tmp_path / "r.txt"
    cases = [
        ({1: {"a": 1.0}, "1": {"b": 2.0}}, {}, r"^query ids 1 and '1' are one id in a TREC file"),
        ({"q": {1: 1.0, "1": 2.0}}, {}, r"^query q: document ids 1 and '1' are one id in a TREC file$"),
        ({"q": {"a": 1.0}}, {"depth": True}, r"^depth True: a run keeps a whole number of at least 1"),
        ({"q": {"a": 1.0}}, {"depth": 1.5}, r"^depth 1\.5: a run keeps a whole number"),
        ({"q": {"a": True}}, {}, r"^query q, document a: score True is not a finite number$"),
        ({"q": {"a": np.bool_(True)}}, {}, r"^query q, document a: score np\.True_ is not a finite number$"),
    ]
    for run, kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            T.write_trec_run(run, path, **kwargs)
        assert not path.exists()
    T.write_trec_run({"q": {"a": 1.0, "b": 2.0}}, path, depth=np.int64(1))  # numpy's integers are whole numbers
    assert path.read_text() == "q Q0 b 1 2.0 study\n"
    # ranked by the scores as written: 2**53 + 1 and 2**53 are one float, and the file ranks b first (the
    # thirty-third pass: the rank column said a)
    T.write_trec_run({"q1": {"a": 2**53 + 1, "b": 2**53}}, path)
    assert path.read_text() == "q1 Q0 b 1 9007199254740992.0 study\nq1 Q0 a 2 9007199254740992.0 study\n"
    assert T.rank(T.read_trec_run(path)["q1"]) == ["b", "a"]


def test_the_qrels_writer_refuses_ids_that_print_alike():
    """The thirty-seventh pass: qrels {1: ..., "1": ...} were written and the file's reader refused them."""
    import tempfile

    from lib.store import trec as T

    path = tempfile.mktemp(suffix=".txt")
    with pytest.raises(ValueError, match=r"^query ids 1 and '1' are one id in a TREC file"):
        T.write_trec_qrels({1: {"a": 1}, "1": {"a": 0}}, path)
    with pytest.raises(ValueError, match=r"^query q: document ids 1 and '1' are one id in a TREC file$"):
        T.write_trec_qrels({"q": {1: 1, "1": 0}}, path)


def test_a_named_out_dir_is_a_folder_of_its_own(tmp_path):
    """The forty-ninth pass: `--data-dir OTHER --out-dir outputs/store` rebuilt the study's store from another data
    folder (the study's folder named as the command's own), and `qgen_training --out-dir sweeps` replaced the
    committed sweeps with a model."""
    from lib.paths import DATA_DIR, OUTPUTS_DIR, ROOT, STORE_DIR
    from lib.store import build

    other = (("--data-dir", str(FIXTURE_DATA), DATA_DIR),)
    for named in (STORE_DIR, f"{STORE_DIR}/", STORE_DIR / "alt", OUTPUTS_DIR):
        with pytest.raises(NamedError, match=r"the study's outputs/store \(or a folder holding it\), which the"):
            OUT.own_output(str(named), STORE_DIR, other, "the study's outputs/store", own="store")
    with pytest.raises(NamedError, match="not the study's own|or a folder holding it"):
        build.main(["--data-dir", str(FIXTURE_DATA), "--out-dir", "outputs/store"])
    for folder, held in (("sweeps", "sweeps/"), ("outputs/models", "outputs/models/qgen/training.json")):
        with pytest.raises(NamedError, match=rf"--out-dir {ROOT / folder}: holds {re.escape(held)}"):
            OUT.own_output(str(ROOT / folder), STORE_DIR, (), "x", own="store")
    with pytest.raises(NamedError, match=r"holds outputs/\S+, the output of stage"):
        OUT.own_output(str(OUTPUTS_DIR), STORE_DIR, (), "x", own="store")
    assert OUT.own_output(str(STORE_DIR), STORE_DIR, (), "x", own="store") == STORE_DIR  # its own folder, named
    # the fiftieth pass (O 2): a folder above the stage's own output held it, and was excused as the stage's own
    from lib.planning.qgen_text import MODEL_DIR

    with pytest.raises(
        NamedError,
        match=r"--out-dir \S+/outputs/models: holds outputs/models/qgen/training.json, the output of stage `qgen`",
    ):
        OUT.own_output(str(MODEL_DIR.parent), MODEL_DIR, (), "x", own="qgen")
    assert OUT.own_output(str(MODEL_DIR), MODEL_DIR, (), "x", own="qgen") == MODEL_DIR
    assert OUT.own_output(str(tmp_path / "s"), STORE_DIR, other, "x", own="store") == tmp_path / "s"


def test_a_control_character_in_a_file_name_is_refused():
    """The forty-ninth pass: `store.systems.x: "a\\0b.json"` passed the schema and ended in "embedded null byte"."""
    with pytest.raises(
        ParamsError, match=r"store.systems.a: expected a file's name alone \(no folder part, no control"
    ):
        validate(StoreSettings, {"systems": {"a": "a\0b.json"}}, "p", ("store",), [])
