"""Clean-output rules of executed notebooks: each rule found, and clean output passes."""

import json
import os

import nbformat
import numpy as np
import pytest

from lib.site import reports as RP

ONE_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC"  # white


def _notebook(tmp_path, *outputs, name="nb.ipynb"):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x = 1", execution_count=1)
    cell.outputs = list(outputs)
    nb.cells = [nbformat.v4.new_markdown_cell("# title"), cell]
    path = tmp_path / name
    nbformat.write(nb, path)
    return path


def stream(text, name="stdout"):
    return nbformat.v4.new_output("stream", name=name, text=text)


def data(mime, text):
    return nbformat.v4.new_output("display_data", data={mime: text})


@pytest.mark.parametrize(
    "output, rule",
    [
        (stream("/tmp/ipykernel_123/456.py:3: FutureWarning: x\n", "stderr"), "stderr"),
        (stream("model saved in /work/main/outputs/models/qgen\n"), "absolute_path"),
        (data("text/markdown", "see `/home/ana/study/outputs/x.json`"), "absolute_path"),
        (stream("train: 45%|████▌     | 9/20 [00:01<00:02]\n"), "tqdm_bar"),
        (stream("Loading weights: done\n"), "loading_weights"),
        (stream("wrote outputs/metrics/x.json\n"), "wrote"),
        (data("text/plain", "{'retrieval': 0.8712827341322681}"), "raw_float"),
        (data("text/html", "<td>0.8712827341322681</td>"), "raw_float"),
        (stream("Figure check: 'Figure 1': legend covers 2 data point(s)\n"), "figure_check"),
        (data("image/png", ONE_PIXEL_PNG), "figure_without_alt"),
    ],
)
def test_each_rule_is_found(tmp_path, output, rule):
    found = RP.scan_notebook(_notebook(tmp_path, output))
    assert rule in {f.rule for f in found}
    assert all(f.cell == 1 and f.notebook == "nb.ipynb" for f in found)


@pytest.mark.parametrize(
    "output",
    [
        stream("500 claims; macro-F1 0.521 [0.47, 0.57]\n"),
        data("text/markdown", "Read from `outputs/metrics/nli.json`; see https://example.org/2020/05/01/story"),
        data("text/html", "<td>0.871</td><td>D1a2b3c4d5e6</td><td>v1.2.3456789</td>"),
        data("text/plain", "claim 4 was coded 'missed implicit aspect'; it wrote itself into history"),
        nbformat.v4.new_output(
            "display_data", data={"image/png": ONE_PIXEL_PNG}, metadata={"image/png": {"alt": "Figure: x."}}
        ),
    ],
)
def test_clean_output_passes(tmp_path, output):
    assert RP.scan_notebook(_notebook(tmp_path, output)) == []


def test_the_command_exits_1_with_findings_and_0_without(tmp_path, capsys):
    bad = _notebook(tmp_path, stream("wrote x\n"), name="bad.ipynb")
    good = _notebook(tmp_path, stream("fine\n"), name="good.ipynb")
    with pytest.raises(RP.NamedError, match=r"^1 finding\(s\) in 2 notebook\(s\), listed above"):  # run_main: exit 1
        RP.main([str(bad), str(good)])
    assert "bad.ipynb: cell 1: wrote: 'wrote x'" in capsys.readouterr().out
    RP.main([str(good)])  # no finding: returns, exit 0
    with pytest.raises(SystemExit) as err:
        RP.main([str(tmp_path / "missing.ipynb")])
    assert "no such notebook" in str(err.value.code)
    os.mkfifo(tmp_path / "pipe.ipynb")
    with pytest.raises(SystemExit) as err:
        RP.main([str(tmp_path / "pipe.ipynb")])
    assert str(err.value.code).startswith("error: not a notebook file (a folder, a pipe?): ")


def test_paths_are_shown_relative_to_the_repository_or_by_name():
    from lib.paths import ROOT

    assert RP.shown_path(ROOT / "outputs" / "judging" / "sheet.csv") == "outputs/judging/sheet.csv"
    assert RP.shown_path("annotations/coding_sheet_filled.csv") == "annotations/coding_sheet_filled.csv"
    assert RP.shown_path("/tmp/pytest-1/x/filled.csv") == "filled.csv"


