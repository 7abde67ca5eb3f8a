"""The parser on specific constructs, and its error messages."""

from __future__ import annotations

import pytest

from fayshell.errors import IncompleteInput, ParseError
from fayshell.lang import ast
from fayshell.lang.parser import parse
from fayshell.lang.values import Duration, Size


def only(src: str) -> ast.Node:
    script = parse(src)
    assert len(script.statements) == 1
    return script.statements[0]


def test_command_arguments_in_argument_mode() -> None:
    node = only("Get-Node web[01-16]!web07 -Sev:Warning -Rotate 2s -BufferSize 4MB -Live @ops")
    assert isinstance(node, ast.Pipeline)
    cmd = node.elements[0]
    assert isinstance(cmd, ast.Command) and cmd.name == "Get-Node"
    literal_values = [a.value for a in cmd.args if isinstance(a, ast.Literal)]
    assert literal_values[0] == "web[01-16]!web07"
    assert isinstance(literal_values[1], Duration) and isinstance(literal_values[2], Size)
    assert [a.name for a in cmd.args if isinstance(a, ast.Splat)] == ["ops"]
    sev = cmd.args[1]
    assert isinstance(sev, ast.ParamArg) and sev.name == "Sev"
    assert isinstance(sev.value, ast.Literal) and sev.value.value == "Warning"


def test_comma_list_argument_is_an_array() -> None:
    node = only("Enable-Tracepoint -Name open*,read,write")
    assert isinstance(node, ast.Pipeline)
    arg = node.elements[0].args[1]  # type: ignore[attr-defined]
    assert isinstance(arg, ast.ArrayLit)
    assert [i.value for i in arg.items] == ["open*", "read", "write"]


def test_statements_split_on_newlines_and_semicolons_with_comments() -> None:
    script = parse("1; 2 # two\n<# block\ncomment #> 3\n\n4")
    assert len(script.statements) == 4


def test_trailing_pipe_continues_the_pipeline() -> None:
    node = only("1..3 |\n  ForEach-Object { $_ } |\n\n  Sort-Object")
    assert isinstance(node, ast.Pipeline) and len(node.elements) == 3


def test_backtick_continues_a_line() -> None:
    node = only("Get-Help `\n  Where-Object")
    assert isinstance(node, ast.Pipeline)
    assert len(node.elements[0].args) == 1  # type: ignore[attr-defined]


def test_sql_takes_rest_of_line_up_to_lone_pipe() -> None:
    node = only("sql SELECT 'a|b' || x FROM t WHERE (y = 1\n  OR y = 2) | Select-Object -First 1")
    assert isinstance(node, ast.Pipeline)
    sql = node.elements[0]
    assert isinstance(sql, ast.Command)
    assert sql.raw_tail == "SELECT 'a|b' || x FROM t WHERE (y = 1\n  OR y = 2)"


@pytest.mark.parametrize("text", ['"SELECT $x"', "'SELECT 1'", "$q", "@'\nSELECT 1\n'@"])
def test_sql_given_a_string_or_variable_parses_it_as_an_argument(text) -> None:
    node = only(f"sql {text} | Select-Object -First 1")
    assert isinstance(node, ast.Pipeline)
    sql = node.elements[0]
    assert isinstance(sql, ast.Command) and sql.raw_tail is None and len(sql.args) == 1


def test_calculated_property_hashtable() -> None:
    node = only("@{n='ms'; e={ $_.dur_ns / 1e6 }}")
    assert isinstance(node, ast.HashLit) and len(node.pairs) == 2
    assert isinstance(node.pairs[1][1], ast.ScriptBlockLit)


def test_function_with_param_block() -> None:
    node = only("function Get-Slow { param([int]$limit = 50, $svc)\n $limit }")
    assert isinstance(node, ast.FunctionDef)
    assert [(p.name, p.type) for p in node.params] == [("limit", "int"), ("svc", None)]


