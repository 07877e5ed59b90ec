"""lib.site.display: display names, one home for every table and figure."""

from __future__ import annotations

from lib.planning import planners as P
from lib.site import display as DS
from lib.verifier import stages as NT
from lib.verifier import veracity as V


def test_planner_names():
    assert DS.planner("oracle") == "ORACLE-QUERIES" and DS.planner("post_hoc_hero_qa") == "POST-HOC (hero_qa)"
    assert DS.planner("qgen") == "QGEN" and DS.planner("agq") == "AGQ (oracle)" and DS.planner("new_one") == "new_one"


def test_setting_names_follow_the_verifier_settings():
    assert DS.POST_HOC == P.POST_HOC_PREFIX and DS.PLANNER_SETTING == NT.PLANNER
    assert set(DS.SETTING_NAMES) == {NT.NAIVE, NT.CLAIM_ONLY, NT.GOLD, V.JUSTIFICATION, NT.SNIPPETS}
    assert DS.setting("planner:oracle") == "ORACLE-QUERIES" and DS.setting("gold") == "GOLD evidence"
    assert DS.SCOPE_MARK == V.SCOPE_MARK and DS.setting("planner:oracle@claim") == "ORACLE-QUERIES (claim scope)"
    assert DS.fusion("combmax_norm") == "COMBMAX-NORM"


def test_palette_gives_each_name_the_same_colour_whatever_a_figure_shows():
    import seaborn as sns

    from lib.site.display import palette

    codes = ["a", "b", "c"]
    pal = palette(codes)
    assert pal["b"] == sns.color_palette("tab10", 3)[1]
    assert palette(codes)["c"] == pal["c"] and len(set(pal.values())) == 3


def test_a_concept_keeps_its_colour_in_every_figure_and_others_get_distinct_ones():
    import seaborn as sns

    from lib.retrieval import fusion as F
    from lib.retrieval import retrievers as R

    assert DS.RETRIEVERS == R.RETRIEVERS and set(DS.FUSION_NAMES) == set(F.FUSIONS)
    alone = DS.colours(["CLAIM-ONLY"])
    crowded = DS.colours(["PURSUIT Seq+Seq", "hero_qa", "CLAIM-ONLY", "COMBMAX-NORM", "bm25"])
    assert alone["CLAIM-ONLY"] == crowded["CLAIM-ONLY"] == sns.color_palette("tab20", len(DS.PLANNER_NAMES))[0]
    assert crowded["COMBMAX-NORM"] == sns.color_palette("Set1", len(DS.FUSION_NAMES))[4]
    assert crowded["hero_qa"] == sns.color_palette(DS.OTHERS_PALETTE, 1)[0]  # the first name outside the vocabularies
    assert len(set(crowded.values())) == 5 and list(crowded) == list(dict.fromkeys(crowded))
    refs = DS.colours(DS.SETTING_NAMES.values())
    assert len(set(refs.values())) == len(DS.SETTING_NAMES) and all(max(c) < 0.95 for c in refs.values())  # no white


def test_every_concept_palette_gives_its_names_distinct_colours():
    """A palette too short for its vocabulary (a ninth fusion on an eight-colour palette) repeats colours."""
    import seaborn as sns

    for names, colours in DS.CONCEPT_PALETTES:
        assert len(set(sns.color_palette(colours, len(names)))) == len(names), colours


def test_a_tested_table_prints_p_values_at_their_floor_and_differences_signed():
    """The fiftieth pass (N 4, N 9): p = 0.0005 printed "0.000" and "0.0"; a difference as 1.153e-01."""
    import pandas as pd

    table = pd.DataFrame(
        {"mean": [0.21649], "difference": [0.1153], "p_bootstrap": [0.0004998], "Holm-adjusted p": [0.0025],
         "claims": [500]},
        index=["ORACLE"],
    )  # fmt: skip
    html = DS.tested(table, "t", signed=["difference"]).to_html()
    for cell in (">0.216<", ">+0.115<", ">0.0005<", ">0.0025<", ">500<"):
        assert cell in html, cell
    assert 'id="T_t' in html  # a fixed id: a rerun writes the same bytes


def test_a_tested_table_never_prints_minus_zero_or_plus_nan():
    """The fiftieth pass, second round (P 4, P 5)."""
    import pandas as pd

    table = pd.DataFrame({"macro_f1": [0.3671, 0.3674], "delta": [float("nan"), -1e-17], "p_x": [None, 0.5]})
    html = DS.tested(table.astype({"p_x": object}), "u", signed=["delta"]).to_html()
    assert ">+0.000<" in html and "-0.000" not in html and "+nan" not in html
    assert ">undefined<" in html and ">not tested<" in html and ">0.5<" in html


def test_a_tested_table_keeps_a_small_difference_apart_and_names_an_undefined_level():
    """The fifty-first pass (T 2, T 11): -0.0002 printed "+0.000" beside "negative", a NaN level "nan"."""
    import pandas as pd

    table = pd.DataFrame({"level": [float("nan"), 0.5], "delta": [-0.0002, 0.0008], "low": [-0.0015, 0.0002]})
    html = DS.tested(table, "v", signed=["delta", "low"]).to_html()
    for cell in (">undefined<", ">-0.0002<", ">+0.0008<", ">-0.002<", ">+0.0002<", ">0.500<"):
        assert cell in html, cell
    assert "nan" not in html and "+0.000<" not in html
    assert ">0.5000<" in DS.tested(table, "w", decimals=4).to_html()