def test_setup_in_a_kernel_flags_an_unreadable_figure_and_silences_model_loading(tmp_path):
    """Executed for real: `setup()` installs the figure check in the kernel, and loading the bundled
    MiniLM leaves nothing on stderr."""
    import papermill as pm

    from lib.paths import ROOT

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import matplotlib.pyplot as plt\nfrom lib import models as MD\nfrom lib.site import reports as RP\n\nRP.setup()"
        ),
        nbformat.v4.new_code_cell("encoder = MD.load_encoder('sentence-transformers/all-MiniLM-L6-v2')"),
        nbformat.v4.new_code_cell(
            "fig, ax = plt.subplots()\nax.set_title('Figure 1. Good')\nax.plot([0, 1], [0, 1], 'o')\nplt.show()"
        ),
        nbformat.v4.new_code_cell(
            "fig, ax = plt.subplots()\nax.set_title('Figure 2. Crowded')\n"
            "ax.text(0.5, 0.5, 'one', transform=ax.transAxes)\nax.text(0.5, 0.5, 'two', transform=ax.transAxes)\n"
            "plt.show()"
        ),
    ]
    src, out = tmp_path / "in.ipynb", tmp_path / "out.ipynb"
    nbformat.write(nb, src)
    pm.execute_notebook(str(src), str(out), cwd=str(ROOT), kernel_name="python3", progress_bar=False)
    found = RP.scan_notebook(out)
    assert [(f.cell, f.rule) for f in found] == [(3, "figure_check")], [str(f) for f in found]
    assert "'Figure 2. Crowded': text 'one' overlaps text 'two'" in found[0].excerpt
    # every figure carries its alternative text, and the report puts it on the image
    from lib.site.render import render_html

    alts = [
        o.metadata["image/png"]["alt"]
        for c in nbformat.read(out, 4).cells
        for o in c.outputs
        if "image/png" in o.get("data", {})
    ]
    assert alts == ["Figure: Figure 1. Good.", "Figure: Figure 2. Crowded."]
    html = render_html(out, tmp_path / "reports").read_text()
    assert 'alt="Figure: Figure 1. Good."' in html and "No description has been provided" not in html


def test_write_metrics_writes_whole_files_and_shows_nothing(tmp_path):
    path = tmp_path / "m" / "x.json"
    assert RP.write_metrics({"a": {"b": 1}}, path) is None  # a notebook cell ending with it shows no output
    assert path.read_text() == '{\n  "a": {\n    "b": 1\n  }\n}\n'
    with pytest.raises(TypeError):
        RP.write_metrics({"a": object()}, path)
    assert json.loads(path.read_text()) == {"a": {"b": 1}}  # the previous file, whole
    assert [p.name for p in path.parent.iterdir()] == ["x.json"]  # no temporary file left
    RP.write_metrics({"v": np.float32(0.5)}, path, default=float)
    assert json.loads(path.read_text()) == {"v": 0.5}


def test_a_notebook_without_code_is_a_finding(tmp_path):
    """Markdown only, or no cell at all: passed with 0 findings before."""
    path = tmp_path / "empty.ipynb"
    for cells in ([nbformat.v4.new_markdown_cell("# 01")], []):
        nb = nbformat.v4.new_notebook()
        nb.cells = cells
        nbformat.write(nb, path)
        assert [f.rule for f in RP.scan_notebook(path)] == ["not_executed"]


def test_a_notebook_whose_cells_never_ran_is_a_finding(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 01"),
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_code_cell("x"),
    ]
    path = tmp_path / "skeleton.ipynb"
    nbformat.write(nb, path)
    assert [(f.rule, f.excerpt) for f in RP.scan_notebook(path)] == [("not_executed", "none of its 2 code cells ran")]
    nb.cells[1].execution_count = 1
    nbformat.write(nb, path)
    assert [(f.cell, f.rule, f.excerpt) for f in RP.scan_notebook(path)] == [
        (2, "partly_executed", "1 of its 2 code cells did not run")
    ]
    nb.cells[2].execution_count = 2
    nbformat.write(nb, path)
    assert RP.scan_notebook(path) == []
    nb.cells[2].outputs = [
        nbformat.v4.new_output("error", ename="KeyError", evalue="'x'", traceback=["Traceback", "KeyError: 'x'"])
    ]
    nbformat.write(nb, path)
    assert [(f.cell, f.rule, f.excerpt) for f in RP.scan_notebook(path)] == [(2, "error", "KeyError: 'x'")]
    for text in ("", "{not json", '{"cells": 3}'):
        path.write_text(text)
        ((finding),) = RP.scan_notebook(path)
        assert finding.rule == "unreadable" and finding.excerpt.startswith("not a notebook nbformat can read")


