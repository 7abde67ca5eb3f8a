"""Tab completion reads the cmdlet declarations, variables and the database schema."""

from __future__ import annotations

from fayshell.completion import complete


def texts(state, line: str) -> list[str]:
    return [c.text for c in complete(state, line)]


async def test_cmdlets_and_aliases_at_start_and_after_pipe(shell) -> None:
    assert "Where-Object" in texts(shell.state, "Wher")
    assert texts(shell.state, "1 | Sort-O") == ["Sort-Object"]
    assert "select" in texts(shell.state, "x | sel")


async def test_parameters_of_the_current_cmdlet(shell) -> None:
    assert texts(shell.state, "Select-Object -Ex") == ["-ExpandProperty", "-ExcludeProperty"]
    assert "-Verbose" in texts(shell.state, "Where-Object -V")


async def test_parameter_value_choices_and_variables(shell) -> None:
    assert texts(shell.state, "Get-Help Where-Object -ErrorAction S") == [
        "Stop",
        "SilentlyContinue",
    ]
    await shell.run("$webNodes = 1")
    assert texts(shell.state, "$webN") == ["$webNodes"]
    assert "Measure-Object" in texts(shell.state, "Get-Help Meas")


async def test_tables_and_columns_after_sql(shell) -> None:
    await shell.run("sql CREATE TABLE syscalls_demo (node VARCHAR, dur_ns BIGINT)")
    assert texts(shell.state, "sql SELECT * FROM sysc") == ["syscalls_demo"]
    assert texts(shell.state, "sql SELECT dur") == ["dur_ns"]


async def test_completion_candidate_replaces_the_word(shell) -> None:
    (cand,) = complete(shell.state, "1 | Measure-Obj")
    assert (cand.text, cand.start, cand.meta) == ("Measure-Object", len("Measure-Obj"), "command")


def kinds(state, line: str) -> list[tuple[str, str]]:
    return [(c.text, c.meta) for c in complete(state, line)]


async def _calls_table(shell) -> None:
    await shell.run(
        "sql CREATE TABLE calls (node VARCHAR, name VARCHAR, dur_ns BIGINT, dur_ms DOUBLE)"
    )
    await shell.run("sql INSERT INTO calls VALUES ('n1', 'read', 5, 0.000005)")


async def test_columns_of_the_relation_flowing_in(shell) -> None:
    await _calls_table(shell)
    assert kinds(shell.state, "sql SELECT * FROM calls | Sort-Object dur") == [
        ("dur_ns", "column"),
        ("dur_ms", "column"),
    ]
    assert texts(shell.state, "sql SELECT * FROM calls | Sort-Object -Property n") == [
        "node",
        "name",
    ]
    assert texts(shell.state, "sql SELECT node, dur_ns FROM calls | Select-Object ") == [
        "node",
        "dur_ns",
    ]
    assert texts(
        shell.state, "sql SELECT * FROM calls | Select-Object node, name | Sort-Object "
    ) == ["node", "name"]
    assert texts(shell.state, "sql SELECT * FROM calls | Group-Object node | Sort-Object C") == [
        "Count"
    ]
    await shell.run("$rel = sql SELECT * FROM calls")
    assert texts(shell.state, "$rel | Measure-Object -Property dur") == ["dur_ns", "dur_ms"]


async def test_dollar_underscore_members_inside_a_block(shell) -> None:
    await _calls_table(shell)
    assert kinds(shell.state, "sql SELECT * FROM calls | Where-Object { $_.du") == [
        ("dur_ns", "column"),
        ("dur_ms", "column"),
    ]
    assert texts(shell.state, "sql SELECT * FROM calls | Where-Object { $_.") == [
        "node",
        "name",
        "dur_ns",
        "dur_ms",
    ]
    assert texts(shell.state, "sql SELECT * FROM calls | ForEach-Object { $PSItem.na") == ["name"]
    assert texts(
        shell.state, "sql SELECT * FROM calls | Where-Object { $_.dur_ns -gt 1 -and $_.no"
    ) == ["node"]


async def test_columns_never_run_a_writing_statement(shell) -> None:
    await _calls_table(shell)
    assert texts(shell.state, "sql DELETE FROM calls | Sort-Object ") == []
    assert texts(shell.state, "sql SELECT 1 AS x; DELETE FROM calls | Sort-Object ") == []
    assert await shell.run("sql SELECT count(*) AS n FROM calls") == [{"n": 1}]


async def test_member_names_of_variables(shell) -> None:
    await shell.run("$d = Get-Date -Date '2024-03-05'; $h = @{alpha = 1; beta = 2}")
    assert texts(shell.state, "$d.DayO") == ["DayOfWeek", "DayOfYear"]
    assert kinds(shell.state, "$h.al") == [("alpha", "property")]


async def test_parameter_aliases_and_values_after_colon(shell) -> None:
    assert kinds(shell.state, "Get-Content -He") == [("-Head", "parameter alias")]
    assert texts(shell.state, "Get-Date -DisplayHint:D") == ["Date", "DateTime"]
    assert kinds(shell.state, "Get-Date -DisplayHint ") == [
        ("Date", "value"),
        ("Time", "value"),
        ("DateTime", "value"),
    ]


