"""lib.closure: every stage's lib/ deps in dvc.yaml are exactly the files its code imports."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from lib import closure as CL
from lib.cli import NamedError
from lib.paths import ROOT

TRAINING_STAGES = ("qgen", "nli_averitec", "nli_quantemp")
ANALYSIS_ONLY = (
    "lib/planning/generative.py",
    "lib/planning/pursuit.py",
    "lib/analysis/errors.py",
    "lib/analysis/utility.py",
    "lib/site/display.py",
    "lib/verifier/veracity.py",
    "lib/evaluation/significance.py",
    "lib/site/execute.py",
    "lib/site/render.py",
    "lib/site/course.py",
    "lib/planning/qgen.py",
)


def test_dvc_yaml_lists_every_stage_closure_exactly():
    assert CL.differences() == {}, "run `python -m lib.closure write`"


def test_training_stages_reach_no_analysis_module():
    stages = CL.stages()
    for name in TRAINING_STAGES:
        files = CL.stage_closure(stages[name]["cmd"], CL.ROOT, stages[name].get("params", []))
        assert not set(files) & set(ANALYSIS_ONLY), name
        # the names of retrievers and fusions, not their code: editing a retriever retrains nothing
        assert {f for f in files if f.startswith("lib/retrieval/")} <= {
            "lib/retrieval/__init__.py",
            "lib/retrieval/vocabulary.py",
        }
        assert {"lib/training.py", "lib/models.py"} <= set(files)


@pytest.fixture
def mini(tmp_path):
    """A tiny repository: lib/a imports lib.b inside a function; lib/b imports lib.pkg.c; a notebook imports lib.d."""
    lib = tmp_path / "lib"
    (lib / "pkg").mkdir(parents=True)
    (lib / "__init__.py").write_text("")
    (lib / "a.py").write_text("import os\n\ndef f():\n    from lib import b\n    return b\n")
    (lib / "b.py").write_text("from lib.pkg import c\nfrom lib.pkg.c import NAME\n")
    (lib / "pkg" / "__init__.py").write_text("from . import helpers\n")
    (lib / "pkg" / "helpers.py").write_text("")
    (lib / "pkg" / "c.py").write_text("NAME = 1\n")
    (lib / "d.py").write_text("")
    (lib / "site").mkdir()
    (lib / "site" / "__init__.py").write_text("")
    (lib / "site" / "execute.py").write_text("")
    (lib / "params.py").write_text('SECTIONS: dict[str, str] = {"x": "lib.pkg.c:XSection", "y": "lib.d:YSection"}\n')
    (tmp_path / "notebooks").mkdir()
    cell = {"cell_type": "code", "source": ["%matplotlib inline\n", "from lib import d as D\n"], "metadata": {}}
    (tmp_path / "notebooks" / "n.ipynb").write_text(
        json.dumps({"cells": [cell, {"cell_type": "markdown", "source": ["from lib import a"]}]})
    )
    return tmp_path


def test_closure_follows_imports_inside_functions_packages_and_relative_imports(mini):
    assert CL.closure(["lib.a"], mini) == {"lib", "lib.a", "lib.b", "lib.pkg", "lib.pkg.c", "lib.pkg.helpers"}
    assert CL.stage_closure("python -m lib.a --flag", mini) == [
        "lib/__init__.py",
        "lib/a.py",
        "lib/b.py",
        "lib/pkg/__init__.py",
        "lib/pkg/c.py",
        "lib/pkg/helpers.py",
    ]


def test_notebook_stages_add_the_code_cells_imports_not_the_markdown(mini):
    assert CL.stage_closure("python -m lib.site.execute n --section x", mini) == [
        "lib/__init__.py",
        "lib/d.py",
        "lib/site/__init__.py",
        "lib/site/execute.py",
    ]


def test_a_stage_runs_the_models_of_the_params_sections_it_declares(mini):
    assert CL.section_modules(mini) == {"x": "lib.pkg.c", "y": "lib.d"}
    cmd = "python -m lib.b"
    assert "lib/d.py" not in CL.stage_closure(cmd, mini)
    assert "lib/d.py" in CL.stage_closure(cmd, mini, ["y.some_key"])  # a key of the section: its model too
    assert CL.stage_closure(cmd, mini, [{"other.yaml": ["y"]}, "unknown"]) == CL.stage_closure(cmd, mini)


def test_the_files_a_module_names_in_module_files_are_deps_of_its_stages(mini):
    (mini / "lib" / "pkg" / "page.html").write_text("<html></html>")
    (mini / "lib" / "pkg" / "c.py").write_text('NAME = 1\nMODULE_FILES = ("page.html",)  # its template\n')
    assert "lib/pkg/page.html" in CL.stage_closure("python -m lib.a", mini)
    assert "lib/pkg/page.html" not in CL.stage_closure("python -m lib.d", mini)
    (mini / "lib" / "pkg" / "c.py").write_text('MODULE_FILES = ("page.html", "gone.css")\n')
    with pytest.raises(FileNotFoundError, match=r"MODULE_FILES names files that do not exist: \['gone.css'\]"):
        CL.stage_closure("python -m lib.a", mini)
    (mini / "lib" / "pkg" / "c.py").write_text('MODULE_FILES = "page.html"\n')
    with pytest.raises(ValueError, match="MODULE_FILES must be a tuple of file names"):
        CL.stage_closure("python -m lib.a", mini)


def test_an_import_of_a_missing_module_is_named(mini):
    (mini / "lib" / "d.py").write_text("import lib.gone2\n")
    with pytest.raises(ModuleNotFoundError, match="lib.gone2"):
        CL.closure(["lib.d"], mini)


@pytest.mark.parametrize(
    "line, message",
    [
        ("from lib import gone", r"line 2: `from lib import gone`: lib/__init__.py has no name 'gone'"),
        ("from lib.pkg.c import OTHER", r"`from lib.pkg.c import OTHER`: lib/pkg/c.py has no name 'OTHER'"),
        ("from .pkg.c import OTHER", r"`from lib.pkg.c import OTHER`"),
        ("from .. import x", r"`from \.\. import \.\.\.` reaches above the package lib"),
    ],
)
def test_an_import_of_a_name_no_module_defines_is_named(mini, line, message):
    """The forty-third pass: `from lib.evaluation import zz_missing` (and a relative import above lib) passed
    `lib.closure check`, where `import lib.zz_missing` was an error; the import fails when the module runs."""
    (mini / "lib" / "d.py").write_text(f"import os\n{line}\n")
    with pytest.raises(ImportError, match=message) as err:
        CL.closure(["lib.d"], mini)
    assert str(mini / "lib" / "d.py") in str(err.value)
    # names a module binds anyhow: defs, classes, assignments, imports, under if/try too; `import *` binds any
    (mini / "lib" / "pkg" / "c.py").write_text(
        "import os as OS\nNAME = 1\nif OS:\n    def f(): pass\ntry:\n    from json import loads\nexcept ImportError:\n"
        "    loads = None\nclass K: pass\n"
    )
    (mini / "lib" / "d.py").write_text("from lib.pkg.c import NAME, OS, f, loads, K\nfrom lib.pkg import helpers\n")
    assert "lib.pkg.c" in CL.closure(["lib.d"], mini)
    (mini / "lib" / "pkg" / "c.py").write_text("from json import *\n")
    (mini / "lib" / "d.py").write_text("from lib.pkg.c import anything\n")
    assert "lib.pkg.c" in CL.closure(["lib.d"], mini)


def test_a_missing_or_superfluous_dep_is_reported_and_write_fixes_it(mini, capsys):
    dvc = mini / "dvc.yaml"
    dvc.write_text(
        "stages:\n  s:\n    cmd: python -m lib.b\n    deps:\n      - data/x  # the input\n"
        "      - lib/b.py\n      - lib/d.py\n    outs:\n      - out\n"
    )
    assert CL.differences(dvc, mini) == {
        "s": {
            "missing": ["lib/__init__.py", "lib/pkg/__init__.py", "lib/pkg/c.py", "lib/pkg/helpers.py"],
            "extra": ["lib/d.py"],
        }
    }
    assert CL.write(dvc, mini) == ["s"] and CL.differences(dvc, mini) == {}
    text = dvc.read_text()
    assert "- data/x  # the input" in text and "lib/d.py" not in text


def test_the_check_command_exits_1_on_a_stale_dvc_yaml(tmp_path, monkeypatch):
    shutil.copy(ROOT / "dvc.yaml", tmp_path / "dvc.yaml")
    monkeypatch.setattr(CL, "differences", lambda: {"qgen": {"missing": ["lib/training.py"], "extra": []}})
    assert CL.main(["check"]) == 1
    assert CL.main(["nonsense"]) == 2


def test_notebook_stages_declare_every_params_section_their_notebook_reads():
    missing = {}
    for name, stage in CL.stages().items():
        _, notebooks = CL.stage_entry_points(stage["cmd"])
        declared = [p for entry in stage.get("params", []) for p in ([entry] if isinstance(entry, str) else entry)]
        for nb in notebooks:
            for sec in CL.notebook_sections(nb):
                if not any(d == sec or d.startswith(sec + ".") for d in declared):
                    missing.setdefault(name, []).append(sec)
    assert missing == {}


def test_notebook_sections_reads_literal_section_names(mini):
    cell = {"cell_type": "code", "source": ['x = section("averitec")["k"]\n', "y = C.section(name)\n"], "metadata": {}}
    (mini / "notebooks" / "s.ipynb").write_text(json.dumps({"cells": [cell]}))
    assert CL.notebook_sections(mini / "notebooks" / "s.ipynb") == {"averitec"}


def test_the_notebook_is_found_among_the_execute_commands_options():
    assert CL.notebook_argument(["n", "--section", "x"]) == "n"
    assert CL.notebook_argument(["--section", "x", "--with", "j", "n"]) == "n"
    assert CL.notebook_argument(["--timeout=5", "n"]) == "n"
    with pytest.raises(ValueError, match="no notebook named"):
        CL.notebook_argument(["--section", "x"])


def test_git_keeps_exactly_the_outputs_dvc_does_not_cache():
    """A `cache: false` output is committed with the code (a fresh clone finds its stage up to date) but for
    the rendered site (`reports/`, built where it is read); a cached one is git-ignored (DVC's cache holds it)."""
    outs = {}
    for stage in CL.stages().values():
        for entry in (o for key in ("outs", "metrics", "plots") for o in stage.get(key, [])):
            path, spec = next(iter(entry.items())) if isinstance(entry, dict) else (entry, {})
            outs[path] = spec.get("cache", True)
    probes = [p if Path(p).suffix else f"{p}/probe.jsonl" for p in outs]  # a file inside a folder output
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=ROOT,
        input="\n".join(probes),
        capture_output=True,
        text=True,
    )
    ignored = set(done.stdout.split())
    expected = {p: cached or p.startswith("reports/") for p, cached in outs.items()}
    assert {p: probe in ignored for p, probe in zip(outs, probes, strict=True)} == expected
    assert not outs["outputs/models/qgen/training.json"] and outs["outputs/store"]  # both kinds are probed


