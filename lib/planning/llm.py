"""An OpenAI-compatible chat client with an on-disk answer cache, for the prompted planners.

Any endpoint that speaks the OpenAI chat API works (OpenAI, vLLM, llama.cpp's server, Ollama): base_url,
model, temperature, seed and max_tokens come from the `llm` params section. The API key comes from the
environment variable named by `api_key_env` only, and is never written to params, the cache, reports, logs
or exception messages. `api_key_env: null` sends no key (a fixed placeholder, not a secret, for local
servers); a variable that is named but not set is an error in live mode (`LLMAuthError`). A key about to
go over plain http to a host that is not loopback (127.0.0.0/8, ::1, localhost) draws a warning first.

Every answer is appended to a JSONL cache (a DVC output) under a key computed from the model id, the
messages and the generation parameters, so a rerun is deterministic, free and offline. No complete answer
is ever lost, whatever process is killed when:
- an append is one write of one line under an exclusive `flock`, flushed to disk, and always begins on a
  new line (a line cut short by a killed writer is ended first, so the next answer is never glued to it);
- opening the cache checks it under the same lock; a line that does not parse (cut short, damaged bytes)
  is moved to `<cache>.rejected.jsonl` with its line number and its exact bytes (`text`, decode with
  `.encode("utf-8", "surrogateescape")`), never deleted, and the complete entries inside it (an answer
  that an older writer glued to a cut line) are kept in the cache; a valid last line without its newline
  is kept and the newline added. The key is the entry's checksum: an entry whose model, messages and
  params do not hash to its key goes aside too (it was served for the prompt whose key it bore). Of several
  answers under one key the last appended is served: a live run appends a new answer where the cached one
  was unusable (two caches joined with `cat` give the second file's answers). Damage that still parses as
  an entry (a changed letter inside an answer) cannot be told from an answer;
- the repair rewrites the same file in place (never a rename, which would cut off a process holding the
  file open); a rewrite that moves good lines first saves them to `<cache>.repair` (atomically), so a
  repair killed half-way is finished by the next open (which may record a damaged line aside twice).

Modes (`llm.mode`):
- `off`: no calls; planners that need an LLM are skipped (`LLM.enabled` is False) and the notebooks say so.
- `replay`: cache only; a missing entry is an error listing what is missing (`CacheMiss`).
- `live`: call the endpoint for what the cache lacks, then cache it.

Errors: rate limits (429), server errors (5xx), timeouts and connection errors are retried with
exponential backoff (each wait at most a minute, or `backoff` where that is longer); an answer that still fails is counted and returned as None (the caller's plan falls
back). Some failures stop the stage at once instead, with the setting to fix: a refused key (401/403,
`LLMAuthError`: llm.api_key_env), a wrong model or path (404, `LLMNotFoundError`: llm.model, llm.base_url),
and an endpoint that cannot be reached (`LLMUnreachableError`: llm.base_url): at the first prompt when the
connection is refused before the endpoint ever answered, after the first prompt's retries when it accepts but
never answers within `timeout`, else after `UNREACHABLE_AFTER` prompts in a row (each wait bounded by `timeout`;
a request as a whole by twice `timeout`, so an endpoint that trickles its answer a byte at a time, which no
single wait catches, counts as a timeout too). An endpoint that answers but fails (HTTP 5xx or 429 after the
retries) stops the stage after `FAILING_AFTER` prompts in a row (`LLMFailingError`), and a body over
`MAX_ANSWER_BYTES` is cut off as it arrives (`AnswerTooLarge`; `$LIB_MAX_ANSWER_BYTES` raises the bound). A
key the endpoint echoes in an answer is cached as `***`. A malformed answer (a body that is not a chat completion, such as an HTML page with status
200, no `choices`, `content: null`) is counted (`Counters.malformed`), returned as None and never cached.
The parsers (`parse_list`, `first_question`) survive chatty output, as Papelo's did: they take the first
JSON list, or else the numbered/question lines, or the first question.
"""

from __future__ import annotations

import ast
import fcntl
import hashlib
import ipaddress
import itertools
import json
import os
import re
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, get_args
from urllib.parse import urlsplit

from pydantic import ConfigDict, Field, model_validator
from tqdm import tqdm

from lib import outputs as OUT
from lib.cli import NamedError, env_bound, first_line, not_a_file, shown
from lib.data import within_size
from lib.params import FilePath, PosInt, Section, Seed, Text, Url
from lib.paths import OUTPUTS_DIR, ROOT

# --------------------------------------------------------------------------- params

Mode = Literal["off", "replay", "live"]


