"""The course built on the notebooks: exercises and their checks, the student and teacher versions, the
glossary, the course page and the front page of the reports.

One source, tagged cells (the notebook's cell metadata `tags`):

- `definition`: a markdown cell that defines a term where it is first used. Its first line starts with
  `<a id="ANCHOR"></a>**TERM**`; the glossary (`reports/glossary.html`) links to it.
- `exercise`: a markdown cell `**Exercise NN.M** (about K min). The task ...`.
- `solution`: the code cell after it; the lines between `# BEGIN SOLUTION` and `# END SOLUTION` are the worked
  answer. The student version (the default) replaces them by `raise NotImplementedError`, the teacher version
  (`--teacher`) keeps them: never a second copy of a notebook.
- `check`: the code cell that checks the answer with `check("NN.M", answer, expected, tol)`: an assert on a
  quantity the student computes, against a value the notebook computes from the pipeline's outputs.

`notebooks/course.yaml` holds what is not in a notebook: objectives, prerequisites and the plan of a
90-minute lab per notebook (checked by `load_course`).

`python -m lib.site.course exercises [--teacher] [--out DIR]` writes runnable exercise notebooks (default
`exercises/`, without solutions); the pipeline's `render` stage writes the reports of both versions, the
glossary, the course page and `reports/index.html` (`write_site`).
"""

from __future__ import annotations

import argparse
import base64
import copy
import io
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Annotated, Any

import nbformat
from pydantic import BaseModel, ConfigDict, Field, PositiveInt, ValidationError, model_validator

from lib import outputs as OUT
from lib.cli import ArgumentParser, NamedError, nonempty_path, run_main
from lib.params import FilePath, Section, Text, read_yaml
from lib.paths import METRICS_DIR, NOTEBOOKS_DIR, REPORTS_DIR, ROOT
from lib.site.banner import banner_html, inline_markdown
from lib.site.catalogue import conclusion, format_value, headlines, numbered, read_notebook, store_setting, summary
from lib.site.figures import MAX_FIGURE_PIXELS, png_problem
from lib.site.links import EXPLORER_PAGE

# --------------------------------------------------------------------------- params


Headline = Annotated[str, Field(pattern=r"^[\w.-]+\.json:\S.*$")]  # "file.json:flattened.key"


class ReportSection(Section):
    reports_dir: FilePath
    headlines: dict[Annotated[str, Field(pattern=r"^\d\d_\w+$")], dict[Text, Headline]]
    # the points of each notebook's computed conclusion its front-page card shows (from 1; default: the first)
    # at least one point: an empty list passed the check and ended in "max() arg is an empty sequence"
    conclusion_points: dict[
        Annotated[str, Field(pattern=r"^\d\d_\w+$")], Annotated[list[PositiveInt], Field(min_length=1)]
    ] = {}

    @model_validator(mode="after")
    def _known_notebooks(self) -> ReportSection:
        """A notebook name with a typo was ignored: its headlines or points silently left off the front page."""
        known = set(numbered())
        for field in ("headlines", "conclusion_points"):
            unknown = sorted(set(getattr(self, field)) - known)
            if unknown:
                raise ValueError(f"{field}: no notebook {unknown} (the notebooks: {sorted(known)})")
        for name, points in self.conclusion_points.items():  # [3, 3] quoted one point twice on the card
            if len(set(points)) < len(points):
                twice = next(p for p in points if points.count(p) > 1)
                raise ValueError(f"conclusion_points.{name}: point {twice} is named twice; name each point once")
        return self


COURSE_FILE = NOTEBOOKS_DIR / "course.yaml"
LAB_MINUTES = 90  # one lab session
BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"
STUB = "answer = None\n# Your code here: compute `answer` (then run the check below).\nraise NotImplementedError({!r})"
_EXERCISE = re.compile(r"^\*\*Exercise (\d\d\.\d+)\*\* \(about (\d+) min(?:, (.+?))?\)\.\s*(.+)", re.S)
_DEFINITION = re.compile(r'^<a id="([a-z0-9-]+)"></a>\*\*(.+?)\*\*')
_SOLUTION = re.compile(rf"^([ \t]*){re.escape(BEGIN)}\n.*?^[ \t]*{re.escape(END)}[ \t]*$", re.S | re.M)
_CHECK = re.compile(r"""check\(\s*["'](\d\d\.\d+)["']""")


