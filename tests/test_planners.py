"""Plans from the fixture claims, the heuristic rules one by one, the plan format and statistics."""

import json
import os

import numpy as np
import pandas as pd
import pytest
from conftest import FIXTURE_DATA

from lib.data import DataError, averitec
from lib.planning import planners as P
from lib.site import display as DS
from tests.hang_guard import ends_within


@pytest.fixture(scope="module")
def claims():
    return averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")


def test_claim_only_and_oracle(claims):
    assert P.claim_only(claims)[1] == ["Country X had 5% growth in 2019."]
    assert P.oracle(claims) == {
        0: ["What is the moon made of?", "Did NASA say it?"],
        1: ["What was growth?", "Is there more data?"],
        2: ["Where was it published?"],
    }


def test_bloom_and_post_hoc_keep_distinct_questions_in_order(claims):
    assert P.bloom_qg(claims, {0: ["Q?", "q? ", "R?"], 1: []}) == {0: ["Q?", "R?"], 1: [], 2: []}
    outputs = averitec.load_system_output(FIXTURE_DATA / "averitec" / "systems" / "sys_b.json", claims=claims)
    plan = P.post_hoc(claims, outputs)
    assert set(plan) == {0, 1, 2}
    assert plan[0] == ["What is cheese?"] and plan[2] == ["Who says so?"]


def test_post_hoc_refuses_an_output_that_misses_claims_or_holds_no_question(claims):
    systems = FIXTURE_DATA / "averitec" / "systems"
    qa = averitec.load_system_output(systems / "sys_b.json", claims=claims)
    with pytest.raises(
        DataError, match=r"sys_b.json: field 'claim_id': covers 2 of 3 claims \(claim 1 has no record\)"
    ):
        P.post_hoc(claims, [o for o in qa if o.claim_id != 1], systems / "sys_b.json")
    sentences = averitec.load_system_output(systems / "sys_a.jsonl", claims=claims)  # top-k sentences: no questions
    with pytest.raises(DataError, match="sys_a.jsonl: field 'evidence': no record holds a question"):
        P.post_hoc(claims, sentences, systems / "sys_a.jsonl")


def test_the_heuristic_planner_of_a_long_claim_ends():
    """Each connective's sides counted anew, a scan of the clause per mention, `words[1:]` per leading
    "The", and patterns retried across runs of spaces: a 1 MiB claim (the bound on a text) took hours."""
    with ends_within():
        for claim in ("Biden and " * 20_000, "The " * 50_000, "1999 " * 40_000, "A" + " " * 500_000 + "b"):
            assert P.heuristic_queries(claim)
    assert P.split_clauses("one two three four and five six seven eight and nine") == [
        "one two three four",
        "five six seven eight and nine",
    ]


def test_rule1_clauses_split_on_sentences_and_long_connective_sides():
    assert P.split_clauses("Biden and Harris won the election.") == ["Biden and Harris won the election"]
    assert P.split_clauses("Prices rose by half this year, but wages fell for most workers.") == [
        "Prices rose by half this year",
        "wages fell for most workers",
    ]
    assert P.split_clauses("It rained. Then it snowed all day; roads closed.") == [
        "It rained",
        "Then it snowed all day",
        "roads closed",
    ]


def test_rules2_to_4_numbers_dates_and_entities_with_their_windows():
    found = P.aspects("In March 2020 the WHO said 5% of people in Italy died", width=1)
    assert ("date", "In March 2020 the") in found
    assert ("number", "said 5% of") in found
    assert ("entity", "the WHO said") in found and ("entity", "in Italy died") in found
    assert not any(kind == "entity" and q.startswith("In March") for kind, q in found)  # dates are not entities
    assert not any(kind == "number" and "2020" in q for kind, q in found)  # a year is a date


