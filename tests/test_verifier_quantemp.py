"""lib.verifier.quantemp: its params section."""

import pytest

from lib.params import ParamsError, section, validate
from lib.verifier.quantemp import NLIQuanTempSection


def test_a_published_system_is_a_plan_name_reading_one_file_of_its_own():
    """The forty-eighth pass: two names of one predictions file made one published system two, and a name or a
    file with a folder part passed the params check."""
    base = dict(section("nli_quantemp"))
    assert validate(NLIQuanTempSection, base, "params.yaml", ("nli_quantemp",), [])
    twice = {**base, "published": {"a": "p.csv", "b": "p.csv"}}
    with pytest.raises(ParamsError, match="published: 'a' and 'b' both read p.csv; name each system once"):
        validate(NLIQuanTempSection, twice, "params.yaml", ("nli_quantemp",), [])
    with pytest.raises(ParamsError, match=r"nli_quantemp.published: the key: expected a plan name"):
        validate(NLIQuanTempSection, {**base, "published": {"A B": "p.csv"}}, "params.yaml", ("nli_quantemp",), [])
    with pytest.raises(ParamsError, match=r"nli_quantemp.published.a: expected a file's name alone"):
        validate(NLIQuanTempSection, {**base, "published": {"a": "../p.csv"}}, "params.yaml", ("nli_quantemp",), [])
    # the forty-ninth pass: a system named like GPT-4o's rows was pooled with them (498 rows over 249 claims)
    with pytest.raises(ParamsError, match="published: 'gpt4o_gold_article' is the name of GPT-4o's predictions"):
        validate(NLIQuanTempSection, {**base, "published": {"gpt4o_gold_article": "p.csv"}}, "p", ("nli_quantemp",), [])
