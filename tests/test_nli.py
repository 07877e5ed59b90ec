"""The veracity classifier: label sets, inputs that keep the claim, metrics, and a tiny training run."""

import json

import numpy as np
import pytest

from lib import timing as TM
from lib.data import labels as LB
from lib.verifier import nli as N

MINILM = N.NLISettings().model


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    from lib.models import resolve_model

    return AutoTokenizer.from_pretrained(resolve_model(MINILM))


def test_label_sets_and_reductions():
    assert LB.map_label("Refuted", "averitec4") == "Refuted"
    assert LB.map_label("Not Enough Evidence", "averitec3") == LB.OTHER
    assert LB.map_label("Conflicting Evidence/Cherrypicking", "averitec3") == LB.OTHER
    assert LB.map_label("Supported", "averitec3") == "Supported"
    assert LB.map_label("Conflicting Evidence/Cherrypicking", "averitec2") is None
    assert LB.map_label("Supported", "averitec2") == "Supported"
    assert LB.map_label("Conflicting", "quantemp3") == "Conflicting"
    with pytest.raises(ValueError, match="label set"):
        LB.map_label("True", "averitec4")
    with pytest.raises(ValueError, match="unknown label set"):
        LB.map_label("Supported", "averitec5")


def test_collapse_sums_merged_classes_and_renormalises_dropped_ones():
    # averitec4 order: Supported, Refuted, NEE, Conflicting
    probs = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.3, 0.1, 0.1]])
    np.testing.assert_allclose(LB.collapse(probs, "averitec4", "averitec3"), [[0.1, 0.2, 0.7], [0.5, 0.3, 0.2]])
    np.testing.assert_allclose(LB.collapse(probs, "averitec4", "averitec2"), [[1 / 3, 2 / 3], [0.625, 0.375]])
    np.testing.assert_allclose(LB.collapse(probs, "averitec4", "averitec4"), probs)


def test_encode_truncates_the_evidence_never_the_claim(tokenizer):
    claim = "The unemployment rate in Ohio fell to 4 percent in 2019."
    ev = tuple(f"evidence sentence number {i} with some words about jobs" for i in range(40))
    enc = N.encode(tokenizer, [N.Example("a", claim, ev, "Refuted"), N.Example("b", claim, (), "Refuted")], 64)
    ids = enc["input_ids"][0]
    assert len(ids) == 64
    first = ids[1 : ids.index(tokenizer.sep_token_id)]
    assert tokenizer.decode(first) == claim.lower()  # the whole claim is the first segment
    assert "evidence sentence number 0" in tokenizer.decode(ids)  # the best evidence comes first
    assert tokenizer.decode(enc["input_ids"][1][1:-1]) == claim.lower()  # no evidence: the claim alone
    assert enc["token_type_ids"][0][-1] == 1 and set(enc["token_type_ids"][1]) == {0}


def test_encode_cuts_an_overlong_claim_to_its_share(tokenizer):
    claim = " ".join(f"word{i}" for i in range(200))
    enc = N.encode(tokenizer, [N.Example("a", claim, ("short evidence",), "Supported")], 64, max_claim_share=0.5)
    ids = enc["input_ids"][0]
    first = ids[1 : ids.index(tokenizer.sep_token_id)]
    assert len(first) <= 30 and len(ids) <= 64
    assert tokenizer.decode(ids).endswith("short evidence [SEP]")  # the evidence still fits


def test_class_weights_balanced_by_hand():
    np.testing.assert_allclose(N.class_weights([0, 0, 0, 1], 3), [4 / 9, 4 / 3, 0.0])


def test_classification_scores_by_hand():
    gold = ["a", "a", "b", "b", "c"]
    pred = ["a", "b", "b", "b", "a"]
    s = N.classification_scores(gold, pred, ["a", "b", "c"])
    assert s["accuracy"] == pytest.approx(0.6)
    # a: P 1/2 R 1/2 F 1/2; b: P 2/3 R 1 F 0.8; c: 0
    assert s["per_class"]["b"]["f1"] == pytest.approx(0.8) and s["per_class"]["c"]["f1"] == 0.0
    assert s["macro_f1"] == pytest.approx((0.5 + 0.8 + 0) / 3)
    assert s["weighted_f1"] == pytest.approx((2 * 0.5 + 2 * 0.8) / 5)
    assert s["confusion"] == [[1, 1, 0], [0, 2, 0], [1, 0, 0]]
    with pytest.raises(ValueError, match="predictions"):
        N.classification_scores(gold, pred[:-1], ["a", "b", "c"])


