"""The official knowledge store, per claim: passages, a BM25 index per claim, retrieval, a synthetic store.

The organisers' store holds up to about 1,000 scraped pages per claim (`lib.data.knowledge_store` reads
it as a stream). Everything here works on one claim at a time, so memory is bounded by the largest claim,
whatever the store's size, and claims are independent: `lib.compute.map_claims` spreads them over a
process pool or a Ray cluster.

- **Passages** (`lib.store.passages`): sentences, or chunks of whole sentences with their neighbours' text as
  context; each keeps its URL, line and position.
- **Per-claim BM25** (`retrieve_claim`): `lib.retrieval.bm25.BM25` (rank_bm25's BM25Okapi, vectorised) over a
  claim's passages, every query of the claim scored in one sparse product. Saved per claim under a content
  address (`index_key`: the passages' texts, the BM25 parameters), so a rerun, or another planner's
  queries, load it instead of tokenising the claim's passages again: indexing is paid once per claim.
- **Synthetic store** (`synthesise`): the official layout with sentences drawn from real documents, for
  tests and the benchmark.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import resource
import sys
import time
import zipfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from lib import compute as C
from lib import models as MD
from lib import outputs as OUT
from lib.cli import ArgumentParser, NamedError, data_folder, file_path, nonempty_path, not_a_file, run_main
from lib.data import DataError, averitec
from lib.data import knowledge_store as KS
from lib.params import Device, NonNegInt, PosInt, Seed, flag, flag_of, section
from lib.paths import DATA_DIR, PARAMS_FILE, STORE_DIR
from lib.planning import planners as P
from lib.retrieval import bm25 as BM
from lib.retrieval import fusion as F
from lib.retrieval.runs import RunGrid
from lib.store import passages as PS
from lib.store.build import load_store
from lib.store.passages import clean_text

# saved per-claim indexes hold the BM25 weights (format 1 held term counts) and, from format 3, their own
# content address, so a file copied to another claim's address is never taken for that claim's index
INDEX_FORMAT = 3


# --------------------------------------------------------------------------- per-claim BM25


def index_key(texts: Sequence[str], params: BM.BM25Params) -> str:
    """The content address of a claim's index: its passages' texts, the BM25 parameters and the index format."""
    h = hashlib.sha256(json.dumps({**params.model_dump(), "format": INDEX_FORMAT}, sort_keys=True).encode())
    return _hash_texts(h, texts).hexdigest()[:20]


def _hash_texts(h: Any, texts: Sequence[str]) -> Any:
    """`h` fed each text behind its length: with a separator byte, a text holding that byte (JSON's
    `\u0000`) gave two claims' passages one address, and one claim another's index."""
    for t in texts:
        b = t.encode("utf-8", "surrogatepass")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h


def save_index(bm25: BM.BM25, path: Path | str, key: str = "") -> None:
    """The index's scoring state (vocabulary, terms x passages weights, parameters) and its content address
    `key`, written atomically: a killed run leaves no half index behind."""
    w = bm25._weights_t
    with OUT.atomic(path) as tmp:
        np.savez(
            tmp,
            key=np.array(key),
            data=w.data,
            indices=w.indices,
            indptr=w.indptr,
            shape=np.asarray(w.shape),
            vocab=np.array(json.dumps(list(bm25.vocab), ensure_ascii=False)),
            params=np.array(json.dumps(bm25.params.model_dump())),
        )


@dataclass
class SavedBM25:
    """A saved per-claim index, scored exactly as the `lib.retrieval.bm25.BM25` it was: the weights are stored,
    not recomputed, and the scoring is BM25's own methods (borrowed, not copied)."""

    vocab: dict[str, int]
    _weights_t: sp.csr_matrix
    params: BM.BM25Params
    tokenizer: Any = BM.tokenize

    query_matrix = BM.BM25.query_matrix
    scores = BM.BM25.scores


