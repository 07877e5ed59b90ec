"""A guard for inputs that once made a command hang (a regular expression retried from every position, a
side counted anew for every split): the call must end at all, within a bound hundreds of times its time
here and far below the hours the old code took on the same input. Not a speed test (benchmarks/ are)."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


@contextlib.contextmanager
def ends_within(seconds: float = 60.0) -> Iterator[None]:
    """Fail with TimeoutError if the block runs past `seconds` (SIGALRM; Python's regular expressions and
    loops both see it)."""

    def stop(*_) -> None:
        raise TimeoutError(f"did not end within {seconds:g} s: the input makes it hang")

    before = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
