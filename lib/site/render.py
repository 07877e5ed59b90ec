"""Render executed notebooks to HTML with nbconvert, and the site around them.

`python -m lib.site.render html --index outputs/notebooks/*.ipynb` writes `reports/*.html` (the students'
version), `reports/teacher/*.html` (with the exercises' solutions) and the course's pages (`lib.site.course`:
the front page with each notebook's question, headline metrics from params section `report` and figure
thumbnails, the course page, the glossary); `python -m lib.site.render headlines` prints the headline numbers,
one line per notebook (the end of `make all`); `python -m lib.site.render metrics` prints the metrics files
one value per line (easier to read than the wide table of `dvc metrics show`).
"""

from __future__ import annotations

import argparse
import copy
import html
import json
import math
import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from lib import outputs as OUT
from lib.cli import ArgumentParser, NamedError, nonempty_path, not_a_file, run_main, settings_error
from lib.params import params_given, read_params, section, study_params_only
from lib.paths import EXECUTED_DIR, METRICS_DIR, NOTEBOOKS_DIR, PARAMS_FILE, REPORTS_DIR, ROOT
from lib.site.banner import params_banner
from lib.site.catalogue import format_value, headline_lines, read_metrics, read_notebook, store_setting, summary
from lib.site.checks import RECORD_MIME, record_problem, tolerance_text
from lib.site.course import THUMBS_PER_NOTEBOOK, strip_solutions, try_it_times_path, write_site
from lib.site.figures import alt_of
from lib.site.links import EXPLORER_PAGE
from lib.site.plots import mathjax
from lib.site.reports import not_run

TEMPLATES = Path(__file__).parent / "templates"  # `offline`: JupyterLab's page, no CDN, the site's links
MODULE_FILES = ("templates/offline/index.html.j2", "templates/offline/conf.json")
MATHJAX_FILE = Path("assets") / "mathjax.js"  # beside the students' pages; the teacher's reach it with ../


def with_alt_text(nb):
    """A copy of an executed notebook whose figures are HTML images carrying their alternative text
    (`lib.site.figures.describe`, kept in each PNG output's metadata): nbconvert's lab template drops that
    metadata and would label every figure "No description has been provided for this image"."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data") or {}
            alt = alt_of(output)
            if "image/png" in data and alt and "text/html" not in data:
                png = "".join(data["image/png"]).replace("\n", "")
                data["text/html"] = f'<img src="data:image/png;base64,{png}" alt="{html.escape(alt)}">'
    return nb


def with_expected_values(nb, name: str = "the notebook"):
    """A copy of an executed notebook whose exercise checks show the teacher what they compare with: the
    expected value, the tolerance and the typical mistakes with their values (`lib.site.checks` records).
    A record edited out of shape is named (it was a traceback)."""
    nb = copy.deepcopy(nb)
    for i, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            rec = (output.get("data") or {}).get(RECORD_MIME)
            if rec is not None and (problem := record_problem(rec)):
                raise NamedError(f"{name}: cell {i}: a check record that is not the check's ({problem})")
            if rec:
                mistakes = "".join(
                    f"<li>{html.escape(what)}: {wrong:.6g}</li>" for what, wrong in (rec.get("mistakes") or {}).items()
                )
                output["data"]["text/html"] = (
                    f'<div class="expected"><b>For the teacher.</b> Exercise {html.escape(rec["exercise"])}: expected '
                    f"{rec['expected']:.6g} ({tolerance_text(rec['expected'], rec['tol'])}); the typical mistakes it names:<ul>{mistakes}</ul></div>"
                )
    return nb


def navigation(name: str, teacher: bool, explorer: bool = False) -> list[tuple[str, str]]:
    """The links atop a notebook page: the site's pages (the explorer where the site has one) and the other
    version of this notebook."""
    up = "../" if teacher else ""
    other = ("Students' version", f"../{name}.html") if teacher else ("Teacher's version", f"teacher/{name}.html")
    pages = [("Front page", "index.html"), ("Course", "course.html"), ("Glossary", "glossary.html")]
    if explorer:
        pages.append(("Evidence explorer", EXPLORER_PAGE))
    return [(label, up + page) for label, page in pages] + [other]


def write_mathjax(reports_dir: Path | str = REPORTS_DIR) -> Path:
    """MathJax beside the pages (once per reports folder), so their formulas render without a network."""
    out = Path(reports_dir) / MATHJAX_FILE
    text = mathjax()
    if out.exists() and (not out.is_file() or out.stat().st_size > 4 * len(text.encode())):
        # a pipe there hung the render, a link to /dev/zero filled memory: named before it is read
        raise NamedError(
            f"{out}: not the MathJax file the site writes ({not_a_file('a file this command writes')}, or too large)"
        )
    if not out.exists() or out.read_bytes() != text.encode("utf-8"):  # a damaged (non-UTF-8) copy is rewritten
        OUT.write_text(out, text)
    return out


def render_html(
    executed: Path | str, reports_dir: Path | str = REPORTS_DIR, teacher: bool = False, explorer: bool = False
) -> Path:
    """An executed notebook as a standalone HTML report (code cells kept: the reports teach): the students'
    version, the exercises' solutions replaced by stubs (`lib.site.course.strip_solutions`), or with `teacher`
    the worked solutions, in `reports_dir/teacher/`. The page is titled with the notebook's title, links the
    site's other pages, and needs no network (`TEMPLATES`, `write_mathjax`)."""
    from nbconvert import HTMLExporter

    executed = Path(executed)
    nb = read_notebook(executed)
    write_mathjax(reports_dir)
    exporter = HTMLExporter(
        template_name="offline",
        extra_template_basedirs=[str(TEMPLATES)],
        mathjax_url=("../" if teacher else "") + MATHJAX_FILE.as_posix(),
    )
    source = NOTEBOOKS_DIR / executed.name  # an executed notebook may open with a banner instead of its title
    title = f"{executed.stem[:2]} · {summary(source if source.exists() else executed)[0]}"
    title += " (teacher's version)" if teacher else ""
    resources = {"metadata": {"name": title}, "study_nav": navigation(executed.stem, teacher, explorer)}
    version = with_expected_values(nb, str(executed)) if teacher else strip_solutions(nb)
    body, _ = exporter.from_notebook_node(with_alt_text(version), resources=resources)
    return OUT.write_text(page_path(executed, reports_dir, teacher), body)


