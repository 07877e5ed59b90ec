"""`python -m lib.data verify [DATA_DIR]` and `python -m lib.data remote-check [REPO_ROOT]`."""

import sys

from lib.data.checksums import main

sys.exit(main())
