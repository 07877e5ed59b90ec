"""Paths anchored at the repository root, and the study parameters from `params.yaml`, checked.

Notebooks and stages import paths from here instead of typing them, so the project runs from any
working directory (cookiecutter-data-science habit).

Every stage and notebook reads its parameters through `load_params` or `section`, which check the whole
file against one schema (`Params` below) before any work: types (no string for a number, no "false" for
a boolean, no single string for a list), ranges (no negative depth, k or workers), choices (retrievers,
fusions, label sets...), required and unknown keys (a typo is an error, not a silently unused key). Every
problem is reported with its dotted key, all at once (`ParamsError`). `python -m lib.config check [FILE]`
does the same from the shell (`make` runs it first).

The file is read as YAML 1.2, as DVC reads it (PyYAML alone speaks YAML 1.1, where `2e-5` is a string,
`010` is 8, `1:20` is 80 and `off` is false), and a key written twice in one mapping is an error
(PyYAML alone keeps the last silently).
"""

from __future__ import annotations

import copy
import functools
import re
import sys
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "data"
OUTPUTS_DIR = ROOT / "outputs"
STORE_DIR = OUTPUTS_DIR / "store"
METRICS_DIR = OUTPUTS_DIR / "metrics"
EXECUTED_DIR = OUTPUTS_DIR / "notebooks"
REPORTS_DIR = ROOT / "reports"
NOTEBOOKS_DIR = ROOT / "notebooks"
# Where NLTK looks by default in this environment (a venv or a conda env): `import nltk` finds the data
# without any setup, in notebooks and users' scripts alike.
NLTK_DATA_DIR = Path(sys.prefix) / "share" / "nltk_data"
PARAMS_FILE = ROOT / "params.yaml"


class ParamsError(ValueError):
    """A parameter file that does not match the schema: every problem, one line each, by dotted key."""

    def __init__(self, path: Path | str, problems: list[str]):
        self.path, self.problems = str(path), problems
        super().__init__(f"{path}: {len(problems)} problem(s):\n  " + "\n  ".join(problems))


# --------------------------------------------------------------------------- reading YAML


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2 core scalars (booleans, integers, floats; no timestamps) and no
    duplicate keys."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"key {key!r} written twice (first on line {seen[key] + 1}); YAML would keep the last silently",
                    key_node.start_mark,
                )
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep)


_YAML_1_1 = {
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:timestamp",
}
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in _YAML_1_1]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
for _tag, _rx, _first in [  # YAML 1.2 core schema; integers before floats ("3" matches both)
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
]:
    _Loader.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", re.compile(_rx), list(_first))


def _yaml_1_2_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    """`010` is 10 (YAML 1.1: 8); `0o10` is 8 and `0x10` is 16, as YAML 1.2 writes them."""
    value = loader.construct_scalar(node)
    base = {"0o": 8, "0x": 16}.get(value[:2], 10)
    return int(value[2:] if base != 10 else value, base)


_Loader.add_constructor("tag:yaml.org,2002:int", _yaml_1_2_int)


def read_yaml(path: Path | str) -> Any:
    """A YAML file with YAML 1.2 floats; a syntax error names the file and line."""
    path = Path(path)
    if not path.is_file():
        raise ParamsError(path, ["no such file" if not path.exists() else "not a file"])
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    except yaml.YAMLError as err:
        raise ParamsError(path, [f"not valid YAML: {err}".replace("\n", " ")]) from None
    except UnicodeDecodeError as err:
        raise ParamsError(path, [f"not UTF-8 text ({err.reason} at byte {err.start})"]) from None


# --------------------------------------------------------------------------- the schema

PosInt = Annotated[int, Field(ge=1)]
NonNegInt = Annotated[int, Field(ge=0)]
PosFloat = Annotated[float, Field(gt=0)]
NonNegFloat = Annotated[float, Field(ge=0)]
Share = Annotated[float, Field(ge=0, le=1)]  # a fraction, 0 and 1 included
OpenShare = Annotated[float, Field(gt=0, lt=1)]  # a fraction strictly between 0 and 1
Text = Annotated[str, Field(pattern=r"\S")]  # something besides whitespace
Device = Annotated[str, Field(pattern=r"^(auto|cpu|mps|cuda(:\d+)?)$")]
Measure = Annotated[  # lib.metrics.parse_measure
    str, Field(pattern=r"^(condensed_)?(ndcg|mrr|map)(@[1-9]\d*)?$|^(condensed_)?(recall|p)@[1-9]\d*$|^bpref$")
]
Threshold = Annotated[float, Field(gt=0, le=1)]  # a share above 0, 1 included
Url = Annotated[str, Field(pattern=r"^https?://\S+$")]

