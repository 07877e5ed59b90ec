"""The official knowledge store: the streamed reader (lib.data.knowledge_store), passages, per-claim BM25
equal to rank_bm25, content-addressed indexes, the synthetic store, and the local and Ray backends."""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rank_bm25 import BM25Okapi

from lib import compute as C
from lib import models as MD
from lib.cli import NamedError
from lib.data import DataError
from lib.data import knowledge_store as KS
from lib.retrieval import bm25 as BM
from lib.retrieval import per_claim as K

PAGES = [
    {"url": "https://a.example/1", "url2text": ["The moon is made of rock.", "  NASA  said so. "], "type": "news"},
    {"url": "https://b.example/2", "url2text": []},
    {"url": "https://c.example/3", "url2text": ["Cheese is made of milk.", ""], "query": "moon cheese"},
]


def write_store(root, pages_by_claim: dict[int, list], zip_path=None, folder="output_dev/"):
    if zip_path is None:
        root.mkdir(parents=True, exist_ok=True)
        for cid, pages in pages_by_claim.items():
            (root / f"{cid}.json").write_text("".join(json.dumps(p) + "\n" for p in pages) + "\n")
        return root
    with zipfile.ZipFile(zip_path, "w") as z:
        for cid, pages in pages_by_claim.items():
            z.writestr(f"{folder}{cid}.json", "".join(json.dumps(p) + "\n" for p in pages))
    return zip_path


# --------------------------------------------------------------------------- reading


def test_a_directory_and_a_zip_give_the_same_pages_and_counts(tmp_path):
    d = write_store(tmp_path / "store", {0: PAGES, 12: PAGES[:1]})
    (d / "README.txt").write_text("not a claim")
    z = write_store(None, {0: PAGES, 12: PAGES[:1]}, tmp_path / "store.zip")
    for store in (d, z):
        files = KS.claim_files(store)
        assert list(files) == [0, 12]
        counts = Counter()
        pages = list(KS.read_pages(store, 0, files[0], counts))
        assert [(p.url, p.line) for p in pages] == [("https://a.example/1", 1), ("https://c.example/3", 3)]
        assert pages[0].fields == {"type": "news"} and pages[1].fields == {"query": "moon cheese"}
        assert counts == Counter(pages=3, empty_url2text=1, sentences=4)


@pytest.mark.parametrize(
    ("line", "field", "problem"),
    [
        ("{not json", None, "malformed JSONL"),
        ('["a list"]', None, "expected a JSON object"),
        ('{"url2text": ["x"]}', "url", "missing required field"),
        ('{"url": "u", "url2text": "one string"}', "url2text", "expected a list of strings"),
        ('{"url": "u", "url2text": ["ok", 3]}', "url2text[1]", "expected str"),
        ('{"url": 5, "url2text": ["x"]}', "url", "expected str"),
        ('{"url": "u", "url": "v", "url2text": ["x"]}', None, "names the key 'url' twice"),
    ],
)
def test_a_bad_line_names_the_file_the_line_and_the_field(tmp_path, line, field, problem):
    store = tmp_path / "store"
    store.mkdir()
    (store / "7.json").write_text(json.dumps(PAGES[0]) + "\n" + line + "\n")
    with pytest.raises(DataError, match=problem) as err:
        list(KS.read_pages(store, 7, "7.json"))
    assert err.value.path.endswith("7.json") and err.value.record == "at line 2" and err.value.field == field


def test_a_bad_byte_is_named_at_the_line_the_reader_counts_with_carriage_returns(tmp_path):
    """Pages ended by \\r are lines to the text reader; the second pass that finds the bad line split at \\n only."""
    page = b'{"url": "u", "url2text": ["a", "b"]}\r'
    (tmp_path / "cr").mkdir()
    (tmp_path / "cr" / "1.json").write_bytes(page * 2 + b'{"url": "caf\xe9"}\r')
    with pytest.raises(DataError, match=r"1.json: record at line 3: not UTF-8 text"):
        list(KS.read_pages(tmp_path / "cr", 1, "1.json"))


def test_a_plan_larger_than_the_store_says_which_claims_the_store_holds(tmp_path):
    """The README's example (a 20-claim store, the 500-claim plan) said only "495 claim(s) ... have no file"."""
    (tmp_path / "ks").mkdir()
    for cid in (3, 4):
        (tmp_path / "ks" / f"{cid}.json").write_text('{"url": "u", "url2text": ["a cat"]}\n')
    with pytest.raises(DataError) as err:
        K.retrieve_store(tmp_path / "ks", {1: ["cat"], 3: ["cat"], 4: ["cat"], 9: ["cat"]})
    assert str(err.value).endswith(
        "2 claim(s) of the plan have no file in the store (first: 1); it holds 2 of them, 3 to 4: give --first/--last"
    )


def test_a_store_that_is_no_store_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such knowledge store"):
        KS.claim_files(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="no <claim_id>.json files"):
        KS.claim_files(tmp_path / "empty")
    (tmp_path / "plain.txt").write_text("x")
    with pytest.raises(DataError, match="not a directory or a zip"):
        KS.claim_files(tmp_path / "plain.txt")
    with zipfile.ZipFile(tmp_path / "twice.zip", "w") as z:
        z.writestr("a/3.json", "{}")
        z.writestr("b/3.json", "{}")
    with pytest.raises(DataError, match="claim 3 is stored twice"):
        KS.claim_files(tmp_path / "twice.zip")
    (tmp_path / "latin1").mkdir()
    (tmp_path / "latin1" / "1.json").write_bytes('{"url": "caf\xe9"}'.encode("latin-1"))
    with pytest.raises(DataError, match="not UTF-8"):
        list(KS.read_pages(tmp_path / "latin1", 1, "1.json"))


