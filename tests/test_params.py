"""lib.params and lib.schema: each section checked by its own model, the whole file by `python -m lib.schema check`,
YAML 1.2 floats, notebook parameters."""

from __future__ import annotations

import copy
import re

import pytest
import yaml

from lib import params as P
from lib import paths
from lib import schema as SCH

DEFAULT = SCH.load_params()


def with_value(dotted: str, value) -> dict:
    """The default params with one key set (`a.b.c`); value `DELETE` removes the key."""
    params = copy.deepcopy(DEFAULT)
    *parents, last = dotted.split(".")
    node = params
    for p in parents:
        node = node[p]
    if value is DELETE:
        del node[last]
    else:
        node[last] = value
    return params


DELETE = object()


def test_the_committed_params_file_is_valid():
    assert SCH.check(P.read_yaml(paths.PARAMS_FILE)) == DEFAULT
    assert SCH.main(["check"]) == 0


# Each case was a plausible number with exit 0 before the schema (issue 14, part 3).
@pytest.mark.parametrize(
    "key, value, expected",
    [
        ("retrieval.depth", -1, "retrieval.depth: Input should be greater than or equal to 1, got -1"),
        ("nli_averitec.k", 0, "nli_averitec.k: Input should be greater than or equal to 1, got 0"),
        ("utility.k", -1, "utility.k: Input should be greater than or equal to 1, got -1"),
        ("retrieval.rrf_k", -60, "retrieval.rrf_k: Input should be greater than or equal to 0, got -60"),
        ("retrieval.workers", 0, "retrieval.workers: Input should be greater than or equal to 1, got 0"),
        ("retrieval.bm25.k1", -1, "retrieval.bm25.k1: Input should be greater than or equal to 0, got -1"),
        ("qgen.epochs", -1, "qgen.epochs: Input should be greater than or equal to 1, got -1"),
        # the forty-second pass: an epoch count past any study (a slip) is refused, not trained for ever
        ("qgen.epochs", 10**300, "qgen.epochs: Input should be less than or equal to 1000, got 1000000"),
        (
            "nli_averitec.classifier.epochs",
            -1,
            "nli_averitec.classifier.epochs: Input should be greater than or equal to 1",
        ),
        ("llm.timeout", 0, "llm.timeout: Input should be greater than 0, got 0"),
        ("store.include_gold", "false", "store.include_gold: Input should be a valid boolean"),
        (
            "nli_averitec.classifier.learning_rate",
            "2e-5",
            "nli_averitec.classifier.learning_rate: Input should be a valid number",
        ),
        ("store.distractor_splits", "test", "store.distractor_splits: Input should be a valid list, got 'test'"),
        ("averitec.foo", 1, "averitec.foo: unknown key"),
        # notebook 05 stopped midway without a duplicated plan or a published system (a KeyError, a legendless plot)
        ("averitec.duplicate_for", [], "averitec.duplicate_for: List should have at least 1 item"),
        ("averitec.systems", {}, "averitec.systems: Dictionary should have at least 1 item"),
        ("nli_averitec.kk", 3, "nli_averitec.kk: unknown key"),
        ("utility.canddiates", 10, "utility.canddiates: unknown key"),
        ("averitec_score.main_levle", 0.25, "averitec_score.main_levle: unknown key"),
        (
            "retrieval.retrievers",
            ["bm25", "bm52"],
            "retrieval.retrievers[1]: Input should be 'bm25', 'dense' or 'hybrid'",
        ),
        ("retrieval.main_fusion", "combmax-norm", "retrieval.main_fusion: Input should be"),
        ("retrieval.depth", "100", "retrieval.depth: Input should be a valid integer, got '100'"),
        ("retrieval.depth", True, "retrieval.depth: Input should be a valid integer, got True"),
        ("retrieval.depth", DELETE, "retrieval.depth: required key is missing"),
        ("llm.mode", False, "llm.mode: Input should be 'off', 'replay' or 'live'"),  # YAML 1.1: `mode: off` is False
        ("llm.api_key_env", "MY KEY", "llm.api_key_env"),
        ("llm.base_url", "localhost:8000/v1", "llm.base_url"),
        ("utility.candidates", 2, "utility: k = 3 documents cannot be selected from 2 candidates"),
        ("averitec_score.main_level", 0.35, "averitec_score: main_level = 0.35 is not one of levels"),
        ("retrieval.all_fusions_for", ["oracel"], "retrieval: all_fusions_for names ['oracel']"),
        ("query_planning.measures", ["ndcg@10", "recall"], "query_planning.measures[1]"),
        ("error_analysis.rules.min_grade", 3, "error_analysis.rules.min_grade"),
        ("nli_averitec.label_set", "averitec5", "nli_averitec.label_set"),
        ("report.headlines.01_knowledge_store.documents in the store", "store.json", "report.headlines"),
        ("judgements.answer_match", 0.0, "judgements.answer_match: Input should be greater than 0"),
        ("judgements.answer_match", 1.2, "judgements.answer_match: Input should be less than or equal to 1"),
        ("judgements.answer_match_sweep", [], "judgements.answer_match_sweep"),
        ("judgements.min_answer_tokens", 0, "judgements.min_answer_tokens"),
        ("retrieval_metrics.incomplete_measures", ["bpref@10"], "retrieval_metrics.incomplete_measures[0]"),
        ("retrieval_metrics.judging.per_stratum", 0, "retrieval_metrics.judging.per_stratum"),
        ("retrieval_metrics.judging.sheet_path", DELETE, "retrieval_metrics.judging.sheet_path: required key"),
        ("store.source", "web", "store.source: Input should be 'pooled' or 'knowledge_store'"),
        ("store.knowledge_store.path", "/data/ks", "store.knowledge_store.path: String should match pattern"),
        ("store.knowledge_store.split", "train", "store.knowledge_store.split: Input should be 'dev'"),
        ("store.knowledge_store.unit", "page", "store.knowledge_store.unit: Input should be 'sentence' or 'chunk'"),
        ("compute.backend", "dask", "compute.backend: Input should be 'local' or 'ray'"),
        ("compute.workers", 0, "compute.workers: Input should be greater than or equal to 1"),
    ],
)
def test_bad_values_name_their_key(key, value, expected):
    with pytest.raises(P.ParamsError) as err:
        SCH.check(with_value(key, value), "params.yaml")
    assert expected in str(err.value)
    assert str(err.value).startswith("params.yaml: ")