def test_a_broken_module_or_notebook_is_one_line_naming_it(tmp_path):
    """`lib.closure check` gave a traceback for a syntax error, a byte that is not UTF-8 or a broken notebook."""
    from lib.cli import NamedError

    bad = tmp_path / "bad.py"
    bad.write_text("def broken(:\n")
    with pytest.raises(NamedError, match=r"bad.py, line 1 of Python: not valid Python \(invalid syntax\)"):
        CL._python_tree(bad)
    bad.write_bytes(b"x = 1\n\xff\xfe")
    with pytest.raises(NamedError, match=r"bad.py: not UTF-8 text \(byte 6: invalid start byte\)"):
        CL._python_tree(bad)
    nb = tmp_path / "n.ipynb"
    nb.write_text("{")
    with pytest.raises(NamedError, match=r"n.ipynb: not a notebook \(JSONDecodeError"):
        CL.notebook_imports(nb)
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": "import lib\nx = (1,"}]}))
    with pytest.raises(NamedError, match=r"n.ipynb, line 2 of cell 1: not valid Python"):
        CL.notebook_imports(nb)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("stages:\n  x: [\n", "not valid YAML"),
        ("stagez: {}\n", "missing key 'stages'"),
        ("stages:\n  a:\n    deps: [x]\n", "stage a: expected a mapping with a `cmd`"),
        (
            'stages:\n  a:\n    cmd: python -m lib.store.build "x\n',
            "stage a: its code cannot be read: No closing quotation",
        ),
        (
            "stages:\n  a:\n    cmd: python -m lib.nonexistent_probe\n",
            "stage a: its code cannot be read: lib.nonexistent",
        ),
    ],
)
def test_a_damaged_dvc_yaml_is_one_named_error(tmp_path, monkeypatch, text, problem):
    """The thirty-first pass: each of these ended `python -m lib.closure check` in a traceback."""
    (tmp_path / "dvc.yaml").write_text(text)
    original = CL.differences
    monkeypatch.setattr(CL, "differences", lambda: original(tmp_path / "dvc.yaml"))
    with pytest.raises(CL.NamedError, match=re.escape(problem)):
        CL.main(["check"])


