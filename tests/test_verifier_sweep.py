"""The verifier sweep's file, its pick (validation only), and the seed-range check."""

import json
import os
import re

import numpy as np
import pandas as pd
import pytest

from lib.cli import NamedError
from lib.verifier import sweep as VS


def _run(lr, epochs=2, evidence="gold", seed=0, val=0.4, dev_gold=0.5, dev_ret=0.3):
    return {
        "learning_rate": lr,
        "epochs": epochs,
        "training_evidence": evidence,
        "seed": seed,
        "best": {"macro_f1": val, "step": 20},
        "curve": [
            {"step": 10, "epoch": 0.5, "loss": 1.3, "val_macro_f1": val - 0.1},
            {"step": 20, "epoch": 1.0, "loss": 1.0, "val_macro_f1": val},
        ],
        "calibration": {"temperature": 0.5},
        "dev": {"gold": {"macro_f1": dev_gold}, "planner:claim_only": {"macro_f1": dev_ret}},
    }


SWEEP = {
    "runs": [
        _run(2e-5, val=0.35, dev_gold=0.9),  # the best on dev: must not be picked
        _run(1e-4, val=0.50),
        _run(2e-4, val=0.50),  # a tie: the lower learning rate wins
        _run(1e-4, evidence="mixed", val=0.60),
        _run(1e-4, seed=1, val=0.70, dev_gold=0.44),
        _run(1e-4, seed=2, val=0.40, dev_gold=0.47),
    ]
}


def test_pick_uses_validation_only_first_seed_and_breaks_ties_low():
    chosen = VS.pick(SWEEP)
    assert chosen == {
        "learning_rate": 1e-4,
        "epochs": 2,
        "training_evidence": "gold",
        "seed": 0,
        "validation_macro_f1": 0.5,
    }
    assert VS.pick(SWEEP, "mixed")["validation_macro_f1"] == 0.6
    with pytest.raises(ValueError, match="no run with training evidence"):
        VS.pick({"runs": [_run(1e-4)]}, "mixed")
    # the forty-eighth pass: a run trained at another k (`--ks 3 10`) was picked as the recipe for the file's k
    mixed_k = {"k": 3, "runs": [_run(1e-4, val=0.5), {**_run(2e-5, val=0.9), "k": 10}, {**_run(3e-5, val=0.6), "k": 3}]}
    assert VS.pick(mixed_k)["learning_rate"] == 3e-5
    with pytest.raises(ValueError, match="no run with training evidence 'gold' at its k = 5"):
        VS.pick({"k": 5, "runs": [{**_run(1e-4), "k": 3}]})
    # ... and every reader of notebook 07 reads the runs at the file's k only (own_k)
    from lib.analysis import verdicts as VD

    assert [r["learning_rate"] for r in VS.own_k(mixed_k)["runs"]] == [1e-4, 3e-5]
    assert VS.own_k({"runs": mixed_k["runs"]})["runs"] == mixed_k["runs"]  # no k: every run
    table = VS.runs_table(VS.own_k(mixed_k))
    assert VD.learning_rate_sentence(table, {"seed": 0, "epochs": 2}).count("2e-05") == 0
    assert len(VD.at_pick(table, {"learning_rate": 1e-4, "epochs": 2, "seed": 0})) == 1
    curves, _ = VD.sweep_curves(mixed_k)
    assert set(curves["learning_rate"]) == {1e-4, 3e-5}


def test_matches_pick_on_both_sides():
    assert VS.matches_pick(SWEEP, {"classifier": {"learning_rate": 1e-4, "epochs": 2}})
    assert not VS.matches_pick(SWEEP, {"classifier": {"learning_rate": 2e-5, "epochs": 2}})
    assert not VS.matches_pick(SWEEP, {"classifier": {"learning_rate": 1e-4, "epochs": 3}})


