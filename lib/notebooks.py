"""Run the numbered notebooks with papermill and render them to HTML with nbconvert.

`python -m lib.notebooks run 01_knowledge_store --section knowledge_store` executes
`notebooks/01_knowledge_store.ipynb` with the parameters of that `params.yaml` section into
`outputs/notebooks/` (`--with judgements` adds a shared section whole, as the parameter `judgements`);
`python -m lib.notebooks render --index outputs/notebooks/*.ipynb` writes `reports/*.html` (the students'
version), `reports/teacher/*.html` (with the exercises' solutions) and the course's pages (`lib.course`:
the front page with each notebook's question, headline metrics from params section `report` and figure
thumbnails, the course page, the glossary); `python -m lib.notebooks headlines` prints the headline numbers,
one line per notebook (the end of `make all`); `python -m lib.notebooks metrics` prints the metrics files
one value per line (easier to read than the wide table of `dvc metrics show`). Source notebooks stay without
outputs; executed copies are pipeline outputs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lib.config import (
    EXECUTED_DIR,
    METRICS_DIR,
    NOTEBOOKS_DIR,
    PARAMS_FILE,
    REPORTS_DIR,
    ROOT,
    section,
)

DEFAULT_TIMEOUT_S = 1800  # per cell: a hung kernel fails the stage instead of blocking it


# What the banner reads: every stage that runs a notebook declares these params (tests/test_notebooks.py).
BANNER_PARAMS = ("profile", "store.source", "store.knowledge_store")


def banner(profile: Mapping[str, Any], store: Mapping[str, Any] | None = None) -> str | None:
    """The warning that outputs of a smaller profile (params section `profile`) or of another evidence
    store than the pooled one (`store.source`) carry; None for the study on the pooled store."""
    parts = []
    if profile["name"] != "study":
        parts.append(
            f"**{profile['name'].replace('_', ' ').capitalize()} profile, not the study's figures.** {profile['note']} "
            "The study's numbers are in the repository's `outputs/metrics/`."
        )
    if store is not None and store["source"] != "pooled":
        ks = store["knowledge_store"]
        ends = (ks["first"], ks["last"])
        claims = (
            "every claim it holds"
            if ends == (None, None)
            else f"claims {ks['first'] or 0} to {ks['last'] or 'the last'}"
        )
        parts.append(
            f"**Evidence store: the knowledge store at `{ks['path']}`** ({ks['split']} {claims}, {ks['unit']} "
            "passages), not the published systems' pooled evidence: a claim's documents are the passages of "
            "its pages."
        )
    return " ".join(parts) or None


def params_banner(params: Path | str | None = None) -> str | None:
    """`banner` from a parameter file (default: params.yaml)."""
    path = PARAMS_FILE if params is None else params
    return banner(section("profile", path), section("store", path))


def run_notebook(
    name: str,
    parameters: dict[str, Any],
    out_dir: Path | str = EXECUTED_DIR,
    notebooks_dir: Path | str = NOTEBOOKS_DIR,
    timeout_s: int = DEFAULT_TIMEOUT_S,
    banner: str | None = None,
) -> Path:
    """Execute `notebooks/<name>.ipynb` with `parameters` from the repository root; return the output path.
    A `banner` becomes the executed notebook's first cell."""
    import papermill as pm

    src = Path(notebooks_dir) / f"{name}.ipynb"
    if not src.exists():
        raise FileNotFoundError(f"no notebook {src}")
    check_parameters(src, parameters)
    out = Path(out_dir) / f"{name}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    start = time.perf_counter()
    pm.execute_notebook(
        str(src),
        str(out),
        parameters=parameters,
        cwd=str(ROOT),
        kernel_name="python3",
        execution_timeout=timeout_s,
        progress_bar=False,
        log_output=False,
    )
    if banner:
        import nbformat

        nb = nbformat.read(out, as_version=4)
        nb.cells.insert(0, nbformat.v4.new_markdown_cell(f"> {banner}", id="profile-banner"))
        nbformat.write(nb, out)
    print(f"{name}: executed in {time.perf_counter() - start:.1f} s -> {out}")
    return out