def page_path(executed: Path | str, reports_dir: Path | str = REPORTS_DIR, teacher: bool = False) -> Path:
    """Where an executed notebook's page goes: `reports_dir/NN_topic.html`, the teacher's in `teacher/`."""
    return Path(reports_dir) / ("teacher" if teacher else "") / f"{Path(executed).stem}.html"


SITE_PAGES = ("index.html", "course.html", "glossary.html", "teacher/index.html")  # what `--index` writes besides


def site_targets(executed: list[str], pages_dir: Path, index: bool) -> list[Path]:
    """Every file a render writes, so that none is an input (a page that is a link to the notebook it renders
    replaced that notebook with HTML, exit 0)."""
    pages = [page_path(p, pages_dir, t) for p in executed for t in (False, True)] + [pages_dir / MATHJAX_FILE]
    if not index:
        return pages
    thumbs = [
        pages_dir / "thumbs" / f"{Path(p).stem}_{k}.png" for p in executed for k in range(1, THUMBS_PER_NOTEBOOK + 1)
    ]
    return pages + [pages_dir / name for name in (*SITE_PAGES, EXPLORER_PAGE)] + thumbs


NOTEBOOK_NAME = re.compile(r"\d\d_\w+")  # a study notebook's page name (NN_topic): never a site page's (index)


def check_executed(path: Path) -> None:
    """Refuse, before any page is written, a notebook that is no executed notebook of the study: its name
    would replace a page of the site (`index.ipynb` replaced the front page), or its code never ran (a
    skeleton, a copy cleared of its outputs) and its page would show no result."""
    cells = read_notebook(path).cells
    if not NOTEBOOK_NAME.fullmatch(path.stem):
        raise NamedError(f"{path}: expected an executed study notebook named NN_topic.ipynb (its page's name)")
    if ran := not_run(cells):
        raise NamedError(f"{path}: cell {ran[0]}: {ran[2]}; execute it first (python -m lib.site.execute)")


class TryItVariation(BaseModel):
    """One "Try it" variation of the course page: its minutes and the stages it reruns, or what it needs."""

    model_config = ConfigDict(extra="forbid", strict=True)
    notebook: str
    command: str
    stages: list[str] | None = None
    minutes: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    needs: str | None = None
    untimed: list[str] | None = None  # stages the build did not time (DVC found them up to date): not in `minutes`

    @model_validator(mode="after")
    def _minutes_or_needs(self) -> TryItVariation:
        if (self.needs is None) == (self.minutes is None or self.stages is None):
            raise ValueError("expected either `minutes` and `stages`, or `needs`")
        if self.untimed is not None and not set(self.untimed) <= set(self.stages or []):
            raise ValueError("expected `untimed` to name stages of `stages`")
        return self


class TryItTimes(BaseModel):
    """`profiles/<profile>.try_it.json`, as `python -m lib.profiles estimate` writes it."""

    model_config = ConfigDict(extra="forbid", strict=True)
    profile: str
    cpu: str
    cores: list[int]
    built: str
    how: str
    variations: list[TryItVariation]


def try_it_times(path: Path | None = None) -> dict[str, Any] | None:
    """The classroom's committed Try-it minutes for the course page, or None where there are none yet."""
    path = path or try_it_times_path()
    if not path.exists():
        return None
    try:
        times = json.loads(path.read_text(encoding="utf-8"))
        TryItTimes.model_validate(times)  # a hand-edited `"minutes": "11.7"` ended the render in a traceback
    except ValidationError as err:
        raise NamedError(
            f"{path}: not the Try-it minutes `python -m lib.profiles estimate classroom` writes ({settings_error(err)})"
        ) from None
    except ValueError as err:  # JSONDecodeError is a ValueError
        raise NamedError(
            f"{path}: not the Try-it minutes `python -m lib.profiles estimate classroom` writes ({err})"
        ) from None
    return times


