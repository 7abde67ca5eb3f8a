"""Records -> text: aligned tables and lists, JSON, CSV. No rich here (it is imported lazily by
the console front end only when output goes to a terminal).

Display, not storage: in tables and lists (and Out-String) a timestamp column -- ``ts``,
``ts_<x>`` or ``<x>_ts`` holding epoch nanoseconds, as every table of the store does -- shows as
a UTC datetime with nanoseconds (``2016-03-04 17:46:23.123456789``), and trace and span ids
(``trace_id``, ``span_id``, ``parent_span_id``) as 16 hex digits as Zipkin and Jaeger show them.
The values stay the raw integers: ``$_.ts``, SQL, ``-gt`` comparisons, JSON and CSV all see the
number (``Select-Object @{n='ts_ns'; e={ $_.ts }}`` shows it in a table).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from fayshell.lang.classes import ClassInstance
from fayshell.lang.integers import SizedInt
from fayshell.lang.preferences import FORMAT_ENUMERATION_LIMIT
from fayshell.lang.single import Single
from fayshell.lang.values import (
    NUMBERS,
    DictionaryEntry,
    Duration,
    Hashtable,
    KeyedTable,
    PSCustomObject,
    ScriptBlock,
    Size,
    TimeSpan,
)
from fayshell.records import as_dict, is_record, property_names

MAX_CELL = 60
#: Integers from here on in a timestamp column are epoch nanoseconds (1973-03-03 onwards).
EPOCH_NS_FROM = 10**17
ID_COLUMNS = frozenset({"trace_id", "span_id", "parent_span_id", "parent_id"})
ID_MASK = (1 << 64) - 1
UNIT_SUFFIXES = ("_ns", "_us", "_ms", "_s")
#: A [pscustomobject] with this many properties shows as a list (PowerShell's default view).
LIST_FROM = 5
#: PowerShell's hashtable view: the Name column is 30 characters wide (DotNetTypes.format.ps1xml).
HASHTABLE_NAME_WIDTH = 30


@dataclass
class OutputSettings:
    """What the shell's preference variables ask of the formatting of its output, as they
    are now (the interpreter keeps them up to date)."""

    #: $FormatEnumerationLimit: a collection in a table or list cell shows this many items,
    #: then "…" (all of them when it is negative).
    enumeration_limit: int = FORMAT_ENUMERATION_LIMIT
    #: $PSStyle.OutputRendering: Host (ANSI sequences reach a terminal only), PlainText
    #: (never), Ansi (always).
    rendering: str = "Host"

    def keeps_ansi(self, terminal: bool) -> bool:
        """Do ANSI escape sequences in text reach this output?"""
        return self.rendering == "Ansi" or (terminal and self.rendering == "Host")


#: The running shell's output settings: its interpreter installs them where the shell runs,
#: so every task it starts (and the console writing their output) shares them.
OUTPUT: ContextVar[OutputSettings] = ContextVar("output_settings")


def output_settings() -> OutputSettings:
    """The running shell's output settings (the defaults when no shell runs here)."""
    return OUTPUT.get(None) or OutputSettings()


#: The kind of a run of objects whose type lays out its own lines: a static ``block_lines(run)``
#: returning them, blank lines around included (Format-Hex's ByteCollection), or a
#: ``TABLE_VIEW`` (a FixedTable) that its objects' ``view_cells()`` fill (see view_lines).
VIEW = "view:"

#: How Format-Table / Format-List output is laid out.
FormatKind = Literal["table", "list"]


@dataclass
class Formatted:
    """The output of Format-Table / Format-List: records already shaped for display."""

    kind: FormatKind
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    #: -GroupBy: the rows in runs, each under its label ("   Name: value"), else None.
    groups: list[tuple[str, list[list[Any]]]] | None = None
    #: Calculated columns' Width (0: as wide as the values) and Alignment (None: numbers
    #: right, text left), when one of them has one.
    widths: list[int] | None = None
    aligns: list[str | None] | None = None
    #: A type's own view, already laid out (Format-Table of files, processes ...), else None.
    lines: list[str] | None = None