def test_a_mappings_integer_key_is_named_as_a_key_not_a_list_position():
    """The fiftieth pass: `aggregation: {1: x}` was named `aggregation[1]`, as if aggregation were a list."""
    params = copy.deepcopy(DEFAULT)
    params["aggregation"][1] = "x"
    params["retrieval_metrics"]["incomplete_measures"] = ["bpref@10"]
    with pytest.raises(P.ParamsError) as err:
        SCH.check(params, "params.yaml")
    assert "  aggregation.1: " in str(err.value) and "aggregation[1]" not in str(err.value)
    assert "  retrieval_metrics.incomplete_measures[0]: " in str(err.value)  # a list's position stays [0]


def test_a_profile_other_than_the_study_must_say_how_it_differs():
    with pytest.raises(P.ParamsError, match="profile: profile 'classroom' needs a note"):
        SCH.check(with_value("profile.name", "classroom"))
    assert SCH.check(with_value("profile.note", "Fewer claims."))["profile"]["note"] == "Fewer claims."


def test_a_claim_range_must_not_end_before_it_starts():
    params = with_value("store.knowledge_store.first", 9)
    SCH.check(params)  # open at the end
    params["store"]["knowledge_store"]["last"] = 5
    with pytest.raises(P.ParamsError, match=r"store: .*first \(9\) is after last \(5\)"):
        SCH.check(params)


def test_every_problem_is_reported_at_once():
    params = with_value("retrieval.depth", -1)
    params["utility"]["k"] = 0
    params["bogus_section"] = {}
    with pytest.raises(P.ParamsError) as err:
        SCH.check(params)
    assert [p.split(":")[0] for p in err.value.problems] == ["bogus_section", "retrieval.depth", "utility.k"]


def test_a_missing_section_is_named():
    params = copy.deepcopy(DEFAULT)
    del params["nli_quantemp"]
    with pytest.raises(P.ParamsError, match="nli_quantemp: required key is missing"):
        SCH.check(params)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x: 2e-5", 2e-5),
        ("x: 1E3", 1000.0),
        ("x: -3e+2", -300.0),
        ("x: 2.0e-5", 2e-5),
        ("x: .5e1", 5.0),
        ("x: '2e-5'", "2e-5"),
        ("x: 3", 3),
        ("x: e5", "e5"),
        ("x: 1.5", 1.5),
    ],
)
def test_exponent_numbers_are_read_as_numbers(tmp_path, text, expected):
    path = tmp_path / "p.yaml"
    path.write_text(text)
    value = P.read_yaml(path)["x"]
    assert value == expected and type(value) is type(expected)


def test_pyyaml_alone_reads_2e_5_as_a_string():
    assert yaml.safe_load("x: 2e-5")["x"] == "2e-5"  # why lib.params has its own loader


def test_learning_rate_written_2e_5_passes_the_schema(tmp_path):
    text = paths.PARAMS_FILE.read_text().replace("learning_rate: 1.0e-4", "learning_rate: 2e-5")
    assert "learning_rate: 2e-5" in text
    path = tmp_path / "params.yaml"
    path.write_text(text)
    assert P.section("nli_averitec", path)["classifier"]["learning_rate"] == 2e-5  # YAML 1.2: a float


