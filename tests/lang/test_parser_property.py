"""Property test: any input parses to a syntax tree or raises ParseError -- nothing else."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fayshell.errors import ParseError
from fayshell.lang import ast
from fayshell.lang.parser import parse

TOKENS = st.sampled_from(
    [
        "$x",
        "$_",
        "$_.dur_ms",
        " ",
        "\n",
        ";",
        "|",
        "{",
        "}",
        "(",
        ")",
        "@(",
        "@{",
        "[",
        "]",
        ",",
        "'s'",
        '"a $b $(1)"',
        "'",
        '"',
        "`",
        "#c",
        "<#",
        "#>",
        "-eq",
        "-and",
        "-not",
        "!",
        "-Name",
        "-Sev:",
        "Get-Node",
        "Where-Object",
        "?",
        "%",
        "sql SELECT 1",
        "if",
        "else",
        "elseif",
        "foreach",
        "in",
        "function",
        "param",
        "return",
        "break",
        "=",
        "+=",
        "+",
        "-",
        "*",
        "/",
        "..",
        "1",
        "2.5",
        "500ms",
        "4KB",
        "0x1F",
        "web[01-16]",
        "@g",
        "=",
        "[int]",
        ".",
        ":",
    ]
)


def check(src: str) -> None:
    try:
        tree = parse(src, "prop.fay")
    except ParseError as exc:
        assert exc.span.line >= 1 and exc.span.col >= 1
        assert exc.with_caret().startswith("prop.fay:")
        return
    assert isinstance(tree, ast.Script)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(TOKENS, max_size=25).map("".join))
def test_token_soup_parses_or_raises_parse_error(src: str) -> None:
    check(src)


@settings(max_examples=800, deadline=None)
@given(st.text(max_size=80))
def test_arbitrary_text_parses_or_raises_parse_error(src: str) -> None:
    check(src)


def test_deep_nesting_is_a_parse_error_not_a_crash() -> None:
    check("(" * 5000 + "1" + ")" * 5000)
    check("{" * 3000)
    check("0x1F500ms")
    check("1e3ms")


def test_at_before_a_non_ascii_letter_is_a_word_not_a_splat() -> None:
    """Found by the property test above: '@À' made the parser fail an internal assertion."""
    from fayshell.lang.parser import parse

    (command,) = parse("?\t@À").statements[0].elements
    assert [(type(a).__name__, a.value) for a in command.args] == [("Literal", "@À")]


def test_dash_before_a_non_ascii_letter_is_a_word_not_a_parameter() -> None:
    """Found by the property test above: '-µ' made the parser fail an internal assertion."""
    from fayshell.lang.parser import parse

    (command,) = parse("?\t-µ").statements[0].elements
    assert [(type(a).__name__, a.value) for a in command.args] == [("Literal", "-µ")]
