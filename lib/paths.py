"""Where things are: paths anchored at the repository root, so code and notebooks run from any working
directory (a cookiecutter-data-science habit). Nothing here imports more than `pathlib`, so importing a
path never makes a stage depend on the parameter schema."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "data"
OUTPUTS_DIR = ROOT / "outputs"
STORE_DIR = OUTPUTS_DIR / "store"
METRICS_DIR = OUTPUTS_DIR / "metrics"
EXECUTED_DIR = OUTPUTS_DIR / "notebooks"
REPORTS_DIR = ROOT / "reports"
NOTEBOOKS_DIR = ROOT / "notebooks"
# Where NLTK looks by default in this environment (a venv or a conda env): `import nltk` finds the data
# without any setup, in notebooks and users' scripts alike.
NLTK_DATA_DIR = Path(sys.prefix) / "share" / "nltk_data"
PARAMS_FILE = ROOT / "params.yaml"


def repo_path(path: Path | str) -> str:
    """A path as written into reports: relative to the repository when inside it, so a report means the
    same in every checkout (and hashes the same); absolute otherwise."""
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def from_repo(path: Path | str) -> Path:
    """The path a report names (see `repo_path`), in this checkout."""
    return Path(path) if Path(path).is_absolute() else ROOT / path
