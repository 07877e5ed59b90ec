"""`python -m lib.data verify [DATA_DIR]` and `python -m lib.data remote-check [REPO_ROOT]`."""

from lib.cli import run_main
from lib.data.checksums import main

run_main(main)