def test_a_store_that_is_a_pipe_a_damaged_zip_or_a_bomb_is_one_named_error(tmp_path, monkeypatch):
    """A FIFO as --store waited forever, /dev/zero filled 24 GB; a bad CRC, an encrypted member or broken
    deflate data ended in zipfile's traceback; a 1 MB zip holding a 400 MB line filled memory."""
    os.mkfifo(tmp_path / "fifo")
    for store in (tmp_path / "fifo", Path("/dev/zero")):
        with pytest.raises(
            DataError, match="not a regular file \\(a folder, a pipe or a device\\?\\); expected a knowledge store"
        ):
            KS.claim_files(store)
    page = '{"url": "u", "url2text": ["a sentence"]}\n'
    with zipfile.ZipFile(tmp_path / "ks.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("0.json", page * 50)
    data = bytearray((tmp_path / "ks.zip").read_bytes())
    data[data.index(b"PK\x03\x04") + 30 + len("0.json") + 5] ^= 0xFF  # a byte of the compressed page data
    (tmp_path / "bad.zip").write_bytes(bytes(data))
    with pytest.raises(DataError, match=r"bad.zip!0.json: a damaged zip member \((BadZipFile|error)"):
        list(KS.read_pages(tmp_path / "bad.zip", 0, "0.json"))
    monkeypatch.setattr(KS, "MAX_PAGE_CHARS", len(page) - 1)  # the newline makes it one over: still read
    assert len(list(KS.read_pages(tmp_path / "ks.zip", 0, "0.json"))) == 50
    monkeypatch.setattr(KS, "MAX_INPUT_BYTES", len(page) * 49)  # 50 pages, each within its own bound
    with pytest.raises(DataError, match=r"ks.zip!0.json: record at line 50: the claim's pages hold over "):
        list(KS.read_pages(tmp_path / "ks.zip", 0, "0.json"))
    monkeypatch.setattr(KS, "MAX_INPUT_BYTES", len(page) * 50)
    monkeypatch.setattr(KS, "MAX_PAGE_CHARS", len(page) - 2)
    with pytest.raises(DataError) as err:
        list(KS.read_pages(tmp_path / "ks.zip", 0, "0.json"))
    assert str(err.value) == (
        f"{tmp_path / 'ks.zip'}!0.json: record at line 1: a line over {len(page) - 2:,} characters "
        "(set $LIB_MAX_PAGE_CHARS to read it)"
    )


def test_a_store_with_a_damaged_directory_odd_names_or_too_many_sentences_is_one_named_error(tmp_path, monkeypatch):
    """A damaged central directory and a 5,000-digit member name were tracebacks; `7.json\\n` was read as
    claim 7; a 250 KB zip of one-letter sentences could take 20 GB; a bad byte in a zip member named a path
    that does not exist."""
    page = '{"url": "u", "url2text": ["a", "b"]}\n'
    with zipfile.ZipFile(tmp_path / "ok.zip", "w") as z:
        z.writestr("1.json", page)
    data = bytearray((tmp_path / "ok.zip").read_bytes())
    at = data.index(b"PK\x01\x02")
    data[at : at + 4] = b"XXXX"
    (tmp_path / "bad_cd.zip").write_bytes(bytes(data))
    with pytest.raises(DataError, match=r"bad_cd.zip: a damaged zip \(BadZipFile"):
        KS.claim_files(tmp_path / "bad_cd.zip")
    with zipfile.ZipFile(tmp_path / "names.zip", "w") as z:
        z.writestr("1" * 5000 + ".json", page)
    with pytest.raises(DataError, match=r"the file name's claim id: .* at most 18 digits"):
        KS.claim_files(tmp_path / "names.zip")
    with zipfile.ZipFile(tmp_path / "newline.zip", "w") as z:
        z.writestr("7.json\n", page)
        z.writestr("8.json", page)
    assert KS.claim_files(tmp_path / "newline.zip") == {8: "8.json"}
    monkeypatch.setattr(KS, "MAX_CLAIM_SENTENCES", 5)
    with zipfile.ZipFile(tmp_path / "many.zip", "w") as z:
        z.writestr("1.json", page * 3)
    with pytest.raises(DataError) as err:
        list(KS.read_pages(tmp_path / "many.zip", 1, "1.json"))
    assert str(err.value) == (
        f"{tmp_path / 'many.zip'}!1.json: record at line 3: the claim's pages hold over 5 sentences "
        "(set $LIB_MAX_CLAIM_SENTENCES to read them)"
    )
    with zipfile.ZipFile(tmp_path / "latin.zip", "w") as z:
        z.writestr("1.json", page.encode() + b'{"url": "caf\xe9"}\n')
    with pytest.raises(DataError) as err:
        list(KS.read_pages(tmp_path / "latin.zip", 1, "1.json"))
    assert str(err.value).startswith(f"{tmp_path / 'latin.zip'}!1.json: record at line 2: not UTF-8 text")


def test_claim_ranges():
    assert KS.select_claims([0, 3, 5, 9], 3, 5) == [3, 5]
    assert KS.select_claims([0, 3, 5, 9], None, 3) == [0, 3] and KS.select_claims([0, 3], 4) == []


# --------------------------------------------------------------------------- per-claim BM25


@pytest.fixture(scope="module")
def texts(tiny_store):
    return K.source_texts(tiny_store.docs["text"])


def rank_bm25_top(texts, queries, depth):
    bm = BM25Okapi([BM.tokenize(t) for t in texts])
    scores = [bm.get_scores(BM.tokenize(q)) for q in queries]
    return [K.top_k(s, depth) for s in scores], scores


def test_per_claim_retrieval_equals_rank_bm25(texts):
    queries = ["Is the moon made of cheese?", "NASA", "unemployment growth", "zzz-unknown"]
    top, scores, loaded = K.retrieve_claim(texts, queries, depth=10)
    ref_top, ref_scores = rank_bm25_top(texts, queries, 10)
    assert not loaded and [list(t) for t in top] == [list(t) for t in ref_top]
    for t, s, rs in zip(top, scores, ref_scores):
        np.testing.assert_allclose(s, rs[t], rtol=0, atol=1e-9)


def test_an_index_is_saved_under_its_content_and_loaded_the_next_time(texts, tmp_path):
    queries = ["moon cheese", "growth"]
    first = K.retrieve_claim(texts, queries, 5, index_dir=tmp_path)
    second = K.retrieve_claim(texts, queries, 5, index_dir=tmp_path)
    assert (first[2], second[2]) == (False, True)
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert [p.name for p in tmp_path.iterdir()] == [f"{K.index_key(texts, BM.BM25Params())}.npz"]
    assert K.index_key(texts[1:], BM.BM25Params()) != K.index_key(texts, BM.BM25Params())
    assert K.index_key(texts, BM.BM25Params(k1=1.2)) != K.index_key(texts, BM.BM25Params())
    # a text holding the old separator byte gave two claims' passages one address (one claim another's index)
    assert K.index_key(["cat\x00fish", "dog"], BM.BM25Params()) != K.index_key(["cat", "fish\x00dog"], BM.BM25Params())
    assert K.index_key(["a\x00", "b"], BM.BM25Params()) != K.index_key(["a", "\x00b"], BM.BM25Params())
    settings = K.EmbeddingSettings(chunk_size=2)
    assert K.chunk_key(["cat\x00fish", "dog"], settings) != K.chunk_key(["cat", "fish\x00dog"], settings)
    assert K.index_key(["\ud800 lone"], BM.BM25Params())  # a lone surrogate JSON can hold: an address, no crash


def test_a_saved_index_cut_short_foreign_or_of_another_claim_is_rebuilt_with_a_warning(texts, tmp_path, capsys):
    """A cut index ended in zipfile's traceback, a file of text in numpy's; another claim's index copied to
    this claim's address was scored as this claim's (44 of 200 ranked rows moved, exit 0)."""
    queries = ["moon cheese", "growth"]
    want = K.retrieve_claim(texts, queries, 5)
    path = tmp_path / f"{K.index_key(texts, BM.BM25Params())}.npz"
    K.retrieve_claim(texts[::-1], queries, 5, index_dir=tmp_path)  # another claim's index (same passage count)
    other = tmp_path / f"{K.index_key(texts[::-1], BM.BM25Params())}.npz"
    for damage, problem in [
        (lambda: path.write_bytes(other.read_bytes()), "it is the index of "),
        (lambda: path.write_bytes(other.read_bytes()[:300]), "it cannot be read: "),
        (lambda: path.write_text("garbage"), "it cannot be read: "),
    ]:
        damage()
        top, scores, loaded = K.retrieve_claim(texts, queries, 5, index_dir=tmp_path)
        assert not loaded and f"{path}: not this claim's saved index ({problem}" in capsys.readouterr().err
        np.testing.assert_array_equal(top, want[0])
        assert K.retrieve_claim(texts, queries, 5, index_dir=tmp_path)[2]  # saved again, whole: loaded now


def test_saved_vectors_cut_short_or_of_another_shape_are_encoded_again(tmp_path, capsys):
    texts = [f"passage number {i}" for i in range(4)]
    settings = K.EmbeddingSettings(model="fake", chunk_size=2, fp16=False)
    want, _ = K.embed_passages(texts, FakeEncoder(), settings, tmp_path)
    key = K.chunk_key(texts[:2], settings)
    path, other = tmp_path / f"{key}.npz", tmp_path / f"{K.chunk_key(texts[2:], settings)}.npz"
    nan = np.full((2, 8), np.nan, dtype=np.float32)
    for damage, problem in [
        (lambda: np.savez(path, vectors=np.zeros((3, 8), dtype=np.float32), key=key), "(3, 8) float32 vectors for 2"),
        (lambda: path.write_bytes(path.read_bytes()[:60]), "it cannot be read: "),
        # another chunk's file at this address (swapped, copied): its passages ranked with the other's vectors
        (lambda: path.write_bytes(other.read_bytes()), "saved for the address "),
        (lambda: np.savez(path, vectors=nan, key=key), "values that are not finite numbers"),  # a claim left out
    ]:
        damage()
        vectors, counts = K.embed_passages(texts, FakeEncoder(), settings, tmp_path)
        assert (
            counts == {"loaded": 1, "encoded": 1}
            and f"{path}: not this chunk's saved vectors ({problem}" in capsys.readouterr().err
        )
        np.testing.assert_array_equal(vectors, want)


# --------------------------------------------------------------------------- synthetic store


def test_a_synthetic_store_is_seeded_official_and_holds_the_gold_evidence(texts, tmp_path):
    gold = {1: [("https://gold.example/a", "The gold sentence itself.")]}
    K.synthesise(tmp_path / "a", texts, [0, 1], pages=3, sentences=4, seed=5, gold=gold)
    K.synthesise(tmp_path / "b", texts, [0, 1], pages=3, sentences=4, seed=5, gold=gold)
    assert (tmp_path / "a" / "1.json").read_bytes() == (tmp_path / "b" / "1.json").read_bytes()
    files = KS.claim_files(tmp_path / "a")
    pages = list(KS.read_pages(tmp_path / "a", 1, files[1]))
    assert len(pages) == 3 and all(len(p.sentences) == 4 for p in pages)
    assert pages[0].url == "https://gold.example/a" and "The gold sentence itself." in pages[0].sentences
    assert set(pages[1].sentences) <= set(texts)
    K.synthesise(tmp_path / "a", texts, [0], pages=3, sentences=4, seed=5)  # rewritten whole: no stale 1.json
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["0.json"]
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(NamedError, match=r"mine: holds 'notes.txt', not only <claim_id>.json files"):
        K.synthesise(tmp_path / "mine", texts, 1, 1, 1)
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"
    real = tmp_path / "real"  # the organisers' store has the same file names: it was replaced, exit 0
    real.mkdir()
    (real / "1.json").write_text('{"url": "https://real.example/1", "url2text": ["a"], "type": "pdf"}\n')
    with pytest.raises(NamedError, match=r"real: 1.json holds pages that are not synthetic"):
        K.synthesise(real, texts, 1, 1, 1)
    assert (real / "1.json").exists()
    with pytest.raises(NamedError, match="no source texts"):
        K.synthesise(tmp_path / "c", [], 1, 1, 1)
    with pytest.raises(ValueError, match="must be >= 1"):
        K.synthesise(tmp_path / "c", texts, 1, 0, 1)


# --------------------------------------------------------------------------- backends


@pytest.fixture(scope="module")
def synthetic(texts, tmp_path_factory):
    root = tmp_path_factory.mktemp("ks")
    K.synthesise(root / "store", texts, 6, pages=20, sentences=10, seed=1)
    plan = {cid: [f"claim {cid} moon", "growth of the economy", "cheese"] for cid in range(6)}
    return root / "store", plan


def parquet_bytes(frame: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return buf.getvalue()


def test_the_local_pool_and_ray_give_the_same_runs_byte_for_byte(synthetic):
    store, plan = synthetic
    serial, stats = K.retrieve_store(store, plan, C.ComputeSettings(), depth=20)
    assert list(serial.columns) == K.RUN_COLUMNS and len(serial) == 6 * 3 * 20
    assert stats["passages"].tolist() == [200] * 6 and (stats["peak_rss_mib"] > 0).all()
    pooled, _ = K.retrieve_store(store, plan, C.ComputeSettings(workers=2), depth=20)
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        on_ray, _ = K.retrieve_store(store, plan, C.ComputeSettings(backend="ray", workers=2), depth=20)
    finally:
        ray.shutdown()
    assert parquet_bytes(serial) == parquet_bytes(pooled) == parquet_bytes(on_ray)


def test_a_plan_claim_missing_from_the_store_is_an_error(synthetic):
    store, plan = synthetic
    with pytest.raises(DataError, match="1 claim\\(s\\) of the plan have no file"):
        K.retrieve_store(store, {**plan, 99: ["x"]})


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"backend": "dask"}, "backend"), ({"workers": 0}, "workers"), ({"cpus_per_task": 0}, "cpus_per_task"),
     ({"address": "ray://h:1"}, "address 'ray://h:1' is a Ray cluster's, and backend is 'local'")],
)  # fmt: skip
def test_compute_settings_are_checked(kwargs, match):
    with pytest.raises(ValueError, match=match):
        C.ComputeSettings(**kwargs)