def check_parameters(notebook: Path, parameters: Mapping[str, Any]) -> None:
    """Every parameter must be defined in the notebook's `parameters` cell: papermill only warns about
    the others, and the notebook would silently run with its own default instead."""
    import papermill as pm

    defined = pm.inspect_notebook(str(notebook))
    unknown = sorted(set(parameters) - set(defined))
    if unknown:
        raise ValueError(
            f"{notebook}: parameter(s) {unknown} are not defined in its parameters cell (defined: {sorted(defined)})"
        )


def with_alt_text(nb):
    """A copy of an executed notebook whose figures are HTML images carrying their alternative text
    (`lib.figures.describe`, kept in each PNG output's metadata): nbconvert's lab template drops that
    metadata and would label every figure "No description has been provided for this image"."""
    import copy
    import html

    from lib.figures import ALT

    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data") or {}
            alt = (output.get("metadata") or {}).get("image/png", {}).get(ALT)
            if "image/png" in data and alt and "text/html" not in data:
                png = "".join(data["image/png"]).replace("\n", "")
                data["text/html"] = f'<img src="data:image/png;base64,{png}" alt="{html.escape(alt)}">'
    return nb


def render_html(executed: Path | str, reports_dir: Path | str = REPORTS_DIR, teacher: bool = False) -> Path:
    """An executed notebook as a standalone HTML report (code cells kept: the reports teach): the students'
    version, the exercises' solutions replaced by stubs (`lib.course.strip_solutions`), or with `teacher`
    the worked solutions, in `reports_dir/teacher/`."""
    import nbformat
    from nbconvert import HTMLExporter

    from lib.course import strip_solutions

    executed = Path(executed)
    nb = nbformat.read(executed, as_version=4)
    body, _ = HTMLExporter().from_notebook_node(with_alt_text(nb if teacher else strip_solutions(nb)))
    out = Path(reports_dir) / ("teacher" if teacher else "") / f"{executed.stem}.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(body, encoding="utf-8")
    return out


def summary(notebook: Path | str) -> tuple[str, str]:
    """(title, one-line summary) from a notebook's first cell: `# NN · Title: summary` or
    `# NN · Title` followed by a `**Question.**` sentence."""
    import nbformat

    first = nbformat.read(Path(notebook), as_version=4).cells[0].source.strip()
    heading = first.splitlines()[0].lstrip("# ").strip()
    title = heading.split("·", 1)[-1].strip()
    name, _, rest = title.partition(":")
    return name.strip(), (rest.strip() or title)


def numbered(notebooks_dir: Path | str = NOTEBOOKS_DIR) -> list[str]:
    """The numbered notebooks' names (`01_knowledge_store`, ...), in order."""
    return sorted(p.stem for p in Path(notebooks_dir).glob("[0-9][0-9]_*.ipynb"))


def headlines(spec: Mapping[str, str], metrics_dir: Path | str = METRICS_DIR) -> dict[str, Any]:
    """{label: value} for `{label: "file.json:flattened.key"}`; a missing file or key is an error, so a
    renamed metric cannot silently vanish from the index."""
    out, cache = {}, {}
    for label, ref in spec.items():
        file, _, key = ref.partition(":")
        path = Path(metrics_dir) / file
        if path not in cache:
            if not path.exists():
                raise FileNotFoundError(f"{path} is missing: run `dvc repro` first")
            cache[path] = flatten(json.loads(path.read_text()))
        if key not in cache[path]:
            raise KeyError(f"{file} has no metric {key!r} (index headline {label!r})")
        out[label] = cache[path][key]
    return out


def format_value(value: Any) -> str:
    """A headline number as the pages and `make all` show it: floats to three decimals."""
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def headline_lines(
    spec: Mapping[str, Mapping[str, str]],
    notebooks_dir: Path | str = NOTEBOOKS_DIR,
    metrics_dir: Path | str = METRICS_DIR,
) -> list[str]:
    """The index page's headline numbers as text, one line per notebook (what `make all` ends with)."""
    lines = []
    for name in numbered(notebooks_dir):
        values = headlines(spec.get(name, {}), metrics_dir)
        if values:
            title, _ = summary(Path(notebooks_dir) / f"{name}.ipynb")
            lines.append(f"{name[:2]} {title}: " + "; ".join(f"{k} {format_value(v)}" for k, v in values.items()))
    return lines