def test_a_section_is_checked_by_its_own_model_and_the_whole_file_by_the_schema(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text(paths.PARAMS_FILE.read_text().replace("depth: 100", "depth: -1"))
    assert P.section("store", path)["source"] == "pooled"  # a stage reads only its own sections
    with pytest.raises(P.ParamsError, match=r"retrieval\.depth: Input should be greater than or equal to 1"):
        P.section("retrieval", path)
    with pytest.raises(P.ParamsError, match=r"retrieval\.depth"):
        SCH.load_params(path)  # `make` checks the whole file first
    with pytest.raises(P.ParamsError, match="no section 'nope'"):
        P.section("nope")
    assert P.settings("retrieval").depth == 100  # the typed model
    with pytest.raises(P.ParamsError, match=r"retrieval\.depth: Input should be greater than or equal to 1"):
        P.settings("retrieval", path)


def test_settings_validates_once_with_the_model_an_entry_point_passes(monkeypatch):
    from lib.retrieval.runs import RunGrid

    calls = []
    original = RunGrid.model_validate.__func__
    monkeypatch.setattr(RunGrid, "model_validate", classmethod(lambda cls, raw: calls.append(1) or original(cls, raw)))
    grid = P.settings("retrieval", paths.PARAMS_FILE, RunGrid)
    assert isinstance(grid, RunGrid) and grid.depth == 100 and calls == [1]


def test_cli(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(paths.PARAMS_FILE.read_text().replace("workers: 2", "workers: 0").replace("rrf_k: 60", "rrf_k: -60"))
    assert SCH.main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "2 problem(s)" in err and "retrieval.workers" in err and "retrieval.rrf_k" in err
    assert SCH.main(["check", str(tmp_path / "missing.yaml")]) == 1
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "broken.yaml").write_text("store: [unclosed\n")
    assert SCH.main(["check", str(tmp_path / "broken.yaml")]) == 1
    assert "not valid YAML" in capsys.readouterr().err
    (tmp_path / "list.yaml").write_text("- 1\n")
    assert SCH.main(["check", str(tmp_path / "list.yaml")]) == 1
    capsys.readouterr()
    assert SCH.main(["frobnicate"]) == 2  # one line (it was `usage:`, then `error:`)
    assert capsys.readouterr().err.startswith("error: expected `check` and at most one file, got 'frobnicate' (usage")
    assert SCH.main(["check", ""]) == 2 and "error: check: an empty path" in capsys.readouterr().err  # was `.`
    assert SCH.main(["check", "--help"]) == 0 and capsys.readouterr().out.startswith("usage: python -m lib.schema")


def test_each_vocabulary_is_defined_once_and_the_models_use_it():
    from typing import get_args

    from lib import compute
    from lib.averitec import evidence, section
    from lib.data import labels
    from lib.planning import llm, prompted
    from lib.retrieval import dense, fusion, retrievers, runs
    from lib.store import build, scopes

    fields = runs.RunGrid.model_fields
    assert get_args(fields["retrievers"].annotation) == (retrievers.RetrieverKind,)
    assert get_args(fields["scopes"].annotation) == (scopes.Scope,)
    assert fields["main_fusion"].annotation == fusion.Fusion
    assert dense.GlobalIndex.model_fields["kind"].annotation is dense.GlobalIndexKind
    assert (
        retrievers.RETRIEVERS
        == get_args(retrievers.RetrieverKind)
        == tuple(retrievers.KINDS)
        == ("bm25", "dense", "hybrid")
    )
    assert scopes.SCOPES == ("claim", "global")
    assert fusion.FUSIONS == get_args(fusion.Fusion)
    assert set(get_args(labels.AveritecLabelSet)) == set(labels.LABEL_SETS) - {"quantemp3"}
    assert prompted.PROMPTED == get_args(prompted.Prompted)
    assert llm.LLMSettings.model_fields["mode"].annotation is llm.Mode and llm.MODES == get_args(llm.Mode)
    assert section.AveritecSection.model_fields["verdict_source"].annotation is section.VerdictSource
    assert evidence.VERDICT_SOURCES == get_args(section.VerdictSource)
    assert build.StoreSettings.model_fields["source"].annotation is build.Source
    assert build.SOURCES == get_args(build.Source)
    assert compute.ComputeSettings.model_fields["backend"].annotation is compute.Backend
    assert get_args(build.KnowledgeStoreSettings.model_fields["unit"].annotation) == ("sentence", "chunk")


@pytest.mark.parametrize("good", ["ndcg", "ndcg@10", "recall@100", "p@5", "mrr", "map@3", "bpref", "condensed_ndcg@10"])
def test_a_measure_in_params_is_what_the_metrics_module_parses(good):
    measures = [good, *(m for m in ("ndcg@10", "recall@100") if m != good)]  # notebook 03 reads these two
    assert SCH.check(with_value("aggregation.measures", measures))["aggregation"]["measures"] == measures


@pytest.mark.parametrize("bad", ["recall", "bpref@10", "condensed_bpref", "condensed_", "ndcg@0", "NDCG@10"])
def test_a_measure_the_metrics_module_refuses_is_a_params_error(bad):
    from lib.evaluation.metrics import parse_measure

    with pytest.raises(P.ParamsError, match=r"aggregation\.measures\[0\]"):
        SCH.check(with_value("aggregation.measures", [bad]))
    if bad != "NDCG@10":
        with pytest.raises(ValueError):
            parse_measure(bad)


def test_the_classifier_section_is_the_verifiers_settings():
    from lib.verifier.averitec import NLIAveritecSection
    from lib.verifier.nli import NLISettings

    assert NLIAveritecSection.model_fields["classifier"].annotation is NLISettings


def test_notebook_parameters_must_be_defined_in_its_parameters_cell():
    from lib.site.execute import check_parameters

    nb = paths.NOTEBOOKS_DIR / "05_averitec_score.ipynb"
    check_parameters(nb, P.section("averitec_score"))
    with pytest.raises(ValueError, match=r"\['main_levle'\] are not defined in its parameters cell"):
        check_parameters(nb, {"main_levle": 0.3})


def test_a_section_the_notebook_only_copies_must_be_passed():
    """`execute 10_synthesis --section synthesis` without `--with averitec` ran on the cell's copy of it."""
    from lib.site.execute import check_sections, stage_parameters

    nb = paths.NOTEBOOKS_DIR / "10_synthesis.ipynb"
    with pytest.raises(ValueError, match=r"\['averitec'\] are params.yaml sections .* \(--with averitec, as"):
        check_sections(nb, P.section("synthesis"))
    check_sections(nb, stage_parameters("synthesis", ["averitec"]))
    nb6 = paths.NOTEBOOKS_DIR / "06_generative_planners.ipynb"  # `generative = None` reads the section itself
    check_sections(nb6, stage_parameters("generative_planning", ["judgements"]))
    with pytest.raises(ValueError, match=r"^--with judgements: given twice; name each shared section once$"):
        stage_parameters("averitec_score", ["judgements", "judgements"])  # it blamed the section for hiding one


NOTEBOOK_SECTIONS = {
    "01_knowledge_store": "knowledge_store",
    "02_query_planning": "query_planning",
    "03_aggregation": "aggregation",
    "04_retrieval_metrics": "retrieval_metrics",
    "05_averitec_score": "averitec_score",
    "06_generative_planners": "generative_planning",
    "07_nli_veracity": "nli_veracity",
    "08_error_analysis": "error_analysis",
    "09_relevance_vs_utility": "relevance_utility",
}


@pytest.mark.parametrize("name, sec", NOTEBOOK_SECTIONS.items())
def test_every_schema_key_of_a_notebook_section_is_a_notebook_parameter(name, sec):
    import papermill as pm

    defined = set(pm.inspect_notebook(str(paths.NOTEBOOKS_DIR / f"{name}.ipynb")))
    assert set(P.section_model(sec).model_fields) <= defined


def test_notebook_run_with_a_bad_section_exits_1(tmp_path):
    import subprocess
    import sys

    bad = tmp_path / "params.yaml"
    bad.write_text(
        paths.PARAMS_FILE.read_text().replace(
            "main_level: 0.25\n\naveritec_2025", "main_level: 0.25\n  mian: 1\n\naveritec_2025"
        )
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "lib.site.execute",
            "05_averitec_score",
            "--section",
            "averitec_score",
            "--params",
            str(bad),
        ],
        capture_output=True,
        text=True,
        cwd=paths.ROOT,
    )
    assert proc.returncode == 1 and "averitec_score.mian: unknown key" in proc.stderr
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------- found by a hostile-input pass


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x: 010", 10),
        ("x: 0o10", 8),
        ("x: 0x14", 20),
        ("x: 1:20", "1:20"),
        ("x: 1_00", "1_00"),
        ("x: yes", "yes"),
        ("x: off", "off"),
        ("x: True", True),
        ("x: 2020-01-01", "2020-01-01"),
        ("x: ~", None),
        ("x: !!bool FALSE", False),  # an explicit tag, read as YAML 1.2 reads the value untagged
        ("x: !!int 0x10", 16),
        ("x: !!float 1e3", 1000.0),
        ("x: !!float 3", 3.0),
    ],
)
def test_yaml_1_2_integers_booleans_and_dates(tmp_path, text, expected):
    """PyYAML alone: 010 is 8, 1:20 is 80, 1_00 is 100, yes/off are booleans, a date is a date."""
    path = tmp_path / "p.yaml"
    path.write_text(text)
    value = P.read_yaml(path)["x"]
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize(
    "text, line",
    [
        ("a: 1\nb: 2\na: 3\n", 1),
        ("a: {k: 1, k: 2}\n", 1),
        ("s:\n  depth: 100\n  depth: 5\n", 2),
        ("s:\n  <<: {w: 4}\n  <<: {w: 5}\n", 2),  # PyYAML kept w: 5 silently, DVC refuses the file
    ],
)
def test_a_key_written_twice_is_an_error(tmp_path, text, line):
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(P.ParamsError, match=f"written twice \\(first on line {line}\\)"):
        P.read_yaml(path)