@dataclass(frozen=True)
class FixedTable:
    """A table view of fixed column widths (PowerShell's format views): labels, widths (0:
    the rest of the line) and right alignment per column."""

    labels: tuple[str, ...]
    widths: tuple[int, ...]
    right: tuple[bool, ...]

    def header(self) -> list[str]:
        return [self.row(list(self.labels)), self.row(["-" * len(x) for x in self.labels])]

    def row(self, cells: list[str]) -> str:
        """One line: a cell longer than its column is cut with an ellipsis, on the left in a
        right-aligned column (a number keeps its last digits), as PowerShell cuts it."""
        out = []
        for text, label, width, right in zip(
            cells, self.labels, self.widths, self.right, strict=True
        ):
            if width and len(text) > width:
                text = "…" + text[1 - width :] if right else text[: width - 1] + "…"
            size = width or (len(label) if right else 0)  # the last column: its label's width
            out.append(text.rjust(size) if right else text.ljust(size))
        return " ".join(out).rstrip()


def fixed_lines(view: FixedTable, rows: list[list[str]]) -> list[str]:
    """A fixed-width view's table: header, dashes, one line per row, a blank line around."""
    return ["", *view.header(), *(view.row(r) for r in rows), ""]


def has_view(item: Any) -> bool:
    """Does ``item``'s type lay out its own lines (``block_lines`` or ``TABLE_VIEW``)?"""
    kind = type(item)
    return callable(getattr(kind, "block_lines", None)) or isinstance(
        getattr(kind, "TABLE_VIEW", None), FixedTable
    )


def view_lines(run: list[Any]) -> list[str]:
    """The lines of objects of one type that has_view: its ``block_lines``, else its
    ``TABLE_VIEW`` filled with each object's ``view_cells()``."""
    kind = type(run[0])
    own = getattr(kind, "block_lines", None)
    if callable(own):
        lines: list[str] = own(run)
        return lines
    return fixed_lines(kind.TABLE_VIEW, [item.view_cells() for item in run])


def format_value(value: Any) -> str:
    """One cell: $null blank, floats without noise, arrays as ``{a, b}``, tables as ``@{k=v}``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (Duration, Size)):
        return str(value)
    if isinstance(value, Single):  # a [float] as PowerShell writes one (7 digits)
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.3f}".rstrip("0").rstrip(".") if abs(value) >= 1e-3 else f"{value:.3g}"
    if isinstance(value, ScriptBlock):
        return str(value)
    if isinstance(value, Decimal):  # every digit, as PowerShell shows a [decimal]
        return format(value, "f")
    if isinstance(value, (list, tuple)):
        return "{" + ", ".join(format_value(v) for v in value) + "}"
    if isinstance(value, ClassInstance):  # its ToString() (else its class's name), as .NET's
        return str(value)
    own_text = type(value).__str__ is not object.__str__ and not isinstance(value, Mapping)
    if own_text and (dataclasses.is_dataclass(value) or is_record(value)):
        return str(value)  # a value type ([version], a StringBuilder) reads as its ToString()
    if isinstance(value, KeyedTable):
        return "{" + ", ".join(format_value(k) for k in value) + "}"
    if isinstance(value, Hashtable):  # its entries, as PowerShell 7 lists a dictionary's
        return "{" + ", ".join(f"[{k}, {format_value(v)}]" for k, v in value.items()) + "}"
    if is_record(value):
        return "@{" + "; ".join(f"{k}={format_value(v)}" for k, v in as_dict(value).items()) + "}"
    return str(value)


def is_time_column(name: str) -> bool:
    """``ts``, ``ts_entry``, ``first_ts`` ... but not durations like ``ts_ns`` or ``dur_ms``."""
    low = name.lower()
    return (low == "ts" or low.startswith("ts_") or low.endswith("_ts")) and not low.endswith(
        UNIT_SUFFIXES
    )


def format_epoch_ns(ns: int) -> str:
    """``2016-03-04 17:46:23.123456789`` (UTC) for nanoseconds since the epoch."""
    secs, frac = divmod(ns, 1_000_000_000)
    when = dt.datetime.fromtimestamp(secs, dt.UTC)
    return f"{when:%Y-%m-%d %H:%M:%S}.{frac:09d}"


def format_cell(column: str, value: Any) -> str:
    """One table or list cell: like :func:`format_value`, with timestamps and ids readable."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value >= EPOCH_NS_FROM and is_time_column(column):
            return format_epoch_ns(value)
        if column.lower() in ID_COLUMNS:
            return f"{value & ID_MASK:016x}"
    if isinstance(value, dt.datetime):
        return _short_date(value)
    if type(value) is float:
        return _scalar_line(value)  # a double in full, as PowerShell shows it in a table too
    limit = output_settings().enumeration_limit
    if isinstance(value, (list, tuple)) and len(value) > limit >= 0:
        shown = ", ".join(format_value(v) for v in value[:limit])
        return "{" + shown + "…}"
    return format_value(value)