def test_settings_reject_unknown_keys():
    with pytest.raises(ValueError, match="lr"):
        N.NLISettings.model_validate({"lr": 1e-3})
    with pytest.raises(ValueError, match="class_weighting"):
        N.NLISettings.model_validate({"class_weighting": "inverse"})
    assert N.NLISettings.model_validate({"epochs": 3, "seed": 2}).seed == 2


def _toy(n: int, offset: int = 0) -> list[N.Example]:
    """The label is written in the evidence: 'confirmed' -> Supported, 'denied' -> Refuted."""
    out = []
    for i in range(offset, offset + n):
        word, label = ("confirmed", "Supported") if i % 2 else ("denied", "Refuted")
        out.append(N.Example(str(i), f"claim number {i} about a city", (f"the report {word} it",), label))
    return out


def test_tiny_training_learns_a_separable_task_and_stops_early(tiny_bert, tmp_path):
    s = N.NLISettings(
        model=tiny_bert,
        max_length=32,
        batch_size=8,
        learning_rate=3e-3,
        epochs=30,
        eval_every=1,
        patience=2,
        class_weighting="none",
        warmup=0.0,
    )
    model, tok, report = N.train(_toy(48), _toy(16, 100), ["Supported", "Refuted"], s, tmp_path / "m", progress=False)
    test = _toy(20, 200)
    probs = N.predict_proba(model, tok, test, 32)
    assert [("Supported", "Refuted")[i] for i in probs.argmax(1)] == [e.label for e in test]
    assert report["best"]["macro_f1"] == 1.0
    assert report["stopped_early"] and report["steps_run"] < report["steps_planned"]
    assert (tmp_path / "m" / "training.json").exists()
    # the seconds go to the stage's timing file (lib.timing.measured), never to the saved report
    assert TM.measurements()["training"]["examples_per_second"] > 0 and "seconds" not in json.dumps(report)
    again, tok2, _ = N.load(tmp_path / "m", "cpu")
    np.testing.assert_allclose(
        N.predict_proba(again, tok2, test, 32), probs, atol=1e-6
    )  # the best checkpoint was saved


def test_predict_proba_classifies_identical_inputs_once(tiny_bert):
    model, tok = N.new_classifier(tiny_bert, ["Supported", "Refuted"])
    calls = []
    model.register_forward_hook(lambda m, args, kwargs, out: calls.append(len(kwargs["input_ids"])), with_kwargs=True)
    long = tuple(f"evidence sentence number {i} with several more words" for i in range(12))
    exs = [N.Example("a", "claim", long[:5], "Supported"), N.Example("b", "claim", long, "Supported"), *_toy(3)]
    probs = N.predict_proba(model, tok, exs, 16, batch_size=64)
    assert calls == [4]  # top-5 and all 12 pieces are the same 16 tokens
    np.testing.assert_array_equal(probs[0], probs[1])
    alone = [N.predict_proba(model, tok, [e], 16)[0] for e in exs]
    np.testing.assert_allclose(probs, np.array(alone), atol=1e-6)


def test_training_is_seeded(tiny_bert):
    s = N.NLISettings(
        model=tiny_bert,
        max_length=32,
        batch_size=8,
        learning_rate=3e-3,
        epochs=2,
        eval_every=1,
        class_weighting="balanced",
    )
    runs = [N.train(_toy(24), _toy(8, 100), ["Supported", "Refuted"], s, None, progress=False) for _ in range(2)]
    p = [N.predict_proba(m, t, _toy(6, 300), 32) for m, t, _ in runs]
    np.testing.assert_array_equal(p[0], p[1])


def test_training_rejects_labels_outside_the_set(tiny_bert):
    s = N.NLISettings(model=tiny_bert, max_length=32)
    with pytest.raises(ValueError, match="not in the classifier's label set"):
        N.train(_toy(4), [], ["Supported"], s, None, progress=False)


