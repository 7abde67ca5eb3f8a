"""JSON and CSV, written and read the way PowerShell 7 does: ConvertTo-/ConvertFrom-Json,
ConvertTo-/ConvertFrom-Csv, Export-/Import-Csv."""

from __future__ import annotations

import csv
import dataclasses
import datetime
import io
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal, get_args

from fayshell.commands.encodings import ENCODING_PARAM, read_text, text_writer, write_text
from fayshell.commands.files import not_found
from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.objects import full_type, value_text
from fayshell.commands.registry import BY_VALUE, Param, cmdlet
from fayshell.errors import CommandError, ParameterError
from fayshell.lang.enums import EnumValue
from fayshell.lang.netregex import unescape
from fayshell.lang.ops import to_string
from fayshell.lang.single import Single
from fayshell.lang.streams import aiter_items, collect, is_relation, unroll
from fayshell.lang.values import Hashtable, TimeSpan
from fayshell.records import all_properties, all_property_names, get_property, is_record
from fayshell.store.relation import quote_literal

QuoteKind = Literal["Always", "AsNeeded", "Never"]
QUOTE_KINDS: tuple[QuoteKind, ...] = ("Always", "AsNeeded", "Never")


# ---- JSON ----------------------------------------------------------------------------------


@dataclass
class JsonWrite:
    """One ConvertTo-Json: its -EnumsAsStrings, and whether a value was cut at -Depth
    (PowerShell warns then)."""

    enums_as_strings: bool = False
    hit: bool = False


def json_value(value: Any, depth: int, cut: JsonWrite) -> Any:
    """A JSON-ready copy; objects and arrays deeper than ``depth`` become their string form."""
    if is_record(value):
        fields = _all_fields(value)
        if depth < 0:
            cut.hit = True  # a hashtable's text is its type's name, an object's @{k=v}
            return (
                "System.Collections.Hashtable"
                if isinstance(value, Hashtable)
                else value_text(fields)
            )
        return {str(k): json_value(v, depth - 1, cut) for k, v in fields.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        if depth < 0:
            cut.hit = True
            return " ".join(to_string(v) for v in value)
        return [json_value(v, depth - 1, cut) for v in value]
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return to_string(value)
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, Decimal):  # a JSON number (trailing zeros of its scale dropped)
        return float(value) if value % 1 else int(value)
    if isinstance(value, datetime.datetime):
        return json_date(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, TimeSpan):  # an object, as .NET 8's serializer writes a TimeSpan
        return {name: getattr(value, name) for name in TimeSpan.JSON}
    if isinstance(value, Single) and math.isfinite(value):
        return value.shortest()
    if isinstance(value, EnumValue):  # an enum: its number, or -EnumsAsStrings
        return str(value) if cut.enums_as_strings else int(value)
    for kind in (bool, int, float, str):  # subclasses: durations and sizes as numbers
        if isinstance(value, kind):
            return kind(value)
    return to_string(value)


def json_date(value: datetime.datetime) -> str:
    """A date as PowerShell's ConvertTo-Json writes it (.NET's round trip form): seconds, the
    fraction without trailing zeros, then Z for a UTC date, the offset for a local one or
    one with a time zone, nothing for one of unspecified kind."""
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += "." + f"{value.microsecond:06d}".rstrip("0")
    kind = getattr(value, "Kind", None)
    if kind == "Utc":
        return text + "Z"
    offset = value.utcoffset()
    if offset is None and kind == "Local":
        offset = value.astimezone().utcoffset()
    if offset is None:
        return text
    sign, minutes = ("-" if offset < datetime.timedelta(0) else "+"), abs(offset) // _MINUTE
    return f"{text}{sign}{minutes // 60:02d}:{minutes % 60:02d}"


_MINUTE = datetime.timedelta(minutes=1)


def _all_fields(record: Any) -> dict[str, Any]:
    """Every property of a record, including those tables leave out (GroupInfo.Values)."""
    if isinstance(record, Mapping):  # a class's hidden properties too, as PowerShell's
        return {str(k): v for k, v in record.items()}
    return all_properties(record)


def dump_json(value: Any, compress: bool, escaping: str = "Default") -> str:
    """PowerShell 7's layout: two-space indent, ``"key": value``; compressed without spaces.
    ``escaping`` (-EscapeHandling): EscapeNonAscii writes non-ASCII characters as ``\\uXXXX``,
    EscapeHtml ``< > & ' "`` inside strings, as Newtonsoft.Json does."""
    ascii_only = escaping == "EscapeNonAscii"
    if compress:
        text = json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))
    else:
        text = json.dumps(value, ensure_ascii=ascii_only, indent=2)
    return _escape_html(text) if escaping == "EscapeHtml" else text


#: ConvertTo-Json -EscapeHandling's choices (Newtonsoft.Json's StringEscapeHandling).
ESCAPE_HANDLING = ("Default", "EscapeNonAscii", "EscapeHtml")


#: A JSON string token, escapes and all.
JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _escape_html(text: str) -> str:
    """HTML's special characters inside the JSON's strings as escapes (``<`` is ``\\u003c``,
    an escaped ``"`` is ``\\u0022``); the quotes around a string stay as they are."""
    return JSON_STRING.sub(lambda m: '"' + _html_body(m.group(0)[1:-1]) + '"', text)


def _html_body(body: str) -> str:
    body = re.sub(r"\\(.)", lambda m: "\\u0022" if m.group(1) == '"' else m.group(0), body)
    for ch in "<>&'":
        body = body.replace(ch, f"\\u{ord(ch):04x}")
    return body


