"""lib.site.course: exercise checks, the students' and teacher's versions, the course file, the glossary and the
front page (rendered in headless Chromium); the real notebooks' exercises and definitions."""

import copy
import io
import json
import re

import nbformat
import pytest
from conftest import chromium
from pydantic import ValidationError

from lib.params import section
from lib.paths import METRICS_DIR, NOTEBOOKS_DIR
from lib.site import course as CO
from lib.site.catalogue import numbered
from lib.site.figures import PNG_SIGNATURE


def _notebook(path, cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    nbformat.write(nb, path)
    return path


def _concluded(path, cells, points=4):
    """An executed notebook whose `## Conclusion` cell displayed `points` markdown points."""
    code = nbformat.v4.new_code_cell("display(Markdown(lines))")
    text = "**Conclusions** (setting).\n\n" + "".join(
        f"- Point {k} of {path.stem},\n  **computed**.\n" for k in range(1, points + 1)
    )
    code.outputs = [nbformat.v4.new_output("display_data", data={"text/markdown": text})]
    return _notebook(path, [*cells, nbformat.v4.new_markdown_cell("## Conclusion"), code])


def _cell(kind, source, *tags):
    cell = nbformat.v4.new_markdown_cell(source) if kind == "md" else nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = list(tags)
    return cell


def _exercise(number, solution="# BEGIN SOLUTION\nanswer = 1\n# END SOLUTION", check=None):
    return [
        _cell("md", f"**Exercise {number}** (about 5 min). Compute one.\n\nMore text.", "exercise"),
        _cell("code", solution, "solution"),
        _cell("code", check or f'CO.check("{number}", answer, 1)', "check"),
    ]


def test_exercises_are_parsed_and_their_problems_named(tmp_path):
    good = _notebook(tmp_path / "02_x.ipynb", [*_exercise("02.1"), *_exercise("02.2")])
    assert [(e.number, e.minutes, e.task) for e in CO.exercises(good)] == [
        ("02.1", 5, "Compute one."),
        ("02.2", 5, "Compute one."),
    ]
    assert CO.exercise_problems(good) == []
    one = _notebook(tmp_path / "03_y.ipynb", _exercise("03.1"))
    assert CO.exercise_problems(one) == ["03_y.ipynb: 1 exercise(s), expected at least 2"]
    wrong = _notebook(tmp_path / "04_z.ipynb", [*_exercise("04.1"), *_exercise("04.3")])
    assert "exercises numbered ['04.1', '04.3'], expected ['04.1', '04.2']" in CO.exercise_problems(wrong)[0]
    broken = _notebook(
        tmp_path / "05_w.ipynb",
        [*_exercise("05.1", solution="answer = 1"), *_exercise("05.2", check='CO.check("05.1", answer, 1)')],
    )
    assert CO.exercise_problems(broken) == [
        "05_w.ipynb: the solution of exercise 05.1: its `# BEGIN SOLUTION` ... `# END SOLUTION` blocks are not whole "
        "(each marker on a line of its own, one END for each BEGIN, none nested); the students' version would show "
        "the solution",
        "05_w.ipynb: the check after exercise 05.2 does not call check('05.2', ...)",
    ]
    lone = _notebook(tmp_path / "06_v.ipynb", [_exercise("06.1")[0], *_exercise("06.2")])
    assert "exercise 06.1 is not followed by a solution and a check cell" in CO.exercise_problems(lone)[0]
    bad = _notebook(tmp_path / "07_u.ipynb", [_cell("md", "Exercise 1: do it", "exercise")])
    with pytest.raises(CO.CourseError, match=r"07_u.ipynb: cell 0 is tagged `exercise` but does not start with"):
        CO.exercises(bad)


def test_students_version_replaces_solutions_with_stubs_and_drops_their_outputs(tmp_path):
    cells = _exercise(
        "02.1", solution="x = 0\n    # BEGIN SOLUTION\n    answer = x + 1\n    # END SOLUTION\nprint(answer)"
    )
    cells[2].outputs = [nbformat.v4.new_output("stream", text="Exercise 02.1: correct.\n")]
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    student = CO.strip_solutions(nb)
    assert student.cells[1].source == (
        "x = 0\n    answer = None\n    # Your code here: compute `answer` (then run the check below).\n"
        "    raise NotImplementedError('Exercise 02.1')\nprint(answer)"
    )
    assert student.cells[2].outputs == [] and nb.cells[2].outputs  # a copy: the teacher's version is untouched
    assert "answer = x + 1" in nb.cells[1].source


def test_definitions_need_an_anchor_and_a_bold_term(tmp_path):
    ok = _notebook(
        tmp_path / "02_a.ipynb",
        [_cell("md", '<a id="ndcg"></a>**NDCG@k** (normalised): the gains.\n\nA worked example.', "definition")],
    )
    (d,) = CO.definitions(ok)
    assert (d.anchor, d.term, d.text, d.notebook) == ("ndcg", "NDCG@k", "**NDCG@k** (normalised): the gains.", "02_a")
    bad = _notebook(tmp_path / "02_b.ipynb", [_cell("md", "**NDCG** is ...", "definition")])
    with pytest.raises(CO.CourseError, match="cell 0 is tagged `definition` but does not start with"):
        CO.definitions(bad)


def test_the_course_file_is_checked_against_the_notebooks(tmp_path):
    nbs = tmp_path / "nbs"
    nbs.mkdir()
    for name in ("01_a", "02_b"):
        _notebook(nbs / f"{name}.ipynb", [_cell("md", f"# {name[:2]} · T")])
    unit = "    objectives: [o]\n    prerequisites: [p]\n    lab: [{minutes: 50, do: a}, {minutes: %d, do: b}]\n"
    head = "title: T\naudience: A\nbefore_the_course: [x]\nnotebooks:\n"
    path = tmp_path / "course.yaml"
    path.write_text(head + "  01_a:\n" + unit % 40 + "  02_b:\n" + unit % 40)
    assert set(CO.load_course(path, nbs).notebooks) == {"01_a", "02_b"}
    path.write_text(head + "  01_a:\n" + unit % 41 + "  03_c:\n" + unit % 10)
    with pytest.raises(CO.CourseError) as err:
        CO.load_course(path, nbs)
    assert "no unit for notebook(s) ['02_b']" in str(err.value)
    assert "units for notebooks that do not exist: ['03_c']" in str(err.value)
    assert "notebooks.01_a.lab: 91 min, more than one 90-minute session" in str(err.value)
    path.write_text(head + "  01_a:\n" + unit % 40 + "    homework: x\n")
    with pytest.raises(CO.CourseError, match=r"notebooks.01_a.homework: Extra inputs are not permitted"):
        CO.load_course(path, nbs)


# The terms issue 17 asks for, and where each is first used (a regex over the notebooks' cells).
TERMS = {
    "relevance-grades": r"\bgrade\b",
    "ndcg": r"NDCG",
    "recall-at-k": r"Recall@",
    "precision-at-k": r"\bP@",
    "mrr": r"\bMRR\b",
    "map": r"\bMAP\b",
    "combmax-norm": r"COMBMAX-NORM",
    "rank-fusion": r"\bRRF\b",
    "bootstrap-ci": r"bootstrap",
    "paired-bootstrap": r"paired bootstrap",
    "holm": r"\bHolm\b",
    "paired-t": r"paired t-test",
    "judged-share": r"[Jj]udged share",
    "condensed": r"condensed NDCG",
    "cohens-kappa": r"kappa",
    "meteor": r"METEOR",
    "hungarian": r"Hungarian",
    "averitec-score": r"AVeriTeC score",
    "macro-f1": r"macro.F1",
    "mcnemar": r"McNemar",
    "kl-divergence": r"\bKL\b",
    "spearman": r"Spearman",
    "source-works": r"\bthe thesis\b",
    "ece": r"\bECE\b",
    "temperature-scaling": r"[Tt]emperature scaling",
    "statistical-power": r"minimum detectable",
}


def test_every_term_is_defined_once_in_the_first_notebook_that_uses_it():
    defined = {d.anchor: d.notebook for n in numbered() for d in CO.definitions(NOTEBOOKS_DIR / f"{n}.ipynb")}
    anchors = [d.anchor for n in numbered() for d in CO.definitions(NOTEBOOKS_DIR / f"{n}.ipynb")]
    assert len(anchors) == len(set(anchors)), "a term defined twice"
    assert set(TERMS) <= set(defined)
    for anchor, pattern in TERMS.items():
        first = next(
            n
            for n in numbered()
            if any(re.search(pattern, c.source) for c in nbformat.read(NOTEBOOKS_DIR / f"{n}.ipynb", 4).cells)
        )
        assert defined[anchor] == first, f"{anchor} is first used in {first} but defined in {defined[anchor]}"


def test_every_notebook_has_checkable_exercises_and_the_course_file_covers_them():
    course = CO.load_course()
    assert list(course.notebooks) == numbered()
    for name in numbered():
        assert CO.exercise_problems(NOTEBOOKS_DIR / f"{name}.ipynb") == []
        assert 2 <= len(CO.exercises(NOTEBOOKS_DIR / f"{name}.ipynb")) <= 3


def test_exercise_copies_for_students_and_teachers(tmp_path):
    students = CO.write_exercises(tmp_path / "s")
    teachers = CO.write_exercises(tmp_path / "t", teacher=True)
    assert [p.name for p in students] == [f"{n}.ipynb" for n in numbered()]
    for s, t in zip(students, teachers):
        assert "BEGIN SOLUTION" not in s.read_text() and "raise NotImplementedError('Exercise" in s.read_text()
        assert "BEGIN SOLUTION" in t.read_text() and "raise NotImplementedError('Exercise" not in t.read_text()
    answered = students[0].read_text() + "\n"  # a student's work in the copy
    students[0].write_text(answered)
    with pytest.raises(
        CO.CourseError, match=r"/s: already holds copies \(01_.*\.ipynb, .*perhaps with a class's answers"
    ):
        CO.write_exercises(tmp_path / "s")  # a rerun replaced their answers without a word
    assert students[0].read_text() == answered


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The front page, course page and glossary from the real notebooks, course file and committed metrics,
    with one executed figure per notebook (a fixture: the real executed notebooks are pipeline outputs)."""
    import base64
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tmp = tmp_path_factory.mktemp("site")
    fig, ax = plt.subplots(figsize=(8, 3))
    ax.plot([0, 1, 2], [1, 3, 2])
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    png = base64.b64encode(buf.getvalue()).decode()
    executed = []
    for name in numbered():
        cell = nbformat.v4.new_code_cell("plot()")
        cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": png})]
        executed.append(_concluded(tmp / f"{name}.ipynb", [cell]))
    reports = tmp / "reports"
    explorer = tmp / "explorer.html"
    explorer.write_text("<!DOCTYPE html><title>explorer</title><p>the evidence explorer</p>")
    report = section("report")
    pages = CO.write_site(
        report["headlines"], executed, reports, metrics_dir=METRICS_DIR, explorer=explorer,
        conclusion_points=report["conclusion_points"],
    )  # fmt: skip
    return reports, pages


def test_the_site_links_every_notebook_term_and_exercise(site):
    reports, pages = site
    assert [p.relative_to(reports).as_posix() for p in pages] == [
        "explorer.html",
        "index.html",
        "course.html",
        "glossary.html",
        "teacher/index.html",
    ]
    index, course, glossary = ((reports / f).read_text() for f in ("index.html", "course.html", "glossary.html"))
    for name in numbered():
        assert f'href="{name}.html"' in index and f'src="thumbs/{name}_1.png"' in index
        assert f'<section id="{name}">' in course and f'href="teacher/{name}.html"' in course
    for anchor, notebook in [("ndcg", "02_query_planning"), ("hungarian", "05_averitec_score")]:
        assert f'href="{notebook}.html#{anchor}"' in glossary and f'href="{notebook}.html#{anchor}"' in index
    assert "Exercise" not in glossary and "<b>02.1</b> (about 8 min)" in course
    assert "Lab plan (90 min)" in course
    teacher = (reports / "teacher" / "index.html").read_text()
    assert 'href="../index.html"' in teacher and "python -m lib.site.grading grade submissions/" in teacher
    # the discussion prompts' expected answers: on the teacher's index, never on the students' course page
    answered = [st.answer for u in CO.load_course().notebooks.values() for st in u.lab if st.answer]
    assert len(answered) >= 8
    assert all(a.split()[0] in teacher for a in answered) and "Expected answer" not in course
    assert teacher.count("<b>Expected answer.</b>") == len(answered)
    assert 'the <a href="explorer.html">evidence explorer</a>' in index
    # each card quotes its notebook's computed conclusion: the points params report.conclusion_points names
    cards = {n: index.split(f'<div class="card" id="{n}">')[1].split('<div class="card"')[0] for n in numbered()}
    for name, card in cards.items():
        shown = re.findall(r'<p class="conclusion">Point (\d) of (\w+), <b>computed</b>.</p>', card)
        want = section("report")["conclusion_points"].get(name, [1])
        assert shown == [(str(k), name) for k in want], name
    assert len(re.findall('class="conclusion"', cards["06_generative_planners"])) == 2  # both scopes
    assert (reports / "explorer.html").read_text().endswith("<p>the evidence explorer</p>")


def test_a_conclusion_is_read_from_the_cell_after_its_heading_or_named_missing(tmp_path):
    from lib.site.catalogue import conclusion

    path = _concluded(tmp_path / "02_x.ipynb", [], points=2)
    assert conclusion(path, [2, 1]) == ["Point 2 of 02_x, **computed**.", "Point 1 of 02_x, **computed**."]
    with pytest.raises(ValueError, match=r"its conclusion shows 2 point\(s\); the front page asks for points \[3\]"):
        conclusion(path, [3])
    with pytest.raises(ValueError, match="no code cell after a '## Conclusion' heading"):
        conclusion(_notebook(tmp_path / "03_y.ipynb", [nbformat.v4.new_code_cell("x")]))
    with pytest.raises(ValueError, match="its conclusion shows 0 point"):  # a notebook not run yet
        conclusion(
            _notebook(
                tmp_path / "04_z.ipynb",
                [nbformat.v4.new_markdown_cell("## Conclusion"), nbformat.v4.new_code_cell("x")],
            )
        )


def test_the_front_page_links_the_explorer_only_when_there_is_one(tmp_path):
    executed = [_concluded(tmp_path / f"{name}.ipynb", []) for name in numbered()]
    CO.write_site({}, executed, tmp_path / "reports", metrics_dir=METRICS_DIR)
    assert "explorer.html" not in (tmp_path / "reports" / "index.html").read_text()
    assert not (tmp_path / "reports" / "explorer.html").exists()


@pytest.mark.parametrize("width,height", [(1024, 768), (1366, 768), (1920, 1080)])  # projector, laptop, wide screen
def test_the_front_page_renders_in_a_browser_without_overflow_or_broken_images(site, width, height):
    reports, _ = site
    for page in ("index.html", "course.html", "glossary.html"):
        dom = chromium(f"--window-size={width},{height}", "--dump-dom", (reports / page).as_uri())
        body = re.search(r"<body[^>]*>", dom).group(0)
        assert 'data-overflow="false"' in body and 'data-broken="0"' in body, (page, width, body)


def test_a_screenshot_of_the_front_page_shows_the_page(site, tmp_path):
    from PIL import Image

    reports, _ = site
    shot = tmp_path / "front.png"
    chromium("--window-size=1366,900", f"--screenshot={shot}", (reports / "index.html").as_uri())
    img = Image.open(shot).convert("RGB")
    assert img.size == (1366, 900)
    colours = img.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # text, links and thumbnails, not a blank page


OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND"  # every host name fails to resolve: no request can leave


def test_a_notebook_page_renders_its_formulas_with_the_network_off_and_links_the_site(tmp_path):
    """The rendered notebook pages load nothing from elsewhere (MathJax from the reports' own `assets/`), a
    formula is typeset in a browser that can reach no host, and each page is titled with its notebook and
    links the front page, course, glossary and its other version."""
    from lib.paths import EXECUTED_DIR
    from lib.site.render import render_html

    executed = EXECUTED_DIR / "09_relevance_vs_utility.ipynb"
    for teacher in (False, True):
        page = render_html(executed, tmp_path, teacher=teacher, explorer=True)
        html = page.read_text()
        remote = re.findall(r'<(?:script|img|link|iframe|source)\b[^>]*\b(?:src|href)="(?:https?:)?//[^"]*"', html)
        assert remote == []
        assert "$$\\mathrm{KL}(p" in html  # the definition's formula, left for MathJax
        dom = chromium(OFFLINE, "--virtual-time-budget=15000", "--dump-dom", page.as_uri())
        assert 'data-math="typeset"' in dom and dom.count('<mjx-container class="MathJax') >= 1
        assert '<g data-mml-node="merror"' not in dom  # no formula MathJax could not read
        title = re.search(r"<title>(.*?)</title>", html).group(1)
        nav = re.search(r'<nav [^>]*class="study-nav".*?</nav>', html, re.S).group(0)
        if teacher:
            assert title == "09 · Relevance versus utility (teacher's version)"
            assert 'href="../index.html"' in nav and 'href="../09_relevance_vs_utility.html"' in nav
        else:
            assert title == "09 · Relevance versus utility"
            assert 'href="course.html"' in nav and 'href="teacher/09_relevance_vs_utility.html"' in nav
            assert 'href="explorer.html"' in nav and 'href="glossary.html"' in nav
    assert (tmp_path / "assets" / "mathjax.js").stat().st_size > 1_000_000


def test_the_teachers_page_shows_each_checks_expected_value_and_mistakes():
    from lib.site.checks import RECORD_MIME
    from lib.site.render import with_expected_values

    cell = nbformat.v4.new_code_cell('check("02.1", answer, 0.5, HAND, {"divide by 10": 0.2})')
    record = {"exercise": "02.1", "answer": 0.5, "attempted": True, "expected": 0.5, "tol": 5e-4, "passed": True}
    record["mistakes"] = {"divide by 10 instead of the relevant count": 0.2}
    cell.outputs = [nbformat.v4.new_output("display_data", data={RECORD_MIME: record})]
    nb = nbformat.v4.new_notebook()
    nb.cells = [cell]
    shown = with_expected_values(nb).cells[0].outputs[0]["data"]["text/html"]
    assert shown == (
        '<div class="expected"><b>For the teacher.</b> Exercise 02.1: expected 0.5 (tolerance 0.0005); the typical '
        "mistakes it names:<ul><li>divide by 10 instead of the relevant count: 0.2</li></ul></div>"
    )
    assert "text/html" not in nb.cells[0].outputs[0]["data"]  # a copy
    # the bound the check applies, not the raw tolerance (the twenty-ninth pass: "tolerance 1e-09" beside 2.25e-22)
    tiny = copy.deepcopy(nb)
    tiny.cells[0].outputs[0]["data"][RECORD_MIME] |= {"expected": 2.25e-13, "tol": 1e-9}
    assert (
        "(tolerance 2.25e-22: 1e-09 times the expected value, which is closer to 0 than 1e-09)"
        in (with_expected_values(tiny).cells[0].outputs[0]["data"]["text/html"])
    )


def test_headline_values_read_as_printed_once():
    from lib.site.catalogue import format_value

    assert [format_value(v) for v in (0.12345, 3, True, False, "live")] == ["0.123", "3", "yes", "no", "live"]
    # an infinity is no number to show, and a share of 0.0004 is not "0.000"
    assert [format_value(v) for v in (float("inf"), -float("inf"), 0.0004, -0.0001, 0.0)] == [
        "undefined (infinite)", "undefined (-infinite)", "0.0004", "-0.0001", "0.000",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "key, value, problem",
    [
        ("documents", -5, "a count"), ("documents", 23382.7, "a count"), ("documents", 1e300, "a count"),
        ("documents", 10**400, "a count"), ("documents", 23382, None), ("documents", 23382.0, None),
        ("ndcg@10.bm25/claim.bloom_qg", 1.7, "a measure from 0 to 1"), ("ndcg@10.bm25/claim.oracle", -0.0004, "a measure"),
        ("ndcg@10.bm25/claim.oracle", 1.0, None), ("runs.hero_70b.averitec@0.25", 0.0, None),
        ("family_share.NLI", 1.01, "a measure"), ("spearman.x|ndcg@10|utility (-KL).rho", -0.3, None),
        ("spearman.x.rho", 1.2, "a correlation"), ("runs.oracle.qa", float("nan"), None),
        ("fact_check_leak_claims_strict", 1.7, "a measure"), ("baseline.retrieval.right verdicts", -0.25, "a measure"),
        ("fact_check_leak_claims_strict", 0.524, None), ("gain.ratio", float("inf"), None), ("llm_mode", "off", None),
    ],
)  # fmt: skip
def test_a_headline_outside_what_its_metric_can_be_is_named(key, value, problem):
    """The forty-seventh pass: `render headlines` printed "documents in the store -5" and an NDCG of 1.700."""
    from lib.site.catalogue import headline_problem

    found = headline_problem(key, value)
    assert found is None if problem is None else found.startswith(problem)


def test_every_headline_names_the_retriever_and_scope_it_rests_on():
    from lib.site.catalogue import unnamed_settings

    assert unnamed_settings(section("report")["headlines"]) == []
    spec = {
        "02_x": {
            "NDCG@10 ORACLE": "q.json:ndcg@10.bm25/claim.oracle",
            "NDCG@10 (BM25, open collection)": "q.json:ndcg@10.bm25/global.x",
        }
    }
    assert unnamed_settings(spec) == ["02_x: NDCG@10 ORACLE"]
    assert unnamed_settings({"07_y": {"macro-F1": "nli.json:averitec.settings.gold.macro_f1"}}) == []


def test_the_committed_try_it_minutes_are_read_or_named(tmp_path):
    from lib.cli import NamedError
    from lib.site.render import try_it_times

    assert try_it_times(tmp_path / "none.json") is None  # not measured yet: the course page lists no minutes
    bad = tmp_path / "classroom.try_it.json"
    for text in ("{not json", '{"variations": 3}'):
        bad.write_text(text)
        with pytest.raises(
            NamedError, match="not the Try-it minutes `python -m lib.profiles estimate classroom` writes"
        ):
            try_it_times(bad)
    header = {"profile": "classroom", "cpu": "x", "cores": [2], "built": "2026-11-26", "how": "summed"}
    bad.write_text(json.dumps({**header, "variations": []}))
    assert try_it_times(bad) == {**header, "variations": []}
    # a hand-edited file: each of these ended the render in a traceback or printed "about nan min"
    good = {"notebook": "01_x", "command": "-S a=1", "stages": ["s"], "minutes": 1.5}
    for variation in (
        {**good, "minutes": "11.7"}, {**good, "minutes": float("nan")}, {**good, "minutes": -5.0},
        {k: v for k, v in good.items() if k != "stages"}, "a variation", {**good, "needs": 3},
    ):  # fmt: skip
        bad.write_text(json.dumps({**header, "variations": [variation]}))
        with pytest.raises(NamedError, match="not the Try-it minutes"):
            try_it_times(bad)
    for other in ({"cores": 2}, {"profile": None}):
        bad.write_text(json.dumps({**header, **other, "variations": [good]}))
        with pytest.raises(NamedError, match="not the Try-it minutes"):
            try_it_times(bad)


@pytest.mark.parametrize("field", ["headlines", "conclusion_points"])
def test_a_notebook_name_with_a_typo_in_the_report_section_is_refused(field):
    """`report.headlines` under `01_knowledge_stor` passed the schema check and left the card without numbers."""
    from lib.site.course import ReportSection

    value = {"01_knowledge_stor": {"x": "store.json:a"}} if field == "headlines" else {"01_knowledge_stor": [1]}
    spec = {"reports_dir": "reports", "headlines": {}, field: value}
    with pytest.raises(ValueError, match=rf"{field}: no notebook \['01_knowledge_stor'\]"):
        ReportSection.model_validate(spec)
    ReportSection.model_validate({**spec, field: {"01_knowledge_store": value["01_knowledge_stor"]}})


def test_exercise_copies_never_replace_the_executed_notebooks(tmp_path):
    """`course exercises --out outputs/notebooks` wrote unexecuted copies over the ten executed notebooks."""
    from lib.cli import NamedError
    from lib.paths import EXECUTED_DIR

    with pytest.raises(NamedError, match="the output of stage `knowledge_store`"):
        CO.write_exercises(EXECUTED_DIR)


def test_render_names_a_file_that_is_no_notebook_before_writing_any_page(tmp_path, capsys):
    """A JSON file that is no notebook ended in jsonschema's traceback; /dev/zero filled memory."""
    from lib.cli import NamedError
    from lib.site import render as RE

    (tmp_path / "bad.ipynb").write_text('{"cells": "x"}')
    for path, message in [(tmp_path / "bad.ipynb", "not a notebook nbformat can read"),
                          ("/dev/zero", "not a notebook file"), (tmp_path / "none.ipynb", "no such notebook")]:  # fmt: skip
        with pytest.raises(NamedError, match=message):
            RE.main(["html", str(path)])


def test_headlines_carry_the_banner_of_the_settings_that_made_the_numbers(tmp_path, capsys):
    """`render headlines --params <classroom copy>` printed "Classroom profile, not the study's figures"
    above the study's committed metrics."""
    import yaml

    from lib.paths import PARAMS_FILE
    from lib.site import render as RE

    RE.main(["headlines"])
    study = capsys.readouterr().out
    assert "profile, not the study's figures" not in study and "describes other settings" not in study
    params = yaml.safe_load(PARAMS_FILE.read_text())
    params["profile"] = {"name": "classroom", "note": "Forty claims."}
    copy = tmp_path / "classroom.yaml"
    copy.write_text(yaml.safe_dump(params, sort_keys=False))
    RE.main(["headlines", "--params", str(copy)])
    out = capsys.readouterr().out
    assert "Classroom profile" not in out  # the copy's banner is not the numbers' banner
    assert f"{copy} (--params) describes other settings (profile or evidence store) than params.yaml" in out
    assert out.splitlines()[1:] == study.splitlines()  # the same numbers under the one more line
    assert RE.numbers_banner(PARAMS_FILE) is None and RE.numbers_banner(None) is None


def test_another_params_file_is_named_above_its_headlines_and_refused_for_the_site(tmp_path, capsys, monkeypatch):
    """The fifty-first pass (S 1): a copy of params.yaml with one headline's label changed wrote the study's
    reports/index.html, exit 0 and no word of it (only another profile or store was named), as did the kernel's
    STUDY_KERNEL_PARAMS."""
    import yaml

    from lib.cli import NamedError
    from lib.params import KERNEL_PARAMS_ENV
    from lib.paths import PARAMS_FILE
    from lib.site import render as RE

    copy = tmp_path / "other.yaml"
    copy.write_text(PARAMS_FILE.read_text())
    assert yaml.safe_load(copy.read_text()) == yaml.safe_load(PARAMS_FILE.read_text())
    RE.main(["headlines", "--params", str(copy)])
    assert f"{copy} (--params) describes the same profile and store as params.yaml" in capsys.readouterr().out
    with pytest.raises(
        NamedError, match=r"^--params .*other\.yaml: not the study's own; this command writes the study's site"
    ):
        RE.main(["html", "--index", "outputs/notebooks/01_knowledge_store.ipynb", "--params", str(copy)])
    monkeypatch.setenv(KERNEL_PARAMS_ENV, str(copy))
    with pytest.raises(NamedError, match=rf"^\${KERNEL_PARAMS_ENV} .*other\.yaml: not the study's own"):
        RE.main(["html", "--index", "outputs/notebooks/01_knowledge_store.ipynb"])
    RE.main(["headlines"])
    assert f"{copy} (${KERNEL_PARAMS_ENV}) describes the same profile" in capsys.readouterr().out
    monkeypatch.delenv(KERNEL_PARAMS_ENV)
    # the second round (U 6): without --index another file was taken and ignored; a file of the `report` section
    # alone was refused by the banner's comparison ("no section 'profile'")
    with pytest.raises(NamedError, match=r"^--params .*other\.yaml: not the study's own"):
        RE.main(["html", "outputs/notebooks/01_knowledge_store.ipynb", "--params", str(copy)])
    report_only = tmp_path / "report.yaml"
    report_only.write_text(yaml.safe_dump({"report": yaml.safe_load(PARAMS_FILE.read_text())["report"]}))
    RE.main(["headlines", "--params", str(report_only)])
    assert f"{report_only} (--params) describes no profile or store; it is not params.yaml" in capsys.readouterr().out


def test_render_metrics_names_a_file_that_is_no_object_and_prints_nan_as_undefined(tmp_path, capsys):
    """A metrics file holding a JSON list printed `: [1, 2]`; a NaN printed `nan` as if it were a value."""
    from lib.cli import NamedError
    from lib.site import render as RE

    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(
        NamedError, match=r"list.json: a metrics file holds a JSON object of named values, not \[1, 2\]"
    ):
        RE.main(["metrics", str(tmp_path / "list.json")])
    assert capsys.readouterr().out == ""  # named before its heading
    (tmp_path / "nan.json").write_text('{"a": {"b": NaN}, "c": 0.5}')
    RE.main(["metrics", str(tmp_path / "nan.json")])
    assert capsys.readouterr().out.splitlines()[1:] == ["  a.b: undefined (NaN)", "  c: 0.5"]


@pytest.mark.parametrize(
    "solution",
    [
        "# BEGIN SOLUTION\nanswer = 1  # END SOLUTION",  # the end marker after code
        "# BEGIN SOLUTION\nanswer = 1\n# END SOLUTION\n# BEGIN SOLUTION\nSECRET = 0.42  # END SOLUTION",  # a second
        "# BEGIN SOLUTION\n# BEGIN SOLUTION\nx = 1\n# END SOLUTION\nSECRET = 2\n# END SOLUTION",  # nested
        "answer = 1\n# END SOLUTION",  # an end without a beginning
        '# BEGIN SOLUTION\ns = """\n# END SOLUTION\n"""\nSECRET = 3\n# END SOLUTION',  # an end inside a string
    ],
)
def test_a_solution_block_that_is_not_whole_never_reaches_the_students(tmp_path, solution):
    """`print(x)  # END SOLUTION`, a second block closed after code, nested blocks: `course check` passed and
    the students' page showed the worked solution."""
    nb_path = _notebook(tmp_path / "02_x.ipynb", [*_exercise("02.1", solution=solution), *_exercise("02.2")])
    problems = CO.exercise_problems(nb_path)
    assert len(problems) == 1 and problems[0].startswith("02_x.ipynb: the solution of exercise 02.1: its ")
    nb = nbformat.v4.new_notebook()
    nb.cells = _exercise("02.1", solution=solution)
    with pytest.raises(CO.CourseError, match=r"^cell 1: the solution of exercise 02.1: its `# BEGIN SOLUTION`"):
        CO.strip_solutions(nb)
    two = "# BEGIN SOLUTION\na = 1\n# END SOLUTION\nb = a\n    # BEGIN SOLUTION\n    c = 2\n    # END SOLUTION"
    assert "a = 1" not in CO.stub_solution(two, "02.1") and "c = 2" not in CO.stub_solution(two, "02.1")


@pytest.mark.parametrize("minutes", [True, "20", 20.0])
def test_a_lab_step_of_minutes_that_are_no_whole_number_is_refused(minutes):
    """`minutes: true` was read as 1 minute and the lab shown as 71 minutes."""
    with pytest.raises(ValidationError):
        CO.Step.model_validate({"minutes": minutes, "do": "Read the table."})
    assert CO.Step.model_validate({"minutes": 20, "do": "Read the table."}).minutes == 20


def test_a_figure_that_is_no_png_is_a_finding_and_a_named_error_at_the_site(tmp_path):
    import base64

    from lib.site import reports as RP
    from lib.site.figures import png_problem

    png = base64.b64encode(_real_png()).decode()
    assert png_problem(png) is None and png_problem(png[:10] + "\n" + png[10:]) is None
    assert png_problem(base64.b64encode(b"GIF89a...").decode()) == "its image/png is not a PNG"
    assert png_problem("not base64!") == "its image/png is not base64"
    code = nbformat.v4.new_code_cell("plot()")
    code.execution_count = 1
    code.outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={"image/png": base64.b64encode(b"GIF89a").decode()},
            metadata={"image/png": {"alt": "a"}},
        )
    ]
    path = _notebook(tmp_path / "02_x.ipynb", [code])
    assert [(f.rule, f.excerpt) for f in RP.scan_notebook(path)] == [("bad_figure", "its image/png is not a PNG")]
    with pytest.raises(CO.CourseError, match=r"02_x.ipynb: cell 0: its image/png is not a PNG"):
        CO.figures(path)
    with pytest.raises(CO.CourseError, match=r"a figure that is no readable PNG \(UnidentifiedImageError"):
        CO.thumbnail(PNG_SIGNATURE + b"garbage")