class CourseError(NamedError, ValueError):
    """A malformed exercise, definition or course file: names the file, the cell and what was expected."""


# --------------------------------------------------------------------------- reading the notebooks


@dataclass(frozen=True)
class Exercise:
    number: str  # "02.1": notebook 02, exercise 1
    minutes: int  # estimated time, as the task states it
    needs: str | None  # e.g. "a classroom pipeline rerun, about 6 min": stated when it needs more than the notebook
    task: str


@dataclass(frozen=True)
class Definition:
    anchor: str
    term: str
    text: str  # the cell's first paragraph, without the anchor
    notebook: str


def _tags(cell: Any) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def _read(notebook: Path | str | nbformat.NotebookNode) -> Any:
    if isinstance(notebook, nbformat.NotebookNode):
        return notebook
    return read_notebook(notebook)


def checked(source: str) -> str | None:
    """The number of the exercise a code cell checks (`check("NN.M", ...)`), or None."""
    m = _CHECK.search(source)
    return m.group(1) if m else None


def task_number(source: str) -> str | None:
    """The number of the exercise a markdown cell sets (`**Exercise NN.M** (about K min). ...`), or None."""
    m = _EXERCISE.match(source.strip())
    return m.group(1) if m else None


def exercises(notebook: Path | str | nbformat.NotebookNode) -> list[Exercise]:
    """The exercises of a notebook in order; a malformed `exercise` cell is a CourseError."""
    out = []
    for i, cell in enumerate(_read(notebook).cells):
        if "exercise" in _tags(cell):
            m = _EXERCISE.match(cell.source.strip())
            if not m:
                raise CourseError(
                    f"{notebook}: cell {i} is tagged `exercise` but does not start with "
                    "`**Exercise NN.M** (about K min). task`"
                )
            task = re.sub(r"\s+", " ", m.group(4).split("\n\n")[0]).strip()
            out.append(Exercise(m.group(1), int(m.group(2)), m.group(3), task))
    return out


def exercise_problems(notebook: Path | str) -> list[str]:
    """What keeps a notebook's exercises from being a checkable course unit: fewer than two, numbers not
    `NN.1, NN.2, ...`, an exercise without its solution and check cells right after it, a solution without
    the BEGIN/END markers, a check that checks another exercise."""
    notebook = Path(notebook)
    cells = _read(notebook).cells
    try:
        found = exercises(notebook)
    except CourseError as err:
        return [str(err)]
    problems = []
    if len(found) < 2:
        problems.append(f"{notebook.name}: {len(found)} exercise(s), expected at least 2")
    expected = [f"{notebook.name[:2]}.{i}" for i in range(1, len(found) + 1)]
    if [e.number for e in found] != expected:
        problems.append(f"{notebook.name}: exercises numbered {[e.number for e in found]}, expected {expected}")
    at = [i for i, c in enumerate(cells) if "exercise" in _tags(c)]
    for i, c in enumerate(cells):  # a marker outside a solution cell, or a solution cell after no exercise
        if "solution" not in _tags(c) and (BEGIN in c.source or END in c.source):
            problems.append(f"{notebook.name}: cell {i}: a `{BEGIN}`/`{END}` marker in a cell not tagged `solution`")
        if "solution" in _tags(c) and (i - 1) not in at:
            problems.append(f"{notebook.name}: cell {i}: tagged `solution` but not right after an exercise")
    for ex, i in zip(found, at):
        nxt = cells[i + 1 : i + 3]
        if len(nxt) < 2 or "solution" not in _tags(nxt[0]) or "check" not in _tags(nxt[1]):
            problems.append(f"{notebook.name}: exercise {ex.number} is not followed by a solution and a check cell")
            continue
        try:  # the blocks as `strip_solutions` reads them
            stub_solution(nxt[0].source, ex.number)
        except CourseError as err:
            problems.append(f"{notebook.name}: {err}")
        if _CHECK.findall(nxt[1].source) != [ex.number]:
            problems.append(
                f"{notebook.name}: the check after exercise {ex.number} does not call check({ex.number!r}, ...)"
            )
    return problems


