"""[regex] as .NET has it: Escape/Unescape, the static methods, and [regex]'p' objects."""

from __future__ import annotations

import re

import pytest

from fayshell.lang.netregex import Regex, escape, unescape


@pytest.mark.parametrize(
    "text, escaped",
    [
        ("a.b", "a\\.b"),
        ("a-b]}", "a-b]}"),  # .NET leaves '-', ']' and '}' alone (Python's re.escape does not)
        ("x y\tz", "x\\ y\\tz"),
        ("$5 (50%) #1 [x]^", "\\$5\\ \\(50%\\)\\ \\#1\\ \\[x]\\^"),
        ("back\\slash|or*+?{", "back\\\\slash\\|or\\*\\+\\?\\{"),
    ],
)
def test_escape_is_dotnets(text: str, escaped: str) -> None:
    assert escape(text) == escaped
    assert unescape(escaped) == text
    assert re.fullmatch(escaped.replace("\\ ", " ").replace("\\#", "#"), text)


def test_regex_objects_are_case_sensitive_unless_told() -> None:
    rx = Regex(r"(?<year>\d{4})-(\d\d)")
    m = rx.Match("on 2024-03")
    assert (m.Success, m.Value, m.Index) == (True, "2024-03", 3)
    assert m.Groups.named("year") is not None and m.Groups.named("year").Value == "2024"
    assert m.Groups[2].Value == "03"
    assert rx.GetGroupNames() == ["0", "2", "year"]
    assert not Regex("b").IsMatch("ABC") and Regex("b", "IgnoreCase").IsMatch("ABC")
    assert Regex("^b", "Multiline").Matches("a\nb")[0].Index == 2
    assert Regex(r"\d").Replace("a1b2c3", "#", 2) == "a#b#c3"
    assert Regex(r"(\d)").Replace("a1", "<$1>") == "a<1>"
    assert Regex(r"(,)").Split("a,b") == ["a", ",", "b"]  # captures kept, as .NET keeps them
    assert not Regex("z").Match("abc").Success
