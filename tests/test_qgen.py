"""lib.qgen_text, lib.qgen_training, lib.qgen: the two tasks' texts, a tiny training run that saves, and
the Generator that loads it and writes."""

from __future__ import annotations

from datetime import date

import pytest
from conftest import FIXTURE_DATA, TINY_DECODING

from lib import qgen as Q
from lib import qgen_text as QX
from lib import qgen_training as QT
from lib.data import averitec


def claim(questions, label="Refuted", text="The moon  is made of cheese."):
    qs = tuple(averitec.Question(q, (averitec.Answer(a, "Extractive", "http://x", None),)) for q, a in questions)
    return averitec.Claim(0, "train", text, label, date(2020, 1, 1), (), (), "", None, None, None, qs)


def test_training_examples_of_both_tasks():
    c = claim([("Is the moon rock", "Yes, rock and dust."), ("What did NASA say?", "Nothing about cheese.")])
    ex = QT.training_examples([c], QT.QGenSettings.from_params(history_pairs=1, answer_words=2))
    assert ex == [
        ("plan: The moon is made of cheese.", "Is the moon rock? What did NASA say?"),
        ("next: The moon is made of cheese.", "Is the moon rock?"),
        ("next: The moon is made of cheese. || Is the moon rock? Yes, rock", "What did NASA say?"),
        ("next: The moon is made of cheese. || What did NASA say? Nothing about", "verdict: Refuted"),
    ]
    assert QT.training_examples([claim([])], QT.QGenSettings.from_params()) == []


def test_split_and_parse_generated_text():
    assert QX.split_questions("who said it? when? who said it ? and a tail") == ["who said it?", "when?"]
    assert QX.parse_next("verdict : refuted") == ("verdict", "Refuted")
    assert QX.parse_next("verdict: conflicting evidence / cherrypicking") == (
        "verdict",
        "Conflicting Evidence/Cherrypicking",
    )
    assert QX.parse_next("verdict: not enough evidence") == ("verdict", "Not Enough Evidence")
    assert QX.parse_next("did nasa say so? and more") == ("question", "did nasa say so?")
    assert QX.parse_next("did nasa say so") == ("question", "did nasa say so?")


def test_settings_reject_unknown_keys():
    with pytest.raises(ValueError, match="unknown keys"):
        QT.QGenSettings.from_params({"epoch": 1})


def test_tiny_model_trains_saves_loads_and_generates(tiny_qgen):
    model_dir, report = tiny_qgen
    assert report["examples"] == 6 and report["steps"] == 1 and report["loss_curve"][0]["loss"] > 0
    assert report["trainable_parameters"] < report["parameters"]  # the encoder is frozen
    g = Q.Generator(Q.Decoding.from_params(TINY_DECODING), model_dir)
    assert (g.max_source_tokens, g.history_pairs) == (48, QT.QGenSettings.from_params().history_pairs)  # as trained
    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    plans = g.plans(claims)
    assert set(plans) == {0, 1, 2} and all(len(p) <= g.decoding.max_questions for p in plans.values())
    out = g.generate([g.next_source(claims[0], [("Who said it?", "NASA.")])], num_return=2, max_new_tokens=8)
    assert len(out) == 1 and len(out[0]) == 2
    assert g.generate([g.next_source(claims[0], [])], max_new_tokens=8) == g.generate(
        [g.next_source(claims[0], [])], max_new_tokens=8
    )


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="dvc repro qgen"):
        Q.Generator(Q.Decoding.from_params(TINY_DECODING), tmp_path)
