"""lib.profiles: profile files, params overrides, data subsets and the workspace a profile runs in."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from lib import profiles as PR
from lib import schema as SCH
from lib.data.checksums import verify_checksums
from lib.params import section
from lib.paths import DATA_DIR


def test_the_classroom_profile_applies_to_the_committed_params():
    profile = PR.load_profile("classroom")
    params = SCH.load_params()
    PR.merge(params, profile["params"])
    params["profile"] = {"name": "classroom", "note": profile["note"]}
    assert SCH.check(params)["nli_averitec"]["classifier"]["epochs"] == 3  # one did not learn
    assert all((DATA_DIR / key).exists() for key in profile["data"])


def test_the_synthetic_store_profile_reads_a_knowledge_store():
    profile = PR.load_profile("synthetic_store")
    params = SCH.load_params()
    PR.merge(params, profile["params"])
    params["profile"] = {"name": "synthetic_store", "note": profile["note"]}
    assert SCH.check(params)["store"]["source"] == "knowledge_store"
    assert profile["synthetic_store"]["claims"] == profile["data"]["averitec/dev.json"]  # a store file per dev claim


@pytest.mark.parametrize("name", ["classroom", "synthetic_store"])
def test_a_profile_note_states_the_resamples_of_every_bootstrap_set_in_params(name):
    profile = PR.load_profile(name)
    params = SCH.load_params()
    PR.merge(params, profile["params"])
    stated = {int(n.replace(",", "")) for n in re.findall(r"([\d,]+) resamples", profile["note"])}
    used = {s: p["n_resamples"] for s, p in params.items() if isinstance(p, dict) and "n_resamples" in p}
    assert len(stated) == 1 and len(used) == 6 and set(used.values()) == stated, used


def test_a_profile_writes_its_synthetic_store_where_the_store_stage_reads_it(tmp_path):
    import shutil

    from conftest import FIXTURE_DATA

    from lib.store import build as S

    work = tmp_path / "work"
    shutil.copytree(FIXTURE_DATA, work / "data")
    store_params = {**section("store"), "systems": {"sys_a": "sys_a.jsonl", "sys_b": "sys_b.json"}}
    spec = {"claims": 3, "pages": 2, "sentences": 4, "seed": 0, "gold": True}
    out = PR.write_synthetic_store(work, spec, store_params)
    assert out == work / "data" / "averitec" / "knowledge_store" / "dev"
    assert sorted(p.name for p in out.iterdir()) == ["0.json", "1.json", "2.json"]
    first = json.loads((out / "0.json").read_text().splitlines()[0])
    assert (
        first["url"].endswith("https://www.nasa.gov/moon/")
        and "The moon is made of rock and dust." in first["url2text"]
    )
    settings = S.StoreSettings.model_validate({**store_params, "source": "knowledge_store"})
    store = S.build_store(settings, work / "data")
    assert store.report["knowledge_store"]["pages"] == 6 and {1, 2} <= set(store.qrels["grade"])


def test_merge_replaces_leaves_and_rejects_unknown_keys():
    base = {"a": {"b": 1, "c": [1, 2]}, "d": None}
    PR.merge(base, {"a": {"c": [3]}, "d": 4})
    assert base == {"a": {"b": 1, "c": [3]}, "d": 4}
    with pytest.raises(PR.ProfileError, match=r"params\.a\.x: no such key"):
        PR.merge(base, {"a": {"x": 1}})
    with pytest.raises(PR.ProfileError, match=r"params\.d: params.yaml has a single value"):
        PR.merge(base, {"d": {"e": 1}})


@pytest.mark.parametrize(
    "text, problem",
    [
        ("data: {}\n", "note: expected a sentence"),
        ("note: x\nparams: [1]\n", "params: expected a mapping"),
        ("note: x\ndata: {a.json: 0}\n", "data.a.json: expected a number of records >= 1, got 0"),
        ("note: x\ndata:\n  1: 5\n", "data.1: expected a path under data/ (text), got 1"),  # a traceback
        ("note: x\ndata:\n  null: 5\n", "data.None: expected a path under data/ (text), got None"),
        ("note: x\ndata: {a.json: true}\n", "data.a.json: expected a number of records"),
        ("note: x\nextra: 1\n", "unknown keys ['extra']"),
        ("- 1\n", "expected a mapping"),
        ("note: x\ndata: [a.json]\n", "data: expected a mapping of data files"),
        # the forty-eighth pass: a falsy value was read as no cut / no override
        ("note: x\ndata: false\n", "data: expected a mapping of data files to numbers of records, got False"),
        ("note: x\ndata: 0\n", "data: expected a mapping of data files to numbers of records, got 0"),
        ("note: x\nparams: ''\n", "params: expected a mapping of params.yaml sections, got ''"),
        ("note: x\nparams: []\n", "params: expected a mapping of params.yaml sections, got []"),
        ("note: x\nsynthetic_store: {claims: 2}\n", "synthetic_store: expected exactly the keys"),
        (
            "note: x\nsynthetic_store: {claims: 0, pages: 1, sentences: 1, seed: 0, gold: true}\n",
            "synthetic_store.claims: expected an integer >= 1, got 0",
        ),
        (
            "note: x\nsynthetic_store: {claims: 1, pages: 1, sentences: 1, seed: 0, gold: yes please}\n",
            "synthetic_store.gold: expected true or false",
        ),
    ],
)
def test_bad_profile_files_are_named_errors(tmp_path, text, problem):
    (tmp_path / "p.yaml").write_text(text)
    with pytest.raises(PR.ProfileError, match="p.yaml: ") as err:
        PR.load_profile("p", tmp_path)
    assert problem in str(err.value)


def test_unknown_and_study_profiles_are_errors(tmp_path):
    with pytest.raises(PR.ProfileError, match="no such profile"):
        PR.load_profile("nope", tmp_path)
    with pytest.raises(PR.ProfileError, match="params.yaml itself"):
        PR.load_profile("study", tmp_path)
    with pytest.raises(PR.ProfileError, match="profile name '../x'"):
        PR.load_profile("../x", tmp_path)


def test_subset_keeps_claims_by_id_or_position_in_the_same_format(tmp_path):
    by_id = tmp_path / "a.json"
    by_id.write_text(json.dumps([{"claim_id": 2}, {"claim_id": 0}, {"claim_id": 5}, {"claim_id": 1}]))
    assert json.loads(PR.subset(by_id, 3)) == [{"claim_id": 2}, {"claim_id": 0}, {"claim_id": 1}]
    lines = tmp_path / "b.json"  # JSON lines under a .json name, as some published files are
    lines.write_text('{"claim_id": 1}\n{"claim_id": 4}\n{"claim_id": 0}\n')
    assert PR.subset(lines, 2) == '{"claim_id": 1}\n{"claim_id": 0}\n'
    positional = tmp_path / "c.json"
    positional.write_text(json.dumps([{"claim": "x"}, {"claim": "y"}, {"claim": "z"}]))
    assert json.loads(PR.subset(positional, 2)) == [{"claim": "x"}, {"claim": "y"}]
    bad = tmp_path / "d.csv"
    bad.write_text("id,claim\n1,x\n")
    with pytest.raises(PR.ProfileError, match="d.csv: cannot keep 1 records"):
        PR.subset(bad, 1)


@pytest.mark.parametrize("name", ["classroom", "synthetic_store"])
def test_every_committed_profile_cuts_the_real_data(tmp_path, monkeypatch, name):
    """`averitec/systems: 60` applies to each file of the folder as far as it goes: the refusal of a count
    past a file stopped `make all PROFILE=classroom` at the systems' two-claim sample."""
    root = tmp_path / "study"
    shutil.copytree(DATA_DIR, root / "data")
    shutil.copytree(PR.ROOT / "profiles", root / "profiles")
    shutil.copy(PR.ROOT / "params.yaml", root / "params.yaml")
    monkeypatch.setattr(PR, "checkout_files", lambda root: [])
    monkeypatch.setattr(PR, "commit_workspace", lambda *a, **k: True)
    monkeypatch.setattr(PR, "write_synthetic_store", lambda *a, **k: None)  # its own test builds one
    work = PR.prepare(name, root=root)
    dev = json.loads((work / "data" / "averitec" / "dev.json").read_text())
    sample = work / "data" / "averitec" / "systems" / "baseline_dev_bm25_top100_sample.json"
    assert len(dev) == PR.load_profile(name, root / "profiles")["data"]["averitec/dev.json"]
    assert sample.read_bytes() == PR.subset(DATA_DIR / sample.relative_to(work / "data"), 2).encode()


