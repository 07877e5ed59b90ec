"""The `lib/` files a DVC stage runs: the import closure of its command, so `dvc.yaml` can list them all.

A stage's code is the module of each `python -m lib.X` in its command and, for `python -m lib.site.execute
NAME`, the code cells of `notebooks/NAME.ipynb`. Imports are read from the syntax tree, at any depth
(an import inside a function counts), and followed transitively; a module inside a package also runs
the package's `__init__.py`. A stage also runs the model of each params section it declares (`params:` in
`dvc.yaml`; `lib.params.section` imports the model named in `lib.params.SECTIONS`), so those modules and
their imports are deps too. A module that reads files of its own (a page template) names them in a
module-level `MODULE_FILES = ("name.html",)`, paths relative to its folder: they are deps of every stage that
runs it. Nothing is imported, so a broken module is still read.

`python -m lib.closure check` compares every stage's `lib/` deps in `dvc.yaml` with its closure and
exits 1 naming each missing or superfluous file; `python -m lib.closure write` rewrites those deps (the
other deps, and the file's comments, stay as they are). `tests/test_closure.py` runs the check.
"""

from __future__ import annotations

import ast
import functools
import io
import json
import os
import re
import shlex
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError as RuamelYAMLError

from lib import outputs as OUT
from lib.cli import NamedError, first_line, run_main, shown

ROOT = Path(__file__).resolve().parent.parent  # the repository (lib.paths.ROOT, without importing anything)
DVC_YAML = ROOT / "dvc.yaml"

LIB = "lib"
# Modules a command runs that are not deps: the timer (`python -m lib.timing run -- <command>`) measures
# the command and writes outputs/timings/, which no stage reads; what it runs is the stage's code. Stages
# also import it to record each planner's seconds (`lib.timing.cost`), which only ever go to those timing
# files: so it is left out of every closure, imported or run, and editing it reruns nothing.
NOT_DEPS = {"lib.timing"}


def _found(module: str, root: Path = ROOT) -> Path | bool | None:
    """Where Python finds a dotted module under `lib`: its file (a package's `__init__.py`), True for a
    namespace package (a folder without `__init__.py`), None where the import fails. As Python does, a package
    wins over a module of the same name and a module over a namespace folder; below a plain module nothing is
    found (`lib/zz.py` beside a folder `lib/zz/`: `lib.zz` is no package, `import lib.zz.sub` fails)."""
    parts, here, found = module.split("."), root, None
    for i, part in enumerate(parts):
        base = here / part
        if (base / "__init__.py").is_file():
            found = base / "__init__.py"
        elif base.with_suffix(".py").is_file():
            found = base.with_suffix(".py")
            if i < len(parts) - 1:
                return None
        elif base.is_dir():
            found = True
        else:
            return None
        here = base
    return found


def module_path(module: str, root: Path = ROOT) -> Path | None:
    """The file of a dotted module under `lib` (a package's `__init__.py`); None if there is none."""
    found = _found(module, root)
    return found if isinstance(found, Path) else None


def _namespace(module: str, root: Path = ROOT) -> bool:
    """Whether a dotted module is a namespace package (a folder without `__init__.py` that Python imports)."""
    return _found(module, root) is True


def _imported(tree: ast.AST, package: str, root: Path) -> set[str]:
    """Dotted `lib` modules that a syntax tree imports (`package`: the module's package, for relative imports)."""
    out: set[str] = set()
    optional: dict[ast.AST, bool] = {}  # guarded import -> whether only a missing module is caught
    for n, modules_only in _guarded_imports(tree):
        optional[n] = optional.get(n, True) and modules_only
    for node in ast.walk(tree):
        if node in optional and not _exists(node, package, root):
            continue  # `try: import lib.x` / `except ImportError:`: runs without the module, no dep
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == LIB}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                if not package or node.level > len(package.split(".")):  # Python refuses it (skipped before)
                    raise ImportError(
                        f"line {node.lineno}: `from {'.' * node.level}{base} import ...` reaches above the "
                        f"package {LIB}"
                    )
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            if base.split(".")[0] != LIB:
                continue
            out.add(base)
            for alias in node.names:  # `from lib.retrieval import runs`: a submodule, not a name
                if alias.name == "*":  # every name the module has, or those its literal `__all__` lists
                    missing = [n for n in _star_names(base, root) if not _binds_or_has(base, n, root)]
                    if missing:
                        raise ImportError(
                            f"line {node.lineno}: `from {base} import *`: its __all__ lists {missing[:5]}, which "
                            f"it does not bind"
                        )
                    continue
                if module_path(f"{base}.{alias.name}", root) is not None:
                    out.add(f"{base}.{alias.name}")
                elif _namespace(f"{base}.{alias.name}", root):  # a namespace subpackage: no file
                    continue
                elif not _binds_or_has(base, alias.name, root) and optional.get(node, True):  # guarded: runs without
                    where = module_path(base, root)
                    # neither a submodule nor a name of the module: the import fails, and the check passed it
                    raise ImportError(
                        f"line {node.lineno}: `from {base} import {alias.name}`: "
                        f"{where.relative_to(root) if where else f'the namespace package {base}'} has no "
                        f"name {alias.name!r} and {base} no module of that name"
                    )
    return out


