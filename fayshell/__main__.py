"""``python -m fayshell`` runs the same entry point as the ``fayshell`` command."""

from fayshell.cli import main

raise SystemExit(main())
