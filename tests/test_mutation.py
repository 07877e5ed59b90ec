"""The mutation report (tests/mutation.py): parsing mutmut's results, scoring per module, catching a stale list."""

import pytest

from tests import mutation as MU

RESULTS = """
    lib.retrieval.fusion.x_fuse__mutmut_1: killed
    lib.retrieval.fusion.x_fuse__mutmut_2: survived
    lib.retrieval.fusion.x_top_k__mutmut_3: survived
    lib.data.labels.x_collapse__mutmut_1: no tests
"""


def test_parse_and_module_of():
    results = MU.parse_results(RESULTS)
    assert results["lib.retrieval.fusion.x_fuse__mutmut_2"] == "survived" and len(results) == 4
    assert MU.module_of("lib.retrieval.fusion.x_fuse__mutmut_2") == "lib/retrieval/fusion.py"


def test_table_scores_and_names_every_problem():
    equivalents = {"lib.retrieval.fusion.x_fuse__mutmut_2": "same", "lib.retrieval.fusion.x_fuse__mutmut_1": "stale"}
    rows, problems = MU.table(MU.parse_results(RESULTS), equivalents)
    fusion = next(r for r in rows if r["module"] == "lib/retrieval/fusion.py")
    assert (fusion["mutants"], fusion["killed"], fusion["equivalent"], fusion["alive"]) == (3, 1, 1, 1)
    assert fusion["score"] == 0.5  # 1 killed of the 2 that are not equivalent
    assert problems == [
        "lib.data.labels.x_collapse__mutmut_1: no tests, not listed as equivalent",
        "lib.retrieval.fusion.x_top_k__mutmut_3: survived, not listed as equivalent",
        "lib.retrieval.fusion.x_fuse__mutmut_1: listed as equivalent but killed",
    ]


def test_the_committed_list_gives_a_reason_for_every_mutant(tmp_path):
    assert all(MU.read_equivalents().values())
    bad = tmp_path / "eq.txt"
    bad.write_text("# comment\n\nlib.a.x_f__mutmut_1\n")
    with pytest.raises(ValueError, match=r"eq.txt:3: 'lib.a.x_f__mutmut_1' has no reason"):
        MU.read_equivalents(bad)


def test_the_scorer_is_sampled_and_its_unsampled_mutants_are_not_counted():
    results = MU.parse_results(
        """
        lib.averitec.scoring.x_hungarian__mutmut_1: killed
        lib.averitec.scoring.x__official__mutmut_10: killed
        lib.averitec.scoring.x__official__mutmut_11: not checked
        lib.retrieval.fusion.x_fuse__mutmut_1: not checked
        """
    )
    rows, problems = MU.table(results, {})
    scorer = next(r for r in rows if r["module"] == "lib/averitec/scoring.py")
    assert (scorer["mutants"], scorer["killed"], scorer["not_sampled"], scorer["score"]) == (2, 2, 1, 1.0)
    # outside a sampled module, a mutant that did not run is a problem, not a sample
    assert problems == ["lib.retrieval.fusion.x_fuse__mutmut_1: not checked, not listed as equivalent"]


def test_the_selection_runs_every_module_whole_but_the_scorer(tmp_path):
    py = tmp_path / "pyproject.toml"
    py.write_text('[tool.mutmut]\nonly_mutate = ["lib/retrieval/fusion.py", "lib/averitec/scoring.py"]\n')
    sel = MU.selection(py)
    assert sel[0] == "lib.retrieval.fusion.*"
    assert "lib.averitec.scoring.x_hungarian__mutmut_*" in sel and "lib.averitec.scoring.x_summarise__mutmut_*" in sel
    assert sel[-1] == "lib.averitec.scoring.*__mutmut_*0" and "lib.averitec.scoring.*" not in sel
    assert len(MU.selection()) == 8 + len(MU.SCORER_CORE) + 2  # the committed config: 8 whole modules


def test_the_command_line(capsys):
    assert MU.main(["--selection"]) == 0 and capsys.readouterr().out.splitlines()[0] == "lib.retrieval.fusion.*"
    assert MU.main(["--bogus"]) == 2 and "expected none, --selection or run" in capsys.readouterr().err