def _binds_or_has(module: str, name: str, root: Path) -> bool:
    """Whether `from module import name` finds it: a submodule, a namespace subpackage, or a name the module
    binds (a namespace package, a folder without a file, has its submodules only)."""
    where = module_path(module, root)
    return (
        module_path(f"{module}.{name}", root) is not None
        or _namespace(f"{module}.{name}", root)
        or (where is None and not _namespace(module, root))  # no module at all: `closure` names it
        or (where is not None and name in _names_or_any(where))
    )


def _star_names(module: str, root: Path) -> list[str]:
    """The names a module's literal `__all__` (a list or tuple of text, assigned at its top level) lists."""
    where = module_path(module, root)
    for node in _python_tree(where).body if where is not None else []:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
            try:
                names = ast.literal_eval(node.value)
            except ValueError:  # computed: not read
                return []
            return [n for n in names if isinstance(n, str)] if isinstance(names, list | tuple) else []
    return []


IMPORT_ERRORS = {"ImportError", "Exception", "BaseException"}  # a missing *name* raises ImportError, which
# `except ModuleNotFoundError` does not catch: only a missing module is guarded by that


def _guarded_imports(tree: ast.AST) -> set[tuple[ast.AST, bool]]:
    """Import statements inside a `try:` that catches ImportError (or a base of it, or everything) in a
    handler that does not raise: the code runs whether or not the module (or the name) exists."""
    out: set[tuple[ast.AST, bool]] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try | ast.TryStar):
            continue
        caught = set()
        for handler in node.handlers:
            if _stops(handler.body):  # it fails anyway (a raise or an exit anywhere in it): no guard
                continue
            kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            caught |= {"Exception" if k is None else getattr(k, "id", getattr(k, "attr", "")) for k in kinds}
        if caught & (IMPORT_ERRORS | {"ModuleNotFoundError"}):
            modules_only = not caught & IMPORT_ERRORS  # `except ModuleNotFoundError`: a missing name is not caught
            out |= {(n, modules_only) for n in _run_in_try(node.body)}
    return out


def _run_in_try(body: list[ast.stmt]) -> list[ast.AST]:
    """The imports a `try` body runs itself: not those inside a function, class or lambda it defines (they run
    when called, outside the `try`)."""
    out, todo = [], list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def _stops(body: list[ast.stmt]) -> bool:
    """Whether a handler raises or exits anywhere in it (not in a function it defines)."""
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, ast.Raise):
            return True
        func = node.func if isinstance(node, ast.Call) else None
        if func is not None and (
            getattr(func, "id", None) in ("exit", "quit") or getattr(func, "attr", None) == "exit"
        ):
            return True
    return False