def test_a_check_record_with_no_mistakes_shows_none_on_the_teachers_page():
    from lib.site.checks import RECORD_MIME
    from lib.site.render import with_expected_values

    cell = nbformat.v4.new_code_cell('check("02.1", answer, 0.5)')
    record = {"exercise": "02.1", "answer": 0.5, "attempted": True, "expected": 0.5, "tol": 5e-4, "passed": True}
    cell.outputs = [nbformat.v4.new_output("display_data", data={RECORD_MIME: {**record, "mistakes": None}})]
    nb = nbformat.v4.new_notebook()
    nb.cells = [cell]
    assert "Exercise 02.1: expected 0.5" in with_expected_values(nb).cells[0].outputs[0]["data"]["text/html"]


def test_a_try_it_variation_with_needs_null_reads_as_one_without():
    times = {"profile": "classroom", "how": "summed", "cpu": "x", "cores": [2], "built": "d", "variations": [
        {"notebook": "01_x", "command": "-S a=1", "stages": ["s", "t"], "minutes": 1.5, "needs": None}]}  # fmt: skip
    assert "about 1.5 min (2 stages rerun)" in CO._try_it_list("01_x", times)


def test_a_try_it_variation_with_untimed_stages_is_read_and_says_so():
    """`python -m lib.profiles estimate` lists the stages the build did not time as `untimed`; the render refused
    the file it writes (the twenty-sixth pass)."""
    from lib.site.render import TryItTimes

    row = {"notebook": "01_x", "command": "-S a=1", "stages": ["s", "t"], "minutes": 1.5, "untimed": ["t"]}
    times = {"profile": "classroom", "how": "summed", "cpu": "x", "cores": [2], "built": "d", "variations": [row]}
    TryItTimes.model_validate(times)
    assert "about 1.5 min (2 stages rerun; not timed, so not counted: t)" in CO._try_it_list("01_x", times)
    with pytest.raises(ValidationError, match="expected `untimed` to name stages of `stages`"):
        TryItTimes.model_validate({**times, "variations": [{**row, "untimed": ["render"]}]})


