"""``python -m fayshell.commands``: write the command index (fayshell/commands/_index.py)."""

from pathlib import Path

from fayshell.commands import INDEX_FILE, index_source

Path(__file__).with_name(INDEX_FILE).write_text(index_source(), encoding="utf-8")