# Vocabularies; tests/test_config.py checks each against the module that implements it.
Retriever = Literal["bm25", "dense", "hybrid"]  # lib.retrieval.RETRIEVERS
Scope = Literal["claim", "global"]
GlobalIndexKind = Literal["flat", "ivf", "hnsw"]  # lib.retrieval.GLOBAL_INDEXES
SCOPES: tuple[str, ...] = get_args(Scope)  # claim: the claim's own pool; global: the whole collection
Fusion = Literal["top1", "concat", "combmax", "combsum", "combmax_norm", "combsum_norm", "rrf", "combmnz"]  # lib.fusion
Split = Literal["train", "dev", "test"]
LabelSet = Literal["averitec4", "averitec3", "averitec2"]  # lib.nli.LABEL_SETS
Prompted = Literal["claimdecomp", "pgmfc", "all_at_once", "agq"]  # lib.prompted.PROMPTED
PursuitVariant = Literal["seq_seq", "seq_llm", "llm_llm"]


class Section(BaseModel):
    """Strict: no type coercion ("3" is not 3, "false" is not a boolean) and no unknown keys."""

    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)


class KnowledgeStoreSource(Section):
    """`store.knowledge_store`: the organisers' per-claim store read when `store.source` is knowledge_store."""

    path: Annotated[str, Field(pattern=r"^data/averitec/\S")]  # a directory or zip of <claim_id>.json, under the
    # store stage's dep data/averitec/ (so DVC sees the store change)
    split: Literal["dev"]  # whose claims the store serves: the stages plan and score the dev claims
    first: NonNegInt | None  # claim range, both ends inclusive (null: open)
    last: NonNegInt | None
    unit: Literal["sentence", "chunk"]  # lib.passages.PassageSettings
    chunk_chars: PosInt
    context_chars: NonNegInt


class Store(Section):
    source: Literal["pooled", "knowledge_store"]  # lib.store.SOURCES
    systems: Annotated[dict[str, Text], Field(min_length=1)]
    include_gold: bool
    distractor_splits: list[Literal["train", "test"]]
    min_words: PosInt
    news_sites_with_fact_check_section: list[Text]
    extra_fact_check_domains: list[Text]
    knowledge_store: KnowledgeStoreSource

    @model_validator(mode="after")
    def _claim_range(self) -> Store:
        ks = self.knowledge_store
        if ks.first is not None and ks.last is not None and ks.first > ks.last:
            raise ValueError(f"store.knowledge_store: first ({ks.first}) is after last ({ks.last})")
        return self


class Compute(Section):
    """Where per-claim work runs (lib.compute.ComputeSettings): this machine's processes or a Ray cluster."""

    backend: Literal["local", "ray"]  # lib.compute.BACKENDS
    workers: PosInt  # local processes (1: the stage's own process); Ray: CPUs of a local instance
    address: Text | None  # the Ray cluster (null: $RAY_ADDRESS, else a Ray instance on this machine)
    cpus_per_task: PosFloat


class Judgements(Section):
    """Relevance judgement variants (lib.judgements), passed whole to the notebooks that evaluate retrieval."""

    answer_match: Threshold
    min_answer_tokens: PosInt
    answer_match_sweep: Annotated[list[Threshold], Field(min_length=1)]


class KnowledgeStore(Section):
    store_dir: Text
    data_dir: Text
    metrics_path: Text
    top_domains: PosInt


class Heuristic(Section):
    window: PosInt
    max_queries: PosInt


class Planners(Section):
    bloom_file: Text
    post_hoc: dict[str, Text]
    heuristic: Heuristic


class BM25(Section):
    k1: NonNegFloat
    b: Share
    epsilon: NonNegFloat


class GlobalIndex(Section):
    """lib.retrieval.GlobalIndex: the global scope's faiss index (flat = exact)."""

    kind: GlobalIndexKind
    candidates: PosInt  # per query, from an approximate index; their union is scored exactly
    nlist: NonNegInt  # IVF cells (0: 4 * sqrt(documents))
    nprobe: PosInt
    hnsw_m: PosInt
    ef_search: PosInt