@pytest.mark.parametrize(
    "src, where, message, expected",
    [
        ("1 +* 2", (1, 4), "unexpected '*'", "an expression"),
        ("Get-Node | | x", (1, 12), "unexpected '|'", "a command or expression"),
        ("if ($x) { 1 } else 2", (1, 20), "unexpected '2'", "'{'"),
        ("foreach ($x of 1) {}", (1, 13), "unexpected 'of'", "'in'"),
        ("$a = @{ k 1 }", (1, 11), "unexpected '1'", "'=' after the key"),
        ("1 2", (1, 3), "unexpected '2'", "end of statement"),
    ],
)
def test_parse_errors_point_at_the_spot(src, where, message, expected) -> None:
    with pytest.raises(ParseError) as info:
        parse(src, "incident.fay")
    err = info.value
    assert not isinstance(err, IncompleteInput)
    assert (err.span.line, err.span.col) == where
    assert message in err.message
    assert expected in err.expected
    lines = err.with_caret().splitlines()
    assert lines[0].startswith(f"incident.fay:{where[0]}:{where[1]}: ")
    assert lines[1] == "    " + src.splitlines()[where[0] - 1]
    assert lines[2] == "    " + " " * (where[1] - 1) + "^"


@pytest.mark.parametrize(
    "src",
    [
        "Get-Node 'abc",
        '"abc',
        "{ 1",
        "(1 + 2",
        "1 |",
        "@(1,",
        "foreach ($x in 1) {",
        "$x = ",
        "<# open",
        "$a[1",
    ],
)
def test_unfinished_input_is_incomplete(src) -> None:
    with pytest.raises(IncompleteInput):
        parse(src)


def test_error_on_a_later_line_reports_that_line() -> None:
    with pytest.raises(ParseError) as info:
        parse("Get-Node\n$x = 1\n$y = (2 +)\n", "s.fay")
    assert str(info.value.span) == "s.fay:3:10"
    assert info.value.span.text == "$y = (2 +)"


def test_new_statements_parse_to_their_nodes() -> None:
    assert isinstance(only("for ($i = 0; $i -lt 3; $i++) { $i }"), ast.For)
    loop = only("do { 1 } until ($x)")
    assert isinstance(loop, ast.DoLoop) and loop.until
    sw = only("switch -Regex -CaseSensitive ($x) { 'a' { 1 } default { 2 } }")
    assert isinstance(sw, ast.Switch) and sw.flags == {"regex", "casesensitive"}
    assert sw.clauses[1].pattern is None
    t = only("try { 1 } catch [System.IO.IOException], [ArgumentException] { 2 } finally { 3 }")
    assert isinstance(t, ast.Try) and t.catches[0].types == [
        "system.io.ioexception",
        "argumentexception",
    ]
    assert t.finally_body is not None
    assert isinstance(only("trap [Exception] { continue }"), ast.Trap)
    assert isinstance(only("exit 3"), ast.Exit)


def test_operators_parse_to_their_nodes() -> None:
    tern = only("$a ? 1 : 2")
    assert isinstance(tern, ast.Ternary)
    co = only("$a ?? 'd'")
    assert isinstance(co, ast.Binary) and co.op == "??"
    assign = only("$a ??= 5")
    assert isinstance(assign, ast.Assign) and assign.op == "??="
    inc = only("$i++")
    assert isinstance(inc, ast.IncDec) and not inc.prefix and inc.op == "++"
    pre = only("--$i")
    assert isinstance(pre, ast.IncDec) and pre.prefix
    chain = only("Get-A && Get-B || Get-C")
    assert isinstance(chain, ast.Chain) and chain.op == "||"
    assert isinstance(chain.left, ast.Chain)
    split = only("-split $s")
    assert isinstance(split, ast.Unary) and split.op == "-split"
    static = only("[Math]::Round(2.5, 1)")
    assert isinstance(static, ast.StaticMember) and static.name == "Round"
    assert len(static.args or []) == 2
    is_ = only("$x -is [int] -and $true")
    assert isinstance(is_, ast.Binary) and is_.op == "and"
    assert isinstance(is_.left, ast.Binary) and isinstance(is_.left.right, ast.TypeLit)