def test_tables_and_the_seed_range():
    table = VS.runs_table(SWEEP)
    assert table.loc[1, "at epoch"] == 1.0 and table.loc[1, "last training loss"] == 1.0
    assert table.loc[0, "dev gold"] == 0.9 and table.loc[0, "temperature"] == 0.5
    assert len(VS.curves(SWEEP)) == 12
    spread = VS.seed_spread(SWEEP, VS.pick(SWEEP))
    assert spread.loc["dev gold", "seeds"] == 3 and spread.loc["dev gold", "min"] == 0.44
    assert spread.loc["dev gold", "max"] == 0.5
    assert VS.within_seed_range(0.06, spread, "dev gold") and not VS.within_seed_range(-0.07, spread, "dev gold")
    one = VS.seed_spread({"runs": SWEEP["runs"][:2]}, VS.pick(SWEEP))
    assert not VS.within_seed_range(0.0, one, "dev gold")  # one seed: no range to be within
    with pytest.raises(ValueError, match="no seed spread"):
        VS.within_seed_range(0.0, spread, "dev oracle")


def test_read_sweep_refuses_foreign_files_by_name(tmp_path):
    assert VS.read_sweep(tmp_path / "none.json") == {"runs": []}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([1, 2]))
    with pytest.raises(ValueError, match="bad.json: expected an object with a `runs` list"):
        VS.read_sweep(bad)
    bad.write_text(json.dumps({"runs": [{"learning_rate": 1e-4}]}))
    with pytest.raises(ValueError, match=r"run 0 lacks \['epochs'"):
        VS.read_sweep(bad)


def test_config_ids_are_distinct_per_swept_key():
    ids = {VS.config_id(r) for r in SWEEP["runs"]}
    assert len(ids) == len(SWEEP["runs"])
    assert VS.config_id(SWEEP["runs"][1]) == "lr=0.0001,epochs=2,evidence=gold,seed=0"


def test_sweep_skips_finished_configurations_and_writes_after_each(tmp_path, tiny_nli, monkeypatch):
    data, _, _ = tiny_nli
    out = tmp_path / "sweep.json"
    params = {
        "classifier": {"model": "unused", "validation_fraction": 0.25, "seed": 0},
        "label_set": "averitec4",
        "k": 2,
        "mixed": {"distractor_share": 0.5, "seed": 0},
        "retrieval": {},
    }
    calls = []

    def fake_train(train_set, validation, labels, s):
        calls.append((s.learning_rate, len(train_set), len(validation)))
        return (
            None,
            None,
            {
                "curve": [],
                "best": {"macro_f1": 0.1 * len(calls), "step": 0},
                "steps_planned": 1,
                "steps_run": 1,
                "calibration": None,
                "train_seconds": 0.0,
            },
        )

    monkeypatch.setattr(VS.N, "train", fake_train)
    # what the real `train` records in this process (the test passed only after another had trained)
    monkeypatch.setattr(VS.TM, "measurements", lambda: {"training": {"train_seconds": 0.0}})
    monkeypatch.setattr(VS, "_dev_scores", lambda *a, **k: {"gold": {"macro_f1": 0.0}})
    monkeypatch.setattr(VS, "_scores", lambda *a, **k: {"v": {"macro_f1": 0.25}})
    monkeypatch.setattr(VS, "load_store", lambda *a: type("Store", (), {"docs": None}))
    monkeypatch.setattr(VS, "retrieved_evidence", lambda claims, *a: {c.claim_id: ("r1", "r2") for c in claims})
    VS.sweep([1e-4, 2e-4], [1], ["gold"], [0], [], params, out, data)
    assert [c[0] for c in calls] == [1e-4, 2e-4] and calls[0][2] > 0
    VS.sweep([1e-4, 5e-5], [1], ["gold"], [0], [], params, out, data)
    assert [c[0] for c in calls] == [1e-4, 2e-4, 5e-5]  # 1e-4 was in the file already
    written = VS.read_sweep(out)
    assert [r["learning_rate"] for r in written["runs"]] == [1e-4, 2e-4, 5e-5] and written["fit_claims"] > 0
    assert isinstance(VS.runs_table(written), pd.DataFrame)
    assert {r[VS.VALIDATION_RETRIEVED] for r in written["runs"]} == {0.25}
    VS.sweep([1e-4], [1], ["retrieved"], [0], [], params, out, data, ks=[1, 2])
    assert VS.config_id(VS.read_sweep(out)["runs"][-1]).endswith("evidence=retrieved,seed=0,k=2")
    assert [c[1] for c in calls[-2:]] == [calls[0][1]] * 2  # every fit claim has retrieved evidence
    # the forty-seventh pass, third round: a run stored without k under the file's k is that run (`--ks 2` under
    # `k: 2` trained it again and wrote a file its reader refused) ...
    trained = len(calls)
    VS.sweep([1e-4], [1], ["gold"], [0], [], params, out, data, ks=[2])
    assert len(calls) == trained
    # ... a value given twice is named before any training (it trained twice, a file its reader refused) ...
    with pytest.raises(VS.NamedError, match=r"lr=0.0003,epochs=1,evidence=gold,seed=0: given twice"):
        VS.sweep([3e-4, 3e-4], [1], ["gold"], [0], [], params, out, data)
    # ... and the file's runs are never put under other settings (k=2 runs were recorded as k=3, unsaid)
    with pytest.raises(VS.NamedError, match=r"its runs were trained with other settings \(k differ"):
        VS.sweep([3e-4], [1], ["gold"], [0], [], {**params, "k": 3}, out, data)
    assert len(calls) == trained and VS.read_sweep(out)["k"] == 2

    # the forty-eighth pass: an unknown planner was refused only after the first configuration had trained
    def no_runs(paths, planners, retrieval):
        raise ValueError(f"no runs for planners {list(planners)}")

    monkeypatch.setattr(VS.V, "planner_runs", no_runs)
    with pytest.raises(VS.NamedError, match=r"--planners bogus: no runs for planners \['bogus'\]"):
        VS.sweep([3e-4], [1], ["gold"], [0], ["bogus"], {**params, "runs": []}, out, data)
    assert len(calls) == trained