def test_subset_refuses_a_count_past_the_file(tmp_path):
    """`averitec/dev.json: 600` kept the whole 500-claim file under a note that said 600."""
    by_id = tmp_path / "a.json"
    by_id.write_text(json.dumps([{"claim_id": 2}, {"claim_id": 0}, {"claim_id": 1}]))
    assert len(json.loads(PR.subset(by_id, 3))) == 3  # exactly the file: kept whole
    with pytest.raises(PR.ProfileError, match=r"a.json: cannot keep 4 records: it holds claims 0 to 2; lower"):
        PR.subset(by_id, 4)
    positional = tmp_path / "c.json"
    positional.write_text(json.dumps([{"claim": "x"}, {"claim": "y"}]))
    with pytest.raises(PR.ProfileError, match=r"c.json: cannot keep 3 records: it holds 2 records"):
        PR.subset(positional, 3)
    assert PR.subset(positional, 3, whole=False) == PR.subset(positional, 2)  # a folder's count: as far as it goes


def test_subset_refuses_a_file_without_every_claim_it_keeps(tmp_path):
    """The thirty-seventh pass's leftover: claims 0, 5 and 10 with a count of 3 kept one claim under a profile
    that says three (a folder's files keep what they hold, as far as it goes)."""
    gaps = tmp_path / "a.json"
    gaps.write_text(json.dumps([{"claim_id": i} for i in (0, 5, 10)]))
    with pytest.raises(PR.ProfileError, match=r"^.*a.json: cannot keep claims 0 to 2: it has no record of claim 1, 2$"):
        PR.subset(gaps, 3)
    many = tmp_path / "b.json"
    many.write_text(json.dumps([{"claim_id": 20}]))
    with pytest.raises(PR.ProfileError, match=r"no record of claim 0, 1, 2, 3, 4 and 5 more$"):
        PR.subset(many, 10)
    huge = tmp_path / "h.json"  # the forty-first pass: set(range(n)) took gigabytes for a 44-byte file
    huge.write_text(json.dumps([{"claim_id": 0}, {"claim_id": 10**12}]))
    with pytest.raises(PR.ProfileError, match=r"no record of claim 1, 2, 3, 4, 5 and 199999994 more$"):
        PR.subset(huge, 200_000_000)
    assert json.loads(PR.subset(gaps, 3, whole=False)) == [{"claim_id": 0}]
    negative = tmp_path / "c.jsonl"  # the thirty-ninth pass: a count of 0 kept claim -1
    negative.write_text("".join(json.dumps({"claim_id": i}) + "\n" for i in (-1, 0, 1)))
    with pytest.raises(PR.ProfileError, match=r"c.jsonl: claim id -1: claim ids are positions in a split, 0 or more$"):
        PR.subset(negative, 1, whole=False)
    with pytest.raises(PR.ProfileError, match=r"cannot keep 0 records: expected a count of at least 1$"):
        PR.subset(gaps, 0, whole=False)  # the fortieth pass: a count of 0 or -1 kept nothing without a word


