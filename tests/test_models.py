"""lib.models: weights kept beside a committed record, taken only with that record, trained where missing."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from lib import models as MD
from lib.cli import NamedError

# a stand-in for a training stage's command: writes the weights, the record, then the weights record
TRAIN = (
    "import sys; from pathlib import Path; from lib.models import record_weights; d = Path(sys.argv[1]);"
    " (d / 'm').mkdir(parents=True, exist_ok=True); (d / 'm' / 'w.bin').write_bytes(b'1234');"
    " (d / 'report.json').write_text('{\"loss\": 1}'); record_weights(d / 'm', d / 'report.json')"
)


def trained(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "w.bin").write_bytes(b"1234")
    (tmp_path / "report.json").write_text('{"loss": 1}')
    MD.record_weights(tmp_path / "m", tmp_path / "report.json")
    return tmp_path / "m", tmp_path / "report.json"


def test_weights_are_taken_with_their_record_only(tmp_path):
    weights, record = trained(tmp_path)
    saved = json.loads((weights / MD.WEIGHTS_RECORD).read_text())
    assert saved["record"] == "report.json" and saved["files"] == {"w.bin": hashlib.sha256(b"1234").hexdigest()}
    assert MD.holds_weights(weights, record)
    record.write_text('{"loss": 2}')  # a checkout brought another record: these weights are not its
    assert not MD.holds_weights(weights, record)


def test_weights_a_killed_writer_left_moved_aside_are_put_back_not_trained_again(tmp_path):
    """The forty-seventh pass: a model folder moved aside by a writer killed between its two renames read as
    "holds no weights" and was trained again, the old weights beside it in `.m.<pid>.<random>.old/`."""
    weights, record = trained(tmp_path)
    aside = tmp_path / ".m.999999999.ab12.old"  # its writer's pid past any pid_max: gone
    aside.mkdir()
    weights.rename(aside / "m")
    assert MD.holds_weights(weights, record) and not aside.exists()


@pytest.mark.parametrize(
    "damage",
    [
        lambda w, r: (w / "w.bin").unlink(),  # a weight file gone
        lambda w, r: (w / "w.bin").write_bytes(b"12"),  # cut short
        lambda w, r: (w / "w.bin").write_bytes(b"4321"),  # replaced by a training stopped halfway (same size)
        lambda w, r: MD.forget_weights(w),  # what a training does before it replaces them
        lambda w, r: (w / "model.safetensors").write_bytes(b"x"),  # a file the record does not vouch for
        lambda w, r: (w / MD.WEIGHTS_RECORD).write_text("[" * 100_000 + "]" * 100_000),  # nested past Python
        lambda w, r: (w / MD.WEIGHTS_RECORD).write_text(  # a record naming a file outside the folder
            (w / MD.WEIGHTS_RECORD).read_text().replace('"w.bin"', '"../m/w.bin"')  # the same file, by a way out
        ),
        lambda w, r: r.unlink(),  # no record
        lambda w, r: (w / MD.WEIGHTS_RECORD).unlink(),  # a fresh clone: no weights record
        lambda w, r: (w / MD.WEIGHTS_RECORD).write_text("[1, 2]"),  # not the expected object
        lambda w, r: (w / MD.WEIGHTS_RECORD).write_text('{"sha256": "x", "files": {}}'),
    ],
)
def test_missing_or_damaged_weights_are_not_held(tmp_path, damage):
    weights, record = trained(tmp_path)
    damage(weights, record)
    assert not MD.holds_weights(weights, record)


def test_ensure_weights_runs_the_training_only_where_they_are_missing(tmp_path, monkeypatch, capsys):
    (tmp_path / "report.json").write_text('{"loss": 1}')  # the committed record, no weights (a fresh clone)
    MD.ensure_weights(tmp_path / "m", tmp_path / "report.json", ["-c", TRAIN, str(tmp_path)])
    said = capsys.readouterr().out
    assert MD.holds_weights(tmp_path / "m", tmp_path / "report.json") and "holds no weights" in said
    assert "differs" not in said  # the training wrote the record it found
    (tmp_path / "report.json").write_text('{"loss": 0}')  # a record the training here does not reproduce
    MD.ensure_weights(tmp_path / "m", tmp_path / "report.json", ["-c", TRAIN, str(tmp_path)])
    assert "report.json differs from the one it replaced" in capsys.readouterr().out
    monkeypatch.setattr(MD.subprocess, "run", lambda *a, **k: pytest.fail("trained again"))
    MD.ensure_weights(tmp_path / "m", tmp_path / "report.json", ["-c", TRAIN, str(tmp_path)])


def test_a_training_that_fails_or_writes_no_matching_weights_is_named(tmp_path):
    with pytest.raises(NamedError, match=r"the training that writes its weights \(`python -c .*`\) exited 3"):
        MD.ensure_weights(tmp_path / "m", tmp_path / "report.json", ["-c", "raise SystemExit(3)"])
    with pytest.raises(NamedError, match="finished, but its weights and .*report.json do not match"):
        MD.ensure_weights(tmp_path / "m", tmp_path / "report.json", ["-c", "pass"])


@pytest.mark.parametrize(
    "device, message",
    [
        ("nonsense", "device 'nonsense': expected auto, cpu, mps, cuda or cuda:N"),
        ("cuda:99", "device 'cuda:99': this machine has "),
    ],
)
def test_a_device_this_machine_lacks_is_named_before_any_model_moves(device, message):
    """`--device nonsense` ended in torch's RuntimeError, `--device cuda` on a CPU-only torch in an
    AssertionError, deep inside the first model moved."""
    with pytest.raises(NamedError, match=re.escape(message)):
        MD.pick_device(device)
    with pytest.raises(NamedError, match=re.escape(message)):  # `runs --device` passes it to the encoder
        MD.load_encoder("sentence-transformers/all-MiniLM-L6-v2", device)
    assert MD.pick_device("cpu") == "cpu" and MD.pick_device("auto") in ("cpu", "cuda")


def test_a_model_that_is_neither_here_nor_on_the_hub_is_one_line(tmp_path):
    (tmp_path / "not_a_model").mkdir()
    with pytest.raises(NamedError, match=r"model '.*not_a_model': neither a model folder here nor a model the hub"):
        MD.load_encoder(str(tmp_path / "not_a_model"))
    from lib.verifier.nli import new_classifier

    with pytest.raises(NamedError, match=r"model '.*not_a_model': neither a model folder here"):  # a training's start
        new_classifier(str(tmp_path / "not_a_model"), ["Supported", "Refuted"])