def test_at_pick_trains_at_the_picked_learning_rate_and_epochs(tmp_path, monkeypatch):
    out = tmp_path / "verifier.json"
    out.write_text(json.dumps(SWEEP))
    seen = {}
    monkeypatch.setattr(
        VS, "sweep", lambda lrs, epochs, evidence, seeds, *a, **kw: seen.update(lrs=lrs, epochs=epochs, seeds=seeds)
    )
    VS.main(["--at-pick", "--seeds", "1", "2", "--out", str(out)])
    assert seen == {"lrs": [1e-4], "epochs": [2], "seeds": [1, 2]}
    VS.main(["--out", str(out), "--learning-rates", "3e-3", "--epochs", "4"])
    assert seen == {"lrs": [3e-3], "epochs": [4], "seeds": [0]}
    with pytest.raises(VS.NamedError, match="no run with training evidence"):
        VS.main(["--at-pick", "--out", str(tmp_path / "none.json")])


def test_a_loss_averaged_over_a_few_final_steps_is_not_a_curve_point():
    run = _run(1e-4)
    run["curve"] = [
        {"step": 86, "epoch": 0.5, "loss": 1.3, "val_macro_f1": 0.4},
        {"step": 172, "epoch": 1.0, "loss": 1.0, "val_macro_f1": 0.45},
        {"step": 175, "epoch": 1.02, "loss": 0.6, "val_macro_f1": 0.46},
    ]
    sweep = {"runs": [run]}
    assert VS.runs_table(sweep)["last training loss"].tolist() == [1.0]
    assert VS.curves(sweep)["step"].tolist() == [86, 172, 175]
    assert VS.curves(sweep, full_intervals=True)["step"].tolist() == [86, 172]


def _protocol_run(evidence, seed, val, k=None, dev=None):
    run = _run(1e-4, 3, evidence, seed) | {VS.VALIDATION_RETRIEVED: val}
    run["dev"] = dev or {"gold": {"macro_f1": 0.5}, "planner:oracle": {"macro_f1": val / 2}}
    return run | ({"k": k} if k is not None else {})


