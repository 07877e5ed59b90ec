"""Benchmark: the AVeriTeC scorer against a straightforward implementation, same process, same inputs.

`python -m benchmarks.bench_scoring` scores published system runs on the 500 dev claims both ways:
`lib.averitec.scoring` (strings tokenised once, pair scores memoised, claims over `--jobs` processes) and
`benchmarks.reference.averitec_claim_scores` (the organisers' loop: every pair tokenised and scored
afresh, one process). It checks that the per-claim scores are identical and prints the speed ratio.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks.reference import averitec_claim_scores
from lib.averitec import scoring as SC
from lib.data import averitec
from lib.params import section
from lib.paths import DATA_DIR
from lib.resources import use_nltk_data


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--runs", nargs="+", default=None, help="system names from params `averitec.systems` (default: all)"
    )
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    use_nltk_data()
    systems = section("averitec")["systems"]
    names = args.runs or list(systems)
    claims = averitec.load_averitec("dev")
    refs = [SC.reference_evidence(c) for c in claims]
    t_fast = t_ref = 0.0
    for name in names:
        preds = SC.load_predictions(DATA_DIR / "averitec" / "systems" / systems[name], claims)
        start = time.perf_counter()
        fast = SC.evidence_scores(preds, refs, jobs=args.jobs)
        t1 = time.perf_counter() - start
        start = time.perf_counter()
        ref = np.array(averitec_claim_scores(preds, refs))
        t2 = time.perf_counter() - start
        if not np.array_equal(fast, ref):
            raise SystemExit(f"{name}: per-claim scores differ (max {np.abs(fast - ref).max():.2e})")
        print(f"{name:12s} fast {t1:6.1f} s   straightforward {t2:6.1f} s   identical   ratio {t2 / t1:.1f}x")
        t_fast, t_ref = t_fast + t1, t_ref + t2
    print(
        f"AVeriTeC scoring of {len(names)} runs x {len(claims)} claims (Q-only and Q+A): fast {t_fast:.1f} s "
        f"({args.jobs} processes), straightforward {t_ref:.1f} s, identical per-claim scores "
        f"-> ratio {t_ref / t_fast:.1f}x"
    )


if __name__ == "__main__":
    main()
