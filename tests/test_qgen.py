"""lib.planning.qgen_text, lib.planning.qgen_training, lib.planning.qgen: the two tasks' texts, a tiny training run that saves, and
the Generator that loads it and writes."""

from __future__ import annotations

import json
import shutil
from datetime import date

import pytest
import yaml
from conftest import FIXTURE_DATA, TINY_DECODING, qgen_settings

from lib import models as MD
from lib.cli import NamedError
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
    assert QX.split_questions("a" * 1_000_000) == []  # a tail without "?" once scanned from every position
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
    # one of the two fixture train claims is held out: its examples give the validation loss
    assert (report["fit_claims"], report["validation_claims"]) == (1, 1)
    assert report["examples"] + report["validation_examples"] == 6 and report["steps"] == 1
    assert report["loss_curve"][0]["loss"] > 0 and report["validation_curve"][0]["val_loss"] > 0
    assert report["best"] == {"val_loss": report["validation_curve"][0]["val_loss"], "step": 1}
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
    s = qgen_settings(batch_size=8, max_source_tokens=48, max_target_tokens=24, freeze_encoder=False, epochs=1)
    report = QT.train(s, averitec.load_averitec("train", FIXTURE_DATA / "averitec" / "train.json"), tmp_path, False)
    assert report["steps"] == 1 and report["loss_curve"][0]["loss"] > 0
    assert report["trainable_parameters"] == report["parameters"]


def test_split_claims_holds_out_a_seeded_share():
    claims = averitec.load_averitec("train", FIXTURE_DATA / "averitec" / "train.json") * 5
    fit, val = QT.split_claims(claims, 0.2, seed=0)
    assert (len(fit), len(val)) == (8, 2) and QT.split_claims(claims, 0.2, seed=0) == (fit, val)
    assert QT.split_claims(claims, 0.2, seed=1) != (fit, val)
    with pytest.raises(ValueError, match="cannot be split"):
        QT.split_claims(claims[:1], 0.5, seed=0)
    with pytest.raises(ValueError, match=r"in \(0, 1\)"):
        QT.split_claims(claims, 1.0, seed=0)


def test_training_stops_when_the_validation_loss_stops_improving(tmp_path):
    claims = averitec.load_averitec("train", FIXTURE_DATA / "averitec" / "train.json") * 4
    s = qgen_settings(
        batch_size=2, max_source_tokens=32, max_target_tokens=16, epochs=50, eval_every=0.5,
        patience=1, learning_rate=5e-2, validation_fraction=0.25,
    )  # fmt: skip
    report = QT.train(s, claims, tmp_path, False)
    curve = [p["val_loss"] for p in report["validation_curve"]]
    assert report["stopped_early"] and report["steps_run"] < report["steps"]
    assert curve[-1] >= min(curve[:-1])  # the last evaluation did not improve: patience 1 ends training
    assert report["best"]["val_loss"] == min(curve)


def test_decompositions_join_the_plan_task():
    from lib.data import claimdecomp

    decomp = claimdecomp.load_claimdecomp("dev", FIXTURE_DATA / "claimdecomp" / "dev.jsonl")
    pairs = QT.decomposition_examples(decomp)
    assert pairs and all(src.startswith("plan: ") and tgt.endswith("?") for src, tgt in pairs)
    first = decomp[0]
    assert pairs[0] == (QX.plan_source(first.text), QX.plan_target(first.annotations[0].questions))
    assert len(pairs) == sum(len(c.annotations) for c in decomp)


def test_a_plan_is_never_empty_for_want_of_a_question_mark():
    assert QX.plan_questions(["who? who? when?", "what?"], 5) == ["who?", "when?"]
    assert QX.plan_questions(["who? when? where?"], 2) == ["who?", "when?"]
    assert QX.plan_questions(["no question here", "what was said?"], 5) == ["what was said?"]  # the next beam
    assert QX.plan_questions(["the date of the claim", "and more"], 5) == ["the date of the claim?"]
    assert QX.plan_questions(["", " ? "], 5) == []


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(NamedError, match="holds no weights for its training.json.*lib.planning.qgen_training"):
        Q.Generator(Q.Decoding.model_validate(TINY_DECODING), tmp_path)