def definitions(notebook: Path | str) -> list[Definition]:
    """The terms a notebook defines (markdown cells tagged `definition`)."""
    notebook = Path(notebook)
    out = []
    for i, cell in enumerate(_read(notebook).cells):
        if "definition" in _tags(cell):
            source = cell.source.strip()
            m = _DEFINITION.match(source)
            if not m:
                raise CourseError(
                    f'{notebook}: cell {i} is tagged `definition` but does not start with `<a id="anchor"></a>**Term**`'
                )
            text = re.sub(r"\s+", " ", source.split("\n\n")[0][len(f'<a id="{m.group(1)}"></a>') :]).strip()
            out.append(Definition(m.group(1), m.group(2).strip(), text, notebook.stem))
    return out


@dataclass(frozen=True)
class Variation:
    """One variation a notebook's "Try it" cell suggests: the command as written and the `-S key=value`
    settings it passes to `dvc exp run` (one variation per bullet's command)."""

    notebook: str
    command: str
    sets: tuple[str, ...]


def try_it(notebook: Path | str) -> list[Variation]:
    """The `-S` variations of a notebook's "Try it" cell (the markdown cell that starts with `## Try it`)."""
    notebook = Path(notebook)
    out = []
    for cell in _read(notebook).cells:
        if cell.cell_type != "markdown" or not cell.source.startswith("## Try it"):
            continue
        for bullet in cell.source.split("\n- ")[1:]:
            for span in re.findall(r"`([^`]*-S [^`]*)`", bullet.replace("\n  ", " ")):
                argv = shlex.split(span)
                sets = tuple(argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "-S")
                out.append(Variation(notebook.stem, span, sets))
    return out


def try_it_variations(notebooks_dir: Path | str = NOTEBOOKS_DIR) -> list[Variation]:
    """Every numbered notebook's "Try it" variations, in notebook order."""
    return [v for name in numbered(notebooks_dir) for v in try_it(Path(notebooks_dir) / f"{name}.ipynb")]


# --------------------------------------------------------------------------- student and teacher versions


def stub_solution(source: str, number: str) -> str:
    """A solution cell's source with each `BEGIN`/`END` block replaced by the exercise's stub; a CourseError
    where a marker is left over (none at all, a marker after code, nested or unbalanced blocks, an `END` inside a
    string): the students' version would show what follows it."""
    stubbed, n = _SOLUTION.subn(
        lambda m: "\n".join(m.group(1) + line for line in STUB.format(f"Exercise {number}").splitlines()), source
    )
    if not n or BEGIN in stubbed or END in stubbed:
        raise CourseError(
            f"the solution of exercise {number}: its `{BEGIN}` ... `{END}` blocks are not whole (each marker on a line "
            "of its own, one END for each BEGIN, none nested); the students' version would show the solution"
        )
    return stubbed


def strip_solutions(nb: Any) -> Any:
    """The student version of a notebook (a copy): every solution block becomes a stub that raises, and
    the outputs of solution and check cells go (they would show the reference answer passing)."""
    nb = copy.deepcopy(nb)
    for i, cell in enumerate(nb.cells):
        tags = _tags(cell)
        if "solution" not in tags and (BEGIN in cell.source or END in cell.source):  # untagged: it was kept whole
            raise CourseError(f"cell {i}: a `{BEGIN}`/`{END}` marker in a cell not tagged `solution`")
        if "solution" in tags:
            task = _EXERCISE.match(nb.cells[i - 1].source.strip()) if i else None
            number = task.group(1) if task else "?"
            try:
                cell.source = stub_solution(cell.source, number)
            except CourseError as err:
                raise CourseError(f"cell {i}: {err}") from None
        if tags & {"solution", "check"}:
            cell.outputs, cell.execution_count = [], None
    return nb


