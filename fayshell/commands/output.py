"""Output cmdlets: formatting, files, strings, Write-Output/Write-Host, Out-Null (JSON and CSV
are in data.py)."""

from __future__ import annotations

import shutil
from typing import Any

from fayshell.commands.invocation import Invocation
from fayshell.commands.props import PropSpec, evaluate, expand_wildcards, parse_props
from fayshell.commands.registry import BY_VALUE, Param, cmdlet
from fayshell.errors import ParameterError
from fayshell.lang.dotnet import composite_format
from fayshell.lang.ops import to_string
from fayshell.lang.streams import aiter_items, collect
from fayshell.lang.values import NUMBERS, DictionaryEntry, Hashtable
from fayshell.records import all_property_names, property_names
from fayshell.render import (
    MAX_CELL,
    FormatKind,
    Formatted,
    format_value,
    has_view,
    render_plain,
    view_lines,
)

INPUT = Param("InputObject", "any", pipeline=BY_VALUE, help="The records to output.")
GROUP_BY = Param(
    "GroupBy",
    "any",
    help="A property (or @{n=...; e={...}}): a block for each run of records with one value.",
)


async def _shape(
    ctx: Invocation,
    property: Any,
    kind: FormatKind,
    group_by: Any = None,
    own_view: bool = False,
) -> Formatted:
    """The records shaped as a table or list; ``own_view``: a type's own table when no
    columns are named (``ls | ft`` is the Directory view, as in PowerShell)."""
    items = [
        entry
        for item in await collect(ctx.input)
        for entry in (_entries(item) if isinstance(item, Hashtable) else [item])
    ]
    specs = parse_props(
        f"Format-{kind.title()}",
        property if isinstance(property, list) else ([property] if property is not None else None),
    )
    same = all(type(i) is type(items[0]) for i in items)
    if own_view and items and has_view(items[0]) and same and (property, group_by) == (None, None):
        return Formatted(kind, [], lines=view_lines(items))
    names = property_names(items[0]) if items else []  # the view's, unless -Property *
    list_view = getattr(type(items[0]), "LIST_VIEW", None) if items else None
    if kind == "list" and isinstance(list_view, tuple):  # a type's own list (a file's)
        names = list(list_view)
    every = all_property_names(items[0]) if items else []
    specs = expand_wildcards(specs, every) if specs else [PropSpec(n, n) for n in names]
    if not specs and items:
        return Formatted(kind, ["Value"], [[i] for i in items])
    rows = [[_formatted(await evaluate(item, s), s) for s in specs] for item in items]
    shaped = Formatted(kind, [s.label for s in specs], rows)
    if any(s.width is not None or s.alignment is not None for s in specs):
        shaped.widths = [s.width or 0 for s in specs]
        shaped.aligns = [s.alignment for s in specs]
    elif items and isinstance(items[0], DictionaryEntry):  # its view's columns: left-aligned
        shaped.aligns = ["left" for _ in specs]
    if group_by is not None:
        shaped.groups = await _runs(ctx, group_by, items, rows)
    return shaped


async def _runs(
    ctx: Invocation, group_by: Any, items: list[Any], rows: list[list[Any]]
) -> list[tuple[str, list[list[Any]]]]:
    """-GroupBy: consecutive rows with the same value, each run under "   Name: value" (as
    PowerShell, which does not sort: sort first to have one run per value)."""
    specs = parse_props(ctx.name, group_by if isinstance(group_by, list) else [group_by])
    if len(specs) != 1:
        raise ParameterError(ctx.name, "GroupBy", "takes one property (or script block)")
    spec = specs[0]
    runs: list[tuple[str, list[list[Any]]]] = []
    for item, row in zip(items, rows, strict=True):
        label = f"   {spec.label}: {to_string(await evaluate(item, spec))}"
        if runs and runs[-1][0] == label:
            runs[-1][1].append(row)
        else:
            runs.append((label, [row]))
    return runs