def inline_markdown(text: str) -> str:
    """Markdown's `code`, **bold**, *italics* and [links](url) as HTML, the rest escaped (one-line texts of the
    report pages: banners, questions, the course file)."""
    from html import escape

    out = escape(text)
    out = re.sub(r"`(.+?)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", out)
    out = re.sub(r"\*(.+?)\*", r"<i>\1</i>", out)
    return re.sub(r"\[(.+?)\]\((.+?)\)", r'<a href="\2">\1</a>', out)


def banner_html(banner: str | None) -> str:
    if not banner:
        return ""
    return f'<p style="background:#fff3cd;border:1px solid #e0c060;padding:.7em">{inline_markdown(banner)}</p>\n'


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m lib.notebooks", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="execute a notebook with parameters from params.yaml")
    run.add_argument("name", help="notebook name without .ipynb, e.g. 01_knowledge_store")
    run.add_argument("--section", required=True, help="params.yaml section holding its parameters")
    run.add_argument(
        "--with",
        dest="shared",
        action="append",
        default=[],
        metavar="SECTION",
        help="a shared params.yaml section passed whole as the parameter of that name (e.g. judgements)",
    )
    run.add_argument("--params", default=str(PARAMS_FILE))
    run.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT_S, help="seconds per cell")
    render = sub.add_parser(
        "render", help="render executed notebooks to reports/*.html (students) and reports/teacher/*.html"
    )
    render.add_argument("executed", nargs="+")
    render.add_argument(
        "--index", action="store_true", help="then write the front page, the course page and the glossary"
    )
    render.add_argument("--params", default=str(PARAMS_FILE))
    heads = sub.add_parser("headlines", help="print the index page's headline numbers, one line per notebook")
    heads.add_argument("--params", default=str(PARAMS_FILE))
    metrics = sub.add_parser("metrics", help="print the metrics files one `key: value` per line")
    metrics.add_argument("files", nargs="*", help="default: outputs/metrics/*.json")
    args = ap.parse_args(argv)
    if args.cmd == "run" and args.timeout < 1:
        ap.error(f"--timeout must be >= 1 second per cell, got {args.timeout}")
    if args.cmd == "run":
        try:
            parameters = section(args.section, args.params)
            for name in args.shared:
                if name in parameters:
                    raise ValueError(
                        f"section {args.section!r} already has a parameter {name!r}; --with {name} would hide it"
                    )
                parameters[name] = section(name, args.params)
            check_parameters(NOTEBOOKS_DIR / f"{args.name}.ipynb", parameters)
        except (ValueError, KeyError, FileNotFoundError) as err:  # ParamsError is a ValueError
            raise SystemExit(f"error: {err.args[0] if isinstance(err, KeyError) else err}") from None
        run_notebook(args.name, parameters, timeout_s=args.timeout, banner=params_banner(args.params))
    elif args.cmd == "render":
        for path in args.executed:
            render_html(path)
            render_html(path, teacher=True)
        if args.index:
            from lib.course import write_site

            report = section("report", args.params)
            note = params_banner(args.params)
            pages = write_site(report["headlines"], args.executed, ROOT / report["reports_dir"], banner=note)
        n = len(args.executed)
        print(
            f"rendered {n} notebooks (students' and teacher's versions)"
            + (f" and {len(pages)} pages" if args.index else "")
        )
    elif args.cmd == "headlines":
        note = params_banner(args.params)
        if note:
            print(re.sub(r"\*\*(.+?)\*\*", r"\1", note))
        for line in headline_lines(section("report", args.params)["headlines"]):
            print(line)
        print("All metrics: python -m lib.notebooks metrics; reports: reports/index.html")
    elif args.cmd == "metrics":
        for path in args.files or sorted(METRICS_DIR.glob("*.json")):
            print(f"== {Path(path).relative_to(ROOT) if Path(path).is_relative_to(ROOT) else path}")
            for key, value in flatten(json.loads(Path(path).read_text())).items():
                print(f"  {key}: {value}")


def flatten(tree: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts as {"a.b.c": leaf} (the keys `dvc metrics show` uses)."""
    if not isinstance(tree, dict):
        return {prefix: tree}
    out: dict[str, Any] = {}
    for key, value in tree.items():
        out.update(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    return out


if __name__ == "__main__":
    main()