def test_the_retrieve_command_takes_compute_from_params_and_flags_override_it():
    from argparse import Namespace

    none = Namespace(params=None, backend=None, workers=None, address=None)
    assert K.compute_settings(none) == C.ComputeSettings()
    flags = Namespace(params=None, backend="ray", workers=3, address="ray://h:10001")
    assert K.compute_settings(flags) == C.ComputeSettings(backend="ray", workers=3, address="ray://h:10001")
    # the twenty-ninth pass: `--address` without `--backend ray` ran here, silently
    with pytest.raises(K.NamedError, match=r"--address 'ray://h:1' names a Ray cluster, and the backend is 'local'"):
        K.compute_settings(Namespace(params=None, backend=None, workers=None, address="ray://h:1"))


def test_compute_settings_come_from_the_params_section():
    from lib.params import section

    assert C.ComputeSettings.model_validate(section("compute")) == C.ComputeSettings()
    p = {"backend": "ray", "workers": 4, "address": "ray://head:10001", "cpus_per_task": 2.0}
    assert C.ComputeSettings.model_validate(p) == C.ComputeSettings(**p)


def test_the_benchmark_checks_and_reports_on_a_small_store(tiny_study, tmp_path, capsys):
    from conftest import FIXTURE_DATA

    from benchmarks import bench_knowledge_store as BK

    BK.main(
        ["--claims", "2", "--pages", "6", "--sentences", "4", "--growth", "3", "6", "--growth-claims", "1"]
        + ["--store-dir", str(tiny_study / "store"), "--out-dir", str(tmp_path), "--data-dir", str(FIXTURE_DATA)]
    )
    out = json.loads((tmp_path / "knowledge_store.json").read_text())
    assert [g["pages"] for g in out["growth"]] == [3, 6] and set(out["ratio"]) == {"first_run", "index_built"}
    printed = capsys.readouterr().out
    assert "identical top-100 for every query" in printed and "target 20x per claim" in printed