def _short_date(value: dt.datetime) -> str:
    """A shell date (``Get-Date``) in a cell as PowerShell shows it, the short "G" form
    (``1/15/2024 1:05:00 PM``); a datetime from the store keeps its ISO form and precision."""
    from fayshell.lang.dates import DateTime, format_date

    return format_date(value, "G") if isinstance(value, DateTime) else value.isoformat(sep=" ")


def is_rigid(values: list[Any]) -> bool:
    """A column whose cells must never be cut: numbers, timestamps, ids."""
    present = [v for v in values if v is not None]
    return bool(present) and all(_is_number(v) or isinstance(v, dt.datetime) for v in present)


def fit_widths(natural: list[int], rigid: list[bool], room: int) -> list[int]:
    """Column widths within ``room`` characters of cells: rigid columns keep their width, text
    columns are capped (widest first, never under 4) until the row fits; the result stays
    wider than ``room`` when the rigid columns alone do not fit."""
    free = room - sum(w for w, r in zip(natural, rigid, strict=True) if r)
    text = [w for w, r in zip(natural, rigid, strict=True) if not r]
    cap = max(text, default=0)
    while cap > 4 and sum(min(w, cap) for w in text) > free:
        cap -= 1
    return [w if r else min(w, cap) for w, r in zip(natural, rigid, strict=True)]


def table_shape(items: list[Any]) -> tuple[list[str], list[list[Any]]]:
    """Columns from the first record's properties (as PowerShell does) and one row per record.

    Hashtables (``@{}`` literals) show as PowerShell shows them: one Name/Value row per key."""
    if isinstance(items[0], (Hashtable, DictionaryEntry)):
        return ["Name", "Value"], [
            [k, v]
            for item in items
            for k, v in (item.items() if isinstance(item, Hashtable) else [(item.Name, item.Value)])
        ]
    columns = property_names(items[0])
    rows = [[as_dict(item).get(c) for c in columns] for item in items]
    return columns, rows


def groups(items: Iterable[Any]) -> list[tuple[str, list[Any]]]:
    """Split output into runs of records of one shape, scalars and Formatted blocks.

    As PowerShell's Out-Default does, the first [pscustomobject] of a run decides its shape:
    the ones after it join its table (with its columns) whatever their properties."""
    out: list[tuple[str, list[Any]]] = []
    for item in _flat(items):
        if isinstance(item, Formatted):
            out.append(("formatted", [item]))
            continue
        kind = "records:" + ",".join(property_names(item)) if is_record(item) else "scalar"
        if isinstance(item, (Hashtable, DictionaryEntry)):  # PowerShell's DictionaryEntry view
            kind = "hashtable"
        elif isinstance(item, PSCustomObject):
            kind = "pscustomobject"
        elif _is_shell_date(item):
            kind = "date"  # PowerShell's DateTime view: a block with a blank line around it
        elif isinstance(item, TimeSpan):
            kind = "timespan"  # PowerShell's view of a TimeSpan: its properties as a list
        elif has_view(item):
            kind = VIEW + type(item).__name__  # a type that lays out its own lines
        if out and out[-1][0] == kind:
            out[-1][1].append(item)
        else:
            out.append((kind, [item]))
    return out


