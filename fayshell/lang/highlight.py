"""A pygments lexer for the fayshell language (registered as the ``fayshell`` entry point).

The text after ``sql`` is highlighted as SQL. Only the REPL imports this module.
"""

from __future__ import annotations

import re
from typing import ClassVar

from pygments.lexer import RegexLexer, bygroups, using, words
from pygments.lexers.sql import SqlLexer
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Whitespace,
)

from fayshell.lang.parser import CASE_PREFIXED, COMPARISON_OPS, KEYWORDS, LOGICAL_OPS, NAMED_BLOCKS

OPERATOR_WORDS = tuple(
    "-" + op for op in LOGICAL_OPS + COMPARISON_OPS + CASE_PREFIXED + ("not", "f", "bnot")
)


class FayLexer(RegexLexer):
    """Highlights cmdlets, parameters, variables, strings, numbers with units and operators."""

    name = "fayshell"
    aliases: ClassVar[list[str]] = ["fayshell", "fay"]
    filenames: ClassVar[list[str]] = ["*.fay"]
    flags = re.MULTILINE

    tokens: ClassVar[dict[str, list]] = {
        "root": [
            (
                r"(?i)(\bsql\b)([ \t]+)((?:'[^']*'|\"[^\"]*\"|\|\||[^|\n;])+)",
                bygroups(Name.Builtin, Whitespace, using(SqlLexer)),
            ),
            (r"<#", Comment.Multiline, "blockcomment"),
            (r"#.*$", Comment.Single),
            (r"\s+", Whitespace),
            (r"'(?:''|[^'])*'?", String.Single),
            (r'"', String.Double, "dq"),
            (r"\$\{[^}]*\}|\$[A-Za-z0-9_?^]+(?::[A-Za-z0-9_]+)?", Name.Variable),
            (r"@\"\s*\n(?:.*\n)*?\"@", String.Double),
            (r"@'\s*\n(?:.*\n)*?'@", String.Single),
            (
                words(
                    tuple(sorted(KEYWORDS)) + NAMED_BLOCKS + ("default",),
                    prefix=r"(?i)\b",
                    suffix=r"\b",
                ),
                Keyword,
            ),
            (r"\?\?=?|&&|\|\||\+\+|--(?=\$)|::", Operator),
            (words(OPERATOR_WORDS, prefix=r"(?i)", suffix=r"\b"), Operator.Word),
            (r"-[A-Za-z_][A-Za-z0-9_]*:?", Name.Attribute),
            (r"(?i)\b\d+(\.\d+)?(ns|us|ms|s|m|h|kb|mb|gb|tb)\b", Number),
            (r"(?i)\b0x[0-9a-f]+\b|\b\d+(\.\d+)?(e[+-]?\d+)?\b", Number),
            (r"\b[A-Za-z]+-[A-Za-z][A-Za-z0-9]*\b", Name.Builtin),
            (r"\.\.|[=+*/%!]|-(?=\s)", Operator),
            (r"[@{}()\[\];,|.]", Punctuation),
            (r"[^\s$'\"|;(){}\[\],]+", Text),
        ],
        "dq": [
            (r'""|`.', String.Escape),
            (r"\$\([^)]*\)", String.Interpol),
            (r"\$[A-Za-z0-9_?^]+", String.Interpol),
            (r'"', String.Double, "#pop"),
            (r'[^"`$]+|\$', String.Double),
        ],
        "blockcomment": [
            (r"#>", Comment.Multiline, "#pop"),
            (r"[^#]+|#", Comment.Multiline),
        ],
    }