# --------------------------------------------------------------------------- per-claim dense


class FakeEncoder:
    """A deterministic encoder (vectors from the texts' hashes) that can be made to die mid-run."""

    def __init__(self, die_at_call: int | None = None):
        self.calls, self.die_at_call = 0, die_at_call

    def get_embedding_dimension(self) -> int:
        return 8

    def encode(self, texts, **kwargs):
        self.calls += 1
        if self.die_at_call == self.calls:
            raise KeyboardInterrupt("killed")
        import hashlib

        rows = [
            np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], dtype=np.uint8).astype(np.float32) + 1 for t in texts
        ]
        v = np.stack(rows)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_embeddings_resume_after_a_kill_and_equal_an_uninterrupted_run(tmp_path):
    texts = [f"passage number {i}" for i in range(5)]
    settings = K.EmbeddingSettings(model="fake", chunk_size=2, fp16=False)
    with pytest.raises(KeyboardInterrupt):
        K.embed_passages(texts, FakeEncoder(die_at_call=2), settings, tmp_path / "run")
    assert len(list((tmp_path / "run").glob("*.npz"))) == 1 and not list((tmp_path / "run").glob("*.tmp*"))
    resumed = FakeEncoder()
    vectors, counts = K.embed_passages(texts, resumed, settings, tmp_path / "run")
    assert counts == {"loaded": 1, "encoded": 2} and resumed.calls == 2
    fresh, _ = K.embed_passages(texts, FakeEncoder(), settings, tmp_path / "fresh")
    np.testing.assert_array_equal(vectors, fresh)
    assert K.chunk_key(texts[:2], settings) != K.chunk_key(texts[:2], K.EmbeddingSettings(model="other", chunk_size=2))
    assert K.chunk_key(texts[:2], settings) != K.chunk_key(texts[:2], K.EmbeddingSettings(model="fake", chunk_size=2))
    half, _ = K.embed_passages(texts, FakeEncoder(), K.EmbeddingSettings(model="fake", chunk_size=2), tmp_path / "half")
    assert half.dtype == np.float32 and np.abs(half - fresh).max() < 1e-3  # stored as float16


def test_a_model_saved_again_into_its_folder_is_another_chunk_address(tmp_path):
    """A fine-tuned encoder saved over its folder reused the old model's vectors: top-1 agreed on half the claims."""
    (tmp_path / "m" / "1_Pooling").mkdir(parents=True)
    config = tmp_path / "m" / "1_Pooling" / "config.json"
    config.write_text('{"pooling_mode_mean_tokens": true}')
    MD.model_fingerprint.cache_clear()
    before = K.chunk_key(["a"], K.EmbeddingSettings(model=str(tmp_path / "m")))
    config.write_text('{"pooling_mode_cls_token": true}')
    MD.model_fingerprint.cache_clear()
    assert K.chunk_key(["a"], K.EmbeddingSettings(model=str(tmp_path / "m"))) != before


def test_dense_per_claim_is_the_exact_inner_product_top_k():
    rng = np.random.default_rng(0)
    docs = rng.normal(size=(50, 8)).astype(np.float32)
    queries = rng.normal(size=(3, 8)).astype(np.float32)
    rows, scores = K.dense_claim(docs, queries, depth=5)
    expected = np.argsort(-(queries @ docs.T), axis=1, kind="stable")[:, :5]
    np.testing.assert_array_equal(rows, expected)
    np.testing.assert_allclose(scores, np.take_along_axis(queries @ docs.T, expected, axis=1), rtol=1e-5)


def test_top_k_sorts_only_candidates_and_agrees_with_a_full_sort():
    rng = np.random.default_rng(3)
    for scores in (rng.integers(0, 4, 200).astype(float), rng.normal(size=300), np.zeros(5), np.array([1.0])):
        full = np.lexsort((np.arange(len(scores)), -np.round(scores, 9)))
        for k in (1, 3, 100, 1000):
            np.testing.assert_array_equal(K.top_k(scores, k), full[:k])
    assert K.top_k(np.array([1.0, 1.0 + 1e-12, 0.5]), 2).tolist() == [0, 1]  # float noise does not reorder


