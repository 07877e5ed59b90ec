"""The evidence explorer: one AVeriTeC dev claim at a time, with everything the study made for it.

For a claim it shows the claim, its date, label and justification; the gold questions and answers; every
planner's queries; the top documents a retriever ranked for them in a scope (rank, score, relevance grade
and the judgement's reason, date, URL, text); the verdict and class probabilities of every evidence setting
the verifier read; and the error code notebook 08 gave each planner's verdict.

`python -m lib.site.explorer build` (stage `explorer`) gathers this from the pipeline's outputs into one
payload (`build`) and writes a self-contained page (`write_page`): no server, no kernel, no network; the
payload is embedded gzip-compressed and the page's script reads it in the browser. Two views of the same
payload: the page, and the JupyterLab widget of `notebooks/explorer.ipynb` (`widget`, ipywidgets). Both
show the tables of `view`; the browser test checks that the page shows what `view` gives.

The runs shown are the main fusion without the temporal filter (the setting every plan is run in); the
verdicts are the first seed's at the k the verifier read (`outputs/nli/planners/report.json`).
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lib import outputs as OUT
from lib.cli import ArgumentParser, NamedError, file_path, run_main
from lib.data import averitec
from lib.params import PosInt, flag_of
from lib.paths import DATA_DIR, OUTPUTS_DIR
from lib.planning.planners import load_plan
from lib.retrieval.vocabulary import CONFIG_COLUMNS
from lib.site import display as D
from lib.site.links import EXPLORER_PAGE, FIELDS

PAYLOAD_ID = "explorer-data"
MODULE_FILES = ("explorer.html",)  # the page's template, beside this module (a dep of its stage: lib.closure)
VERSION = 1
# The pipeline's outputs the payload is gathered from (stage `explorer` lists the same paths as deps).
INPUTS = {
    "plans": [OUTPUTS_DIR / "plans", OUTPUTS_DIR / "generative" / "plans"],
    "runs": [OUTPUTS_DIR / "runs" / "runs.parquet", OUTPUTS_DIR / "generative" / "runs.parquet"],
    "store": OUTPUTS_DIR / "store",
    "verdicts": OUTPUTS_DIR / "nli" / "planners",
    "references": OUTPUTS_DIR / "nli" / "averitec" / "predictions.parquet",
    "codes": OUTPUTS_DIR / "errors" / "codes.parquet",
}
# What the page keeps: presentation settings, so they live here rather than in params.yaml (editing them
# reruns only this stage); `python -m lib.site.explorer build --top-docs 10` writes a page with more.
TOP_DOCS = 5  # documents shown per planner, retriever and scope
SNIPPET_CHARS = 300  # characters of a document's text kept in the page
# The page is one file a browser loads whole (4.7 MB at 5 and 300): `--top-docs 100` ran out of 3 GB
# building it, and a snippet of a million characters would copy the store into the page.
MAX_TOP_DOCS, MAX_SNIPPET_CHARS = 20, 2000
PAGE = OUTPUTS_DIR / "notebooks" / EXPLORER_PAGE  # committed beside the executed notebooks that link to it
TABLES = ("claim", "gold", "queries", "documents", "verdicts", "error")


class ExplorerError(NamedError, ValueError):
    """An output the explorer cannot read as the pipeline writes it (file and what was expected)."""


def _fmt(x: float, digits: int) -> str:
    return f"{x:.{digits}f}"


def _view_key(plan: str, retriever: str, scope: str) -> str:
    return f"{plan}|{retriever}|{scope}"


def main_fusion(runs: pd.DataFrame, path: Path | str = "runs") -> str:
    """The fusion every plan was run with (`retrieval.main_fusion`): the only one all plans share."""
    if runs.empty:  # set.intersection() of no plan was a bare TypeError
        raise ExplorerError(f"{path}: no runs; expected the runs of every plan (run `dvc repro runs`)")
    shared = set.intersection(*(set(g.unique()) for _, g in runs.groupby("plan", observed=True)["fusion"]))
    if len(shared) != 1:
        raise ExplorerError(f"{path}: expected one fusion that every plan was run with, found {sorted(shared)}")
    return shared.pop()


def build(
    claims: Sequence[averitec.Claim],
    plans: Mapping[str, Mapping[int, Sequence[str]]],
    runs: pd.DataFrame,
    documents: pd.DataFrame,
    qrels: pd.DataFrame,
    verdicts: pd.DataFrame,
    verdict_report: Mapping[str, Any],
    codes: pd.DataFrame,
    top_docs: int,
    snippet_chars: int,
) -> dict[str, Any]:
    """The explorer's payload: per claim its data and, per (planner, retriever, scope), its top documents.

    `runs`: rows (plan, retriever, scope, temporal, fusion, claim_id, doc_id, rank, score); `verdicts`: the
    verifier's predictions (setting, k, seed, claim_id, pred, p:<label>...), planners' and references';
    `verdict_report`: `outputs/nli/planners/report.json` (its k, seeds and labels); `codes`: notebook 08's
    error codes (method, claim_id, code, family). Scores and probabilities are kept as the page shows them."""
    fusion = main_fusion(runs)
    shown = runs[~runs["temporal"].astype(bool) & (runs["fusion"] == fusion) & (runs["rank"] <= top_docs)]
    shown = shown.sort_values(["claim_id", "plan", "retriever", "scope", "rank"], kind="stable")
    planners = [p for p in plans if p in set(shown["plan"].astype(str))]
    retrievers = sorted(shown["retriever"].astype(str).unique())
    scopes = sorted(shown["scope"].astype(str).unique())
    grades = {
        (str(q), str(d)): (int(g), str(r))
        for q, d, g, r in qrels[["qid", "doc_id", "grade", "reason"]].itertuples(index=False)
    }
    twice = shown.duplicated(["claim_id", "plan", "retriever", "scope", "doc_id"])
    if twice.any():
        row = shown[twice].iloc[0]
        raise ExplorerError(
            f"runs: claim {row['claim_id']}, {row['plan']}/{row['retriever']}/{row['scope']} ranks document "
            f"{row['doc_id']} twice (two runs of one setting joined? `first_wins` keeps one)"
        )
    ranked: dict[int, dict[str, list]] = {}
    for (cid, plan, retriever, scope), g in shown.groupby(
        ["claim_id", "plan", "retriever", "scope"], observed=True, sort=False
    ):
        ranked.setdefault(int(cid), {})[_view_key(str(plan), str(retriever), str(scope))] = [
            [str(d), int(r), _fmt(float(s), 3), *grades.get((str(int(cid)), str(d)), (None, None))]
            for d, r, s in g[["doc_id", "rank", "score"]].itertuples(index=False)
        ]
    used = sorted({row[0] for views in ranked.values() for rows in views.values() for row in rows})
    docs = documents.set_index("doc_id").reindex(used)
    missing = docs.index[docs["text"].isna()].tolist()
    if missing:
        raise ExplorerError(f"store documents: the runs rank documents the store does not hold, e.g. {missing[:3]}")
    doc_table = {
        d: [str(u or ""), str(dt) if isinstance(dt, str) and dt else "", _snippet(str(t), snippet_chars)]
        for d, u, dt, t in zip(docs.index, docs["url"], docs["date"], docs["text"])
    }
    k, seed = int(verdict_report["k"]), int(min(verdict_report["seeds"]))
    labels = list(verdict_report["labels"])
    at_k = verdicts[(verdicts["seed"] == seed) & ((verdicts["k"] == k) | (verdicts["k"] < 0))]
    settings_order = list(dict.fromkeys(at_k["setting"]))
    prob_columns = [c for c in at_k.columns if c.startswith("p:")]
    if [c[2:] for c in prob_columns] != labels:
        raise ExplorerError(f"verifier predictions: class columns {prob_columns}, but the report's labels are {labels}")
    by_claim_verdicts: dict[int, list] = {}
    for cid, setting, pred, *probs in at_k[["claim_id", "setting", "pred", *prob_columns]].itertuples(index=False):
        by_claim_verdicts.setdefault(int(cid), []).append([str(setting), str(pred), [_fmt(float(p), 2) for p in probs]])
    errors: dict[int, dict[str, list[str]]] = {}
    for method, cid, code, family in codes[["method", "claim_id", "code", "family"]].itertuples(index=False):
        errors.setdefault(int(cid), {})[str(method)] = [str(code), str(family)]
    order = {s: i for i, s in enumerate(settings_order)}
    out_claims = []
    for c in claims:
        out_claims.append(
            {
                "id": c.claim_id,
                "claim": c.text,
                "date": c.claim_date.isoformat() if c.claim_date else "",
                "label": c.label,
                "justification": c.justification,
                "gold": [[q.text, [averitec.gold_answer_text(a) for a in q.answers]] for q in c.questions],
                "queries": {p: list(plans[p].get(c.claim_id, [])) for p in planners},
                "ranked": ranked.get(c.claim_id, {}),
                "verdicts": sorted(by_claim_verdicts.get(c.claim_id, []), key=lambda v: order[v[0]]),
                "errors": errors.get(c.claim_id, {}),
            }
        )
    return {
        "version": VERSION,
        "meta": {
            "planners": [[p, D.planner(p)] for p in planners],
            "retrievers": retrievers,
            "scopes": scopes,
            "settings": [[s, D.setting(s)] for s in settings_order],
            "labels": labels,
            "fusion": fusion,
            "top_docs": top_docs,
            "verdict_k": k,
            "verdict_seed": seed,
            "verdict_retrieval": dict(verdict_report.get("retrieval", {})),
        },
        "docs": doc_table,
        "claims": out_claims,
    }


def _snippet(text: str, chars: int) -> str:
    """The first `chars` characters of a document's text, cut at a word, with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= chars:
        return text
    cut = text[:chars].rsplit(" ", 1)[0]
    return cut + " …"


