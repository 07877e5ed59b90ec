"""An OpenAI-compatible chat client with an on-disk answer cache, for the prompted planners.

Any endpoint that speaks the OpenAI chat API works (OpenAI, vLLM, llama.cpp's server, Ollama): base_url,
model, temperature, seed and max_tokens come from the `llm` params section; the API key comes from the
environment variable named by `api_key_env` only, and is never written anywhere.

Every answer is appended to a JSONL cache (a DVC output) under a key computed from the model id, the
messages and the generation parameters, so a rerun is deterministic, free and offline. Each entry is one
`os.write` of one line under an exclusive lock; a line cut short by a killed run is dropped (and
counted) the next time the cache is opened, so the file never stays corrupt.

Modes (`llm.mode`):
- `off`: no calls; planners that need an LLM are skipped (`LLM.enabled` is False) and the notebooks say so.
- `replay`: cache only; a missing entry is an error listing what is missing (`CacheMiss`).
- `live`: call the endpoint for what the cache lacks, then cache it.

Rate limits (429), server errors (5xx), timeouts and connection errors are retried with exponential
backoff; an answer that still fails is counted and returned as None (the caller's plan falls back). The
parsers (`parse_list`, `first_question`) survive chatty output, as Papelo's did: they take the first
JSON list, or else the numbered/question lines, or the first question.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from lib.config import OUTPUTS_DIR, ROOT

MODES = ("off", "replay", "live")
CACHE_FILE = OUTPUTS_DIR / "llm" / "cache.jsonl"
Messages = list[dict[str, str]]


class LLMError(RuntimeError):
    """A problem with the LLM settings or the endpoint."""


class CacheMiss(LLMError):
    """Replay mode asked for answers the cache does not hold."""

    def __init__(self, missing: Sequence[Messages]):
        self.missing = list(missing)
        shown = "\n".join(f"  - {_preview(m)}" for m in self.missing[:10])
        more = f"\n  ... and {len(self.missing) - 10} more" if len(self.missing) > 10 else ""
        super().__init__(f"llm.mode is 'replay' but {len(self.missing)} answer(s) are not in the cache:\n{shown}{more}\n"
                         "run once with llm.mode: live against an endpoint (or pull the cache with `dvc pull`)")


def _preview(messages: Messages, width: int = 100) -> str:
    text = " | ".join(m.get("content", "") for m in messages if m.get("role") != "system")
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


@dataclass
class LLMSettings:
    """The `llm` params section. No key here: `api_key_env` names the environment variable holding it."""

    mode: str = "off"
    base_url: str | None = None       # None: the SDK's default (api.openai.com); e.g. http://localhost:8000/v1
    model: str = "gpt-3.5-turbo"
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int = 256
    timeout: float = 60.0             # seconds per request
    max_retries: int = 5              # retries after the first attempt (429, 5xx, timeouts, connection errors)
    backoff: float = 1.0              # first wait in seconds; doubles with every retry
    api_key_env: str = "OPENAI_API_KEY"
    cache: str = str(CACHE_FILE.relative_to(OUTPUTS_DIR.parent))

    @classmethod
    def from_params(cls, p: Mapping[str, Any] | None) -> "LLMSettings":
        p = dict(p or {})
        if "api_key" in p or any("key" in k and k != "api_key_env" for k in p):
            raise ValueError("params llm: API keys never go in params; set the variable named by llm.api_key_env")
        unknown = sorted(set(p) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"params llm: unknown keys {unknown} (expected some of {sorted(cls.__dataclass_fields__)})")
        s = cls(**p)
        if s.mode not in MODES:
            raise ValueError(f"params llm.mode: {s.mode!r} is not one of {MODES}")
        return s


def cache_key(model: str, messages: Messages, params: Mapping[str, Any]) -> str:
    """sha256 of the model id, the messages and the generation parameters (canonical JSON)."""
    blob = json.dumps({"model": model, "messages": messages, "params": dict(params)},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _entry(line: bytes) -> dict | None:
    """A complete cache line as a dict, or None (cut short, not JSON, or not an entry)."""
    if not line.endswith(b"\n"):
        return None
    try:
        rec = json.loads(line)
    except ValueError:
        return None
    return rec if isinstance(rec, dict) and "key" in rec and isinstance(rec.get("answer"), str) else None


class AnswerCache:
    """The JSONL answer cache: `{"key", "model", "params", "messages", "answer"}` per line."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.entries: dict[str, str] = {}
        self.dropped = 0  # lines cut short by a killed run, removed on open
        self._load()

    def _load(self) -> None:
        if not self.path.exists():
            return
        with open(self.path, "r+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                raw = f.read()
                good = []
                for line in raw.splitlines(keepends=True):
                    rec = _entry(line)
                    if rec is None:
                        self.dropped += 1
                        continue
                    good.append(line)
                    self.entries[rec["key"]] = rec["answer"]
                if self.dropped:  # a line cut short by a killed run: keep the clean ones, atomically
                    tmp = self.path.with_name(self.path.name + ".tmp")
                    tmp.write_bytes(b"".join(good))
                    os.replace(tmp, self.path)
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def get(self, key: str) -> str | None:
        return self.entries.get(key)

    def put(self, key: str, model: str, params: Mapping[str, Any], messages: Messages, answer: str) -> None:
        """Append one entry: one write of one line, under an exclusive lock, flushed to disk."""
        line = json.dumps({"key": key, "model": model, "params": dict(params), "messages": messages,
                           "answer": answer}, ensure_ascii=False, sort_keys=True).encode("utf-8") + b"\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        self.entries[key] = answer

    def __len__(self) -> int:
        return len(self.entries)


@dataclass
class Counters:
    """What happened in a session: reported by the stages and notebook 06."""

    requests: int = 0        # HTTP requests sent (retries included)
    cache_hits: int = 0
    answered: int = 0        # new answers from the endpoint
    retries: int = 0
    failures: int = 0        # answers given up on after the retries
    parse_failures: int = 0  # answers the parsers could not use (counted by the callers)
    errors: dict[str, int] = field(default_factory=dict)


class LLM:
    """The client: `chat(messages)` returns the answer text (cached), or None after repeated failures."""

    def __init__(self, settings: LLMSettings, cache_path: Path | str | None = None):
        self.settings = settings
        path = Path(cache_path or settings.cache)
        self.cache = AnswerCache(path if path.is_absolute() else ROOT / path)  # relative: to the project root
        self.counters = Counters()
        self._client = None

    @property
    def enabled(self) -> bool:
        return self.settings.mode != "off"

    def params(self, **overrides: Any) -> dict[str, Any]:
        s = self.settings
        p = {"temperature": s.temperature, "seed": s.seed, "max_tokens": s.max_tokens}
        p.update(overrides)
        return p

    def _sdk(self):
        if self._client is None:
            from openai import OpenAI

            key = os.environ.get(self.settings.api_key_env) or "not-needed"  # local servers take any key
            self._client = OpenAI(api_key=key, base_url=self.settings.base_url, timeout=self.settings.timeout,
                                  max_retries=0)  # retries are ours, so they are counted
        return self._client

    def missing(self, batch: Iterable[Messages], **overrides: Any) -> list[Messages]:
        p = self.params(**overrides)
        return [m for m in batch if self.cache.get(cache_key(self.settings.model, m, p)) is None]

    def chat(self, messages: Messages, **overrides: Any) -> str | None:
        if not self.enabled:
            raise LLMError("llm.mode is 'off': no LLM calls (planners that need one are skipped)")
        p = self.params(**overrides)
        key = cache_key(self.settings.model, messages, p)
        hit = self.cache.get(key)
        if hit is not None:
            self.counters.cache_hits += 1
            return hit
        if self.settings.mode == "replay":
            raise CacheMiss([messages])
        answer = self._call(messages, p)
        if answer is not None:
            self.cache.put(key, self.settings.model, p, messages, answer)
            self.counters.answered += 1
        return answer

    def chat_many(self, batch: Sequence[Messages], progress: bool = True, desc: str = "llm", **overrides: Any
                  ) -> list[str | None]:
        """`chat` for each; in replay mode every missing entry is listed in one error before any work."""
        if self.settings.mode == "replay":
            missing = self.missing(batch, **overrides)
            if missing:
                raise CacheMiss(missing)
        from tqdm import tqdm

        return [self.chat(m, **overrides) for m in tqdm(batch, desc=desc, disable=not progress)]

    def _call(self, messages: Messages, p: Mapping[str, Any]) -> str | None:
        import openai

        retryable = (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError,
                     openai.InternalServerError)
        s = self.settings
        for attempt in range(s.max_retries + 1):
            self.counters.requests += 1
            try:
                kwargs = {k: v for k, v in p.items() if v is not None}
                resp = self._sdk().chat.completions.create(model=s.model, messages=messages, **kwargs)
                return resp.choices[0].message.content or ""
            except openai.APIStatusError as err:
                name = f"http_{err.status_code}"
                self.counters.errors[name] = self.counters.errors.get(name, 0) + 1
                if not (isinstance(err, retryable) or err.status_code >= 500):
                    break  # 4xx other than 429: retrying will not help
            except retryable as err:
                name = type(err).__name__
                self.counters.errors[name] = self.counters.errors.get(name, 0) + 1
            if attempt < s.max_retries:
                self.counters.retries += 1
                time.sleep(s.backoff * 2 ** attempt)
        self.counters.failures += 1
        return None

    def report(self) -> dict[str, Any]:
        """Settings (no key) and counters, for the stage reports."""
        s = asdict(self.settings)
        return {"settings": s, "cache_entries": len(self.cache), "cache_lines_dropped": self.cache.dropped,
                **asdict(self.counters)}


# --------------------------------------------------------------------------- parsing chatty output

_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.):]|Q\d*[.:)]|Question\s*\d*\s*[.:)])\s*(.+?)\s*$", re.IGNORECASE)
_QUESTION = re.compile(r"[^.?!\n]*?\?")
_LABEL = re.compile(r"^(?:next\s+)?(?:question|query|q)\s*\d*\s*[:.)-]\s*", re.IGNORECASE)


