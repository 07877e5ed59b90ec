"""Query planners that need no language model, one plan format, and plan statistics.

A plan is `{claim_id: [queries]}`, saved as JSONL (`{"claim_id": 0, "queries": [...]}` per line).

- CLAIM-ONLY (`claim_only`): the claim text as the single query.
- ORACLE-QUERIES (`oracle`): the claim's gold questions, written by the annotators who verified it: the
  upper bound for decomposition (they know which evidence was needed).
- BLOOM-QG (`bloom_qg`): the questions the original AVeriTeC baseline generated from the claim alone
  (BLOOM, before retrieval) in `data/averitec/systems/bloom_dev_generated_questions.json`.
- POST-HOC (`post_hoc`): the questions of a published system's QA evidence. The systems wrote them after
  retrieval, looking at the evidence, so they are a *reference*, not a plan a retriever could have used.
- HEURISTIC (`heuristic`): a rule-based decomposition, see `heuristic_queries`.

`resolve` turns a plan into the queries actually run: a claim whose plan is empty or missing falls back to
its claim text, and the fallbacks are returned so that callers count and report them.
"""

from __future__ import annotations

import json
import re
import time
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import accumulate, combinations, islice, pairwise
from pathlib import Path

import numpy as np
from pydantic import model_validator

from lib import outputs as OUT
from lib import timing as TM
from lib.cli import ArgumentParser, NamedError, data_folder, env_bound, nonempty_path, run_main, shown
from lib.data import DataError, as_id, averitec, bounded, bounded_lines, not_utf8, parse_json, within_size
from lib.params import FileName, PlanName, PosInt, Section, one_name_per_file, params_given, section
from lib.paths import DATA_DIR, OUTPUTS_DIR, PARAMS_FILE
from lib.retrieval.bm25 import tokenize

# --------------------------------------------------------------------------- params

# The most queries one plan line may hold: the planners write at most 13; one line of 16 Mi characters held
# 2.4 million (each retrieved and fused). Raise it with $LIB_MAX_PLAN_QUERIES.
MAX_PLAN_QUERIES = env_bound("LIB_MAX_PLAN_QUERIES", 1000)


class HeuristicSection(Section):
    window: PosInt
    max_queries: PosInt


class PlannersSection(Section):
    bloom_file: FileName  # in data/averitec/systems/
    post_hoc: dict[PlanName, FileName]  # {name: file}: the plan post_hoc_<name>
    heuristic: HeuristicSection

    @model_validator(mode="after")
    def _one_name_per_file(self) -> PlannersSection:
        one_name_per_file(self.post_hoc, "planners.post_hoc")  # the same system twice, as two planners
        return self


Plan = dict[int, list[str]]
PLANS_DIR = OUTPUTS_DIR / "plans"
POST_HOC_PREFIX = "post_hoc_"


def distinct(queries: Iterable[str]) -> list[str]:
    """Stripped, non-empty queries, first occurrence kept (case and spacing ignored for duplicates)."""
    seen, out = set(), []
    for q in queries:
        q = " ".join((q or "").split())
        key = q.lower()
        if q and key not in seen:
            seen.add(key)
            out.append(q)
    return out


def claim_only(claims: Iterable[averitec.Claim]) -> Plan:
    return {c.claim_id: [c.text] for c in claims}


def oracle(claims: Iterable[averitec.Claim]) -> Plan:
    return {c.claim_id: distinct(q.text for q in c.questions) for c in claims}


def bloom_qg(claims: Iterable[averitec.Claim], generated: Mapping[int, list[str]]) -> Plan:
    """The published BLOOM questions for the given claims (a claim without any gets an empty plan)."""
    return {c.claim_id: distinct(generated.get(c.claim_id, [])) for c in claims}


def post_hoc(
    claims: Iterable[averitec.Claim], outputs: Iterable[averitec.SystemOutput], file: str | Path = "system output"
) -> Plan:
    """The distinct questions of a system's QA evidence, in the system's order. The output must cover every
    claim and hold questions: a top-k sentence file, or a sample, would give empty plans that score as a
    planner that asked nothing."""
    claims = list(claims)
    by_id = {o.claim_id: o for o in outputs}
    missing = [c.claim_id for c in claims if c.claim_id not in by_id]
    if missing:
        raise DataError(
            file,
            "-",
            "claim_id",
            f"covers {len(claims) - len(missing)} of {len(claims)} claims (claim {missing[0]} "
            "has no record); a post-hoc plan needs the system's questions for every claim",
        )
    plan = {c.claim_id: distinct(e.question for e in by_id[c.claim_id].evidence if e.question) for c in claims}
    if not any(plan.values()):
        raise DataError(file, "-", "evidence", "no record holds a question; expected a QA system's output")
    return plan


