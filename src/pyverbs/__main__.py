# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""python -m pyverbs: the command line tools (see pyverbs.cli)."""
import sys

from pyverbs.cli import main

sys.exit(main())
