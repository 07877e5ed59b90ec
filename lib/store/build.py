"""The study's evidence store: documents per dev claim, plus (optionally) the gold answers, with graded
relevance judgements. Two sources give the same tables (`store.source`):

- `pooled` (the default): what published systems retrieved for the AVeriTeC dev claims, pooled the way
  TREC builds pools. The organisers' knowledge store is not available offline; the systems' retrieved
  sentences are: every system output in `data/averitec/systems` lists sentences and their source URLs.
- `knowledge_store`: the organisers' per-claim store itself (`lib.data.knowledge_store`), each claim's
  pages cut into passages (`lib.store.passages`); a claim's documents are its passages, read claim by
  claim on the `compute` backend.

A document is a unique (normalised URL, text) pair.

Relevance (qrels) per dev claim:
  2  one of the claim's own gold answer texts (only when gold answers are documents);
  1  a pooled sentence whose normalised URL is one of the claim's gold source URLs;
  0  any other document pooled for the claim (judged non-relevant): from a knowledge store, every
     passage of the claim's pages that is not from a gold source URL.
Documents never pooled for a claim are unjudged (non-relevant to trec_eval).
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import numpy as np
import pandas as pd
from pydantic import ConfigDict, Field, model_validator

from lib import compute as C
from lib import outputs as OUT
from lib import params as PR
from lib.cli import ArgumentParser, NamedError, data_folder, made_by, nonempty_path, run_main
from lib.data import DataError, averitec
from lib.data import knowledge_store as KS
from lib.params import Domain, FileName, NonNegInt, PosInt, Section
from lib.paths import DATA_DIR, PARAMS_FILE, ROOT, STORE_DIR, repo_path
from lib.store import passages as PS
from lib.store import trec
from lib.store.passages import PassageSettings, clean_text
from lib.store.scopes import SCOPES
from lib.store.urls import (
    domain_of,
    in_domains,
    marks_fact_check,
    normalise_url,
    on_sites,
    path_date,
    site_key,
    wayback_capture_date,
)

# --------------------------------------------------------------------------- params

Source = Literal["pooled", "knowledge_store"]


GOLD = "gold"  # origin name of the dev claims' own gold answers
KNOWLEDGE_STORE = "knowledge_store"  # origin name of a knowledge store's passages
SOURCES: tuple[str, ...] = get_args(Source)
KNOWLEDGE_STORE_ROOT = "data/averitec"  # a knowledge store lies under the store stage's dep


class KnowledgeStoreSettings(PassageSettings):
    """`store.knowledge_store`: where the organisers' store lies and whose claims to read (when `store.source`
    is knowledge_store), besides how pages become passages (the inherited `PassageSettings` fields)."""

    params_complete = True

    path: Annotated[str, Field(pattern=rf"^{KNOWLEDGE_STORE_ROOT}/\S")] = f"{KNOWLEDGE_STORE_ROOT}/knowledge_store/dev"
    # a directory or zip of <claim_id>.json under the store stage's dep data/averitec/, so DVC sees it change
    # (`knowledge_store_path` also refuses a path that leaves it, such as data/averitec/../x)
    split: Literal["dev"] = "dev"  # whose claims the store serves: the stages plan and score the dev claims
    first: NonNegInt | None = None  # claim range, both ends inclusive (None: open)
    last: NonNegInt | None = None


class StoreSettings(Section):
    """Params section `store`: every choice that changes the store; written beside it so later numbers can
    state them."""

    params_complete = True

    model_config = ConfigDict(frozen=True)

    systems: Annotated[dict[str, FileName], Field(min_length=1)]  # published systems' evidence files
    source: Source = "pooled"
    include_gold: bool = True
    distractor_splits: list[Literal["train", "test"]] = ["train", "test"]
    min_words: PosInt = 3
    news_sites_with_fact_check_section: list[Domain] = []
    extra_fact_check_domains: list[Domain] = []
    knowledge_store: KnowledgeStoreSettings = KnowledgeStoreSettings()

    @model_validator(mode="after")
    def _system_names(self) -> StoreSettings:
        """A system's name is its documents' origin: `gold` merged its hits with the gold answers' and moved
        thousands of documents between the leakage breakdown's kinds, silently."""
        for name in self.systems:
            if (
                not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name)
                or name in (GOLD, KNOWLEDGE_STORE)
                or name.startswith(f"{GOLD}_")
            ):
                raise ValueError(
                    f"store.systems: {name!r}: a system's name is letters, digits, '_', '.', '-' and is not one the "
                    f"store gives its own documents ({GOLD!r}, '{GOLD}_<split>', {KNOWLEDGE_STORE!r})"
                )
        PR.one_name_per_file(self.systems, "store.systems")  # one system's documents twice, as two origins
        return self

    @model_validator(mode="after")
    def _claim_range(self) -> StoreSettings:
        ks = self.knowledge_store
        if ks.first is not None and ks.last is not None and ks.first > ks.last:
            raise ValueError(f"store.knowledge_store: first ({ks.first}) is after last ({ks.last})")
        return self


