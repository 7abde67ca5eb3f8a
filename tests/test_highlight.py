"""The pygments lexer is registered as an entry point and highlights the language's parts."""

from __future__ import annotations

from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Keyword, Name, Number, Operator, String

from fayshell.lang.highlight import FayLexer


def test_registered_as_pygments_entry_point() -> None:
    assert isinstance(get_lexer_by_name("fayshell"), FayLexer)


def test_tokens() -> None:
    toks = list(
        FayLexer().get_tokens(
            "Get-Node -Sev Warning | ? { $_.dur -gt 50ms } # note\nsql SELECT a FROM t"
        )
    )
    kinds = {(str(v), t) for t, v in toks}
    assert ("Get-Node", Name.Builtin) in kinds
    assert ("-Sev", Name.Attribute) in kinds
    assert ("$_", Name.Variable) in kinds
    assert ("-gt", Operator.Word) in kinds
    assert ("50ms", Number) in kinds
    assert ("# note", Comment.Single) in kinds
    assert ("SELECT", Keyword) in kinds  # the text after sql is lexed as SQL


def test_new_keywords_and_operators() -> None:
    toks = list(
        FayLexer().get_tokens(
            "try { $a ?? 1 } catch { switch ($x) { default { 'x' -creplace 'a' } } }\n"
            "for ($i = 0; $i -lt 2; $i++) { }\n$h = @'\nraw\n'@\n"
        )
    )
    kinds = {(str(v), t) for t, v in toks}
    for word in ("try", "catch", "switch", "default", "for"):
        assert (word, Keyword) in kinds
    assert ("??", Operator) in kinds and ("++", Operator) in kinds
    assert ("-creplace", Operator.Word) in kinds
    assert any(t in String.Single and "raw" in v for v, t in kinds)
