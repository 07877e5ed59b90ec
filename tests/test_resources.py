import pytest

from lib.resources import LEXNAMES, build_punkt, lexnames_text, use_nltk_data


def test_lexnames_is_wordnets_table_of_45_files():
    lines = lexnames_text().splitlines()
    assert len(lines) == len(LEXNAMES) == 45
    assert lines[0] == "00\tadj.all\t3"
    assert lines[3] == "03\tnoun.Tops\t1"
    assert lines[29] == "29\tverb.body\t2"
    assert lines[44] == "44\tadj.ppl\t3"


def test_meteor_matches_the_reference_value():
    use_nltk_data()
    from nltk.translate.meteor_score import meteor_score

    assert meteor_score([["the", "cat", "sat"]], ["the", "cat", "sat", "down"]) == pytest.approx(0.9498207885304659, abs=1e-12)


def test_word_tokenize_uses_the_offline_punkt_tables():
    use_nltk_data()
    from nltk.tokenize import sent_tokenize, word_tokenize

    assert word_tokenize("Mr. Smith paid $5.50. He left.") == ["Mr.", "Smith", "paid", "$", "5.50", ".", "He", "left", "."]
    assert len(sent_tokenize("Dr. Who met Mr. Smith in the U.S. yesterday. They talked.")) == 2


def test_build_punkt_writes_nltks_four_tables(tmp_path):
    out = build_punkt(tmp_path)
    assert sorted(p.name for p in out.iterdir()) == ["abbrev_types.txt", "collocations.tab", "ortho_context.tab",
                                                     "sent_starters.txt"]
    assert "mr" in (out / "abbrev_types.txt").read_text().split("\n")
