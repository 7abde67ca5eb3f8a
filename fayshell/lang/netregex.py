"""``[regex]`` as .NET has it: the static methods (case-sensitive, as .NET's are), a
``[regex]'pattern'`` object with the same methods, and matches whose groups answer by number
or by name (``$m.Groups['year'].Value``)."""

from __future__ import annotations

import re
from typing import Any

from fayshell.lang.dotnet import regex, replacement
from fayshell.lang.values import MatchGroup, MatchInfo

#: The characters .NET's Regex.Escape escapes with a backslash, and the white space it writes
#: as an escape sequence (it leaves ']' and '}' alone, unlike Python's re.escape).
_ESCAPED = frozenset("\\*+?|{[()^$.# ")
_WHITESPACE = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f", "\v": "\\v"}
_UNESCAPED = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "e": "\x1b"}


def escape(text: str) -> str:
    """``[regex]::Escape``: ``text`` as a pattern that matches it literally."""
    return "".join(_WHITESPACE.get(ch) or ("\\" + ch if ch in _ESCAPED else ch) for ch in text)


def unescape(text: str) -> str:
    """``[regex]::Unescape``: each ``\\x`` as the character it stands for."""
    return re.sub(r"\\(.)", lambda m: _UNESCAPED.get(m.group(1), m.group(1)), text, flags=re.S)


class GroupCollection(list[MatchGroup]):
    """A match's groups: by number (``[1]``) or by a named group's name (``['year']``)."""

    def __init__(self, groups: list[MatchGroup], names: dict[str, int]) -> None:
        super().__init__(groups)
        self.names = names

    def named(self, name: str) -> MatchGroup | None:
        at = self.names.get(name)
        return self[at] if at is not None else None


def match_info(m: re.Match[str] | None) -> MatchInfo:
    """A .NET Match for ``m`` (a failed one, Success False, for None)."""
    if m is None:
        return MatchInfo("", 0, 0, GroupCollection([], {}), False)
    groups = [MatchGroup(g or "") for g in (m.group(0), *m.groups())]
    return MatchInfo(
        m.group(0), m.start(), len(m.group(0)), GroupCollection(groups, dict(m.re.groupindex))
    )


class Regex:
    """A ``[regex]'pattern'`` (or ``[regex]::new(pattern, 'IgnoreCase')``): case-sensitive
    unless its options say IgnoreCase; as text, its pattern."""

    def __init__(self, pattern: str, options: str = "") -> None:
        self.pattern = pattern
        self.Options = options or "None"
        low = options.lower()
        extra = (re.MULTILINE if "multiline" in low else 0) | (
            re.DOTALL if "singleline" in low else 0
        )
        self.compiled = regex(pattern, "ignorecase" not in low, extra)

    def __str__(self) -> str:
        return self.pattern

    def ToString(self) -> str:  # noqa: N802 - .NET method name
        return self.pattern

    def IsMatch(self, text: Any) -> bool:  # noqa: N802 - .NET method name
        return self.compiled.search(str(text)) is not None

    def Match(self, text: Any, start: int = 0) -> MatchInfo:  # noqa: N802 - .NET method name
        return match_info(self.compiled.search(str(text), int(start)))

    def Matches(self, text: Any) -> list[MatchInfo]:  # noqa: N802 - .NET method name
        return [match_info(m) for m in self.compiled.finditer(str(text))]

    def Replace(self, text: Any, by: Any, count: int = -1) -> str:  # noqa: N802
        return self.compiled.sub(replacement(str(by)), str(text), max(int(count), 0))

    def Split(self, text: Any) -> list[str]:  # noqa: N802 - .NET method name
        return self.compiled.split(str(text))

    def GetGroupNames(self) -> list[str]:  # noqa: N802 - .NET method name
        named = self.compiled.groupindex
        numbered = [str(i) for i in range(self.compiled.groups + 1) if i not in named.values()]
        return numbered + list(named)


def static(name: str, args: list[str]) -> Any:
    """``[regex]::Name(args)`` (texts), or NotImplemented for a name .NET's Regex lacks."""
    low = name.lower()
    if low in ("escape", "unescape") and args:
        return (escape if low == "escape" else unescape)(args[0])
    if low == "new" and args:
        return Regex(*args[:2])
    if low in METHODS and len(args) >= 2:
        return getattr(Regex(args[1], args[2] if len(args) > 2 else ""), METHODS[low])(args[0])
    if low == "replace" and len(args) >= 3:
        return Regex(args[1], args[3] if len(args) > 3 else "").Replace(args[0], args[2])
    return NotImplemented


#: The static methods that take (input, pattern[, options]), by their lower-case names.
METHODS = {"ismatch": "IsMatch", "match": "Match", "matches": "Matches", "split": "Split"}