PROTOCOL = {
    "k": 3,
    "runs": [
        _protocol_run("gold", 0, 0.30),
        _protocol_run("retrieved", 0, 0.40),
        _protocol_run("gold", 1, 0.34),
        _protocol_run("retrieved", 1, 0.36),
        _protocol_run("retrieved", 0, 0.90, k=5),  # another k: not part of the pick at k = 3
        _run(1e-4, 3, "mixed", 0),  # no score on retrieved evidence: not a protocol run
    ],
}


def test_pick_protocol_averages_seeds_at_k_and_a_tie_keeps_gold():
    chosen = VS.pick_protocol(PROTOCOL)
    assert chosen["training_evidence"] == "retrieved" and chosen["seeds"] == {"gold": 2, "retrieved": 2}
    assert chosen["validation_macro_f1"] == pytest.approx({"gold": 0.32, "retrieved": 0.38})
    with pytest.raises(ValueError, match=r"no run with training evidence 'gold' at k = 5"):  # was "retrieved", alone
        VS.pick_protocol(PROTOCOL, k=5)
    tie = {"k": 3, "runs": [_protocol_run("retrieved", 0, 0.3), _protocol_run("gold", 0, 0.3)]}
    assert VS.pick_protocol(tie)["training_evidence"] == "gold"
    worse = {"k": 3, "runs": [_protocol_run("retrieved", 0, 0.29), _protocol_run("gold", 0, 0.3)]}
    assert VS.pick_protocol(worse)["training_evidence"] == "gold"
    assert VS.matches_protocol(PROTOCOL, {"training_evidence": "retrieved", "k": 3})
    assert not VS.matches_protocol(PROTOCOL, {"training_evidence": "gold", "k": 3})
    with pytest.raises(ValueError, match="make sweep-protocol"):
        VS.pick_protocol(SWEEP | {"k": 3})
    with pytest.raises(ValueError, match="names no k"):
        VS.pick_protocol(SWEEP)


def test_protocol_table_gives_mean_and_range_over_seeds():
    table = VS.protocol_table(PROTOCOL)
    score = "validation macro-F1, retrieved evidence"
    assert table.loc["retrieved", (score, "mean")] == pytest.approx(0.38)
    assert table.loc["retrieved", (score, "range")] == pytest.approx(0.04)
    assert table.loc["gold", ("dev planner:oracle", "mean")] == pytest.approx(0.16)
    assert table.loc["gold", ("seeds", "")] == 2 and "mixed" not in table.index
    one = VS.protocol_table({"k": 3, "runs": PROTOCOL["runs"][:3]})
    assert one.loc["retrieved", ("seeds", "")] == 1 and np.isnan(one.loc["retrieved", (score, "range")])


def test_k_table_sets_the_retrained_model_beside_the_one_read_at_k():
    base = _protocol_run(
        "retrieved", 0, 0.4, dev={"planner:oracle": {"macro_f1": 0.30}, "planner:oracle@k=5": {"macro_f1": 0.28}}
    )
    at5 = _protocol_run("retrieved", 0, 0.4, k=5, dev={"planner:oracle": {"macro_f1": 0.33}})
    other_seed = _protocol_run("retrieved", 1, 0.4, k=5, dev={"planner:oracle": {"macro_f1": 0.99}})
    table = VS.k_table({"k": 3, "runs": [base, at5, other_seed]})
    assert table.to_dict("records") == [
        {"planner": "oracle", "k": 3, "how": "k=3 model", "macro_f1": 0.30},
        {"planner": "oracle", "k": 3, "how": "retrained", "macro_f1": 0.30},
        {"planner": "oracle", "k": 5, "how": "k=3 model", "macro_f1": 0.28},
        {"planner": "oracle", "k": 5, "how": "retrained", "macro_f1": 0.33},
    ]