def test_dense_retrieval_over_a_store_is_exact_and_resumes_from_its_saved_vectors(synthetic, tmp_path):
    """The bundled MiniLM on two claims: the runs equal a numpy inner-product ranking of the same vectors,
    and a second run encodes nothing (every chunk of passage vectors is loaded)."""
    from lib import models as MD
    from lib.store import passages as PS

    store, plan = synthetic
    plan = {cid: plan[cid] for cid in (0, 1)}
    settings = K.EmbeddingSettings("all-MiniLM-L6-v2", 32, "cpu", fp16=False, chunk_size=64, max_seq_length=64)
    runs, stats = K.retrieve_store(store, plan, depth=5, dense=settings, emb_dir=tmp_path / "emb")
    assert stats["chunks_encoded"].tolist() == [4, 4] and stats["chunks_loaded"].tolist() == [0, 0]  # 200 passages
    again, stats2 = K.retrieve_store(store, plan, depth=5, dense=settings, emb_dir=tmp_path / "emb")
    assert stats2["chunks_encoded"].tolist() == [0, 0] and parquet_bytes(again) == parquet_bytes(runs)
    encoder = MD.load_encoder("all-MiniLM-L6-v2", "cpu", 64)
    files = KS.claim_files(store)
    passages = PS.claim_passages(store, 0, files[0])
    scores = (
        MD.encode(encoder, plan[0], progress=False) @ MD.encode(encoder, PS.indexed_texts(passages), progress=False).T
    )
    first = runs[(runs["claim_id"] == 0) & (runs["query_index"] == 0)]
    expected = passages.iloc[
        np.argsort(-scores[0], kind="stable")[:5]
    ]  # a store repeats sentences: ties, lower row first
    assert (
        first["position"].tolist() == expected["position"].tolist()
        and first["line"].tolist() == expected["line"].tolist()
    )
    np.testing.assert_allclose(first["score"], np.sort(scores[0])[::-1][:5], atol=1e-5)
    with pytest.raises(ValueError, match="needs emb_dir"):
        K.retrieve_store(store, plan, depth=5, dense=settings)


def test_the_retrieve_command_ends_a_bad_store_with_one_named_line(tmp_path):
    import subprocess
    import sys

    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "0.json").write_text('{"url": 5}\n')
    (tmp_path / "plan.jsonl").write_text('{"claim_id": 0, "queries": ["q"]}\n')
    args = ["--plan", str(tmp_path / "plan.jsonl"), "--out", str(tmp_path / "out")]
    for store, named in [
        ("store", "0.json: record at line 1: field 'url': expected str"),
        ("nope", "no such knowledge"),
    ]:
        proc = subprocess.run(
            [sys.executable, "-m", "lib.retrieval.per_claim", "retrieve", "--store", str(tmp_path / store), *args],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 1 and "Traceback" not in proc.stderr
        assert proc.stderr.strip().splitlines()[-1].startswith("error: ") and named in proc.stderr


def test_an_unreachable_ray_address_is_named_within_the_bound():
    import socket
    import time

    with socket.socket() as closed:  # a port nobody listens on: bind, then close
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    start = time.perf_counter()
    with pytest.raises(C.ComputeError, match=rf"Ray cluster at 'ray://127.0.0.1:{port}' did not answer within 2 s"):
        C.check_reachable(f"ray://127.0.0.1:{port}", timeout_s=2)
    assert time.perf_counter() - start < 2.5
    with pytest.raises(C.ComputeError, match="expected \\[ray://\\]host:port"):
        C.check_reachable("ray://nohost")
    with socket.socket() as server:  # something answers: no error
        server.bind(("127.0.0.1", 0))
        server.listen()
        C.check_reachable(f"127.0.0.1:{server.getsockname()[1]}", timeout_s=2)
    with pytest.raises(C.ComputeError, match="did not answer"):
        C.map_claims(abs, [1], C.ComputeSettings(backend="ray", address=f"127.0.0.1:{port}"))


def test_a_ray_address_that_answers_but_never_connects_or_fails_is_one_named_line():
    """A port answered by an HTTP server kept `ray.init` waiting for good (330 s and on); a cluster that
    refused ended in Ray's RuntimeError traceback."""
    import threading
    import time

    class FakeRay:
        def __init__(self, behaviour):
            self.behaviour, self.thread = behaviour, None

        def init(self, **kwargs):
            self.thread = threading.current_thread()
            if self.behaviour == "hang":
                time.sleep(60)
            if self.behaviour == "fail":
                raise RuntimeError("Failed to connect to GCS.\nmany more lines")

    start = time.perf_counter()
    with pytest.raises(C.ComputeError, match=r"Ray cluster at 'h:1' did not connect within 0.5 s \(a port that"):
        C._connect(FakeRay("hang"), "h:1", timeout_s=0.5)
    assert time.perf_counter() - start < 2
    with pytest.raises(C.ComputeError) as err:
        C._connect(FakeRay("fail"), "h:1", timeout_s=5)
    assert str(err.value) == (
        "the Ray cluster at 'h:1' could not be used (RuntimeError: Failed to connect to GCS.); "
        "check compute.address or $RAY_ADDRESS, and whether the cluster wants an authentication token "
        "(Ray starts clusters with token authentication unless RAY_AUTH_MODE=disabled)"
    )
    ok = FakeRay("ok")
    C._connect(ok, "h:1", timeout_s=5)
    assert ok.thread is not threading.main_thread()  # Ray leaves the command's signal handlers alone there


def test_a_local_ray_start_keeps_the_commands_signal_handlers_and_passes_a_signal_on():
    """Ray's own SIGTERM handler (set while it starts) exited with status 15 and left its agents running."""
    import signal

    seen = []

    def ours(signum, frame):
        seen.append(signum)

    class FakeRay:
        def __init__(self, stop=None):
            self.stop = stop

        def init(self, **kwargs):
            signal.signal(signal.SIGTERM, lambda s, f: None)  # as Ray does
            if self.stop is not None:
                raise self.stop

    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        signal.signal(signal.SIGTERM, ours)
        signal.signal(signal.SIGINT, ours)
        C._start_local(FakeRay(), 2)
        assert signal.getsignal(signal.SIGTERM) is ours and seen == []
        with pytest.raises(SystemExit):
            C._start_local(FakeRay(SystemExit(signal.SIGTERM)), 2)
        with pytest.raises(KeyboardInterrupt):
            C._start_local(FakeRay(KeyboardInterrupt()), 2)
        assert seen == [signal.SIGTERM, signal.SIGINT] and signal.getsignal(signal.SIGTERM) is ours
        # a node that timed out while starting was a 34-line traceback
        with pytest.raises(C.ComputeError, match=r"a local Ray instance could not start \(Exception: The current"):
            C._start_local(FakeRay(Exception("The current node timed out during startup")), 2)
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def test_ray_tasks_that_never_finish_are_named_and_rays_sigterm_handler_is_replaced(monkeypatch):
    """Workers that died as they started left the command at 0 of N for good; once tasks ran, Ray's core
    worker held SIGTERM (a stack dump, status 134, its workers orphaned)."""
    import signal

    def rays(signum, frame):
        pass

    class FakeRay:
        def remote(self, **kwargs):
            return lambda fn: type("Task", (), {"remote": staticmethod(lambda item: item)})

        def wait(self, pending, num_returns, timeout):
            held.append(signal.getsignal(signal.SIGTERM) is ours)
            signal.signal(signal.SIGTERM, rays)  # as Ray's core worker does once tasks run
            return [], pending

    ours, held = (lambda s, f: None), []
    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(C, "_ray", lambda settings: FakeRay())
    monkeypatch.setattr(C, "RAY_STALL_S", 0.3)
    monkeypatch.setattr(C, "WAKE_SECONDS", 0.05)
    try:
        signal.signal(signal.SIGTERM, ours)
        with pytest.raises(C.ComputeError, match=r"no Ray task finished in 0.3 s \(3 of 3 claims left\): its workers"):
            C.map_claims(abs, [1, 2, 3], C.ComputeSettings(backend="ray"))
        assert len(held) > 2 and all(held)  # each wait began with the command's handler again
    finally:
        signal.signal(signal.SIGTERM, before)
    with pytest.raises(C.ComputeError, match=r"a port from 1 to 65535"):
        C.check_reachable("127.0.0.1:99999")


def test_the_ray_client_form_without_the_client_installed_says_what_to_install(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "grpc" else real(name, *a))
    with pytest.raises(C.ComputeError, match=r"the ray:// form needs Ray's client \(pip install 'ray\[client\]'\)"):
        C.map_claims(abs, [1], C.ComputeSettings(backend="ray", address="ray://127.0.0.1:1"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["synth", "--out", "x", "--claims", "-1"],
            "argument --claims: Input should be greater than or equal to 1, got '-1'",
        ),
        (["synth", "--out", "x", "--claims", "0"], "argument --claims: Input should be greater than or equal to 1"),
        (["synth", "--out", "x", "--pages", "1.5"], "argument --pages: Input should be a valid integer"),
        (
            ["retrieve", "--store", "s", "--plan", "p", "--out", "o", "--depth", "-5"],
            "argument --depth: Input should be greater than or equal to 1 (as the setting retrieval.depth), got '-5'",
        ),
        (["retrieve", "--store", "s", "--plan", "p", "--out", "o", "--depth", "0"], "(as the setting retrieval.depth)"),
        (["retrieve", "--store", "s", "--plan", "p", "--out", "o", "--chunk-chars", "0"], "argument --chunk-chars"),
        (
            ["retrieve", "--store", "s", "--plan", "p", "--out", "o", "--workers", "0"],
            "(as the setting compute.workers)",
        ),
        (
            ["retrieve", "--store", "s", "--plan", "p", "--out", "o", "--batch-size", "x"],
            "(as the setting retrieval.batch_size)",
        ),
    ],
)
def test_a_count_below_one_is_refused_not_an_empty_result(args, message, capsys):
    """Each flag is read by the same type as its parameter in the params schema (`lib.params.flag`)."""
    with pytest.raises(SystemExit) as end:
        K.main(args)
    assert end.value.code == 2 and message in capsys.readouterr().err