def write_exercises(
    out_dir: Path | str, teacher: bool = False, notebooks_dir: Path | str = NOTEBOOKS_DIR
) -> list[Path]:
    """Runnable copies of the numbered notebooks for a class: without solutions, or with them (`teacher`)."""

    out_dir = Path(out_dir)
    OUT.refuse_targets([out_dir], [notebooks_dir], folders=True)  # never the source notebooks themselves
    OUT.refuse_stage_outputs([out_dir / f"{name}.ipynb" for name in numbered(notebooks_dir)])  # nor executed ones
    present = [name for name in numbered(notebooks_dir) if (out_dir / f"{name}.ipynb").exists()]
    if present:  # a class works in these copies: a rerun replaced their answers without a word
        raise CourseError(
            f"{out_dir}: already holds copies ({', '.join(f'{n}.ipynb' for n in present[:3])}"
            f"{', ...' if len(present) > 3 else ''}), perhaps with a class's answers; name another folder or remove them"
        )
    texts = {}  # every copy made before any is written: a notebook that fails left the earlier copies behind,
    for name in numbered(notebooks_dir):  # and the rerun refused the folder as "already holds copies"
        source = Path(notebooks_dir) / f"{name}.ipynb"
        nb = _read(source)
        try:
            text = nbformat.writes(nb if teacher else strip_solutions(nb))
        except CourseError as err:
            raise CourseError(f"{source}: {err}") from None
        texts[out_dir / f"{name}.ipynb"] = text if text.endswith("\n") else text + "\n"  # as nbformat.write ends it
    with OUT.together():  # every copy in place, or none (a refused target or a signal partway left the first ones)
        for path, text in texts.items():
            OUT.write_text(path, text)
    return list(texts)


# --------------------------------------------------------------------------- the course file


Line = Annotated[str, Field(pattern=r"\S")]


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # `minutes: true` was 1 minute
    minutes: int = Field(ge=1, le=LAB_MINUTES)
    do: Line
    answer: Line | None = None  # the expected answer to a discussion prompt: the teacher's index only