# --------------------------------------------------------------------------- heuristic decomposition

# Rule 1: clause boundaries. Sentence ends and semicolons always split; these connectives split when
# both sides keep at least MIN_CLAUSE_WORDS words ("Biden and Harris" stays whole).
_SENTENCE = re.compile(r"(?<=[.!?…])\s+(?=[A-Z“\"‘'])|;\s*")
_CONNECTIVES = re.compile(
    r",?(?<!\s)\s++\b(?:but|while|whereas|although|though|because|since|so that|and|or)\b\s+|,\s+which\s+",
    re.IGNORECASE,
)
MIN_CLAUSE_WORDS = 4
# Rule 2: numbers (amounts, percentages, money, counts with a magnitude word).
_NUMBER = re.compile(
    r"(?:[$£€₹]\s?)?\d[\d,]*(?:\.\d+)?(?:\s?(?:%|percent|per cent|million|billion|trillion|"
    r"thousand|crore|lakh))?",
    re.IGNORECASE,
)
# Rule 3: dates (years 1800-2099, month names with an optional day or year).
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_DATE = re.compile(
    rf"\b(?:(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?(?:{_MONTHS})\.?(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?(?:,?\s+\d{{4}})?|"
    r"(?:18|19|20)\d{2}s?)\b"
)
# Rule 4: named entities, approximated as runs of capitalised words (a leading function word or
# sentence opener on its own is not an entity; an acronym such as WHO is).
_ENTITY = re.compile(r"\b[A-Z][\w'’.-]*(?:\s++(?:(?:of|the|de|for|and)\s*+)?[A-Z][\w'’.-]*)*")
_NOT_ENTITIES = {
    "a",
    "an",
    "the",
    "in",
    "on",
    "at",
    "this",
    "that",
    "these",
    "those",
    "it",
    "he",
    "she",
    "they",
    "we",
    "i",
    "you",
    "says",
    "said",
    "photo",
    "video",
    "image",
    "there",
    "if",
    "when",
    "as",
    "according",
    "after",
    "before",
    "during",
    "no",
    "yes",
    "not",
    "why",
    "what",
    "how",
    "who",
    "his",
    "her",
    "their",
    "our",
    "my",
    "and",
    "but",
    "so",
    "now",
    "by",
    "for",
    "from",
    "with",
    "well",
    "remember",
    "speaking",
    "almost",
    "more",
    "less",
    "than",
    "some",
    "all",
    "every",
}


def split_clauses(text: str, min_words: int = MIN_CLAUSE_WORDS) -> list[str]:
    """Rule 1: sentences and semicolon parts, then connective splits that leave both sides long enough.

    The connectives are tried right to left; each side's words are counted from running totals over the
    pieces between connectives (each piece tokenised once), so a claim with thousands of connectives takes
    linear time (counting each side anew took seconds on 32 KB, hours on the 1 MiB a claim may hold)."""
    clauses: list[str] = []
    for sentence in _SENTENCE.split(text):
        matches = list(_CONNECTIVES.finditer(sentence))
        # pieces: text, connective 0, text, connective 1, ..., text; connective j is piece 2j + 1
        bounds = [0, *(i for m in matches for i in m.span()), len(sentence)]
        words_before = list(accumulate((len(tokenize(sentence[a:b])) for a, b in pairwise(bounds)), initial=0))
        cut, kept = len(bounds) - 1, []  # the right side ends where the last kept split begins
        for j in reversed(range(len(matches))):
            left = words_before[2 * j + 1]
            right = words_before[cut] - words_before[2 * j + 2]
            if left >= min_words and right >= min_words:
                kept.append(matches[j])
                cut = 2 * j + 1
        edges = [0, *(i for m in reversed(kept) for i in m.span()), len(sentence)]
        clauses.extend(sentence[a:b].strip(" ,.;:…") for a, b in zip(edges[::2], edges[1::2]))
    return [c for c in clauses if tokenize(c)]