def claim_record(data: Mapping[str, Any], claim_id: int) -> dict[str, Any]:
    """One claim's record of the payload; a named error for a claim the payload does not hold."""
    for c in data["claims"]:
        if c["id"] == claim_id:
            return c
    ids = [c["id"] for c in data["claims"]]
    raise KeyError(f"claim {claim_id} is not in the explorer (it holds claims {ids[0]}–{ids[-1]}, {len(ids)} claims)")


def view(data: Mapping[str, Any], claim_id: int, planner: str, retriever: str, scope: str) -> dict[str, pd.DataFrame]:
    """The tables of one view, as both the page and the widget show them (every cell a string)."""
    meta, c = data["meta"], claim_record(data, claim_id)
    for name, value, allowed in (
        ("planner", planner, [p for p, _ in meta["planners"]]),
        ("retriever", retriever, meta["retrievers"]),
        ("scope", scope, meta["scopes"]),
    ):
        if value not in allowed:
            raise KeyError(f"{name} {value!r} is not in the explorer ({', '.join(allowed)})")
    setting_names = dict(meta["settings"])
    claim = pd.DataFrame(
        [
            ["claim", str(c["id"])],
            ["text", c["claim"]],
            ["date", c["date"]],
            ["label", c["label"]],
            ["justification", c["justification"]],
        ],
        columns=["field", "value"],
    )
    gold = pd.DataFrame(
        [[str(i + 1), q, " | ".join(a) if a else "(no answer)"] for i, (q, a) in enumerate(c["gold"])],
        columns=["#", "question", "answers"],
    )
    queries = pd.DataFrame(
        [[name, str(i + 1), q] for p, name in meta["planners"] for i, q in enumerate(c["queries"].get(p, []))],
        columns=["planner", "#", "query"],
    )
    rows = []
    for doc_id, rank, score, grade, reason in c["ranked"].get(_view_key(planner, retriever, scope), []):
        url, date, text = data["docs"][doc_id]
        rows.append([str(rank), score, "unjudged" if grade is None else str(grade), reason or "", date, url, text])
    documents = pd.DataFrame(rows, columns=["rank", "score", "grade", "reason", "date", "url", "text"])
    verdicts = pd.DataFrame(
        [[setting_names.get(s, s), pred, *probs] for s, pred, probs in c["verdicts"]],
        columns=["evidence setting", "verdict", *meta["labels"]],
    )
    code = c["errors"].get(planner)
    error = pd.DataFrame([[D.planner(planner), *(code or ["(not coded)", ""])]], columns=["planner", "code", "family"])
    return dict(zip(TABLES, (claim, gold, queries, documents, verdicts, error)))


