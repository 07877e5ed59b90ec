"""Paths anchored at the repository root, and the study parameters from `params.yaml`.

Notebooks and stages import paths from here instead of typing them, so the project runs from any
working directory (cookiecutter-data-science habit).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "data"
OUTPUTS_DIR = ROOT / "outputs"
STORE_DIR = OUTPUTS_DIR / "store"
METRICS_DIR = OUTPUTS_DIR / "metrics"
EXECUTED_DIR = OUTPUTS_DIR / "notebooks"
REPORTS_DIR = ROOT / "reports"
NOTEBOOKS_DIR = ROOT / "notebooks"
NLTK_DATA_DIR = ROOT / "nltk_data"
PARAMS_FILE = ROOT / "params.yaml"


def load_params(path: Path | str = PARAMS_FILE) -> dict[str, Any]:
    """The whole parameter file as a dict (one section per stage)."""
    with open(path, encoding="utf-8") as f:
        params = yaml.safe_load(f) or {}
    if not isinstance(params, dict):
        raise ValueError(f"{path}: expected a mapping of sections, got {type(params).__name__}")
    return params


def section(name: str, path: Path | str = PARAMS_FILE) -> dict[str, Any]:
    """One section of the parameter file; a clear error names the missing section."""
    params = load_params(path)
    if name not in params:
        raise KeyError(f"{path}: no section {name!r} (sections: {', '.join(params)})")
    return params[name]
