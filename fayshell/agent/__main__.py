"""``python -m fayshell.agent [--cache DIR]``: run the node agent on stdin/stdout."""

import sys

from fayshell.agent.server import main

sys.exit(main())