def _exists(node: ast.AST, package: str, root: Path) -> bool:
    """Whether every `lib` module a guarded import names is there (a file or a namespace folder)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = package.split(".")[: max(len(package.split(".")) - node.level + 1, 0)]
            base = ".".join([*parts, base] if base else parts)
        names = [base]
    return all(_found(n, root) is not None for n in names if n.split(".")[0] == LIB)


class _AnyName(frozenset):
    """Every name: a module whose names cannot all be read (`import *`, a module `__getattr__`)."""

    def __contains__(self, name: object) -> bool:
        return True


def _names_or_any(path: Path) -> frozenset[str]:
    """The names a module binds at its top level, or every name where it may bind some unseen."""
    return _top_names(path, path.stat().st_mtime_ns)


@functools.cache
def _top_names(path: Path, mtime_ns: int) -> frozenset[str]:
    """`_names_or_any`, parsed once per version of the file: what the module's own scope binds (not a class's
    attributes or a function's locals, not a bare annotation `x: int`), with the names a function declares
    `global`; a `TYPE_CHECKING` import is counted, as a reader of the file would."""
    tree = _python_tree(path)
    # what every module has, and a package its __path__ (`__all__` only where it is assigned)
    names: set[str] = {"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__", "__builtins__"}
    names |= {"__cached__"} | ({"__path__"} if path.name == "__init__.py" else set())
    names |= {n for node in ast.walk(tree) if isinstance(node, ast.Global) for n in node.names}
    for stmt in tree.body:  # in order: a `del x` in the module's scope unbinds what the statements before it
        if _main_guard(stmt):  # `if __name__ == "__main__":` never runs on import: its names are none
            stmt = ast.If(test=stmt.test, body=[ast.Pass()], orelse=stmt.orelse)
        bound = _scope_binds(stmt)  # bound; one under an `if` or a `try` may run: the name may be gone
        if bound is None:
            return _AnyName()
        names = (names | bound) - (_scope_deletes(stmt) - bound)
    return frozenset(names)


def _main_guard(stmt: ast.AST) -> bool:
    """`if __name__ == "__main__":` (either side)."""
    t = stmt.test if isinstance(stmt, ast.If) else None
    if not (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq)):
        return False
    sides = [t.left, t.comparators[0]]
    return {getattr(x, "id", None) for x in sides} & {"__name__"} != set() and any(
        isinstance(x, ast.Constant) and x.value == "__main__" for x in sides
    )


def _scope_deletes(stmt: ast.AST) -> set[str]:
    """The names a top-level statement may `del` in the module's scope (not in a function or class body)."""
    out, todo = set(), [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, ast.Delete):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        todo.extend(ast.iter_child_nodes(node))
    return out


def _writes_globals(node: ast.AST) -> bool:
    """`globals()[name] = ...`, `globals().update(...)` or `.setdefault(...)`: a name bound unseen."""

    def is_globals(n: ast.AST) -> bool:
        return isinstance(n, ast.Call) and getattr(n.func, "id", None) in ("globals", "vars") and not n.args

    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and is_globals(node.value):
        return True
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("update", "setdefault", "__setitem__")
        and is_globals(node.func.value)
    )


def _scope_binds(stmt: ast.AST) -> set[str] | None:
    """The names one top-level statement binds in the module's scope; None where it may bind any name."""
    names: set[str] = set()
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        if _writes_globals(node):
            return None
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == "__getattr__":
                return None
            names.add(node.name)
            # what runs in the module's scope: decorators, defaults, bases, keywords (a walrus there binds)
            args = getattr(node, "args", None)
            todo += [*node.decorator_list, *getattr(node, "bases", []), *getattr(node, "keywords", [])]
            todo += [*args.defaults, *[d for d in args.kw_defaults if d is not None]] if args else []
            continue
        if isinstance(node, ast.Lambda):  # its defaults run here, its body does not
            todo += [*node.args.defaults, *[d for d in node.args.kw_defaults if d is not None]]
            continue
        if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            # its own scope, but a walrus inside binds in the module
            names |= {n.target.id for n in ast.walk(node) if isinstance(n, ast.NamedExpr)}
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if alias.name == "*" or bound == "__getattr__":
                    return None
                names.add(bound)
            continue
        if isinstance(node, ast.AnnAssign) and node.value is None:
            continue  # `x: int` binds nothing
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            if node.id == "__getattr__":  # `__getattr__ = ...`: any name may be served
                return None
            names.add(node.id)
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        todo.extend(ast.iter_child_nodes(node))
    return names


def with_packages(module: str) -> set[str]:
    """A module and the packages it runs on import: `lib.data.averitec` -> lib, lib.data, lib.data.averitec."""
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)}


