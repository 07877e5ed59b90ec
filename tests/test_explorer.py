"""The evidence explorer (lib/site/explorer.py, lib/site/links.py): its payload from known outputs, the tables
of a view, the page in a headless browser, the JupyterLab widget, and the committed page."""

from __future__ import annotations

import hashlib
import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import FIXTURE_DATA, chromium

from lib.data import averitec
from lib.paths import ROOT
from lib.site import explorer as E
from lib.site import links as LK

LABELS = ["Supported", "Refuted", "Not Enough Evidence", "Conflicting Evidence/Cherrypicking"]


def _runs() -> pd.DataFrame:
    rows = []
    for plan in ("claim_only", "oracle"):
        for fusion in ("combmax_norm", "rrf") if plan == "oracle" else ("combmax_norm",):
            for temporal in (False, True):
                for cid in (0, 1):
                    for rank, (doc, score) in enumerate([("d1", 2.5), ("d2", 1.25), ("d3", 0.3333)], 1):
                        rows.append([plan, "bm25", "global", temporal, fusion, cid, doc, rank, score + cid])
    rows.append(["oracle", "dense", "claim", False, "combmax_norm", 1, "d3", 1, 0.91234])
    return pd.DataFrame(
        rows, columns=["plan", "retriever", "scope", "temporal", "fusion", "claim_id", "doc_id", "rank", "score"]
    )


def _verdicts() -> pd.DataFrame:
    rows = []
    for setting, k in [
        ("planner:oracle", 1),
        ("planner:oracle", 3),
        ("planner:claim_only", 3),
        ("gold", 3),
        ("naive", -1),
    ]:
        for seed in (0, 1):
            for cid in (0, 1):
                p = [0.125, 0.5, 0.25, 0.125] if seed == 0 else [1.0, 0.0, 0.0, 0.0]
                rows.append([setting, k, seed, cid, "Refuted" if seed == 0 else "Supported", *p])
    return pd.DataFrame(rows, columns=["setting", "k", "seed", "claim_id", "pred", *(f"p:{lab}" for lab in LABELS)])


@pytest.fixture(scope="module")
def inputs() -> dict:
    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")[:2]
    return {
        "claims": claims,
        "plans": {
            "claim_only": {0: ["c0"], 1: ["c1"]},
            "oracle": {0: ["What is the moon made of?"], 1: []},
            "unused": {0: ["x"]},
        },
        "runs": _runs(),
        "documents": pd.DataFrame(
            {
                "doc_id": ["d1", "d2", "d3", "d4"],
                "url": ["https://a.example/1", "https://b.example/2", "", "https://d"],
                "date": ["2020-01-01", None, "2019-05-05", None],
                "text": ["The moon is made of rock and dust.", "word " * 30, "short  text\nhere", "unused"],
            }
        ),
        "qrels": pd.DataFrame(
            {
                "qid": ["0", "0", "1"],
                "doc_id": ["d1", "d2", "d3"],
                "grade": [2, 0, 1],
                "reason": ["gold_answer", "pooled", "gold_url"],
            }
        ),
        "verdicts": _verdicts(),
        "verdict_report": {
            "k": 3,
            "seeds": [1, 0],
            "labels": LABELS,
            "retrieval": {"retriever": "bm25", "scope": "global"},
        },
        "codes": pd.DataFrame(
            {
                "method": ["oracle", "claim_only"],
                "claim_id": [0, 1],
                "code": ["noisy retrieval", "correct"],
                "family": ["retrieval", "correct"],
            }
        ),
    }


@pytest.fixture(scope="module")
def data(inputs) -> dict:
    return E.build(**inputs, top_docs=2, snippet_chars=50)


