"""The study's parameters from `params.yaml`: a YAML 1.2 reader, the types the sections share, and
`section(name)`, which reads one section checked against its own model.

Each section's model lives next to the code it configures (the registry `SECTIONS` says where), so a stage
depends on this module, the shared types and the models of the sections it reads, and editing one
section's model reruns only the stages that read it. `lib.schema` assembles every model into the schema of
the whole file (`python -m lib.schema check`, run first by `make`).

Models are strict: types (no string for a number, no "false" for a boolean, no single string for a list),
ranges (no negative depth, k or workers), choices (retrievers, fusions, label sets...), required and
unknown keys (a typo is an error, not a silently unused key). Every problem is reported with its dotted
key, all at once (`ParamsError`).

The file is read as YAML 1.2, as DVC reads it (PyYAML alone speaks YAML 1.1, where `2e-5` is a string,
`010` is 8, `1:20` is 80 and `off` is false), and a key written twice in one mapping is an error
(PyYAML alone keeps the last silently).
"""

from __future__ import annotations

import argparse
import copy
import functools
import importlib
import os
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, ClassVar

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from lib.cli import NamedError, env_bound, not_a_file, shown
from lib.paths import PARAMS_FILE

# Where each section's model lives ("module:Class"), next to the code it configures. `lib.closure` reads
# this mapping (without importing anything) to add the models of the sections a stage declares to its deps.
SECTIONS: dict[str, str] = {
    "profile": "lib.site.banner:ProfileSection",
    "compute": "lib.compute:ComputeSettings",
    "store": "lib.store.build:StoreSettings",
    "judgements": "lib.store.judgements:JudgementsSection",
    "knowledge_store": "lib.site.sections.knowledge_store:KnowledgeStoreNotebookSection",
    "planners": "lib.planning.planners:PlannersSection",
    "retrieval": "lib.retrieval.runs:RunGrid",
    "query_planning": "lib.site.sections.query_planning:QueryPlanningSection",
    "aggregation": "lib.site.sections.aggregation:AggregationSection",
    "retrieval_metrics": "lib.site.sections.retrieval_metrics:RetrievalMetricsSection",
    "averitec": "lib.averitec.section:AveritecSection",
    "averitec_score": "lib.site.sections.averitec_score:AveritecScoreSection",
    "averitec_2025": "lib.averitec.ev2r:Averitec2025Section",
    "qgen": "lib.planning.qgen_training:QGenSettings",
    "llm": "lib.planning.llm:LLMSettings",
    "generative": "lib.planning.generative:GenerativeSection",
    "generative_runs": "lib.planning.generative:GenerativeRunsSection",
    "generative_planning": "lib.site.sections.generative_planning:GenerativePlanningSection",
    "nli_averitec": "lib.verifier.averitec:NLIAveritecSection",
    "nli_quantemp": "lib.verifier.quantemp:NLIQuanTempSection",
    "nli_veracity": "lib.site.sections.nli_veracity:NLIVeracitySection",
    "error_analysis": "lib.site.sections.error_analysis:ErrorAnalysisSection",
    "utility": "lib.analysis.utility:UtilitySection",
    "relevance_utility": "lib.site.sections.relevance_utility:RelevanceUtilitySection",
    "synthesis": "lib.site.sections.synthesis:SynthesisSection",
    "report": "lib.site.course:ReportSection",
}


class ParamsError(NamedError, ValueError):
    """A parameter file that does not match the schema: every problem, one line each, by dotted key (one
    problem: the one `error:` line a command ends with)."""

    def __init__(self, path: Path | str, problems: list[str]):
        self.path, self.problems = str(path), problems
        if len(problems) == 1:
            super().__init__(f"{path}: {problems[0]}")
        else:
            super().__init__(f"{path}: {len(problems)} problem(s):\n  " + "\n  ".join(problems))