def _window(text: str, start: int, end: int, width: int, words: Sequence[tuple[int, int]], ends: Sequence[int]) -> str:
    """The words overlapping text[start:end] with `width` more words on each side, as written. `words`:
    the text's word spans in order, `ends` their ends (found once per clause, searched by bisection: a
    scan per mention took quadratic time in a long claim)."""
    first = bisect_right(ends, start)  # the first word that ends after the span starts
    last = bisect_left(words, (end,)) - 1  # the last word that starts before the span ends
    if first > last:  # no word overlaps the span
        return text[start:end].strip()
    lo, hi = max(first - width, 0), min(last + width, len(words) - 1)
    return text[words[lo][0] : words[hi][1]].strip(" ,.;:…")


def aspects(clause: str, width: int) -> list[tuple[str, str]]:
    """Rules 2-4 on one clause: (kind, query) for every number, date and entity mention."""
    words = [m.span() for m in re.finditer(r"\S+", clause)]
    ends = [e for _, e in words]
    out: list[tuple[str, str]] = []
    dates = [m.span() for m in _DATE.finditer(clause) if m.group().strip()]
    date_starts = [s for s, _ in dates]

    def in_a_date(i: int) -> bool:  # dates do not overlap and come in order: the one starting last at or before i
        k = bisect_right(date_starts, i) - 1
        return k >= 0 and i < dates[k][1]

    for s, e in dates:
        out.append(("date", _window(clause, s, e, width, words, ends)))
    for m in _NUMBER.finditer(clause):
        if not in_a_date(m.start()):
            out.append(("number", _window(clause, m.start(), m.end(), width, words, ends)))
    for m in _ENTITY.finditer(clause):
        names = m.group().split()
        skip = 0  # leading function words (an index: slicing the list each time was quadratic in "The The ...")
        while skip < len(names) and (
            names[skip].lower().strip("'’") in _NOT_ENTITIES and not (len(names[skip]) > 1 and names[skip].isupper())
        ):
            skip += 1
        names = names[skip:]
        start = m.start() + m.group().find(names[0]) if names else -1
        if names and not in_a_date(start):
            out.append(("entity", _window(clause, start, start + len(" ".join(names)), width, words, ends)))
    return out


def heuristic_queries(claim: str, width: int = 4, max_queries: int = 8) -> list[str]:
    """Rule-based decomposition of one claim.

    1. Clauses (`split_clauses`): every clause is a query; a claim that does not split is its own query.
    2-4. Aspects (`aspects`): one query per number, date and named-entity mention: the mention with
       `width` words on each side, within its clause.
    Duplicates (same words in any order) are dropped; at most `max_queries`, clauses first.
    """
    clauses = split_clauses(claim) or [claim]
    candidates = list(clauses)
    for clause in clauses:
        candidates.extend(q for _, q in aspects(clause, width))
    seen, out = set(), []
    for q in candidates:
        key = frozenset(tokenize(q))
        if key and key not in seen:
            seen.add(key)
            out.append(q)
    return out[:max_queries]


def heuristic(claims: Iterable[averitec.Claim], width: int = 4, max_queries: int = 8) -> Plan:
    return {c.claim_id: heuristic_queries(c.text, width, max_queries) for c in claims}


# --------------------------------------------------------------------------- format, fallback, statistics


_NO_TEXT = object()  # no query that is not text (`!= ""` of pd.NA or of an array row was itself an error)


def save_plan(plan: Mapping[int, Sequence[str]], path: Path | str) -> None:
    """One JSON line per claim, in claim order; never a line `load_plan` refuses, checked before anything is
    written (an LLM's answer of 3,000 questions was written, exit 0, and the next stage could not read the
    plan; a text was written as a list of its letters, claim 1.9 as claim 1)."""
    checked: dict[int, list[str]] = {}
    for key, queries in plan.items():
        try:  # numpy's integers are ids too; a float, a bool, a negative number or "x" is not
            cid = as_id(int(key) if isinstance(key, np.integer) else key)
        except ValueError as err:
            raise NamedError(f"{path}: claim id {err}") from None
        if cid in checked:
            raise NamedError(f"{path}: claim {cid} appears twice (once as {key!r}): one plan line per claim")
        # a list, tuple, numpy array or pandas Series of texts; a text alone was written as its letters
        if isinstance(queries, str | bytes | Mapping) or not isinstance(queries, Iterable):
            raise NamedError(
                f"{path}: claim {cid}: queries: expected a list of strings, got a value of type {type(queries).__name__}"
            )
        queries = list(islice(queries, MAX_PLAN_QUERIES + 1))  # an endless iterator filled memory before the bound
        if (bad := next((q for q in queries if not isinstance(q, str)), _NO_TEXT)) is not _NO_TEXT:  # pd.NA, a row
            raise NamedError(
                f"{path}: claim {cid}: queries: expected a list of strings, got {shown(bad, 80)} among them"
            )
        if len(queries) > MAX_PLAN_QUERIES:
            raise NamedError(
                f"{path}: claim {cid} has more than {MAX_PLAN_QUERIES:,} queries, the bound for one claim "
                "(an answer listing thousands of questions?); set $LIB_MAX_PLAN_QUERIES to keep them"
            )
        checked[cid] = [bounded(Path(path), f"claim {cid}", "queries", q) for q in queries]
    OUT.write_lines(
        path,
        (json.dumps({"claim_id": cid, "queries": checked[cid]}, ensure_ascii=False) for cid in sorted(checked)),
    )