class Retrieval(Section):
    plans: Annotated[list[Text], Field(min_length=1)]
    retrievers: Annotated[list[Retriever], Field(min_length=1)]
    scopes: Annotated[list[Scope], Field(min_length=1)]
    temporal: Annotated[list[bool], Field(min_length=1)]
    keep_undated: bool
    main_fusion: Fusion
    all_fusions_for: list[Text]
    fusions: list[Fusion]
    depth: PosInt
    rrf_k: NonNegInt
    concat_separator: str
    bm25: BM25
    model: Text
    max_seq_length: PosInt
    batch_size: PosInt
    workers: PosInt
    global_index: GlobalIndex

    @model_validator(mode="after")
    def _fusion_plans_are_run(self) -> Retrieval:
        _subset(self.all_fusions_for, self.plans, "all_fusions_for", "retrieval.plans")
        return self


class Focus(Section):
    retriever: Retriever
    scope: Scope


class QueryPlanning(Section):
    runs_dir: Text
    store_dir: Text
    plans_dir: Text
    embeddings_dir: Text
    data_dir: Text
    metrics_path: Text
    fusion: Fusion
    measures: Annotated[list[Measure], Field(min_length=1)]
    focus: Focus
    example_claim: NonNegInt
    n_resamples: PosInt  # bootstrap intervals of the temporal filter's per-claim effect
    seed: NonNegInt


class Aggregation(Section):
    runs_dir: Text
    store_dir: Text
    plans_dir: Text
    data_dir: Text
    metrics_path: Text
    plan: Text
    measures: Annotated[list[Measure], Field(min_length=1)]


class JudgingKit(Section):
    """Notebook 04's manual judging kit (lib.judgements): a blind sheet sampled per stratum, read back filled."""

    sheet_path: Text
    filled_sheet: Text
    per_stratum: PosInt
    unjudged_depth: PosInt  # unjudged pairs come from the focus runs' top documents
    seed: NonNegInt


class RetrievalMetrics(Section):
    runs_dir: Text
    store_dir: Text
    metrics_path: Text
    plots_dir: Text
    fusion: Fusion
    focus: Focus
    curve_plans: Annotated[list[Text], Field(min_length=1)]
    max_k: PosInt
    baseline: Text
    measure: Measure
    n_resamples: PosInt
    seed: NonNegInt
    data_dir: Text
    incomplete_measures: Annotated[list[Measure], Field(min_length=1)]
    judging: JudgingKit


class Averitec(Section):
    retriever: Retriever
    scope: Scope
    temporal: bool
    plans: Annotated[list[Text], Field(min_length=1)]
    verdict_source: Literal["majority", "nli"]  # lib.evidence.VERDICT_SOURCES
    max_pairs: PosInt
    duplicate_for: list[Text]
    systems: dict[str, Text]
    jobs: PosInt

    @model_validator(mode="after")
    def _ablation_plans_are_scored(self) -> Averitec:
        _subset(self.duplicate_for, self.plans, "duplicate_for", "averitec.plans")
        return self


Level = Annotated[float, Field(ge=0, le=1)]


class AveritecScore(Section):
    scores_path: Text
    averitec_2025_dir: Text  # stage averitec_2025: the 2025 METEOR path and Ev2R
    metrics_path: Text
    levels: Annotated[list[Level], Field(min_length=1)]
    main_level: Level

    @model_validator(mode="after")
    def _main_level_is_a_level(self) -> AveritecScore:
        _member(self.main_level, self.levels, "main_level", "levels")
        return self


class Ev2RJudge(Section):
    model: Text
    temperature: Annotated[float, Field(ge=0, le=2)]
    max_tokens: PosInt


class Averitec2025(Section):
    judge: Ev2RJudge
    threshold: Level
    comparison: Literal[">", ">="]  # lib.ev2r.COMPARISONS
    prompt_file: Text | None
    cache: Text
    max_claims: PosInt | None
    jobs: PosInt


class QGen(Section):
    model: Text
    decoder_layers: PosInt | None
    freeze_encoder: bool
    epochs: PosInt
    batch_size: PosInt
    learning_rate: PosFloat
    warmup: Annotated[float, Field(ge=0, lt=1)]
    max_source_tokens: PosInt
    max_target_tokens: PosInt
    history_pairs: NonNegInt
    answer_words: PosInt
    max_train_claims: PosInt | None
    seed: NonNegInt
    device: Device