@dataclass(frozen=True)
class Candidate:
    """One sentence as one source offered it, before pooling."""

    origin: str
    text: str
    url: str
    claim_id: int | None = None  # the dev claim it was retrieved (or annotated) for
    gold_for: int | None = None  # the dev claim whose gold answer it is
    rank: int = 0  # its position in the source's list for that claim (0 first)


@dataclass
class BuildStats:
    """What went into the store and what was left out, per origin and reason."""

    candidates: Counter = field(default_factory=Counter)
    skipped: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))

    def as_dict(self) -> dict[str, Any]:
        return {"candidates": dict(self.candidates), "skipped": {k: dict(v) for k, v in self.skipped.items()}}


def doc_id_for(norm_url: str, text: str) -> str:
    """A stable id from the (normalised URL, text) pair, independent of build order."""
    return "D" + hashlib.sha1(f"{norm_url}\t{text}".encode()).hexdigest()[:12]


def fact_check_domains(train: Iterable[averitec.Claim], extra: Iterable[str] = ()) -> set[str]:
    """Fact-checking domains: the hosts of the train claims' `fact_checking_article` URLs (plus `extra`)."""
    out = {domain_of(c.fact_checking_article) for c in train if c.fact_checking_article}
    return {d for d in out if d} | {d.lower() for d in extra}


# --------------------------------------------------------------------------- candidates


def gold_candidates(claims: Iterable[averitec.Claim], origin: str, pooled: bool) -> Iterator[Candidate]:
    """Gold answer texts as candidates; `pooled` ties them to their (dev) claim."""
    for c in claims:
        answers = [a for q in c.questions for a in q.answers]
        cid = c.claim_id if pooled else None
        for rank, a in enumerate(answers):
            yield Candidate(origin, averitec.gold_answer_text(a), a.source_url, cid, cid, rank)


def system_candidates(name: str, outputs: Iterable[averitec.SystemOutput]) -> Iterator[Candidate]:
    """Every (sentence, URL) a system returned for a claim; a list of URLs gives one candidate each."""
    for out in outputs:
        for rank, ev in enumerate(out.evidence):
            for url in ev.urls or ("",):
                yield Candidate(name, ev.text, url, out.claim_id, None, rank)