def closure(modules: Iterable[str], root: Path = ROOT) -> set[str]:
    """Every `lib` module that importing `modules` runs, packages included."""
    todo, seen = [m for mod in modules for m in with_packages(mod)], set()
    while todo:
        mod = todo.pop()
        if mod in seen or mod in NOT_DEPS:
            continue
        path = module_path(mod, root)
        if path is None and _namespace(mod, root):  # a namespace package: no file, no dep
            seen.add(mod)
            continue
        if path is None:
            raise ModuleNotFoundError(f"{mod} is imported but {root / mod.replace('.', '/')}(.py) does not exist")
        seen.add(mod)
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for imp in _file_imports(path, path.stat().st_mtime_ns, package, root):
            todo.extend(with_packages(imp) - seen)
    return seen


@functools.cache
def _file_imports(path: Path, mtime_ns: int, package: str, root: Path) -> frozenset[str]:
    """The `lib` imports of one file, parsed once per version of the file (`mtime_ns` is the cache key)."""
    try:
        return frozenset(_imported(_python_tree(path), package, root))
    except ImportError as err:  # the file named: `lib.closure check` reads many
        raise ImportError(f"{path}, {err}") from None


@functools.cache
def _module_files(path: Path, mtime_ns: int) -> tuple[Path, ...]:
    """The files a module names in its module-level `MODULE_FILES` tuple (relative to its folder)."""
    for node in _python_tree(path).body:
        target = (
            node.targets[0]
            if isinstance(node, ast.Assign) and len(node.targets) == 1
            else getattr(node, "target", None)
        )
        if isinstance(target, ast.Name) and target.id == "MODULE_FILES" and node.value is not None:
            names = ast.literal_eval(node.value)
            if not isinstance(names, tuple) or not all(isinstance(n, str) for n in names):
                raise ValueError(f"{path}: MODULE_FILES must be a tuple of file names, got {names!r}")
            missing = [n for n in names if not (path.parent / n).is_file()]
            if missing:
                raise FileNotFoundError(f"{path}: MODULE_FILES names files that do not exist: {missing}")
            return tuple(path.parent / n for n in names)
    return ()


def _python_tree(path: Path, code: str | None = None, what: str = "Python") -> ast.Module:
    """The syntax tree of a file (or of `code` taken from it). Nothing is imported, so a broken module is
    still read; a file that is not UTF-8 or not valid Python is one `NamedError` naming it and the line."""
    try:
        return ast.parse(path.read_text(encoding="utf-8") if code is None else code, str(path))
    except UnicodeDecodeError as err:
        raise NamedError(f"{path}: not UTF-8 text (byte {err.start:,}: {err.reason})") from None
    except SyntaxError as err:  # a NUL byte has no line ("line None")
        where = f", line {err.lineno} of {what}" if err.lineno else f", {what}"
        raise NamedError(f"{path}{where}: not valid Python ({err.msg})") from None
    except ValueError as err:  # "source code string cannot contain null bytes" (older Pythons)
        raise NamedError(f"{path}, {what}: not valid Python ({err})") from None


# cell and line magics whose body or argument is Python that runs (`%%time` imports count; `%%bash` is text),
# with how each reads its options (IPython's own parsers): what is left of the line is the statement
PYTHON_MAGICS = {"time", "timeit", "capture", "prun", "debug", "run"}


def _notebook_cells(path: Path | str) -> list[tuple[int, ast.Module]]:
    """Each code cell of a notebook (numbered from 1 over all cells) as a syntax tree, read as IPython reads it
    (`%%bash` and `%%writefile` bodies are text, `files = !ls` and `obj?` calls) with the Python bodies of
    `%%time`, `%%capture` and the like parsed too; a cell that cannot be read is named by its number."""
    from IPython.core.inputtransformer2 import TransformerManager

    path = Path(path)
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        cells = [(i, c) for i, c in enumerate(nb["cells"], 1) if c["cell_type"] == "code"]
    except UnicodeDecodeError as err:
        raise NamedError(f"{path}: not UTF-8 text (byte {err.start:,}: {err.reason})") from None
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise NamedError(f"{path}: not a notebook ({type(err).__name__}: {err})") from None
    ipython, out = TransformerManager(), []
    for number, cell in cells:
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise NamedError(f"{path}, cell {number}: its source is {shown(source, 40)}, not text")
        out.append((number, _ipython_tree(path, number, source, ipython)))
    return out


