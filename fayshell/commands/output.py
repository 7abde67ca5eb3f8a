"""Output cmdlets: formatting, JSON/CSV conversion, files, Write-Output/Write-Host, Out-Null."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fayshell.commands.invocation import Invocation
from fayshell.commands.props import PropSpec, evaluate, expand_wildcards, parse_props
from fayshell.commands.registry import BY_VALUE, Param, cmdlet
from fayshell.errors import CommandError
from fayshell.lang.ops import to_string
from fayshell.lang.streams import aiter_items, collect, is_relation
from fayshell.records import property_names
from fayshell.render import Formatted, render_plain, to_csv_lines, to_json

INPUT = Param("InputObject", "any", pipeline=BY_VALUE, help="The records to output.")


async def _shape(ctx: Invocation, property: Any, kind: str) -> Formatted:
    items = await collect(ctx.input)
    specs = parse_props(f"Format-{kind.title()}", property if isinstance(property, list)
                        else ([property] if property is not None else None))
    names = property_names(items[0]) if items else []
    specs = expand_wildcards(specs, names) if specs else [PropSpec(n, n) for n in names]
    if not specs and items:
        return Formatted(kind, ["Value"], [[i] for i in items])
    rows = [[await evaluate(item, s) for s in specs] for item in items]
    return Formatted(kind, [s.label for s in specs], rows)


@cmdlet(
    "Format-Table",
    aliases=("ft",),
    synopsis="Show records as a table with chosen (or calculated) columns.",
    params=[Param("Property", "any", position=0, help="Columns to show."), INPUT],
    examples=[("Get-Node | Format-Table name, host", "Two columns only.")],
    stream=True,
)
async def format_table(ctx: Invocation, *, property: Any = None, input_object: Any = None) -> Any:
    return [await _shape(ctx, property, "table")]


@cmdlet(
    "Format-List",
    aliases=("fl",),
    synopsis="Show each record as a list of 'property : value' lines.",
    params=[Param("Property", "any", position=0, help="Properties to show."), INPUT],
    examples=[("Test-Node web01 | Format-List", "Every property of the readiness record.")],
    stream=True,
)
async def format_list(ctx: Invocation, *, property: Any = None, input_object: Any = None) -> Any:
    return [await _shape(ctx, property, "list")]


@cmdlet(
    "ConvertTo-Json",
    synopsis="Convert records to JSON (one object, or an array for several).",
    params=[Param("Depth", int, default=4, help="How deep nested values are expanded."),
            Param("Compress", bool, help="No indentation."),
            Param("AsArray", bool, help="Always an array, even for one record."), INPUT],
    examples=[("Get-Node | ConvertTo-Json -Compress", "Node records as compact JSON.")],
    stream=True,
)
async def convert_to_json(ctx: Invocation, *, depth: int = 4, compress: bool = False,
                          as_array: bool = False, input_object: Any = None) -> Any:
    items = await collect(ctx.input)
    if not items:
        return ["[]"] if as_array else []
    if as_array and len(items) == 1:
        return [to_json([items], depth + 1, compress)]
    return [to_json(items, depth, compress)]


@cmdlet(
    "ConvertTo-Csv",
    synopsis="Convert records to CSV lines (header first).",
    params=[Param("Delimiter", str, default=",", help="Field separator."),
            Param("NoTypeInformation", bool, help="Accepted for compatibility; no type line "
                                                  "is ever written."), INPUT],
    examples=[("sql SELECT 1 AS a, 2 AS b | ConvertTo-Csv", "a,b then 1,2.")],
    stream=True,
)
async def convert_to_csv(ctx: Invocation, *, delimiter: str = ",",
                         no_type_information: bool = False, input_object: Any = None) -> Any:
    return to_csv_lines(await collect(ctx.input), delimiter)


@cmdlet(
    "Export-Csv",
    synopsis="Write records to a CSV file (a relation is written by DuckDB's COPY directly).",
    params=[Param("Path", str, position=0, mandatory=True, complete="files"),
            Param("Delimiter", str, default=","),
            Param("NoTypeInformation", bool, help="Accepted for compatibility."), INPUT],
    examples=[("Get-Syscall | Export-Csv syscalls.csv", "All system calls to a file.")],
    stream=True,
)
async def export_csv(ctx: Invocation, *, path: str, delimiter: str = ",",
                     no_type_information: bool = False, input_object: Any = None) -> None:
    target = Path(path).expanduser()
    if not target.parent.exists():
        raise CommandError("Export-Csv", f"directory {str(target.parent)!r} does not exist")
    if is_relation(ctx.input) and len(delimiter) == 1:
        rel = ctx.input
        quoted = str(target).replace("'", "''")
        delim = delimiter.replace("'", "''")
        ctx.write_verbose(f"COPY ({rel.sql}) TO '{quoted}'")
        rel.db.execute(f"COPY ({rel.sql}) TO '{quoted}' (HEADER, DELIMITER '{delim}')")
        return None
    lines = to_csv_lines(await collect(ctx.input), delimiter)
    target.write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
    return None


@cmdlet(
    "Out-File",
    synopsis="Write the output, as it would be shown, to a file.",
    params=[Param("FilePath", str, position=0, mandatory=True, aliases=("Path",),
                  complete="files"),
            Param("Append", bool, help="Add to the end of the file."), INPUT],
    examples=[("Get-Node | Out-File nodes.txt", "The node table as text.")],
    stream=True,
)
async def out_file(ctx: Invocation, *, file_path: str, append: bool = False,
                   input_object: Any = None) -> None:
    text = render_plain(await collect(ctx.input))
    target = Path(file_path).expanduser()
    try:
        with target.open("a" if append else "w", encoding="utf-8") as fh:
            fh.write(text + ("\n" if text else ""))
    except OSError as exc:
        raise CommandError("Out-File", f"{file_path}: {exc.strerror}") from None
    return None


@cmdlet(
    "Out-String",
    synopsis="The output as one string, as it would be shown.",
    params=[INPUT],
    examples=[("$t = Get-Node | Out-String", "Keep the node table as text.")],
    stream=True,
)
async def out_string(ctx: Invocation, *, input_object: Any = None) -> Any:
    return [render_plain(await collect(ctx.input))]


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
    "Write-Output",
    aliases=("echo", "write"),
    synopsis="Write values to the output (what an expression alone does too).",
    params=[Param("InputObject", "any", position=0, rest=True, pipeline=BY_VALUE)],
    examples=[("Write-Output 1 2 3", "Three values.")],
)
def write_output(ctx: Invocation, *, input_object: Any = None) -> Any:
    if isinstance(input_object, list):
        out: list[Any] = []
        for value in input_object:
            out.extend(value if isinstance(value, list) else [value])
        return out
    return [] if input_object is None else [input_object]


@cmdlet(
    "Write-Host",
    synopsis="Show text to the person at the console (not part of the output).",
    params=[Param("Object", "any", position=0, rest=True),
            Param("ForegroundColor", str, help="A color name, e.g. red, green, yellow."),
            Param("NoNewline", bool)],
    examples=[("Write-Host 'trace started' -ForegroundColor green", "A green note.")],
)
def write_host(ctx: Invocation, *, object: Any = None, foreground_color: str | None = None,
               no_newline: bool = False) -> None:
    text = " ".join(to_string(v) for v in object) if isinstance(object, list) else \
        to_string(object)
    ctx.state.host.write_host(text, foreground_color, not no_newline)