def pool(candidates: Iterable[Candidate], min_words: int, stats: BuildStats) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Deduplicate candidates into documents keyed by (normalised URL, text).

    Returns (documents, hits): hits keep which source returned which document for which claim at
    which rank, so every system's own run survives the pooling.
    """
    docs: dict[str, dict[str, Any]] = {}
    hits: list[tuple[str, int, int, str]] = []
    for cand in candidates:
        stats.candidates[cand.origin] += 1
        text = clean_text(cand.text)
        if text == averitec.NO_ANSWER or not text:
            stats.skipped[cand.origin]["no_answer"] += 1
            continue
        if len(text.split()) < min_words:
            stats.skipped[cand.origin][f"fewer_than_{min_words}_words"] += 1
            continue
        norm = normalise_url(cand.url)
        did = doc_id_for(norm, text)
        doc = docs.get(did)
        if doc is None:
            doc = docs[did] = {
                "doc_id": did,
                "text": text,
                "url": cand.url,
                "norm_url": norm,
                "origin": [],
                "claim_ids": set(),
                "gold_claim_ids": set(),
                "raw_urls": set(),
            }
        if cand.origin not in doc["origin"]:
            doc["origin"].append(cand.origin)
        doc["raw_urls"].add(cand.url)
        if cand.claim_id is not None:
            doc["claim_ids"].add(cand.claim_id)
            hits.append((cand.origin, cand.claim_id, cand.rank, did))
        if cand.gold_for is not None:
            doc["gold_claim_ids"].add(cand.gold_for)
    rows = []
    for doc in docs.values():
        raws = sorted(doc.pop("raw_urls"))
        paths = [d for d in map(path_date, raws) if d]
        captures = [d for d in map(wayback_capture_date, raws) if d]
        doc["path_date"] = min(paths) if paths else None
        doc["capture_date"] = min(captures) if captures else None
        doc["date"] = doc["path_date"] or doc["capture_date"]
        doc["date_source"] = "url_path" if doc["path_date"] else "wayback" if doc["capture_date"] else None
        doc["claim_ids"] = sorted(doc["claim_ids"])
        doc["gold_claim_ids"] = sorted(doc["gold_claim_ids"])
        rows.append(doc)
    df = pd.DataFrame(
        rows,
        columns=[
            "doc_id",
            "text",
            "url",
            "norm_url",
            "origin",
            "claim_ids",
            "gold_claim_ids",
            "path_date",
            "capture_date",
            "date",
            "date_source",
        ],
    )
    hit_df = (
        pd.DataFrame(hits, columns=["origin", "claim_id", "rank", "doc_id"])
        .drop_duplicates(["origin", "claim_id", "doc_id"])
        .reset_index(drop=True)
    )
    return df.sort_values("doc_id", kind="stable").reset_index(drop=True), hit_df


def add_flags(
    docs: pd.DataFrame, fc_domains: set[str], news_sections: Iterable[str], misinfo: set[str]
) -> pd.DataFrame:
    """Domain, word count and the fact-checking / misinformation flags.

    `fact_checking_domain` (loose): the domain is one that published a train fact-check.
    `fact_checking_site` (strict): as loose, but for news sites that merely host a fact-check section
    (`news_sections`) only when the URL path marks a fact check.
    """
    news = {d.lower() for d in news_sections}
    docs = docs.copy()
    docs["domain"] = docs["url"].map(domain_of)
    docs["n_words"] = docs["text"].str.split().str.len()
    loose = docs["domain"].map(lambda d: bool(d) and in_domains(d, fc_domains))
    news_site = docs["domain"].map(lambda d: bool(d) and in_domains(d, news))
    marked = docs["url"].map(marks_fact_check)
    docs["fact_checking_domain"] = loose
    docs["fact_checking_site"] = loose & (~news_site | marked)
    sites = {site_key(e) for e in misinfo}  # domains and sections of one (`cato.org/blog`)
    docs["misinfo_site"] = docs["norm_url"].map(lambda u: bool(u) and on_sites(u, sites))
    return docs


# --------------------------------------------------------------------------- qrels


def gold_source_urls(claim: averitec.Claim) -> set[str]:
    """Normalised source URLs of a claim's gold answers (empty and "Metadata" sources dropped)."""
    return {u for q in claim.questions for a in q.answers if (u := normalise_url(a.source_url))}


def build_qrels(docs: pd.DataFrame, claims: Iterable[averitec.Claim]) -> pd.DataFrame:
    """Graded judgements (qid, doc_id, grade, reason) for every dev claim; see the module docstring."""
    by_url: dict[str, list[str]] = defaultdict(list)
    for did, url in zip(docs["doc_id"], docs["norm_url"]):
        if url:
            by_url[url].append(did)
    gold_of: dict[int, list[str]] = defaultdict(list)
    pooled: dict[int, list[str]] = defaultdict(list)
    for did, gold_ids, claim_ids in zip(docs["doc_id"], docs["gold_claim_ids"], docs["claim_ids"]):
        for c in gold_ids:
            gold_of[c].append(did)
        for c in claim_ids:
            pooled[c].append(did)
    rows = []
    for claim in claims:
        grades: dict[str, tuple[int, str]] = {}
        for did in pooled.get(claim.claim_id, []):
            grades[did] = (0, "pooled")
        for url in gold_source_urls(claim):
            for did in by_url.get(url, []):
                grades[did] = (1, "gold_url")
        for did in gold_of.get(claim.claim_id, []):
            grades[did] = (2, "gold_answer")
        rows.extend((str(claim.claim_id), did, g, why) for did, (g, why) in grades.items())
    qrels = pd.DataFrame(rows, columns=["qid", "doc_id", "grade", "reason"])
    return qrels.sort_values(
        ["qid", "doc_id"], key=lambda s: s.map(int) if s.name == "qid" else s, kind="stable"
    ).reset_index(drop=True)