def test_a_damaged_or_missing_pick_from_file_is_one_named_error(tmp_path):
    """The thirty-first pass: tracebacks for a file that is not JSON or holds a run that is no object, and a
    missing file read as an empty sweep ("no run with training evidence 'gold'")."""
    cases = {
        "bad.json": ("not json", "not a sweep file (JSONDecodeError"),
        "runint.json": ('{"runs": [1]}', "run 0: expected an object"),
    }
    for name, (text, problem) in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(VS.NamedError, match=re.escape(problem)):
            VS.main(["--out", str(tmp_path / "sw.json"), "--pick-from", str(tmp_path / name)])
    with pytest.raises(VS.NamedError, match="nonexistent.json: no such file"):
        VS.main(["--out", str(tmp_path / "sw.json"), "--pick-from", str(tmp_path / "nonexistent.json")])


def test_a_seed_without_a_value_is_no_seed_of_its_range():
    """The thirty-first pass: one seed with a dev score and two without gave "3 seeds" and a 0.000 range."""

    def run(seed, dev):
        return {"learning_rate": 1e-4, "epochs": 2, "training_evidence": "gold", "seed": seed, "k": 5,
                "best": {"macro_f1": 0.5, "step": 10}, "curve": [{"step": 10, "epoch": 1, "loss": 1.0}], "dev": dev,
                "validation_retrieved": 0.4 + seed / 100}  # fmt: skip

    sweep = {"k": 5, "runs": [run(0, {"gold": {"macro_f1": 0.5}}), run(1, {}), run(2, {})]}
    spread = VS.seed_spread(sweep, {"learning_rate": 1e-4, "epochs": 2, "training_evidence": "gold"})
    assert spread.loc["dev gold", "seeds"] == 1 and not VS.within_seed_range(0.0, spread, "dev gold")
    table = VS.protocol_table(sweep)
    assert table.loc["gold", ("dev gold", "range")] != table.loc["gold", ("dev gold", "range")]  # NaN: no range
    assert table.loc["gold", ("validation macro-F1, retrieved evidence", "range")] == pytest.approx(0.02)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"learning_rate": "2e-5"}, r"run 0: learning_rate = '2e-5'; expected a number above 0$"),
        ({"best": None}, r"run 0: best = None; expected \{\"macro_f1\": <a finite number>, \.\.\.\}$"),
        ({"best": {"macro_f1": float("nan"), "step": 1}}, r"run 0: best = \{'macro_f1': nan, 'step': 1\}"),
        ({"epochs": True}, r"run 0: epochs = True; expected a whole number from 1 to 1000$"),
        ({"epochs": 2.5}, r"run 0: epochs = 2\.5; expected a whole number from 1 to 1000$"),  # trained int(2.5) = 2
        # the forty-second pass: 1e300 was picked, and `--at-pick` would have trained practically forever
        ({"epochs": 1e300}, r"run 0: epochs = 1e\+300; expected a whole number from 1 to 1000$"),
        ({"epochs": 1001}, r"run 0: epochs = 1001; expected a whole number from 1 to 1000$"),
        ({"learning_rate": -1}, r"run 0: learning_rate = -1; expected a number above 0$"),
        ({"dev": []}, r"run 0: dev = \[\]; expected \{<setting>: \{\"macro_f1\": <a finite number>"),
        ({"curve": "x"}, r"run 0: curve = 'x'; expected a list of points"),
        ({"validation_retrieved": "0.5"}, r"run 0: validation_retrieved = '0\.5'; expected a finite number or null$"),
    ],
)
def test_a_sweep_file_with_values_of_the_wrong_kind_is_refused_by_name(tmp_path, change, message):
    """The thirty-fourth pass: a learning rate "2e-5" or `best: null` was a traceback in `--pick-from`, and a NaN
    validation macro-F1 was picked or not by the order of the runs."""
    run = {"learning_rate": 2e-5, "epochs": 2, "training_evidence": "gold", "seed": 0, "curve": [], "dev": {},
           "best": {"macro_f1": 0.5, "step": 1}}  # fmt: skip
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps({"runs": [run | change]}))
    with pytest.raises(ValueError, match=message):
        VS.read_sweep(path)
    path.write_text(json.dumps({"runs": [run]}))
    assert VS.pick(VS.read_sweep(path))["learning_rate"] == 2e-5