class Unit(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # `minutes: true` was 1 minute
    objectives: list[Line] = Field(min_length=1)
    prerequisites: list[Line] = Field(min_length=1)
    lab: list[Step] = Field(min_length=2)

    @property
    def minutes(self) -> int:
        """The lab's length: its steps summed."""
        return sum(s.minutes for s in self.lab)


class Course(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # `minutes: true` was 1 minute
    title: Line
    audience: Line
    before_the_course: list[Line] = Field(min_length=1)
    notebooks: dict[str, Unit]


def load_course(path: Path | str = COURSE_FILE, notebooks_dir: Path | str = NOTEBOOKS_DIR) -> Course:
    """`notebooks/course.yaml`, checked: every numbered notebook has a unit and no unit lacks a notebook,
    and every lab fits one session of LAB_MINUTES."""

    try:
        course = Course.model_validate(read_yaml(path))
    except ValidationError as err:
        where = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())
        raise CourseError(f"{path}: {where}") from None
    names = numbered(notebooks_dir)
    missing, unknown = sorted(set(names) - set(course.notebooks)), sorted(set(course.notebooks) - set(names))
    problems = [f"no unit for notebook(s) {missing}"] if missing else []
    problems += [f"units for notebooks that do not exist: {unknown}"] if unknown else []
    for name, unit in course.notebooks.items():
        if unit.minutes > LAB_MINUTES:
            problems.append(f"notebooks.{name}.lab: {unit.minutes} min, more than one {LAB_MINUTES}-minute session")
    if problems:
        raise CourseError(f"{path}: " + "; ".join(problems))
    return course


# --------------------------------------------------------------------------- the pages


CSS = """
:root{font-size:18px;--ink:#1d2733;--soft:#5b6875;--line:#d9dee4;--accent:#1f5f99}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);max-width:74rem;margin:1.5rem auto;
padding:0 1rem;line-height:1.45}
h1{font-size:1.8rem;margin:.2em 0}h2{font-size:1.35rem;margin-top:1.6em;border-bottom:2px solid var(--line)}
a{color:var(--accent)}nav{margin:.5rem 0 1rem}nav a{margin-right:1.2rem;font-weight:600}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,30rem),1fr));gap:1rem}
.card{border:1px solid var(--line);border-radius:8px;padding:.8rem 1rem}
.card h3{margin:.1em 0 .4em;font-size:1.1rem}.q{color:var(--soft)}
.card .conclusion{margin:.5em 0;padding-left:.6em;border-left:3px solid var(--line);font-size:.95em}
.thumbs{display:flex;gap:.4rem;flex-wrap:wrap;margin-top:.5rem}.thumbs img{height:6.5rem;max-width:100%;
border:1px solid var(--line);border-radius:4px;object-fit:contain;background:#fff}
.map{display:flex;flex-wrap:wrap;gap:.3rem;align-items:center;margin:.5rem 0}.map a{border:1px solid var(--accent);
border-radius:1rem;padding:.15rem .7rem;text-decoration:none}
ul{margin:.2em 0;padding-left:1.2em}dt{font-weight:700;margin-top:.7em}dd{margin-left:1.2em}
table{border-collapse:collapse}td:first-child{white-space:nowrap}td,th{border-bottom:1px solid var(--line);padding:.3em .6em;text-align:left;vertical-align:top}
.banner{background:#fff3cd;border:1px solid #e0c060;padding:.7em}
.answer{background:#eef6ee;border-left:3px solid #5a9a5a;padding:.3em .6em;margin:.3em 0}
"""
# Run by the headless-browser test (tests/test_course.py): the page records whether it overflows the
# window horizontally and whether every image loaded, where `chromium --dump-dom` can read it.
LAYOUT_PROBE = """<script>
addEventListener("load",function(){var b=document.body,i=[].slice.call(document.images);
b.dataset.overflow=String(document.documentElement.scrollWidth>innerWidth+1);
b.dataset.broken=String(i.filter(function(x){return !x.complete||x.naturalWidth===0}).length);});
</script>"""


def _page(title: str, body: str, banner: str | None = None, up: str = "") -> str:
    """A page of the reports; `up` prefixes the navigation links of a page in a subfolder (`../`)."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{escape(title)}</title><style>{CSS}</style></head><body>
<nav><a href="{up}index.html">Front page</a><a href="{up}course.html">Course</a><a href="{up}glossary.html">Glossary</a>
<a href="{up}teacher/index.html">Teacher's version</a></nav>
{banner_html(banner)}{body}
{LAYOUT_PROBE}</body></html>
"""


def figures(executed: Path | str) -> list[bytes]:
    """The PNG figures of an executed notebook, in order; one that is no PNG is an error naming its cell."""
    out = []
    for i, cell in enumerate(_read(executed).cells):
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if "image/png" in output.get("data", {}):
                if problem := png_problem(output["data"]["image/png"]):
                    raise CourseError(f"{executed}: cell {i}: {problem}")
                out.append(base64.b64decode(output["data"]["image/png"]))
    return out


def thumbnail(png: bytes, height: int = 240) -> bytes:
    """A figure scaled to `height` pixels (twice the displayed height: sharp on a projector); a PNG that PIL
    cannot read or that decompresses past PIL's bound is a `CourseError`."""
    from PIL import Image, UnidentifiedImageError

    try:
        img = Image.open(io.BytesIO(png))  # reads the header only: the size is known before decoding
        if img.size[0] * img.size[1] > MAX_FIGURE_PIXELS:
            raise CourseError(f"a figure of {img.size[0]:,} × {img.size[1]:,} pixels, over {MAX_FIGURE_PIXELS:,}")
        img = img.convert("RGB")
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError, SyntaxError) as err:
        raise CourseError(f"a figure that is no readable PNG ({type(err).__name__}: {str(err)[:120]})") from None
    img.thumbnail((height * 4, height))
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


THUMBS_PER_NOTEBOOK = 4  # the front page's figures per notebook