def test_a_notebook_over_the_input_bound_is_a_finding_never_read_whole(tmp_path, monkeypatch):
    """A notebook with a 600 MB output filled 1.4 GB and ended in a MemoryError traceback."""
    from lib import data as D

    path = tmp_path / "big.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]), path)
    monkeypatch.setattr(D, "MAX_INPUT_BYTES", 100)
    ((finding),) = RP.scan_notebook(path)
    assert finding.rule == "unreadable" and "over the bound of 100 (set $LIB_MAX_INPUT_BYTES" in finding.excerpt


def test_a_notebook_with_a_damaged_cell_is_one_named_error_for_every_reader(tmp_path):
    """A cell whose source is a number read without a word, then failed in each reader with a traceback."""
    from lib.cli import NamedError
    from lib.site.catalogue import read_notebook

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 99 · x"), nbformat.v4.new_code_cell("1")]
    raw = json.loads(nbformat.writes(nb))
    raw["cells"][1]["source"] = 42
    path = tmp_path / "99_x.ipynb"
    path.write_text(json.dumps(raw))
    with pytest.raises(NamedError, match=r"99_x.ipynb: cell 1: expected a cell with a type and text source, got int"):
        read_notebook(path)
    assert [f.rule for f in RP.scan_notebook(path)] == ["unreadable"]


def test_the_site_refuses_a_notebook_whose_cells_never_ran_or_whose_name_is_a_site_page(tmp_path):
    from lib.cli import NamedError
    from lib.site.render import check_executed

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 99 · x"), nbformat.v4.new_code_cell("1")]
    for name, problem in [
        ("index", "expected an executed study notebook named NN_topic"),
        ("99_x", "none of its 1 code cells ran"),
    ]:
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
        with pytest.raises(NamedError, match=problem):
            check_executed(tmp_path / f"{name}.ipynb")
    nb.cells[1].execution_count = 1
    nbformat.write(nb, tmp_path / "99_x.ipynb")
    check_executed(tmp_path / "99_x.ipynb")


def test_two_notebooks_of_one_name_are_refused_before_any_page(tmp_path):
    """The second notebook's page replaced the first's, silently."""
    import shutil

    from lib.cli import NamedError
    from lib.paths import EXECUTED_DIR
    from lib.site import render as RE

    first = EXECUTED_DIR / "05_averitec_score.ipynb"
    shutil.copy(EXECUTED_DIR / "01_knowledge_store.ipynb", tmp_path / first.name)
    with pytest.raises(NamedError, match="05_averitec_score: two notebooks of this name were given"):
        RE.main(["html", str(first), str(tmp_path / first.name)])


@pytest.mark.parametrize("record", [{"exercise": "10.1", "expected": "abc", "tol": 0.1}, ["10.1"], {"exercise": 10}])
def test_the_teachers_page_names_a_check_record_edited_out_of_shape(record):
    """`render html` of an executed notebook whose check record said `expected: "abc"` was a traceback."""
    import nbformat

    from lib.cli import NamedError
    from lib.site.checks import RECORD_MIME
    from lib.site.render import with_expected_values

    cell = nbformat.v4.new_code_cell('check("10.1", answer, 1.0)')
    cell.outputs = [nbformat.v4.new_output("display_data", data={RECORD_MIME: record})]
    with pytest.raises(NamedError, match=r"10_x.ipynb: cell 0: a check record that is not the check's \("):
        with_expected_values(nbformat.v4.new_notebook(cells=[cell]), "10_x.ipynb")


def test_a_notebook_outside_the_format_is_one_named_error(tmp_path):
    """A stream output whose text was a number, or a kernelspec that was no object: tracebacks in the site and
    the report check (which passed the second with 0 findings)."""
    import json

    import nbformat

    from lib.cli import NamedError
    from lib.site.catalogue import read_notebook

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    raw = json.loads(nbformat.writes(nb))
    raw["cells"][0]["outputs"][0]["text"] = 123
    (tmp_path / "a.ipynb").write_text(json.dumps(raw))
    with pytest.raises(NamedError, match=r"a.ipynb: cells/0/outputs/0/text: .* \(a damaged notebook\)"):
        read_notebook(tmp_path / "a.ipynb")


def test_a_page_that_is_a_link_to_the_notebook_it_renders_is_refused_before_any_write(tmp_path, monkeypatch):
    """A students' page, a teacher's page or the MathJax file linked to the input replaced the notebook with
    HTML or JavaScript, exit 0."""
    import shutil

    from lib.cli import NamedError
    from lib.paths import EXECUTED_DIR
    from lib.site import render as RE

    nb = tmp_path / "10_synthesis.ipynb"
    shutil.copy(EXECUTED_DIR / "10_synthesis.ipynb", nb)
    before = nb.read_bytes()
    monkeypatch.setattr(RE, "REPORTS_DIR", tmp_path / "reports")
    for link in ("10_synthesis.html", "teacher/10_synthesis.html", RE.MATHJAX_FILE.as_posix()):
        page = tmp_path / "reports" / link
        page.parent.mkdir(parents=True, exist_ok=True)
        page.symlink_to(nb)
        with pytest.raises(NamedError, match=r"is also an input of this command"):
            RE.main(["html", str(nb)])
        page.unlink()
        assert nb.read_bytes() == before


