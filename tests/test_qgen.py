"""lib.qgen: the two tasks' texts, batching, and a tiny training run that saves, loads and generates."""
from __future__ import annotations

from datetime import date

import pytest

from lib import qgen as Q
from lib.data import averitec


def claim(questions, label="Refuted", text="The moon  is made of cheese."):
    qs = tuple(averitec.Question(q, (averitec.Answer(a, "Extractive", "http://x", None),)) for q, a in questions)
    return averitec.Claim(0, "train", text, label, date(2020, 1, 1), (), (), "", None, None, None, qs)


def test_training_examples_of_both_tasks():
    c = claim([("Is the moon rock", "Yes, rock and dust."), ("What did NASA say?", "Nothing about cheese.")])
    ex = Q.training_examples([c], Q.QGenSettings(history_pairs=1, answer_words=2))
    assert ex == [
        ("plan: The moon is made of cheese.", "Is the moon rock? What did NASA say?"),
        ("next: The moon is made of cheese.", "Is the moon rock?"),
        ("next: The moon is made of cheese. || Is the moon rock? Yes, rock", "What did NASA say?"),
        ("next: The moon is made of cheese. || What did NASA say? Nothing about", "verdict: Refuted"),
    ]
    assert Q.training_examples([claim([])], Q.QGenSettings()) == []


def test_split_and_parse_generated_text():
    assert Q.split_questions("who said it? when? who said it ? and a tail") == ["who said it?", "when?"]
    assert Q.parse_next("verdict : refuted") == ("verdict", "Refuted")
    assert Q.parse_next("verdict: conflicting evidence / cherrypicking") == ("verdict", "Conflicting Evidence/Cherrypicking")
    assert Q.parse_next("verdict: not enough evidence") == ("verdict", "Not Enough Evidence")
    assert Q.parse_next("did nasa say so? and more") == ("question", "did nasa say so?")
    assert Q.parse_next("did nasa say so") == ("question", "did nasa say so?")


def test_batches_cover_every_example_once_and_are_deterministic():
    lengths = [5, 1, 9, 3, 3, 7, 2, 8, 4, 6, 1]
    a = Q.batches(lengths, 3, seed=1)
    assert sorted(i for b in a for i in b) == list(range(len(lengths)))
    assert a == Q.batches(lengths, 3, seed=1) and a != Q.batches(lengths, 3, seed=2)
    assert all(len(b) <= 3 for b in a)


def test_settings_reject_unknown_keys():
    with pytest.raises(ValueError, match="unknown keys"):
        Q.QGenSettings.from_params({"epoch": 1})


def test_tiny_model_trains_saves_loads_and_generates(tiny_qgen):
    model_dir, report = tiny_qgen
    assert report["examples"] == 6 and report["steps"] == 1 and report["loss_curve"][0]["loss"] > 0
    assert report["trainable_parameters"] < report["parameters"]  # the encoder is frozen
    g = Q.Generator(model_dir)
    claims = averitec.load_averitec("dev", __import__("tests.conftest", fromlist=["x"]).FIXTURE_DATA / "averitec" / "dev.json")
    plans = g.plans(claims)
    assert set(plans) == {0, 1, 2} and all(len(p) <= g.s.max_questions for p in plans.values())
    out = g.generate([g.next_source(claims[0], [("Who said it?", "NASA.")])], num_return=2, max_new_tokens=8)
    assert len(out) == 1 and len(out[0]) == 2
    assert g.generate([g.next_source(claims[0], [])], max_new_tokens=8) == \
        g.generate([g.next_source(claims[0], [])], max_new_tokens=8)


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="dvc repro qgen"):
        Q.Generator(tmp_path)