def test_the_runs_are_never_written_over_an_input_and_a_range_outside_the_plan_is_named(tiny_study, tmp_path):
    from lib.cli import NamedError

    plan = tmp_path / "plan.jsonl"
    plan.write_text('{"claim_id": 0, "queries": ["a"]}\n{"claim_id": 1, "queries": ["b"]}\n')
    store = tmp_path / "store"
    K.synthesise(store, ["some text here"], 2, 2, 2, 0)
    for out in (plan, store / "0.json"):
        with pytest.raises(NamedError, match="is also an input of this command"):
            K.main(["retrieve", "--store", str(store), "--plan", str(plan), "--out", str(out)])
    assert plan.read_text().startswith('{"claim_id": 0')
    with pytest.raises(
        NamedError, match=r"--first 5 --last 9: no claim of .* lies in that range \(it plans claims 0 to 1\)"
    ):
        K.main(
            [
                "retrieve",
                "--store",
                str(store),
                "--plan",
                str(plan),
                "--out",
                str(tmp_path / "r.parquet"),
                "--first",
                "5",
                "--last",
                "9",
            ]
        )
    with pytest.raises(NamedError, match="is also an input"):
        K.main(["synth", "--out", str(tiny_study), "--store-dir", str(tiny_study / "store")])
    plan.write_text('{"claim_id": 0, "queries": []}\n{"claim_id": 1, "queries": []}\n')
    with pytest.raises(NamedError, match="every claim it plans in that range has an empty list of queries"):
        K.main(["retrieve", "--store", str(store), "--plan", str(plan), "--out", str(tmp_path / "e.parquet")])
    assert not (tmp_path / "e.parquet").exists()
    for query in (" \\t", "???", "\\u200b"):  # no word BM25 can match: the store's order passed for a ranking
        plan.write_text(f'{{"claim_id": 0, "queries": ["moon"]}}\n{{"claim_id": 1, "queries": ["moon", "{query}"]}}\n')
        with pytest.raises(
            NamedError, match=r"record of claim 1: field 'queries\[1\]': a query with no word to search"
        ):
            K.main(["retrieve", "--store", str(store), "--plan", str(plan), "--out", str(tmp_path / "e.parquet")])
    plan.write_text('{"claim_id": 0, "queries": []}\n{"claim_id": 1, "queries": ["moon"]}\n')
    with pytest.raises(
        NamedError, match=r"1 claim\(s\) it plans in that range have an empty list of queries \(first: \[0\]\)"
    ):
        K.main(["retrieve", "--store", str(store), "--plan", str(plan), "--out", str(tmp_path / "e.parquet")])
    assert not (tmp_path / "e.parquet").exists()


def _dies_on_two(x: int) -> int:
    import os
    import signal

    if x == 2:
        os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer or a stray `kill -9` would
    return x * 10


def _dies(_bounds) -> None:
    _dies_on_two(2)


def test_a_worker_that_dies_ends_the_command_with_a_named_error_never_a_hang():
    """multiprocessing.Pool waited forever for the task of a killed worker (the METEOR scorer, the runs)."""
    assert list(C.forked_map(_dies_on_two, [0, 1, 3], 2, "toy")) == [0, 10, 30]
    with pytest.raises(C.ComputeError, match=r"toy: a worker process died \(killed, or out of memory\?\)"):
        list(C.forked_map(_dies_on_two, [0, 1, 2, 3], 2, "toy"))


def _own_pid(_x) -> int:
    import time

    time.sleep(0.05)  # long enough that every worker of the pool takes some item
    return os.getpid()


def test_workers_beyond_the_cpus_here_are_not_forked(monkeypatch, capsys):
    """`--workers 10000` on a 2-core machine forked ten thousand copies of the command."""
    monkeypatch.setattr(C, "usable_cpus", lambda: 2)
    assert len(set(C.forked_map(_own_pid, range(40), 10_000, "toy"))) <= 2
    assert capsys.readouterr().err == "note: toy: 10000 workers asked for, 2 CPU(s) here: running 2\n"