class QGenDecoding(Section):  # lib.qgen.Decoding: inference only, so changing it never retrains QGEN
    num_beams: PosInt
    max_new_tokens: PosInt
    max_questions: PosInt
    device: Device


class LLMParams(Section):
    mode: Literal["off", "replay", "live"]  # lib.llm.MODES
    base_url: Url | None
    model: Text
    temperature: Annotated[float, Field(ge=0, le=2)]
    seed: NonNegInt | None
    max_tokens: PosInt
    timeout: Annotated[float, Field(gt=0, le=3600)]  # seconds per request
    max_retries: Annotated[int, Field(ge=0, le=20)]
    backoff: Annotated[float, Field(ge=0, le=600)]  # first wait in seconds, doubled per retry
    api_key_env: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")] | None
    cache: Text


class MMR(Section):
    alpha: Share
    lam: Share
    gamma: Annotated[float, Field(ge=-1, le=1)]
    lambda_weights: Literal["relevance", "diversity"]


class Pursuit(Section):
    variants: list[PursuitVariant]
    max_questions: PosInt
    fill_up: bool
    alternatives: PosInt
    stop_threshold: Share | None
    retriever: Retriever
    scope: Scope


class Generative(Section):
    max_claims: PosInt | None
    prompted: list[Prompted]
    claimdecomp_examples: NonNegInt
    mmr: MMR
    mmr_pool: Annotated[list[Text], Field(min_length=1)]
    qgen: QGenDecoding
    pursuit: Pursuit


class Answers(Section):
    retriever: Retriever
    scope: Scope


class GenerativeRuns(Section):
    baselines: list[Text]
    retrievers: Annotated[list[Retriever], Field(min_length=1)]
    scopes: Annotated[list[Scope], Field(min_length=1)]
    temporal: Annotated[list[bool], Field(min_length=1)]
    answers: Answers


class GenerativePlanning(Section):
    gen_dir: Text
    plans_dir: Text
    store_dir: Text
    data_dir: Text
    model_dir: Text
    embeddings_dir: Text
    metrics_path: Text
    fusion: Fusion
    measures: Annotated[list[Measure], Field(min_length=1)]
    focus: Focus
    baseline: Text
    n_resamples: PosInt
    seed: NonNegInt
    main_level: Level
    mmr_gammas: Annotated[list[Annotated[float, Field(ge=-1, le=1)]], Field(min_length=1)]
    examples: NonNegInt
    timings_dir: Text


class Classifier(Section):
    """lib.nli.NLISettings: every key optional (the dataclass has defaults), each checked when given."""

    model: Text = "sentence-transformers/all-MiniLM-L6-v2"
    max_length: PosInt = 128
    batch_size: PosInt = 16
    learning_rate: PosFloat = 2e-5
    weight_decay: NonNegFloat = 0.01
    warmup: Annotated[float, Field(ge=0, lt=1)] = 0.06
    epochs: PosInt = 2
    patience: PosInt = 2
    eval_every: PosFloat = 0.5
    validation_fraction: OpenShare = 0.1
    class_weighting: Literal["balanced", "none"] = "balanced"
    max_claim_share: Annotated[float, Field(gt=0, le=1)] = 0.5
    seed: NonNegInt = 0
    device: Device = "auto"
    eval_batch_size: PosInt = 64
    calibrate: bool = True


class Mixed(Section):  # lib.nli_averitec.mixed_evidence
    distractor_share: Annotated[float, Field(ge=0, le=1)]
    seed: NonNegInt


class RunSelection(Section):
    retriever: Retriever
    scope: Scope
    temporal: bool
    fusion: Fusion


class NLIAveritec(Section):
    classifier: Classifier
    seeds: Annotated[list[NonNegInt], Field(min_length=1)]
    label_set: LabelSet
    training_evidence: Literal["gold", "mixed"]  # lib.nli_averitec.TRAINING_EVIDENCE
    mixed: Mixed
    k: PosInt
    ablation_ks: list[PosInt]
    ablation_planners: list[Text]
    planners: Annotated[list[Text], Field(min_length=1)]
    runs: Annotated[list[Text], Field(min_length=1)]
    retrieval: RunSelection
    max_train_claims: PosInt | None
    max_dev_claims: PosInt | None


class Taxonomy(Section):
    model: Text
    folds: Annotated[int, Field(ge=2)]
    seed: NonNegInt