def test_weights_are_taken_only_with_the_record_they_were_saved_with(tiny_qgen, tmp_path):
    model_dir = tmp_path / "qgen"
    shutil.copytree(tiny_qgen[0], model_dir)
    record = model_dir / "training.json"
    assert MD.holds_weights(model_dir, record)
    record.write_text(record.read_text().replace('"steps": 1', '"steps": 2'))  # a record from elsewhere (git)
    assert not MD.holds_weights(model_dir, record)
    with pytest.raises(NamedError, match="holds no weights"):
        Q.Generator(Q.Decoding.model_validate(TINY_DECODING), model_dir)


def test_ensure_weights_trains_only_where_the_weights_are_missing(tmp_path, monkeypatch, capsys):
    params = tmp_path / "params.yaml"
    tiny = {"batch_size": 8, "max_source_tokens": 48, "max_target_tokens": 24, "epochs": 1}
    params.write_text(yaml.safe_dump({"qgen": {**section("qgen"), **tiny}}))
    model_dir = tmp_path / "qgen"
    Q.ensure_weights(params, FIXTURE_DATA, model_dir)  # a fresh clone: the record (here none), no weights
    assert MD.holds_weights(model_dir, model_dir / "training.json") and "holds no weights" in capsys.readouterr().out
    record = (model_dir / "training.json").read_bytes()
    assert json.loads(record)["settings"] == {**section("qgen"), **tiny}
    (model_dir / "model.safetensors").unlink()  # the committed record, its weights gone: trained again
    Q.ensure_weights(params, FIXTURE_DATA, model_dir)
    assert MD.holds_weights(model_dir, model_dir / "training.json")
    assert (model_dir / "training.json").read_bytes() == record  # deterministic
    monkeypatch.setattr(MD.subprocess, "run", lambda *a, **k: pytest.fail("trained again"))
    Q.ensure_weights(params, FIXTURE_DATA, model_dir)  # weights for this record: kept


def test_a_failed_training_is_named(tmp_path):
    params = tmp_path / "params.yaml"
    params.write_text("qgen: {epochs: 0}\n")
    with pytest.raises(NamedError, match="qgen_training.*exited 1"):
        Q.ensure_weights(params, FIXTURE_DATA, tmp_path / "qgen")


def test_another_data_folder_or_parameter_file_trains_only_into_a_named_folder(tmp_path):
    """The forty-eighth pass: `--data-dir OTHER` without `--out-dir` replaced the study's QGEN model with one
    trained on another data folder, which stage generative_plans then used."""
    from lib.paths import PARAMS_FILE

    other = tmp_path / "params.yaml"
    other.write_text(PARAMS_FILE.read_text())
    for argv in (["--data-dir", str(tmp_path)], ["--params", str(other)]):
        with pytest.raises(NamedError, match=rf"^{argv[0]} {tmp_path}.*: not the study's own; the study's QGEN model"):
            QT.main(argv)


def test_missing_study_weights_with_another_params_file_say_what_to_do(tmp_path, monkeypatch):
    """The fiftieth pass (O 10): `generative plans --params OTHER` without the weights ended in advice for an
    `--out-dir` the command does not have."""
    from lib.planning.qgen_text import MODEL_DIR

    monkeypatch.setattr(MD, "holds_weights", lambda *a: False)
    monkeypatch.setattr(MD.subprocess, "run", lambda *a, **k: pytest.fail("trained"))
    other = tmp_path / "p.yaml"
    other.write_text("qgen: {}\n")
    with pytest.raises(NamedError, match=r"no QGEN weights, and they are trained from the study's params\.yaml"):
        Q.ensure_weights(other, FIXTURE_DATA, MODEL_DIR)