def test_build_keeps_the_main_fusion_without_the_filter_and_the_top_documents(data):
    meta = data["meta"]
    assert meta["fusion"] == "combmax_norm" and meta["top_docs"] == 2
    assert meta["planners"] == [
        ["claim_only", "CLAIM-ONLY"],
        ["oracle", "ORACLE-QUERIES"],
    ]  # plans with runs, in plan order
    assert meta["retrievers"] == ["bm25", "dense"] and meta["scopes"] == ["claim", "global"]
    c0, c1 = data["claims"]
    assert c0["ranked"]["oracle|bm25|global"] == [["d1", 1, "2.500", 2, "gold_answer"], ["d2", 2, "1.250", 0, "pooled"]]
    assert c1["ranked"]["oracle|bm25|global"] == [["d1", 1, "3.500", None, None], ["d2", 2, "2.250", None, None]]
    assert c1["ranked"]["oracle|dense|claim"] == [["d3", 1, "0.912", 1, "gold_url"]]
    assert "oracle|dense|claim" not in c0["ranked"]
    assert sorted(data["docs"]) == ["d1", "d2", "d3"]  # only documents shown
    assert data["docs"]["d2"] == ["https://b.example/2", "", "word word word word word word word word word word …"]
    assert data["docs"]["d3"] == ["", "2019-05-05", "short text here"]


def test_build_keeps_the_claim_its_gold_evidence_queries_verdicts_and_codes(data):
    c0, c1 = data["claims"]
    assert (c0["id"], c0["date"], c0["label"], c0["justification"]) == (
        0,
        "2021-03-15",
        "Refuted",
        "NASA said no such thing.",
    )
    assert c1["gold"] == [
        ["What was growth?", ["Growth was 5 percent in 2019.", "5%"]],
        ["Is there more data?", ["No answer could be found."]],
    ]
    assert (
        c0["queries"] == {"claim_only": ["c0"], "oracle": ["What is the moon made of?"]}
        and c1["queries"]["oracle"] == []
    )
    # the first seed (0, though the report lists 1 first) at the report's k, and the references (k -1)
    assert c0["verdicts"] == [
        ["planner:oracle", "Refuted", ["0.12", "0.50", "0.25", "0.12"]],
        ["planner:claim_only", "Refuted", ["0.12", "0.50", "0.25", "0.12"]],
        ["gold", "Refuted", ["0.12", "0.50", "0.25", "0.12"]],
        ["naive", "Refuted", ["0.12", "0.50", "0.25", "0.12"]],
    ]
    assert c0["errors"] == {"oracle": ["noisy retrieval", "retrieval"]} and c1["errors"] == {
        "claim_only": ["correct", "correct"]
    }


def test_view_gives_the_tables_as_shown(data):
    t = E.view(data, 0, "oracle", "bm25", "global")
    assert list(t) == list(E.TABLES)
    assert t["claim"].values.tolist()[1:4] == [
        ["text", "The moon is made of cheese, said NASA in 2020."],
        ["date", "2021-03-15"],
        ["label", "Refuted"],
    ]
    assert t["gold"].values.tolist()[0] == ["1", "What is the moon made of?", "The moon is made of rock and dust."]
    assert t["queries"].values.tolist() == [
        ["CLAIM-ONLY", "1", "c0"],
        ["ORACLE-QUERIES", "1", "What is the moon made of?"],
    ]
    assert t["documents"].values.tolist() == [
        ["1", "2.500", "2", "gold_answer", "2020-01-01", "https://a.example/1", "The moon is made of rock and dust."],
        ["2", "1.250", "0", "pooled", "", "https://b.example/2", "word word word word word word word word word word …"],
    ]
    assert t["verdicts"].columns.tolist() == ["evidence setting", "verdict", *LABELS]
    assert t["verdicts"]["evidence setting"].tolist() == [
        "ORACLE-QUERIES",
        "CLAIM-ONLY",
        "GOLD evidence",
        "NAIVE (majority class)",
    ]
    assert t["error"].values.tolist() == [["ORACLE-QUERIES", "noisy retrieval", "retrieval"]]
    t1 = E.view(data, 1, "oracle", "bm25", "global")
    assert t1["documents"]["grade"].tolist() == ["unjudged", "unjudged"]
    assert t1["queries"].values.tolist() == [["CLAIM-ONLY", "1", "c1"]]  # ORACLE has no query for claim 1
    assert t1["error"].values.tolist() == [["ORACLE-QUERIES", "(not coded)", ""]]
    assert E.view(data, 0, "claim_only", "dense", "claim")["documents"].empty