def test_a_protocol_without_a_scored_run_is_named_and_the_pick_is_not_overridden_in_silence(tmp_path, capsys):
    """The thirty-fifth pass: gold runs without a validation score on retrieved evidence left the protocol pick to
    `retrieved` alone; `--learning-rates` beside `--at-pick` was dropped without a word."""
    from lib.cli import run_main

    run = {
        "learning_rate": 2e-5,
        "epochs": 2,
        "seed": 0,
        "curve": [],
        "dev": {},
        "best": {"macro_f1": 0.5, "step": 1},
        "k": 3,
    }
    sweep = {"k": 3, "runs": [run | {"training_evidence": "gold", "validation_retrieved": None},
                              run | {"training_evidence": "retrieved", "validation_retrieved": 0.3}]}  # fmt: skip
    with pytest.raises(ValueError, match=r"training evidence 'gold' have no score on the validation claims' retrieved"):
        VS.pick_protocol(sweep)
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps(sweep))
    with pytest.raises(SystemExit) as end:
        run_main(lambda: VS.main(["--at-pick", "--out", str(path), "--learning-rates", "1e-3"]))
    assert end.value.code == 1 and capsys.readouterr().err == (
        "error: --learning-rates with --at-pick or --pick-from: the pick sets them; give one or the other\n"
    )


def test_huge_numbers_points_without_a_step_and_a_k_without_gold_are_named(tmp_path):
    """The thirty-sixth pass: 10**400 was an OverflowError traceback; a curve point or best without `step` a
    KeyError in notebook 07; at a k where gold never ran, `retrieved` was picked alone."""
    run = {"learning_rate": 2e-5, "epochs": 2, "training_evidence": "gold", "seed": 0, "dev": {},
           "curve": [{"step": 1, "epoch": 0.5, "loss": 1.0}], "best": {"macro_f1": 0.5, "step": 1}}  # fmt: skip
    path = tmp_path / "sweep.json"
    for change, message in (
        ({"epochs": 10**400}, r"run 0: epochs = 1000.*; expected a whole number from 1 to 1000$"),
        ({"curve": [{"epoch": 0.5}]}, r"run 0: curve\[0\] = \{'epoch': 0\.5\}; a point needs step, epoch and loss$"),
        ({"best": {"macro_f1": 0.5}}, r"run 0: best = \{'macro_f1': 0\.5\}; expected a step beside the macro-F1$"),
    ):
        path.write_text(json.dumps({"runs": [run | change]}))
        with pytest.raises(ValueError, match=message):
            VS.read_sweep(path)
    sweep = {"k": 3, "runs": [run | {"k": 3, "validation_retrieved": 0.3},
                              run | {"k": 1, "training_evidence": "retrieved", "validation_retrieved": 0.4}]}  # fmt: skip
    with pytest.raises(ValueError, match=r"^the sweep has no run with training evidence 'gold' at k = 1"):
        VS.pick_protocol(sweep, 1)


def test_whole_floats_k_and_unequal_seeds_in_a_sweep_file(tmp_path):
    """The thirty-seventh pass: epochs 2.0 named its configuration "epochs=2.0" (the sweep retrained it); `k: true`
    was k = 1; protocols scored over different seeds were compared."""
    run = {"learning_rate": 2e-5, "epochs": 2.0, "training_evidence": "gold", "seed": 0.0, "dev": {},
           "curve": [{"step": 1, "epoch": 0.5, "loss": 1.0}], "best": {"macro_f1": 0.5, "step": 1}}  # fmt: skip
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps({"runs": [run]}))
    read = VS.read_sweep(path)["runs"][0]
    assert (read["epochs"], read["seed"]) == (2, 0) and VS.config_id(read) == "lr=2e-05,epochs=2,evidence=gold,seed=0"
    for sweep, message in (({"k": True, "runs": [run]}, r"k = True; expected a whole number of at least 1"),
                           ({"runs": [run | {"k": 3.5}]}, r"run 0: k = 3\.5; expected a whole number")):  # fmt: skip
        path.write_text(json.dumps(sweep))
        with pytest.raises(ValueError, match=message):
            VS.read_sweep(path)
    scored = lambda ev, seed: run | {"training_evidence": ev, "seed": seed, "k": 3, "validation_retrieved": 0.3}  # noqa: E731
    uneven = {"k": 3, "runs": [scored("gold", 1), scored("retrieved", 0), scored("retrieved", 1)]}
    with pytest.raises(ValueError, match=r"cover different seeds \(gold: 1; retrieved: 0, 1\)"):
        VS.pick_protocol(uneven)


