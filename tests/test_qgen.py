"""lib.planning.qgen_text, lib.planning.qgen_training, lib.planning.qgen: the two tasks' texts, a tiny training run that saves, and
the Generator that loads it and writes."""

from __future__ import annotations

from datetime import date

import pytest
from conftest import FIXTURE_DATA, TINY_DECODING, qgen_settings

from lib.data import averitec
from lib.params import section
from lib.planning import qgen as Q
from lib.planning import qgen_text as QX
from lib.planning import qgen_training as QT


def claim(questions, label="Refuted", text="The moon  is made of cheese."):
    qs = tuple(averitec.Question(q, (averitec.Answer(a, "Extractive", "http://x", None),)) for q, a in questions)
    return averitec.Claim(0, "train", text, label, date(2020, 1, 1), (), (), "", None, None, None, qs)


def test_training_examples_of_both_tasks():
    c = claim([("Is the moon rock", "Yes, rock and dust."), ("What did NASA say?", "Nothing about cheese.")])
    ex = QT.training_examples([c], qgen_settings(history_pairs=1, answer_words=2))
    assert ex == [
        ("plan: The moon is made of cheese.", "Is the moon rock? What did NASA say?"),
        ("next: The moon is made of cheese.", "Is the moon rock?"),
        ("next: The moon is made of cheese. || Is the moon rock? Yes, rock", "What did NASA say?"),
        ("next: The moon is made of cheese. || What did NASA say? Nothing about", "verdict: Refuted"),
    ]
    assert QT.training_examples([claim([])], qgen_settings()) == []


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
    with pytest.raises(ValueError, match="epoch"):
        QT.QGenSettings.model_validate({**section("qgen"), "epoch": 1})


def test_tiny_model_trains_saves_loads_and_generates(tiny_qgen):
    model_dir, report = tiny_qgen
    assert report["examples"] == 6 and report["steps"] == 1 and report["loss_curve"][0]["loss"] > 0
    assert report["trainable_parameters"] < report["parameters"]  # the encoder is frozen
    g = Q.Generator(Q.Decoding.model_validate(TINY_DECODING), model_dir)
    assert (g.max_source_tokens, g.history_pairs) == (48, qgen_settings().history_pairs)  # as trained
    claims = averitec.load_averitec("dev", FIXTURE_DATA / "averitec" / "dev.json")
    plans = g.plans(claims)
    assert set(plans) == {0, 1, 2} and all(len(p) <= g.decoding.max_questions for p in plans.values())
    out = g.generate([g.next_source(claims[0], [("Who said it?", "NASA.")])], num_return=2, max_new_tokens=8)
    assert len(out) == 1 and len(out[0]) == 2
    assert g.generate([g.next_source(claims[0], [])], max_new_tokens=8) == g.generate(
        [g.next_source(claims[0], [])], max_new_tokens=8
    )


def test_cached_encoder_states_give_the_models_own_loss():
    import torch

    s = qgen_settings(max_train_claims=None)
    claims = averitec.load_averitec("train", FIXTURE_DATA / "averitec" / "train.json")
    examples = QT.training_examples(claims, s)
    torch.manual_seed(0)
    model, tok = QT.new_model(s)
    model.eval()
    memory = QT.encoder_states(model, tok, [src for src, _ in examples], 48, "cpu", batch_size=4)
    assert [len(m) for m in memory] == [len(i) for i in tok([src for src, _ in examples])["input_ids"]]
    src = tok([e[0] for e in examples], padding=True, truncation=True, max_length=48, return_tensors="pt")
    labels = tok([e[1] for e in examples], padding=True, return_tensors="pt").input_ids
    labels[labels == tok.pad_token_id] = -100
    with torch.no_grad():
        reference = model(input_ids=src.input_ids, attention_mask=src.attention_mask, labels=labels).loss
        assert float(QT.target_loss(model, *QT._stack(memory), labels)) == pytest.approx(float(reference), abs=1e-5)


def test_an_unfrozen_encoder_trains_through_the_models_own_loss(tmp_path):
    s = qgen_settings(batch_size=8, max_source_tokens=48, max_target_tokens=24, freeze_encoder=False)
    report = QT.train(s, averitec.load_averitec("train", FIXTURE_DATA / "averitec" / "train.json"), tmp_path, False)
    assert report["steps"] == 1 and report["loss_curve"][0]["loss"] > 0
    assert report["trainable_parameters"] == report["parameters"]


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="dvc repro qgen"):
        Q.Generator(Q.Decoding.model_validate(TINY_DECODING), tmp_path)