def _clean(item: str) -> str:
    """Whitespace collapsed, quotes and a leading 'Next question:' label removed."""
    return _LABEL.sub("", " ".join(item.split()).strip(" \"'"))


def _json_lists(text: str) -> Iterable[Any]:
    """Every decodable JSON value that starts at a '[' in the text, in order."""
    decoder = json.JSONDecoder()
    for m in re.finditer(r"\[", text):
        try:
            value, _ = decoder.raw_decode(text, m.start())
        except ValueError:
            continue
        yield value


def parse_list(text: str | None) -> list[str]:
    """The questions in an answer: the first JSON list of strings (objects: their 'question'/'query'
    field), else bulleted or numbered lines, else every sentence ending in '?'. Empty when none."""
    if not text:
        return []
    for value in _json_lists(text):
        if isinstance(value, list):
            items = [v if isinstance(v, str) else (v.get("question") or v.get("query")) if isinstance(v, dict) else None
                     for v in value]
            items = [_clean(i) for i in items if isinstance(i, str) and _clean(i)]
            if items:
                return items
    lines = [m.group(1) for m in map(_LIST_ITEM.match, text.splitlines()) if m]
    if lines:
        return [_clean(line) for line in lines if _clean(line)]
    return [_clean(q) for q in _QUESTION.findall(text) if len(q.split()) >= 2]


def first_question(text: str | None) -> str | None:
    """The first question in an answer (Papelo's parsing of a next-question reply), or None."""
    qs = [q for q in parse_list(text) if q.endswith("?")] or parse_list(text)
    return qs[0] if qs else None