def test_the_seed_spread_is_over_seeds_at_the_sweeps_k_and_a_configuration_is_recorded_once(tmp_path):
    """The thirty-eighth pass: the protocol sweep's k-ablation runs (seed 0 retrained at k = 1, 5 and 10) were
    counted as seeds of the recipe ("6 seeds", a range twice as wide), and a configuration recorded twice (two
    sweep files merged) counted its one seed as two."""
    ablation = [_run(1e-4, seed=0, dev_gold=g) | {"k": k} for k, g in ((1, 0.1), (5, 0.9))]
    sweep = {"k": 3, "runs": [*SWEEP["runs"], *ablation]}
    spread = VS.seed_spread(sweep, VS.pick(SWEEP))
    assert spread.loc["dev gold", "seeds"] == 3 and (spread.loc["dev gold", "min"], spread.loc["dev gold", "max"]) == (
        0.44, 0.5
    )  # fmt: skip
    with pytest.raises(ValueError, match=r"^the recipe's runs were trained at several k \(\[1, 5\]\)"):
        VS.seed_spread({"runs": [*SWEEP["runs"], *ablation]}, VS.pick(SWEEP))  # no sweep k to choose by
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps({"k": 3, "runs": [*SWEEP["runs"], _run(1e-4, val=0.9)]}))
    with pytest.raises(ValueError, match=r"sweep.json: runs 1 and 6 are one configuration \(lr=0.0001,epochs=2,"):
        VS.read_sweep(path)
    path.write_text(json.dumps({"k": 3, "runs": [*SWEEP["runs"], _run(1e-4) | {"k": 3}]}))  # k 3 is the sweep's
    with pytest.raises(ValueError, match=r"runs 1 and 6 are one configuration"):
        VS.read_sweep(path)
    path.write_text(json.dumps({"k": 3, "runs": [*SWEEP["runs"], *ablation]}))
    assert len(VS.read_sweep(path)["runs"]) == 8  # the same recipe at other k: other configurations
    with pytest.raises(ValueError, match=r"^seed 0 of the recipe is recorded twice"):
        VS.seed_spread({"runs": [_run(1e-4), _run(1e-4, dev_gold=0.6)]}, VS.pick(SWEEP))


def test_the_seed_spread_tells_small_learning_rates_apart():
    """The thirty-ninth pass: `np.isclose`'s absolute tolerance (1e-8) made 5e-9 and 1e-8 one recipe."""
    sweep = {"k": 5, "runs": [_run(5e-9, seed=0, dev_gold=0.3), _run(1e-8, seed=1, dev_gold=0.6)]}
    spread = VS.seed_spread(sweep, {"learning_rate": 5e-9, "epochs": 2, "training_evidence": "gold"})
    assert spread.loc["dev gold", "seeds"] == 1 and spread.loc["dev gold", "max"] == 0.3
    assert VS.same_rate(1e-4, 1.00000000001e-4) and not VS.same_rate(1e-13, 5e-13)
    assert VS.matches_pick(
        {"runs": [_run(1e-13, val=0.9), _run(5e-13)]}, {"classifier": {"learning_rate": 1e-13, "epochs": 2}}
    )
    assert not VS.matches_pick(
        {"runs": [_run(1e-13, val=0.9), _run(5e-13)]}, {"classifier": {"learning_rate": 5e-13, "epochs": 2}}
    )