def test_prepare_writes_a_workspace_and_updates_it(tmp_path):
    root = tmp_path / "repo"
    (root / "lib").mkdir(parents=True)
    (root / "profiles").mkdir()
    (root / "data" / "averitec").mkdir(parents=True)
    (root / "lib" / "x.py").write_text("X = 1\n")
    (root / "dvc.lock").write_text("the study's lock\n")
    (root / ".gitignore").write_text("/data\n/workspaces/\n")
    (root / "params.yaml").write_text(
        'profile:\n  name: study\n  note: null\nllm:\n  mode: "off"   # kept a string\n  epochs: 2\n'
    )
    (root / "profiles" / "small.yaml").write_text(
        "note: Fewer.\ndata: {averitec/dev.json: 1}\nparams: {llm: {epochs: 1}}\n"
    )
    (root / "data" / "averitec" / "dev.json").write_text(json.dumps([{"claim": "a"}, {"claim": "b"}]))
    (root / "data" / "other.txt").write_text("as is\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "."], cwd=root, check=True)

    work = PR.prepare("small", root)
    assert work == root / "workspaces" / "small"
    assert (work / "lib" / "x.py").read_text() == "X = 1\n" and not (work / "dvc.lock").exists()
    assert json.loads((work / "data" / "averitec" / "dev.json").read_text()) == [{"claim": "a"}]
    assert (work / "data" / "other.txt").read_text() == "as is\n"
    params = yaml.safe_load((work / "params.yaml").read_text())  # YAML 1.1: an unquoted off would be False
    assert params == {"profile": {"name": "small", "note": "Fewer."}, "llm": {"mode": "off", "epochs": 1}}
    assert "# kept a string" in (work / "params.yaml").read_text()
    assert not (work / ".dvc" / "config.local").exists()  # DVC with git: `dvc exp run` works there
    log = lambda: subprocess.run(["git", "log", "--format=%s"], cwd=work, capture_output=True, text=True).stdout  # noqa: E731
    assert log() == "prepare the small profile\n"
    tracked = subprocess.run(["git", "ls-files"], cwd=work, capture_output=True, text=True).stdout.split()
    assert "params.yaml" in tracked and "lib/x.py" in tracked

    (root / "lib" / "x.py").unlink()  # a file removed from the checkout leaves the workspace too
    (root / "lib" / "y.py").write_text("Y = 2\n")
    (work / "outputs").mkdir()
    (work / "outputs" / "kept.txt").write_text("made by the workspace's pipeline\n")
    PR.prepare("small", root)
    assert not (work / "lib" / "x.py").exists() and (work / "lib" / "y.py").exists()
    assert (work / "outputs" / "kept.txt").exists()
    assert (work / ".git" / "HEAD").exists() and log().startswith("prepare the small profile\nprepare")
    assert PR.commit_workspace(work, "again") is False  # nothing changed since


def test_prepare_names_a_data_key_that_does_not_exist(tmp_path):
    root = tmp_path / "repo"
    (root / "profiles").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "params.yaml").write_text("profile: {name: study, note: null}\n")
    (root / "profiles" / "small.yaml").write_text("note: Fewer.\ndata: {averitec/dev.json: 1}\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    with pytest.raises(PR.ProfileError, match=r"small.yaml: data.averitec/dev.json: no such file"):
        PR.prepare("small", root)


def _metrics(tmp_path, name, files):
    d = tmp_path / name
    d.mkdir()
    for f, content in files.items():
        (d / f).write_text(json.dumps(content))
    return d


def test_calls_reads_signs_flags_directions_and_groups():
    metrics = {
        "effect": {"a": {"mean Δ": 0.1, "effect": "positive"}, "b": {"effect": "indistinguishable from 0"}},
        "against": {
            "x": {"delta_macro_f1": -0.2, "significant": True},
            "y": {"delta_macro_f1": 0.3, "significant": False},
        },
        "significant_vs_baseline": {"P": True, "Q": False},
        "top_group": {"s": ["B", "A"]},
        "settings": ["bm25", "dense"],  # a list, but not a group
        "label": "positive claims",  # a string, but not a sign
        "flag": True,  # a flag, but not under a key naming significance
    }
    assert dict(PR.calls(metrics)) == {
        "effect/a/effect": "positive",
        "effect/b/effect": "indistinguishable from 0",
        "against/x/significant": "negative",
        "against/y/significant": "indistinguishable from 0",
        "significant_vs_baseline/P": True,
        "significant_vs_baseline/Q": "indistinguishable from 0",
        "top_group/s": frozenset({"A", "B"}),
    }


def test_an_effects_interval_without_a_call_in_words_is_a_call_by_its_sign(tmp_path):
    """Notebook 09's Spearman intervals (`rho`, `low`, `high`) were no call: a profile that reversed them all
    was said to agree with the study."""
    metrics = {
        "spearman": {"a": {"rho": 0.16, "low": 0.11, "high": 0.2}, "b": {"rho": -0.3, "low": -0.4, "high": -0.1}},
        "drop": {"c": {"mean Δ": 0.01, "low": -0.02, "high": 0.03}},
        "worded": {"d": {"mean Δ": 0.1, "low": 0.05, "high": 0.2, "effect": "positive"}},  # its word, once
        "mean": {"e": {"ndcg": 0.4, "low": 0.3, "high": 0.5}},  # a level's interval, no effect
    }
    assert dict(PR.calls(metrics)) == {
        "spearman/a": "positive",
        "spearman/b": "negative",
        "drop/c": "indistinguishable from 0",
        "worded/d/effect": "positive",
    }
    study = _metrics(tmp_path, "s", {"utility.json": metrics, "plain.json": {"mean": 0.4}})
    flipped = {"spearman": {"a": {"rho": -0.16, "low": -0.2, "high": -0.11}}}
    diff = PR.compare_calls(study, _metrics(tmp_path, "p", {"utility.json": flipped}))
    assert diff[["key", "kind"]].values.tolist() == [["spearman/a", "opposite"]]
    assert PR.files_without_calls(study) == ["plain.json"]


def test_compare_calls_sorts_differences_by_kind_and_says_what_they_mean(tmp_path):
    study = {
        "e": {"a": "positive", "b": "negative", "c": "positive", "d": "indistinguishable from 0", "same": "negative"},
        "top_group": {"s": ["A"]},
        "only_here": {"z": "positive"},
    }
    profile = {
        "e": {"a": "negative", "b": "indistinguishable from 0", "c": "positive", "d": "positive", "same": "negative"},
        "top_group": {"s": ["B", "A"]},
    }
    diff = PR.compare_calls(_metrics(tmp_path, "s", {"m.json": study}), _metrics(tmp_path, "p", {"m.json": profile}))
    assert diff[["key", "study", "profile", "kind"]].values.tolist() == [
        ["e/a", "positive", "negative", "opposite"],
        ["e/d", "indistinguishable from 0", "positive", "profile only"],
        ["top_group/s", "A", "A, B", "different group"],
        ["e/b", "negative", "indistinguishable from 0", "study only"],
    ]
    assert PR.shared_calls(tmp_path / "s", tmp_path / "p") == 6
    assert PR.compare_sentence(diff, 6, "classroom") == (
        "4 of 6 calls differ from the study's (1 opposite, 1 profile only, 1 different group, 1 study only). 2 are "
        "calls the classroom profile's notebooks print that the study does not support."
    )
    fewer = diff[diff["kind"] == "study only"]
    assert PR.compare_sentence(fewer, 6, "classroom").endswith(
        "None reverses the study's: the classroom profile only makes fewer calls or names other groups."
    )
    assert PR.compare_sentence(diff.iloc[:1], 6, "c").endswith(
        "1 is a call the c profile's notebooks print that the study does not support."
    )
    assert PR.compare_sentence(diff.iloc[:0], 6, "c") == "All 6 calls that both the study and the c profile make agree."
    # the forty-seventh pass: a metrics file the workspace lacks was left out of "All N calls ... agree" unsaid
    _metrics(tmp_path, "s2", {"m.json": study, "gone.json": {"e": {"a": "positive"}}, "quiet.json": {"x": 1}})
    assert PR.profile_lacks(tmp_path / "s2", tmp_path / "p") == ["gone.json"]


def test_compare_without_a_run_workspace_is_a_named_error(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(PR, "PROFILES_DIR", tmp_path)
    (tmp_path / "never_run.yaml").write_text("note: x\n")  # a profile whose workspace was never built
    with pytest.raises(SystemExit, match="no metrics files; run `make all PROFILE=never_run` first"):
        PR.main(["compare", "never_run"])
    for cmd in ("compare", "estimate", "try-it", "prepare"):  # `estimate nosuch` said "run make all PROFILE=nosuch"
        with pytest.raises(SystemExit) as stop:
            PR.main([cmd, "nosuch"])
        assert (
            stop.value.code == 2
            and f"'nosuch': no profile {tmp_path.name}/nosuch.yaml (there: ['never_run'])" in capsys.readouterr().err
        )


def test_call_kind_reads_groups_by_inclusion_and_borderline_as_no_call():
    f = frozenset
    assert PR.call_kind(f("AB"), f("ABC")) == "different group"  # the profile ties more: less power
    assert PR.call_kind(f("AB"), f("B")) == "profile only"  # the profile separates A, the study cannot
    assert PR.call_kind(f("A"), f("B")) == "opposite"  # another best
    assert PR.call_kind(f("AB"), f("AB")) is None
    assert dict(PR.calls({"e": {"x": {"effect": "borderline"}}})) == {"e/x/effect": "indistinguishable from 0"}
    assert PR.call_kind("indistinguishable from 0", "negative") == "profile only"


def _try_it_workspace(root):
    """A tiny built workspace: a git and DVC project whose one stage writes `a` to out.txt and, like the
    study's params check, refuses a = 3 with one `error: params.yaml: ...` line; one notebook whose "Try it"
    cell suggests four variations."""
    import nbformat

    work = root / "workspaces" / "tiny"
    (work / "notebooks").mkdir(parents=True)
    (work / "reports").mkdir()
    (work / "reports" / "index.html").write_text("front page")
    (work / "params.yaml").write_text("a: 1\n")
    script = (
        "import sys, yaml; a = yaml.safe_load(open('params.yaml'))['a']\n"
        "if a == 3: sys.exit('error: params.yaml: a: 3 is refused, set 1 or 2')\n"
        "open('out.txt', 'w').write(str(a))\n"
        "import os; os.makedirs('outputs/timings', exist_ok=True)\n"  # as the timer: untracked, beside the outputs
        "open('outputs/timings/s.json', 'w').write(str(a))\n"
    )
    (work / ".gitignore").write_text("/outputs/timings/\n")
    (work / "stage.py").write_text(script)
    (work / "dvc.yaml").write_text(
        "stages:\n  s:\n    cmd: python stage.py\n    deps: [stage.py]\n    params: [a]\n    outs: [out.txt]\n"
    )
    cell = nbformat.v4.new_markdown_cell(
        "## Try it\n\n- Two: `dvc exp run -S a=2`.\n- Refused: `-S a=3`.\n- A typo: `-S b=1`.\n"
        "- Live: `-S llm.mode=live`."
    )
    nb = nbformat.v4.new_notebook()
    nb.cells = [cell]
    nbformat.write(nb, work / "notebooks" / "01_tiny.ipynb")
    for cmd in (["git", "init", "-q"], ["dvc", "init", "-q"], ["dvc", "repro", "-q"]):
        subprocess.run(cmd, cwd=work, check=True, capture_output=True)
    PR.commit_workspace(work, "built")
    return work


def test_try_it_runs_each_variation_from_the_committed_workspace_and_names_its_outcome(tmp_path):
    work = _try_it_workspace(tmp_path)
    results = PR.try_variations("tiny", root=tmp_path)
    outcome = {r["command"]: (r["outcome"], r.get("stages"), r.get("why")) for r in results}
    assert outcome == {
        "dvc exp run -S a=2": ("ran", ["s"], None),
        "-S a=3": ("refused", ["s"], None),
        "-S b=1": ("failed", [], None),
        "-S llm.mode=live": ("not run", None, f"needs {PR.NEEDS['llm.mode=live']}"),
    }
    assert (work / "params.yaml").read_text() == "a: 1\n" and (work / "out.txt").read_text() == "1"  # restored
    assert (work / "reports" / "index.html").read_text() == "front page"
    # the build's stage times, not the experiment's (the twenty-ninth pass: `profiles estimate` summed those)
    assert (work / "outputs" / "timings" / "s.json").read_text() == "1"
    assert subprocess.run(["dvc", "status", "-q"], cwd=work, capture_output=True).returncode == 0
    record = json.loads((work / "try_it.json").read_text())
    assert [r["outcome"] for r in record["variations"]] == ["ran", "refused", "failed", "not run"]
    table = PR.variations_table(results)
    assert "| 01 | `dvc exp run -S a=2` | ran |" in table and "| 01 | `-S b=1` | failed |" in table
    late = PR.try_variations("tiny", only=["a="], budget_s=0, root=tmp_path)  # only a=2 and a=3; no time left
    assert [(r["command"], r["outcome"], r["why"]) for r in late] == [
        ("dvc exp run -S a=2", "not run", "past the budget of 0 s"),
        ("-S a=3", "not run", "past the budget of 0 s"),
    ]


def test_a_try_it_stopped_mid_variation_leaves_the_workspace_as_committed(tmp_path, monkeypatch):
    """A signal during `dvc exp run` exited at once: the workspace kept the experiment's params and outputs
    (and the error line said "nothing half-written")."""
    from lib import cli

    work = _try_it_workspace(tmp_path)
    ran, notes = PR._run, []

    def stop_after(args, where, log=None):
        rc = ran(args, where, log)
        if args[:3] == ["dvc", "exp", "run"]:
            assert (work / "params.yaml").read_text() != "a: 1\n"  # the experiment's params are in place
            notes.append(cli.CLEANUPS[-1]())  # what the signal's handler runs before the exit
            raise KeyboardInterrupt
        return rc

    monkeypatch.setattr(PR, "_run", stop_after)
    before = list(cli.CLEANUPS)
    with pytest.raises(KeyboardInterrupt):
        PR.try_variations("tiny", only=["a=2"], root=tmp_path)
    assert notes == [f"the workspace {work} is restored as committed"] and cli.CLEANUPS == before
    assert (work / "params.yaml").read_text() == "a: 1\n" and (work / "out.txt").read_text() == "1"
    assert (work / "reports" / "index.html").read_text() == "front page"


def test_a_failed_restore_keeps_the_only_copy_and_names_it(tmp_path, monkeypatch):
    """The forty-eighth pass: a restore that failed between variations let the `finally` delete the copy of the
    workspace's reports and timings, which a signal keeps."""
    work = _try_it_workspace(tmp_path)

    def broken(where, kept):
        raise PR.ProfileError(
            f"{where}: could not restore the workspace after an experiment (git checkout, dvc checkout)"
        )

    monkeypatch.setattr(PR, "restore", broken)
    with pytest.raises(
        PR.ProfileError, match=r"could not restore .*; the committed reports and timings are kept in (\S+)"
    ) as err:
        PR.try_variations("tiny", only=["a=2"], root=tmp_path)
    kept = Path(str(err.value).rsplit(" kept in ", 1)[1])
    assert (kept / "reports" / "index.html").read_text() == "front page"
    assert work.exists()


def test_try_it_needs_a_built_and_current_workspace(tmp_path):
    with pytest.raises(PR.ProfileError, match="no built workspace; run `make all PROFILE=tiny` first"):
        PR.try_variations("tiny", root=tmp_path)
    work = _try_it_workspace(tmp_path)
    (work / "params.yaml").write_text("a: 2\n")
    with pytest.raises(PR.ProfileError, match="its pipeline is not up to date"):
        PR.try_variations("tiny", root=tmp_path)


def test_outcome_and_needs_on_both_sides():
    assert PR.outcome(0, "error: params.yaml: x") == "ran"
    assert PR.outcome(1, "Running stage 'a'\nerror: /w/params.yaml: aggregation.plan: ...") == "refused"
    assert PR.outcome(1, "Traceback ...\nKeyError: 'COMBMAX'") == "failed"
    assert PR.outcome(1, "ERROR: failed to reproduce 'a': params.yaml missing") == "failed"
    assert PR.needs(("llm.mode=off",)) is None and PR.needs(("llm.mode=live",)) and PR.needs(("llm.mode=replay",))
    assert (
        PR.needs(("x=1", "nli_averitec.classifier.model=roberta-large-mnli"))
        and PR.needs(("nli_averitec.k=5",)) is None
    )


def test_a_variation_reruns_the_stages_that_read_its_keys_and_everything_downstream(tmp_path):
    dvc_yaml = tmp_path / "dvc.yaml"
    dvc_yaml.write_text(
        "stages:\n"
        "  store: {cmd: a, params: [store], outs: [outputs/store]}\n"
        "  runs: {cmd: b, deps: [outputs/store/docs.parquet], params: [retrieval.rrf_k], outs: [outputs/runs]}\n"
        "  notebook: {cmd: c, deps: [outputs/runs], params: [synthesis, {other.yaml: [x]}],"
        " outs: [{outputs/nb.ipynb: {cache: false}}], metrics: [{outputs/m.json: {cache: false}}]}\n"
        "  render: {cmd: d, deps: [outputs/nb.ipynb, outputs/m.json]}\n"
        "  side: {cmd: e, deps: [outputs/storeroom]}\n"
        "  early: {cmd: f, deps: [outputs/late.json]}\n"  # listed before the stage it depends on
        "  late: {cmd: g, params: [nli.k], outs: [outputs/late.json]}\n"
    )
    assert PR.stages_to_rerun(("nli.k=5",), dvc_yaml) == ["early", "late"]
    assert PR.stages_to_rerun(("store.min_words=8",), dvc_yaml) == ["store", "runs", "notebook", "render"]
    assert PR.stages_to_rerun(("retrieval.rrf_k=10",), dvc_yaml) == ["runs", "notebook", "render"]
    assert PR.stages_to_rerun(("retrieval=1",), dvc_yaml) == ["runs", "notebook", "render"]  # a whole section
    assert PR.stages_to_rerun(("synthesis.focus=dense/claim",), dvc_yaml) == ["notebook", "render"]
    assert PR.stages_to_rerun(("llm.mode=live",), dvc_yaml) == []  # no stage reads it


def test_try_it_minutes_are_the_measured_times_of_the_stages_a_variation_reruns(tmp_path):
    import nbformat

    from lib import timing as TM
    from lib.site import course as CO

    work = tmp_path / "workspaces" / "tiny"
    (work / "notebooks").mkdir(parents=True)
    (work / "dvc.yaml").write_text(
        "stages:\n  s: {cmd: x, params: [a], outs: [o]}\n  t: {cmd: y, deps: [o], outs: [p]}\n  u: {cmd: z, params: [b]}\n"
    )
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("## Try it\n\n- `dvc exp run -S a=2`.\n- `-S b=1`.\n- `-S llm.mode=live`.")
    ]
    nbformat.write(nb, work / "notebooks" / "01_tiny.ipynb")
    with pytest.raises(PR.ProfileError, match="no stage timings; run `make all PROFILE=tiny` first"):
        PR.estimate_variations("tiny", root=tmp_path)
    TM.record("s", 90.0, ["x"], work / "outputs" / "timings")
    TM.record("t", 30.0, ["y"], work / "outputs" / "timings")
    est = PR.estimate_variations("tiny", root=tmp_path)
    assert est["cpu"] == TM.hardware()["cpu"]
    t = json.loads((work / "outputs" / "timings" / "t.json").read_text())
    t["hardware"]["cpu"] = "the CPU of the build"  # the timing files' CPU, not the one estimating
    (work / "outputs" / "timings" / "t.json").write_text(json.dumps(t))
    (work / "outputs" / "timings" / "s.json").write_text(json.dumps({**t, "stage": "s", "seconds": 90.0}))
    est = PR.estimate_variations("tiny", root=tmp_path)
    assert est["cpu"] == "the CPU of the build"
    rows = {v["command"]: v for v in est["variations"]}
    assert rows["dvc exp run -S a=2"] == {
        "notebook": "01_tiny",
        "command": "dvc exp run -S a=2",
        "stages": ["s", "t"],
        "minutes": 2.0,
    }
    assert rows["-S b=1"]["untimed"] == ["u"] and rows["-S b=1"]["minutes"] == 0.0
    assert rows["-S llm.mode=live"]["needs"] == PR.NEEDS["llm.mode=live"]
    html = CO._try_it_list("01_tiny", est)
    assert "<li><code>dvc exp run -S a=2</code>: about 2 min (2 stages rerun)</li>" in html
    assert "<li><code>-S llm.mode=live</code>: needs" in html and CO._try_it_list("02_other", est) == ""
    assert CO._try_it_list("01_tiny", None) == ""


def test_a_profile_whose_values_the_study_refuses_writes_nothing(tmp_path):
    """`params: {retrieval: {depth: -5}}` wrote a workspace whose params fail the schema check; a profile with
    a typo left a half-made workspace behind, or rewrote an existing one's params with the study's."""
    from lib.params import ParamsError
    from lib.paths import ROOT

    root = tmp_path / "repo"
    (root / "profiles").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "params.yaml").write_text((ROOT / "params.yaml").read_text())
    (root / "profiles" / "bad.yaml").write_text("note: x\ndata: {}\nparams: {retrieval: {depth: -5}}\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    with pytest.raises(ParamsError, match=r"(?s)bad.yaml \(merged into params.yaml\).*retrieval.depth"):
        PR.prepare("bad", root)
    assert not (root / "workspaces").exists()
    (root / "profiles" / "bad.yaml").write_text("note: x\ndata: {../outside: 1}\n")
    with pytest.raises(PR.ProfileError, match="data.../outside: no such file"):
        PR.prepare("bad", root)
    assert not (root / "workspaces").exists()


def test_data_keys_are_read_as_paths_and_one_file_has_one_count(tmp_path):
    """`averitec/../averitec/dev.json: 3` was checked but never applied; with a folder's count and a file's,
    the folder's won silently; a file that cannot be cut was found after others had been written."""
    root = tmp_path / "repo"
    (root / "profiles").mkdir(parents=True)
    (root / "data" / "averitec").mkdir(parents=True)
    (root / "params.yaml").write_text("profile: {name: study, note: null}\n")
    (root / "data" / "averitec" / "dev.json").write_text(json.dumps([{"claim": c} for c in "abc"]))
    (root / "data" / "averitec" / "sol.csv").write_text("id,claim\n1,x\n2,y\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    sums = "".join(
        f"{hashlib.sha256((root / 'data' / f).read_bytes()).hexdigest()}  {f}\n"
        for f in ("averitec/dev.json", "averitec/sol.csv")
    )
    (root / "data" / "SHA256SUMS").write_text(sums)
    profile = root / "profiles" / "p.yaml"
    profile.write_text("note: x\ndata: {averitec/../averitec/dev.json: 1}\n")
    work = PR.prepare("p", root)
    assert json.loads((work / "data" / "averitec" / "dev.json").read_text()) == [{"claim": "a"}]
    assert verify_checksums(work / "data") == 2  # the workspace's checksums are its files' (it kept the study's)
    profile.write_text("note: x\ndata: {SHA256SUMS: 1}\n")
    with pytest.raises(PR.ProfileError, match=r"data.SHA256SUMS: the checksums are no records to keep"):
        PR.prepare("p", root)
    (root / "data" / "SHA256SUMS").write_bytes(sums.encode() + b"\xe9 latin-1\n")  # the forty-seventh pass: a traceback
    profile.write_text("note: x\ndata: {averitec/dev.json: 1}\n")
    with pytest.raises(PR.ProfileError, match=r"SHA256SUMS: not UTF-8 text"):
        PR.prepare("p", root)
    (root / "data" / "SHA256SUMS").write_text(sums)
    profile.write_text("note: x\ndata: {averitec: 2, averitec/dev.json: 1}\n")
    with pytest.raises(PR.ProfileError, match=r"data.averitec and data.averitec/dev.json name the same files"):
        PR.prepare("p", root)
    # the forty-eighth pass: the message gave the normalised spelling twice, not the profile's own
    profile.write_text("note: x\ndata: {./averitec//dev.json: 2, averitec/dev.json: 1}\n")
    with pytest.raises(PR.ProfileError, match=r"data\../averitec//dev.json and data.averitec/dev.json name the same"):
        PR.prepare("p", root)
    shutil.rmtree(work)
    profile.write_text("note: x\ndata: {averitec: 2}\n")  # dev.json can be cut, sol.csv cannot
    with pytest.raises(PR.ProfileError, match=r"p.yaml: data.averitec: .*sol.csv: cannot keep 2 records.*only JSON"):
        PR.prepare("p", root)
    assert not work.exists()  # nothing written, dev.json included


@pytest.mark.parametrize("command", ["prepare", "commit", "estimate", "compare", "try-it"])
@pytest.mark.parametrize("name", ["..", "../x", "Classroom", ""])
def test_every_subcommand_takes_only_a_profiles_name(command, name, capsys):
    """`commit ..` committed the study's own checkout (workspaces/.. is the study), untracked files included."""
    with pytest.raises(SystemExit) as end:
        PR.main([command, name])
    assert (
        end.value.code == 2
        and "expected a profile's name (lower-case letters, digits, _ or -)" in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    "text, problem",
    [
        (b"note: x\nnote: y\nparams: {}\n", "key 'note' written twice"),
        (b"note: x\n\tparams: {}\n", "not valid YAML"),
        (b"note: \xff\n", "not UTF-8 text"),
    ],
)
def test_a_profile_file_is_read_as_strictly_as_params(tmp_path, text, problem):
    """Read with another YAML reader, these were tracebacks, and a 30 MB profile had no bound."""
    from lib.params import ParamsError

    (tmp_path / "p.yaml").write_bytes(text)
    with pytest.raises(ParamsError, match=problem):
        PR.load_profile("p", profiles_dir=tmp_path)


def test_a_new_workspace_stopped_midway_is_not_left_half_made(tmp_path, monkeypatch):
    """A stopped `prepare` left a workspace with the code but no data or params, no commit."""
    root = tmp_path / "study"
    shutil.copytree(DATA_DIR, root / "data")
    (root / "profiles").mkdir()
    (root / "profiles" / "p.yaml").write_text("note: a test\nparams: {}\n")
    shutil.copy(PR.ROOT / "params.yaml", root / "params.yaml")

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(PR, "commit_workspace", stop)
    monkeypatch.setattr(PR, "checkout_files", lambda root: [])
    with pytest.raises(KeyboardInterrupt):
        PR.prepare("p", root=root)
    assert not (root / "workspaces" / "p").exists()
    assert [p.name for p in (root / "workspaces").iterdir()] == []


def test_an_existing_workspace_stopped_midway_says_how_to_finish_it(tmp_path, monkeypatch):
    """An update in place stopped midway ended with "nothing half-written was left in place": half its code
    files were the new checkout's. The stop, or a failed write, now names the workspace and the cure."""
    from lib import cli

    root = tmp_path / "study"
    shutil.copytree(DATA_DIR, root / "data")
    (root / "profiles").mkdir()
    (root / "profiles" / "p.yaml").write_text("note: a test\nparams: {}\n")
    shutil.copy(PR.ROOT / "params.yaml", root / "params.yaml")
    (root / "workspaces" / "p").mkdir(parents=True)  # made by an earlier `prepare`
    notes = []

    def stop(*args, **kwargs):
        notes.append(cli.CLEANUPS[-1]())  # what a signal's handler runs (with the others) before the exit
        raise OSError(28, "No space left on device", str(root / "workspaces" / "p" / "params.yaml"))

    monkeypatch.setattr(PR, "commit_workspace", stop)
    monkeypatch.setattr(PR, "checkout_files", lambda root: [])
    again = f"the workspace {root / 'workspaces' / 'p'} is partly updated: run `python -m lib.profiles prepare p` again"
    before = list(cli.CLEANUPS)
    with pytest.raises(PR.ProfileError, match=re.escape(f"params.yaml: No space left on device; {again}")):
        PR.prepare("p", root=root)
    assert notes == [again] and cli.CLEANUPS == before  # said while it ran, not after


def test_a_named_error_midway_says_the_workspace_is_partly_updated_or_that_none_was_made(tmp_path, monkeypatch):
    """A synthetic store refused once the cut data was written left the workspace half new, with no word;
    a new workspace's error named its temporary folder, gone by then."""
    from lib.data import DataError

    root = tmp_path / "study"
    shutil.copytree(DATA_DIR, root / "data")
    (root / "profiles").mkdir()
    (root / "profiles" / "p.yaml").write_text("note: a test\nparams: {}\n")
    shutil.copy(PR.ROOT / "params.yaml", root / "params.yaml")
    work = root / "workspaces" / "p"

    def refused(target, *args, **kwargs):
        raise DataError(target / "data" / "x.jsonl", 2, "claim_id", "2 is not a claim id of the split")

    monkeypatch.setattr(PR, "commit_workspace", refused)
    monkeypatch.setattr(PR, "checkout_files", lambda root: [])
    with pytest.raises(PR.ProfileError) as err:
        PR.prepare("p", root=root)
    assert (
        str(err.value)
        == f"{work}/data/x.jsonl: record 2: field 'claim_id': 2 is not a claim id of the split; no workspace was made"
    )
    assert not work.exists()
    work.mkdir()  # made by an earlier `prepare`
    again = f"the workspace {work} is partly updated: run `python -m lib.profiles prepare p` again"
    with pytest.raises(PR.ProfileError, match=re.escape(f"2 is not a claim id of the split; {again}")):
        PR.prepare("p", root=root)


def test_a_synthetic_store_past_the_bound_is_refused_before_anything_is_written(tmp_path):
    """`synthetic_store: {pages: 1000000000}` wrote 68 GB into the workspace before it was stopped."""
    (tmp_path / "big.yaml").write_text(
        "note: big\nsynthetic_store: {claims: 60, pages: 1000000000, sentences: 2, seed: 0, gold: true}\n"
    )
    with pytest.raises(
        PR.ProfileError,
        match=r"big.yaml: synthetic_store.claims 60 x pages 1000000000 x sentences 2: 120,000,000,000 sentences, over the bound of 50,000,000",
    ):
        PR.load_profile("big", tmp_path)


def test_compare_names_a_damaged_metrics_file(tmp_path):
    """`compare` on a metrics file cut short, or not UTF-8, ended in json's or the codec's traceback."""
    from lib.cli import NamedError

    study = _metrics(tmp_path, "s", {"m.json": {"e": {"a": "positive"}}})
    profile = _metrics(tmp_path, "p", {"m.json": {}})
    for raw, problem in [(b'{"averitec": ', "m.json"), (b"\xff\xfe{}", "not UTF-8")]:
        (profile / "m.json").write_bytes(raw)
        with pytest.raises(NamedError, match=problem):
            PR.compare_calls(study, profile)


def test_a_group_against_a_worded_call_is_opposite_and_undirected_flags_are_counted(tmp_path):
    assert PR.call_kind(frozenset({"a"}), "positive") == "opposite"  # was a TypeError traceback
    assert PR.call_kind("positive", frozenset({"a"})) == "opposite"
    study, profile = tmp_path / "s", tmp_path / "p"
    study.mkdir()
    profile.mkdir()
    metrics = {"significant_vs_baseline": {"BLOOM-QG": True, "QGEN": False}}
    for d in (study, profile):
        (d / "retrieval.json").write_text(json.dumps(metrics))
    assert PR.undirected_calls(study, profile) == 1  # BLOOM-QG: significant both sides, its sign unseen


def test_subset_reads_a_file_as_the_study_reads_it(tmp_path):
    """The thirty-third pass: bytes that are no UTF-8 were a traceback; a byte-order mark and a U+2028 inside a
    record's text (which splitlines() took for a line end) were "not JSON or JSON lines"."""
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"claim_id": 0, "claim": "caf\xe9"}\n{"claim_id": 1, "claim": "b"}\n')
    with pytest.raises(PR.ProfileError, match=r"bad\.jsonl: cannot keep 1 records: not UTF-8 text \(.* at byte 29\)"):
        PR.subset(bad, 1)
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b'\xef\xbb\xbf{"claim_id": 0, "claim": "a"}\n{"claim_id": 1, "claim": "b"}\n')
    assert PR.subset(bom, 1) == '{"claim_id": 0, "claim": "a"}\n'
    separator = tmp_path / "ls.jsonl"
    separator.write_text('{"claim_id": 0, "claim": "a\u2028b"}\n{"claim_id": 1, "claim": "b"}\n', encoding="utf-8")
    assert PR.subset(separator, 1) == '{"claim_id": 0, "claim": "a\u2028b"}\n'