@cmdlet(
    "ConvertTo-Json",
    synopsis="Convert objects to JSON: one object, or an array for several.",
    description="Objects nested deeper than -Depth (default 2, as in PowerShell) are written "
    "as their string form, with a warning.",
    params=[
        Param(
            "InputObject",
            "any",
            position=0,
            pipeline=BY_VALUE,
            help="The value to convert (an array given here is written as an array).",
        ),
        Param("Depth", int, default=2, help="How deep nested objects are expanded."),
        Param("Compress", bool, help="No indentation or spaces."),
        Param("AsArray", bool, help="Always an array, even for one object."),
        Param("EnumsAsStrings", bool, help="Enums as their names (else their numbers)."),
        Param(
            "EscapeHandling",
            str,
            choices=ESCAPE_HANDLING,
            help="EscapeNonAscii or EscapeHtml (Default: only what JSON needs).",
        ),
    ],
    examples=[
        ("Get-Node | ConvertTo-Json -Compress", "Node records as compact JSON."),
        ("ConvertTo-Json -InputObject @(1,2) -Compress", "[1,2]"),
    ],
    stream=True,
)
async def convert_to_json(
    ctx: Invocation,
    *,
    input_object: Any = None,
    depth: int = 2,
    compress: bool = False,
    as_array: bool = False,
    enums_as_strings: bool = False,
    escape_handling: str = "Default",
) -> Any:
    if not 0 <= depth <= 100:
        raise ParameterError("ConvertTo-Json", "Depth", f"{depth} is not within 0..100")
    if ctx.input is not None:
        items = await collect(ctx.input)
        if not items and not as_array:
            return []
        value: Any = items if len(items) != 1 or as_array else items[0]
    else:
        value = [input_object] if as_array and not isinstance(input_object, list) else input_object
    cut = JsonWrite(enums_as_strings)
    text = dump_json(json_value(value, depth, cut), compress, escape_handling)
    if cut.hit:
        ctx.warn(  # PowerShell's words, without the command's name
            f"Resulting JSON is truncated as serialization has exceeded the set depth of {depth}."
        )
    return [text]


@cmdlet(
    "ConvertFrom-StringData",
    synopsis="Parse 'name = value' lines into a hashtable (one per string).",
    description="Blank lines and lines starting with # are skipped; the name and the value "
    "are trimmed; a backslash escapes as in a regular expression ('\\n' is a newline, "
    "'\\\\' one backslash). A name given twice is an error naming the line.",
    params=[
        Param("StringData", str, position=0, mandatory=True, pipeline=BY_VALUE),
        Param("Delimiter", str, help="What separates name and value (default '=')."),
    ],
    examples=[
        ("Get-Content limits.txt -Raw | ConvertFrom-StringData", "A hashtable of the limits."),
        ("ConvertFrom-StringData 'node = web01'", "@{node = 'web01'}"),
    ],
)
def convert_from_string_data(
    ctx: Invocation, *, string_data: str, delimiter: str | None = None
) -> Hashtable:
    sep = delimiter or "="
    out = Hashtable()
    for line in string_data.splitlines():
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if sep not in text:
            raise ctx.fail(f"line {line!r} has no '{sep}' between a name and a value")
        name, _, value = text.partition(sep)
        key = unescape(name.strip())
        if any(str(k).lower() == key.lower() for k in out):
            raise ctx.fail(f"Data item '{key}' in line '{line}' is already defined.")
        out[key] = unescape(value.strip())
    return out