def encode(data: Mapping[str, Any]) -> str:
    """The payload as the page embeds it: JSON, gzip (no timestamp, so the bytes are reproducible), base64."""
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def decode(text: str) -> dict[str, Any]:
    return json.loads(gzip.decompress(base64.b64decode(text)))


def write_page(data: Mapping[str, Any], path: Path | str) -> Path:
    """The self-contained page, written whole or not at all (a temporary file renamed over the old one)."""
    path = Path(path)
    template = (Path(__file__).parent / MODULE_FILES[0]).read_text(encoding="utf-8")
    page = template.replace("@@FIELDS@@", json.dumps(list(FIELDS))).replace("@@PAYLOAD@@", encode(data))
    return OUT.write_text(path, page)


def load(path: Path | str | None = None) -> dict[str, Any]:
    """The payload of a written page (by default the committed one beside the executed notebooks)."""
    path = Path(path) if path else PAGE
    match = re.search(
        rf'<script id="{PAYLOAD_ID}" type="application/gzip;base64">([A-Za-z0-9+/=]+)</script>',
        path.read_text(encoding="utf-8"),
    )
    if not match:
        raise ExplorerError(
            f"{path}: no explorer payload in it (expected a page written by `python -m lib.site.explorer build`)"
        )
    data = decode(match.group(1))
    if data.get("version") != VERSION:
        raise ExplorerError(
            f"{path}: payload version {data.get('version')!r}, this code reads version {VERSION}: rebuild the page"
        )
    return data


