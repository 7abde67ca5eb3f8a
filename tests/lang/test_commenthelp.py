"""Comment-based help sections, and where a function's help comment is found."""

from __future__ import annotations

from fayshell.lang.commenthelp import CommentHelp, comments, function_help, parse_help

BLOCK = """
    .SYNOPSIS
        Does f things.
    .DESCRIPTION
        Long text
          indented more.
    .PARAMETER Node
        The node.
    .EXAMPLE
        f -Node a
    .EXAMPLE
        f -Node b
    .notes
        lower-case keywords count too.
    .LINK
        about_Comment_Based_Help
"""


def test_sections_are_read_with_their_indentation_removed() -> None:
    found = parse_help(BLOCK)
    assert found == CommentHelp(
        synopsis="Does f things.",
        description="Long text\n  indented more.",
        parameters={"Node": "The node."},
        examples=("f -Node a", "f -Node b"),
        notes="lower-case keywords count too.",
        links=("about_Comment_Based_Help",),
    )


def test_a_comment_without_keywords_is_not_help() -> None:
    assert parse_help("just a note\n.not a keyword") is None
    assert function_help("param($a) # a comment", ["# the function below"]) is None


def test_comment_blocks_and_line_runs() -> None:
    text = "<# one\ntwo #>\ncode\n# three\n# four\ncode # trailing"
    assert comments(text) == [" one\ntwo ", " three\n four"]


def test_help_is_found_in_the_body_first_then_above_the_function() -> None:
    body = "\n  <#\n  .SYNOPSIS\n  inside\n  #>\n  param($a)\n"
    assert function_help(body, ["# .SYNOPSIS", "# above"]).synopsis == "inside"
    above = ["<#", ".SYNOPSIS", "above", "#>", ""]  # one blank line between is allowed
    assert function_help("param($a)", above).synopsis == "above"
    assert function_help("param($a)", ["# .SYNOPSIS", "#   lines", ""]).synopsis == "lines"
    assert function_help("param($a)", ["# .SYNOPSIS", "# far", "", ""]) is None