def _ipython_tree(path: Path, number: int, source: str, ipython: Any) -> ast.Module:
    """One cell's syntax tree, the Python that `PYTHON_MAGICS` run included."""
    try:
        code = ipython.transform_cell(source)
    except SyntaxError as err:
        raise NamedError(f"{path}, cell {number}: not valid IPython ({err.msg})") from None
    tree = _python_tree(path, code, f"cell {number}")
    for node in list(ast.walk(tree)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("run_cell_magic", "run_line_magic")
            and len(node.args) in (2, 3)
            and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args)
            and node.args[0].value in PYTHON_MAGICS
        ):
            name, line, *cell = (a.value for a in node.args)
            try:
                codes = _magic_code(name, line, cell[0] if cell else None)
            except Exception as err:  # IPython's UsageError, getopt's: the magic itself would refuse the line
                magic = f"{'%%' if cell else '%'}{name}"
                raise NamedError(
                    f"{path}, cell {number}: {magic} {shown(line, 60)}: {first_line(str(err), 120)}"
                ) from None
            for code in codes:
                tree.body += _ipython_tree(path, number, code, ipython).body
    return tree


def _magic_code(name: str, line: str, cell: str | None) -> list[str]:
    """The Python a magic runs: a cell magic's body, `%%timeit`'s setup line, a line magic's statement after its
    options (read by the magic's own parser), `%run -m lib.x` as `import lib.x`."""
    from IPython.core.magic_arguments import parse_argstring
    from IPython.core.magics.execution import ExecutionMagics

    magics = ExecutionMagics(shell=None)
    if name == "capture":  # `%%capture out`: the line names a variable; a line magic runs nothing
        return [cell] if cell is not None else []
    if name == "run":  # `-m lib.x` runs a module, `lib/x.py` (from the repository root, where notebooks run) too
        if cell is not None:
            return []
        opts, args = magics.parse_options(line, "nidtN:b:pD:l:rs:T:em:G", mode="list", list_all=1)
        if "m" in opts:
            return [f"import {m}" for m in opts["m"] if re.fullmatch(r"[\w.]+", m)]
        script = os.path.normpath(args[0]) if args else ""
        parts = script.removesuffix(".py").split(os.sep)  # `%run lib/x` runs lib/x.py, as IPython adds `.py`
        if parts[0] == LIB and len(parts) > 1 and all(p.isidentifier() for p in parts):
            return [f"import {'.'.join(parts)}"]  # a missing file is then a missing module, named
        return []  # a script outside lib
    if name == "timeit":  # `%%timeit setup`: the line runs before the body
        _, statement = magics.parse_options(line, "n:r:tcp:qov:", posix=False, strict=False, preserve_non_opts=True)
    elif name == "prun":  # `%%prun`: the line's statement and the body run as one
        _, statement = magics.parse_options(line, "D:l:rs:T:q", list_all=True, posix=False)
    else:  # time, debug: argparse options, then the statement (rejoined by spaces, as the magic does)
        args, extra = parse_argstring(getattr(magics, name), line, partial=True)
        statement = line if name == "debug" and not args.breakpoint else " ".join(extra)
        if name == "time" and cell is not None and statement.strip():
            raise ValueError("Can't use statement directly after '%%time'!")  # IPython's UsageError
    return [statement] if cell is None else [s for s in (statement, cell) if s.strip()]


def _notebook_tree(path: Path | str) -> ast.Module:
    """All code cells of a notebook as one syntax tree (`_notebook_cells`)."""
    return ast.Module(body=[stmt for _, tree in _notebook_cells(path) for stmt in tree.body], type_ignores=[])


def notebook_imports(path: Path | str, root: Path = ROOT) -> set[str]:
    """`lib` modules imported by a notebook's code cells; a bad import is named with its notebook and cell."""
    out: set[str] = set()
    for number, tree in _notebook_cells(path):
        try:  # a notebook has no package: `from . import x` fails
            out |= _imported(tree, "", root)
        except ImportError as err:
            raise ImportError(f"{path}, cell {number}, {err}") from None
    return out