def load_plan(path: Path | str) -> Plan:
    """A plan saved by `save_plan`; errors name the file and line. Read as every JSON input is (`lib.data`):
    bounded in size, a key named twice or a query that is no text (a lone surrogate) refused."""
    path = Path(path)
    within_size(path)  # a pipe would wait for a writer, /dev/zero fill memory
    plan: Plan = {}
    try:
        with open(
            path, encoding="utf-8-sig"
        ) as f:  # a byte-order mark (Excel, Notepad) is skipped, as JSON inputs' are
            for n, line in bounded_lines(path, f):  # a 200 MB line was decoded whole (1.8 GB)
                if not line.strip():
                    continue
                rec = parse_json(path, line, n, "plan line (JSON)")
                try:
                    if not isinstance(rec, dict):
                        raise TypeError(f'expected {{"claim_id": ..., "queries": [...]}}, got {type(rec).__name__}')
                    cid, queries = as_id(rec["claim_id"]), rec["queries"]  # never 0.9 -> 0 or true -> 1
                except (ValueError, KeyError, TypeError) as e:
                    raise DataError(path, n, None, f"not a plan line ({e})") from None
                if extra := sorted(set(rec) - {"claim_id", "queries"}):  # a typo ("querys") or another file's line
                    raise DataError(path, n, extra[0], "unexpected field: a plan line has claim_id and queries only")
                if not isinstance(queries, list) or not all(isinstance(q, str) for q in queries):
                    raise DataError(path, n, "queries", "expected a list of strings")
                if cid in plan:
                    raise DataError(path, n, "claim_id", f"claim {cid} appears twice")
                if len(queries) > MAX_PLAN_QUERIES:  # 2.4 M queries fit one line: hours of work, tens of GB
                    raise DataError(
                        path,
                        n,
                        "queries",
                        f"{len(queries):,} queries, over {MAX_PLAN_QUERIES:,} for one claim "
                        "(set $LIB_MAX_PLAN_QUERIES to read them)",
                    )
                plan[cid] = [bounded(path, n, "queries", q) for q in queries]
    except UnicodeDecodeError as err:
        raise not_utf8(path, err.reason) from None
    return plan


def resolve(plan: Mapping[int, Sequence[str]], claims: Iterable[averitec.Claim]) -> tuple[Plan, list[int]]:
    """The queries to run per claim, and the claims that fell back to their text (empty or missing plan)."""
    out: Plan = {}
    fallback: list[int] = []
    for c in claims:
        queries = distinct(plan.get(c.claim_id, []))
        if not queries:
            fallback.append(c.claim_id)
            queries = [c.text]
        out[c.claim_id] = queries
    return out, fallback


def redundancy(embeddings: np.ndarray) -> float:
    """Mean pairwise cosine similarity of one claim's (normalised) query embeddings; NaN below 2 queries."""
    n = len(embeddings)
    if n < 2:
        return float("nan")
    sims = embeddings @ embeddings.T
    return float(np.mean([sims[i, j] for i, j in combinations(range(n), 2)]))


def plan_stats(
    plan: Mapping[int, Sequence[str]], embed: Callable[[list[str]], np.ndarray] | None = None
) -> dict[str, float]:
    """Queries per claim, tokens per query (`lib.retrieval.bm25.tokenize` tokens), empty plans and, given an
    `embed` function returning normalised vectors, redundancy averaged over claims with 2+ queries."""
    sizes = np.array([len(q) for q in plan.values()])
    tokens = np.array([len(tokenize(q)) for qs in plan.values() for q in qs])
    stats = {
        "claims": int(len(sizes)),
        "empty_plans": int((sizes == 0).sum()),
        "queries_per_claim": float(sizes.mean()) if len(sizes) else float("nan"),
        "queries_per_claim_median": float(np.median(sizes)) if len(sizes) else float("nan"),
        "tokens_per_query": float(tokens.mean()) if len(tokens) else float("nan"),
    }
    if embed is not None:
        per_claim = [redundancy(embed(list(qs))) for qs in plan.values() if len(qs) >= 2]
        stats["redundancy"] = float(np.mean(per_claim)) if per_claim else float("nan")
    return stats