def _flat(items: Iterable[Any]) -> Iterable[Any]:
    """Output items with nested arrays enumerated and $null left out, as PowerShell's formatter
    shows them."""
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from _flat(item)
        elif item is not None:
            yield item


def plain_table(
    columns: list[str],
    rows: list[list[Any]],
    widths: list[int] | None = None,
    left: bool = False,
    aligns: list[str | None] | None = None,
) -> str:
    """Header, a rule of dashes under each header (as long as the header, as PowerShell 7
    draws it), one line per row; numbers right-aligned, text left, $null blank. ``widths``
    fixes column widths (longer cells end in ``…``); ``left`` aligns every column left;
    ``aligns`` says left, right or center for a column (None: as the rule above)."""
    cells = [[_clip(format_cell(c, v)) for c, v in zip(columns, row, strict=True)] for row in rows]
    natural = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    widths = natural if widths is None else [w or n for w, n in zip(widths, natural, strict=True)]
    cells = [[_cut(v, w) for v, w in zip(r, widths, strict=True)] for r in cells]
    numeric = [
        not left
        and all(_is_number(row[i]) for row in rows if row[i] is not None)
        and any(row[i] is not None for row in rows)
        for i in range(len(columns))
    ]

    how = [
        a or ("right" if num else "left")
        for a, num in zip(aligns or [None] * len(columns), numeric, strict=True)
    ]

    def line(values: list[str]) -> str:
        parts = [_aligned(v, w, a) for v, w, a in zip(values, widths, how, strict=True)]
        return " ".join(parts).rstrip()

    lines = [line(columns), line(["-" * len(c) for c in columns])]
    lines.extend(line(r) for r in cells)
    return "\n".join(lines)


def _aligned(text: str, width: int, how: str) -> str:
    return (
        text.rjust(width)
        if how == "right"
        else text.center(width)
        if how == "center"
        else text.ljust(width)
    )


def plain_list(columns: list[str], rows: list[list[Any]]) -> str:
    """``Name : value`` lines; a value's further lines start under its first, as PowerShell's
    list aligns them."""
    width = max((len(c) for c in columns), default=0)
    under = "\n" + " " * (width + 3)
    blocks = [
        "\n".join(
            f"{c.ljust(width)} : {format_cell(c, v).replace(chr(10), under)}"
            for c, v in zip(columns, row, strict=True)
        )
        for row in rows
    ]
    return "\n\n".join(blocks)


def render_plain(items: Iterable[Any]) -> str:
    """Everything a statement wrote, as plain aligned text (see :func:`render_lines`)."""
    return "\n".join(render_lines(items))


def render_lines(items: Iterable[Any]) -> list[str]:
    """Everything a statement wrote, line by line, framed as PowerShell's Out-Default frames
    it: scalars one per line; a table or list with a blank line before and after it (a list
    also between its records); a grouped table (Get-Member's) under its ``   TypeName: X``."""
    lines: list[str] = []
    for kind, run in groups(items):
        if kind == "scalar":
            lines += [_scalar_line(v) for v in run]
        else:
            lines += _block_lines(kind, run)
    return lines


def _is_shell_date(value: Any) -> bool:
    from fayshell.lang.dates import DateTime

    return isinstance(value, DateTime)