def notebook_sections(path: Path | str) -> set[str]:
    """The params sections a notebook reads by name (`section("averitec")` calls with a literal name)."""
    return {
        node.args[0].value
        for node in ast.walk(_notebook_tree(path))
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", None)) == "section"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    }


def notebook_argument(args: list[str]) -> str:
    """The notebook name among `python -m lib.site.execute`'s arguments: the first word that is neither an
    option nor an option's value (every option of that command takes one)."""
    rest = iter(args)
    for word in rest:
        if word.startswith("-"):
            if "=" not in word:
                next(rest, None)
            continue
        return word
    raise ValueError(f"python -m lib.site.execute {' '.join(args)}: no notebook named")


def stage_entry_points(cmd: str | list[str], root: Path = ROOT) -> tuple[set[str], list[Path]]:
    """(the `lib` modules a stage command runs with `python -m`, the notebooks it executes)."""
    modules, notebooks = set(), []
    for line in [cmd] if isinstance(cmd, str) else cmd:
        words = shlex.split(line)
        for i, word in enumerate(words[:-1]):
            if word == "-m" and words[i + 1].split(".")[0] == LIB and words[i + 1] not in NOT_DEPS:
                mod = words[i + 1]
                main = f"{mod}.__main__"
                modules.add(main if module_path(main, root) is not None else mod)
                if mod == "lib.site.execute":
                    notebooks.append(root / "notebooks" / f"{notebook_argument(words[i + 2 :])}.ipynb")
    return modules, notebooks


def section_modules(root: Path = ROOT) -> dict[str, str]:
    """{params section: the module of its model}, read from `lib.params.SECTIONS` without importing it."""
    path = root / "lib" / "params.py"
    return dict(_section_modules(path, path.stat().st_mtime_ns))


@functools.cache
def _section_modules(path: Path, mtime_ns: int) -> tuple[tuple[str, str], ...]:
    """`section_modules` parsed once per version of lib/params.py (`mtime_ns` is the cache key): every
    stage's closure asks for it."""
    tree = _python_tree(path)
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "SECTIONS":
            return tuple((name, ref.partition(":")[0]) for name, ref in ast.literal_eval(node.value).items())
    raise ValueError(f"{path} defines no SECTIONS mapping")


def stage_closure(cmd: str | list[str], root: Path = ROOT, params: Iterable[Any] = ()) -> list[str]:
    """The `lib/` files (repository-relative, sorted) that a stage command runs; `params`: the stage's
    `params:` entries in dvc.yaml, whose sections' models it imports when it reads them."""
    modules, notebooks = stage_entry_points(cmd, root)
    for nb in notebooks:
        modules |= notebook_imports(nb, root)
    homes = section_modules(root) if params else {}
    for entry in params:
        # `- params.yaml: [keys]` is DVC's long form of the default file's keys (it was read as a key itself, and
        # `write` then dropped the sections' models from the deps); `- other.yaml: [keys]` names another file
        keys = entry.get("params.yaml") or [] if isinstance(entry, dict) else [entry]
        for key in keys if isinstance(keys, list) else []:
            if isinstance(key, str) and key.split(".")[0] in homes:
                modules.add(homes[key.split(".")[0]])
    files = [f for m in closure(modules, root) if (f := module_path(m, root)) is not None]  # namespace: no file
    files += [r for f in list(files) for r in _module_files(f, f.stat().st_mtime_ns)]
    return sorted(str(f.relative_to(root)) for f in files)


def stages(dvc_yaml: Path | str = DVC_YAML) -> dict:
    """The `stages` mapping of `dvc.yaml`, in file order."""
    return yaml.load(Path(dvc_yaml).read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))[
        "stages"
    ]


def _stage_closure_named(dvc_yaml: Path | str, name: str, stage: Any, root: Path) -> list[str]:
    """`stage_closure` of one stage of dvc.yaml; what stops it is one NamedError naming the stage (a templated
    `foreach` or `matrix` stage, a stage without `cmd`, code that cannot be read)."""
    where = f"{dvc_yaml}: stage {name}"
    if isinstance(stage, dict) and ({"foreach", "matrix"} & set(stage)):
        kind = "foreach" if "foreach" in stage else "matrix"
        raise NamedError(f"{where}: a `{kind}` stage; lib.closure reads plain stages (one `cmd` each): write it out")
    if not isinstance(stage, dict) or not isinstance(stage.get("cmd"), str | list):
        raise NamedError(f"{where}: expected a mapping with a `cmd` (text or a list of commands)")
    try:
        return stage_closure(stage["cmd"], root, stage.get("params", []))
    except NamedError as err:
        raise NamedError(f"{where}: {err}") from None
    except (ImportError, ValueError, TypeError, OSError) as err:  # an unreadable cmd, import or MODULE_FILES
        raise NamedError(f"{where}: its code cannot be read: {first_line(str(err), 300)}") from None