@pytest.mark.parametrize(
    "given, problem",
    [
        # the forty-third pass: "error: params.qgen.epochz: no such key in params.yaml" named no file
        ("qgen: {epochz: 2}", r"params\.qgen\.epochz: no such key in params\.yaml"),
        # the forty-seventh pass: a profile's own `profile` was replaced by the file's name and note, exit 0
        ("profile: {name: other, note: mine}", r"params\.profile: set by the profile's file name and its `note`"),
    ],
)
def test_an_unknown_or_reserved_params_key_names_the_profile_file(tmp_path, given, problem):
    root = tmp_path / "repo"
    (root / "profiles").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "params.yaml").write_text("qgen:\n  epochs: 2\nprofile:\n  name: study\n  note: ''\n")
    (root / "profiles" / "zz.yaml").write_text(f"note: x\nparams:\n  {given}\n")
    with pytest.raises(PR.ProfileError, match=r"zz\.yaml: " + problem):
        PR.prepare("zz", root)


def test_a_profile_that_is_a_folder_is_named_so(tmp_path, monkeypatch):
    """The forty-fifth pass: a folder `profiles/zdir.yaml` read "no profile ... (there: [..., 'zdir'])"."""
    import argparse

    monkeypatch.setattr(PR, "PROFILES_DIR", tmp_path)
    (tmp_path / "zdir.yaml").mkdir()
    with pytest.raises(argparse.ArgumentTypeError, match=r"'zdir': .*zdir\.yaml is not a regular file"):
        PR.profile_name("zdir")
    with pytest.raises(argparse.ArgumentTypeError, match=r"no profile .*\(there: \[\]\)"):
        PR.profile_name("other")