def test_a_thumbnail_or_site_page_linked_to_the_notebook_is_refused_with_index(tmp_path):
    from lib.site import render as RE

    targets = {p.relative_to(tmp_path).as_posix() for p in RE.site_targets(["x/03_aggregation.ipynb"], tmp_path, True)}
    assert {"thumbs/03_aggregation_1.png", "thumbs/03_aggregation_4.png", "explorer.html", "index.html"} <= targets
    assert "thumbs/03_aggregation_1.png" not in {
        p.relative_to(tmp_path).as_posix() for p in RE.site_targets(["x/03_aggregation.ipynb"], tmp_path, False)
    }


@pytest.mark.parametrize("meta", [{"image/png": "wide"}, {"image/png": {"alt": 5}}, {"image/png": {"alt": "  "}}])
def test_figure_metadata_that_is_no_alt_text_is_a_finding_and_renders(tmp_path, meta):
    """nbformat takes any metadata value: a string ended the report check and the render in a traceback, a
    number as alt text passed the check and ended the render (the twenty-eighth pass)."""
    from lib.site.render import with_alt_text

    path = _notebook(tmp_path, nbformat.v4.new_output("display_data", data={"image/png": ONE_PIXEL_PNG}, metadata=meta))
    assert [f.rule for f in RP.scan_notebook(path)] == ["figure_without_alt"]
    out = with_alt_text(nbformat.read(path, as_version=4)).cells[1].outputs[0]
    assert "text/html" not in out["data"]  # shown as nbconvert shows any figure, not a traceback


def test_a_metrics_file_with_two_values_of_one_flattened_key_is_refused(tmp_path, capsys):
    """The thirty-fourth pass: `render metrics` of {"e.f": 1, "e": {"f": 2}} printed `e.f: 2` alone, exit 0."""
    from lib.cli import run_main
    from lib.site import catalogue as CAT
    from lib.site.render import main

    path = tmp_path / "m.json"
    path.write_text('{"e.f": 1, "e": {"f": 2}}')
    with pytest.raises(ValueError, match=r"^two values flatten to the key 'e\.f'"):
        CAT.flatten(json.loads(path.read_text()))
    with pytest.raises(SystemExit) as end:
        run_main(lambda: main(["metrics", str(path)]))
    assert end.value.code == 1 and capsys.readouterr().err == (
        f"error: {path}: two values flatten to the key 'e.f' (a key with a dot beside a nested one)\n"
    )
    assert CAT.flatten({"a": {"b": 1}, "c": 2}) == {"a.b": 1, "c": 2}


def test_render_metrics_prints_one_line_per_metric(tmp_path, capsys):
    """The thirty-fifth pass: `Infinity` printed "inf" and a key or value with a line break printed a line that
    read as another metric."""
    from lib.site.render import main

    path = tmp_path / "m.json"
    path.write_text('{"a": Infinity, "k\\nj": "x\\n  z: 9", "b": 0.5}')
    main(["metrics", str(path)])
    assert capsys.readouterr().out.splitlines()[1:] == [
        "  a: undefined (infinite)",
        "  'k\\nj': 'x\\n  z: 9'",
        "  b: 0.5",
    ]


@pytest.mark.parametrize(
    ("history", "unknown"),
    [
        (
            ["", "# Parameters (papermill overrides)\nrules = {}\nk = 3", "# Parameters\nfound_share = 1.0\n"],
            ["found_share"],
        ),
        (["", "# Parameters (papermill overrides)\nrules = {}\nk = 3", "# Parameters\nrules = {'a': 1}\nk = 5\n"], []),
        (["", "# Parameters (x)\nk: int = 3\nn = m = 1", "# Parameters\nk = 1\nm = 2\nz = 0\n"], ["z"]),
        (["", "# Parameters (x)\nk = 3", "# Parameters\nk = 1\n", "x = 1"], []),  # a later cell is no parameter
        (["", "k = 3", "# Parameters\nq = 1\n"], []),  # no parameters cell of ours to compare with
        (["", "# Parameters (x)\nk = 3"], []),  # run by hand: nothing injected
        (["", "# Parameters (x)\nk = (", "# Parameters\nk = 1\n"], ["k"]),  # a parameters cell that is no Python
    ],
)
def test_unknown_parameters_are_those_the_injected_cell_adds(history, unknown):
    assert RP.unknown_parameters(history) == unknown