def test_one_merge_key_may_merge_several_mappings(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("a: &a {w: 4}\nb: &b {v: 1}\ns:\n  <<: [*a, *b]\n  u: 2\n")
    assert P.read_yaml(path)["s"] == {"w": 4, "v": 1, "u": 2}


def test_a_section_written_twice_in_params_is_an_error(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text(paths.PARAMS_FILE.read_text() + "\nutility:\n  k: 5\n")
    with pytest.raises(P.ParamsError, match="key 'utility' written twice"):
        P.section("utility", path)


@pytest.mark.parametrize(
    "key, value, expected",
    [
        ("qgen.learning_rate", float("inf"), "qgen.learning_rate: Input should be a finite number, got inf"),
        ("llm.timeout", float("inf"), "llm.timeout: Input should be a finite number"),
        ("utility.alpha", float("nan"), "utility.alpha: Input should be a finite number"),
        ("llm.backoff", 1e300, "llm.backoff: Input should be less than or equal to 600"),
        (
            "error_analysis.rules.min_grade",
            True,
            "error_analysis.rules.min_grade: Input should be a valid integer, got True",
        ),
        ("retrieval.model", "  ", "retrieval.model: expected some text (no control character), got '  '"),
    ],
)
def test_infinities_and_blank_texts_are_refused(key, value, expected):
    with pytest.raises(P.ParamsError) as err:
        SCH.check(with_value(key, value))
    assert expected in str(err.value)


def test_a_params_file_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_bytes(b"x: caf\xe9\n")
    with pytest.raises(P.ParamsError, match="not UTF-8 text"):
        P.read_yaml(path)


def test_notebook_runner_arguments(tmp_path):
    import subprocess
    import sys

    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "lib.site.execute", "05_averitec_score", *args],
            capture_output=True,
            text=True,
            cwd=paths.ROOT,
        )

    proc = run("--section", "nosuch")
    assert proc.returncode == 1 and proc.stderr.startswith("error: ") and "no section 'nosuch'" in proc.stderr
    assert not proc.stderr.startswith('error: "')
    proc = run("--section", "averitec_score", "--with", "nosuch")
    assert proc.returncode == 1 and "no section 'nosuch'" in proc.stderr
    proc = run("--section", "averitec_score", "--with", "judgements")  # notebook 05 takes no judgements
    assert proc.returncode == 1 and "['judgements'] are not defined in its parameters cell" in proc.stderr
    proc = run("--section", "averitec_score", "--timeout", "0")
    assert (
        proc.returncode == 2
        and "argument --timeout: Input should be greater than or equal to 1, got '0'" in proc.stderr
    )


