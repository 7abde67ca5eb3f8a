"""Comment-based help (about_Comment_Based_Help): the ``.SYNOPSIS``, ``.DESCRIPTION``,
``.PARAMETER``, ``.EXAMPLE`` ... sections of a function's help comment, found at the start or
the end of its body, or right before its ``function`` keyword (at most one blank line
between)."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

#: The section keywords PowerShell reads (any case); a comment without one is not help.
KEYWORDS = (
    "synopsis",
    "description",
    "parameter",
    "example",
    "inputs",
    "outputs",
    "notes",
    "link",
    "component",
    "role",
    "functionality",
)
_SECTION = re.compile(r"^\s*\.([A-Za-z]+)[ \t]*(\S*)\s*$")


@dataclass(frozen=True)
class CommentHelp:
    """One function's help sections (texts with their common indentation removed)."""

    synopsis: str = ""
    description: str = ""
    #: ``.PARAMETER name`` texts, by the name as written.
    parameters: dict[str, str] = field(default_factory=dict)
    examples: tuple[str, ...] = ()
    notes: str = ""
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    links: tuple[str, ...] = ()


def parse_help(comment: str) -> CommentHelp | None:
    """The sections of one comment's text (without ``<#``/``#>`` or ``#``); None when it has
    no section keyword."""
    sections: list[tuple[str, str, list[str]]] = []
    for line in comment.splitlines():
        m = _SECTION.match(line)
        if m and m.group(1).lower() in KEYWORDS:
            sections.append((m.group(1).lower(), m.group(2), []))
        elif sections:
            sections[-1][2].append(line)
    if not sections:
        return None
    texts = [(key, arg, textwrap.dedent("\n".join(lines)).strip()) for key, arg, lines in sections]
    one = {key: text for key, _, text in reversed(texts)}  # the first of each, as PowerShell
    many = {
        key: tuple(t for k, _, t in texts if k == key)
        for key in ("example", "inputs", "outputs", "link")
    }
    return CommentHelp(
        synopsis=one.get("synopsis", ""),
        description=one.get("description", ""),
        parameters={arg: text for key, arg, text in texts if key == "parameter" and arg},
        examples=many["example"],
        notes=one.get("notes", ""),
        inputs=many["inputs"],
        outputs=many["outputs"],
        links=many["link"],
    )


def comments(text: str) -> list[str]:
    """Each comment of ``text`` in order: a ``<# ... #>`` block, or a run of ``#`` lines."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped.startswith("<#"):
            block = [stripped[2:]]
            while "#>" not in block[-1] and i + 1 < len(lines):
                i += 1
                block.append(lines[i])
            block[-1] = block[-1].split("#>", 1)[0]
            out.append("\n".join(block))
        elif stripped.startswith("#"):
            run = []
            while i < len(lines) and lines[i].strip().startswith("#"):
                run.append(lines[i].strip()[1:])
                i += 1
            out.append("\n".join(run))
            continue
        i += 1
    return out


def function_help(body: str, before: list[str]) -> CommentHelp | None:
    """A function's help: in its ``body`` (the first comment, else the last, that has
    sections), else in the lines ``before`` its ``function`` keyword."""
    found = [h for h in map(parse_help, comments(body)) if h is not None]
    if found:
        return found[0]
    return parse_help(_comment_above(before))


def _comment_above(lines: list[str]) -> str:
    """The comment ending on the last of ``lines`` (or the one before a blank last line)."""
    end = len(lines)
    if end and not lines[end - 1].strip():
        end -= 1
    if not end or not lines[end - 1].strip().startswith(("#", "<#")) and "#>" not in lines[end - 1]:
        return ""
    start = end - 1
    if "#>" in lines[end - 1]:
        while start > 0 and "<#" not in lines[start]:
            start -= 1
    else:
        while start > 0 and lines[start - 1].strip().startswith("#"):
            start -= 1
    found = comments("\n".join(lines[start:end]))
    return found[-1] if found else ""