# --------------------------------------------------------------------------- the `plans` stage


def build_plans(settings: Mapping, data_dir: Path | str = DATA_DIR) -> dict[str, Plan]:
    """Every plan named in the `planners` params section, for the AVeriTeC dev claims.

    Each planner's seconds go to the stage's timing file (`lib.timing.cost`, planning)."""
    data_dir = Path(data_dir)
    claims = averitec.load_averitec("dev", data_dir / "averitec" / "dev.json")
    systems = data_dir / "averitec" / "systems"
    h = settings.get("heuristic", {})
    build: dict[str, tuple[Callable[[], Plan], str]] = {
        "claim_only": (lambda: claim_only(claims), "measured"),
        "oracle": (lambda: oracle(claims), "measured: the annotators' questions, read"),
        "bloom_qg": (
            lambda: bloom_qg(claims, averitec.load_generated_questions(systems / settings["bloom_file"], split=claims)),
            "measured: the organisers' generated questions, read (their generation did not run here)",
        ),
        "heuristic": (lambda: heuristic(claims, h.get("window", 4), h.get("max_queries", 8)), "measured"),
    }
    for name, file in settings.get("post_hoc", {}).items():
        build[POST_HOC_PREFIX + name] = (
            lambda file=file: post_hoc(
                claims, averitec.load_system_output(systems / file, claims=claims), systems / file
            ),
            "measured: a published system's questions, read",
        )
    plans: dict[str, Plan] = {}
    for name, (make, how) in build.items():
        start = time.perf_counter()
        plans[name] = {cid: distinct(qs) for cid, qs in make().items()}
        TM.cost(name, "planning", time.perf_counter() - start, len(claims), "plans", how=how)
    return plans


def stale_post_hoc(folder: Path, current: Mapping[str, object]) -> list[Path]:
    """The POST-HOC plan files in `folder` that params no longer name: regular files `load_plan` reads, never a
    link, a folder or a user's own `post_hoc_*.jsonl` that is no plan (each was removed with "no longer names it")."""
    stale = []
    for path in sorted(folder.glob(f"{POST_HOC_PREFIX}*.jsonl")):
        if path.stem in current or path.is_symlink() or not path.is_file():
            continue
        try:
            plan = load_plan(path)
        except (NamedError, OSError, ValueError):
            continue  # not a plan this command wrote: left where it is
        if plan:  # an empty or blank file is no plan this command wrote (it writes a line per claim)
            stale.append(path)
    return stale


def main(argv: list[str] | None = None) -> None:
    """`python -m lib.planning.planners`: write every plan to outputs/plans/<name>.jsonl."""

    ap = ArgumentParser(description=main.__doc__)
    ap.add_argument("--params", type=nonempty_path, default=None, help="parameter file (default: params.yaml)")
    ap.add_argument("--data-dir", type=data_folder, default=str(DATA_DIR), help="default: the study's data/")
    ap.add_argument("--out-dir", type=nonempty_path, default=None, help="default: the study's outputs/plans")
    args = ap.parse_args(argv)
    # another parameter file only into a named folder (it rewrote the study's plans, which every stage reads);
    # never data/, over the params file, lib/, .git/ or another stage's output
    given = (params_given(args.params), ("--data-dir", args.data_dir, DATA_DIR))
    args.out_dir = OUT.own_output(args.out_dir, PLANS_DIR, given, "the study's outputs/plans", own="plans")
    plans = build_plans(section("planners", args.params or PARAMS_FILE), args.data_dir)
    with OUT.together():  # the plans are replaced together: a stopped run leaves the old set whole
        # a POST-HOC plan no longer in params goes with the others (its old file was read as current)
        for stale in stale_post_hoc(Path(args.out_dir), plans):
            OUT.remove(stale)
            print(f"removed {stale.name}: planners.post_hoc no longer names it")
        for name, plan in plans.items():
            save_plan(plan, Path(args.out_dir) / f"{name}.jsonl")
            s = plan_stats(plan)
            print(
                f"{name:28s} {s['queries_per_claim']:5.2f} queries/claim, {s['tokens_per_query']:5.2f} "
                f"tokens/query, {s['empty_plans']} empty"
            )


if __name__ == "__main__":
    run_main(main)
