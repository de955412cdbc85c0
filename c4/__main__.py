"""``python -m c4``: the same as the ``c4`` console script."""

import sys

from c4.main import main

sys.exit(main())