class LLMSettings(Section):
    """Params section `llm`: the endpoint and how to ask it. No key here: `api_key_env` names the environment
    variable holding it (None: send no key, for local servers)."""

    params_complete = True

    model_config = ConfigDict(frozen=True)

    model: Text  # no default: params.yaml's `llm.model` is the one source
    mode: Mode = "off"
    base_url: Url | None = None  # None: the SDK's default (api.openai.com); e.g. http://localhost:8000/v1
    temperature: Annotated[float, Field(ge=0, le=2)] = 0.0
    seed: Seed | None = 0
    max_tokens: PosInt = 256
    timeout: Annotated[float, Field(gt=0, le=3600)] = 60.0  # seconds per request
    max_retries: Annotated[int, Field(ge=0, le=20)] = 5  # retries after the first attempt (429, 5xx, timeouts...)
    backoff: Annotated[float, Field(ge=0, le=600)] = 1.0  # first wait in seconds; doubles with every retry, up to a cap
    api_key_env: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")] | None = None  # None: no key is sent
    cache: FilePath = "outputs/llm/cache.jsonl"

    @model_validator(mode="before")
    @classmethod
    def _no_keys(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and any(isinstance(k, str) and "key" in k and k != "api_key_env" for k in data):
            raise ValueError("API keys never go in params; set the variable named by llm.api_key_env")
        env = data.get("api_key_env") if isinstance(data, Mapping) else None
        if isinstance(env, str) and (len(env) > 100 or _tokenish(env)):  # a key pasted where its name goes
            raise ValueError(
                "llm.api_key_env looks like a key itself (a long run of letters and digits mixed): it names the "
                "environment variable that holds the key, e.g. OPENAI_API_KEY; the key never goes in params"
            )
        url = data.get("base_url") if isinstance(data, Mapping) else None
        if isinstance(url, str):
            try:
                urlsplit(url).port  # noqa: B018 - parsed for its error: a port past 65535 or not a number
            except ValueError as err:
                raise ValueError(f"llm.base_url {shown(url, 80)}: {err}") from None
        if isinstance(url, str) and (urlsplit(url).query or urlsplit(url).fragment):
            raise ValueError(
                "llm.base_url holds a query string or fragment (?... or #...): a token there would be shown in reports and messages, "
                "and the SDK appends its paths after it; name the endpoint alone, a key in llm.api_key_env"
            )
        if isinstance(url, str) and "@" in urlsplit(url).netloc:
            raise ValueError(
                "llm.base_url holds a user name or password (user:secret@host): secrets never go in params, "
                "where reports and messages would show them; set the variable named by llm.api_key_env"
            )
        return data


MODES: tuple[str, ...] = get_args(Mode)
CACHE_FILE = OUTPUTS_DIR / "llm" / "cache.jsonl"
UNREACHABLE_AFTER = 3  # prompts in a row that failed with connection errors (after their retries): stop
FAILING_AFTER = 5  # prompts in a row that failed whatever the cause (HTTP 5xx or 429 after retries): stop
# the largest answer body read from the endpoint, in bytes ($LIB_MAX_ANSWER_BYTES): a chat answer is kilobytes;
# a server that sends gigabytes would fill memory, then the cache (which is read whole)
MAX_ANSWER_BYTES = env_bound("LIB_MAX_ANSWER_BYTES", 8 << 20)
DEADLINE_TIMES = 2  # a request as a whole: at most this many times llm.timeout (each read: llm.timeout)
BACKOFF_CAP = 60.0  # seconds: no wait between retries is longer (or than llm.backoff itself, when that is longer)


def backoff_wait(backoff: float, attempt: int) -> float:
    """The wait before retry `attempt + 1`: `backoff` doubled per attempt, capped (20 doublings were years)."""
    return min(backoff * 2.0 ** min(attempt, 60), max(backoff, BACKOFF_CAP))


MIN_KEY_CHARS = 8  # shorter is no API key, and its redaction (`***`) would rewrite ordinary words in answers
NO_KEY = "no-key"  # sent when llm.api_key_env is null (the SDK needs some key); not a secret
Messages = list[dict[str, str]]


class LLMError(NamedError, RuntimeError):
    """A problem with the LLM settings or the endpoint."""


class LLMAuthError(LLMError):
    """The key is missing (its variable is not set) or refused (401/403): fix llm.api_key_env."""


class LLMNotFoundError(LLMError):
    """The endpoint answered 404: the model or the path does not exist; fix llm.model or llm.base_url."""


class RequestDeadline(Exception):
    """A request that outlived its deadline (`LLM._request`): counted as a timeout, never shown to a user."""


class AnswerTooLarge(LLMError):
    """The endpoint sent a body over `MAX_ANSWER_BYTES`: not read further, never cached."""


class AnswerCut(Exception):
    """The endpoint answered (status and headers) and closed the connection before the end of its body: it was
    reached, so this is a failed answer (retried), not an unreachable endpoint."""


class LLMFailingError(LLMError):
    """`FAILING_AFTER` prompts in a row failed after their retries (HTTP 5xx or 429): the stage stops."""


class LLMUnreachableError(LLMError):
    """Several prompts in a row could not connect: nothing answers at llm.base_url."""


class CacheMiss(LLMError):
    """Replay mode asked for answers the cache does not hold."""

    def __init__(self, missing: Sequence[Messages]):
        self.missing = list(missing)
        super().__init__(  # one line: the count of the batch asked, and the end of a prompt (where prompts differ)
            f"llm.mode is 'replay' but {len(self.missing)} answer(s) of the prompts asked are not in the cache "
            f"(the first ends {_preview(self.missing[0] if self.missing else [])!r}; later batches may lack more): run once with llm.mode: "
            "live against an endpoint (or pull the cache with `dvc pull`)"
        )


def _preview(messages: Messages, width: int = 80) -> str:
    """The end of a prompt's user text, where prompts built on one template differ (the claim, the evidence)."""
    text = " | ".join(m.get("content", "") for m in messages if m.get("role") != "system")
    text = " ".join(text.split())
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def cache_key(model: str, messages: Messages, params: Mapping[str, Any]) -> str:
    """sha256 of the model id, the messages and the generation parameters (canonical JSON)."""
    blob = json.dumps(
        {"model": model, "messages": messages, "params": dict(params)},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- the answer cache


def _entry(line: bytes) -> dict | None:
    """A cache line (with or without its newline) as an entry, or None (cut short, not JSON, no entry)."""
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError):  # UnicodeDecodeError (a flipped byte) is a ValueError
        return None
    if not (isinstance(rec, dict) and isinstance(rec.get("key"), str) and isinstance(rec.get("answer"), str)):
        return None
    return rec if _own_key(rec) else None


_SERVED_KEY = re.compile(r"[0-9a-f]{64}")  # what `cache_key` gives: the only keys a prompt is looked up by


def _own_key(rec: Mapping[str, Any]) -> bool:
    """Whether an entry is served only for its own prompt: a key that a prompt can be looked up by must be the
    hash of the entry's own model, messages and params (an entry of one prompt under another's key was served
    for that other prompt). A key no prompt hashes to (a name written by hand) is never served."""
    if not _SERVED_KEY.fullmatch(rec["key"]):
        return True
    model, messages, params = rec.get("model"), rec.get("messages"), rec.get("params")
    if not (isinstance(model, str) and isinstance(messages, list) and isinstance(params, dict)):
        return False
    try:
        return cache_key(model, messages, params) == rec["key"]
    except (TypeError, ValueError):  # not JSON-serialisable as the key was computed
        return False


def _lines(raw: bytes) -> list[bytes]:
    """The lines of a file, split on b"\\n" only (a flipped byte may be a \\r); the last may lack its newline."""
    parts = raw.split(b"\n")
    return [p + b"\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


_ENTRY_START = re.compile(rb'\{"(?:answer|key)": ')  # where a cache entry can begin (quotes in strings are escaped)


def _salvage(line: bytes) -> list[bytes]:
    """The complete entries inside a damaged line, each as a line of its own: an answer that an older
    writer glued to a line cut short, or two entries joined by `cat` without a newline between them."""
    text = line.decode("latin-1")  # one character per byte: positions match, JSON structure is ASCII
    decoder, out, pos = json.JSONDecoder(), [], 0
    for m in _ENTRY_START.finditer(line):
        if m.start() < pos:
            continue
        try:
            _, end = decoder.raw_decode(text, m.start())
        except (ValueError, RecursionError):  # nested past the recursion limit: no entry starts here
            continue
        piece = line[m.start() : end] + b"\n"
        if _entry(piece):
            out.append(piece)
            pos = end
    return out


def rejected_path(path: Path | str) -> Path:
    """Where damaged lines of the cache at `path` go: `cache.jsonl` -> `cache.rejected.jsonl`."""
    path = Path(path)
    return path.with_name(
        f"{path.stem}.rejected{path.suffix}" if path.suffix == ".jsonl" else f"{path.name}.rejected.jsonl"
    )


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class AnswerCache:
    """The JSONL answer cache: `{"key", "model", "params", "messages", "answer"}` per line.

    Opening it checks and repairs the file under the writers' lock (see the module docstring); `rejected`
    counts the damaged lines this open moved to `rejected_file`."""

    def __init__(self, path: Path | str, stage: str | None = None, setting: str = "llm.cache"):
        self.path = Path(path)
        self.setting = setting  # the params key that names this file, for the messages (the judge's is its own)
        self.stage = stage  # the pipeline stage whose kept output it may be (`lib.outputs.refuse_cache_target`)
        self.rejected_file = rejected_path(self.path)
        self.entries: dict[str, str] = {}
        self.rejected = 0  # damaged lines moved to rejected_file by this open
        self.newline_added = False  # the last line was complete but lacked its newline
        self.salvaged = 0  # complete entries recovered from damaged lines (kept in the cache)
        self._load()

    @property
    def dropped(self) -> int:
        """The old name of `rejected` (lines are no longer dropped but moved aside)."""
        return self.rejected

    @property
    def _journal(self) -> Path:
        return self.path.with_name(self.path.name + ".repair")

    def _load(self) -> None:
        if self.path.is_dir():
            raise LLMError(f"{self.setting}: {self.path} is a directory; expected the path of a JSONL file")
        OUT.refuse_targets([self.path])  # a cache is written: never inside data/ (lib.outputs)
        # nor where a stage writes another output (or keeps another stage's cache), nor among the code
        OUT.refuse_cache_target(self.path, owner=self.stage)
        if not self.path.exists():
            return
        within_size(self.path)  # a pipe would refuse to seek, /dev/zero fill memory
        with open(self.path, "r+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                raw = f.read()
                # a repair killed half-way left its journal: every good line it had, before it moved any
                for side in (self._journal, self.rejected_file):  # a pipe there would wait for a writer
                    if side.exists() and not side.is_file():
                        raise LLMError(
                            f"{self.setting}: {side}: {not_a_file('the cache side file this path is kept for')}"
                        )
                saved = self._journal.read_bytes() if self._journal.exists() else None
                good: list[bytes] = [line for line in _lines(saved or b"") if _entry(line)]
                seen = set(good)
                bad: list[tuple[int, bytes]] = []
                for number, line in enumerate(_lines(raw), 1):
                    whole = line if line.endswith(b"\n") else line + b"\n"  # only the last line may lack it
                    if _entry(line) is None:
                        bad.append((number, line))  # kept whole in the side file; its complete entries stay here
                        pieces = [piece for piece in _salvage(line) if piece not in seen]
                        good.extend(pieces)
                        self.salvaged += len(pieces)
                    elif whole not in seen:
                        good.append(whole)
                        self.newline_added |= whole is not line
                if bad and not good:  # not a cache at all (a data file named by mistake): never rewritten
                    raise LLMError(
                        f"{self.setting}: {self.path} is not an answer cache (none of its {len(bad):,} lines is a cache "
                        "entry); name a JSONL cache file, or a new path"
                    )
                for line in good:
                    rec = _entry(line)
                    self.entries[rec["key"]] = rec["answer"]
                self._repair(f, raw, b"".join(good), bad, saved is not None)
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def _may_write(self) -> None:
        """Refuse to write in place through a read-only file or a hard link (a DVC-protected output is a link into
        the DVC cache: a repair or an append changed the cached copy too), as every other writer refuses it."""
        if not self.path.exists():
            return
        st = self.path.stat()
        if not st.st_mode & 0o222 or st.st_nlink > 1:
            why = "a read-only file" if not st.st_mode & 0o222 else f"a file with {st.st_nlink} hard links"
            raise LLMError(
                f"{self.setting}: {self.path} is {why} (a DVC-protected output?); the cache is written in place: "
                "make it a writable file of its own (dvc unprotect, or chmod u+w) or name another cache"
            )

    def _repair(self, f, raw: bytes, new: bytes, bad: list[tuple[int, bytes]], journaled: bool) -> None:
        """Make the file hold `new`, in place, under the lock the caller holds; damaged lines go aside first."""
        if bad or new != raw:
            self._may_write()
        if bad:
            records = b"".join(
                json.dumps(
                    {
                        "line": n,
                        "cache": self.path.name,
                        "rejected_at": round(time.time()),
                        "text": line.decode("utf-8", "surrogateescape"),
                    }
                ).encode()
                + b"\n"
                for n, line in bad
            )
            fd = os.open(self.rejected_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                _write_all(fd, records)
                os.fsync(fd)
            finally:
                os.close(fd)
            self.rejected = len(bad)
        if new != raw:
            if new.startswith(raw):  # only a newline to add: append it
                f.seek(0, os.SEEK_END)
                f.write(new[len(raw) :])
            elif raw.startswith(new):  # only a damaged tail to cut: no good line moves
                f.truncate(len(new))
            else:  # good lines move: journal them, then rewrite the same file
                OUT.write_bytes(self._journal, new)  # the journal, not the cache: nobody holds it open
                _fsync_dir(self.path.parent)
                journaled = True
                f.seek(0)
                f.write(new)
                f.truncate()
            f.flush()
            os.fsync(f.fileno())
        if journaled:
            self._journal.unlink(missing_ok=True)

    def get(self, key: str) -> str | None:
        return self.entries.get(key)

    def put(self, key: str, model: str, params: Mapping[str, Any], messages: Messages, answer: str) -> None:
        """Append one entry: one write of one line, on a line of its own, under an exclusive lock, flushed."""
        self._may_write()
        line = (
            json.dumps(
                {"key": key, "model": model, "params": dict(params), "messages": messages, "answer": answer},
                ensure_ascii=False,
                sort_keys=True,
            ).encode("utf-8")
            + b"\n"
        )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":  # a writer was killed mid-line: end that line
                line = b"\n" + line
            _write_all(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)  # closing releases the lock
        self.entries[key] = answer

    def __len__(self) -> int:
        return len(self.entries)


# --------------------------------------------------------------------------- the client


@dataclass
class Counters:
    """What happened in a session: reported by the stages and notebook 06."""

    requests: int = 0  # HTTP requests sent (retries included)
    cache_hits: int = 0
    answered: int = 0  # new answers from the endpoint
    retries: int = 0
    failures: int = 0  # prompts given up on (after the retries, or malformed): returned as None
    malformed: int = 0  # answers that were no chat completion (HTML, no choices, null content)
    parse_failures: int = 0  # answers the parsers could not use (counted by the callers)
    errors: dict[str, int] = field(default_factory=dict)


def _key_in_clear(url: str) -> bool:
    """True when a key sent to `url` crosses the network unencrypted: plain http to a non-loopback host."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "http":
        return False
    host = (parts.hostname or "").lower()
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name
        return True


_SECRETISH = re.compile(r"\b(?:sk|key|pk)-[A-Za-z0-9_*.\-]{4,}")
# a path segment that may hold a token (some gateways take one in the path): a run of 16 or more letters and
# digits, both mixed in (a model or deployment name is short words and numbers between hyphens)
_ALNUM_RUN = re.compile(r"[A-Za-z0-9]{16,}")


def _tokenish(text: str) -> bool:
    """Whether `text` holds a run of 16 or more letters and digits, mixed (a token or key, not a word). A
    run at a time: lookaheads retried from every position took 10 s on a 40 KB segment."""
    return any(not run.isalpha() and not run.isdigit() for run in (m.group(0) for m in _ALNUM_RUN.finditer(text)))


KEY_PIECE = MIN_KEY_CHARS  # a run of this many characters of the key (or of it reversed) is masked


def without_key(text: str, key: str) -> str:
    """`text` with the key masked as `***`: the key whole, and every run of `KEY_PIECE` or more of its
    characters in order or reversed (an endpoint that echoed `key[3:]` or the key backwards had it cached)."""
    if len(key) < KEY_PIECE:
        return text.replace(key, "***") if key else text
    pieces = {k[i : i + KEY_PIECE] for k in (key, key[::-1]) for i in range(len(k) - KEY_PIECE + 1)}
    covered = bytearray(len(text))  # 1 where a piece of the key lies (pieces overlap: the run is masked whole)
    for piece in pieces:
        at = text.find(piece)
        while at >= 0:
            covered[at : at + KEY_PIECE] = b"\x01" * KEY_PIECE
            at = text.find(piece, at + 1)
    out, last = [], 0
    for run in re.finditer(rb"\x01+", covered):
        out += [text[last : run.start()], "***"]
        last = run.end()
    return "".join(out) + text[last:] if out else text


def _shown(url: str) -> str:
    """A URL for messages and reports: without user:password@, a query, or a path segment that looks like a
    token (`***` in its place)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    try:
        port = parts.port
    except ValueError:  # refused by the settings; a message about such a URL still prints
        port = None
    path = "/".join("***" if _tokenish(seg) or _SECRETISH.search(seg) else seg for seg in parts.path.split("/"))
    return f"{parts.scheme}://{host}{f':{port}' if port else ''}{path}"


def _answer_text(resp: Any) -> tuple[str | None, str | None]:
    """The answer text of a chat completion, or (None, what is wrong) for a malformed one."""
    if not hasattr(resp, "choices"):
        return None, "not_a_completion"  # e.g. an HTML page with status 200 (the SDK hands back the text)
    choices = resp.choices
    if not isinstance(choices, list) or not choices:
        # an error object with status 200 (some OpenAI-compatible proxies answer so): its words, not "no choices"
        error = getattr(resp, "error", None) or (getattr(resp, "model_extra", None) or {}).get("error")
        if error is not None:
            said = error.get("message", error) if isinstance(error, dict) else error
            return None, f"{ERROR_BODY}:{str(said)[:1000]}"
        return None, "no_choices"
    message = getattr(choices[0], "message", None)
    if message is None:
        return None, "no_message"
    content = getattr(message, "content", None)
    if content is None:
        return None, "null_content"
    if not isinstance(content, str):
        return None, "not_text"
    try:
        content.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (`\ud800` in the JSON): no text to cache or parse
        return None, "not_utf8"
    reason = getattr(choices[0], "finish_reason", None)
    if reason in STOPPED_EARLY:  # a list of questions cut mid-way parsed as a shorter one, cached as a whole answer
        return None, STOPPED_EARLY[reason]
    return content, None


CUT = "cut_at_max_tokens"
ERROR_BODY = "error_in_body"  # a 200 whose body is an error object; its message follows a colon
# finish reasons of an answer the server stopped before its end: at llm.max_tokens, or by its content filter
STOPPED_EARLY = {"length": CUT, "content_filter": "cut_by_content_filter"}


def _bounded_client() -> Any:
    """An HTTP client whose responses stop at `MAX_ANSWER_BYTES` (`AnswerTooLarge`), as they arrive: the SDK
    reads a body whole, however large."""
    import openai

    try:  # the SDK's HTTP library: httpx2 in the locked openai, httpx in older ones
        import httpx2 as httpx
    except ImportError:
        import httpx

    class Bounded(httpx.SyncByteStream):
        def __init__(self, stream: Any) -> None:
            self._stream = stream

        def __iter__(self) -> Iterator[bytes]:
            read = 0
            try:
                for chunk in self._stream:
                    read += len(chunk)
                    if read > MAX_ANSWER_BYTES:
                        raise AnswerTooLarge(
                            f"the LLM endpoint sent an answer over {MAX_ANSWER_BYTES:,} bytes (not read further, not "
                            "cached; set $LIB_MAX_ANSWER_BYTES to accept one)"
                        )
                    yield chunk
            except (httpx.RemoteProtocolError, httpx.ReadError) as err:  # not a timeout: that is silence
                raise AnswerCut(f"its answer stopped after {read:,} bytes ({first_line(str(err), 120)})") from err

        def close(self) -> None:
            self._stream.close()

    class Compressed(httpx.SyncByteStream):  # counted as it arrives, a gzip body could unpack to gigabytes
        def __init__(self, stream: Any, encoding: str) -> None:
            self._stream, self._encoding = stream, encoding

        def __iter__(self) -> Iterator[bytes]:
            raise AnswerTooLarge(
                f"the LLM endpoint sent its answer compressed (Content-Encoding: {shown(self._encoding, 40)}) "
                "although asked for none: its size cannot be bounded as it arrives, so it is not read"
            )
            yield b""  # pragma: no cover - a generator that raises on its first step

        def close(self) -> None:
            self._stream.close()

    class Transport(httpx.HTTPTransport):
        def handle_request(self, request: Any) -> Any:
            request.headers["Accept-Encoding"] = "identity"  # the bound counts the bytes the answer has
            response = super().handle_request(request)
            encoding = response.headers.get("content-encoding", "").strip().lower()
            response.stream = (
                Bounded(response.stream) if encoding in ("", "identity") else Compressed(response.stream, encoding)
            )
            return response

    class Client(openai.DefaultHttpxClient):
        def __del__(self) -> None:  # as the SDK's own client does: its sockets closed with it, not left to GC
            try:
                self.close()
            except Exception:  # noqa: BLE001 - at interpreter exit the modules it needs may be gone
                pass

    # a redirect is not followed: the prompts went to another host, their answers cached under this endpoint,
    # and a redirect to a dead host was said to be "unreachable" of the endpoint that had answered (`_fatal`)
    return Client(transport=Transport(), follow_redirects=False)


class LLM:
    """The client: `chat(messages)` returns the answer text (cached), or None after repeated failures;
    a wrong key, model or base_url raises at once (`LLMAuthError`, `LLMNotFoundError`,
    `LLMUnreachableError`)."""

    def __init__(
        self,
        settings: LLMSettings,
        cache_path: Path | str | None = None,
        stage: str | None = None,
        cache_setting: str = "llm.cache",
    ):
        self.settings = settings
        path = Path(cache_path or settings.cache)
        # relative: to the project root; `stage`: the pipeline stage the answers are for (its cache only);
        # `cache_setting`: the params key its messages name
        self.cache = AnswerCache(path if path.is_absolute() else ROOT / path, stage, cache_setting)
        self.counters = Counters()
        self._client = None
        self._unreachable = 0  # prompts in a row that failed with connection errors
        self._failing = 0  # prompts in a row that failed after their retries, whatever the cause
        self._said = ""  # the server's words of the last error object it sent with status 200
        self._reached = False  # has the endpoint ever answered (anything, an HTTP error included)?
        if settings.mode == "live":
            self._sdk()  # a missing key, and a key about to go out in clear, are said before any work

    @property
    def enabled(self) -> bool:
        return self.settings.mode != "off"

    def params(self, **overrides: Any) -> dict[str, Any]:
        s = self.settings
        p = {"temperature": s.temperature, "seed": s.seed, "max_tokens": s.max_tokens}
        p.update(overrides)
        return p

    def _key(self) -> str:
        """The key from the variable llm.api_key_env names; NO_KEY when it is null."""
        name = self.settings.api_key_env
        if name is None:
            return NO_KEY
        key = os.environ.get(name)
        if not key:
            raise LLMAuthError(
                f"llm.api_key_env names the environment variable {name}, which is not set (or empty): "
                f"export {name}, or set llm.api_key_env: null for a local server that needs no key"
            )
        if not key.isascii() or not key.isprintable() or key != key.strip() or len(key) < MIN_KEY_CHARS:
            raise LLMAuthError(  # a header cannot carry it: every request failed, blamed on the endpoint
                f"${name} is no usable key (it must be at least {MIN_KEY_CHARS} printable ASCII characters, with "
                f"no space or line break around it): fix the variable llm.api_key_env names"
            )
        return key

    def _sdk(self):
        if self._client is None:
            from openai import OpenAI

            key = self._key()
            client = OpenAI(
                api_key=key,
                base_url=self.settings.base_url,
                timeout=self.settings.timeout,
                max_retries=0,  # retries are ours, so they are counted
                http_client=_bounded_client(),
            )
            if self.settings.api_key_env is not None and _key_in_clear(str(client.base_url)):
                warnings.warn(
                    f"llm.base_url {_shown(str(client.base_url))} is plain http to a host that is not "
                    f"loopback: the key from ${self.settings.api_key_env} will cross the network "
                    "unencrypted; use https",
                    stacklevel=3,
                )
            self._client = client
        return self._client

    @property
    def endpoint(self) -> str:
        """The endpoint as messages show it: no user, password or query string."""
        return self._base_url

    @property
    def _base_url(self) -> str:
        """The endpoint as the messages show it (the SDK's default when llm.base_url is null)."""
        url = str(self._client.base_url) if self._client is not None else self.settings.base_url or "(SDK default)"
        return _shown(url) if "://" in url else url

    def _redact(self, text: str) -> str:
        """A server's message without the key (and anything that looks like one), shortened."""
        name = self.settings.api_key_env
        key = os.environ.get(name) if name else None
        if key:
            text = without_key(text, key)
        text = _SECRETISH.sub("***", " ".join(str(text).split()))
        return text if len(text) <= 200 else text[:199] + "…"

    def missing(self, batch: Iterable[Messages], **overrides: Any) -> list[Messages]:
        p = self.params(**overrides)
        return [m for m in batch if self.cache.get(cache_key(self.settings.model, m, p)) is None]

    def chat(self, messages: Messages, usable: Callable[[str], bool] | None = None, **overrides: Any) -> str | None:
        """The answer to `messages`, from the cache or the endpoint. With `usable` (whether the caller can use an
        answer, e.g. the Ev2R judge's counts), a live run asks again where the cached answer is unusable (the
        new answer is appended, and the latest is the one read); a replay returns what was recorded."""
        if not self.enabled:
            raise LLMError("llm.mode is 'off': no LLM calls (planners that need one are skipped)")
        p = self.params(**overrides)
        key = cache_key(self.settings.model, messages, p)
        hit = self.cache.get(key)
        if hit is not None and (usable is None or self.settings.mode == "replay" or usable(hit)):
            self.counters.cache_hits += 1
            return hit
        if self.settings.mode == "replay":
            raise CacheMiss([messages])
        if hit is not None:
            self._count("asked_again_unusable_cached")
        answer = self._call(messages, p)
        if answer is not None:
            secret = os.environ.get(self.settings.api_key_env) if self.settings.api_key_env else None
            if secret:  # an endpoint that echoes the key (or a part of it): never into the cache
                answer = without_key(answer, secret)
            self.cache.put(key, self.settings.model, p, messages, answer)
            self.counters.answered += 1
        return answer

    def chat_many(
        self,
        batch: Sequence[Messages],
        progress: bool = True,
        desc: str = "llm",
        usable: Callable[[str], bool] | None = None,
        **overrides: Any,
    ) -> list[str | None]:
        """`chat` for each; in replay mode every missing entry is listed in one error before any work."""
        if self.settings.mode == "replay":
            missing = self.missing(batch, **overrides)
            if missing:
                raise CacheMiss(missing)

        return [self.chat(m, usable, **overrides) for m in tqdm(batch, desc=desc, disable=not progress)]

    def _count(self, name: str) -> None:
        self.counters.errors[name] = self.counters.errors.get(name, 0) + 1

    def _fatal(self, err: Any) -> LLMError | None:
        """The error that stops the stage for a status no retry can fix (401, 403, 404), else None."""
        s, code = self.settings, err.status_code
        if code in (401, 403):
            sent = f"the key from ${s.api_key_env}" if s.api_key_env else "no key (llm.api_key_env is null)"
            return LLMAuthError(
                f"{self._base_url} refused {sent} (HTTP {code}, model {shown(s.model, 80)}): fix "
                "llm.api_key_env (the variable it names must hold a valid key with access to llm.model)"
            )
        if 300 <= code < 400:
            # the address as messages show one (no query, no token-like segment) and without the key: a redirect
            # that carried the key in its query put it in the message, and the stage's log
            location = err.response.headers.get("location")
            where = self._redact(_shown(location)) if location else "nowhere named"
            return LLMError(
                f"{self._base_url} answered HTTP {code}, a redirect to {where}, which is not followed (the prompts "
                "would go to another address): fix llm.base_url (the endpoint itself)"
            )
        if code == 404:
            detail = self._redact(getattr(err, "message", ""))
            return LLMNotFoundError(
                f"{self._base_url} answered HTTP 404 for model {shown(s.model, 80)} ({detail}): fix "
                "llm.model (a model this endpoint serves) or llm.base_url (it usually ends in /v1)"
            )
        return None

    def _request(self, messages: Messages, kwargs: Mapping[str, Any]):
        """One request, within `DEADLINE_TIMES` times llm.timeout as a whole. The SDK bounds each connect and
        read by llm.timeout, which an endpoint sending a byte at a time never trips; past the deadline its
        client is closed (a new one serves the next attempt) and `RequestDeadline` raised."""
        client, box = self._sdk(), {}

        def send() -> None:
            try:
                box["resp"] = client.chat.completions.create(model=self.settings.model, messages=messages, **kwargs)
            except BaseException as err:  # noqa: BLE001 (raised again in the caller's thread)
                box["err"] = err

        worker = threading.Thread(target=send, daemon=True, name="llm-request")
        worker.start()
        worker.join(DEADLINE_TIMES * self.settings.timeout)
        if worker.is_alive():
            self._client = None
            client.close()  # ends the worker's next read
            raise RequestDeadline
        if "err" in box:
            raise box["err"]
        return box["resp"]

    def _call(self, messages: Messages, p: Mapping[str, Any]) -> str | None:
        import openai

        s = self.settings
        kwargs = {k: v for k, v in p.items() if v is not None}
        connection_failed = False
        not_retried = None  # the HTTP status no retry can mend (4xx other than 429), when that ended the prompt
        for attempt in range(s.max_retries + 1):
            self.counters.requests += 1
            try:
                resp = self._request(messages, kwargs)
            except RequestDeadline:
                self._count("RequestDeadline")
                connection_failed = True  # trickling counts as silent: toward unreachable
            except openai.APIStatusError as err:
                self._reached = True
                self._count(f"http_{err.status_code}")
                fatal = self._fatal(err)
                if fatal is not None:
                    raise fatal from None  # the SDK's error holds the request and the server's words
                connection_failed = False
                if not (err.status_code == 429 or err.status_code >= 500):
                    not_retried = err.status_code
                    break  # 4xx other than 429: retrying will not help
            except openai.APIConnectionError as err:  # timeouts included
                if isinstance(err.__cause__, AnswerTooLarge):
                    self.counters.failures += 1
                    raise LLMError(f"{self._base_url}: {err.__cause__}") from None
                self._count(type(err).__name__)
                connection_failed = True  # absent, or silent past llm.timeout: both count toward unreachable
                if not self._reached and type(err.__cause__).__name__ == "ConnectError":
                    # refused (or no such host) before the endpoint ever answered: a wrong llm.base_url or a
                    # server not started, which no retry mends; stop now, not after minutes of backoff
                    self.counters.failures += 1
                    raise LLMUnreachableError(
                        f"the LLM endpoint at {self._base_url} is unreachable: the first connection failed "
                        f"({err.__cause__ or err}): fix llm.base_url (or start the server)"
                    ) from None
            except AnswerCut:  # it answered, then closed mid-body (read after the SDK's error handling): retried
                self._reached, connection_failed = True, False
                self._count("answer_cut")
            except AnswerTooLarge as err:  # read after the SDK's own error handling: not wrapped
                self.counters.failures += 1
                raise LLMError(f"{self._base_url}: {err}") from None
            except (ValueError, RecursionError, openai.APIResponseValidationError) as err:  # no JSON, or too deep
                return self._malformed(type(err).__name__)
            else:
                text, problem = _answer_text(resp)
                if problem:
                    return self._malformed(problem)
                self._unreachable, self._failing, self._reached = 0, 0, True
                return text
            if attempt < s.max_retries:
                self.counters.retries += 1
                time.sleep(backoff_wait(s.backoff, attempt))
        self.counters.failures += 1
        self._unreachable = self._unreachable + 1 if connection_failed else 0
        if connection_failed and not self._reached:  # silent from the start (accepts, never answers): no more prompts
            raise LLMUnreachableError(
                f"the LLM endpoint at {self._base_url} is unreachable: the first prompt failed with connection "
                f"errors or timeouts (llm.timeout = {s.timeout:g} s) after {s.max_retries} retries: fix llm.base_url "
                "(or start the server, or raise llm.timeout for a slow one)"
            )
        if self._unreachable >= UNREACHABLE_AFTER:
            raise LLMUnreachableError(
                f"the LLM endpoint at {self._base_url} is unreachable: {self._unreachable} prompts in a row failed "
                f"with connection errors or timeouts (llm.timeout = {s.timeout:g} s) after {s.max_retries} retries "
                "each: fix llm.base_url (or start the server)"
            )
        how = (
            f"failed (the last with HTTP {not_retried}, which is not retried)"
            if not_retried is not None
            else f"failed after {s.max_retries} retries each"
        )
        self._one_more_failing(how, ": rerun when it answers")
        return None

    def _malformed(self, problem: str) -> None:
        """A 200 that is no chat completion: counted, not retried, not cached; an error object's words kept for
        the message that stops the stage."""
        problem, _, said = problem.partition(":")
        if problem == ERROR_BODY:
            self._said = f"; the server said: {self._redact(said)!r}"
        self._count(f"malformed_{problem}")
        self.counters.malformed += 1
        self.counters.failures += 1
        self._unreachable, self._reached = 0, True
        # an endpoint that answers nothing usable, forever, is failing too
        self._one_more_failing("were cut at llm.max_tokens (raise it)" if problem == CUT else "got no usable answer")
        return None

    def _one_more_failing(self, how: str, tail: str = "") -> None:
        """Count one more prompt in a row that failed; `FAILING_AFTER` of them stop the stage."""
        self._failing += 1
        if self._failing >= FAILING_AFTER:
            raise LLMFailingError(
                f"the LLM endpoint at {self._base_url} is failing: {self._failing} prompts in a row {how} "
                f"({self._redact(str(dict(self.counters.errors)))}){self._said}; the answers so far are cached{tail}"
            )

    def report(self) -> dict[str, Any]:
        """Settings (no key) and counters, for the stage reports."""
        s = self.settings.model_dump()
        if s.get("base_url"):
            s["base_url"] = _shown(s["base_url"])  # no query string (a token in it) in a report
        return {
            "settings": s,
            "cache_entries": len(self.cache),
            "cache_lines_rejected": self.cache.rejected,
            "cache_entries_salvaged": self.cache.salvaged,
            **asdict(self.counters),
        }


# --------------------------------------------------------------------------- parsing chatty output

# Both in linear time, whatever the answer (possessive `*+` and a match that starts only where a sentence
# does): `(.+?)\s*$` and `[^.?!\n]*?\?` retried from every position, and 160 KB of words without a full
# stop took two minutes to parse, 8 MiB days, in replay as in live runs. A bare marker's item is "".
_LIST_ITEM = re.compile(
    r"^\s*+(?:[-*•]|\d++[.):]|Q\d*+[.:)]|Question\s*+\d*+\s*+[.:)])(?:\s*+(.*\S)|\s++$)", re.IGNORECASE
)
_QUESTION = re.compile(r"(?:(?<=[.?!\n])|^)[^.?!\n]*\?")
_LABEL = re.compile(r"^(?:next\s+)?(?:question|query|q)\s*\d*\s*[:.)-]\s*", re.IGNORECASE)


def _clean(item: str) -> str:
    """Whitespace collapsed, quotes and a leading 'Next question:' label removed."""
    return _LABEL.sub("", " ".join(item.split()).strip(" \"'"))


JSON_STARTS = 100  # the '[' or '{' at which JSON is looked for, at most: each try may read the rest of the text


def json_values(text: str) -> Iterable[Any]:
    """Every decodable JSON value that starts at one of the first `JSON_STARTS` '[' or '{' of the text, in order
    (an answer of a thousand nested brackets and 500,000 numbers took 14 s, its decoding begun at every one)."""
    decoder = json.JSONDecoder()
    for m in itertools.islice(re.finditer(r"[\[{]", text), JSON_STARTS):
        try:
            value, _ = decoder.raw_decode(text, m.start())
        except (ValueError, RecursionError):  # nested past Python's recursion limit: no list of questions
            continue
        yield value


def _json_questions(value: Any) -> list[str]:
    """The questions a JSON value holds: a list of texts or of objects with a `question`/`query` field, or an
    object with a `questions`/`queries` list or a `question`/`query` text (`{"question": ...}` was kept as the
    query `{"question": ...`)."""
    if isinstance(value, dict):
        listed = next((value[k] for k in ("questions", "queries") if isinstance(value.get(k), list)), None)
        if listed is not None:
            return _json_questions(listed)
        return [value[k] for k in ("question", "query") if isinstance(value.get(k), str)][:1]
    if isinstance(value, list):
        items = [
            v if isinstance(v, str) else (v.get("question") or v.get("query")) if isinstance(v, dict) else None
            for v in value
        ]
        return [i for i in items if isinstance(i, str)]
    return []


def _query(item: str) -> str:
    """An item as a query: `_clean`ed, markdown emphasis removed; empty when it holds no letter or is a heading
    (`1.`, `---`, `**Questions:**` were kept as queries)."""
    text = _clean(item).strip("*_ ")
    return text if any(ch.isalpha() for ch in text) and not text.endswith(":") else ""


def parse_list(text: str | None) -> list[str]:
    """The questions in an answer: the first JSON value that holds some (`_json_questions`), else bulleted or
    numbered lines, else every sentence ending in '?'. Items without a letter and headings are none. Empty
    when none."""
    if not text:
        return []
    for value in itertools.chain(json_values(text), _python_list(text)):
        items = [q for i in _json_questions(value) if (q := _query(i))]
        if items:
            return items
    lines = [m.group(1) or "" for m in map(_LIST_ITEM.match, text.splitlines()) if m]
    if lines:
        return [q for line in lines if (q := _query(line))]
    # a list cut mid-way (`["Who said it?", "When was it sa`): its questions without the list's punctuation
    found = (f.lstrip(" \t,[\"'") for f in _QUESTION.findall(text))
    return [q for f in found if len(f.split()) >= 2 and (q := _query(f))]


PYTHON_LIST_CHARS = 200_000  # the longest list read as a Python literal (`ast.literal_eval` parses it whole)


def _python_list(text: str) -> list[Any]:
    """The answer's list written as Python writes one (`['Who?', 'When?']`, a trailing comma), which JSON
    refuses: the questions were kept with the brackets, quotes and commas around them. [] when there is none."""
    start, end = text.find("["), text.rfind("]")
    if start < 0 or end <= start or end - start > PYTHON_LIST_CHARS:
        return []
    try:
        value = ast.literal_eval(text[start : end + 1])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return []
    return [value] if isinstance(value, list) else []


def first_question(text: str | None) -> str | None:
    """The first question in an answer (Papelo's parsing of a next-question reply), or None."""
    qs = [q for q in parse_list(text) if q.endswith("?")] or parse_list(text)
    return qs[0] if qs else None