async def test_commands_after_assignment_block_and_hashtable_equals(shell) -> None:
    assert kinds(shell.state, "$x = Get-ChildI") == [("Get-ChildItem", "command")]
    assert texts(shell.state, "@{ when = Get-Da") == ["Get-Date"]
    assert texts(shell.state, "1..3 | ForEach-Object { $_ } | Sort-O") == ["Sort-Object"]
    assert texts(shell.state, "if ($true) { Get-Loc") == ["Get-Location"]
    assert texts(shell.state, "Get-Date -Year 2024 -")[:2] == ["-Date", "-UnixTimeSeconds"]


async def test_files_relative_to_the_shell_location(shell, tmp_path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "notes.txt").write_text("x")
    await shell.run(f"cd '{tmp_path}'")
    assert kinds(shell.state, "Get-Content su") == [("sub/", "file")]
    assert texts(shell.state, "Get-Content -Path:sub/no") == ["sub/notes.txt"]
    assert texts(shell.state, "cd su") == ["sub/"]


async def test_calculated_property_keys_and_their_blocks(shell) -> None:
    await _calls_table(shell)
    line = "sql SELECT * FROM calls | Select-Object @{ "
    assert kinds(shell.state, line + "Na") == [("Name", "key")]
    assert texts(shell.state, line + "Name = 'ms'; Ex") == ["Expression"]
    assert texts(shell.state, line + "Name = 'ms'; Expression = { $_.dur_") == ["dur_ns", "dur_ms"]


async def test_simplified_where_and_foreach_take_columns(shell) -> None:
    await _calls_table(shell)
    assert texts(shell.state, "sql SELECT * FROM calls | Where-Object dur_n") == ["dur_ns"]
    assert texts(shell.state, "sql SELECT * FROM calls | ForEach-Object na") == ["name"]


async def test_set_location_offers_only_directories(shell, tmp_path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "log.txt").write_text("")
    await shell.run(f"cd '{tmp_path}'")
    assert texts(shell.state, "cd lo") == ["logs/"]
    assert texts(shell.state, "Get-Content lo") == ["log.txt", "logs/"]


async def test_paths_the_lexer_splits_complete_as_one_word(shell, tmp_path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "app.log").write_text("")
    await shell.run(f"cd '{tmp_path / 'logs'}'")
    assert texts(shell.state, "Get-Content ./") == ["./app.log"]
    assert texts(shell.state, "Get-Content ../logs/a") == ["../logs/app.log"]
    assert texts(shell.state, "Get-Content -Path:./a") == ["./app.log"]


async def test_repl_completer_shows_each_kind_beside_the_text(shell) -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from fayshell.repl import FayCompleter

    await _calls_table(shell)
    line = "sql SELECT * FROM calls | Sort-Object dur_n"
    (shown,) = FayCompleter(shell.state).get_completions(Document(line), CompleteEvent())
    assert (shown.text, shown.start_position, shown.display_meta_text) == ("dur_ns", -5, "column")


async def test_functions_params_help_topics_and_variables_in_strings(shell) -> None:
    await shell.run("function Get-Thing { param([int]$Count, $Where) $Count }")
    assert kinds(shell.state, "Get-Thing -Co") == [("-Count", "parameter")]
    assert kinds(shell.state, "Get-Help about_D") == [("about_Differences", "help topic")]
    await shell.run("$webNodes = 1")
    assert kinds(shell.state, 'Write-Output "on $webN') == [("$webNodes", "variable")]
    assert texts(shell.state, '"on $webN') == ["$webNodes"]
    assert texts(shell.state, "Write-Output 'on $webN") == []


LINES = [
    "sql SELECT node, count(*) FROM calls WHERE name = 'a|b' | Sort-Object node -Descending",
    "Get-Syscall -Name open* | Where-Object { $_.dur_ns -gt 1ms -and $_.name -like 'r*' } | "
    "Group-Object node | Select-Object Name, @{ Name = 'n'; Expression = { $_.Count } }",
    '$x = @{ a = 1; b = "x $($y.z) y" }; foreach ($i in 1..3) { Get-Content -Path:./a.txt }',
    "Get-ChildItem ~/tr -Recurse -Filter *.idx | ForEach-Object { $PSItem.FullName } |",
    "function f { param([int]$n = 2) $n * 2 }; f -n 3; Get-Date -Format 'yyyy-MM-dd' -UF",
    "Set-Location -; pushd ../x; `\n  Get-Help about_ ; <# c #> # comment ) } ]",
]


async def test_every_prefix_completes_without_error(shell) -> None:
    await _calls_table(shell)
    for line in LINES:
        for end in range(len(line) + 1):
            for cand in complete(shell.state, line[:end]):
                assert 0 <= cand.start <= end and cand.meta, (line[:end], cand)


async def test_type_names_in_brackets(shell) -> None:
    assert kinds(shell.state, "[datet") == [("[datetime]", "type")]
    assert texts(shell.state, "$x = [ti") == ["[timespan]"]