def test_heuristic_queries_start_with_clauses_and_drop_duplicates():
    qs = P.heuristic_queries("NASA said the moon is cheese.", width=10)
    assert qs == ["NASA said the moon is cheese"]  # the entity window is the whole clause again: dropped
    qs = P.heuristic_queries("Country X had 5% growth in 2019.", width=1, max_queries=8)
    assert qs[0] == "Country X had 5% growth in 2019"
    assert "in 2019" in qs and "had 5% growth" in qs
    assert P.heuristic_queries("Sales were 10, 20, 30 and 40 units", width=0, max_queries=3) == [
        "Sales were 10, 20, 30 and 40 units",
        "10",
        "20",
    ]


def test_plan_files_round_trip_and_bad_lines_name_the_line(tmp_path):
    plan = {2: ["b"], 0: ["a", "é"]}
    P.save_plan(plan, tmp_path / "p.jsonl")
    assert (tmp_path / "p.jsonl").read_text(encoding="utf-8").splitlines()[
        0
    ] == '{"claim_id": 0, "queries": ["a", "é"]}'
    assert P.load_plan(tmp_path / "p.jsonl") == {0: ["a", "é"], 2: ["b"]}
    (tmp_path / "bad.jsonl").write_text(
        json.dumps({"claim_id": 0, "queries": ["a"]}) + "\n" + json.dumps({"claim_id": 1, "queries": "a"}) + "\n"
    )
    with pytest.raises(DataError, match="bad.jsonl.*record 2.*queries"):
        P.load_plan(tmp_path / "bad.jsonl")


@pytest.mark.parametrize(
    "content, message",
    [
        (b'{"claim_id": 0, "claim_id": 1, "queries": ["a"]}\n', r"record 1: .*key 'claim_id'"),  # was claim 1
        (b'{"claim_id": 0, "queries": ["caf\xe9"]}\n', r"record at line 1: not UTF-8 text \(invalid continuation"),
        (b'{"claim_id": 0, "queries": ["a \\ud800 b"]}\n', r"record 1: field 'queries': a lone surrogate"),
        (b'{"claim_id": 0, "queries": [], "querys": ["a"]}\n', r"record 1: field 'querys': unexpected field"),
    ],
)
def test_a_plan_is_read_as_strictly_as_every_json_input(tmp_path, content, message):
    """A key named twice kept its last value; a Latin-1 byte and a lone surrogate ended in tracebacks, the
    latter after the retrieval, when pyarrow wrote the runs."""
    (tmp_path / "p.jsonl").write_bytes(content)
    with pytest.raises(DataError, match=message):
        P.load_plan(tmp_path / "p.jsonl")


def test_a_plan_with_a_byte_order_mark_is_read(tmp_path):
    """A plan saved by Notepad began with a BOM and was refused, while the README says JSON inputs skip it."""
    (tmp_path / "p.jsonl").write_bytes(b"\xef\xbb\xbf" + json.dumps({"claim_id": 0, "queries": ["a"]}).encode() + b"\n")
    assert P.load_plan(tmp_path / "p.jsonl") == {0: ["a"]}


def test_a_plan_line_with_more_queries_than_the_bound_is_refused(tmp_path, monkeypatch):
    """One line of 140 KB held 20,000 queries (2.4 M fit the record bound): hours of retrieval and fusion."""
    monkeypatch.setattr(P, "MAX_PLAN_QUERIES", 3)
    lines = [{"claim_id": 0, "queries": ["a", "b", "c"]}, {"claim_id": 1, "queries": ["a"] * 4}]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    with pytest.raises(DataError) as err:
        P.load_plan(tmp_path / "p.jsonl")
    assert str(err.value).endswith(
        "record 2: field 'queries': 4 queries, over 3 for one claim (set $LIB_MAX_PLAN_QUERIES to read them)"
    )