def qrels_dict(qrels: pd.DataFrame) -> dict[str, dict[str, int]]:
    """{qid: {doc_id: grade}}, the form the metrics take."""
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for qid, did, grade in zip(qrels["qid"], qrels["doc_id"], qrels["grade"]):
        out[qid][did] = int(grade)
    return dict(out)


def write_trec_qrels(qrels: pd.DataFrame, path: Path | str) -> None:
    """TREC qrels format (`qid 0 doc_id grade`), written by `lib.store.trec.write_trec_qrels`."""
    trec.write_trec_qrels(qrels_dict(qrels), path)


# --------------------------------------------------------------------------- scopes


def scope_doc_ids(docs: pd.DataFrame, claim_id: int, scope: str) -> list[str]:
    """The documents a retriever may return for a claim: only those pooled for it (`claim`, like the
    per-claim knowledge store) or the whole collection (`global`, open domain)."""
    if scope == "global":
        return docs["doc_id"].tolist()
    if scope == "claim":
        rows = claim_pools(docs).get(claim_id, np.empty(0, dtype=np.int64))
        return docs["doc_id"].to_numpy()[rows].tolist()
    raise ValueError(f"unknown scope {scope!r} (expected one of {SCOPES})")


def claim_pools(docs: pd.DataFrame) -> dict[int, np.ndarray]:
    """{claim_id: row indices of its pooled documents}: the `claim` scope for every claim at once."""
    pools: dict[int, list[int]] = defaultdict(list)
    for row, ids in enumerate(docs["claim_ids"]):
        for c in ids:
            pools[int(c)].append(row)
    return {c: np.asarray(rows, dtype=np.int64) for c, rows in sorted(pools.items())}


# --------------------------------------------------------------------------- build and load


@dataclass
class Store:
    """The pooled collection: documents, per-source hits, qrels and the build report (settings, counts)."""

    docs: pd.DataFrame
    hits: pd.DataFrame
    qrels: pd.DataFrame
    report: dict


def knowledge_store_path(settings: KnowledgeStoreSettings, root: Path | str = ROOT) -> Path:
    """The store's path (relative to the repository), which must lie under `data/averitec/`: the store
    stage's dep, so that DVC sees a changed store as a change."""
    root = Path(root).resolve()
    path = (root / settings.path).resolve()
    if not path.is_relative_to(root / KNOWLEDGE_STORE_ROOT):
        raise NamedError(
            f"store.knowledge_store.path {settings.path!r}: expected a path under {KNOWLEDGE_STORE_ROOT}/ "
            "(the store stage's dependency), e.g. data/averitec/knowledge_store/dev or a zip there"
        )
    return path


def knowledge_store_candidates(
    settings: KnowledgeStoreSettings, claims: list[averitec.Claim], compute: Any = None, root: Path | str = ROOT
) -> tuple[list[averitec.Claim], list[Candidate], dict[str, Any]]:
    """The dev claims in the range, their passages as candidates (origin `knowledge_store`, ranked in page
    and position order) and what was read. Every claim in the range must have a file in the store; its
    file is read on the `compute` backend (`lib.compute.ComputeSettings`; default: this process)."""

    path = knowledge_store_path(settings, root)
    files = KS.claim_files(path)
    in_range = set(KS.select_claims([c.claim_id for c in claims], settings.first, settings.last))
    wanted = [c for c in claims if c.claim_id in in_range]
    if not wanted:
        raise DataError(
            path, "-", None, f"no {settings.split} claim in the range first={settings.first}, last={settings.last}"
        )
    missing = [c.claim_id for c in wanted if c.claim_id not in files]
    if missing:
        raise DataError(
            path,
            missing[0],
            None,
            f"{len(missing)} {settings.split} claim(s) of the range have no <claim_id>.json in the store",
        )
    jobs = [PS.ReadJob(str(path), c.claim_id, files[c.claim_id], settings) for c in wanted]  # settings: passages too
    results = C.map_claims(PS.read_claim, jobs, compute or C.ComputeSettings(), desc="knowledge store")
    candidates = [
        Candidate(KNOWLEDGE_STORE, text, url, claim.claim_id, None, rank)
        for claim, (rows, _) in zip(wanted, results)
        for rank, (text, url) in enumerate(rows)
    ]
    totals: Counter = Counter()
    for _, counts in results:
        totals.update(counts)
    read = {
        "path": settings.path,
        "claims_read": len(wanted),
        "claims_in_store": len(files),
        **dict(sorted(totals.items())),
    }
    return wanted, candidates, read