def test_a_model_with_defaults_for_callers_still_needs_every_key_in_params():
    for key in ["retrieval.depth", "retrieval.bm25.k1", "store.knowledge_store.unit", "llm.timeout", "compute.workers"]:
        with pytest.raises(P.ParamsError, match=re.escape(f"{key}: required key is missing")):
            SCH.check(with_value(key, DELETE))
    section = key.split(".")[0]
    assert P.missing_keys(P.section_model(section), with_value(key, DELETE)[section], section) == [
        f"{key}: required key is missing"
    ]
    with pytest.raises(P.ParamsError, match=re.escape("nli_averitec.classifier.calibrate: required key is missing")):
        SCH.check(with_value("nli_averitec.classifier.calibrate", DELETE))
    assert SCH.check(with_value("profile.note", DELETE))  # a model without params_complete keeps optional keys


@pytest.mark.parametrize(
    "key, value, expected",
    [
        ("aggregation.plan", "claim_only", "aggregation.plan: 'claim_only' has runs of the main fusion only"),
        ("query_planning.fusion", "rrf", "query_planning.fusion: fusion 'rrf' is run only for the plans of"),
        ("retrieval_metrics.baseline", "qgen", "retrieval_metrics.baseline: 'qgen' is not run"),
        ("retrieval_metrics.curve_plans", ["oracle", "x"], "retrieval_metrics.curve_plans: 'x' is not run"),
        ("relevance_utility.measures", ["ndcg@5"], "measures must keep ['ndcg@10', 'ndcg@3']"),
        # passed the check, then stopped notebooks 02 and 03 midway (`KeyError: 'ndcg@10'`, a legend error)
        ("query_planning.measures", ["recall@10"], "measures must keep ['ndcg@10', 'recall@100']: notebook 02"),
        ("aggregation.measures", ["recall@100"], "measures must keep ['ndcg@10']: notebook 03"),
        # a claim counts when its Q+A score is above the level: at 1 none does, and a "best planner" came of ties
        ("averitec_score.main_level", 1.0, "averitec_score.main_level: Input should be less than 1"),
        # past the runs' depth: recall@1000 of runs cut at 100 repeated recall@100 under another name
        (
            "retrieval_metrics.max_k",
            1000,
            "retrieval_metrics.max_k: cutoff 1000 is past the runs' depth, retrieval.depth = 100 (the runs keep 100 "
            "documents per claim): use at most 100, or raise retrieval.depth",
        ),
        (
            "query_planning.measures",
            ["ndcg@10", "recall@100", "recall@1000", "mrr"],
            "query_planning.measures: cutoff 1000 is past",
        ),
        (
            "aggregation.measures",
            ["ndcg@10", "recall@100", "p@101"],
            "aggregation.measures: cutoff 101 is past the runs'",
        ),
        ("retrieval_metrics.measure", "ndcg@500", "retrieval_metrics.measure: cutoff 500 is past"),
        (
            "retrieval_metrics.incomplete_measures",
            ["condensed_ndcg@200"],
            "retrieval_metrics.incomplete_measures: cutoff 200",
        ),
        ("query_planning.n_resamples", 39, "query_planning.n_resamples: Input should be greater than or equal to 40"),
        # 1,000,000 resamples asked notebook 02 for 3.7 GiB at once
        ("query_planning.n_resamples", 1_000_000, "query_planning.n_resamples: Input should be less than or equal to"),
        ("retrieval_metrics.measure", "condensed_ndcg@10", "is one of the incomplete-judgement measures"),
        (
            "generative_planning.measures",
            ["ndcg@10", "recall@1000"],
            "generative_planning.measures: cutoff 1000 is past",
        ),
        (
            "retrieval_metrics.judging",
            {"sheet_path": "x.csv", "filled_sheet": "y.csv", "per_stratum": 3, "unjudged_depth": 500, "seed": 0},
            "retrieval_metrics.judging.unjudged_depth: cutoff 500 is past the runs' depth",
        ),
        (
            "relevance_utility.measures",
            ["ndcg@3", "ndcg@10", "recall@1000"],
            "relevance_utility.measures: cutoff 1000 is past the runs' depth",
        ),
        ("nli_veracity.retrieval_measure", "ndcg@1000", "nli_veracity.retrieval_measure: cutoff 1000 is past"),
        (
            "nli_veracity.baseline",
            "planner:nonexistent",
            "nli_veracity.baseline: 'planner:nonexistent' names a planner",
        ),
        ("relevance_utility.k", 10, "relevance_utility.k: 10 is not the k the verifier read for every planner"),
        ("error_analysis.rules.min_systems", 100, "error_analysis.rules.min_systems: 100 is more than the 7 published"),
        ("generative_planning.fusion", "rrf", "generative_planning.fusion: fusion 'rrf' is run only for the plans"),
        (
            "generative_planning.focus",
            {"retriever": "hybrid", "scope": "claim"},
            "generative_planning.focus: retriever 'hybrid' is not run for the generative planners",
        ),
        ("generative_planning.baseline", "qgen", "generative_planning.baseline: 'qgen' is not run beside the"),
        ("synthesis.focus", "hybrid/global", "synthesis.focus: retriever 'hybrid' is not run for the generative"),
        ("query_planning.measures", ["ndcg@10", "recall@0100"], "write the measure 'recall@0100' as 'recall@100'"),
        ("nli_veracity.alpha", 0.0001, "the smallest p-value it gives, 0.0005, is not below alpha = 0.0001, so no"),
        # the forty-ninth pass: a floor at alpha passes no test either (p < alpha): 99 resamples at 0.01
        ("nli_veracity.alpha", 1 / 2001, "the smallest p-value it gives, 0.0005, is not below alpha = 0.00049975"),
        ("nli_veracity.baseline", "naive", "nli_veracity.baseline: expected a planner's setting, planner:<plan>, got"),
    ],
)
def test_a_setting_another_section_cannot_serve_is_refused_with_what_to_set(key, value, expected):
    with pytest.raises(P.ParamsError) as err:
        SCH.check(with_value(key, value), "params.yaml")
    assert expected in str(err.value)