def test_a_plan_is_never_written_with_more_queries_than_it_may_be_read_with(tmp_path, monkeypatch):
    """An LLM answer of 3,000 questions was saved, exit 0, and the next stage refused the plan."""
    from lib.cli import NamedError

    monkeypatch.setattr(P, "MAX_PLAN_QUERIES", 2)
    with pytest.raises(NamedError, match=r"claim 7 has more than 2 queries, the bound for one claim"):
        P.save_plan({0: ["a"], 7: ["a", "b", "c"]}, tmp_path / "p.jsonl")
    assert not (tmp_path / "p.jsonl").exists()


def test_a_plan_line_over_the_record_bound_is_refused_before_it_is_decoded(tmp_path, monkeypatch):
    """A 229 MB plan line (under the file bound) was decoded whole: 1.8 GB, then 20 M queries."""
    import lib.data as D

    monkeypatch.setattr(D, "MAX_RECORD_CHARS", 100)
    (tmp_path / "p.jsonl").write_text(json.dumps({"claim_id": 0, "queries": ["w" * 200]}) + "\n")
    with pytest.raises(DataError, match=r"record at line 1: a record longer than 100 characters"):
        P.load_plan(tmp_path / "p.jsonl")


def test_a_plan_that_is_a_pipe_or_a_device_is_never_opened(tmp_path):
    os.mkfifo(tmp_path / "fifo")  # opened, it would wait for a writer forever
    for path in (tmp_path / "fifo", "/dev/zero"):
        with pytest.raises(DataError, match="not a regular file"):
            P.load_plan(path)


@pytest.mark.parametrize("cid", [0.9, True, "1.0", -3, "²", None])
def test_a_plan_line_whose_claim_id_is_no_integer_names_the_line(tmp_path, cid):
    """0.9 was read as claim 0 and true as claim 1: queries silently moved to another claim."""
    (tmp_path / "p.jsonl").write_text(
        json.dumps({"claim_id": 4, "queries": ["a"]}) + "\n" + json.dumps({"claim_id": cid, "queries": ["b"]})
    )
    with pytest.raises(DataError, match="p.jsonl.*record 2.*integer id"):
        P.load_plan(tmp_path / "p.jsonl")
    (tmp_path / "q.jsonl").write_text(json.dumps({"claim_id": "12", "queries": ["b"]}))
    assert P.load_plan(tmp_path / "q.jsonl") == {12: ["b"]}  # a text of digits is an id, as in a CSV cell


def test_resolve_falls_back_to_the_claim_and_reports_it(claims):
    resolved, fallback = P.resolve({0: ["q", " "], 1: []}, claims)
    assert resolved[0] == ["q"]
    assert resolved[1] == ["Country X had 5% growth in 2019."] and resolved[2] == [claims[2].text]
    assert fallback == [1, 2]


def test_plan_statistics_by_hand():
    vecs = {"a": np.array([1.0, 0.0]), "b": np.array([0.0, 1.0]), "c": np.array([0.6, 0.8])}
    plan = {0: ["a", "b", "c"], 1: ["a b"], 2: []}
    stats = P.plan_stats(plan, embed=lambda qs: np.stack([vecs[q] for q in qs]))
    assert stats["claims"] == 3 and stats["empty_plans"] == 1
    assert stats["queries_per_claim"] == pytest.approx(4 / 3) and stats["queries_per_claim_median"] == 1.0
    assert stats["tokens_per_query"] == pytest.approx((1 + 1 + 1 + 2) / 4)
    assert stats["redundancy"] == pytest.approx((0.0 + 0.6 + 0.8) / 3)  # only claim 0 has 2+ queries
    assert np.isnan(P.redundancy(np.ones((1, 2))))


def test_labels():
    assert DS.planner("oracle") == "ORACLE-QUERIES" and DS.planner("post_hoc_hero_qa") == "POST-HOC (hero_qa)"