class NLIQuanTemp(Section):
    classifier: Classifier
    seeds: Annotated[list[NonNegInt], Field(min_length=1)]
    k: Annotated[int, Field(ge=1, le=3)]  # the file has at most three snippets per claim
    test_fraction: OpenShare
    split_seed: NonNegInt
    max_claims: PosInt | None
    taxonomy: Taxonomy
    published: dict[str, Text]


class NLIVeracity(Section):
    averitec_dir: Text
    planners_dir: Text
    quantemp_dir: Text
    runs_dir: Text
    gen_dir: Text
    store_dir: Text
    data_dir: Text
    averitec_scores: Annotated[list[Text], Field(min_length=1)]
    metrics_path: Text
    baseline: Annotated[str, Field(pattern=r"^(naive|claim_only_no_evidence|gold|planner:\S+)$")]
    n_resamples: PosInt
    seed: NonNegInt
    alpha: OpenShare
    main_level: Level
    retrieval_measure: Measure
    power: OpenShare  # of the minimum detectable difference (lib.significance.minimum_detectable_difference)
    sweep_path: Text  # the committed verifier sweep (lib.verifier_sweep, `make sweep-verifier`)


class Rules(Section):
    min_grade: Annotated[int, Field(ge=1, le=2)]
    found_share: Annotated[float, Field(gt=0, le=1)]
    homogeneity: Annotated[float, Field(ge=-1, le=1)]
    implicit_coverage: Share
    label_error_share: Annotated[float, Field(gt=0, le=1)]
    min_systems: PosInt


class Sensitivity(Section):
    found_share: list[Annotated[float, Field(gt=0, le=1)]] = []
    homogeneity: list[Annotated[float, Field(ge=-1, le=1)]] = []
    implicit_coverage: list[Share] = []


class ErrorAnalysis(Section):
    planners_dir: Text
    runs: Annotated[list[Text], Field(min_length=1)]
    quantemp_dir: Text
    store_dir: Text
    data_dir: Text
    embeddings_model: Text
    embeddings_dir: Text
    systems_from: Literal["averitec"]  # the section whose `systems` flag possible label errors
    out_dir: Text
    metrics_path: Text
    rules: Rules
    sensitivity: Sensitivity
    sheet_per_method: NonNegInt
    sheet_seed: NonNegInt
    filled_sheet: Text


class Utility(Section):
    planners: Annotated[list[Text], Field(min_length=1)]
    runs: Annotated[list[Text], Field(min_length=1)]
    candidates: PosInt
    k: PosInt
    folds: Annotated[int, Field(ge=2)]
    alpha: PosFloat
    seed: NonNegInt
    device: Device
    max_claims: PosInt | None

    @model_validator(mode="after")
    def _k_within_candidates(self) -> Utility:
        if self.k > self.candidates:
            raise ValueError(
                f"k = {self.k} documents cannot be selected from {self.candidates} candidates "
                "(expected k <= candidates)"
            )
        return self


class RelevanceUtility(Section):
    nli_dir: Text
    planners_dir: Text
    utility_dir: Text
    store_dir: Text
    data_dir: Text
    metrics_path: Text
    k: PosInt
    measures: Annotated[list[Measure], Field(min_length=1)]
    n_resamples: PosInt
    seed: NonNegInt


class Synthesis(Section):
    metrics_dir: Text
    focus: Annotated[str, Field(pattern=r"^(bm25|dense|hybrid)/(claim|global)$")]


Headline = Annotated[str, Field(pattern=r"^[\w.-]+\.json:\S.*$")]


class Report(Section):
    reports_dir: Text
    headlines: dict[Annotated[str, Field(pattern=r"^\d\d_\w+$")], dict[Text, Headline]]


class Profile(Section):
    """Which settings the outputs come from: `study` (the committed params.yaml) or a smaller profile
    (`profiles/<name>.yaml`, run by `make all PROFILE=<name>` in `workspaces/<name>`), whose notebooks and
    report index carry `note` as a banner so nobody mistakes them for the study's figures."""

    name: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$")]
    note: Text | None = None

    @model_validator(mode="after")
    def _noted(self) -> Profile:
        if self.name != "study" and not self.note:
            raise ValueError(f"profile {self.name!r} needs a note saying how it differs from the study")
        return self