def view_html(tables: Mapping[str, pd.DataFrame]) -> str:
    """The tables of `view` as one HTML fragment, each under its title (the widget's body)."""
    return "".join(
        f"<h4>{TITLES[name]}</h4>" + table.to_html(index=False, escape=True, border=0) for name, table in tables.items()
    )


def widget(data: Mapping[str, Any] | None = None):
    """The explorer in JupyterLab: drop-downs for the claim, planner, retriever and scope, the tables below
    (`data`: a payload; by default the committed page's, `load()`)."""
    import ipywidgets as W  # only the widget needs it

    data = load() if data is None else data
    meta = data["meta"]
    pick = {
        "claim": W.Dropdown(
            options=[(f"{c['id']}: {c['claim'][:90]}", c["id"]) for c in data["claims"]],
            description="claim",
            layout=W.Layout(width="95%"),
        ),
        "planner": W.Dropdown(options=[(n, p) for p, n in meta["planners"]], description="planner"),
        "retriever": W.Dropdown(options=meta["retrievers"], description="retriever"),
        "scope": W.Dropdown(options=meta["scopes"], description="scope"),
    }
    for name, value in default_view(meta).items():
        pick[name].value = value
    body = W.HTML()

    def show(_=None) -> None:
        chosen = {name: w.value for name, w in pick.items()}
        body.value = view_html(view(data, chosen.pop("claim"), **chosen))

    for w in pick.values():
        w.observe(show, names="value")
    show()
    box = W.VBox([pick["claim"], W.HBox([pick["planner"], pick["retriever"], pick["scope"]]), body])
    box.pick, box.body = pick, body  # for tests and readers: the drop-downs and the shown HTML
    return box


TITLES = {
    "claim": "The claim",
    "gold": "Gold questions and answers",
    "queries": "Every planner's queries",
    "documents": "Top documents (retriever, scope)",
    "verdicts": "Verdicts of every evidence setting",
    "error": "Notebook 08's error code for the planner's verdict",
}


