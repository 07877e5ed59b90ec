"""Evidence retrieval for automated fact verification: the study's code, one subpackage per layer.

`data` (loaders), `store` (the evidence store and its judgements), `retrieval` (retrievers, fusion, runs),
`planning` (query planners, the LLM client, QGEN, the pursuit), `evaluation` (metrics and statistics),
`averitec` (the task's score), `verifier` (the NLI verifier), `analysis` (the notebooks' tables and sentences:
generative planners, verdicts, errors, utility, budget, synthesis), `site`
(running and rendering the notebooks, the course); `paths`, `params` and `schema` say where things are and
which settings hold; `cli` how a command ends on bad input; the remaining modules are operations (compute,
models, training, resources, timing, closure, profiles).
"""

import os as _os
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