def test_the_scorer_with_a_killed_worker_says_so(monkeypatch):
    from lib.averitec import scoring as SC

    monkeypatch.setattr(SC, "_score_chunk", _dies)
    refs = [SC.Evidence("Supported", ("q",), ("q a",))] * 8
    with pytest.raises(C.ComputeError, match="METEOR scoring: a worker process died"):
        SC.evidence_scores(refs, refs, jobs=2)


def test_a_cache_folder_inside_data_or_inside_the_store_is_refused(tmp_path, monkeypatch):
    """`--index-dir data/idx` wrote 20 files into data/; `--index-dir <store>` into the store it read."""
    from lib.cli import NamedError
    from lib.paths import DATA_DIR, ROOT

    store = tmp_path / "store"
    K.synthesise(store, ["some text here"], 2, 2, 2, 0)
    plan = tmp_path / "plan.jsonl"
    plan.write_text('{"claim_id": 0, "queries": ["a"]}\n')
    base = ["retrieve", "--store", str(store), "--plan", str(plan), "--out", str(tmp_path / "r.parquet")]
    for flag, folder, where in (
        ("--index-dir", DATA_DIR / "idx", "lies inside data/"),
        ("--index-dir", store, "is also an input of this command"),
        ("--emb-dir", store / "emb", "is also an input of this command"),
    ):
        with pytest.raises(NamedError, match=f"{folder}: {where}"):
            K.main([*base, flag, str(folder)])
    assert not (DATA_DIR / "idx").exists() and sorted(p.name for p in store.iterdir()) == ["0.json", "1.json"]
    with pytest.raises(NamedError, match="plan.jsonl: is a file; expected the path of a folder"):  # before any work
        K.main([*base, "--index-dir", str(plan)])
    monkeypatch.chdir(ROOT)  # where dvc.yaml is
    with pytest.raises(NamedError, match="the output of stage `plans` "):  # DVC would delete the cache
        K.main([*base, "--index-dir", "outputs/plans/idx"])
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    os.mkfifo(tmp_path / "fifo.parquet")  # the parquet writer waited in open(), deaf to SIGTERM
    with pytest.raises(NamedError, match="fifo.parquet: not a regular file"):
        K.main([*base[:-1], str(tmp_path / "fifo.parquet")])
    with pytest.raises(NamedError, match="gone: is a link to"):  # before any work, not when the first index is saved
        K.main([*base, "--index-dir", str(tmp_path / "gone")])
    with pytest.raises(SystemExit) as stop:  # "" would be the working folder
        K.main([*base, "--emb-dir", ""])
    assert stop.value.code == 2
    plan.write_text("")
    with pytest.raises(NamedError, match="plan.jsonl: the plan names no claim"):  # not "--first None --last None"
        K.main(base)


def test_a_claim_without_text_gets_an_empty_run_and_other_digits_are_no_claim_ids(tmp_path):
    """A claim whose file is empty or whose pages have no text ended in BM25's traceback; '١.json' was claim 1."""
    store = tmp_path / "store"
    K.synthesise(store, ["some text here", "more words there"], 3, 2, 2, 0)
    (store / "1.json").write_text("")
    (store / "2.json").write_text('{"url": "u", "url2text": []}\n')
    (store / "\u0661.json").write_text('{"url": "u", "url2text": ["x"]}\n')
    plan = tmp_path / "plan.jsonl"
    plan.write_text("".join(f'{{"claim_id": {i}, "queries": ["text"]}}\n' for i in range(3)))
    out = tmp_path / "r.parquet"
    K.main(["retrieve", "--store", str(store), "--plan", str(plan), "--out", str(out)])
    runs = pd.read_parquet(out)
    assert set(runs["claim_id"]) == {0}  # claims 1 and 2 have nothing to rank
    from lib.data import knowledge_store as KSD

    assert sorted(KSD.claim_files(store)) == [0, 1, 2]


def test_a_synthetic_store_is_bounded_and_an_empty_model_refused(tmp_path, capsys):
    """`synth --claims 100000000` filled memory before a page was written; `retrieve --model ""` (an unset
    variable) used the default encoder silently."""
    with pytest.raises(
        NamedError, match=r"--claims 100000000 x --pages 2 x --sentences 2: 400,000,000 sentences, over"
    ):
        K.main(["synth", "--out", str(tmp_path / "s"), "--claims", "100000000", "--pages", "2", "--sentences", "2"])
    assert not (tmp_path / "s").exists()
    with pytest.raises(SystemExit) as end:
        K.main(["retrieve", "--store", "x", "--plan", "p", "--out", "o.parquet", "--model", ""])
    assert end.value.code == 2 and "--model: an empty path" in capsys.readouterr().err


def test_a_synthetic_store_with_gold_has_no_claim_past_the_dev_set(tmp_path, monkeypatch, tiny_store, fixture_data):
    """`synth --gold --claims 600` wrote claims 500 to 599 without gold, as if the dev set had them."""
    monkeypatch.setattr(K, "load_store", lambda _folder: tiny_store)
    args = ["synth", "--out", str(tmp_path / "s"), "--gold", "--data-dir", str(fixture_data)]
    with pytest.raises(NamedError, match=r"--claims 4 with --gold: the dev set has 3 claims"):
        K.main([*args, "--claims", "4"])
    assert not (tmp_path / "s").exists()
    K.main([*args, "--claims", "3", "--pages", "1", "--sentences", "1"])
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["0.json", "1.json", "2.json"]


def test_a_device_this_machine_lacks_is_refused_at_the_flag_for_bm25_too(tmp_path):
    """`--device cuda` on a machine without one ran a BM25 retrieval (no model loads) and exited 0."""
    import torch

    from lib.retrieval import runs as RU

    if torch.cuda.device_count() > 7:
        pytest.skip("this machine has a cuda:7")
    out = tmp_path / "o.parquet"
    args = ["retrieve", "--store", str(tmp_path), "--plan", str(tmp_path / "p.jsonl"), "--out", str(out)]
    with pytest.raises(NamedError, match="device 'cuda:7': this machine has"):
        K.main([*args, "--device", "cuda:7"])
    with pytest.raises(NamedError, match="device 'cuda:7': this machine has"):
        RU.main(["--device", "cuda:7", "retrieve"])