def test_a_parameter_the_notebook_does_not_define_stops_papermill(tmp_path):
    """`papermill nb.ipynb out.ipynb -f my.yaml` with a key at the wrong level warned "Passed unknown
    parameter" and ran the notebook on its defaults, exit 0; a defined one runs."""
    import papermill as pm

    from lib.paths import ROOT

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("# Parameters (papermill overrides these)\nrules = {'found_share': 0.5}"),
        nbformat.v4.new_code_cell("from lib.site import reports as RP\n\nRP.setup()\nprint(rules)"),
    ]
    nb.cells[0].metadata["tags"] = ["parameters"]
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "Python 3"}
    src, out = tmp_path / "in.ipynb", tmp_path / "out.ipynb"
    nbformat.write(nb, src)
    with pytest.raises(pm.PapermillExecutionError, match=r"ParameterError.*\['found_share'\].*defined: \['rules'\]"):
        pm.execute_notebook(
            str(src),
            str(out),
            parameters={"found_share": 1.0},
            cwd=str(ROOT),
            kernel_name="python3",
            progress_bar=False,
        )
    pm.execute_notebook(
        str(src),
        str(out),
        parameters={"rules": {"found_share": 1.0}},
        cwd=str(ROOT),
        kernel_name="python3",
        progress_bar=False,
    )
    assert "{'found_share': 1.0}" in "".join(nbformat.read(out, 4).cells[2].outputs[0]["text"])


def test_every_notebook_parameters_cell_begins_as_the_check_reads_it():
    """Else the injected-parameters check would find no parameters cell and pass everything."""
    from lib.paths import ROOT

    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cells = [c for c in nbformat.read(path, 4).cells if "parameters" in c.metadata.get("tags", [])]
        assert len(cells) == 1 and cells[0].source.startswith(RP.PARAMETERS_HEADER), path.name
        assert "RP.setup()" in "".join(c.source for c in nbformat.read(path, 4).cells), path.name


@pytest.mark.parametrize(
    "injected, problem",
    [
        ("without_gold = {'plans': [], 'scopes': ['claim', 'global']}", "synthesis.without_gold.plans: List should"),
        (
            "without_gold = {'plans': ['oracle'], 'scopes': ['claim'], 'bogus': 1}",
            "synthesis.without_gold.bogus: unknown",
        ),
        ("averitec = {'plans': ['oracle', 'claim_only'], 'repeats': -1}", "averitec.repeats:"),
        ("averitec = {'plans': ['oracle', 'claim_only']}", None),  # keys a shared section leaves out: not read
        ("focus = 'BM25/claim'", "synthesis.focus: expected retriever/scope"),
        ("focus = 'bm25/claim'", None),
        ("x = 1", None),  # not a parameter: the names check's matter
    ],
)
def test_values_papermill_passes_are_checked_as_params_yaml_is(injected, problem):
    """The forty-seventh pass, second round: `-y 'without_gold: {plans: []}'` ended in a KeyError cells later,
    `-y '... bogus: 1'` ran with the key ignored, `-p focus BM25/claim` blamed a metric; params.yaml's checks
    name each."""
    from lib.paths import ROOT

    cells = nbformat.read(ROOT / "notebooks" / "10_synthesis.ipynb", 4).cells
    parameters = next(c.source for c in cells if "parameters" in c.metadata.get("tags", []))
    namespace: dict = {}
    exec(parameters, namespace)
    exec(injected, namespace)
    found = RP.injected_value_problems([parameters, RP.INJECTED_HEADER + injected], namespace)
    if problem is None:
        assert found == []
    else:
        assert any(p.startswith(problem) for p in found), found


def test_a_shared_section_left_at_none_is_no_problem():
    """The second round's first version validated `generative = None` (notebook 06: "None: params section") as a
    section and stopped the pipeline's own run."""
    from lib.paths import ROOT

    cells = nbformat.read(ROOT / "notebooks" / "06_generative_planners.ipynb", 4).cells
    parameters = next(c.source for c in cells if "parameters" in c.metadata.get("tags", []))
    for injected in ("generative = None", "retrieval = None\ngenerative = None", "verification_report = None"):
        namespace: dict = {}
        exec(parameters, namespace)
        exec(injected, namespace)
        assert RP.injected_value_problems([parameters, RP.INJECTED_HEADER + injected], namespace) == [], injected