def test_a_focus_outside_the_runs_grid_is_refused():
    params = with_value("retrieval.retrievers", ["bm25", "dense"])
    params["retrieval"]["scopes"] = ["claim"]
    params["query_planning"]["focus"] = {"retriever": "hybrid", "scope": "claim"}
    params["retrieval_metrics"]["focus"] = {"retriever": "bm25", "scope": "global"}
    params["synthesis"]["focus"] = "hybrid/global"
    with pytest.raises(P.ParamsError) as err:
        SCH.check(params)
    assert err.value.problems == [
        "query_planning.focus: retriever 'hybrid' is not run (retrieval.retrievers: ['bm25', 'dense'])",
        "retrieval_metrics.focus: scope 'global' is not run (retrieval.scopes: ['claim'])",
        "synthesis.focus: retriever 'hybrid' is not run (retrieval.retrievers: ['bm25', 'dense'])",
        "synthesis.focus: scope 'global' is not run (retrieval.scopes: ['claim'])",
    ]


def test_the_cross_check_passes_once_the_other_section_serves_it():
    params = with_value("aggregation.plan", "claim_only")
    with pytest.raises(P.ParamsError, match=r"-S 'retrieval.all_fusions_for=\[oracle,claim_only\]'"):
        SCH.check(params)
    params["retrieval"]["all_fusions_for"] = ["oracle", "claim_only"]
    assert SCH.check(params)["aggregation"]["plan"] == "claim_only"


def test_the_notebook_runner_refuses_a_cross_section_problem_before_running(tmp_path):
    import subprocess
    import sys

    bad = tmp_path / "params.yaml"
    bad.write_text(yaml.safe_dump(with_value("aggregation.plan", "heuristic")))
    out = subprocess.run(
        [sys.executable, "-m", "lib.site.execute", "03_aggregation", "--section", "aggregation", "--params", str(bad)],
        capture_output=True,
        text=True,
        cwd=paths.ROOT,
    )
    assert out.returncode == 1 and "aggregation.plan: 'heuristic' has runs of the main fusion only" in out.stderr
    assert "executed in" not in out.stdout


def _try_it_overrides() -> list[tuple[str, list[str]]]:
    """Every `-S key=value` group of the notebooks' "Try it" cells: one variation per bullet's command."""
    from lib.site.course import try_it_variations

    return [(f"{v.notebook}: {v.command}", list(v.sets)) for v in try_it_variations()]


