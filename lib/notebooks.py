"""Run the numbered notebooks with papermill and render them to HTML with nbconvert.

`python -m lib.notebooks run 01_knowledge_store --section knowledge_store` executes
`notebooks/01_knowledge_store.ipynb` with the parameters of that `params.yaml` section into
`outputs/notebooks/`; `python -m lib.notebooks render outputs/notebooks/*.ipynb` writes
`reports/*.html`; `python -m lib.notebooks metrics` prints the metrics files one value per line (easier
to read than the wide table of `dvc metrics show`). Source notebooks stay without outputs; executed copies
are pipeline outputs.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from lib.config import EXECUTED_DIR, METRICS_DIR, NOTEBOOKS_DIR, PARAMS_FILE, REPORTS_DIR, ROOT, section

DEFAULT_TIMEOUT_S = 1800  # per cell: a hung kernel fails the stage instead of blocking it


def run_notebook(name: str, parameters: dict[str, Any], out_dir: Path | str = EXECUTED_DIR,
                 notebooks_dir: Path | str = NOTEBOOKS_DIR, timeout_s: int = DEFAULT_TIMEOUT_S) -> Path:
    """Execute `notebooks/<name>.ipynb` with `parameters` from the repository root; return the output path."""
    import papermill as pm

    src = Path(notebooks_dir) / f"{name}.ipynb"
    if not src.exists():
        raise FileNotFoundError(f"no notebook {src}")
    out = Path(out_dir) / f"{name}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    start = time.perf_counter()
    pm.execute_notebook(str(src), str(out), parameters=parameters, cwd=str(ROOT), kernel_name="python3",
                        execution_timeout=timeout_s, progress_bar=False, log_output=False)
    print(f"{name}: executed in {time.perf_counter() - start:.1f} s -> {out}")
    return out


def render_html(executed: Path | str, reports_dir: Path | str = REPORTS_DIR) -> Path:
    """An executed notebook as a standalone HTML report (code cells kept: the reports teach)."""
    import nbformat
    from nbconvert import HTMLExporter

    executed = Path(executed)
    nb = nbformat.read(executed, as_version=4)
    body, _ = HTMLExporter().from_notebook_node(nb)
    out = Path(reports_dir) / f"{executed.stem}.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(body, encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m lib.notebooks", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="execute a notebook with parameters from params.yaml")
    run.add_argument("name", help="notebook name without .ipynb, e.g. 01_knowledge_store")
    run.add_argument("--section", required=True, help="params.yaml section holding its parameters")
    run.add_argument("--params", default=str(PARAMS_FILE))
    run.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT_S, help="seconds per cell")
    render = sub.add_parser("render", help="render executed notebooks to reports/*.html")
    render.add_argument("executed", nargs="+")
    metrics = sub.add_parser("metrics", help="print the metrics files one `key: value` per line")
    metrics.add_argument("files", nargs="*", help="default: outputs/metrics/*.json")
    args = ap.parse_args(argv)
    if args.cmd == "run":
        run_notebook(args.name, section(args.section, args.params), timeout_s=args.timeout)
    elif args.cmd == "render":
        for path in args.executed:
            print(f"rendered {render_html(path)}")
    else:
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