def default_view(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The view a page opens on: the first claim, ORACLE-QUERIES (else the first planner), and the verifier's
    retriever and scope (else the first)."""
    planners = [p for p, _ in meta["planners"]]
    ret = meta.get("verdict_retrieval", {})
    return {
        "planner": "oracle" if "oracle" in planners else planners[0],
        "retriever": ret.get("retriever") if ret.get("retriever") in meta["retrievers"] else meta["retrievers"][0],
        "scope": ret.get("scope") if ret.get("scope") in meta["scopes"] else meta["scopes"][0],
    }


def first_wins(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Runs files joined, each run (its CONFIG_COLUMNS) taken from the first file that holds it, as the verifier takes
    them (`lib.verifier.veracity.planner_runs`): the generative stage reruns ORACLE-QUERIES, CLAIM-ONLY and
    BLOOM-QG, and the page listed each of their documents twice. Settings are compared once per distinct
    setting, not per row (a text per row of 6.6 million took 15 GB)."""
    kept, seen = [], set()
    for frame in frames:
        keys = frame[CONFIG_COLUMNS]
        group = keys.groupby(CONFIG_COLUMNS, observed=True, sort=False, dropna=False).ngroup().to_numpy()
        settings = list(keys.drop_duplicates().itertuples(index=False, name=None))  # in ngroup's order
        new = np.array([setting not in seen for setting in settings], dtype=bool)
        kept.append(frame[new[group]] if len(frame) else frame)
        seen |= set(settings)
    return pd.concat(kept, ignore_index=True)


def read_inputs(
    inputs: Mapping[str, Any] = INPUTS, data_dir: Path = DATA_DIR, top_docs: int | None = None
) -> dict[str, Any]:
    """The pipeline outputs `build` reads, each checked for the file it is; with `top_docs`, only the runs'
    rows the page can show (ranks up to it: the whole 5.8-million-row runs table took gigabytes)."""
    shown = [("rank", "<=", top_docs)] if top_docs is not None else None
    plans: dict[str, Any] = {}
    for folder in inputs["plans"]:
        for file in sorted(Path(folder).glob("*.jsonl")):
            plans.setdefault(file.stem, load_plan(file))
    if not plans:
        raise FileNotFoundError(f"no plans in {', '.join(map(str, inputs['plans']))}: run `dvc repro plans` first")
    store = Path(inputs["store"])
    return {
        "claims": averitec.load_averitec("dev", data_dir / "averitec" / "dev.json"),
        "plans": plans,
        "runs": first_wins([OUT.read_parquet(p, filters=shown) for p in inputs["runs"]]).astype(
            {"plan": str, "retriever": str, "scope": str, "fusion": str, "doc_id": str}
        ),
        "documents": OUT.read_parquet(store / "documents.parquet", columns=["doc_id", "url", "date", "text"]),
        "qrels": OUT.read_parquet(store / "qrels.parquet"),
        "verdicts": pd.concat(
            [
                OUT.read_parquet(Path(inputs["verdicts"]) / "predictions.parquet"),
                OUT.read_parquet(inputs["references"]),
            ],
            ignore_index=True,
        ),
        "verdict_report": OUT.read_json(Path(inputs["verdicts"]) / "report.json"),
        "codes": OUT.read_parquet(inputs["codes"]),
    }


def main(argv: list[str] | None = None) -> None:
    """`python -m lib.site.explorer build`: the explorer page of the whole dev set."""
    ap = ArgumentParser(prog="python -m lib.site.explorer", description=main.__doc__)
    ap.add_argument("command", choices=["build"])
    ap.add_argument(
        "--top-docs", type=flag_of(PosInt), default=TOP_DOCS, help=f"documents per ranked list (default {TOP_DOCS})"
    )
    ap.add_argument(
        "--snippet-chars", type=int, default=SNIPPET_CHARS, help=f"text kept per document (default {SNIPPET_CHARS})"
    )
    ap.add_argument(
        "--out",
        type=lambda t: Path(file_path(t)),
        default=PAGE,
        help="the page to write (default: the committed one)",
    )
    args = ap.parse_args(argv)
    if not 1 <= args.top_docs <= MAX_TOP_DOCS or not 40 <= args.snippet_chars <= MAX_SNIPPET_CHARS:
        ap.error(
            f"--top-docs must be from 1 to {MAX_TOP_DOCS} and --snippet-chars from 40 to {MAX_SNIPPET_CHARS} "
            f"(got {args.top_docs}, {args.snippet_chars}): the page is one file a browser loads whole"
        )
    inputs = [*INPUTS["plans"], *INPUTS["runs"], *(INPUTS[k] for k in ("store", "verdicts", "references", "codes"))]
    OUT.refuse_targets([args.out], inputs)  # `--out outputs/plans/oracle.jsonl` replaced the plan it read
    OUT.refuse_stage_outputs([args.out], own="explorer")  # its own page is this stage's output
    data = build(**read_inputs(top_docs=args.top_docs), top_docs=args.top_docs, snippet_chars=args.snippet_chars)
    path = write_page(data, args.out)
    n_views = sum(len(c["ranked"]) for c in data["claims"])
    print(
        f"{path}: {len(data['claims'])} claims, {n_views} ranked lists, {len(data['docs'])} documents, {path.stat().st_size / 1e6:.1f} MB"
    )


if __name__ == "__main__":
    run_main(main)
