"""lib.store.passages: a knowledge store's pages as sentence or chunk passages, with their URL, line and position."""

import pandas as pd
import pytest

from lib.data import knowledge_store as KS
from lib.store import passages as PS


def page(sentences, claim_id=1):
    return KS.Page(claim_id, "https://x.example/p", tuple(sentences), 4)


def test_sentence_passages_keep_url_line_and_position():
    rows = PS.page_passages(page(["  One  two three. ", "", "Four five."]))
    assert rows == [
        (1, "https://x.example/p", 4, 0, "One two three.", "", ""),
        (1, "https://x.example/p", 4, 1, "Four five.", "", ""),
    ]


def test_chunks_join_whole_sentences_and_carry_their_neighbours():
    s = PS.PassageSettings(unit="chunk", chunk_chars=6, context_chars=3)
    rows = PS.page_passages(page(["aaaa", "bb", "cccccc", "d"]), s)
    assert [(r[3], r[4], r[5], r[6]) for r in rows] == [
        (0, "aaaa bb", "", "ccc"),
        (1, "cccccc", " bb", "d"),
        (2, "d", "ccc", ""),
    ]
    no_context = PS.page_passages(
        page(["aaaa", "bb"]), PS.PassageSettings(unit="chunk", chunk_chars=100, context_chars=0)
    )
    assert [(r[4], r[5], r[6]) for r in no_context] == [("aaaa bb", "", "")]


@pytest.mark.parametrize(("kwargs", "match"), [({"unit": "page"}, "unit"), ({"chunk_chars": 0}, "chunk_chars")])
def test_passage_settings_are_checked(kwargs, match):
    with pytest.raises(ValueError, match=match):
        PS.PassageSettings(**kwargs)


def test_indexed_texts_put_a_chunk_between_its_context():
    rows = PS.page_passages(
        page(["aaaa", "bb", "cccccc", "d"]), PS.PassageSettings(unit="chunk", chunk_chars=6, context_chars=3)
    )
    frame = pd.DataFrame(rows, columns=PS.PASSAGE_COLUMNS)
    assert PS.indexed_texts(frame) == ["aaaa bb ccc", "bb cccccc d", "ccc d"]