def write_site(
    spec: Mapping[str, Mapping[str, str]],
    executed: Sequence[Path | str],
    reports_dir: Path | str = REPORTS_DIR,
    notebooks_dir: Path | str = NOTEBOOKS_DIR,
    metrics_dir: Path | str = METRICS_DIR,
    course_file: Path | str = COURSE_FILE,
    banner: str | None = None,
    thumbs_per_notebook: int = THUMBS_PER_NOTEBOOK,
    explorer: Path | str | None = None,
    conclusion_points: Mapping[str, Sequence[int]] | None = None,
    try_it_times: Mapping[str, Any] | None = None,
) -> list[Path]:
    """The front page (`index.html`), the course page and the glossary, with figure thumbnails and each
    notebook's computed conclusion (`conclusion_points` of it; default: its first point) from the
    executed notebooks, in `reports_dir`, and the teacher's index page under `teacher/`; with `explorer`
    (the evidence explorer's page, `lib.site.explorer`), a copy of it beside them, linked from the front page."""

    reports_dir = Path(reports_dir)
    course = load_course(course_file, notebooks_dir)
    names = numbered(notebooks_dir)
    conclusion_points = conclusion_points or {}
    unknown = sorted((set(spec) | set(conclusion_points)) - set(names))
    if unknown:
        raise ValueError(f"headlines or conclusion points for notebooks that do not exist: {unknown}")
    by_name = {Path(p).stem: Path(p) for p in executed}
    thumbs_dir = reports_dir / "thumbs"
    thumbs_dir.mkdir(parents=True, exist_ok=True)
    stale = set(thumbs_dir.glob("*.png"))  # removed at the end, with the new site (a stop keeps the old whole)
    info = {}
    for name in names:
        src = Path(notebooks_dir) / f"{name}.ipynb"
        title, question = summary(src)
        thumbs = []
        if name in by_name:
            for k, png in enumerate(figures(by_name[name])[:thumbs_per_notebook], 1):
                path = thumbs_dir / f"{name}_{k}.png"
                try:
                    small = thumbnail(png)
                except CourseError as err:
                    raise CourseError(f"{by_name[name]}: figure {k}: {err}") from None
                OUT.write_bytes(path, small)
                stale.discard(path)
                thumbs.append(path.name)
        info[name] = {
            "title": title,
            "question": question,
            "values": headlines(spec.get(name, {}), metrics_dir, name),
            "conclusion": conclusion(by_name[name], conclusion_points.get(name, (1,))) if name in by_name else [],
            "thumbs": thumbs,
            "exercises": exercises(src),
            "terms": definitions(src),
        }
    terms = sorted((d for i in info.values() for d in i["terms"]), key=lambda d: d.term.lower())
    pages = {
        "index.html": _front_page(course, names, info, terms, banner, store_setting(metrics_dir), explorer is not None),
        "course.html": _course_page(course, names, info, banner, try_it_times),
        "glossary.html": _glossary_page(terms, info, banner),
    }
    written = []
    if explorer is not None:
        written.append(OUT.write_bytes(reports_dir / EXPLORER_PAGE, Path(explorer).read_bytes()))
    for file, html in pages.items():
        written.append(OUT.write_text(reports_dir / file, html))
    teacher = OUT.write_text(reports_dir / "teacher" / "index.html", _teacher_index(course, names, info))
    for old in sorted(stale):
        OUT.remove(old)
    return [*written, teacher]


def _map(names: Sequence[str], info: Mapping[str, Any]) -> str:
    steps = " → ".join(f'<a href="{n}.html">{n[:2]} {escape(info[n]["title"])}</a>' for n in names)
    return f'<div class="map">{steps}</div>'


_EXPLORER = f"""
<p><b>Explore a claim:</b> the <a href="{EXPLORER_PAGE}">evidence explorer</a> shows one AVeriTeC dev claim at a
time: its gold questions and answers, each planner's queries, the documents each retriever ranked for them with
their relevance grades, the verdict of every evidence setting and notebook 08's error code.</p>"""


def _front_page(course: Course, names, info, terms, banner, store: str | None = None, explorer: bool = False) -> str:
    cards = []
    for n in names:
        i = info[n]
        values = "".join(f"<li>{escape(k)}: <b>{escape(format_value(v))}</b></li>" for k, v in i["values"].items())
        thumbs = "".join(
            f'<a href="{n}.html"><img src="thumbs/{t}" alt="{escape(i["title"])}, figure {k}" loading="lazy"></a>'
            for k, t in enumerate(i["thumbs"], 1)
        )
        cards.append(
            f'<div class="card" id="{n}"><h3><a href="{n}.html">{n[:2]} · {escape(i["title"])}</a></h3>'
            f'<div class="q">{inline_markdown(i["question"])}</div>'
            + "".join(f'<p class="conclusion">{inline_markdown(p)}</p>' for p in i["conclusion"])
            + f"<ul>{values}</ul>"
            f'<div class="thumbs">{thumbs}</div>'
            f"<div>{len(i['exercises'])} exercises · lab {course.notebooks[n].minutes} min · "
            f'<a href="course.html#{n}">course unit</a></div></div>'
        )
    glossary = ", ".join(f'<a href="{d.notebook}.html#{d.anchor}">{escape(d.term)}</a>' for d in terms)
    return _page(
        course.title,
        f"""<h1>{escape(course.title)}</h1>
<p>{inline_markdown(course.audience)} The notebooks were executed by the DVC pipeline (<code>dvc repro</code>) with the
parameters in <code>params.yaml</code>; the numbers below are read from <code>outputs/metrics/*.json</code> when this
page is built.</p>{f"<p>{inline_markdown(store)}</p>" if store else ""}
<h2>Course map</h2>{_map(names, info)}{_EXPLORER if explorer else ""}
<p>Each notebook opens with its question and ends with a computed conclusion, a "Try it" cell and exercises with
checks. The <a href="course.html">course page</a> gives objectives, prerequisites and a 90-minute lab plan for each.</p>
<h2>The notebooks</h2><div class="grid">{"".join(cards)}</div>
<h2>Glossary</h2><p>{glossary} (<a href="glossary.html">definitions</a>)</p>""",
        banner,
    )


