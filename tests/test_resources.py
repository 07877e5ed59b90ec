from pathlib import Path

import pytest

from lib.resources import LEXNAMES, build_punkt, lexnames_text, main, use_nltk_data


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

    assert meteor_score([["the", "cat", "sat"]], ["the", "cat", "sat", "down"]) == pytest.approx(
        0.9498207885304659, abs=1e-12
    )


def test_word_tokenize_uses_the_offline_punkt_tables():
    use_nltk_data()
    from nltk.tokenize import sent_tokenize, word_tokenize

    assert word_tokenize("Mr. Smith paid $5.50. He left.") == [
        "Mr.",
        "Smith",
        "paid",
        "$",
        "5.50",
        ".",
        "He",
        "left",
        ".",
    ]
    assert len(sent_tokenize("Dr. Who met Mr. Smith in the U.S. yesterday. They talked.")) == 2


def test_build_punkt_writes_nltks_four_tables(tmp_path):
    out = build_punkt(tmp_path)
    assert sorted(p.name for p in out.iterdir()) == [
        "abbrev_types.txt",
        "collocations.tab",
        "ortho_context.tab",
        "sent_starters.txt",
    ]
    assert "mr" in (out / "abbrev_types.txt").read_text().split("\n")


def test_plain_import_nltk_finds_the_data_in_this_environment(tmp_path):
    """A user's script or a notebook kernel in the project's environment: no `use_nltk_data()` first."""
    import os
    import subprocess
    import sys

    script = (
        "import sys, nltk\n"
        "from nltk.corpus import wordnet\n"
        "from nltk.tokenize import word_tokenize\n"
        "assert wordnet.synsets('dog') and word_tokenize('Mr. Smith left.') == ['Mr.', 'Smith', 'left', '.']\n"
        "print(nltk.data.find('corpora/wordnet'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NLTK_DATA"}
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().startswith(str(Path(sys.prefix) / "share" / "nltk_data"))


def test_a_missing_resource_names_make_nltk(tmp_path, monkeypatch):
    import nltk

    monkeypatch.setattr(nltk.data, "path", [])
    with pytest.raises(LookupError, match=r"'corpora/wordnet' not found .*run `make nltk`") as err:
        use_nltk_data(tmp_path)
    assert "nltk.download" not in str(err.value)


def test_build_wordnet_without_debians_files_names_make_nltk(tmp_path):
    from lib.resources import build_wordnet

    with pytest.raises(FileNotFoundError, match="make nltk") as err:
        build_wordnet(tmp_path / "out", source=tmp_path / "no-wordnet")
    assert "nltk.download" not in str(err.value)


@pytest.mark.parametrize("argv", [["--bogus"], ["extra"]])
def test_the_build_takes_no_arguments(argv, capsys):
    """`--bogus` and `--help` were ignored: the build ran and exited 0."""
    with pytest.raises(SystemExit) as end:
        main(argv)
    assert end.value.code == 2 and "unrecognized arguments" in capsys.readouterr().err
