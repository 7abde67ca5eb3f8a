"""Columns of a view and how a DataTable is refilled without losing the user's place."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist, RowDoesNotExist


@dataclass(frozen=True)
class Col:
    """One column: the row attribute it shows (and sorts by), its label and formatter."""

    attr: str
    label: str
    fmt: Callable[[Any], str] = str
    numeric: bool = False
    width: int | None = None

    def cell(self, row: Any) -> Text:
        value = getattr(row, self.attr)
        text = "" if value is None else self.fmt(value)
        return Text(text, justify="right" if self.numeric else "left", no_wrap=True)

    def heading(self, sort: str, descending: bool) -> Text:
        mark = (" ▼" if descending else " ▲") if sort == self.attr else ""
        return Text(
            self.label + mark,
            justify="right" if self.numeric else "left",
            style="bold reverse" if mark else "bold",
        )


def fill(
    table: DataTable[Any],
    cols: Sequence[Col],
    rows: Sequence[Any],
    *,
    key: Callable[[Any], str],
    sort: str,
    descending: bool,
    style: Callable[[Any], str] | None = None,
) -> None:
    """Replace the table's columns and rows, keeping the cursor on the same row key.

    Column widths are measured here rather than left to the table's idle-time measuring, so a
    refilled table never shows a frame with columns cut to their headings.
    """
    keep = current_key(table)
    old_row = table.cursor_row
    headings = [col.heading(sort, descending) for col in cols]
    grid = [[col.cell(row) for col in cols] for row in rows]
    table.clear(columns=True)
    for i, (col, heading) in enumerate(zip(cols, headings, strict=True)):
        width = col.width or max([heading.cell_len, *(cells[i].cell_len for cells in grid)])
        table.add_column(heading, key=col.attr, width=width)
    for row, cells in zip(rows, grid, strict=True):
        if style is not None:
            for cell in cells:
                cell.stylize(style(row))
        table.add_row(*cells, key=key(row))
    if not rows:
        return
    target = min(max(old_row, 0), len(rows) - 1)
    if keep is not None:
        with suppress(RowDoesNotExist):  # a row that is gone: stay at the same position
            target = table.get_row_index(keep)
    table.move_cursor(row=target, animate=False)


def current_key(table: DataTable[Any]) -> str | None:
    """The key of the row under the cursor, or None for an empty table."""
    if table.row_count == 0:
        return None
    try:
        cell_key = table.coordinate_to_cell_key(table.cursor_coordinate)
    except CellDoesNotExist:
        return None
    return cell_key.row_key.value
