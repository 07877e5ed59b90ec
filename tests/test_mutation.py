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
