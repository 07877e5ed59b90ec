"""How every `python -m lib...` command ends on bad input: one `error: ...` line naming the file, record or
field, and exit status 1, never a traceback. A bug still shows its traceback."""

from __future__ import annotations

import sys
from collections.abc import Callable


class NamedError(Exception):
    """An error in what a user gave (a file, a record, a field, a parameter, an endpoint) whose message
    names it and says what was expected: the command line prints the message alone."""


def run_main(main: Callable[[], int | None]) -> None:
    """Run a command's `main` and exit with its status; a `NamedError` or a missing file becomes one line."""
    try:
        status = main()
    except (NamedError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(1)
    sys.exit(status or 0)