def build_store(settings: StoreSettings, data_dir: Path | str = DATA_DIR, compute: Any = None) -> Store:
    """Build the store from the files under `data_dir` (and, with source `knowledge_store`, the store at
    `settings.knowledge_store.path`, read on the `compute` backend)."""
    data_dir = Path(data_dir)
    dev = averitec.load_averitec("dev", data_dir / "averitec" / "dev.json")
    train = averitec.load_averitec("train", data_dir / "averitec" / "train.json")
    stats = BuildStats()
    judged, read, systems = dev, None, dict(settings.systems)
    if settings.source == KNOWLEDGE_STORE:
        judged, ks_candidates, read = knowledge_store_candidates(
            settings.knowledge_store, dev, compute, data_dir.resolve().parent
        )
        systems = {KNOWLEDGE_STORE: settings.knowledge_store.path}

    def candidates() -> Iterator[Candidate]:
        if settings.include_gold:
            yield from gold_candidates(judged, GOLD, pooled=True)
        if settings.source == KNOWLEDGE_STORE:
            yield from ks_candidates
        else:
            for name, file in settings.systems.items():
                outputs = averitec.load_system_output(data_dir / "averitec" / "systems" / file, claims=dev)
                if len({o.claim_id for o in outputs}) < len(dev):  # a cut file: its coverage figures fall with it
                    print(
                        f"warning: store.systems.{name} ({file}) has records for {len({o.claim_id for o in outputs})} "
                        f"of the {len(dev)} dev claims; its figures cover those only",
                        file=sys.stderr,
                    )
                yield from system_candidates(name, outputs)
        for split in settings.distractor_splits:
            claims = (
                train if split == "train" else averitec.load_averitec(split, data_dir / "averitec" / f"{split}.json")
            )
            yield from gold_candidates(claims, f"gold_{split}", pooled=False)

    docs, hits = pool(candidates(), settings.min_words, stats)
    if docs.empty:  # an empty store scores every run 0, silently
        raise NamedError(
            f"store: no document kept (store.min_words = {settings.min_words}); lower it, or check the sources"
        )
    fc = fact_check_domains(train, settings.extra_fact_check_domains)
    docs = add_flags(
        docs,
        fc,
        settings.news_sites_with_fact_check_section,
        averitec.load_misinfo_domains(data_dir / "averitec" / "misinfo_domains.txt"),
    )
    qrels = build_qrels(docs, judged)
    report = {
        "settings": settings.model_dump(),
        "source": settings.source,
        "systems": systems,  # the origins that retrieved documents per claim: {name: file or store}
        **({"knowledge_store": read} if read else {}),
        "fact_check_domains": sorted(fc),
        "n_documents": len(docs),
        "n_judgements": len(qrels),
        **stats.as_dict(),
    }
    return Store(docs, hits, qrels, report)


def save_store(store: Store, out_dir: Path | str = STORE_DIR) -> None:
    """documents.parquet, hits.parquet, qrels.parquet, qrels.txt (TREC) and build_report.json."""
    out_dir = Path(out_dir)
    out = store.docs.copy()
    for col in ("path_date", "capture_date", "date"):
        out[col] = out[col].map(lambda d: d.isoformat() if isinstance(d, date) else None)
    with OUT.together():  # a stopped build leaves the old store whole, never a truncated documents.parquet
        OUT.write_parquet(out, out_dir / "documents.parquet", index=False)
        OUT.write_parquet(store.hits, out_dir / "hits.parquet", index=False)
        OUT.write_parquet(store.qrels, out_dir / "qrels.parquet", index=False)
        write_trec_qrels(store.qrels, out_dir / "qrels.txt")
        OUT.write_json(out_dir / "build_report.json", store.report, sort_keys=True)