@pytest.mark.parametrize("where, sets", _try_it_overrides(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_try_it_variation_passes_the_params_check(where, sets):
    """What `dvc exp run -S` would set (a YAML value per dotted key) passes the schema and the cross-section
    checks, so the variation is not refused and does not crash for want of another section's setting."""
    params = copy.deepcopy(DEFAULT)
    for s in sets:
        dotted, _, text = s.partition("=")
        *parents, last = dotted.split(".")
        node = params
        for p in parents:
            node = node[p]
        assert last in node, f"{where}: {dotted} is not a key of params.yaml"
        node[last] = yaml.load(text, Loader=P._Loader)  # YAML 1.2, as DVC reads a -S value (2e-5 is a number)
    SCH.check(params, where)


def test_the_try_it_cells_hold_variations():
    assert len(_try_it_overrides()) >= 25


def test_an_alias_bomb_is_refused_before_it_is_built(tmp_path, monkeypatch):
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]  # 9**10 nodes from 1 KB
    path = tmp_path / "params.yaml"
    path.write_text("\n".join(lines) + "\nretrieval:\n  model: *a9\n")
    with pytest.raises(P.ParamsError, match=r"aliases expand past 200,000 YAML nodes"):
        P.read_yaml(path)
    path.write_text("a: &a [1, 2]\nb: [*a, *a]\n")  # a few aliases are fine
    assert P.read_yaml(path) == {"a": [1, 2], "b": [[1, 2], [1, 2]]}
    monkeypatch.setenv("LIB_MAX_YAML_NODES", "5")
    with pytest.raises(P.ParamsError, match="past 5 YAML nodes"):
        P.read_yaml(path)


def test_a_yaml_file_over_the_size_bound_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    """A 30 MB YAML file held `lib.schema check` for 81 s."""
    path = tmp_path / "params.yaml"
    path.write_text("a: 1\n" + "#" * 114 + "\n")
    monkeypatch.setattr(P, "MAX_YAML_BYTES", 100)
    with pytest.raises(P.ParamsError, match=r"(?s)params.yaml.*120 bytes, over the bound of 100 .*LIB_MAX_YAML_BYTES"):
        P.read_yaml(path)
    monkeypatch.setenv("LIB_MAX_YAML_BYTES", "120")
    assert P.read_yaml(path) == {"a": 1}


def test_brackets_nested_thousands_deep_are_refused_in_one_line(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("a: " + "[" * 5000 + "]" * 5000 + "\n")  # a RecursionError's traceback before
    with pytest.raises(P.ParamsError, match=r"(?s)params.yaml.*nested deeper than"):
        P.read_yaml(path)
    path.write_text("a: !!python/object:os.system ls\n")  # YAML's message names the file, not "<unicode string>"
    with pytest.raises(
        P.ParamsError, match=r"(?s)not valid YAML: could not determine a constructor.* in \".*params.yaml\""
    ):
        P.read_yaml(path)


def test_a_key_that_is_a_list_is_refused_in_one_line(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("compute:\n  ? [a, b]\n  : 1\n")  # a TypeError (unhashable list) before, in every --params reader
    with pytest.raises(P.ParamsError, match=r"(?s)params.yaml.*a key that is a list \(\['a', 'b'\]\); keys are names"):
        P.read_yaml(path)


def test_a_long_wrong_value_is_quoted_short_in_the_message(tmp_path):
    raw = yaml.safe_load(paths.PARAMS_FILE.read_text())["retrieval"]
    raw["main_fusion"] = "y" * 5000
    with pytest.raises(P.ParamsError) as err:
        P.check_section("retrieval", raw)
    assert len(str(err.value)) < 1500 and "(5,002 characters)" in str(err.value)


def test_a_seed_is_one_numpy_and_torch_take():
    """A seed of 2**32 passed the schema check, then failed the training after its data had loaded."""
    from pydantic import TypeAdapter, ValidationError

    seed = TypeAdapter(P.Seed)
    assert seed.validate_python(2**32 - 1) == 2**32 - 1
    for bad in (2**32, -1):
        with pytest.raises(ValidationError):
            seed.validate_python(bad)
    raw = P.read_params()
    raw["nli_averitec"]["classifier"]["seed"] = 2**32
    with pytest.raises(P.ParamsError, match=r"nli_averitec.classifier.seed"):
        SCH.check(raw, "params.yaml")


def test_a_kernel_started_with_another_parameter_file_reads_every_section_from_it(tmp_path, monkeypatch):
    """`execute --params FILE` passed FILE's section while the notebook's own `section(...)` read params.yaml."""
    from lib.paths import PARAMS_FILE

    other = tmp_path / "p.yaml"
    other.write_text(PARAMS_FILE.read_text().replace("bm25: {k1: 1.5,", "bm25: {k1: 1.7,", 1))
    assert P.section("retrieval")["bm25"]["k1"] != 1.7
    monkeypatch.setenv(P.KERNEL_PARAMS_ENV, str(other))
    assert P.section("retrieval")["bm25"]["k1"] == 1.7
    assert P.section("retrieval", other)["bm25"]["k1"] == 1.7


def test_the_averitec_levels_keep_the_headline_level():
    """Levels without 0.25 passed the check and stopped notebook 05 at `KeyError: 'AVeriTeC@0.25'`."""
    params = with_value("averitec_score.levels", [0.1, 0.5])
    params["averitec_score"]["main_level"] = 0.5
    with pytest.raises(P.ParamsError, match="levels must keep 0.25"):
        SCH.check(params)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("x: !!int 1.5", "!!int '1.5': not a YAML 1.2 int"),
        ("x: !!float abc", "!!float 'abc': not a YAML 1.2 float"),
        ("x: !!bool maybe", "!!bool 'maybe': not a YAML 1.2 bool"),
        ("x: !!bool off", "!!bool 'off': not a YAML 1.2 bool"),  # YAML 1.1's false
        ("x: !!timestamp 2020-13-45", "!!timestamp '2020-13-45': no parameter is a date"),
        ("x: !!timestamp 2020-01-01", "!!timestamp '2020-01-01': no parameter is a date"),
    ],
)
def test_an_explicit_tag_on_a_value_it_does_not_read_is_named(tmp_path, text, problem):
    """The twenty-ninth pass: the tag's constructor raised (a traceback), or `!!bool off` read as false."""
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(P.ParamsError, match=re.escape(problem) + r".* line 1"):
        P.read_yaml(path)


def test_a_plan_list_naming_an_undefined_post_hoc_plan_is_refused():
    """The forty-ninth pass (L 7): `post_hoc_fever9` in a plan list passed the schema although planners.post_hoc
    defines no such plan; the planners command now removes stale POST-HOC files, so a stage failed late on it."""
    raw = copy.deepcopy(DEFAULT)
    assert SCH.undefined_post_hoc(raw) == []
    raw["averitec"]["plans"] = [*raw["averitec"]["plans"], "post_hoc_fever9"]
    raw["synthesis"]["without_gold"]["plans"] = ["claim_only", "post_hoc_x"]
    problems = SCH.undefined_post_hoc(raw)
    defined = sorted("post_hoc_" + n for n in DEFAULT["planners"]["post_hoc"])
    assert problems == [
        f"averitec.plans[{len(DEFAULT['averitec']['plans'])}]: 'post_hoc_fever9' is not a plan planners.post_hoc "
        f"defines (expected one of {defined})",
        f"synthesis.without_gold.plans[1]: 'post_hoc_x' is not a plan planners.post_hoc defines (expected one of {defined})",
    ]
    with pytest.raises(P.ParamsError, match=r"averitec\.plans\[8\]: 'post_hoc_fever9'"):
        SCH.check(raw)
    raw["planners"]["post_hoc"]["fever9"] = "fever9.json"  # defined now: that list entry passes
    raw["synthesis"]["without_gold"]["plans"] = ["claim_only"]
    assert SCH.undefined_post_hoc(raw) == []


def test_a_model_check_naming_its_field_is_not_prefixed_with_the_section_again():
    """The forty-ninth pass (L 10b): "store: store.systems: 'a' and 'b' both read x.json" named the section twice."""
    raw = copy.deepcopy(DEFAULT)
    raw["averitec"]["systems"] = {**raw["averitec"]["systems"], "a": "x.json", "b": "x.json"}
    with pytest.raises(P.ParamsError) as err:
        SCH.check(raw)
    assert "averitec.systems: 'a' and 'b' both read x.json; name each system once" in str(err.value)
    assert "averitec: averitec.systems" not in str(err.value) and "s: averitec.systems" not in str(err.value)
    raw = copy.deepcopy(DEFAULT)
    raw["planners"]["post_hoc"] = {"a": "x.json", "b": "x.json"}
    with pytest.raises(P.ParamsError) as err:
        SCH.check(raw)
    assert "planners.post_hoc: 'a' and 'b' both read x.json; name each system once" in str(err.value)


@pytest.mark.parametrize(
    "key, value",
    [
        ("averitec_score.metrics_path", "outputs/metrics/averitec\x00.json"),
        ("llm.cache", "outputs/llm/cache\x1b.jsonl"),
        ("retrieval.model", "sentence-transformers/x\x00"),
    ],
)
def test_a_control_character_in_any_path_or_text_is_refused_by_name(key, value):
    """The fiftieth pass (O 4): a NUL in 66 path-like values passed the schema and ended in "embedded null byte"."""
    raw = copy.deepcopy(DEFAULT)
    section_, _, field = key.partition(".")
    raw[section_][field] = value
    with pytest.raises(P.ParamsError, match=re.escape(f"{key}: expected some text (no control character)")):
        SCH.check(raw)


def test_a_note_keeps_its_line_ends_and_tabs():
    raw = copy.deepcopy(DEFAULT)
    raw["retrieval"]["model"] = "a\tb"  # a tab or a line end is text; a NUL or an escape is not
    SCH.check(raw)


def test_the_kernels_parameter_file_counts_as_another_file(monkeypatch, tmp_path):
    """The fiftieth pass (O 3): STUDY_KERNEL_PARAMS made a stage read another file while `own_output` saw the
    study's own, and the study's plans were rewritten from it."""
    assert P.params_given(None) == ("--params", None, paths.PARAMS_FILE)
    other = tmp_path / "other.yaml"
    monkeypatch.setenv(P.KERNEL_PARAMS_ENV, str(other))
    assert P.params_given(None) == (f"${P.KERNEL_PARAMS_ENV}", other, paths.PARAMS_FILE)
    assert P.params_given(str(other))[1] == other
    # Q 2: a default given as the study's path, redirected by the kernel's variable, is named by the variable
    assert P.params_given(str(paths.PARAMS_FILE))[0] == f"${P.KERNEL_PARAMS_ENV}"


def test_a_systems_list_is_not_read_as_plans():
    """The fiftieth pass (O 7): `repeat_systems: [post_hoc_hero]` was refused as an undefined plan."""
    raw = copy.deepcopy(DEFAULT)
    raw["averitec"]["systems"]["post_hoc_hero"] = raw["averitec"]["systems"].pop("hero_8b")
    raw["averitec"]["repeat_systems"] = ["post_hoc_hero"]
    assert SCH.undefined_post_hoc(raw) == []


@pytest.mark.parametrize(
    "module, args",
    [
        ("lib.analysis.climate_fever", []),
        ("lib.analysis.utility", []),
        ("lib.analysis.without_gold", []),
        ("lib.averitec.ev2r", []),
        ("lib.averitec.evidence", []),
        ("lib.planning.generative", ["plans"]),
        ("lib.planning.generative", ["runs"]),
        ("lib.verifier.averitec", []),
        ("lib.verifier.quantemp", []),
        ("lib.verifier.retrieved_training", []),
        ("lib.verifier.veracity", ["planners"]),
        ("lib.site.execute", ["05_averitec_score", "--section", "averitec_score"]),  # Q 1: notebook and metrics
    ],
)
def test_a_stage_command_writing_the_studys_outputs_takes_only_the_studys_params(module, args, tmp_path):
    """The fiftieth pass (O 5): `python -m lib.verifier.quantemp --params COPY` trained from the copy and would have
    replaced the study's committed outputs, where planners and runs asked for a folder of their own."""
    from lib.cli import NamedError

    copy_ = tmp_path / "p.yaml"
    copy_.write_text(paths.PARAMS_FILE.read_text())
    main = __import__(module, fromlist=["main"]).main
    with pytest.raises(
        NamedError, match=rf"--params {re.escape(str(copy_))}: not the study's own; this command writes"
    ):
        main([*args, "--params", str(copy_)])
    P.study_params_only(str(paths.PARAMS_FILE), "x")  # the study's own file, named: taken


@pytest.mark.parametrize(
    "key, value, expected",
    [
        ("retrieval.concat_separator", "", "expected a separator of one character or more"),
        ("retrieval.concat_separator", "\x00", "expected a separator of one character or more"),
        ("aggregation.metrics_path", "outputs/metrics/aggregation.json\n", "expected some text (no control character)"),
        ("report.reports_dir", "reports\t", "expected some text (no control character)"),
    ],
)
def test_separators_and_notebook_paths_refuse_control_characters(key, value, expected):
    """The fiftieth pass, Q 8 and Q 11: an empty separator ran CONCAT's queries together ("2020who"); a path
    ending in a line end wrote a second metrics file beside the one notebook 10 reads."""
    raw = copy.deepcopy(DEFAULT)
    section_, _, field = key.partition(".")
    raw[section_][field] = value
    with pytest.raises(P.ParamsError, match=re.escape(f"{key}: {expected}")):
        SCH.check(raw)