def _real_png(width: int = 4, height: int = 3) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buf, format="PNG")
    return buf.getvalue()


def test_a_png_whose_pixels_do_not_decode_is_a_finding(tmp_path):
    """A header that reads well over broken pixel data was passed (the header alone was checked)."""
    import base64

    from lib.site import reports as RP
    from lib.site.figures import png_problem

    good = _real_png(50, 40)
    start = good.index(b"IDAT") + 8
    broken, cut = good[:start] + bytes(10) + good[start + 10 :], good[: len(good) // 2]
    assert png_problem(base64.b64encode(broken).decode()) == (
        "its PNG does not decode (OSError: broken data stream when reading image file)"
    )
    assert png_problem(base64.b64encode(cut).decode()) == "its PNG does not decode (OSError: image file is truncated)"
    assert png_problem(base64.b64encode(PNG_SIGNATURE + b"rest").decode()) == (
        "its PNG does not decode (UnidentifiedImageError: cannot identify image file)"
    )
    code = nbformat.v4.new_code_cell("plot()")
    code.execution_count = 1
    code.outputs = [
        nbformat.v4.new_output(
            "display_data", data={"image/png": base64.b64encode(broken).decode()}, metadata={"image/png": {"alt": "a"}}
        )
    ]
    path = _notebook(tmp_path / "02_x.ipynb", [code])
    assert [f.rule for f in RP.scan_notebook(path)] == ["bad_figure"]


def test_figures_of_other_kinds_and_of_too_many_pixels_are_findings(tmp_path):
    import base64
    import struct
    import zlib

    from lib.site import reports as RP
    from lib.site.figures import MAX_FIGURE_PIXELS, png_problem

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    def png(width, height):  # a header that claims the size; no pixel is decoded
        ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
        return PNG_SIGNATURE + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")

    assert png_problem(base64.b64encode(_real_png(1000, 800)).decode()) is None
    assert png_problem(base64.b64encode(png(1000, 800)).decode()).startswith("its PNG does not decode (")
    big = base64.b64encode(png(1, MAX_FIGURE_PIXELS + 1)).decode()
    assert (
        png_problem(big) == f"its PNG is 1 × {MAX_FIGURE_PIXELS + 1:,} pixels, over the bound of {MAX_FIGURE_PIXELS:,}"
    )
    # a chunk before IHDR hid the size from a read at byte 16: the header PIL parses gives it wherever it lies
    text_first = PNG_SIGNATURE + chunk(b"tEXt", b"k\x00v") + png(12_000, 6_000)[len(PNG_SIGNATURE) :]
    assert png_problem(base64.b64encode(text_first).decode()) == (
        f"its PNG is 12,000 × 6,000 pixels, over the bound of {MAX_FIGURE_PIXELS:,}"
    )
    with pytest.raises(CO.CourseError, match=r"a figure of 1 × 50,000,001 pixels"):
        CO.thumbnail(png(1, MAX_FIGURE_PIXELS + 1))
    code = nbformat.v4.new_code_cell("plot()")
    code.execution_count = 1
    code.outputs = [nbformat.v4.new_output("display_data", data={"image/jpeg": "AAAA", "image/svg+xml": "<svg/>"})]
    path = _notebook(tmp_path / "02_x.ipynb", [code])
    assert [f.excerpt for f in RP.scan_notebook(path)] == [
        "an image/jpeg figure: the site shows and checks PNG figures only",
        "an image/svg+xml figure: the site shows and checks PNG figures only",
    ]


def test_a_marker_outside_a_solution_cell_or_a_stray_solution_cell_is_named(tmp_path):
    leak = _cell("code", "# BEGIN SOLUTION\nleak = 'SECRET'\n# END SOLUTION")  # untagged: it was kept whole
    stray = _cell("code", "x = 1", "solution")
    path = _notebook(tmp_path / "02_x.ipynb", [*_exercise("02.1"), *_exercise("02.2"), leak, stray])
    assert CO.exercise_problems(path) == [
        "02_x.ipynb: cell 6: a `# BEGIN SOLUTION`/`# END SOLUTION` marker in a cell not tagged `solution`",
        "02_x.ipynb: cell 7: tagged `solution` but not right after an exercise",
    ]
    nb = nbformat.v4.new_notebook()
    nb.cells = [*_exercise("02.1"), leak]
    with pytest.raises(
        CO.CourseError, match=r"cell 3: a `# BEGIN SOLUTION`/`# END SOLUTION` marker in a cell not tagged"
    ):
        CO.strip_solutions(nb)


def test_a_mathjax_file_that_is_a_pipe_is_named_before_it_is_read(tmp_path):
    import os

    from lib.cli import NamedError
    from lib.site import render as RE

    out = tmp_path / RE.MATHJAX_FILE
    out.parent.mkdir(parents=True)
    os.mkfifo(out)  # it hung the render
    with pytest.raises(NamedError, match="not the MathJax file the site writes"):
        RE.write_mathjax(tmp_path)
    out.unlink()
    out.write_bytes(b"\xff\xfe garbage")  # a damaged copy (the forty-seventh pass: a UnicodeDecodeError)
    RE.write_mathjax(tmp_path)
    assert out.read_bytes().startswith(b"") and b"\xff\xfe garbage" not in out.read_bytes()


def test_exercises_are_written_all_or_none_and_a_failure_names_its_notebook(tmp_path):
    """A notebook whose solution could not be stripped left the earlier copies behind, and the rerun refused
    the folder as holding a class's copies (the twenty-sixth pass)."""
    src = tmp_path / "notebooks"
    src.mkdir()
    _notebook(src / "01_a.ipynb", [*_exercise("01.1")])
    _notebook(src / "02_b.ipynb", [*_exercise("02.1", solution="# BEGIN SOLUTION\nanswer = 1\n")])  # no END
    with pytest.raises(CO.CourseError, match=r"02_b.ipynb: .*02\.1"):
        CO.write_exercises(tmp_path / "out", notebooks_dir=src)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    _notebook(src / "02_b.ipynb", [*_exercise("02.1")])
    from lib.cli import NamedError
    from lib.paths import DATA_DIR

    (tmp_path / "out").mkdir(exist_ok=True)  # a dangling link into data/ where a copy goes: refused at its turn,
    (tmp_path / "out" / "02_b.ipynb").symlink_to(DATA_DIR / "averitec" / "none.ipynb")  # after 01_a was written
    with pytest.raises(NamedError, match="02_b.ipynb: is a link to .* inside data/"):
        CO.write_exercises(tmp_path / "out", notebooks_dir=src)
    assert not (tmp_path / "out" / "01_a.ipynb").exists()
    (tmp_path / "out" / "02_b.ipynb").unlink()
    assert [p.name for p in CO.write_exercises(tmp_path / "out", notebooks_dir=src)] == ["01_a.ipynb", "02_b.ipynb"]


def test_every_numeric_headline_of_the_study_has_a_kind_its_value_is_checked_against():
    """The forty-seventh pass, second round: two of the study's headlines (a leak share, a right-verdicts share)
    matched no kind, so an impossible value there was printed as it stood."""
    from lib.site.catalogue import headline_kind, headline_problem, read_metrics

    for lines in section("report")["headlines"].values():
        for label, ref in lines.items():
            file, _, key = ref.partition(":")
            value = read_metrics(METRICS_DIR / file)[key]
            if isinstance(value, int | float) and not isinstance(value, bool):
                assert headline_kind(key) is not None, label
                assert headline_problem(key, -7.5) is not None, label


def test_headlines_refuse_an_impossible_value_by_label(tmp_path):
    from lib.cli import NamedError
    from lib.site.catalogue import headlines

    (tmp_path / "store.json").write_text('{"documents": -5, "share": 0.5}')
    assert headlines({"share": "store.json:share"}, tmp_path) == {"share": 0.5}
    with pytest.raises(NamedError, match=r"report.headlines.docs: store.json's 'documents' is -5, expected a count"):
        headlines({"docs": "store.json:documents"}, tmp_path)
    # the forty-eighth pass: the notebook level was left out of the key ("report.headlines.documents in the store")
    with pytest.raises(NamedError, match=r"report.headlines.01_knowledge_store.docs: store.json's 'documents' is -5"):
        headlines({"docs": "store.json:documents"}, tmp_path, "01_knowledge_store")


def test_a_notebook_without_conclusion_points_is_refused_by_the_params_check():
    """The forty-eighth pass: `conclusion_points: {04_retrieval_metrics: []}` passed and the site build ended in
    "max() arg is an empty sequence"."""
    from lib.params import ParamsError, validate
    from lib.site.course import ReportSection

    with pytest.raises(ParamsError, match=r"report.conclusion_points.04_retrieval_metrics: .*at least 1 item"):
        validate(ReportSection, {"conclusion_points": {"04_retrieval_metrics": []}}, "params.yaml", ("report",), [])


def test_a_conclusion_point_named_twice_is_refused():
    """The fiftieth pass (O 11): `conclusion_points: {04_retrieval_metrics: [3, 3]}` quoted point 3 twice."""
    import copy

    from lib import schema as SCH
    from lib.params import ParamsError

    raw = copy.deepcopy(SCH.load_params())
    raw["report"]["conclusion_points"] = {"04_retrieval_metrics": [3, 3]}
    with pytest.raises(ParamsError, match=r"conclusion_points\.04_retrieval_metrics: point 3 is named twice"):
        SCH.check(raw)