def test_generated_questions_must_be_those_of_the_claims_they_are_read_for(tmp_path, claims):
    """A BLOOM file with two records swapped gave each claim the other's questions; one cut short, empty plans."""
    rows = json.loads((FIXTURE_DATA / "averitec" / "dev.json").read_text())
    for n, row in enumerate(rows):
        row["questions"] = [{"question": f"Q{n}?", "answers": []}]
    path = tmp_path / "bloom.json"
    path.write_text(json.dumps(rows))
    assert averitec.load_generated_questions(path, split=claims) == {c.claim_id: [f"Q{c.claim_id}?"] for c in claims}
    path.write_text(json.dumps([rows[1], rows[0], *rows[2:]]))
    with pytest.raises(DataError, match="bloom.json: record 0: field 'claim': differs from claim 0"):
        averitec.load_generated_questions(path, split=claims)
    path.write_text(json.dumps(rows[:-1]))
    with pytest.raises(DataError, match=r"bloom.json: \d+ records for \d+ claims"):
        averitec.load_generated_questions(path, split=claims)


@pytest.mark.parametrize(
    "plan, message",
    [
        ({1: "who said it"}, r"claim 1: queries: expected a list of strings, got a value of type str$"),  # letters
        ({1.9: ["q"]}, r"claim id 1\.9: expected a non-negative integer id"),  # was written as claim 1
        ({-3: ["q"]}, r"claim id -3: expected a non-negative integer id"),
        ({True: ["q"]}, r"claim id True: expected"),
        ({1: [None, "q"]}, r"claim 1: queries: expected a list of strings, got None among them$"),
        ({"01": ["a"], "1": ["b"]}, r"claim 1 appears twice \(once as '1'\)"),
        ({1: ["a"], "1": ["b"]}, r"claim 1 appears twice"),  # was a bare TypeError from sorting
    ],
)
def test_save_plan_refuses_what_load_plan_would_refuse_and_writes_nothing(tmp_path, plan, message):
    """The thirty-second pass: each of these was written, exit 0 (or a bare TypeError)."""
    from lib.cli import NamedError

    path = tmp_path / "plan.jsonl"
    with pytest.raises(NamedError, match=message):
        P.save_plan(plan, path)
    assert not path.exists()


def test_save_plan_takes_numpy_ids_and_any_sequence_of_queries(tmp_path):
    path = tmp_path / "plan.jsonl"
    P.save_plan({np.int64(3): ("a", "b"), 1: ["c"]}, path)
    P.save_plan({np.int64(3): np.array(["a", "b"]), 1: pd.Series(["c"])}, path)  # refused by the thirty-second pass
    assert path.read_text().splitlines() == [
        '{"claim_id": 1, "queries": ["c"]}',
        '{"claim_id": 3, "queries": ["a", "b"]}',
    ]
    assert P.load_plan(path) == {1: ["c"], 3: ["a", "b"]}
    with pytest.raises(DataError, match=r"record claim 2: field 'queries': a text of 1,048,577 characters"):
        P.save_plan({2: ["x" * 1_048_577]}, path)


def test_save_plan_names_missing_texts_and_stops_an_endless_iterator(tmp_path):
    """The thirty-sixth pass: pd.NA and a 2-D array were bare TypeErrors, an endless iterator a MemoryError."""
    import itertools

    from lib.cli import NamedError

    path = tmp_path / "p.jsonl"
    with pytest.raises(NamedError, match=r"claim 1: queries: expected a list of strings, got <NA> among them$"):
        P.save_plan({1: pd.Series(["a", pd.NA], dtype="string")}, path)
    with pytest.raises(NamedError, match=r"claim 1: queries: expected a list of strings, got array\(\['a', 'b'\]"):
        P.save_plan({1: np.array([["a", "b"]])}, path)
    with pytest.raises(NamedError, match=r"claim 1 has more than 1,000 queries, the bound for one claim"):
        P.save_plan({1: itertools.repeat("q")}, path)
    assert not path.exists()