def load_index(path: Path | str) -> SavedBM25:
    with np.load(path) as z:
        w = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
        vocab = {t: i for i, t in enumerate(json.loads(str(z["vocab"])))}
        params = BM.BM25Params(**json.loads(str(z["params"])))
    return SavedBM25(vocab, w, params)


def _regular_cache(path: Path, what: str) -> None:
    """A cache address that holds no regular file (a pipe, a folder, a device) is named, never opened."""
    if not path.is_file():
        raise NamedError(f"{path}: {not_a_file(what)}; remove it and run again")


def _saved_index(path: Path, key: str) -> SavedBM25 | None:
    """The index saved at `path` when it is whole and is the one for `key`; None (it is rebuilt and saved
    again, with a warning) for a file cut short, one that is no index, or another claim's index. A pipe or a
    folder there is refused unopened (reading a pipe waits for a writer)."""
    _regular_cache(path, "a saved index")
    try:
        with np.load(path) as z:
            saved = str(z["key"]) if "key" in z.files else None
        if saved == key:
            return load_index(path)
        problem = f"it is the index of {saved}" if saved else "it names no content address"
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        problem = f"it cannot be read: {type(err).__name__}: {err}"
    print(f"warning: {path}: not this claim's saved index ({problem}); rebuilt", file=sys.stderr)
    return None


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """The `k` best passages of one query: by score rounded to 1e-9 (so float noise does not reorder; a score
    too large to round is kept as it is), ties
    by position; the same order for this BM25 and rank_bm25's scores (`lib.retrieval.fusion.top_k`, lower row first)."""
    scores = np.asarray(scores, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # |score| past ~1e299: x * 1e9 overflowed to inf, dropped
        rounded = np.where(np.abs(scores) < 1e290, np.round(scores, 9), scores)
    return F.top_k(rounded, k, -np.arange(len(scores)))


def retrieve_claim(
    texts: Sequence[str],
    queries: Sequence[str],
    depth: int = 100,
    params: BM.BM25Params = BM.BM25Params(),
    index_dir: Path | str | None = None,
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Top-`depth` passages (rows of `texts`) and their scores for each query, and whether a saved index
    was used. With `index_dir`, the claim's index is loaded from its content address or built and saved."""
    key = index_key(texts, params)
    path = None if index_dir is None else Path(index_dir) / f"{key}.npz"
    index = None if path is None or not path.exists() else _saved_index(path, key)
    loaded = index is not None
    if index is None:
        index = BM.BM25.from_texts(texts, params)
        if path is not None:
            save_index(index, path, key)
    scores = index.scores(list(queries))
    top = np.stack([top_k(s, depth) for s in scores]) if len(queries) else np.empty((0, 0), dtype=np.int64)
    return top, np.take_along_axis(scores, top, axis=1) if len(queries) else scores, loaded


# --------------------------------------------------------------------------- per-claim dense


@dataclass(frozen=True)
class EmbeddingSettings:
    """The passage encoder: a model name or path, its batch size and device (auto: CUDA when present);
    `fp16`: encode in half precision on a GPU and keep the vectors as float16 (half the disk); and how
    many passages each saved chunk holds (what a killed run loses at most)."""

    model: str = "sentence-transformers/all-MiniLM-L6-v2"
    batch_size: int = 64
    device: str = "auto"
    fp16: bool = True
    chunk_size: int = 4096
    max_seq_length: int | None = None

    def __post_init__(self) -> None:
        if self.batch_size < 1 or self.chunk_size < 1:
            raise ValueError(
                f"embeddings: batch_size and chunk_size must be >= 1 (got {self.batch_size}, {self.chunk_size})"
            )


def chunk_key(texts: Sequence[str], settings: EmbeddingSettings) -> str:
    """The content address of one chunk's vectors: the model (its files, `lib.models.model_fingerprint`: a
    model saved again into one folder reused the old vectors), its input length, the precision the vectors
    are kept in, and the chunk's texts (not the batch size or device, which do not change the vectors beyond
    float noise)."""
    model = MD.model_fingerprint(settings.model)
    h = hashlib.sha256(json.dumps([model, settings.max_seq_length, settings.fp16]).encode())
    return _hash_texts(h, texts).hexdigest()[:24]


def load_encoder(settings: EmbeddingSettings):
    """The passage encoder on its device, in fp16 on a GPU when `fp16` (CPU inference stays fp32)."""

    device = MD.pick_device(settings.device)
    encoder = MD.load_encoder(settings.model, device, settings.max_seq_length)
    if settings.fp16 and device.startswith("cuda"):
        encoder = encoder.half()
    return encoder


def embed_passages(
    texts: Sequence[str], encoder, settings: EmbeddingSettings, emb_dir: Path | str
) -> tuple[np.ndarray, dict[str, int]]:
    """The passages' normalised vectors (float32), computed `chunk_size` at a time; each chunk is saved
    under its content address as it finishes, so a killed run resumes at the first chunk not saved, and
    identical passages of another claim or run are never encoded twice. Returns the vectors and counts
    of chunks loaded and encoded."""

    emb_dir = Path(emb_dir)
    emb_dir.mkdir(parents=True, exist_ok=True)
    parts, counts = [], {"loaded": 0, "encoded": 0}
    for lo in range(0, len(texts), settings.chunk_size):
        chunk = list(texts[lo : lo + settings.chunk_size])
        key = chunk_key(chunk, settings)
        path = emb_dir / f"{key}.npz"
        saved = _saved_chunk(path, len(chunk), key) if path.exists() else None
        if saved is not None:
            parts.append(saved)
            counts["loaded"] += 1
            continue
        vec = MD.encode(encoder, chunk, settings.batch_size, progress=False).astype(
            np.float16 if settings.fp16 else np.float32
        )
        with OUT.atomic(path) as tmp:  # its own address inside: a file copied to another address is not taken
            np.savez(tmp, vectors=vec, key=np.array(key))
        parts.append(vec)
        counts["encoded"] += 1
    dim = encoder.get_embedding_dimension()
    vectors = np.concatenate(parts) if parts else np.zeros((0, dim))
    return np.ascontiguousarray(vectors, dtype=np.float32), counts


def _saved_chunk(path: Path, rows: int, key: str) -> np.ndarray | None:
    """The vectors saved at `path` when they are whole, saved under this address (`key`: a chunk swapped or
    copied from another claim's address ranked its passages with the other's vectors), finite (a NaN left
    a claim out of the runs) and one per passage of the chunk; None (they are encoded again, with a
    warning) otherwise. A pipe or a folder there is refused unopened."""
    _regular_cache(path, "saved passage vectors")
    try:
        with np.load(path, allow_pickle=False) as z:
            vectors, saved_key = z["vectors"], str(z["key"])
        if saved_key != key:
            problem = f"saved for the address {saved_key[:24]!r}"
        elif not (vectors.ndim == 2 and len(vectors) == rows and vectors.dtype.kind == "f"):
            problem = f"{vectors.shape} {vectors.dtype} vectors for {rows} passages"
        elif not np.isfinite(vectors).all():
            problem = "values that are not finite numbers"
        else:
            return vectors
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as err:
        problem = f"it cannot be read: {type(err).__name__}: {err}"
    print(f"warning: {path}: not this chunk's saved vectors ({problem}); encoded again", file=sys.stderr)
    return None


def dense_claim(
    passage_vectors: np.ndarray, query_vectors: np.ndarray, depth: int = 100
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Top-`depth` passages of one claim for each query vector, by exact inner product over the claim's
    passages only (what a flat faiss index computes), ties broken by the lower row as `top_k` does for
    BM25: faiss' own order among equal scores is not fixed, and a store repeats sentences."""
    scores = (
        np.ascontiguousarray(query_vectors, dtype=np.float32)
        @ np.ascontiguousarray(passage_vectors, dtype=np.float32).T
    )
    rows = [top_k(s.astype(np.float64), depth) for s in scores]
    return rows, [s[r] for s, r in zip(scores, rows)]


@dataclass(frozen=True)
class ClaimJob:
    """Everything one claim's retrieval needs, small enough to send to another process or machine."""

    store: str
    claim_id: int
    name: str
    queries: tuple[str, ...]
    passages: PS.PassageSettings = PS.PassageSettings()
    depth: int = 100
    bm25: BM.BM25Params = BM.BM25Params()
    index_dir: str | None = None
    dense: EmbeddingSettings | None = None  # None: BM25; else dense retrieval with this encoder
    emb_dir: str | None = None  # dense: where the passages' vector chunks are kept (content-addressed)


RUN_COLUMNS = ["claim_id", "query_index", "query", "rank", "url", "line", "position", "score"]


_ENCODERS: dict[EmbeddingSettings, Any] = {}  # one encoder per worker process, loaded at its first dense claim


def _dense(job: ClaimJob, texts: list[str]) -> tuple[list[np.ndarray], list[np.ndarray], dict[str, int]]:
    """Dense retrieval for one claim: its passages' vectors (saved chunks loaded, the rest encoded and
    saved), its queries encoded, a flat index over the claim's passages."""

    if job.dense not in _ENCODERS:
        _ENCODERS[job.dense] = load_encoder(job.dense)
    encoder = _ENCODERS[job.dense]
    vectors, chunks = embed_passages(texts, encoder, job.dense, job.emb_dir)
    queries = MD.encode(encoder, job.queries, job.dense.batch_size, progress=False)
    rows, scores = dense_claim(vectors, queries, job.depth)
    return rows, scores, {f"chunks_{k}": v for k, v in chunks.items()}


def run_claim(job: ClaimJob) -> tuple[pd.DataFrame, dict[str, Any]]:
    """One claim: read its passages, index (or load its index), score every query, keep the top `depth`
    (BM25, or dense when `job.dense` names an encoder).

    Returns the ranked rows (`RUN_COLUMNS`) and the claim's measurements (passages, seconds, the worker's
    peak memory), kept apart because they differ from run to run and the rows must not."""
    start = time.perf_counter()
    counts: Counter = Counter()
    passages = PS.claim_passages(job.store, job.claim_id, job.name, job.passages, counts)
    texts = PS.indexed_texts(passages)
    extra: dict[str, Any] = {}
    if not texts:  # an empty file, or pages without text: nothing to rank (an empty run; `passages` says 0)
        top = scores = [np.empty(0, dtype=np.int64) for _ in job.queries]
    elif job.dense is None:
        top, scores, loaded = retrieve_claim(texts, job.queries, job.depth, job.bm25, job.index_dir)
        extra["index_loaded"] = loaded
    else:
        top, scores, extra = _dense(job, texts)
    rows = []
    for qi, (idx, sc) in enumerate(zip(top, scores)):
        hit = passages.iloc[idx]
        rows.append(
            pd.DataFrame(
                {
                    "claim_id": job.claim_id,
                    "query_index": qi,
                    "query": job.queries[qi],
                    "rank": np.arange(1, len(idx) + 1),
                    "url": hit["url"].to_numpy(),
                    "line": hit["line"].to_numpy(),
                    "position": hit["position"].to_numpy(),
                    "score": sc,
                }
            )
        )
    frame = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=RUN_COLUMNS)
    stats = {
        "claim_id": job.claim_id,
        **{k: counts[k] for k in ("pages", "empty_url2text", "sentences")},
        "passages": len(passages),
        "queries": len(job.queries),
        **extra,
        "seconds": time.perf_counter() - start,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    return frame, stats


def retrieve_store(
    store: Path | str,
    plan: dict[int, Sequence[str]],
    compute: Any = None,
    passages: PS.PassageSettings = PS.PassageSettings(),
    depth: int = 100,
    bm25: BM.BM25Params = BM.BM25Params(),
    index_dir: Path | str | None = None,
    dense: EmbeddingSettings | None = None,
    emb_dir: Path | str | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """BM25 (or, with `dense`, dense retrieval with vectors kept in `emb_dir`) per claim over the store for
    every claim of `plan` ({claim_id: queries}), on the backend of `compute` (`lib.compute.ComputeSettings`;
    default: this process). Returns the runs (`RUN_COLUMNS`, by claim) and one row of measurements per
    claim. A claim of the plan that the store lacks is an error."""
    if dense is not None and emb_dir is None:  # checked before any claim is read or sent to a worker
        raise ValueError("dense retrieval over a knowledge store needs emb_dir (where the vector chunks are kept)")
    files = KS.claim_files(store)
    missing = sorted(set(plan) - set(files))
    if missing:
        held = sorted(set(plan) & set(files))
        hint = f"; it holds {len(held)} of them, {held[0]} to {held[-1]}: give --first/--last" if held else ""
        raise DataError(
            store,
            "-",
            None,
            f"{len(missing)} claim(s) of the plan have no file in the store (first: {missing[0]}){hint}",
        )
    jobs = [
        ClaimJob(
            str(store),
            cid,
            files[cid],
            tuple(plan[cid]),
            passages,
            depth,
            bm25,
            None if index_dir is None else str(index_dir),
            dense,
            None if emb_dir is None else str(emb_dir),
        )
        for cid in sorted(plan)
    ]
    results = C.map_claims(run_claim, jobs, compute or C.ComputeSettings(), desc="knowledge store")
    frames = [f for f, _ in results if len(f)]
    runs = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=RUN_COLUMNS)
    return runs, pd.DataFrame([s for _, s in results])


# --------------------------------------------------------------------------- synthetic store


def synthesise(
    out: Path | str,
    source: Sequence[str],
    claims: int | Sequence[int],
    pages: int,
    sentences: int,
    seed: int = 0,
    gold: dict[int, Sequence[tuple[str, str]]] | None = None,
) -> dict[str, Any]:
    """Write a synthetic store in the official layout to the directory `out`: for each claim
    (`claims`: how many, numbered from 0, or the ids), `pages` pages of `sentences` sentences each, drawn
    with a fixed seed from `source` (real documents, so the token statistics are those of real text).

    `gold` ({claim_id: [(url, text)]}) puts a claim's gold evidence into its store: the first pages take
    those URLs and each text as a sentence, as the scraped page of a gold source would hold it.

    The store is written whole: into a temporary folder renamed over `out` at the end, so a stop leaves the
    earlier store and a smaller rerun leaves no stale claim files. A folder `out` that holds anything but
    `<claim_id>.json` files is refused, never replaced."""
    if not source:
        raise NamedError("synthesise: no source texts to draw sentences from (a store with no document?)")
    if pages < 1 or sentences < 1:
        raise ValueError(f"synthesise: pages and sentences must be >= 1 (got {pages}, {sentences})")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise NamedError(f"{out}: is a file; expected the folder of the synthetic store")
    other = sorted(p.name for p in out.iterdir() if not re.fullmatch(r"\d+\.json", p.name)) if out.is_dir() else []
    if other:
        raise NamedError(
            f"{out}: holds {other[0]!r}{f' and {len(other) - 1} more' if len(other) > 1 else ''}, not only "
            "<claim_id>.json files: write the synthetic store to a new folder or over an earlier synthetic store"
        )
    real = next((p.name for p in sorted(out.iterdir()) if not _synthetic_file(p)), None) if out.is_dir() else None
    if real is not None:  # the organisers' store has the same file names: it was replaced, exit 0
        raise NamedError(
            f"{out}: {real} holds pages that are not synthetic (a real knowledge store?); write the synthetic store "
            "to a new folder or over an earlier synthetic store"
        )
    ids = list(range(claims)) if isinstance(claims, int) else list(claims)
    rng = random.Random(seed)
    with OUT.atomic_dir(out) as folder:
        for cid in ids:
            _synthetic_claim(folder / f"{cid}.json", cid, source, pages, sentences, rng, (gold or {}).get(cid, []))
    return {"claims": len(ids), "pages": pages, "sentences": sentences, "seed": seed}


def _synthetic_file(path: Path) -> bool:
    """Whether a claim file is one `synthesise` wrote: its first page's `type` is "synthetic"."""
    try:
        with open(path, encoding="utf-8") as f:
            first = json.loads(f.readline(1 << 20) or "null")
    except (OSError, ValueError):
        return False
    return isinstance(first, dict) and first.get("type") == "synthetic"


def _synthetic_claim(
    path: Path,
    cid: int,
    source: Sequence[str],
    pages: int,
    sentences: int,
    rng: random.Random,
    golds: Sequence[tuple[str, str]],
) -> None:
    """One claim's file of the synthetic store, streamed page by page (inside the store's temporary folder)."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        for p in range(pages):
            body = [source[rng.randrange(len(source))] for _ in range(sentences)]
            url = f"https://synthetic.example/{cid}/{p}"
            if p < len(golds):
                url = golds[p][0]
                body[rng.randrange(sentences)] = golds[p][1]
            page = {"url": url, "url2text": body, "type": "synthetic", "query": f"claim {cid}"}
            f.write(json.dumps(page, ensure_ascii=False) + "\n")


def source_texts(texts: Iterable[str], min_words: int = 3) -> list[str]:
    """Distinct texts of at least `min_words` words: the pool a synthetic store draws its sentences from."""
    return sorted({clean_text(t) for t in texts if len(t.split()) >= min_words})


def gold_evidence(claims: Iterable[Any]) -> dict[int, list[tuple[str, str]]]:
    """{claim_id: [(source URL, gold answer text)]} of AVeriTeC claims: what `synthesise(gold=...)` puts on
    the pages of a synthetic store, as the scraped gold source pages would hold it."""

    return {
        c.claim_id: [
            (a.source_url, averitec.gold_answer_text(a)) for q in c.questions for a in q.answers if a.source_url
        ]
        for c in claims
    }


def compute_settings(args: Any) -> C.ComputeSettings:
    """params.yaml's `compute` section, each setting overridden by its command-line flag when given."""

    p = section("compute", args.params or PARAMS_FILE)
    for key in ("backend", "workers", "address"):
        if getattr(args, key) is not None:
            p[key] = getattr(args, key)
    if args.address is not None and p["backend"] != "ray":  # the model refuses it too, less plainly for a flag
        source = "--backend" if args.backend is not None else f"{args.params or PARAMS_FILE}: compute.backend"
        raise NamedError(
            f"--address {args.address!r} names a Ray cluster, and the backend is {p['backend']!r} ({source}): add "
            "--backend ray, or leave --address out"
        )
    return C.ComputeSettings.model_validate(p)


def embedding_settings(args: Any) -> EmbeddingSettings | None:
    """The `retrieve` command's encoder for `--retriever dense` (None for BM25); `--emb-dir` is required."""
    if args.retriever != "dense":
        return None
    if args.emb_dir is None:
        raise SystemExit(
            "error: --retriever dense needs --emb-dir (where the passages' vectors are kept, so a killed run resumes)"
        )

    retrieval = section("retrieval", args.params or PARAMS_FILE)
    return EmbeddingSettings(
        args.model or retrieval["model"],
        args.batch_size,
        args.device,
        not args.no_fp16,
        max_seq_length=retrieval["max_seq_length"],
    )


MAX_SYNTH_SENTENCES = 50_000_000  # a synthetic store's size (claims x pages x sentences): about 6 GB of text


def synth_size_problem(claims: int, pages: int, sentences: int, names: tuple[str, str, str]) -> str | None:
    """Why a synthetic store of this size is refused (past `MAX_SYNTH_SENTENCES`), or None; `names`: how the
    three sizes are written where they were given (flags, or a profile's keys)."""
    total = claims * pages * sentences
    if total <= MAX_SYNTH_SENTENCES:
        return None
    return (
        f"{names[0]} {claims} x {names[1]} {pages} x {names[2]} {sentences}: {total:,} sentences, over the bound "
        f"of {MAX_SYNTH_SENTENCES:,} for a synthetic store (the default is 1,000,000)"
    )


def main(argv: list[str] | None = None) -> None:
    """`python -m lib.retrieval.per_claim synth ...` writes a synthetic store; `... retrieve ...` runs per-claim
    BM25 for a plan over a store (a directory or the organisers' zip) on the local or Ray backend."""

    ap = ArgumentParser(prog="python -m lib.retrieval.per_claim", description=main.__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    syn = sub.add_parser("synth", help="write a synthetic store in the official layout")
    syn.add_argument("--out", type=nonempty_path, required=True)
    syn.add_argument("--claims", type=flag_of(PosInt), default=20)
    syn.add_argument("--pages", type=flag_of(PosInt), default=1000)
    syn.add_argument("--sentences", type=flag_of(PosInt), default=50)
    syn.add_argument("--seed", type=flag_of(Seed), default=0)
    syn.add_argument("--store-dir", default=str(STORE_DIR), help="the pooled store whose documents are drawn")
    syn.add_argument("--gold", action="store_true", help="put each dev claim's gold answers on pages of their URLs")
    syn.add_argument("--data-dir", type=data_folder, default=str(DATA_DIR))
    ret = sub.add_parser("retrieve", help="per-claim BM25 of a plan's queries over a store")
    ret.add_argument("--store", required=True, help="a directory or zip of <claim_id>.json files")
    ret.add_argument("--plan", required=True, help="a plan file (outputs/plans/<name>.jsonl)")
    ret.add_argument("--out", type=file_path, required=True, help="the runs, a parquet file")
    ret.add_argument("--unit", choices=["sentence", "chunk"], default="sentence")
    ret.add_argument("--chunk-chars", type=flag(PS.PassageSettings, "chunk_chars"), default=1000)
    ret.add_argument("--depth", type=flag(RunGrid, "depth"), default=100)
    ret.add_argument(
        "--index-dir", type=nonempty_path, default=None, help="keep each claim's index here (content-addressed)"
    )
    ret.add_argument("--retriever", choices=["bm25", "dense"], default="bm25")
    ret.add_argument(
        "--model", type=nonempty_path, default=None, help="dense: the encoder (default: params.yaml retrieval.model)"
    )  # `--model ""` (an unset variable) meant the default silently
    ret.add_argument(
        "--device",
        type=flag_of(Device, "auto, cpu, mps, cuda or cuda:N"),
        default="auto",
        help="dense: auto (CUDA when present), cpu, cuda, cuda:1, mps",
    )
    ret.add_argument(
        "--batch-size", type=flag(RunGrid, "batch_size"), default=64, help="dense: passages per encoder batch"
    )
    ret.add_argument("--no-fp16", action="store_true", help="dense: full precision on a GPU too")
    ret.add_argument(
        "--emb-dir",
        type=nonempty_path,
        default=None,
        help="dense: keep the passages' vector chunks here (content-addressed)",
    )
    ret.add_argument("--backend", choices=list(C.BACKENDS), default=None, help="default: params.yaml compute.backend")
    ret.add_argument(
        "--workers", type=flag(C.ComputeSettings, "workers"), default=None, help="default: params.yaml compute.workers"
    )
    ret.add_argument(
        "--address", default=None, help="the Ray cluster (default: compute.address, $RAY_ADDRESS, else local)"
    )
    ret.add_argument(
        "--params",
        type=nonempty_path,
        default=None,
        help="parameter file for the compute section (default: params.yaml)",
    )
    ret.add_argument("--first", type=flag_of(NonNegInt), default=None, help="first claim id (inclusive)")
    ret.add_argument("--last", type=flag_of(NonNegInt), default=None, help="last claim id (inclusive)")
    args = ap.parse_args(argv)
    if getattr(args, "device", None) not in (None, "auto", "cpu"):
        MD.pick_device(args.device)  # a device this machine lacks: refused before any work, whatever runs
    if args.command == "synth":
        too_big = synth_size_problem(args.claims, args.pages, args.sentences, ("--claims", "--pages", "--sentences"))
        if too_big:  # --claims 100000000 filled memory before a page was written
            raise NamedError(too_big)
        OUT.refuse_targets([args.out], [args.store_dir], folders=True)
        OUT.refuse_stage_outputs([args.out])
        source = source_texts(load_store(args.store_dir).docs["text"])
        gold = None
        if args.gold:
            dev = averitec.load_averitec("dev", Path(args.data_dir) / "averitec" / "dev.json")
            if args.claims > len(dev):  # claims past the dev set had no gold to put in: a store half without it
                raise NamedError(f"--claims {args.claims} with --gold: the dev set has {len(dev)} claims")
            gold = gold_evidence(dev[: args.claims])
        report = synthesise(args.out, source, args.claims, args.pages, args.sentences, args.seed, gold)
        print(f"synthetic store: {report} -> {args.out}")
        return
    OUT.refuse_targets([args.out], [args.store, args.plan, args.index_dir, args.emb_dir, args.params])
    if Path(args.out).exists() and not Path(args.out).is_file():  # a pipe: the parquet writer waits, deaf to signals
        raise NamedError(f"{args.out}: {not_a_file('the path of a parquet file')}")
    OUT.refuse_targets([args.index_dir, args.emb_dir], [args.store], folders=True)  # caches: written into
    OUT.refuse_stage_outputs([args.out, args.index_dir, args.emb_dir])
    compute = compute_settings(args)  # before any work: `--address` without `--backend ray` ran here, silently
    plan = P.load_plan(args.plan)
    if not plan:
        raise NamedError(f"{args.plan}: the plan names no claim (an empty file?); nothing to retrieve")
    keep = set(KS.select_claims(sorted(plan), args.first, args.last))
    if not keep:
        raise NamedError(
            f"--first {args.first} --last {args.last}: no claim of {args.plan} lies in that range "
            f"(it plans claims {min(plan, default='none')} to {max(plan, default='none')})"
        )
    plan = {cid: qs for cid, qs in plan.items() if cid in keep}
    if not any(plan.values()):
        raise NamedError(
            f"{args.plan}: every claim it plans in that range has an empty list of queries: nothing to retrieve"
        )
    if empty := [cid for cid, qs in plan.items() if not qs]:  # left out, they were missing from every mean
        raise NamedError(
            f"{args.plan}: {len(empty)} claim(s) it plans in that range have an empty list of queries (first: "
            f"{empty[:5]}); give each a query (the runs stage falls back to the claim's text) or leave it out"
        )
    # no word BM25 can match (blank, punctuation, a zero-width space): every passage scores 0 for it, and the
    # store's file order would pass for a ranking
    blank = next(((cid, i) for cid, qs in plan.items() for i, q in enumerate(qs) if not BM.tokenize(q)), None)
    if blank:
        raise DataError(args.plan, f"of claim {blank[0]}", f"queries[{blank[1]}]", "a query with no word to search")
    start = time.perf_counter()
    runs, stats = retrieve_store(
        args.store,
        plan,
        compute,
        PS.PassageSettings(unit=args.unit, chunk_chars=args.chunk_chars),
        args.depth,
        index_dir=args.index_dir,
        dense=embedding_settings(args),
        emb_dir=args.emb_dir,
    )
    out = OUT.write_parquet(runs, args.out, index=False)
    took = time.perf_counter() - start
    print(
        f"{len(stats)} claims, {int(stats['passages'].sum()):,} passages ({int(stats['empty_url2text'].sum()):,} empty pages "
        f"skipped), {len(runs):,} ranked rows in {took:.1f} s ({took / max(len(stats), 1):.2f} s per claim; peak memory per "
        f"worker {stats['peak_rss_mib'].max():.0f} MiB) -> {out}"
    )


if __name__ == "__main__":
    run_main(main)
