"""lib.paths: where things are, and paths as reports write them."""

from __future__ import annotations

from lib.paths import ROOT, from_repo, repo_path


def test_report_paths_are_relative_to_the_repository_when_inside_it(tmp_path):
    assert repo_path(ROOT / "outputs" / "nli" / "averitec" / "models" / "gold") == "outputs/nli/averitec/models/gold"
    assert from_repo("outputs/nli/averitec/models/gold") == ROOT / "outputs" / "nli" / "averitec" / "models" / "gold"
    assert from_repo(repo_path(tmp_path)) == tmp_path.resolve() and repo_path(tmp_path) == str(tmp_path.resolve())