def test_a_post_hoc_name_is_a_plan_name_and_names_one_file():
    """The forty-eighth pass: a `post_hoc` key became a file name unchecked (`x/../../data/zz` wrote a plan into
    data/, `HERO_QA` and `hero qa` plans of their own), and two keys of one file made one system two."""
    from lib.params import ParamsError, validate

    good = {"bloom_file": "b.jsonl", "heuristic": {"window": 4, "max_queries": 8}}
    for key in ("x/../../data/zz", "HERO_QA", "hero qa", "", "_x"):
        with pytest.raises(ParamsError, match=rf"planners.post_hoc: the key: expected a plan name of lower-case letters, "
                           rf"digits and _ \(a file's name is made of it\), got '{key}'"):  # fmt: skip
            validate(P.PlannersSection, {**good, "post_hoc": {key: "a.jsonl"}}, "params.yaml", ("planners",), [])
    with pytest.raises(ParamsError, match="post_hoc: 'a' and 'b' both read a.jsonl; name each system once"):
        validate(
            P.PlannersSection, {**good, "post_hoc": {"a": "a.jsonl", "b": "a.jsonl"}}, "params.yaml", ("planners",), []
        )
    assert validate(P.PlannersSection, {**good, "post_hoc": {"hero_qa2": "a.jsonl"}}, "p", ("planners",), [])


def test_another_parameter_file_plans_only_into_a_named_folder_and_stale_post_hoc_plans_go(tmp_path):
    """The forty-ninth pass: `--params OTHER` rewrote the study's outputs/plans, and a POST-HOC plan dropped from
    params kept its old file, read as current."""
    import re
    import shutil

    import yaml

    from lib.cli import NamedError
    from lib.paths import PARAMS_FILE
    from lib.planning import planners as PL

    other = tmp_path / "params.yaml"
    shutil.copy(PARAMS_FILE, other)
    with pytest.raises(
        NamedError, match=rf"^--params {re.escape(str(other))}: not the study's own; the study's outputs/plans"
    ):
        PL.main(["--params", str(other)])
    params = yaml.safe_load(other.read_text())
    params["planners"]["post_hoc"] = {}
    other.write_text(yaml.safe_dump(params))
    out = tmp_path / "plans"
    out.mkdir()
    (out / "post_hoc_gone.jsonl").write_text('{"claim_id": 0, "queries": ["q"]}\n')
    (out / "notes.jsonl").write_text("")
    PL.main(["--params", str(other), "--out-dir", str(out)])
    assert not (out / "post_hoc_gone.jsonl").exists() and (out / "notes.jsonl").exists()
    assert (out / "claim_only.jsonl").exists()


def test_only_stale_plan_files_are_removed(tmp_path):
    """The fiftieth pass (O 1): a user's own `post_hoc_notes.jsonl` and a link were removed as "no longer named"."""
    P.save_plan({1: ["q"]}, tmp_path / "post_hoc_gone.jsonl")
    P.save_plan({1: ["q"]}, tmp_path / "post_hoc_kept.jsonl")
    (tmp_path / "post_hoc_notes.jsonl").write_text('{"my": "notes"}\n')
    (tmp_path / "post_hoc_link.jsonl").symlink_to(tmp_path / "post_hoc_gone.jsonl")
    (tmp_path / "post_hoc_dir.jsonl").mkdir()
    stale = P.stale_post_hoc(tmp_path, {"post_hoc_kept": {}})
    assert [p.name for p in stale] == ["post_hoc_gone.jsonl"]


def test_an_empty_post_hoc_file_is_no_stale_plan(tmp_path):
    """The fiftieth pass, Q 10: empty, blank and BOM-only `post_hoc_*.jsonl` files were removed as stale plans."""
    (tmp_path / "post_hoc_empty.jsonl").write_text("")
    (tmp_path / "post_hoc_blank.jsonl").write_text("\n\n")
    (tmp_path / "post_hoc_bom.jsonl").write_bytes(b"\xef\xbb\xbf")
    assert P.stale_post_hoc(tmp_path, {}) == []