STORE_COLUMNS = {  # what every reader of a store takes from each of its tables (`save_store` writes more)
    "documents.parquet": (
        "doc_id",
        "text",
        "origin",
        "claim_ids",
        "gold_claim_ids",
        "path_date",
        "capture_date",
        "date",
    ),
    "hits.parquet": ("claim_id", "doc_id"),
    "qrels.parquet": ("qid", "doc_id", "grade"),
}
DATE_COLUMNS = ("path_date", "capture_date", "date")


def load_store(store_dir: Path | str = STORE_DIR) -> Store:
    """The store as written by `save_store`; dates come back as `datetime.date`. A table without a column its
    readers take, a date that is no ISO date, or a build report that is no JSON object is named (file, column,
    document), never a KeyError or a datetime error cells later."""
    store_dir = Path(store_dir)
    fix = "run `dvc repro store` first" if made_by(store_dir) else "expected a store written by lib.store.build"
    if not (store_dir / "documents.parquet").exists():
        raise FileNotFoundError(f"{store_dir}/documents.parquet is missing: {fix}")
    tables = {name: OUT.read_parquet(store_dir / name) for name in STORE_COLUMNS}
    for name, columns in STORE_COLUMNS.items():
        if missing := [c for c in columns if c not in tables[name].columns]:
            raise NamedError(f"{store_dir / name}: no column {', '.join(map(repr, missing))} ({fix})")
    docs = tables["documents.parquet"]
    for col in ("origin", "claim_ids", "gold_claim_ids"):
        docs[col] = docs[col].map(list)
    for col in DATE_COLUMNS:
        docs[col] = [_stored_date(v, store_dir, col, d) for v, d in zip(docs[col], docs["doc_id"])]
    report = OUT.read_json(store_dir / "build_report.json")
    if not isinstance(report, dict):
        raise NamedError(
            f"{store_dir / 'build_report.json'}: expected a JSON object, got {type(report).__name__} ({fix})"
        )
    return Store(docs, tables["hits.parquet"], tables["qrels.parquet"], report)


def _stored_date(value: Any, store_dir: Path, column: str, doc_id: Any) -> date | None:
    """A date as `save_store` writes it (ISO text, or null), back as a `date`; anything else named."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        raise NamedError(
            f"{store_dir / 'documents.parquet'}: document {doc_id!r}, column {column!r}: {str(value)[:40]!r} is no "
            "ISO date (YYYY-MM-DD); expected a store written by lib.store.build"
        ) from None


def main(argv: list[str] | None = None) -> None:
    """`python -m lib.store.build`: build the store from params.yaml's `store` section."""

    ap = ArgumentParser(description=main.__doc__)
    ap.add_argument("--params", type=nonempty_path, default=None, help="parameter file (default: params.yaml)")
    ap.add_argument("--data-dir", type=data_folder, default=str(DATA_DIR))
    ap.add_argument("--out-dir", type=nonempty_path, default=None, help=f"default: {repo_path(STORE_DIR)}")
    args = ap.parse_args(argv)
    # another data folder or parameter file only into a named folder: never data/, an input or another output
    given = (("--data-dir", args.data_dir, DATA_DIR), PR.params_given(args.params))
    args.out_dir = OUT.own_output(args.out_dir, STORE_DIR, given, "the study's outputs/store", own="store")

    params = args.params or PARAMS_FILE
    settings = PR.settings("store", params, StoreSettings)
    store = build_store(settings, args.data_dir, PR.settings("compute", params, C.ComputeSettings))
    save_store(store, args.out_dir)
    skipped = {o: sum(v.values()) for o, v in store.report["skipped"].items()}
    read = store.report.get("knowledge_store")
    if read:
        print(
            f"knowledge store {read['path']}: {read['claims_read']} claims, {read.get('pages', 0):,} pages "
            f"({read.get('empty_url2text', 0):,} empty), {read.get('passages', 0):,} {settings.knowledge_store.unit} passages"
        )
    print(
        f"store ({settings.source}): {len(store.docs):,} documents from {sum(store.report['candidates'].values()):,} candidates "
        f"(skipped: {skipped}); {len(store.qrels):,} judgements; {len(store.hits):,} hits -> {args.out_dir}"
    )


if __name__ == "__main__":
    run_main(main)