def _try_it_list(name: str, times: Mapping[str, Any] | None) -> str:
    """The notebook's "Try it" variations with their minutes in the classroom workspace, where measured."""
    rows = [v for v in (times or {}).get("variations", []) if v.get("notebook") == name]
    if not rows:
        return ""
    items = "".join(
        f"<li><code>{escape(v['command'])}</code>: "
        + (
            f"needs {escape(v['needs'])}"
            if v.get("needs") is not None
            else f"about {v['minutes']:g} min ({len(v['stages'])} stage{'s' if len(v['stages']) != 1 else ''} rerun"
            + (f"; not timed, so not counted: {escape(', '.join(v['untimed']))})" if v.get("untimed") else ")")
        )
        + "</li>"
        for v in rows
    )
    return (
        f"<p><b>Try it</b> (minutes in the {escape(times['profile'])} workspace: {escape(times['how'])}, "
        f"{escape(times['cpu'])}, {'/'.join(map(str, times['cores']))} cores, {escape(times['built'])})</p><ul>{items}</ul>"
    )


def try_it_times_path(profile: str = "classroom", root: Path = ROOT) -> Path:
    """The committed minutes of a profile's Try-it variations (`python -m lib.profiles estimate <profile>`)."""
    return root / "profiles" / f"{profile}.try_it.json"


def _course_page(course: Course, names, info, banner, try_it_times: Mapping[str, Any] | None = None) -> str:
    units = []
    for k, n in enumerate(names):
        unit, i = course.notebooks[n], info[n]
        prev = f'<a href="#{names[k - 1]}">← {names[k - 1][:2]}</a>' if k else ""
        nxt = f'<a href="#{names[k + 1]}">{names[k + 1][:2]} →</a>' if k + 1 < len(names) else ""
        lab = "".join(f"<tr><td>{s.minutes} min</td><td>{inline_markdown(s.do)}</td></tr>" for s in unit.lab)
        ex = "".join(
            f"<li><b>{e.number}</b> (about {e.minutes} min{', ' + escape(e.needs) if e.needs else ''}): "
            f"{inline_markdown(e.task)}</li>"
            for e in i["exercises"]
        )
        terms = ", ".join(f'<a href="{n}.html#{d.anchor}">{escape(d.term)}</a>' for d in i["terms"]) or "none new"
        units.append(
            f"""<section id="{n}"><h2>{n[:2]} · <a href="{n}.html">{escape(i["title"])}</a></h2>
<p class="q">{inline_markdown(i["question"])}</p>
<p><b>You will be able to</b></p><ul>{"".join(f"<li>{inline_markdown(o)}</li>" for o in unit.objectives)}</ul>
<p><b>Before this notebook</b></p><ul>{"".join(f"<li>{inline_markdown(p)}</li>" for p in unit.prerequisites)}</ul>
<p><b>Terms defined here:</b> {terms}</p>
<p><b>Lab plan ({unit.minutes} min)</b></p><table>{lab}</table>
<p><b>Exercises</b> (checks in the notebook; solutions in the <a href="teacher/{n}.html">teacher's version</a>)</p><ul>{ex}</ul>
{_try_it_list(n, try_it_times)}<p>{prev} {nxt}</p></section>"""
        )
    before = "".join(f"<li>{inline_markdown(b)}</li>" for b in course.before_the_course)
    return _page(
        f"{course.title}: the course",
        f"""<h1>The course</h1><p>{inline_markdown(course.audience)}</p>
<h2>Before the first lab</h2><ul>{before}</ul>
<h2>Order</h2>{_map(names, info)}
<p>Notebooks 01 to 05 build on each other; 06 to 09 each need 01 to 04 and can be taught in any order; 10 closes.</p>
{"".join(units)}""",
        banner,
    )