@pytest.mark.parametrize(
    "module, name, binds",
    [
        ("def _init():\n    global X\n    X = 1\n_init()\n", "X", True),  # the forty-fourth pass: refused
        ("match 1:\n    case y:\n        pass\n", "y", True),  # refused
        ("from os import *\n", "anything", True),
        ("x: int = 1\n", "x", True),
        ("x: int\n", "x", False),  # accepted, and the import fails
        ("if True:\n    class C:\n        attr = 1\n", "attr", False),
        ("if True:\n    def f():\n        local = 1\n", "local", False),
        ("def h(a=(w := 3)):\n    pass\n", "w", True),  # the forty-fifth pass: refused
        ("lam = lambda d=(v := 4): d\n", "v", True),
        ("class K(metaclass=(mm := type)):\n    pass\n", "mm", True),
        ("[q := 1 for _ in range(1)]\n", "q", True),
        ("x = 1\n", "__spec__", True),
        ("__getattr__ = lambda n: n\n", "anything", True),
        ("from os import path as __getattr__\n", "anything", True),
        ("x = 1\n", "__path__", False),  # a module, not a package: accepted, and Python refuses it
        ("x = 1\n", "__all__", False),
        ("__all__ = ['x']\nx = 1\n", "__all__", True),
    ],
)
def test_the_names_a_module_binds_are_read_by_scope(mini, module, name, binds):
    (mini / "lib" / "pkg" / "c.py").write_text(module)
    (mini / "lib" / "d.py").write_text(f"from lib.pkg.c import {name}\n")
    if binds:
        assert "lib.pkg.c" in CL.closure(["lib.d"], mini)
    else:
        with pytest.raises(ImportError, match=f"has no name '{name}'"):
            CL.closure(["lib.d"], mini)