def _block_lines(kind: str, run: list[Any]) -> list[str]:
    if kind.startswith(VIEW):
        return view_lines(run)
    if kind == "date":
        return ["", *(format_value(v) for v in run), ""]
    if kind == "timespan":
        return [
            line
            for span in run
            for line in _framed("list", list(TimeSpan.MEMBERS), [_span_values(span)])[:-1]
        ] + [""]
    if kind == "formatted":
        f: Formatted = run[0]
        if f.lines is not None:
            return f.lines
        if f.groups is not None:  # PowerShell 7: one blank line before each label
            return [
                line
                for label, rows in f.groups
                for line in ["", label, *_framed(f.kind, f.columns, rows, f.widths, f.aligns)[:-1]]
            ] + [""]
        return _framed(f.kind, f.columns, f.rows, f.widths, f.aligns)
    if kind == "hashtable":
        columns, rows = table_shape(run)
        return [
            "",
            *plain_table(columns, rows, [HASHTABLE_NAME_WIDTH, 0], left=True).split("\n"),
            "",
        ]
    if shows_as_list(run[0]):
        return [
            line
            for item in run
            for line in _framed("list", property_names(item), table_shape([item])[1])[:-1]
        ] + [""]
    group_by = getattr(type(run[0]), "GROUP_BY", None)
    if isinstance(group_by, str):
        # PowerShell 7: one blank line between a group's last row and the next group's label
        return [
            line
            for value, part in _runs_by(run, group_by)
            for line in ["", f"   {group_by}: {value}", *_framed("table", *table_shape(part))[:-1]]
        ] + [""]
    columns, rows = table_shape(run)
    return _framed("table", columns, rows, view_widths(run[0], columns))


def _span_values(span: TimeSpan) -> list[Any]:
    """A TimeSpan's properties as its list shows them (doubles in full, as PowerShell's)."""
    from fayshell.lang.dotnet import format_double

    values = [getattr(span, name) for name in TimeSpan.MEMBERS]
    return [format_double(v) if type(v) is float else v for v in values]


def view_widths(item: Any, columns: list[str]) -> list[int] | None:
    """Fixed column widths of a type's PowerShell table view (``COLUMN_WIDTHS``, 0 = as wide
    as the values), or None: as wide as the values."""
    widths = getattr(type(item), "COLUMN_WIDTHS", None)
    return list(widths) if isinstance(widths, tuple) and len(widths) == len(columns) else None


def shows_as_list(item: Any) -> bool:
    """PowerShell's default for an object without a format view: five or more properties show
    as a list (a [pscustomobject], or a record whose type says ``VIEW = "list"``)."""
    if getattr(type(item), "VIEW", None) == "list":
        return True
    return isinstance(item, PSCustomObject) and len(property_names(item)) >= LIST_FROM


def _runs_by(run: list[Any], name: str) -> list[tuple[Any, list[Any]]]:
    """Consecutive records with the same value of property ``name``."""
    out: list[tuple[Any, list[Any]]] = []
    for item in run:
        value = getattr(item, name, None)
        if out and out[-1][0] == value:
            out[-1][1].append(item)
        else:
            out.append((value, [item]))
    return out


def _framed(
    shape: str,
    columns: list[str],
    rows: list[list[Any]],
    widths: list[int] | None = None,
    aligns: list[str | None] | None = None,
) -> list[str]:
    """A table or list with the blank line PowerShell writes before and after it."""
    if not columns:
        return []
    text = (
        plain_table(columns, rows, widths, aligns=aligns)
        if shape == "table"
        else plain_list(columns, rows)
    )
    return ["", *text.split("\n"), ""]


def _scalar_line(value: Any) -> str:
    """A value on a line of its own: doubles in full (15 digits) as PowerShell shows them."""
    if type(value) is float:
        from fayshell.lang.dotnet import format_double

        return format_double(value)
    prefix = getattr(type(value), "PREFIX", "")  # a warning record a redirection made output
    return prefix + format_value(value)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _clip(text: str) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def _is_number(value: Any) -> bool:
    """Numbers right-align; an enum value (a DayOfWeek) is an int that reads as a name: text."""
    if isinstance(value, (SizedInt, Single)):  # a [long], [byte], [float] ...
        return True
    return (
        isinstance(value, NUMBERS)
        and not isinstance(value, bool)
        and not hasattr(type(value), "TYPE_NAME")
        and not hasattr(value, "enum_type")
    )