def test_here_strings_and_redirections_and_calls() -> None:
    here = only('@"\nline $x\n"@')
    assert isinstance(here, ast.ExpandString) and here.parts[0] == "line "
    lit = only("@'\nraw $x\n'@")
    assert isinstance(lit, ast.Literal) and lit.value == "raw $x"
    pipe = only("Get-Thing 2>&1 > out.txt")
    cmd = pipe.elements[0]
    assert [(s, op) for s, op, _ in cmd.redirects] == [("2", ">&"), ("1", ">")]
    call = only("& $sb 1 -Name x").elements[0]
    assert call.name == "&" and isinstance(call.callee, ast.VarRef) and len(call.args) == 3
    dot = only(". ./lib.fay").elements[0]
    assert dot.name == "." and isinstance(dot.callee, ast.Literal)
    fn = only(
        "function f { [CmdletBinding()] param([Parameter(Mandatory)][string[]]$n) "
        "begin { 1 } process { 2 } end { 3 } }"
    )
    assert fn.params[0].mandatory and fn.params[0].type == "string[]"
    assert fn.named is not None and set(fn.named) == {"begin", "process", "end"}


def test_typed_assignment_casts_the_value() -> None:
    node = only("[int]$x = '42'")
    assert isinstance(node, ast.Assign) and isinstance(node.value, ast.Cast)
    assert node.value.type == "int"
    multi = only("$a, $b = 1, 2")
    assert isinstance(multi, ast.Assign) and isinstance(multi.target, ast.ArrayLit)
    labelled = only(":outer foreach ($i in 1..2) { break outer }")
    assert isinstance(labelled, ast.Foreach) and labelled.label == "outer"
    assert isinstance(labelled.body[0], ast.Break) and labelled.body[0].target == "outer"


def test_script_level_param_block() -> None:
    script = parse("# header\n[CmdletBinding()]\nparam($Name, [int]$N = 2)\n$Name\n")
    assert [p.name for p in script.params] == ["Name", "N"]
    assert len(script.statements) == 1


def test_using_statements_come_first_and_only_namespaces_are_taken() -> None:
    script = parse(
        "#requires -Version 7\nusing namespace System.Collections.Generic\n"
        "using namespace System.Text;\n[CmdletBinding()]\nparam($Name)\n$Name\n"
    )
    assert [p.name for p in script.params] == ["Name"] and len(script.statements) == 1
    assert len(parse("using namespace System.Text; $x = 1").statements) == 1
    assert len(parse("$x = 1\nusing namespace System.Text").statements) == 2  # at a prompt
    for kind in ("module", "assembly"):
        with pytest.raises(ParseError, match=f"using {kind}: fayshell has no modules"):
            parse(f"using {kind} Foo\n$x")
    (assign,) = parse("$using = 1").statements  # only the statement is a keyword
    assert isinstance(assign, ast.Assign)


def test_assignment_to_a_member_or_index_of_a_parenthesised_expression() -> None:
    for src in ["(Get-Item x).LastWriteTime = $d", "($a)[1] += 2", "(Get-X).a.b['k'] = 1"]:
        (stmt,) = parse(src).statements
        assert isinstance(stmt, ast.Assign), src
    for src in ["(1, 2)[0]", "(1 + 2)", "($a)[0] -eq 1", "(Get-X).a -eq 2"]:
        (stmt,) = parse(src).statements
        assert not isinstance(stmt, ast.Assign), src
    # a comment with an apostrophe or a parenthesis before it does not hide the assignment
    script = parse("# it's (here\n<# ' ( #>\n($o).p = 1")
    assert isinstance(script.statements[-1], ast.Assign)


def test_parameter_sets_and_the_default_set_are_read_from_attributes() -> None:
    fn = only(
        "function f { [CmdletBinding(DefaultParameterSetName = 'ById')] "
        "param([Parameter(Mandatory, ParameterSetName = 'ByName')]"
        "[Parameter(ParameterSetName = 'ById')]$x, [Parameter(Mandatory)]$y, $z) }"
    )
    assert isinstance(fn, ast.FunctionDef) and fn.default_set == "ById"
    assert [(p.name, p.mandatory, p.sets) for p in fn.params] == [
        ("x", False, [("ByName", True), ("ById", False)]),
        ("y", True, []),
        ("z", False, []),
    ]
