"""AVeriTeC's dataset statistics (the overview's Table 1): a hand-counted split, bad inputs named, and the
real splits against the printed table."""

import json

import pytest

from lib.data import averitec
from lib.data import statistics as ST


def claim(i, label, types, strategies, n_questions):
    q = averitec.Question("Q?", ())
    return averitec.Claim(i, "dev", f"c{i}", label, None, tuple(types), tuple(strategies), "", None, None, None,
                          (q,) * n_questions)  # fmt: skip


def test_a_split_counted_by_hand():
    claims = [
        claim(0, "Supported", ["Numerical Claim"], ["Written Evidence", "Consultation"], 2),
        claim(1, "Refuted", ["Numerical Claim", "Causal Claim"], ["Written Evidence"], 3),
        claim(2, "Refuted", ["Quote Verification"], [], 2),
        claim(3, "Conflicting Evidence/Cherrypicking", ["Position Statement"], ["Fact-checker Reference"], 2),
    ]
    s = ST.split_statistics(claims, [True, False, False, False])
    assert ST.split_statistics(claims[:3], [True] * 3)["questions_per_claim"] == 2.3333  # 7 / 3, to 4 places
    assert s == {
        "claims": 4,
        "questions_per_claim": 2.25,
        "reannotated": 0.25,
        "labels": {"S": 0.25, "R": 0.5, "N": 0.0, "C": 0.25},
        "types": {"PS": 0.25, "NC": 0.5, "EPC": 0.0, "QV": 0.25, "CC": 0.25},  # multi-label: sums to 1.25
        "strategies": {"WE": 0.5, "NCP": 0.0, "FR": 0.25, "EC": 0.25, "SS": 0.0},
    }


def test_bad_inputs_are_named(tmp_path):
    with pytest.raises(ValueError, match="no claims"):
        ST.split_statistics([], [])
    with pytest.raises(ValueError, match="1 re-annotation flags for 2 claims"):
        ST.split_statistics([claim(0, "Refuted", [], [], 1)] * 2, [True])
    with pytest.raises(ValueError, match=r"claim types \['Opinion'\]: expected one of"):
        ST.split_statistics([claim(0, "Refuted", ["Opinion"], [], 1)], [True])
    path = tmp_path / "split.json"
    path.write_text(json.dumps([{"required_reannotation": False}, {"claim": "x"}]))
    with pytest.raises(ValueError, match=r"split.json: record 1: field 'required_reannotation' is None"):
        ST.reannotated(path)


def test_the_real_splits_give_the_printed_table(real_data):
    # the overview's Table 1 (Train, Dev, Test (old)), printed to one decimal of a percent
    printed = {"train": (3068, 2.60, 28.1, 27.6), "dev": (500, 2.57, 24.4, 24.4), "test": (1000, 2.57, 25.1, 25.5)}
    for split, (n, qpc, reann, supported) in printed.items():
        path = real_data / "averitec" / f"{split}.json"
        s = ST.split_statistics(averitec.load_averitec(split, path), ST.reannotated(path))
        assert s["claims"] == n and round(s["questions_per_claim"], 2) == qpc
        assert round(100 * s["reannotated"], 1) == reann
        assert abs(100 * s["labels"]["S"] - supported) <= 0.1  # train: 27.7 here, 27.6 printed (Papelo prints 27.7)