def test_a_star_import_and_ipython_cells_are_read_as_python_reads_them(mini):
    """The forty-fourth pass: `from lib.x import *` was "no name '*'", a `%%bash` cell or `files = !ls` made
    the notebook "not valid Python", a `%%writefile` body was read as imports, and `from . import x` in a
    notebook was read as lib."""
    (mini / "lib" / "d.py").write_text("from lib.pkg.c import *\n")
    assert "lib.pkg.c" in CL.closure(["lib.d"], mini)
    cells = ["%%bash\nls\n", "files = !ls\nfrom lib import d\n", "if True:\n    !echo hi\n", "obj?",
             "%%writefile a.py\nfrom lib.nope import x\n"]  # fmt: skip
    nb = mini / "notebooks" / "m.ipynb"
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": c, "metadata": {}} for c in cells]}))
    assert CL.notebook_imports(nb, mini) == {"lib", "lib.d"}
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": "x = (", "metadata": {}}]}))
    with pytest.raises(NamedError, match=r"m\.ipynb, line 1 of cell 1: not valid Python"):
        CL.notebook_imports(nb, mini)
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": "from . import d", "metadata": {}}]}))
    with pytest.raises(ImportError, match="reaches above the package lib"):
        CL.notebook_imports(nb, mini)


def test_python_magics_count_and_a_bad_cell_is_named(mini):
    """The forty-fifth pass: imports under `%%time`, `%time` or `%%capture` were left out of the closure (the
    check passed with a dep missing); a bad import, a source that is not text and a NUL byte named no cell."""
    nb = mini / "notebooks" / "m.ipynb"

    def cells(*sources):
        nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": s, "metadata": {}} for s in sources]}))

    for magic in ("%%time\nfrom lib import d\n", "%time from lib import d\n", "%%capture out\nfrom lib import d\n"):
        cells(magic)
        assert CL.notebook_imports(nb, mini) == {"lib", "lib.d"}, magic
    (mini / "lib" / "ns").mkdir()  # a namespace subpackage: no file to depend on
    cells("x = 1", "from lib import ns\nfrom lib.pkg.c import nope\n")
    with pytest.raises(ImportError, match=r"m\.ipynb, cell 2, line 2: `from lib\.pkg\.c import nope`"):
        CL.notebook_imports(nb, mini)
    cells(5)
    with pytest.raises(NamedError, match=r"m\.ipynb, cell 1: its source is 5, not text"):
        CL.notebook_imports(nb, mini)
    cells("x = 1\x00")
    with pytest.raises(NamedError, match=r"m\.ipynb, cell 1: not valid Python"):
        CL.notebook_imports(nb, mini)


def test_magic_options_setup_lines_and_run_m_are_read_as_ipython_runs_them(mini):
    """The forty-seventh pass: `%timeit -n1 -r1 import lib.x` was "not valid Python", `%%timeit`'s setup line
    and `%run -m lib.x` were not read (a missing module passed, a real one was no dep)."""
    nb = mini / "notebooks" / "m.ipynb"

    def imports(source):
        nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": source, "metadata": {}}]}))
        return CL.notebook_imports(nb, mini)

    for cell in ("%timeit -n1 -r1 from lib import d", "%prun -s cumulative from lib import d",
                 "%%timeit -n1 from lib import d\npass", "%%prun -s time\nfrom lib import d",
                 "%time --no-raise-error from lib import d", "%run -m lib.d"):  # fmt: skip
        assert CL.closure(imports(cell), mini) == {"lib", "lib.d"}, cell
    assert imports("%run script.py") == set()
    for cell in ("%%timeit -n1 -r1 import lib.nope\npass", "%run -m lib.nope"):
        with pytest.raises(ModuleNotFoundError, match="lib.nope is imported"):
            CL.closure(imports(cell), mini)
    with pytest.raises(NamedError, match=r"cell 1: %timeit '-z import lib.d': option -z not recognized"):
        imports("%timeit -z import lib.d")
    with pytest.raises(NamedError, match=r"cell 1: %%time 'import os': Can't use statement directly after"):
        imports("%%time import os\nfrom lib import d")


def test_namespace_levels_deletions_globals_all_and_guarded_imports(mini):
    """The forty-seventh pass: a module inside a namespace subpackage was refused, a name bound and then
    deleted was accepted, `globals()[...] =` refused, a star import of a missing `__all__` name accepted, an
    import guarded by `except ImportError` refused."""
    lib = mini / "lib"
    (lib / "ns" / "inner").mkdir(parents=True)
    (lib / "ns" / "inner" / "mod.py").write_text("from lib import d\nX = 1\n")
    (lib / "a.py").write_text("from lib.ns.inner.mod import X\n")
    assert CL.closure(["lib.a"], mini) == {"lib", "lib.a", "lib.ns", "lib.ns.inner", "lib.ns.inner.mod", "lib.d"}
    assert CL.stage_closure("python -m lib.a", mini) == ["lib/__init__.py", "lib/a.py", "lib/d.py",
                                                          "lib/ns/inner/mod.py"]  # fmt: skip
    (lib / "pkg" / "c.py").write_text("BAR = 2\ndel BAR\nBAZ = 1\ndel BAZ\nBAZ = 3\n")
    (lib / "a.py").write_text("from lib.pkg.c import BAZ\n")
    assert "lib.pkg.c" in CL.closure(["lib.a"], mini)
    (lib / "a.py").write_text("from lib.pkg.c import BAR\n")
    with pytest.raises(ImportError, match="has no name 'BAR'"):
        CL.closure(["lib.a"], mini)
    (lib / "pkg" / "c.py").write_text('globals()["FOO"] = 1\n')
    (lib / "a.py").write_text("from lib.pkg.c import FOO\n")
    assert "lib.pkg.c" in CL.closure(["lib.a"], mini)
    (lib / "pkg" / "c.py").write_text('__all__ = ["MISSING", "Y"]\nY = 1\n')
    (lib / "a.py").write_text("from lib.pkg.c import *\n")
    with pytest.raises(ImportError, match=r"its __all__ lists \['MISSING'\], which it does not bind"):
        CL.closure(["lib.a"], mini)
    (lib / "a.py").write_text("try:\n    from lib.nope import x\nexcept ImportError:\n    x = None\n")
    assert CL.closure(["lib.a"], mini) == {"lib", "lib.a"}
    (lib / "a.py").write_text("try:\n    from lib import d\nexcept (OSError, ImportError):\n    d = None\n")
    assert CL.closure(["lib.a"], mini) == {"lib", "lib.a", "lib.d"}
    (lib / "a.py").write_text("try:\n    from lib.nope import x\nexcept OSError:\n    x = None\n")
    with pytest.raises(ModuleNotFoundError, match="lib.nope is imported"):
        CL.closure(["lib.a"], mini)


def test_a_templated_stage_is_refused_by_its_name(tmp_path):
    """The forty-seventh pass: a `foreach` stage was "missing key 'cmd'" and a `matrix` stage "No such file
    ... ${item.nb}.ipynb", neither naming the stage."""
    for kind, body in (("foreach", "foreach: [a]\n    do:\n      cmd: python -m lib.data verify"),
                       ("matrix", "matrix:\n      nb: [x]\n    cmd: python -m lib.site.execute ${item.nb}")):  # fmt: skip
        dvc = tmp_path / "dvc.yaml"
        dvc.write_text(f"stages:\n  many:\n    {body}\n")
        with pytest.raises(NamedError, match=rf"dvc.yaml: stage many: a `{kind}` stage; lib.closure reads plain"):
            CL.differences(dvc)


def test_guards_that_reraise_deletes_under_if_annotated_all_and_run_of_a_path(mini):
    """The forty-seventh pass, second round: a guarded import of a missing name was refused and one whose
    handler re-raises accepted; `del` under a top-level `if` and `__all__: list[str] = [...]` were not read;
    `%run lib/x.py` was no dep (a missing file passed)."""
    lib = mini / "lib"
    (lib / "pkg" / "c.py").write_text('BAR = 1\nif True:\n    del BAR\nFOO = 2\n__all__: list[str] = ["MISSING"]\n')
    for source, fails in (
        ("try:\n    from lib.pkg.c import NOPE\nexcept ImportError:\n    NOPE = None\n", None),
        ("try:\n    from lib.nope import x\nexcept ImportError as err:\n    raise SystemExit('need') from err\n",
         "lib.nope is imported"),
        ("from lib.pkg.c import BAR\n", "has no name 'BAR'"),
        ("from lib.pkg.c import FOO\n", None),
        ("from lib.pkg.c import *\n", r"its __all__ lists \['MISSING'\]"),
    ):  # fmt: skip
        (lib / "a.py").write_text(source)
        if fails is None:
            assert "lib.pkg.c" in CL.closure(["lib.a"], mini), source
        else:
            with pytest.raises(ImportError, match=fails):
                CL.closure(["lib.a"], mini)
    nb = mini / "notebooks" / "m.ipynb"
    for cell, want in (("%run lib/d.py", {"lib", "lib.d"}), ("%run ./lib/pkg/c.py arg", {"lib", "lib.pkg", "lib.pkg.c",
                       "lib.pkg.helpers"}), ("%run script.py", set())):  # fmt: skip
        nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": cell, "metadata": {}}]}))
        assert CL.closure(CL.notebook_imports(nb, mini), mini) == want, cell
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": "%run lib/nope.py", "metadata": {}}]}))
    with pytest.raises(ModuleNotFoundError, match="lib.nope is imported"):
        CL.closure(CL.notebook_imports(nb, mini), mini)


def test_write_refuses_stages_that_share_one_deps_list(tmp_path):
    """The forty-seventh pass: deps shared through a YAML anchor were rewritten for one stage and changed the
    other's ("rewritten for 2 stages", then `check` failed and `write` could not mend it)."""
    dvc = tmp_path / "dvc.yaml"
    text = (
        "stages:\n  a:\n    cmd: python -m lib.data verify\n    deps: &shared [data/SHA256SUMS]\n"
        "  b:\n    cmd: python -m lib.reproduction check\n    deps: *shared\n"
    )
    dvc.write_text(text)
    with pytest.raises(NamedError, match="stages a and b share one deps list"):
        CL.write(dvc)
    assert dvc.read_text() == text


def test_write_names_a_dvc_yaml_that_is_not_yaml(tmp_path, monkeypatch):
    """The forty-seventh pass, third round: `write` ended in ruamel's ParserError where `check` named the file."""
    (tmp_path / "dvc.yaml").write_text("stages:\n  a: [\n")
    original = CL.write
    monkeypatch.setattr(CL, "write", lambda: original(tmp_path / "dvc.yaml"))
    with pytest.raises(NamedError, match="not valid YAML"):
        CL.main(["write"])


def test_guards_main_blocks_run_without_py_and_the_long_params_form(mini, tmp_path):
    """The forty-seventh pass, third round: `except ModuleNotFoundError` guarded a missing *name*, a handler that
    raised inside an `if` or exited was a guard, an import in a function defined in a `try` was guarded; a name
    bound only under `if __name__ == "__main__":` was a module name; `%run lib/x` was no dep; `- params.yaml:
    [sections]` was read as a section named params.yaml (and `write` dropped the models from the deps)."""
    lib = mini / "lib"
    (lib / "pkg" / "c.py").write_text('X = 1\nif __name__ == "__main__":\n    MAINONLY = 1\n')
    for source, fails in (
        ("try:\n    from lib.pkg.c import NOPE\nexcept ModuleNotFoundError:\n    NOPE = None\n", "has no name 'NOPE'"),
        ("try:\n    from lib.pkg.c import NOPE\nexcept ImportError:\n    if True:\n        raise\n", "has no name"),
        ("import sys\ntry:\n    from lib.pkg.c import NOPE\nexcept ImportError:\n    sys.exit('need it')\n", "has no name"),
        ("try:\n    def f():\n        from lib.pkg.c import NOPE\nexcept ImportError:\n    pass\n", "has no name"),
        ("from lib.pkg.c import MAINONLY\n", "has no name 'MAINONLY'"),
        ("try:\n    from lib.nope import x\nexcept ModuleNotFoundError:\n    x = None\n", None),
    ):  # fmt: skip
        (lib / "a.py").write_text(source)
        if fails is None:
            assert CL.closure(["lib.a"], mini) == {"lib", "lib.a"}
        else:
            with pytest.raises(ImportError, match=fails):
                CL.closure(["lib.a"], mini)
    nb = mini / "notebooks" / "m.ipynb"
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": "%run lib/d", "metadata": {}}]}))
    assert CL.closure(CL.notebook_imports(nb, mini), mini) == {"lib", "lib.d"}
    short = CL.stage_closure("python -m lib.a", mini, ["y.some_key"])
    assert CL.stage_closure("python -m lib.a", mini, [{"params.yaml": ["y.some_key"]}]) == short
    assert "lib/d.py" in short


def test_a_module_beside_a_folder_of_its_name_is_no_package(mini):
    """The forty-seventh pass, third round: `lib/zz.py` beside a folder `lib/zz/` without `__init__.py` made
    `import lib.zz.sub` pass, which Python refuses (the module wins and is no package); a name a namespace
    package does not have as a submodule passed."""
    lib = mini / "lib"
    (lib / "zz").mkdir()
    (lib / "zz" / "sub.py").write_text("X = 1\n")
    (lib / "zz.py").write_text("Y = 2\n")
    for source in ("import lib.zz.sub\n", "from lib.zz.sub import X\n", "from lib.zz import sub\n"):
        (lib / "a.py").write_text(source)
        with pytest.raises(ImportError, match=r"lib.zz.sub is imported|lib/zz.py has no name 'sub'"):
            CL.closure(["lib.a"], mini)
    (lib / "a.py").write_text("from lib.zz import Y\n")
    assert CL.closure(["lib.a"], mini) == {"lib", "lib.a", "lib.zz"}
    (lib / "zz.py").unlink()  # now a namespace package: its submodules only
    (lib / "a.py").write_text("from lib.zz import sub\n")
    assert CL.closure(["lib.a"], mini) == {"lib", "lib.a", "lib.zz", "lib.zz.sub"}
    (lib / "a.py").write_text("from lib.zz import Y\n")
    with pytest.raises(ImportError, match="the namespace package lib.zz has no name 'Y'"):
        CL.closure(["lib.a"], mini)
