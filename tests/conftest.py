"""Shared fixtures: the tiny hand-made dataset in tests/fixtures/data and a store built from it."""
from __future__ import annotations

from pathlib import Path

import pytest

from lib.store import Store, StoreSettings, build_store

FIXTURE_DATA = Path(__file__).parent / "fixtures" / "data"
REAL_DATA = Path(__file__).resolve().parent.parent / "data"


def fixture_settings(**overrides) -> StoreSettings:
    base = dict(systems={"sys_a": "sys_a.jsonl", "sys_b": "sys_b.json"}, include_gold=True,
                distractor_splits=("train", "test"), min_words=3,
                news_sites_with_fact_check_section=("washingtonpost.com",), extra_fact_check_domains=())
    return StoreSettings(**{**base, **overrides})


@pytest.fixture(scope="session")
def fixture_data() -> Path:
    return FIXTURE_DATA


@pytest.fixture(scope="session")
def tiny_store() -> Store:
    return build_store(fixture_settings(), FIXTURE_DATA)


@pytest.fixture(scope="session")
def real_data() -> Path:
    """The real data pulled by `make data`; the test command pulls it, so these tests always run."""
    if not (REAL_DATA / "SHA256SUMS").exists():
        pytest.fail("data/ is missing: run `make data` (the README's test command does)")
    return REAL_DATA