def test_macro_f1_equals_scikit_learn():
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(0)
    for n in (1, 7, 200):
        gold, pred = rng.integers(0, 4, n), rng.integers(0, 3, n)  # class 3 never predicted
        assert N.macro_f1(gold, pred, 4) == pytest.approx(
            f1_score(gold, pred, labels=[0, 1, 2, 3], average="macro", zero_division=0), abs=1e-12
        )
    assert N.macro_f1([0, 0], [0, 0], 2) == 0.5  # the absent class counts as 0


def test_classification_scores_averages_equal_scikit_learn():
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(1)
    labels = ["a", "b", "c", "d"]
    for n in (5, 50, 500):
        gold, pred = list(rng.choice(labels[:3], n)), list(rng.choice(labels, n))  # "d" never gold
        s = N.classification_scores(gold, pred, labels)
        for average in ("macro", "weighted"):
            assert s[f"{average}_f1"] == pytest.approx(
                f1_score(gold, pred, labels=labels, average=average, zero_division=0), abs=1e-12
            )


def test_training_calibrates_and_the_saved_model_keeps_the_temperature(tiny_bert, tmp_path):
    s = N.NLISettings(model=tiny_bert, max_length=32, batch_size=8, learning_rate=3e-3, epochs=2, eval_every=1)
    model, tok, report = N.train(_toy(24), _toy(8, 100), ["Supported", "Refuted"], s, tmp_path / "m", progress=False)
    t = report["calibration"]["temperature"]
    assert t == N.temperature_of(model) and t != 1.0
    assert report["calibration"]["validation_nll"]["after"] <= report["calibration"]["validation_nll"]["before"]
    test = _toy(6, 300)
    logits = N.predict_logits(model, tok, test, 32)
    probs = N.predict_proba(model, tok, test, 32)
    e = np.exp(logits / t - (logits / t).max(1, keepdims=True))
    np.testing.assert_allclose(probs, e / e.sum(1, keepdims=True), atol=1e-9)
    np.testing.assert_array_equal(probs.argmax(1), logits.argmax(1))
    again, tok2, saved = N.load(tmp_path / "m", "cpu")
    assert N.temperature_of(again) == t and saved["calibration"]["temperature"] == t
    off = N.train(
        _toy(24),
        _toy(8, 100),
        ["Supported", "Refuted"],
        s.model_copy(update={"calibrate": False}),
        None,
        progress=False,
    )
    assert off[2]["calibration"] is None and N.temperature_of(off[0]) == 1.0


@pytest.mark.parametrize("bad", [0, -1.0, "warm", float("nan")])
def test_a_saved_temperature_that_is_none_names_the_model(bad):
    """A hand-edited config.json: 0 was read as 1.0 (not calibrated), -1 and text failed unnamed."""
    from types import SimpleNamespace

    model = SimpleNamespace(config=SimpleNamespace(name_or_path="models/mine", calibration_temperature=bad))
    with pytest.raises(ValueError, match=r"^calibration_temperature in the config.json of models/mine must be a"):
        N.temperature_of(model)
    assert N.temperature_of(SimpleNamespace(config=SimpleNamespace(calibration_temperature=None))) == 1.0
    assert N.temperature_of(SimpleNamespace(config=SimpleNamespace(calibration_temperature=1.7))) == 1.7


def test_a_diverging_training_is_named_not_saved(tiny_bert, tmp_path):
    """A learning rate of 1e6 saved a classifier of NaN weights, 'best validation macro-F1 0.333', exit 0."""
    from lib import training as TR

    s = N.NLISettings(model=tiny_bert, max_length=32, batch_size=8, learning_rate=1e6, epochs=2, eval_every=1)
    with pytest.raises(TR.DivergedError, match="the training diverged; lower the learning rate"):
        N.train(_toy(24), _toy(8, 100), ["Supported", "Refuted"], s, tmp_path / "m", progress=False)
    assert not (tmp_path / "m").exists()


def test_a_classifier_of_nan_weights_is_named_when_it_predicts(tiny_bert):
    import torch

    s = N.NLISettings(model=tiny_bert, max_length=32, batch_size=8, epochs=1, eval_every=1, calibrate=False)
    model, tok, _ = N.train(_toy(8), _toy(4, 100), ["Supported", "Refuted"], s, None, progress=False)
    with torch.no_grad():
        next(model.parameters()).fill_(float("nan"))
    from lib import training as TR

    with pytest.raises(TR.DivergedError, match=r"gives logits that are not finite for 3 of 3 distinct input"):
        N.predict_logits(model, tok, _toy(3, 300), 32)