def differences(dvc_yaml: Path | str = DVC_YAML, root: Path = ROOT) -> dict[str, dict[str, list[str]]]:
    """{stage: {"missing": [...], "extra": [...]}} for every stage whose `lib/` deps differ from its closure."""
    out = {}
    for name, stage in stages(dvc_yaml).items():
        want = set(_stage_closure_named(dvc_yaml, name, stage, root))
        have = {str(d) for d in stage.get("deps", []) if re.match(rf"{LIB}/", str(d))}
        if want != have:
            out[name] = {"missing": sorted(want - have), "extra": sorted(have - want)}
    return out


def write(dvc_yaml: Path | str = DVC_YAML, root: Path = ROOT) -> list[str]:
    """Rewrite every stage's `lib/` deps as its closure (after its other deps); the stages changed."""
    round_trip = YAML()  # keeps the file's comments and layout
    round_trip.width = 4096
    round_trip.indent(mapping=2, sequence=4, offset=2)
    path = Path(dvc_yaml)
    doc = round_trip.load(path.read_text(encoding="utf-8"))
    changed, owners = [], {}
    for name, stage in doc["stages"].items():
        want = _stage_closure_named(path, name, stage, root)
        deps = stage.setdefault("deps", [])
        if id(deps) in owners:  # one list behind a YAML anchor: rewritten for one stage, it changed the other's
            raise NamedError(
                f"{path}: stages {owners[id(deps)]} and {name} share one deps list (a YAML anchor and alias); "
                "write each stage's deps out, then run `python -m lib.closure write` again"
            )
        owners[id(deps)] = name
        if sorted(str(d) for d in deps if str(d).startswith(f"{LIB}/")) != want:
            for i in reversed(range(len(deps))):  # in place, so the other deps keep their comments
                if str(deps[i]).startswith(f"{LIB}/"):
                    del deps[i]
            deps.extend(want)
            changed.append(name)
    text = io.StringIO()
    round_trip.dump(doc, text)
    OUT.write_text(path, text.getvalue())  # whole or not at all: dvc.yaml is the pipeline
    return changed


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["-h"], ["--help"], ["check", "-h"], ["check", "--help"], ["write", "-h"], ["write", "--help"]):
        print("usage: python -m lib.closure check | write\n\n" + (__doc__ or "").split("\n\n")[0])
        return 0
    if args not in (["check"], ["write"]):
        print("usage: python -m lib.closure check | write", file=sys.stderr)
        print(f"error: expected `check` or `write`, got {' '.join(args) or 'nothing'}", file=sys.stderr)
        return 2
    try:
        if args == ["write"]:
            changed = write()
            print(
                f"dvc.yaml: lib/ deps rewritten for {len(changed)} stages {changed}"
                if changed
                else "dvc.yaml: no change"
            )
            return 0
        diff = differences()
    except (yaml.YAMLError, RuamelYAMLError) as err:  # `write` reads with ruamel (a traceback)
        raise NamedError(f"{DVC_YAML}: not valid YAML: {' '.join(str(err).split())[:300]}") from None
    except KeyError as err:  # no `stages`, or a stage without `cmd`
        raise NamedError(f"{DVC_YAML}: missing key {err}: expected `stages:` with a `cmd` in each stage") from None
    except (ImportError, ValueError, TypeError, OSError) as err:  # an unreadable cmd, import or MODULE_FILES
        raise NamedError(f"{DVC_YAML}: its code cannot be read: {first_line(str(err), 300)}") from None
    for name, d in diff.items():
        print(f"stage {name}: " + "; ".join(f"{k} {', '.join(v)}" for k, v in d.items() if v), file=sys.stderr)
    if diff:
        print(
            f"{len(diff)} stages' lib/ deps differ from their imports: run `python -m lib.closure write`",
            file=sys.stderr,
        )
        return 1
    print("dvc.yaml: every stage lists exactly the lib/ files its code imports")
    return 0


if __name__ == "__main__":
    run_main(main)
