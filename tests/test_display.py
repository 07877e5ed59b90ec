"""lib.display: display names, one home for every table and figure."""

from __future__ import annotations

from lib import display as DS
from lib import nli_training as NT
from lib import planners as P


def test_planner_names():
    assert DS.planner("oracle") == "ORACLE-QUERIES" and DS.planner("post_hoc_hero_qa") == "POST-HOC (hero_qa)"
    assert DS.planner("qgen") == "QGEN" and DS.planner("agq") == "AGQ (oracle)" and DS.planner("new_one") == "new_one"


def test_setting_names_follow_the_verifier_settings():
    assert DS.POST_HOC == P.POST_HOC_PREFIX and DS.PLANNER_SETTING == NT.PLANNER
    assert set(DS.SETTING_NAMES) == {NT.NAIVE, NT.CLAIM_ONLY, NT.GOLD, NT.SNIPPETS}
    assert DS.setting("planner:oracle") == "ORACLE-QUERIES" and DS.setting("gold") == "GOLD evidence"
    assert DS.fusion("combmax_norm") == "COMBMAX-NORM"


def test_palette_gives_each_name_the_same_colour_whatever_a_figure_shows():
    import seaborn as sns

    from lib.display import palette

    codes = ["a", "b", "c"]
    pal = palette(codes)
    assert pal["b"] == sns.color_palette("tab10", 3)[1]
    assert palette(codes)["c"] == pal["c"] and len(set(pal.values())) == 3