def test_another_store_or_data_folder_writes_only_where_named(tmp_path):
    """The forty-eighth pass: `lib.retrieval.runs --store-dir OTHER` wrote the study's outputs/embeddings and
    outputs/runs (which the notebooks read) with another store's numbers."""
    from lib.paths import DATA_DIR, OUTPUTS_DIR, STORE_DIR
    from lib.retrieval import runs as RU

    with pytest.raises(NamedError, match=rf"--store-dir {tmp_path}: not the study's own; its outputs/embeddings and "):
        RU.main(["retrieve", "--store-dir", str(tmp_path)])
    with pytest.raises(NamedError, match=rf"--store-dir {tmp_path} and --data-dir {tmp_path}: not the study's own"):
        RU.main(["embed-documents", "--store-dir", str(tmp_path), "--data-dir", str(tmp_path)])
    with pytest.raises(NamedError, match="lies inside data/, the study's data kept by DVC"):
        RU.output_root(str(DATA_DIR / "x"), str(tmp_path), str(tmp_path / "d"))
    with pytest.raises(NamedError, match="is also an input of this command"):
        RU.output_root(str(tmp_path / "store"), str(tmp_path), str(DATA_DIR))
    assert RU.output_root(None, str(STORE_DIR), str(DATA_DIR)) == OUTPUTS_DIR
    assert RU.output_root(str(tmp_path / "o"), str(tmp_path / "s"), str(DATA_DIR)) == tmp_path / "o"


def test_a_pipe_or_a_folder_at_a_cache_address_is_named_never_opened(tmp_path):
    """A FIFO at a saved index's address hung `per_claim retrieve` at 0 of 5 claims."""
    os.mkfifo(tmp_path / "index.npz")
    (tmp_path / "vectors.npz").mkdir()
    with pytest.raises(NamedError, match=r"index.npz: not a regular file .*; remove it and run again"):
        K._saved_index(tmp_path / "index.npz", "key")
    with pytest.raises(NamedError, match=r"vectors.npz: not a regular file"):
        K._saved_chunk(tmp_path / "vectors.npz", 3, "key")


def test_per_claim_top_k_keeps_scores_too_large_to_round():
    """The thirty-ninth pass: `np.round(scores, 9)` overflowed to inf past ~1.8e299, and top_k left the best
    passage out (k = 3 of three passages returned one)."""
    assert K.top_k(np.array([1e300, 5.0]), 1).tolist() == [0]
    assert K.top_k(np.array([1e300, 1e300, 5.0]), 3).tolist() == [0, 1, 2]
    assert K.top_k(np.array([0.3000000000001, 0.3, 0.1]), 2).tolist() == [0, 1]  # noise still ties: lower row first


def test_runs_from_another_parameter_file_go_only_into_a_named_folder(tmp_path):
    """The forty-ninth pass: `lib.retrieval.runs retrieve --params OTHER` replaced the study's runs (k1 = 0.1)."""
    import re

    from lib.paths import DATA_DIR, OUTPUTS_DIR, PARAMS_FILE, STORE_DIR
    from lib.retrieval import runs as RU

    other = tmp_path / "p.yaml"
    other.write_text(PARAMS_FILE.read_text())
    with pytest.raises(
        NamedError, match=rf"--params {re.escape(str(other))}: not the study's own; its outputs/embeddings"
    ):
        RU.main(["retrieve", "--params", str(other)])
    assert RU.output_root(None, str(STORE_DIR), str(DATA_DIR), None) == OUTPUTS_DIR


def test_runs_from_another_params_file_need_its_own_plans(tmp_path, monkeypatch):
    """The fiftieth pass (O 8, O 3): `runs --params OTHER --out-dir X` read the study's plans whatever OTHER's
    `planners` section said; the kernel's parameter file passed as the study's own."""
    from lib.cli import NamedError
    from lib.params import KERNEL_PARAMS_ENV
    from lib.paths import DATA_DIR, PARAMS_FILE, STORE_DIR
    from lib.retrieval import runs as RU

    same, other = tmp_path / "same.yaml", tmp_path / "other.yaml"
    same.write_text(PARAMS_FILE.read_text())
    other.write_text(PARAMS_FILE.read_text().replace("    max_queries: 8 ", "    max_queries: 2 ", 1))
    assert RU.output_root(str(tmp_path / "o"), str(STORE_DIR), str(DATA_DIR), str(same)) == tmp_path / "o"
    with pytest.raises(NamedError, match=r"its `planners` section is not the study's.*give --plans-dir FOLDER"):
        RU.output_root(str(tmp_path / "o"), str(STORE_DIR), str(DATA_DIR), str(other))
    plans = tmp_path / "plans"
    plans.mkdir()
    assert RU.output_root(str(tmp_path / "o"), str(STORE_DIR), str(DATA_DIR), str(other), str(plans)) == tmp_path / "o"
    monkeypatch.setenv(KERNEL_PARAMS_ENV, str(same))
    with pytest.raises(NamedError, match=r"\$STUDY_KERNEL_PARAMS .*same\.yaml: not the study's own"):
        RU.output_root(None, str(STORE_DIR), str(DATA_DIR), None)


def test_runs_name_a_bad_params_file_and_another_data_folders_plans(tmp_path):
    """The fiftieth pass, Q 4, Q 6, Q 7, Q 9."""
    from conftest import FIXTURE_DATA

    from lib.cli import NamedError
    from lib.params import ParamsError
    from lib.paths import DATA_DIR, STORE_DIR
    from lib.retrieval import runs as RU

    (tmp_path / "list.yaml").write_text("- a\n")
    (tmp_path / "empty.yaml").write_text("")
    for name in ("list.yaml", "empty.yaml"):
        with pytest.raises(ParamsError):
            RU.output_root(str(tmp_path / "o"), str(STORE_DIR), str(DATA_DIR), str(tmp_path / name))
    with pytest.raises(
        NamedError, match=r"--data-dir \S+: the study's plans \(outputs/plans\) are of the claims in data/"
    ):
        RU.output_root(str(tmp_path / "o"), str(STORE_DIR), str(FIXTURE_DATA), None)
    (tmp_path / "plans").mkdir()
    assert RU.output_root(str(tmp_path / "o"), str(STORE_DIR), str(FIXTURE_DATA), None, str(tmp_path / "plans"))
    with pytest.raises(
        FileNotFoundError, match=r"make it with `python -m lib.planning.planners --params FILE --out-dir"
    ):
        RU.load_plans(["claim_only"], tmp_path / "plans")
    with pytest.raises(FileNotFoundError, match="rerun stage generative_plans"):
        RU.load_plans(["qgen"], tmp_path / "plans", "rerun stage generative_plans")


def test_runs_take_their_default_folder_named():
    """The fiftieth pass (O 6): `runs --out-dir outputs` with the study's inputs was refused as "also an input"."""
    from lib.paths import DATA_DIR, OUTPUTS_DIR, STORE_DIR
    from lib.retrieval import runs as RU

    assert RU.output_root(str(OUTPUTS_DIR), str(STORE_DIR), str(DATA_DIR)) == OUTPUTS_DIR
    assert RU.output_root("outputs", str(STORE_DIR), str(DATA_DIR)) == OUTPUTS_DIR