def test_view_names_what_the_explorer_does_not_hold(data):
    with pytest.raises(KeyError, match=r"claim 7 is not in the explorer \(it holds claims 0–1, 2 claims\)"):
        E.view(data, 7, "oracle", "bm25", "global")
    with pytest.raises(KeyError, match="planner 'qgen' is not in the explorer"):
        E.view(data, 0, "qgen", "bm25", "global")
    with pytest.raises(KeyError, match="scope 'open'"):
        E.view(data, 0, "oracle", "bm25", "open")


def test_build_refuses_outputs_it_cannot_read(inputs):
    runs = inputs["runs"]
    no_shared = runs[~((runs["plan"] == "oracle") & (runs["fusion"] == "combmax_norm"))]
    with pytest.raises(E.ExplorerError, match=r"expected one fusion that every plan was run with, found \[\]"):
        E.build(**{**inputs, "runs": no_shared}, top_docs=2, snippet_chars=50)
    with pytest.raises(E.ExplorerError, match=r"the store does not hold, e.g. \['d2'\]"):
        E.build(
            **{**inputs, "documents": inputs["documents"][inputs["documents"]["doc_id"] != "d2"]},
            top_docs=2,
            snippet_chars=50,
        )
    report = {**inputs["verdict_report"], "labels": LABELS[:3]}
    with pytest.raises(E.ExplorerError, match="class columns"):
        E.build(**{**inputs, "verdict_report": report}, top_docs=2, snippet_chars=50)


def test_page_round_trips_its_payload_and_is_written_whole(data, tmp_path):
    page = E.write_page(data, tmp_path / "explorer.html")
    assert E.load(page) == data
    first = page.read_bytes()
    assert E.write_page(data, page).read_bytes() == first  # no timestamp: the same bytes again
    assert not list(tmp_path.glob("*.tmp"))
    assert not re.search(r'(src|href)="https?://', first.decode()), "the page must not fetch anything"
    (tmp_path / "other.html").write_text("<html></html>")
    with pytest.raises(E.ExplorerError, match="no explorer payload"):
        E.load(tmp_path / "other.html")
    stale = first.decode().replace(E.encode(data), E.encode({**data, "version": 0}))
    (tmp_path / "stale.html").write_text(stale)
    with pytest.raises(E.ExplorerError, match="payload version 0, this code reads version 1: rebuild the page"):
        E.load(tmp_path / "stale.html")


def test_links_name_a_view_and_read_it_back():
    url = LK.explorer_url(12, planner="oracle", scope="global")
    assert url == "explorer.html#claim=12&planner=oracle&scope=global"
    assert LK.parse_fragment(url.split("#")[1]) == {"claim": "12", "planner": "oracle", "scope": "global"}
    assert LK.parse_fragment("#claim=3") == {"claim": "3"}
    with pytest.raises(ValueError, match="unknown explorer field"):
        LK.parse_fragment("claim=3&retreiver=bm25")
    for bad in (-1, "3", True):
        with pytest.raises(ValueError, match="non-negative integer"):
            LK.explorer_url(bad)
    link = LK.explorer_link(4, planner="post_hoc_hero_qa").data
    assert (
        link
        == '<a href="explorer.html#claim=4&amp;planner=post_hoc_hero_qa" target="_blank">see claim 4 in the explorer</a>'
    )