def _glossary_page(terms: Sequence[Definition], info, banner) -> str:
    items = "".join(
        f'<dt id="{d.anchor}">{escape(d.term)}</dt><dd>{inline_markdown(d.text)} '
        f'<a href="{d.notebook}.html#{d.anchor}">In notebook {d.notebook[:2]} ({escape(info[d.notebook]["title"])}), '
        "with a worked example →</a></dd>"
        for d in terms
    )
    return _page(
        "Glossary", f"<h1>Glossary</h1><p>Every term is defined where it is first used.</p><dl>{items}</dl>", banner
    )


def _teacher_index(course: Course, names, info) -> str:
    """The teacher's index: each notebook's page with solutions and its lab plan with the expected answers of
    the discussion prompts; then how to collect and grade the class's answers."""
    units = []
    for n in names:
        steps = "".join(
            f"<tr><td>{st.minutes} min</td><td>{inline_markdown(st.do)}"
            + (f'<p class="answer"><b>Expected answer.</b> {inline_markdown(st.answer)}</p>' if st.answer else "")
            + "</td></tr>"
            for st in course.notebooks[n].lab
        )
        units.append(
            f'<section id="{n}"><h2><a href="{n}.html">{n[:2]} · {escape(info[n]["title"])}</a></h2>'
            f"<p>{len(info[n]['exercises'])} exercises; the page shows each check's expected value, its tolerance "
            f"and the typical mistakes it names.</p><table>{steps}</table></section>"
        )
    body = (
        "<h1>Teacher's version</h1><p>The same reports with the worked solutions of the exercises, their expected "
        "values, and the lab plans with the expected answers of the discussion prompts. "
        "<code>python -m lib.site.course exercises --teacher</code> writes the runnable notebooks with solutions; "
        "without <code>--teacher</code>, the students' copies.</p>"
        "<h2>Grading a class</h2><p>Students hand in their copies of the exercise notebooks, or fill in an answer "
        "sheet (<code>python -m lib.site.grading sheet --out answers.csv</code>: one row per exercise). "
        "<code>python -m lib.site.grading grade submissions/ --out grades.csv</code> runs every notebook copy "
        "afresh against this build's outputs (<code>--root workspaces/classroom</code> for the classroom "
        "profile's), compares every answer sheet with the executed notebooks' checks, and writes one table: per "
        "submission and exercise, passed, off by how much (naming the mistake when it is a known one), or not "
        "attempted.</p>" + "".join(units)
    )
    return _page("Teacher's version", body, up="../")


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.site.course", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("exercises", help="write runnable exercise notebooks (without solutions unless --teacher)")
    ex.add_argument("--teacher", action="store_true", help="keep the worked solutions")
    ex.add_argument(
        "--out", type=nonempty_path, default=None, help="default: exercises/ (exercises-teacher/ with --teacher)"
    )
    sub.add_parser("check", help="check notebooks/course.yaml and every notebook's exercises and definitions")
    args = ap.parse_args(argv)
    if args.cmd == "exercises":
        out = Path(args.out or ROOT / ("exercises-teacher" if args.teacher else "exercises"))
        for path in write_exercises(out, teacher=args.teacher):
            print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    else:
        try:
            load_course()
            problems = [p for n in numbered() for p in exercise_problems(NOTEBOOKS_DIR / f"{n}.ipynb")]
            for n in numbered():
                definitions(NOTEBOOKS_DIR / f"{n}.ipynb")
        except CourseError as err:
            raise SystemExit(f"error: {err}") from None
        if problems:
            raise SystemExit("error: " + "\n".join(problems))
        print("course: every unit, exercise and definition is well formed")


if __name__ == "__main__":
    run_main(main)