def test_a_sweep_path_that_is_no_regular_file_is_named(tmp_path):
    """The fortieth pass: a named pipe passed `exists()` and `read_text` waited for a writer forever."""
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(
        ValueError, match=r"fifo: not a regular file \(a folder, a pipe or a device\?\); expected a sweep"
    ):
        VS.read_sweep(fifo)
    with pytest.raises(ValueError, match=r"not a regular file"):
        VS.read_sweep(tmp_path)


def test_configurations_of_rates_same_rate_tells_apart_have_their_own_ids():
    """The forty-second pass: `config_id` printed rates at `:g`, so 2e-05 and 2.0000001e-05 shared an id and the
    second was skipped as "in the file already"; the ids of the committed sweeps are unchanged."""
    run = {"learning_rate": 2e-5, "epochs": 2, "training_evidence": "gold", "seed": 0}
    assert VS.config_id(run) == "lr=2e-05,epochs=2,evidence=gold,seed=0"
    assert VS.config_id(run | {"learning_rate": 2.0000001e-5}) == "lr=2.0000001e-05,epochs=2,evidence=gold,seed=0"
    assert not VS.same_rate(2e-5, 2.0000001e-5)
    assert VS.rate_text(1e-4) == "0.0001" and VS.rate_text(5e-9) == "5e-09"


def test_a_sweep_file_with_one_configuration_twice_by_same_rate_is_refused(tmp_path):
    """The forty-third pass: 2e-05 and 2e-05 * (1 + 1e-11), one rate to `same_rate` and one `config_id`, were
    kept apart by a key printed at 12 figures, and `pick` took the better copy."""
    run = {"learning_rate": 2e-5, "epochs": 2, "training_evidence": "gold", "seed": 0, "curve": [], "dev": {},
           "best": {"macro_f1": 0.5, "step": 1}}  # fmt: skip
    path = tmp_path / "sweep.json"
    twin = run | {"learning_rate": 2e-5 * (1 + 1e-11), "best": {"macro_f1": 0.9, "step": 1}}
    path.write_text(json.dumps({"runs": [run, run | {"learning_rate": 1e-4}, twin]}))
    with pytest.raises(ValueError, match=r"runs 0 and 2 are one configuration \(lr=2e-05,epochs=2"):
        VS.read_sweep(path)
    path.write_text(json.dumps({"runs": [run, run | {"learning_rate": 2e-5 * (1 + 1e-8)}]}))
    assert len(VS.read_sweep(path)["runs"]) == 2  # apart to `same_rate`: two configurations


def test_pick_ties_within_noise_not_by_rounding_and_a_pipe_is_named(tmp_path):
    """The forty-fourth pass: 0.4999996 and 0.5000004 both rounded to 0.5, a tie, and the lower score was
    picked (while 0.5000004 and 0.5000006 were not tied); `--pick-from` called a pipe "no such file"; a k of 5.0
    named its configuration "k=5.0"."""

    def run(lr, f1, **more):
        return {
            "learning_rate": lr,
            "epochs": 2,
            "training_evidence": "gold",
            "seed": 0,
            "best": {"macro_f1": f1, "step": 1},
        } | more

    assert VS.pick({"runs": [run(1e-5, 0.4999996), run(2e-5, 0.5000004)]})["learning_rate"] == 2e-5
    assert VS.pick({"runs": [run(1e-5, 0.3 + 1e-17), run(2e-5, 0.3)]})["learning_rate"] == 1e-5  # noise: a tie
    fifo = tmp_path / "sweep.fifo"
    os.mkfifo(fifo)
    with pytest.raises(NamedError, match="not a regular file"):
        VS.main(["--pick-from", str(fifo), "--out", str(tmp_path / "o.json")])
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"runs": [run(1e-5, 0.5, k=5.0, curve=[], dev={})]}))
    assert VS.config_id(VS.read_sweep(path)["runs"][0]).endswith(",k=5")