def _formatted(value: Any, spec: PropSpec) -> Any:
    """A value as its property's FormatString writes it (the value itself without one)."""
    if spec.format_string is None or value is None:
        return value
    return composite_format("{0:" + spec.format_string + "}", [value], to_string)


def _entries(table: Hashtable) -> list[DictionaryEntry]:
    """A hashtable as Format-Table and Format-List show it: one Name/Value entry per key."""
    return [DictionaryEntry(k, v) for k, v in table.items()]


@cmdlet(
    "Format-Table",
    aliases=("ft",),
    synopsis="Show records as a table with chosen (or calculated) columns.",
    description="Columns are always as wide as their content (what -AutoSize asks for), up to "
    f"{MAX_CELL} characters, where a longer value is cut with an ellipsis unless "
    "-Wrap. With -Wrap or -HideTableHeaders the table is written as lines of text.",
    params=[
        Param(
            "Property",
            "any",
            position=0,
            help="Columns to show: names (wildcards) or @{n='label'; e={ ... }}.",
        ),
        Param("AutoSize", bool, help="Accepted: columns are always sized to their content."),
        Param(
            "Wrap",
            bool,
            help=f"Wrap values longer than {MAX_CELL} characters onto more "
            "lines instead of cutting them.",
        ),
        Param("HideTableHeaders", bool, help="Leave out the header and its underline."),
        GROUP_BY,
        INPUT,
    ],
    examples=[
        ("Get-Node | Format-Table name, host", "Two columns only."),
        ("Get-TraceChunk | Format-Table path, events -Wrap", "Long paths wrapped."),
        ("Get-Node | ft name -HideTableHeaders", "Just the names, as text."),
        ("Get-Span | Sort-Object service | ft name, dur_ns -GroupBy service", "A table each."),
    ],
    stream=True,
)
async def format_table(
    ctx: Invocation,
    *,
    property: Any = None,
    auto_size: bool = False,
    wrap: bool = False,
    hide_table_headers: bool = False,
    group_by: Any = None,
    input_object: Any = None,
) -> Any:
    plain = not (wrap or hide_table_headers)
    shaped = await _shape(ctx, property, "table", group_by, own_view=plain)
    if plain:
        return [shaped]
    if shaped.groups is None:
        return text_table(shaped.columns, shaped.rows, wrap, not hide_table_headers)
    return [
        line
        for label, rows in shaped.groups
        for line in ["", label, "", *text_table(shaped.columns, rows, wrap, not hide_table_headers)]
    ] + [""]


def text_table(columns: list[str], rows: list[list[Any]], wrap: bool, header: bool) -> list[str]:
    """A table as lines: numbers right-aligned, long values wrapped or cut."""
    cells = [[_cell_lines(format_value(v), wrap) for v in row] for row in rows]
    widths = [
        max([len(c)] + [len(part) for r in cells for part in r[i]]) for i, c in enumerate(columns)
    ]
    numeric = [
        all(
            isinstance(r[i], NUMBERS) and not isinstance(r[i], bool)
            for r in rows
            if r[i] is not None
        )
        for i in range(len(columns))
    ]

    def line(values: list[str]) -> str:
        return " ".join(
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ).rstrip()

    out = [line(columns), line(["-" * w for w in widths])] if header else []
    for row in cells:
        for k in range(max((len(c) for c in row), default=1)):
            out.append(line([c[k] if k < len(c) else "" for c in row]))
    return out


def _cell_lines(text: str, wrap: bool) -> list[str]:
    if not wrap:
        flat = text.replace("\n", " ")
        return [flat if len(flat) <= MAX_CELL else flat[: MAX_CELL - 1] + "…"]
    parts: list[str] = []
    for piece in text.split("\n") or [""]:
        parts += [piece[i : i + MAX_CELL] for i in range(0, len(piece), MAX_CELL)] or [""]
    return parts