class Params(Section):
    """The whole `params.yaml`: one section per stage or notebook (dvc.yaml lists who reads which)."""

    profile: Profile
    compute: Compute
    store: Store
    judgements: Judgements
    knowledge_store: KnowledgeStore
    planners: Planners
    retrieval: Retrieval
    query_planning: QueryPlanning
    aggregation: Aggregation
    retrieval_metrics: RetrievalMetrics
    averitec: Averitec
    averitec_score: AveritecScore
    averitec_2025: Averitec2025
    qgen: QGen
    llm: LLMParams
    generative: Generative
    generative_runs: GenerativeRuns
    generative_planning: GenerativePlanning
    nli_averitec: NLIAveritec
    nli_quantemp: NLIQuanTemp
    nli_veracity: NLIVeracity
    error_analysis: ErrorAnalysis
    utility: Utility
    relevance_utility: RelevanceUtility
    synthesis: Synthesis
    report: Report


def _subset(values: list[str], allowed: list[str], name: str, where: str) -> None:
    missing = [v for v in values if v not in allowed]
    if missing:
        raise ValueError(f"{name} names {missing}, which are not in {where} {allowed}")


def _member(value: Any, allowed: list[Any], name: str, where: str) -> None:
    if value not in allowed:
        raise ValueError(f"{name} = {value!r} is not one of {where} {allowed}")


def _key(loc: tuple[Any, ...]) -> str:
    """('retrieval', 'bm25', 'k1') -> 'retrieval.bm25.k1'; list positions as [i]."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _problems(err: ValidationError) -> list[str]:
    """One readable line per schema error: dotted key, what is wrong, what was given."""
    lines = []
    for e in err.errors():
        loc = tuple(p for p in e["loc"] if not (isinstance(p, str) and p.startswith(("function-after", "union"))))
        key = _key(loc) or "(file)"
        if e["type"] == "extra_forbidden":
            lines.append(f"{key}: unknown key (a typo? remove it or see the schema in lib/config.py)")
        elif e["type"] == "missing":
            lines.append(f"{key}: required key is missing")
        elif e["type"] == "string_pattern_mismatch" and e.get("ctx", {}).get("pattern") == r"\S":
            lines.append(f"{key}: expected some text, got {e['input']!r}")
        elif e["type"] == "value_error":
            lines.append(f"{key}: {e['msg'].removeprefix('Value error, ')}")
        else:
            hint = " (write true or false, without quotes)" if e["type"] == "bool_type" else ""
            lines.append(f"{key}: {e['msg']}{hint}, got {e['input']!r}")
    return sorted(dict.fromkeys(lines))


def check(raw: Any, path: Path | str = PARAMS_FILE) -> dict[str, Any]:
    """`raw` (a parsed params file) if it matches the schema; else `ParamsError` listing every problem."""
    if not isinstance(raw, dict):
        raise ParamsError(path, [f"expected a mapping of sections, got {type(raw).__name__}"])
    try:
        Params.model_validate(raw)
    except ValidationError as err:
        raise ParamsError(path, _problems(err)) from None
    return raw


@functools.lru_cache(maxsize=8)
def _checked(path: str, mtime_ns: int, size: int) -> dict[str, Any]:
    return check(read_yaml(path), path)


def load_params(path: Path | str = PARAMS_FILE) -> dict[str, Any]:
    """The whole parameter file as a dict (one section per stage), checked against the schema."""
    path = Path(path)
    stat = path.stat() if path.is_file() else None
    if stat is None:
        return check(read_yaml(path), path)  # raises, naming the path
    return copy.deepcopy(_checked(str(path), stat.st_mtime_ns, stat.st_size))


def section(name: str, path: Path | str = PARAMS_FILE) -> dict[str, Any]:
    """One section of the (checked) parameter file; a clear error names the missing section."""
    params = load_params(path)
    if name not in params:
        raise KeyError(f"{path}: no section {name!r} (sections: {', '.join(params)})")
    return params[name]


def section_model(name: str) -> type[Section]:
    """The schema of one section (a notebook's parameters are checked against it)."""
    field = Params.model_fields.get(name)
    if field is None:
        raise KeyError(f"no params section {name!r} (sections: {', '.join(Params.model_fields)})")
    return field.annotation  # type: ignore[return-value]


def main(argv: list[str] | None = None) -> int:
    """`python -m lib.config check [FILE]`: validate a params file; every problem with its dotted key."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] != "check" or len(args) > 2:
        print("usage: python -m lib.config check [FILE]", file=sys.stderr)
        return 2
    path = Path(args[1]) if len(args) == 2 else PARAMS_FILE
    try:
        check(read_yaml(path), path)
    except ParamsError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"{path}: ok ({len(Params.model_fields)} sections)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