def numbers_banner(params: Path | str | None) -> str | None:
    """The banner of the numbers shown: the outputs here were made with this checkout's params.yaml, so its
    profile and store say what they are, whatever file `--params` (or the kernel's `STUDY_KERNEL_PARAMS`) names
    (a classroom copy's banner printed above the study's metrics). Another file is said so in one more sentence,
    whether or not its profile and store differ: its headlines, labels included, are not params.yaml's."""
    flag, read, study = params_given(params)
    made = params_banner(study)
    if read is None or read.resolve() == study.resolve():
        return made
    raw = read_params(read)
    if "profile" in raw and "store" in raw:  # a file of the `report` section alone has no banner to compare
        differs = params_banner(read) != made
        describes = "other settings (profile or evidence store) than" if differs else "the same profile and store as"
    else:
        describes = "no profile or store; it is not"
    other = (
        f"**{read} ({flag}) describes {describes} {study.name}, which made the numbers shown here;** its headlines "
        "list is used, labels included, its banner is not."
    )
    return f"{made} {other}" if made else other


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.site.render", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    pages = sub.add_parser(
        "html", help="render executed notebooks to reports/*.html (students) and reports/teacher/*.html"
    )
    pages.add_argument("executed", nargs="+")
    pages.add_argument(
        "--index", action="store_true", help="then write the front page, the course page and the glossary"
    )
    pages.add_argument("--params", type=nonempty_path, help="the study's params.yaml only (the site is its output)")
    heads = sub.add_parser("headlines", help="print the index page's headline numbers, one line per notebook")
    heads.add_argument("--params", type=nonempty_path, help="another file's headlines list, under the study's banner")
    metrics = sub.add_parser("metrics", help="print the metrics files one `key: value` per line")
    metrics.add_argument("files", nargs="*", help="default: outputs/metrics/*.json")
    args = ap.parse_args(argv)
    if args.cmd == "html":
        for path in args.executed:  # each checked before any page is written
            check_executed(Path(path))
        stems = [Path(p).stem for p in args.executed]
        if twice := sorted({s for s in stems if stems.count(s) > 1}):  # the second's page replaced the first's
            raise NamedError(f"{twice[0]}: two notebooks of this name were given; their pages have one name")
        # the site is stage `render`'s output, which the study's params.yaml describes (without --index another file
        # was taken and ignored)
        study_params_only(args.params, f"the study's site ({REPORTS_DIR.name}/: its pages, front page and course)")
        report = section("report", args.params or PARAMS_FILE) if args.index else None
        pages_dir = ROOT / report["reports_dir"] if report is not None else REPORTS_DIR  # the site's one folder
        if report is not None:  # `reports_dir: lib` wrote the site among the code
            OUT.refuse_targets([ROOT / report["reports_dir"]], args.executed, folders=True)
            OUT.refuse_stage_outputs([ROOT / report["reports_dir"]], own="render")
        OUT.refuse_targets(site_targets(args.executed, pages_dir, args.index), args.executed)
        explorer = EXECUTED_DIR / EXPLORER_PAGE  # stage `explorer` (a dep of stage `render`)
        with OUT.together():  # the pages are replaced together: a stopped run leaves the old site whole
            for path in args.executed:
                render_html(path, pages_dir, explorer=args.index and explorer.exists())
                render_html(path, pages_dir, teacher=True, explorer=args.index and explorer.exists())
            if report is not None:
                written = write_site(
                    report["headlines"],
                    args.executed,
                    ROOT / report["reports_dir"],
                    banner=numbers_banner(args.params),
                    explorer=explorer if explorer.exists() else None,
                    conclusion_points=report.get("conclusion_points", {}),
                    try_it_times=try_it_times(),
                )
        n = len(args.executed)
        print(
            f"rendered {n} notebooks (students' and teacher's versions)"
            + (f" and {len(written)} pages" if args.index else "")
        )
    elif args.cmd == "headlines":
        note = numbers_banner(args.params)
        if note:
            print(re.sub(r"\*\*(.+?)\*\*", r"\1", note))
        store = store_setting()
        if store:
            print(store.replace("`", ""))
        for line in headline_lines(section("report", args.params or PARAMS_FILE)["headlines"]):
            print(line)
        print("All metrics: python -m lib.site.render metrics; reports: reports/index.html")
    elif args.cmd == "metrics":
        for path in args.files or sorted(METRICS_DIR.glob("*.json")):
            values = read_metrics(path)  # a file that cannot be read is named before its heading is printed
            print(f"== {Path(path).relative_to(ROOT) if Path(path).is_relative_to(ROOT) else path}")
            for key, value in values.items():
                shown_value = format_value(value) if isinstance(value, float) and not math.isfinite(value) else value
                # one line per metric: a key or text holding a line break printed a line of its own
                key_text, value_text = (t if t.isprintable() else repr(t) for t in (str(key), str(shown_value)))
                print(f"  {key_text}: {value_text}")


if __name__ == "__main__":
    run_main(main)