@cmdlet(
    "ConvertFrom-Json",
    synopsis="Parse JSON text into objects (JSON objects become records, arrays are "
    "written out item by item).",
    description="A string holding an ISO 8601 date and time (2024-03-05T10:00:00, with "
    "fractions of a second and a zone or not) becomes a [datetime], as in PowerShell 7: "
    "of kind Unspecified without a zone, Utc with Z, and converted to local time (kind "
    "Local) with an offset. A date alone stays a string.",
    params=[
        Param(
            "InputObject",
            "any",
            position=0,
            pipeline=BY_VALUE,
            help="JSON text; several pipeline strings are joined into one document.",
        ),
        Param(
            "AsHashtable",
            bool,
            help="Hashtables instead of objects (every key a property, shown as Name/Value).",
        ),
        Param("Depth", int, default=1024, help="Deepest nesting accepted."),
        Param("NoEnumerate", bool, help="Write a top-level array as one value."),
    ],
    examples=[
        ('\'{"a":1,"b":[1,2]}\' | ConvertFrom-Json', "A record with a and b."),
        (
            "Get-Content nodes.json -Raw | ConvertFrom-Json | Select-Object name",
            "Names from a JSON file.",
        ),
    ],
    stream=True,
)
async def convert_from_json(
    ctx: Invocation,
    *,
    input_object: Any = None,
    as_hashtable: bool = False,
    depth: int = 1024,
    no_enumerate: bool = False,
) -> Any:
    source = ctx.input if ctx.input is not None else input_object
    lines = (
        [to_string(x) for x in await collect(source)] if not isinstance(source, str) else [source]
    )
    text = "\n".join(lines)
    if not text.strip():
        return []
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(
            "ConvertFrom-Json", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    if _depth_of(value) > depth:
        raise CommandError("ConvertFrom-Json", f"the JSON is nested deeper than -Depth {depth}")
    value = with_dates(value, Hashtable if as_hashtable else dict)
    if isinstance(value, list) and not no_enumerate:
        return value
    return [value]


#: Test-Json -Options: what it lets through beyond strict JSON.
JSON_OPTIONS = ("IgnoreComments", "AllowTrailingCommas")


@cmdlet(
    "Test-Json",
    synopsis="Is this text JSON? With -Schema or -SchemaFile: JSON valid against that schema?",
    description="Writes True or False. Why it is not is written as an error (each place the "
    "schema is not met, with its JSON pointer). Schemas are JSON Schema (draft 2020-12 unless "
    "the schema's $schema names another draft).",
    params=[
        Param("Json", str, position=0, pipeline=BY_VALUE, help="The JSON text."),
        Param("Path", str, complete="files", help="A file of JSON instead."),
        Param("Schema", str, position=1, help="A JSON schema the text must meet."),
        Param("SchemaFile", str, complete="files", help="A file holding the schema."),
        Param(
            "Options",
            "strings",
            choices=JSON_OPTIONS,
            help="IgnoreComments (// and /* */), AllowTrailingCommas.",
        ),
    ],
    examples=[
        ("Test-Json '{\"a\": 1}'", "True."),
        (
            "Get-Content spans.json -Raw | Test-Json -SchemaFile zipkin-span.json",
            "Check an export against a schema.",
        ),
    ],
)
def test_json(
    ctx: Invocation,
    *,
    json: str | None = None,  # (the module is not used here)
    path: str | None = None,
    schema: str | None = None,
    schema_file: str | None = None,
    options: list[str] | None = None,
) -> list[bool]:
    if (json is None) == (path is None):
        raise ParameterError("Test-Json", "Json", "give the JSON text or -Path")
    text = json if json is not None else _file_text(ctx, path or "")
    known = {o.lower() for o in options or []}
    try:
        value = _strict_json(
            _relaxed(text, "ignorecomments" in known, "allowtrailingcommas" in known)
        )
    except ValueError:
        ctx.write_error(ErrorRecord("", "", "Cannot parse the JSON.", category="InvalidData"))
        return [False]
    if schema is None and schema_file is None:
        return [True]
    problems = _schema_problems(value, _schema(ctx, schema, schema_file))
    for problem in problems:
        ctx.write_error(ErrorRecord("", "", problem, category="InvalidData"))
    return [not problems]


def _file_text(ctx: Invocation, path: str) -> str:
    full = ctx.state.resolve_path(path)
    try:
        return read_text(full, None)
    except (FileNotFoundError, IsADirectoryError):
        raise CommandError(ctx.name, not_found(full)) from None


def _strict_json(text: str) -> Any:
    """JSON as RFC 8259 has it (Python's json would also take NaN and Infinity)."""

    def refuse(word: str) -> Any:
        raise ValueError(word)

    return json.loads(text, parse_constant=refuse)


def _relaxed(text: str, comments: bool, commas: bool) -> str:
    """``text`` without the comments and trailing commas -Options lets through (strings are
    kept as they are)."""
    if not (comments or commas):
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            end = _string_end(text, i)
            out.append(text[i:end])
            i = end
        elif comments and text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif comments and text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
        elif commas and ch == "," and re.match(r"\s*[}\]]", text[i + 1 :]):
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    """Where the JSON string opening at ``start`` ends (past its closing quote)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    return len(text)


def _schema(ctx: Invocation, schema: str | None, schema_file: str | None) -> Any:
    text = schema if schema is not None else _file_text(ctx, schema_file or "")
    try:
        return _strict_json(text)
    except ValueError:
        raise CommandError(ctx.name, "Cannot parse the JSON schema.") from None


def _schema_problems(value: Any, schema: Any) -> list[str]:
    """Each place ``value`` does not meet ``schema``, in PowerShell's words, with its JSON
    pointer (jsonschema validates: a well-kept implementation of every draft)."""
    import jsonschema

    try:
        kind = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        kind.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise CommandError("Test-Json", f"Cannot parse the JSON schema: {exc.message}") from None
    found = sorted(kind(schema).iter_errors(value), key=lambda e: list(e.absolute_path))
    return [
        f"The JSON is not valid with the schema: {e.message} at '{_pointer(e.absolute_path)}'"
        for e in found
    ]


def _pointer(path: Iterable[Any]) -> str:
    """A JSON pointer (RFC 6901) to a place in a document."""
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in path]
    return "/" + "/".join(parts) if parts else ""


#: A JSON string PowerShell 7 reads as a date (Json.NET's ISO 8601 date and time).
JSON_DATE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,7})?(Z|[+-]\d{2}:\d{2})?")


def with_dates(value: Any, mapping: type[dict[str, Any]]) -> Any:
    """``value`` with its ISO date-time strings as dates (see ConvertFrom-Json's help) and its
    objects made ``mapping``s (hashtables for -AsHashtable)."""
    if isinstance(value, dict):
        return mapping((k, with_dates(v, mapping)) for k, v in value.items())
    if isinstance(value, list):
        return [with_dates(v, mapping) for v in value]
    if isinstance(value, str) and JSON_DATE.fullmatch(value):
        from fayshell.lang.dates import DateTime, parse_date

        if value.endswith("Z"):  # UTC: kept as it is, of kind Utc
            return DateTime.of(datetime.datetime.fromisoformat(value[:-1]), "Utc")
        return parse_date(value)  # an offset: local time; no zone: Unspecified
    return value


def _depth_of(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth_of(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth_of(v) for v in value), default=0)
    return 0


# ---- CSV writing ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class CsvStyle:
    """How CSV is written: delimiter, quoting, which fields to quote, header lines."""

    delimiter: str = ","
    quotes: QuoteKind = "Always"
    quote_fields: frozenset[str] | None = None
    header: bool = True
    type_info: bool = False

    def field(self, name: str, text: str | None) -> str:
        if text is None:
            return ""
        if self.quote_fields is not None:
            quote = name.lower() in self.quote_fields
        elif self.quotes == "AsNeeded":
            quote = any(c in text for c in (self.delimiter, "\n", '"'))
        else:
            quote = self.quotes == "Always"
        return '"' + text.replace('"', '""') + '"' if quote else text


def csv_text(value: Any) -> str | None:
    """A property value as PowerShell writes it in CSV (its ToString())."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, (list, tuple, Mapping)) or is_record(value):
        return value_text(value)
    return to_string(value)


def _columns(item: Any) -> list[str]:
    if isinstance(item, str):
        return ["Length"]
    return all_property_names(item) if is_record(item) else ["Value"]


def _cells(item: Any, columns: list[str]) -> dict[str, Any]:
    """The first object's columns of ``item`` (a property it lacks is an empty field)."""
    if isinstance(item, str):
        return {"Length": len(item)}
    if not is_record(item):
        return {"Value": item}
    return {c: get_property(item, c) for c in columns}


def csv_lines(items: Iterable[Any], style: CsvStyle) -> Iterable[str]:
    """Type line (if asked), header, then one line per object; columns from the first one."""
    columns: list[str] | None = None
    for item in items:
        if columns is None:
            columns = _columns(item)
            if style.type_info:
                yield f"#TYPE {full_type(item)}"
            if style.header:
                yield style.delimiter.join(style.field(c, c) for c in columns)
        rec = _cells(item, columns)
        yield style.delimiter.join(style.field(c, csv_text(rec.get(c))) for c in columns)


CSV_WRITE_PARAMS = (
    Param("Delimiter", str, default=",", help="Field separator (one character)."),
    Param(
        "UseQuotes",
        str,
        choices=QUOTE_KINDS,
        default="Always",
        help="Always (default), AsNeeded (only fields with the delimiter, a quote or a "
        "newline) or Never.",
    ),
    Param("QuoteFields", "strings", help="Quote only these columns."),
    Param(
        "NoTypeInformation",
        bool,
        help="Accepted for compatibility: no #TYPE line is written unless -IncludeTypeInformation.",
    ),
    Param("IncludeTypeInformation", bool, help="Write a #TYPE line first."),
    Param("NoHeader", bool, help="Leave out the header line."),
    Param("UseCulture", bool, help="Accepted for compatibility (the delimiter stays ',')."),
)


def _style(
    delimiter: str,
    use_quotes: str,
    quote_fields: list[str] | None,
    no_header: bool,
    include_type_information: bool,
    command: str,
) -> CsvStyle:
    if len(delimiter) != 1:
        raise ParameterError(command, "Delimiter", f"{delimiter!r} is not one character")
    quotes: QuoteKind = next(q for q in QUOTE_KINDS if q == use_quotes)
    fields = frozenset(f.lower() for f in quote_fields) if quote_fields else None
    return CsvStyle(delimiter, quotes, fields, not no_header, include_type_information)


@cmdlet(
    "ConvertTo-Csv",
    synopsis="Convert objects to CSV lines (header first; every field quoted, as PowerShell 7).",
    params=[*CSV_WRITE_PARAMS, Param("InputObject", "any", position=0, pipeline=BY_VALUE)],
    examples=[
        ("sql SELECT 1 AS a, 2 AS b | ConvertTo-Csv", '"a","b" then "1","2".'),
        (
            "Get-Node | ConvertTo-Csv -UseQuotes AsNeeded -Delimiter ';'",
            "Quotes only where a field needs them.",
        ),
    ],
    stream=True,
)
async def convert_to_csv(
    ctx: Invocation,
    *,
    delimiter: str = ",",
    use_quotes: str = "Always",
    quote_fields: list[str] | None = None,
    no_type_information: bool = False,
    include_type_information: bool = False,
    no_header: bool = False,
    use_culture: bool = False,
    input_object: Any = None,
) -> Any:
    style = _style(
        delimiter, use_quotes, quote_fields, no_header, include_type_information, "ConvertTo-Csv"
    )
    source = ctx.input if ctx.input is not None else input_object
    items = await collect(source) if ctx.input is not None or isinstance(source, list) else [source]
    return list(csv_lines(items, style))


@cmdlet(
    "Export-Csv",
    synopsis="Write objects to a CSV file, as ConvertTo-Csv writes them.",
    description="A relation is streamed from DuckDB in batches; with -UseQuotes AsNeeded "
    "DuckDB's COPY writes the file directly.",
    params=[
        Param("Path", str, position=0, mandatory=True, aliases=("LiteralPath",), complete="files"),
        *CSV_WRITE_PARAMS,
        Param("Append", bool, help="Add rows to an existing file (no second header)."),
        Param("Force", bool, help="Accepted for compatibility."),
        ENCODING_PARAM,
        Param("InputObject", "any", pipeline=BY_VALUE),
    ],
    examples=[("Get-Syscall | Export-Csv syscalls.csv", "All system calls to a file.")],
    stream=True,
)
async def export_csv(
    ctx: Invocation,
    *,
    path: str,
    delimiter: str = ",",
    use_quotes: str = "Always",
    quote_fields: list[str] | None = None,
    no_type_information: bool = False,
    include_type_information: bool = False,
    no_header: bool = False,
    use_culture: bool = False,
    append: bool = False,
    force: bool = False,
    encoding: str | None = None,
    input_object: Any = None,
) -> None:
    style = _style(
        delimiter, use_quotes, quote_fields, no_header, include_type_information, "Export-Csv"
    )
    target = ctx.state.resolve_path(path)
    if not target.parent.exists():
        raise CommandError("Export-Csv", f"directory {str(target.parent)!r} does not exist")
    exists = append and target.exists() and target.stat().st_size > 0
    if exists:
        style = dataclasses.replace(style, header=False, type_info=False)
    source = ctx.input if ctx.input is not None else input_object
    if (
        is_relation(source)
        and (encoding or "utf8").lower() in ("utf8", "utf8nobom")
        and style.quotes == "AsNeeded"
        and not append
        and style.header
        and style.quote_fields is None
        and not style.type_info
    ):
        _copy_relation(ctx, source, target, delimiter)
        return None
    try:
        with text_writer(target, encoding, append) as write:
            async for line in _aiter_csv(source, style):
                write(line + "\n")
    except OSError as exc:
        raise CommandError("Export-Csv", f"{path}: {exc.strerror}") from None
    return None


async def _aiter_csv(source: Any, style: CsvStyle) -> Any:
    batch: list[Any] = []
    first = True
    async for item in aiter_items(source):
        batch.append(item)
        if len(batch) >= 4096:
            for line in csv_lines(
                batch, style if first else dataclasses.replace(style, header=False, type_info=False)
            ):
                yield line
            first, batch = False, []
    if batch:
        for line in csv_lines(
            batch, style if first else dataclasses.replace(style, header=False, type_info=False)
        ):
            yield line


def _copy_relation(ctx: Invocation, rel: Any, target: Path, delimiter: str) -> None:
    sql = (
        f"COPY ({rel.sql}) TO {quote_literal(str(target))} "
        f"(HEADER, DELIMITER {quote_literal(delimiter)})"
    )
    ctx.write_verbose(sql)
    rel.db.execute(sql)


# ---- CSV reading ---------------------------------------------------------------------------


def parse_csv(text: str, delimiter: str, header: list[str] | None) -> list[dict[str, Any]]:
    """Records from CSV text: '#' lines before the header skipped, blank lines skipped, missing
    trailing fields $null (as PowerShell's Import-Csv)."""
    rows = [r for r in csv.reader(io.StringIO(text), delimiter=delimiter, strict=False)]
    if header is None:
        while rows and (not rows[0] or rows[0][0].startswith("#")):
            rows.pop(0)
        if not rows:
            return []
        header = rows.pop(0)
        while len(header) > 1 and header[-1] == "":
            header.pop()
    _check_header(header)
    out = []
    for row in rows:
        if not row or row == [""]:
            continue
        rec: dict[str, Any] = {}
        for i, name in enumerate(header):
            rec[name or f"H{i + 1}"] = row[i] if i < len(row) else None
        out.append(rec)
    return out


def _check_header(header: list[str]) -> None:
    seen: set[str] = set()
    for name in header:
        if name and name.lower() in seen:
            raise CommandError(
                "Import-Csv", f"the member {name!r} is already present (duplicate header)"
            )
        seen.add(name.lower())


CSV_READ_PARAMS = (
    Param("Delimiter", str, default=",", help="Field separator (one character)."),
    Param("Header", "strings", help="Column names; then the first line is data."),
    Param("UseCulture", bool, help="Accepted for compatibility."),
)


@cmdlet(
    "ConvertFrom-Csv",
    synopsis="Parse CSV lines into records (every value a string).",
    params=[Param("InputObject", "any", position=0, pipeline=BY_VALUE), *CSV_READ_PARAMS],
    examples=[
        ("'a,b', '1,2' | ConvertFrom-Csv", "One record: a=1, b=2."),
        ("'x;y' | ConvertFrom-Csv -Delimiter ';' -Header one,two", "one=x, two=y."),
    ],
    stream=True,
)
async def convert_from_csv(
    ctx: Invocation,
    *,
    input_object: Any = None,
    delimiter: str = ",",
    header: list[str] | None = None,
    use_culture: bool = False,
) -> Any:
    if len(delimiter) != 1:
        raise ParameterError("ConvertFrom-Csv", "Delimiter", f"{delimiter!r} is not one character")
    source = ctx.input if ctx.input is not None else input_object
    lines = (
        [to_string(x) for x in await collect(source)] if not isinstance(source, str) else [source]
    )
    return parse_csv("\n".join(lines), delimiter, header)


#: The files Import-Csv and Import-Clixml read.
FILES_TO_READ = Param(
    "Path", "strings", position=0, mandatory=True, aliases=("LiteralPath",), complete="files"
)


def read_files(
    ctx: Invocation, command: str, paths: list[str], encoding: str | None
) -> Iterator[tuple[Path, str]]:
    """Each file's path and text; a file that cannot be read ends the command, naming it."""
    for p in paths:
        full = ctx.state.resolve_path(p)
        try:
            yield full, read_text(full, encoding)
        except FileNotFoundError:
            raise CommandError(command, not_found(full)) from None
        except OSError as exc:
            raise CommandError(command, f"{p}: {exc.strerror}") from None


@cmdlet(
    "Import-Csv",
    aliases=("ipcsv",),
    synopsis="Read a CSV file into records (every value a string).",
    params=[
        FILES_TO_READ,
        *CSV_READ_PARAMS,
        ENCODING_PARAM,
    ],
    examples=[
        (
            "Import-Csv nodes.csv | Where-Object { $_.role -eq 'web' }",
            "Rows of a CSV file, filtered.",
        )
    ],
)
def import_csv(
    ctx: Invocation,
    *,
    path: list[str],
    delimiter: str = ",",
    header: list[str] | None = None,
    use_culture: bool = False,
    encoding: str | None = None,
) -> Any:
    if len(delimiter) != 1:
        raise ParameterError("Import-Csv", "Delimiter", f"{delimiter!r} is not one character")
    out: list[dict[str, Any]] = []
    for _, text in read_files(ctx, "Import-Csv", path, encoding):
        out += parse_csv(text, delimiter, header)
    return out


# ---- ConvertTo-Html ---------------------------------------------------------------------------

#: The XHTML 1.0 document types ConvertTo-Html writes (-Transitional picks the second).
DOCTYPES = {
    False: '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN"  '
    '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">',
    True: '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"  '
    '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">',
}
#: -Meta keys written as http-equiv (the rest as name).
HTTP_EQUIV = frozenset({"content-type", "default-style", "refresh", "x-ua-compatible"})
HtmlLayout = Literal["Table", "List"]
HTML_LAYOUTS: tuple[HtmlLayout, ...] = ("Table", "List")


@cmdlet(
    "ConvertTo-Html",
    synopsis="Convert objects to an HTML page (or -Fragment: only the table), a line a string.",
    description="Columns are the first object's properties (or -Property, calculated ones "
    "too); values are HTML-encoded. -As List gives each object's properties as name/value "
    "rows. Write the page with Out-File or Set-Content.",
    params=[
        Param("Property", "any", position=0, help="Properties (names, wildcards, calculated)."),
        Param("Head", "strings", position=1, help="The <head> content (instead of the title)."),
        Param("Title", str, position=2, help="The page's title (default HTML TABLE)."),
        Param("Body", "strings", position=3, help="Text right after <body>."),
        Param("As", str, choices=HTML_LAYOUTS, help="Table (default) or List."),
        Param("CssUri", str, aliases=("cu", "uri"), help="A style sheet to link."),
        Param("PreContent", "strings", help="Text before the table."),
        Param("PostContent", "strings", help="Text after the table."),
        Param("Meta", "hashtable", help="<meta> tags: @{refresh = 10; author = 'ops'}."),
        Param("Charset", str, help="The page's <meta charset>."),
        Param("Transitional", bool, help="The XHTML Transitional document type."),
        Param("Fragment", bool, help="Only the table (no page around it)."),
        Param("InputObject", "any", pipeline=BY_VALUE),
    ],
    examples=[
        (
            "Get-Span -Slowest 20 | ConvertTo-Html -Property service, name, dur_ns "
            "-Title 'Slow spans' | Out-File slow.html",
            "An incident report page.",
        ),
        ("Get-Node | ConvertTo-Html -Fragment", "Only the <table>, to put in a page."),
    ],
    stream=True,
)
async def convert_to_html(
    ctx: Invocation,
    *,
    property: Any = None,  # noqa: A002 - PowerShell's parameter name
    head: list[str] | None = None,
    title: str | None = None,
    body: list[str] | None = None,
    as_: str | None = None,
    css_uri: str | None = None,
    pre_content: list[str] | None = None,
    post_content: list[str] | None = None,
    meta: Mapping[str, Any] | None = None,
    charset: str | None = None,
    transitional: bool = False,
    fragment: bool = False,
    input_object: Any = None,
) -> list[str]:
    from fayshell.commands.props import expand_wildcards, parse_props

    source = ctx.input if ctx.input is not None else input_object
    items = [i for i in await collect(source) if i is not None]
    given = property if isinstance(property, list) or property is None else [property]
    specs = parse_props("ConvertTo-Html", given)
    if items and (not specs or any(s.is_wildcard for s in specs)):
        specs = expand_wildcards(specs or parse_props("", ["*"]), _html_names(items[0]))
    rows = [[await _html_cell(item, s) for s in specs] for item in items]
    table = _html_list if as_ == "List" else _html_table
    inner = [*(pre_content or []), *table([s.label for s in specs], rows), *(post_content or [])]
    if fragment:
        return inner
    top = _html_head(head, title, css_uri, meta, charset, transitional)
    return [*top, *(body or []), *inner, "</body></html>"]


def _html_names(item: Any) -> list[str]:
    """The columns of an object: its properties; a string's Length, shown under '*' (as
    PowerShell's, which has no other property to show of it)."""
    if isinstance(item, str) or not is_record(item):
        return ["*"]
    return all_property_names(item)


async def _html_cell(item: Any, spec: Any) -> str:
    """One cell's HTML-encoded text (an array as System.Object[], as PowerShell writes it)."""
    import html

    from fayshell.commands.props import evaluate

    if spec.source == "*":
        value: Any = len(item) if isinstance(item, str) else item
    else:
        value = await evaluate(item, spec)
    text = "System.Object[]" if isinstance(value, (list, tuple)) else to_string(value)
    return html.escape(text)


def _html_table(columns: list[str], rows: list[list[str]]) -> list[str]:
    import html

    header = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    return [
        "<table>",
        "<colgroup>" + "<col/>" * len(columns) + "</colgroup>",
        f"<tr>{header}</tr>",
        *("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows),
        "</table>",
    ]


def _html_list(columns: list[str], rows: list[list[str]]) -> list[str]:
    import html

    lines = ["<table>"]
    for i, row in enumerate(rows):
        if i:
            lines.append("<tr><td><hr></td></tr>")
        lines += [
            f"<tr><td>{html.escape(c)}:</td><td>{cell}</td></tr>"
            for c, cell in zip(columns, row, strict=True)
        ]
    return [*lines, "</table>"]


def _html_head(
    head: list[str] | None,
    title: str | None,
    css_uri: str | None,
    meta: Mapping[str, Any] | None,
    charset: str | None,
    transitional: bool,
) -> list[str]:
    """The page up to and with <body>."""
    import html

    lines = [DOCTYPES[transitional], '<html xmlns="http://www.w3.org/1999/xhtml">', "<head>"]
    if charset:
        lines.append(f'<meta charset="{html.escape(charset)}">')
    for key, value in (meta or {}).items():
        kind = "http-equiv" if str(key).lower() in HTTP_EQUIV else "name"
        lines.append(
            f'<meta {kind}="{html.escape(str(key))}" content="{html.escape(to_string(value))}">'
        )
    lines += head if head else [f"<title>{html.escape(title or 'HTML TABLE')}</title>"]
    if css_uri:
        lines.append(f'<link rel="stylesheet" type="text/css" href="{html.escape(css_uri)}" />')
    return [*lines, "</head><body>"]


# ---- Export-Clixml / Import-Clixml ------------------------------------------------------------


@cmdlet(
    "Export-Clixml",
    synopsis="Save objects to a file in CLIXML, PowerShell's XML of objects (Import-Clixml "
    "reads them back).",
    params=[
        Param("Path", str, position=0, mandatory=True, aliases=("LiteralPath",), complete="files"),
        Param("Depth", int, help="Levels of objects inside objects kept (default 2)."),
        Param("NoClobber", bool, help="Refuse to overwrite an existing file."),
        Param("Force", bool, help="Accepted for compatibility."),
        ENCODING_PARAM,
        Param("InputObject", "any", pipeline=BY_VALUE),
    ],
    examples=[
        (
            "Get-Span -Slowest 50 | Export-Clixml slow.xml",
            "Keep what an incident found, to Import-Clixml it later.",
        )
    ],
    stream=True,
)
async def export_clixml(
    ctx: Invocation,
    *,
    path: str,
    depth: int | None = None,
    no_clobber: bool = False,
    force: bool = False,
    encoding: str | None = None,
    input_object: Any = None,
) -> None:
    from fayshell.commands.clixml import dumps

    source = ctx.input if ctx.input is not None else input_object
    items = await collect(source) if ctx.input is not None else [source]
    full = ctx.state.resolve_path(path)
    if no_clobber and full.exists():
        raise CommandError("Export-Clixml", f"The file '{full}' already exists.")
    try:
        write_text(full, dumps(items, 2 if depth is None else depth), encoding, False)
    except OSError as exc:
        raise CommandError("Export-Clixml", f"{full}: {exc.strerror or exc}") from None


@cmdlet(
    "Import-Clixml",
    synopsis="Read objects saved by Export-Clixml (or PowerShell's): [pscustomobject]s of "
    "their properties, arrays, hashtables, numbers, strings, dates.",
    params=[
        FILES_TO_READ,
        Param("First", int, help="Only the first N objects."),
        Param("Skip", int, help="Skip the first N objects."),
    ],
    examples=[("$slow = Import-Clixml slow.xml", "What Export-Clixml saved, as objects.")],
)
def import_clixml(
    ctx: Invocation, *, path: list[str], first: int | None = None, skip: int | None = None
) -> list[Any]:
    from fayshell.commands.clixml import ClixmlError, loads

    out: list[Any] = []
    for full, text in read_files(ctx, "Import-Clixml", path, None):
        try:
            out += loads(text)
        except ClixmlError as exc:
            raise CommandError("Import-Clixml", f"{full}: {exc}") from None
    out = out[skip or 0 :]
    return out if first is None else out[:first]


#: Import-PowerShellDataFile's limits unless -SkipLimitCheck (PowerShell's).
DATA_FILE_KEYS = 500
DATA_FILE_NODES = 5000


@cmdlet(
    "Import-PowerShellDataFile",
    synopsis="Read a .psd1 data file's hashtable without running anything in it: only "
    "literals, arrays, hashtables, $true, $false and $null are allowed, as PowerShell's "
    "data language.",
    params=[
        Param(
            "Path",
            "strings",
            position=0,
            mandatory=True,
            aliases=("LiteralPath", "PSPath", "LP"),
            pipeline="property",
            complete="files",
        ),
        Param("SkipLimitCheck", bool, help="Read files of more than 500 keys or 5000 nodes."),
    ],
    examples=[
        (
            "$config = Import-PowerShellDataFile ./incident.psd1; $config.Nodes",
            "Settings for a command file, kept in a data file.",
        )
    ],
)
async def import_powershell_data_file(
    ctx: Invocation, *, path: list[str], skip_limit_check: bool = False
) -> list[Any]:
    out = []
    for full, text in read_files(ctx, "Import-PowerShellDataFile", path, None):
        table = _data_hashtable(ctx, str(full), text)
        if not skip_limit_check:
            _within_limits(str(full), table)
        out.append(await ctx.state.interpreter.eval(table, ctx.state.globals))
    return out


def _data_hashtable(ctx: Invocation, file: str, text: str) -> Any:
    """The one hashtable literal of a data file, checked to hold nothing dynamic."""
    from fayshell.lang import ast

    script = ctx.state.interpreter.parse(text, file)
    only = script.statements[0] if len(script.statements) == 1 else None
    if isinstance(only, ast.Pipeline) and len(only.elements) == 1:
        only = only.elements[0]
    if not isinstance(only, ast.HashLit):
        raise CommandError(
            "Import-PowerShellDataFile",
            f"{file} is not a PowerShell data file: it must hold one hashtable, @{{ ... }}",
        )
    _static(file, only)
    return only


def _static(file: str, node: Any) -> None:
    """Nothing in ``node`` runs code: PowerShell's error naming the first dynamic part."""
    from fayshell.lang import ast

    kids: list[Any] = []
    if isinstance(node, ast.HashLit):
        kids = [n for pair in node.pairs for n in pair]
    elif isinstance(node, ast.ArrayLit):
        kids = node.items
    elif isinstance(node, ast.ArraySubExpr):
        kids = node.body
    elif isinstance(node, ast.Pipeline) and len(node.elements) == 1:
        kids = node.elements
    elif isinstance(node, ast.Paren):
        kids = [node.pipeline]
    elif isinstance(node, ast.Unary) and node.op in "-+" and isinstance(node.operand, ast.Literal):
        kids = [node.operand]
    elif not _constant(node):
        raise CommandError(
            "Import-PowerShellDataFile",
            f"{file}:{node.line}:{node.col}: Cannot generate a PowerShell object for a "
            "ScriptBlock evaluating dynamic expressions (a data file holds only literals, "
            "arrays and hashtables).",
        )
    for kid in kids:
        _static(file, kid)


def _constant(node: Any) -> bool:
    from fayshell.lang import ast

    if isinstance(node, ast.Literal):
        return True
    if isinstance(node, ast.ExpandString):
        return all(isinstance(p, str) for p in node.parts)
    return isinstance(node, ast.VarRef) and node.name.lower() in ("true", "false", "null")


def _within_limits(file: str, table: Any) -> None:
    """PowerShell's limits on a data file read without -SkipLimitCheck."""
    from fayshell.lang import ast

    keys = nodes = 0
    stack = [table]
    while stack:
        node = stack.pop()
        nodes += 1
        if isinstance(node, ast.HashLit):
            keys += len(node.pairs)
        stack += [v for v in vars(node).values() if isinstance(v, ast.Node)]
        for v in vars(node).values():
            if isinstance(v, list):
                stack += [n for item in v for n in (item if isinstance(item, tuple) else (item,))]
    if keys > DATA_FILE_KEYS or nodes > DATA_FILE_NODES:
        raise CommandError(
            "Import-PowerShellDataFile",
            f"{file} has more than {DATA_FILE_KEYS} keys or {DATA_FILE_NODES} nodes; "
            "-SkipLimitCheck reads it anyway (only for a file you trust)",
        )


@dataclass(frozen=True)
class SelectXmlInfo:
    """One node Select-Xml found: the node, where its XML came from and the XPath."""

    TYPE_NAME = "Microsoft.PowerShell.Commands.SelectXmlInfo"

    Node: Any
    Path: str
    Pattern: str

    def __str__(self) -> str:
        return str(self.Node)


@cmdlet(
    "Select-Xml",
    synopsis="Find nodes in XML with an XPath: in files (-Path), text (-Content) or [xml] "
    "documents (-Xml, or piped); one SelectXmlInfo per node (Node, Path, Pattern).",
    description="XPath is ElementTree's subset: paths, *, //, '..', [@a], [@a='v'], [tag], "
    "[n], and a last step /@name for attributes; -Namespace maps prefixes to URIs.",
    params=[
        Param("XPath", str, position=0, mandatory=True),
        Param("Xml", "any", position=1, pipeline="value", help="[xml] documents or elements."),
        Param(
            "Path",
            "strings",
            aliases=("LiteralPath", "PSPath"),
            complete="files",
            help="XML files.",
        ),
        Param("Content", "strings", help="XML text."),
        Param("Namespace", "hashtable", help="Prefix -> namespace URI, for the XPath."),
    ],
    examples=[
        (
            "Select-Xml -Path report.xml -XPath '//testcase[failure]' | % { $_.Node.name }",
            "The failed tests of a JUnit report.",
        ),
        (
            "Invoke-Command -Node db1 'lttng --mi xml list' | % { Select-Xml -Content $_.stdout "
            "-XPath '//session/name' } | % { $_.Node.InnerText }",
            "The tracing sessions on a node, from LTTng's machine interface.",
        ),
    ],
)
def select_xml(
    ctx: Invocation,
    *,
    xpath: str,
    xml: Any = None,
    path: list[str] | None = None,
    content: list[str] | None = None,
    namespace: Any = None,
) -> list[SelectXmlInfo]:
    from fayshell.lang import xmldoc
    from fayshell.lang.values import NetException

    sources: list[tuple[str, Any]] = []
    try:
        for full, text in read_files(ctx, "Select-Xml", path or [], None):
            try:
                sources.append((str(full), xmldoc.parse(text)))
            except NetException as exc:
                raise ctx.fail(f"{full}: {exc}") from None
        sources += [("InputStream", xmldoc.parse(c)) for c in content or []]
        for item in unroll(xml):
            doc = item if isinstance(item, (xmldoc.XmlDocument, xmldoc.XmlElement)) else None
            sources.append(("InputStream", doc or xmldoc.to_xml(item)))
        return [
            SelectXmlInfo(node, where, xpath)
            for where, doc in sources
            for node in doc.SelectNodes(xpath, namespace)
        ]
    except NetException as exc:
        raise ctx.fail(str(exc)) from None


#: ConvertTo-Xml's -As: an [xml] document, one string, or its lines.
XmlAs = Literal["Document", "String", "Stream"]


@cmdlet(
    "ConvertTo-Xml",
    synopsis="Objects as one XML document (<Objects><Object Type=...><Property Name=... "
    "Type=...>), as PowerShell's ConvertTo-Xml writes it: an [xml] document, a string or "
    "its lines.",
    params=[
        Param("InputObject", "any", position=0, pipeline="value", help="The objects."),
        Param("Depth", int, help="How deep objects in properties are written (1)."),
        Param("NoTypeInformation", bool, help="No Type attributes."),
        Param("As", str, choices=get_args(XmlAs), help="Document (the default), String, Stream."),
    ],
    examples=[
        ("Get-Node | ConvertTo-Xml -As String", "The inventory's nodes as XML text."),
        ("(1, 'a' | ConvertTo-Xml).Objects.Object.Type", "System.Int32 and System.String."),
    ],
    stream=True,
)
async def convert_to_xml(
    ctx: Invocation,
    *,
    input_object: Any = None,
    depth: int | None = None,
    no_type_information: bool = False,
    as_: str = "Document",
) -> Any:
    from fayshell.lang import xmldoc

    items = await collect(ctx.input) if ctx.input is not None else unroll(input_object)
    body = [
        line
        for item in items
        for line in _xml_object(item, 1 if depth is None else depth, not no_type_information)
    ]
    lines = ['<?xml version="1.0" encoding="utf-8"?>', "<Objects>", *body, "</Objects>"]
    text = "\n".join(lines)
    if as_.lower() == "string":
        return text
    if as_.lower() == "stream":
        return lines
    return xmldoc.parse(text)


def _xml_object(item: Any, depth: int, typed: bool) -> list[str]:
    """One ``<Object>`` of ConvertTo-Xml, indented under ``<Objects>``."""
    return _xml_node("Object", None, item, depth, typed, "  ")


def _xml_node(
    tag: str, name: str | None, value: Any, depth: int, typed: bool, pad: str
) -> list[str]:
    from xml.sax.saxutils import escape, quoteattr

    attrs = "" if name is None else f" Name={quoteattr(name)}"
    if value is None:
        return [f"{pad}<{tag}{attrs} />"]
    if typed:
        attrs += f" Type={quoteattr(full_type(value))}"
    if isinstance(value, (list, tuple)) and depth > 0:
        inner = [
            line
            for v in value
            for line in _xml_node("Property", None, v, depth - 1, typed, pad + "  ")
        ]
        return [f"{pad}<{tag}{attrs}>", *inner, f"{pad}</{tag}>"]
    if is_record(value) and not isinstance(value, str) and depth > 0:
        inner = [
            line
            for n, v in all_properties(value).items()
            for line in _xml_node("Property", n, v, depth - 1, typed, pad + "  ")
        ]
        return [f"{pad}<{tag}{attrs}>", *inner, f"{pad}</{tag}>"]
    return [f"{pad}<{tag}{attrs}>{escape(to_string(value))}</{tag}>"]