# --------------------------------------------------------------------------- reading YAML


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2 core scalars (booleans, integers, floats; no timestamps) and no
    duplicate keys."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        merge: int | None = None
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # one per mapping (`<<: [*a, *b]` merges several):
                if merge is not None:  # PyYAML kept the last of two silently, DVC's reader refuses the file
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"key '<<' written twice (first on line {merge + 1}); merge several mappings as <<: [*a, *b]",
                        key_node.start_mark,
                    )
                merge = key_node.start_mark.line
                continue
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str | int | float | bool) and key is not None:  # `? [a, b]`: a list as a key
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"a key that is a {type(key).__name__} ({shown(key)}); keys are names",
                    key_node.start_mark,
                )
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
_CORE = {  # YAML 1.2 core schema; integers before floats ("3" matches both)
    "bool": (r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    "int": (r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    "float": (
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
}
for _tag, (_rx, _first) in _CORE.items():
    _Loader.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", re.compile(_rx), list(_first))


def _core_scalar(loader: yaml.SafeLoader, node: yaml.ScalarNode, kind: str) -> str:
    """The text of a scalar tagged `kind` (`!!int 1.5` too: an explicit tag skips the resolvers), refused
    unless YAML 1.2 writes a value of that kind so (`!!bool off` was YAML 1.1's false; `!!int 1.5`,
    `!!float abc` ended in a traceback)."""
    value = loader.construct_scalar(node)
    if not isinstance(value, str) or not re.match(_CORE[kind][0], value):
        raise yaml.constructor.ConstructorError(
            None, None, f"!!{kind} {shown(value, 60)}: not a YAML 1.2 {kind}", node.start_mark
        )
    return value


def _yaml_1_2_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    """`010` is 10 (YAML 1.1: 8); `0o10` is 8 and `0x10` is 16, as YAML 1.2 writes them."""
    value = _core_scalar(loader, node, "int")
    base = {"0o": 8, "0x": 16}.get(value[:2], 10)
    return int(value[2:] if base != 10 else value, base)


def _yaml_1_2_bool(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> bool:
    """`true` or `false` in any of YAML 1.2's three spellings; `yes`, `on`, `off` are text."""
    return _core_scalar(loader, node, "bool").lower() == "true"


def _yaml_1_2_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    """A float as YAML 1.2 writes one (PyYAML's reader takes the text from there)."""
    _core_scalar(loader, node, "float")
    return loader.construct_yaml_float(node)


def _no_timestamp(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> None:
    """An explicit `!!timestamp`: no parameter is a date (a bad one ended in a traceback)."""
    raise yaml.constructor.ConstructorError(
        None, None, f"!!timestamp {shown(loader.construct_scalar(node), 60)}: no parameter is a date", node.start_mark
    )


_Loader.add_constructor("tag:yaml.org,2002:int", _yaml_1_2_int)
_Loader.add_constructor("tag:yaml.org,2002:bool", _yaml_1_2_bool)
_Loader.add_constructor("tag:yaml.org,2002:float", _yaml_1_2_float)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _no_timestamp)


# A parameter file's size once its aliases are expanded, in YAML nodes (params.yaml: about 1,500). Aliases
# that refer to aliases grow exponentially (nine levels of nine: 387 million nodes from 25 KB); reading such
# a file stops here. Raise it with $LIB_MAX_YAML_NODES for a larger file of your own.
MAX_YAML_NODES = 200_000
# A YAML file's size in bytes (the study's largest, references/published.yaml, is 450 KB): the YAML reader
# takes about three seconds a megabyte, so a 30 MB file held a check for 81 s. Raise it with $LIB_MAX_YAML_BYTES.
MAX_YAML_BYTES = 4 * 2**20


def expanded_nodes(node: yaml.Node, limit: int) -> int:
    """How many nodes `node` stands for with every alias expanded, counting up to just past `limit`."""
    sizes: dict[int, int] = {}

    def size(n: yaml.Node) -> int:
        if id(n) in sizes:
            return sizes[id(n)]
        total = 1
        if isinstance(n, yaml.SequenceNode):
            children = n.value
        elif isinstance(n, yaml.MappingNode):
            children = [x for pair in n.value for x in pair]
        else:
            children = []
        for child in children:
            total += size(child)
            if total > limit:
                break
        sizes[id(n)] = min(total, limit + 1)
        return sizes[id(n)]

    return size(node)


def read_yaml(path: Path | str) -> Any:
    """A YAML file with YAML 1.2 floats; a syntax error names the file and line; a file whose aliases expand
    past `MAX_YAML_NODES` nodes, or larger than `MAX_YAML_BYTES`, is refused before it is built."""
    path = Path(path)
    if not path.is_file():
        raise ParamsError(path, ["no such file" if not path.exists() else not_a_file("a YAML file")])
    limit = env_bound("LIB_MAX_YAML_NODES", MAX_YAML_NODES)
    if (size := path.stat().st_size) > (most := env_bound("LIB_MAX_YAML_BYTES", MAX_YAML_BYTES)):
        raise ParamsError(
            path, [f"{size:,} bytes, over the bound of {most:,} for a YAML file (set $LIB_MAX_YAML_BYTES to read it)"]
        )
    try:
        stream = path.open(encoding="utf-8")  # a file, so that YAML's messages name it (not "<unicode string>")
        loader = _Loader(stream)
        try:
            node = loader.get_single_node()
            if node is not None and expanded_nodes(node, limit) > limit:
                raise ParamsError(
                    path,
                    [
                        f"its aliases expand past {limit:,} YAML nodes (an alias bomb?); "
                        "set $LIB_MAX_YAML_NODES to read a larger file"
                    ],
                )
            return None if node is None else loader.construct_document(node)
        finally:
            loader.dispose()
            stream.close()
    except yaml.YAMLError as err:
        raise ParamsError(path, [f"not valid YAML: {' '.join(str(err).split())}"]) from None
    except RecursionError:  # brackets in brackets, thousands deep: no parameter file of this study
        raise ParamsError(
            path, [f"nested deeper than {sys.getrecursionlimit():,} levels; not a parameter file"]
        ) from None
    except UnicodeDecodeError as err:
        raise ParamsError(path, [f"not UTF-8 text ({err.reason} at byte {err.start})"]) from None


# --------------------------------------------------------------------------- types the sections share

PosInt = Annotated[int, Field(ge=1)]
NonNegInt = Annotated[int, Field(ge=0)]
Seed = Annotated[
    int, Field(ge=0, le=2**32 - 1)
]  # numpy's and torch's seeds: 2**32 passed the check, then failed a training
PosFloat = Annotated[float, Field(gt=0)]


def flag(model: type[BaseModel], name: str) -> Callable[[str], Any]:
    """An argparse `type` that reads a command-line flag as the params schema reads the setting `name` of
    `model` (`--depth` as `retrieval.depth`, a `PosInt`): one definition of each range, so a flag never takes
    a value its parameter refuses. The refusal is argparse's one line (exit 2) naming the flag."""
    info = model.model_fields[name]
    kind = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
    section = next((sec for sec, ref in SECTIONS.items() if ref.endswith(f":{model.__name__}")), model.__name__)
    return flag_of(kind, f"as the setting {section}.{name}")


def flag_of(kind: Any, what: str = "") -> Callable[[str], Any]:
    """An argparse `type` for a flag with no parameter of its own, checked by one of the shared types
    (`flag_of(PosInt)`)."""
    adapter = TypeAdapter(kind)

    def read(text: str) -> Any:
        try:
            return adapter.validate_python(text)
        except ValidationError as err:
            e = err.errors()[0]
            raise argparse.ArgumentTypeError(f"{e['msg']}{f' ({what})' if what else ''}, got {shown(text)}") from None

    return read


NonNegFloat = Annotated[float, Field(ge=0)]
Share = Annotated[float, Field(ge=0, le=1)]  # a fraction, 0 and 1 included
OpenShare = Annotated[float, Field(gt=0, lt=1)]  # a fraction strictly between 0 and 1
Level = Share  # a threshold on a score between 0 and 1
# a level of the AVeriTeC score (a claim counts when its Q+A score is above it): 1 or more counts no claim, and
# notebook 05 then named a "best planner" among all-zero ties
ScoreLevel = Annotated[float, Field(ge=0, lt=1)]
Threshold = Annotated[float, Field(gt=0, le=1)]  # a share above 0, 1 included
# something besides whitespace, without control characters but tab and line ends (a NUL in a folder's name passed
# the schema and ended in "embedded null byte")
TEXT_PATTERN = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*[^\s\x00-\x1f\x7f][^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$"
Text = Annotated[str, Field(pattern=TEXT_PATTERN)]
# a file's name in the folder the code names (data/averitec/systems/): no folder part, so never a file elsewhere
SEPARATOR_PATTERN = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]+$"  # "" ran query and sub-queries together ("2020who")
Separator = Annotated[str, Field(pattern=SEPARATOR_PATTERN)]
FILE_NAME_PATTERN = r"^(?:[^/\\.\x00-\x1f][^/\\\x00-\x1f]*|\.[^/\\.\x00-\x1f][^/\\\x00-\x1f]*|\.\.[^/\\\x00-\x1f]+)$"
FileName = Annotated[str, Field(pattern=FILE_NAME_PATTERN)]
# a name that becomes part of a file name and a planner's name (`post_hoc_<name>.jsonl`): "x/../../data/y"
# wrote a plan outside the plans folder
PLAN_NAME_PATTERN = r"^[a-z0-9][a-z0-9_]*$"
PlanName = Annotated[str, Field(pattern=PLAN_NAME_PATTERN)]
DEVICE_PATTERN = r"auto|cpu|mps|cuda(:\d+)?"  # what `lib.models.pick_device` takes
Device = Annotated[str, Field(pattern=rf"^({DEVICE_PATTERN})$")]
# a web domain as URLs are matched against it: lower case, no scheme, path, `www.` or space (`https://www.snopes.com/`
# or `Snopes.com ` matched no URL, silently)
DOMAIN_PATTERN = r"^(?:w|ww|[a-vx-z0-9-][a-z0-9-]*|w[a-vx-z0-9-][a-z0-9-]*|ww[a-vx-z0-9-][a-z0-9-]*|www[a-z0-9-][a-z0-9-]*)(?:\.[a-z0-9-]+)+$"
Domain = Annotated[str, Field(pattern=DOMAIN_PATTERN)]
Url = Annotated[str, Field(pattern=r"^https?://\S+$")]


def _not_home(text: str) -> str:
    """A path in params.yaml is never expanded by a shell: `~/x.jsonl` meant a folder named `~` in the checkout."""
    if text == "~" or text.startswith("~/"):
        raise ValueError(
            f"{text[:80]!r}: `~` is not expanded in params.yaml; give the path in full or relative to the checkout"
        )
    return text


PATH_PATTERN = r"^[^\x00-\x1f\x7f]*[^\s\x00-\x1f\x7f][^\x00-\x1f\x7f]*$"  # no control character at all
FilePath = Annotated[str, Field(pattern=PATH_PATTERN), AfterValidator(_not_home)]  # a cache's path


class Section(BaseModel):
    """Strict: no type coercion ("3" is not 3, "false" is not a boolean) and no unknown keys."""

    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)
    # True: params.yaml must write every key; the defaults serve library callers and tests, never a params file
    params_complete: ClassVar[bool] = False

    @model_validator(mode="after")
    def _lists_name_each_item_once(self) -> Section:
        """A list of names or numbers names each once: `seeds: [0, 0]` counted one run as two in a spread,
        a plan listed twice was retrieved and scored twice."""
        for key in type(self).model_fields:
            value = getattr(self, key)
            if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
                twice = next((v for i, v in enumerate(value) if v in value[:i]), None)
                if twice is not None:
                    raise ValueError(f"{key} lists {shown(twice)} twice; name each once")
        return self


def missing_keys(model: type[Section], raw: Any, prefix: str) -> list[str]:
    """The keys a `params_complete` model (or one nested in it) needs from a params file and did not get."""
    if not isinstance(raw, dict):
        return []  # the model's own validation names what is wrong
    out = [
        f"{prefix}.{k}: required key is missing" for k in model.model_fields if model.params_complete and k not in raw
    ]
    for key, field in model.model_fields.items():
        sub = field.annotation
        if isinstance(sub, type) and issubclass(sub, Section) and key in raw:
            out += missing_keys(sub, raw[key], f"{prefix}.{key}")
    return out


def subset(values: list[str], allowed: list[str], name: str, where: str) -> None:
    """A model check: every one of `values` is in `allowed` (`name` and `where` say which keys)."""
    missing = [v for v in values if v not in allowed]
    if missing:
        raise ValueError(f"{name} names {shown(missing)}, which are not in {where} {allowed}")


def member(value: Any, allowed: list[Any], name: str, where: str) -> None:
    """A model check: `value` is one of `allowed`."""
    if value not in allowed:
        raise ValueError(f"{name} = {shown(value)} is not one of {where} {allowed}")


def one_name_per_file(files: Mapping[str, str], name: str) -> None:
    """A model check: no two names of `files` ({name: file}) read one file. One system's file under two
    names was counted as two systems (scored twice, a rank correlation over systems moved)."""
    seen: dict[str, str] = {}
    for each, file in files.items():
        if file in seen:
            raise ValueError(f"{name}: {seen[file]!r} and {each!r} both read {file}; name each system once")
        seen[file] = each


# --------------------------------------------------------------------------- checking


def _key(loc: tuple[Any, ...], raw: Any = None, skip: int = 0) -> str:
    """('retrieval', 'bm25', 'k1') -> 'retrieval.bm25.k1'; list positions as [i]; a mapping's bad key (pydantic's
    (..., key, '[key]')) as 'planners.post_hoc: the key'. `raw` (what was validated, reached after the first `skip`
    parts of `loc`) tells a mapping's integer key (`aggregation.1`) from a list position (`aggregation[1]`)."""
    if len(loc) >= 2 and loc[-1] == "[key]":
        return f"{_key(loc[:-2], raw, skip)}: the key"
    out, node = "", raw
    for i, part in enumerate(loc):
        index = isinstance(part, int) and (i < skip or isinstance(node, list | tuple))
        out += f"[{part}]" if index else (f".{part}" if out else str(part))
        if i >= skip:
            node = node[part] if isinstance(node, dict | list | tuple) and _holds(node, part) else None
    return out


def _holds(node: dict | list | tuple, part: Any) -> bool:
    """Whether `node[part]` exists (a list position in range, a mapping key)."""
    if isinstance(node, dict):
        return part in node
    return isinstance(part, int) and -len(node) <= part < len(node)


def problems(err: ValidationError, prefix: tuple[Any, ...] = (), raw: Any = None) -> list[str]:
    """One readable line per schema error: dotted key, what is wrong, what was given. `raw` is what was validated
    (under `prefix`), read to name a mapping's integer key as a key, not a list position."""
    lines = []
    for e in err.errors():
        loc = prefix + tuple(
            p for p in e["loc"] if not (isinstance(p, str) and p.startswith(("function-after", "union")))
        )
        key = _key(loc, raw, len(prefix)) or "(file)"
        if e["type"] == "extra_forbidden":
            lines.append(f"{key}: unknown key (a typo? remove it or see the section's model, lib.params.SECTIONS)")
        elif e["type"] == "missing":
            lines.append(f"{key}: required key is missing")
        elif e["type"] == "string_pattern_mismatch" and e.get("ctx", {}).get("pattern") in (TEXT_PATTERN, PATH_PATTERN):
            lines.append(f"{key}: expected some text (no control character), got {shown(e['input'])}")
        elif e["type"] == "string_pattern_mismatch" and e.get("ctx", {}).get("pattern") == SEPARATOR_PATTERN:
            lines.append(
                f"{key}: expected a separator of one character or more (no control character), got {shown(e['input'])}"
            )
        elif e["type"] == "string_pattern_mismatch" and e.get("ctx", {}).get("pattern") == DOMAIN_PATTERN:
            lines.append(
                f"{key}: expected a bare lower-case domain (snopes.com: no scheme, path or www.), got {shown(e['input'])}"
            )
        elif e["type"] == "string_pattern_mismatch" and e.get("ctx", {}).get("pattern") == FILE_NAME_PATTERN:
            lines.append(
                f"{key}: expected a file's name alone (no folder part, no control character), got {shown(e['input'])}"
            )
        elif e["type"] == "string_pattern_mismatch" and e.get("ctx", {}).get("pattern") == PLAN_NAME_PATTERN:
            lines.append(
                f"{key}: expected a plan name of lower-case letters, digits and _ (a file's name is made of it), "
                f"got {shown(e['input'])}"
            )
        elif e["type"] == "value_error":  # a model's check that names its field ("store.systems: ...") once
            message = e["msg"].removeprefix("Value error, ")
            lines.append(message if message.startswith(f"{key}.") else f"{key}: {message}")
        else:
            hint = " (write true or false, without quotes)" if e["type"] == "bool_type" else ""
            lines.append(f"{key}: {e['msg']}{hint}, got {shown(e['input'])}")
    return sorted(dict.fromkeys(lines))


def section_model(name: str) -> type[Section]:
    """The model of one section, imported from the module that it configures."""
    if name not in SECTIONS:
        raise KeyError(f"no params section {name!r} (sections: {', '.join(SECTIONS)})")
    module, _, cls = SECTIONS[name].partition(":")
    return getattr(importlib.import_module(module), cls)


def validate(model: type[BaseModel], raw: Any, path: Path | str, prefix: tuple[Any, ...], missing: list[str]) -> Any:
    """`raw` as an instance of `model`; else `ParamsError` listing every problem by dotted key: the model's
    and the keys params.yaml must write but leaves out (`missing`, from `missing_keys`)."""
    try:
        out = model.model_validate(raw)
    except ValidationError as err:
        raise ParamsError(path, sorted(set(problems(err, prefix, raw) + missing))) from None
    if missing:
        raise ParamsError(path, missing)
    return out


def _checked(name: str, raw: Any, path: Path | str, model: type[Section] | None = None) -> Section:
    model = model or section_model(name)
    return validate(model, raw, path, (name,), missing_keys(model, raw, name))


def check_section(name: str, raw: Any, path: Path | str = PARAMS_FILE) -> dict[str, Any]:
    """`raw` (one parsed section) if it matches the section's model; else `ParamsError` listing every problem."""
    _checked(name, raw, path)
    return raw


@functools.lru_cache(maxsize=8)
def _read(path: str, mtime_ns: int, size: int) -> Any:
    return read_yaml(path)


def read_params(path: Path | str = PARAMS_FILE) -> dict[str, Any]:
    """The parameter file as parsed YAML (a mapping of sections), not checked against any model."""
    path = Path(_file(path))
    if not path.is_file():
        read_yaml(path)  # raises, naming the path
    stat = path.stat()
    raw = _read(str(path), stat.st_mtime_ns, stat.st_size)
    if not isinstance(raw, dict):
        raise ParamsError(path, [f"expected a mapping of sections, got {type(raw).__name__}"])
    return copy.deepcopy(raw)


# set by `lib.site.execute --params FILE` for the notebook's kernel: the file the notebook's own `section(...)`
# calls read by default, so that a notebook run on FILE never mixes FILE's section with params.yaml's others
KERNEL_PARAMS_ENV = "STUDY_KERNEL_PARAMS"


def _file(path: Path | str) -> Path | str:
    """`path`; the default parameter file is the kernel's (`KERNEL_PARAMS_ENV`) where one is set."""
    given = os.environ.get(KERNEL_PARAMS_ENV)
    return Path(given) if given and Path(path) == PARAMS_FILE else path


def params_given(path: Path | str | None) -> tuple[str, Path | None, Path]:
    """The parameter file a command reads, as `lib.outputs.own_output` compares it with the study's: `--params`,
    or the kernel's file (`KERNEL_PARAMS_ENV`) where a notebook's kernel set one (a stage started from that
    kernel read the other file and wrote the study's outputs, where `--params` of that file was refused)."""
    asked = Path(path if path is not None else PARAMS_FILE)
    read = Path(_file(asked))
    if path is None and read == PARAMS_FILE:
        return ("--params", None, PARAMS_FILE)
    return ("--params" if read == asked else f"${KERNEL_PARAMS_ENV}", read, PARAMS_FILE)  # the file's source named


def study_params_only(path: Path | str | None, what: str) -> None:
    """Refuse, before any work, another parameter file for a stage command that writes only the study's own
    outputs (`what`), which the notebooks read as the study's: a copy of params.yaml with one setting changed
    rewrote them from it, exit 0, where `lib.planning.planners` and `lib.retrieval.runs` asked for a folder."""
    flag, read, study = params_given(path)
    if read is not None and Path(read).resolve() != Path(study).resolve():
        raise NamedError(
            f"{flag} {read}: not the study's own; this command writes {what}, which the notebooks read as the "
            "study's: change params.yaml instead (or try a setting with `dvc exp run -S key=value`)"
        )


def _raw_section(name: str, path: Path | str) -> Any:
    raw = read_params(path)
    if name not in raw:
        raise ParamsError(path, [f"no section {name!r} (sections: {', '.join(raw)})"])
    return raw[name]


def section(name: str, path: Path | str = PARAMS_FILE) -> dict[str, Any]:
    """One section of the parameter file, checked against its model; a clear error names a missing section."""
    path = _file(path)
    return check_section(name, _raw_section(name, path), path)


def settings(name: str, path: Path | str = PARAMS_FILE, model: type[Section] | None = None) -> Section:
    """One section as its typed model, validated once (`section` gives the checked mapping). A module run as
    `python -m` passes its own `model`: importing the registered one again would run the module twice."""
    path = _file(path)
    return _checked(name, _raw_section(name, path), path, model)


if __name__ == "__main__":  # `python -m lib.params check FILE` exited 0 having checked nothing
    sys.exit("error: lib.params has no command; check a parameter file with `python -m lib.schema check [FILE]`")