class _Tables(HTMLParser):
    """{table id: rows of cell text} and the page's status line, from the browser's DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.attrs: dict[str, dict] = {}
        self._table = self._row = self._cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._table = a.get("id")
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = "" if "data-empty" not in a else None
        if "id" in a:
            self.attrs[a["id"]] = a
        if tag == "body":
            self.attrs["body"] = a

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._row is not None:
            if self._cell is not None:
                self._row.append(self._cell)
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if self._row:
                self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, d):
        if self._cell is not None:
            self._cell += d


def _browse(page: Path, fragment: str) -> tuple[_Tables, str]:
    dom = chromium("--virtual-time-budget=10000", "--dump-dom", page.as_uri() + fragment)
    parsed = _Tables()
    parsed.feed(dom)
    status = re.search(r'<p id="message"[^>]*>(.*?)</p>', dom, re.S).group(1)
    return parsed, html.unescape(status)


def _shown(tables: dict) -> dict:
    """The tables of `view` as the page lays them out: the header row, then the rows."""
    return {f"t-{name}": [t.columns.tolist(), *t.values.tolist()] for name, t in tables.items()}


def test_the_page_shows_a_chosen_claim_offline_as_the_outputs_say(data, tmp_path):
    page = E.write_page(data, tmp_path / "explorer.html")
    parsed, status = _browse(page, "#claim=1&planner=oracle&retriever=dense&scope=claim")
    assert status == "" and parsed.attrs["body"].get("data-ready") == "1"
    assert parsed.attrs["body"]["data-view"] == "claim=1&planner=oracle&retriever=dense&scope=claim"
    assert {k: v for k, v in parsed.tables.items()} == _shown(E.view(data, 1, "oracle", "dense", "claim"))


def test_the_page_opens_on_the_default_view_and_names_a_wrong_address(data, tmp_path):
    page = E.write_page(data, tmp_path / "explorer.html")
    parsed, status = _browse(page, "")
    assert status == ""
    assert parsed.tables == _shown(E.view(data, 0, "oracle", "bm25", "global"))  # the verifier's retriever and scope
    parsed, status = _browse(page, "#claim=9&planner=oracle&colour=red")
    assert status == 'claim "9" is not in this explorer: showing the default claim; unknown field "colour".'
    assert parsed.tables["t-claim"][1] == ["claim", "0"]
    # a field given twice: the first valid one was shown under a message naming the second as not shown
    parsed, status = _browse(page, "#claim=1&claim=zzz")
    assert status == 'claim given twice: "zzz" ignored, the first kept.' and parsed.tables["t-claim"][1] == [
        "claim",
        "1",
    ]
    parsed, status = _browse(page, "#claim=zzz&claim=1")
    assert status.startswith('claim "zzz" is not in this explorer: showing the default claim; claim given twice')
    assert parsed.tables["t-claim"][1] == ["claim", "0"]


def test_the_widget_redraws_the_tables_of_the_chosen_view(data):
    box = E.widget(data)
    assert {k: w.value for k, w in box.pick.items()} == {
        "claim": 0,
        "planner": "oracle",
        "retriever": "bm25",
        "scope": "global",
    }
    assert box.body.value == E.view_html(E.view(data, 0, "oracle", "bm25", "global"))
    box.pick["claim"].value = 1
    box.pick["retriever"].value = "dense"
    box.pick["scope"].value = "claim"
    assert box.body.value == E.view_html(E.view(data, 1, "oracle", "dense", "claim"))
    assert "0.912" in box.body.value and "gold_url" in box.body.value


PAGE = ROOT / "outputs" / "notebooks" / LK.EXPLORER_PAGE


def test_a_run_in_two_runs_files_is_taken_from_the_first():
    """The generative stage reruns ORACLE-QUERIES, CLAIM-ONLY and BLOOM-QG: the page listed their documents twice."""
    runs = _runs()
    again = runs[runs["plan"] == "oracle"].assign(score=lambda f: f["score"] + 100)
    new = again.assign(plan="qgen")
    joined = E.first_wins([runs, pd.concat([again, new])])
    pd.testing.assert_frame_equal(joined, pd.concat([runs, new], ignore_index=True))


def test_build_refuses_a_view_that_ranks_a_document_twice(inputs):
    runs = pd.concat([inputs["runs"], inputs["runs"]], ignore_index=True)
    with pytest.raises(E.ExplorerError, match=r"claim 0, claim_only/bm25/global ranks document d1 twice"):
        E.build(**{**inputs, "runs": runs}, top_docs=2, snippet_chars=50)


def test_the_committed_page_is_the_pipelines_and_holds_every_dev_claim():
    lock = yaml.safe_load((ROOT / "dvc.lock").read_text())["stages"]["explorer"]
    (out,) = [o for o in lock["outs"] if o["path"] == "outputs/notebooks/explorer.html"]
    assert hashlib.md5(PAGE.read_bytes()).hexdigest() == out["md5"], "run `dvc repro explorer` and commit the page"
    data = E.load(PAGE)
    dev = averitec.load_averitec("dev")
    assert [c["id"] for c in data["claims"]] == [c.claim_id for c in dev]
    assert {p for p, _ in data["meta"]["planners"]} >= {"claim_only", "oracle", "qgen"}
    lists = [rows for c in data["claims"] for rows in c["ranked"].values()]
    assert max(map(len, lists)) == data["meta"]["top_docs"]  # each document once (they were listed twice)
    assert all(len({row[0] for row in rows}) == len(rows) for rows in lists)


@pytest.mark.parametrize("name", ["02_query_planning", "07_nli_veracity", "08_error_analysis"])
def test_the_executed_notebooks_link_claims_the_committed_page_holds(name):
    import nbformat

    nb = nbformat.read(ROOT / "outputs" / "notebooks" / f"{name}.ipynb", as_version=4)
    shown = [o["data"]["text/html"] for c in nb.cells for o in c.get("outputs", []) if "text/html" in o.get("data", {})]
    links = [html.unescape(m) for h in shown for m in re.findall(r'href="explorer\.html#([^"]+)"', h)]
    assert links, f"{name} links no claim to the explorer"
    data = E.load(PAGE)
    for fragment in links:
        fields = LK.parse_fragment(fragment)
        view = {**E.default_view(data["meta"]), **{k: v for k, v in fields.items() if k != "claim"}}
        E.view(data, int(fields["claim"]), **view)  # a named error if the page does not hold the view


def test_the_explorer_notebook_runs_on_the_committed_page():
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(ROOT / "notebooks" / "explorer.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    kinds = [set(o.get("data", {})) for c in nb.cells for o in c.get("outputs", [])]
    assert any("application/vnd.jupyter.widget-view+json" in k for k in kinds)
    assert not [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]


def test_the_page_is_never_written_over_an_input_or_into_another_stages_output(tmp_path, monkeypatch):
    """`build --out outputs/plans/oracle.jsonl` replaced the plan it had just read, after a minute's work."""
    from lib.cli import NamedError

    (tmp_path / "plans").mkdir()
    (tmp_path / "plans" / "oracle.jsonl").write_text("{}\n")
    monkeypatch.setitem(E.INPUTS, "plans", [tmp_path / "plans"])
    for out, message in [
        (tmp_path / "plans" / "oracle.jsonl", "is also an input of this command"),
        (ROOT / "outputs" / "averitec" / "page.html", "the output of stage `averitec`"),
    ]:
        with pytest.raises(NamedError, match=message):
            E.main(["build", "--out", str(out)])
    assert (tmp_path / "plans" / "oracle.jsonl").read_text() == "{}\n"


@pytest.mark.parametrize("flags", [["--top-docs", "21"], ["--snippet-chars", "39"], ["--snippet-chars", "2001"]])
def test_the_page_sizes_are_bounded_before_any_input_is_read(flags, capsys):
    """`--top-docs 100` ran out of 3 GB building the page; a huge `--snippet-chars` copied the store into it."""
    with pytest.raises(SystemExit) as end:
        E.main(["build", *flags, "--out", "/nonexistent/page.html"])
    assert end.value.code == 2
    assert "--top-docs must be from 1 to 20 and --snippet-chars from 40 to 2000" in capsys.readouterr().err


def test_no_runs_have_no_main_fusion():
    """The thirty-second pass: empty runs were a bare TypeError from set.intersection()."""
    from lib.site import explorer as EX

    with pytest.raises(EX.ExplorerError, match=r"^runs: no runs; expected the runs of every plan"):
        EX.main_fusion(pd.DataFrame({"plan": [], "fusion": []}))