@cmdlet(
    "Format-List",
    aliases=("fl",),
    synopsis="Show each record as a list of 'property : value' lines.",
    params=[Param("Property", "any", position=0, help="Properties to show."), GROUP_BY, INPUT],
    examples=[("Test-Node web01 | Format-List", "Every property of the readiness record.")],
    stream=True,
)
async def format_list(
    ctx: Invocation, *, property: Any = None, group_by: Any = None, input_object: Any = None
) -> Any:
    return [await _shape(ctx, property, "list", group_by)]


@cmdlet(
    "Format-Wide",
    aliases=("fw",),
    synopsis="Show one property of each object, several objects to a line.",
    description="Two columns unless -Column (or -AutoSize: as many as fit); the lines share "
    "the terminal's width. Without -Property a record shows its Name (else its first "
    "property) and a value shows itself.",
    params=[
        Param("Property", "any", position=0, help="The property (or @{e={...}}) to show."),
        Param("Column", int, help="How many objects to a line."),
        Param("AutoSize", bool, help="As many columns as the widest value allows."),
        INPUT,
    ],
    examples=[
        ("Get-ChildItem | Format-Wide -Column 4", "File names, four to a line."),
        ("Get-Node | fw name -AutoSize", "Node names, as many to a line as fit."),
    ],
    stream=True,
)
async def format_wide(
    ctx: Invocation,
    *,
    property: Any = None,
    column: int | None = None,
    auto_size: bool = False,
    input_object: Any = None,
) -> list[str]:
    items = await collect(ctx.input)
    spec = parse_props("Format-Wide", [property])[0] if property is not None else None
    texts = [format_value(await _wide_value(item, spec)) for item in items]
    width = shutil.get_terminal_size((80, 24)).columns - 1
    widest = max((len(t) for t in texts), default=0) + 1
    columns = column or (max(1, width // widest) if auto_size else 2)
    if columns < 1:
        raise ParameterError("Format-Wide", "Column", f"{columns} is not a number of columns")
    cell = max(width // columns, 1)
    rows = [texts[i : i + columns] for i in range(0, len(texts), columns)]
    lines = ["".join(t[: cell - 1].ljust(cell) for t in row).rstrip() for row in rows]
    return ["", *lines, ""] if lines else []


async def _wide_value(item: Any, spec: PropSpec | None) -> Any:
    """The property -Property names, else a record's Name (else its first property), else the
    value itself."""
    if spec is None:
        names = property_names(item)
        if not names:
            return item
        name = next((n for n in names if n.lower() == "name"), names[0])
        spec = PropSpec(name, name)
    return await evaluate(item, spec)


@cmdlet(
    "Out-String",
    synopsis="The output as text, as it would be shown: one string (ending in a newline, as "
    "PowerShell's), or one string per line with -Stream.",
    params=[
        Param("Stream", bool, help="One string per line instead of one string."),
        Param("Width", int, help="Cut lines longer than this many characters."),
        Param("NoNewline", bool, help="No newline at the end of the string."),
        Param("InputObject", "any", position=0, pipeline=BY_VALUE, help="The objects to render."),
    ],
    examples=[
        ("$t = Get-Node | Out-String", "Keep the node table as text."),
        ("Get-Node | Out-String -Stream | Select-String web", "Table lines with 'web'."),
    ],
    stream=True,
)
async def out_string(
    ctx: Invocation,
    *,
    stream: bool = False,
    width: int | None = None,
    no_newline: bool = False,
    input_object: Any = None,
) -> Any:
    items = (
        await collect(ctx.input)
        if ctx.input is not None
        else ([] if input_object is None else [input_object])
    )
    lines = render_plain(items).split("\n") if items else []
    if width is not None:
        if width < 1:
            raise ParameterError("Out-String", "Width", "must be at least 1")
        lines = [line[:width].rstrip() for line in lines]
    if stream:
        return lines
    text = "\n".join(lines)
    return [text if no_newline or not lines else text + "\n"]


@cmdlet(
    "Out-Null",
    synopsis="Discard the output (the pipeline still runs).",
    params=[INPUT],
    examples=[("Start-Trace incident | Out-Null", "Run without showing the result.")],
    stream=True,
)
async def out_null(ctx: Invocation, *, input_object: Any = None) -> None:
    async for _ in aiter_items(ctx.input):
        pass
    return None


@cmdlet(
    "Out-Host",
    aliases=("oh",),
    synopsis="Show the input on the console now; nothing goes down the pipeline.",
    description="Tables and lists are written at once, not joined with the statements' "
    "output around them.",
    params=[Param("Paging", bool, help="Accepted for compatibility (there is no pager)."), INPUT],
    examples=[("Get-Node | Out-Host", "Show the nodes in the middle of a script's output.")],
    stream=True,
)
async def out_host(ctx: Invocation, *, paging: bool = False, input_object: Any = None) -> None:
    await _to_console(ctx, input_object, apart=True)


@cmdlet(
    "Out-Default",
    synopsis="Show the input as the console shows a statement's output; nothing goes down "
    "the pipeline.",
    description="What every statement's output goes through at the end of its pipeline: "
    "records of the same shape join the table or list the statements before left open.",
    params=[INPUT],
    examples=[("Get-Node | Out-Default", "The nodes, shown as if they were the output.")],
    stream=True,
)
async def out_default(ctx: Invocation, *, input_object: Any = None) -> None:
    await _to_console(ctx, input_object, apart=False)


async def _to_console(ctx: Invocation, input_object: Any, apart: bool) -> None:
    """The input shown on the console now: ``apart``, as a table or list of its own (the
    open one written first), else joining what is open, as statements' output does."""
    items = (
        await collect(ctx.input)
        if ctx.input is not None
        else ([] if input_object is None else [input_object])
    )
    host = ctx.state.host
    show = getattr(host, "show", None)
    if show is None:  # a host without tables of its own (tests, embedding): the text
        if items:
            host.write_host(render_plain(items))
        return
    end_output = getattr(host, "end_output", lambda: None)
    if apart:
        end_output()  # what earlier statements left open comes first
    show(items)
    if apart:
        end_output()


@cmdlet(
    "Write-Output",
    aliases=("echo", "write"),
    synopsis="Write values to the output (what an expression alone does too).",
    params=[
        Param("InputObject", "any", position=0, rest=True, pipeline=BY_VALUE),
        Param("NoEnumerate", bool, help="Write an array given as an argument as one value."),
    ],
    examples=[
        ("Write-Output 1 2 3", "Three values."),
        ("Write-Output @(1, 2) -NoEnumerate", "One value: the array."),
    ],
)
def write_output(ctx: Invocation, *, input_object: Any = None, no_enumerate: bool = False) -> Any:
    if no_enumerate and isinstance(input_object, list):
        whole = input_object[0] if len(input_object) == 1 else input_object
        return [whole]
    if isinstance(input_object, list):
        out: list[Any] = []
        for value in input_object:
            out.extend(value if isinstance(value, list) else [value])
        return out
    return [] if input_object is None else [input_object]


@cmdlet(
    "Write-Host",
    synopsis="Show text to the person at the console (not part of the output).",
    params=[
        Param("Object", "any", position=0, rest=True),
        Param("ForegroundColor", str, help="A color name, e.g. red, green, yellow."),
        Param("NoNewline", bool),
        Param("Separator", "any", help="Written between the objects (default: a space)."),
    ],
    examples=[
        ("Write-Host 'trace started' -ForegroundColor green", "A green note."),
        ("Write-Host web01 web02 -Separator ', '", "web01, web02"),
    ],
)
def write_host(
    ctx: Invocation,
    *,
    object: Any = None,
    foreground_color: str | None = None,
    no_newline: bool = False,
    separator: Any = " ",
) -> None:
    items = object if isinstance(object, list) else [object]
    # an array among the objects is written item by item, the separator between them too
    text = to_string(separator).join(
        to_string(x) for v in items for x in (v if isinstance(v, list) else [v])
    )
    ctx.write_host(text, foreground_color, not no_newline)
