"""Evidence retrieval for automated fact verification: the study's code, one subpackage per layer.

`data` (loaders), `store` (the evidence store and its judgements), `retrieval` (retrievers, fusion, runs),
`planning` (query planners, the LLM client, QGEN, the pursuit), `evaluation` (metrics and statistics),
`averitec` (the task's score), `verifier` (the NLI verifier), `analysis` (the notebooks' tables and sentences:
generative planners, verdicts, errors, utility, budget, synthesis), `site`
(running and rendering the notebooks, the course); `paths`, `params` and `schema` say where things are and
which settings hold; `cli` how a command ends on bad input; the remaining modules are operations (compute,
models, training, resources, timing, closure, profiles).
"""

import atexit as _atexit
import os as _os
import re as _re
import signal as _signal
import sys as _sys
import threading as _threading


def _stopped_early(signum: int, _frame: object) -> None:
    """SIGINT or SIGTERM while a command is still importing (before `lib.cli.run_main` takes over): one line,
    the shell's status, no `KeyboardInterrupt` traceback from whatever module was loading."""
    _sys.stderr.write(f"error: stopped by {_signal.Signals(signum).name} while starting; nothing was written\n")
    _os._exit(128 + signum)


if _sys.argv[:1] == ["-m"] and _threading.current_thread() is _threading.main_thread():  # `python -m lib.…`
    for _sig in (_signal.SIGINT, _signal.SIGTERM):
        _signal.signal(_sig, _stopped_early)


_COMMAND = _re.compile(r'^if __name__ == "__main__":(.*)$', _re.M)


def runs_as_command(path: str, listed: bool = False) -> bool:
    """Whether the module at `path` runs as a command (it ends by testing `__name__`). `listed`: one to name
    among its package's commands, whose test has no comment after it (`lib.params`' says it only refuses,
    sending the caller to `lib.schema`)."""
    try:
        with open(path, encoding="utf-8") as f:
            found = _COMMAND.search(f.read())
    except OSError:
        return not listed  # unread: not ours to judge, nor to list
    return found is not None and not (listed and found.group(1).strip())


def _no_command() -> None:
    """At the exit of `python -m lib.<module>` for a module that is no command: one line and status 2, where
    its functions were defined and it ended with status 0 and no word (`python -m lib.averitec.breakdowns
    --help`). A package (`__main__`) says so itself; a command's own status stands."""
    spec = getattr(_sys.modules.get("__main__"), "__spec__", None)
    name, origin = getattr(spec, "name", "") or "", getattr(spec, "origin", "") or ""
    if name.startswith("lib.") and not name.endswith(".__main__") and origin and not runs_as_command(origin):
        _sys.stderr.write(
            f"error: {name} is a module of functions, not a command; "
            f"`python -m {name.rsplit('.', 1)[0]}` names the commands beside it\n"
        )
        _sys.stderr.flush()
        _os._exit(2)


if _sys.argv[:1] == ["-m"]:
    _atexit.register(_no_command)
    import warnings as _warnings

    # `python -m lib.data.labels`: runpy warns that its package imported it first, a line above the one error
    _warnings.filterwarnings(
        "ignore", message=r".*found in sys\.modules after import of package", category=RuntimeWarning
    )
