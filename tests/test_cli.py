"""The fayshell command as a user runs it: script files, -c, stdin, exit codes, messages."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from fayshell.cli import pwsh_arguments

SCRIPTS = Path(__file__).parent / "scripts"


def fayshell(
    *args: str,
    stdin: str | None = None,
    cwd: Path | None = None,
    env_extra: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(cwd or Path.cwd()), **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-m", "fayshell", *args],
        input=stdin,
        text=True,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=60,
    )


@pytest.mark.parametrize("script", sorted(SCRIPTS.glob("*.fay")), ids=lambda p: p.stem)
def test_script_suite_expected_output(script: Path, tmp_path: Path) -> None:
    proc = fayshell("--db", str(tmp_path / "s.duckdb"), str(script), cwd=tmp_path)
    expected = script.with_suffix(".out").read_text()
    assert proc.stdout == expected, proc.stderr
    if script.stem.startswith("stops_at_error"):
        assert proc.returncode == 1
        assert proc.stderr.strip() == (
            f"{script}:3:1: unknown command 'Frobnicate-Gizmo'; 'Get-Command' lists the commands"
        )
    else:
        assert proc.returncode == 0 and proc.stderr == ""


def test_dash_c_runs_one_line(tmp_path: Path) -> None:
    proc = fayshell("-c", "Write-Output 1; 2 + 2", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "1\n4\n")


def test_script_arguments_are_dollar_args(tmp_path: Path) -> None:
    script = tmp_path / "a.fay"
    script.write_text('"$($args.Count): $($args[1])"')
    proc = fayshell(str(script), "web01", "web02", cwd=tmp_path)
    assert proc.stdout == "2: web02\n"


def test_read_host_reads_piped_lines_then_null(tmp_path: Path) -> None:
    script = tmp_path / "ask.fay"
    script.write_text(
        '$a = Read-Host \'Restart web02?\'; "[$a]"; $b = Read-Host -MaskInput; "[$b]"; '
        "$null -eq (Read-Host)"
    )
    proc = fayshell(str(script), stdin="yes\nsecret\n", cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "[yes]\n[secret]\nTrue\n", "")


def test_transcript_holds_the_output_and_ends_with_the_shell(tmp_path: Path) -> None:
    record = tmp_path / "incident.txt"
    script = tmp_path / "t.fay"
    script.write_text(
        f"Start-Transcript '{record}'\n[pscustomobject]@{{node='web01'; n=3}}\n"
        "Write-Host 'note'\nGet-Item /nope -ErrorAction Continue\n'last'\n"
    )
    proc = fayshell("--no-color", str(script), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = record.read_text()
    shown = proc.stdout + proc.stderr
    for line in ["node  n", "web01 3", "note", "Cannot find path '/nope'", "last"]:
        assert line in text and line in shown, line
    assert text.rstrip().endswith("**********************")
    assert "PowerShell transcript end" in text  # no Stop-Transcript: the footer at exit


def test_script_from_stdin(tmp_path: Path) -> None:
    proc = fayshell(stdin="$a = 20\n$a + 22\n", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "42\n")


def test_parse_error_exit_2_with_location_and_caret(tmp_path: Path) -> None:
    script = tmp_path / "bad.fay"
    script.write_text("'ok'\nGet-Node | Where-Object { $_.x -gt }\n")
    proc = fayshell(str(script), cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[0] == f"{script}:2:36: unexpected '}}' (expected an expression)"
    assert lines[1] == "    Get-Node | Where-Object { $_.x -gt }"
    assert lines[2] == "    " + " " * 35 + "^"


def test_unclosed_string_names_where_it_started(tmp_path: Path) -> None:
    proc = fayshell("-c", "Write-Output 'abc", cwd=tmp_path)
    assert proc.returncode == 2
    assert (
        proc.stderr.splitlines()[0] == '<command>:1:14: unclosed string (expected a closing "\'")'
    )


@pytest.mark.parametrize(
    "src, code, out",
    [
        ("Get-Variable nope; 'went on'", 1, ""),
        ("Get-Variable nope -ErrorAction Continue; 'went on'", 0, "went on\n"),
        ("$ErrorActionPreference = 'Continue'; Get-Variable nope; 'went on'", 0, "went on\n"),
        ("Get-Variable nope -ErrorAction SilentlyContinue; 'went on'", 0, "went on\n"),
    ],
)
def test_error_action_decides_whether_a_script_goes_on(
    tmp_path: Path, src: str, code: int, out: str
) -> None:
    proc = fayshell("-c", src, cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (code, out)
    if "Silently" in src:
        assert proc.stderr == ""
    else:
        assert "Get-Variable: nope: no variable named 'nope'" in proc.stderr


def test_missing_script_file(tmp_path: Path) -> None:
    proc = fayshell(str(tmp_path / "nope.fay"), cwd=tmp_path)
    assert proc.returncode == 2
    assert (
        proc.stderr.strip() == f"fayshell: cannot read script {tmp_path / 'nope.fay'}: "
        "No such file or directory"
    )


def test_default_database_lives_under_xdg_data(tmp_path: Path) -> None:
    proc = fayshell("-c", "sql CREATE TABLE t AS SELECT 1 AS a", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "fayshell" / "fayshell.duckdb").exists()


def test_console_script_is_installed() -> None:
    exe = Path(sys.executable).parent / "fayshell"
    proc = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=30)
    assert proc.stdout.startswith("fayshell ")


def test_no_traceback_for_hostile_input(tmp_path: Path) -> None:
    for src in [
        "$x = @{ ; rm -rf / }",
        "Get-Help '; rm -rf /'",
        "sql '; DROP TABLE x; --",
        "Select-Object -First 1e400",
        "$(",
        "[nosuchtype]5",
        "'a' -match '('",
    ]:
        proc = fayshell("-c", src, cwd=tmp_path)
        assert proc.returncode in (1, 2), src
        assert "Traceback" not in proc.stderr, src
        assert len(proc.stderr.strip().splitlines()) <= 3, (src, proc.stderr)


LONG_QUERY = (
    "sql SELECT count(*) FROM range(100000000) a, range(100000) b WHERE (a.range * b.range) % 7 = 3"
)


def test_ctrl_c_interrupts_a_long_query_and_leaves_the_database_intact(tmp_path: Path) -> None:
    db = str(tmp_path / "i.duckdb")
    assert (
        fayshell(
            "--db", db, "-c", "sql CREATE TABLE kept AS SELECT 42 AS v", cwd=tmp_path
        ).returncode
        == 0
    )
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "fayshell", "--db", db, "-c", f"Write-Output started; {LONG_QUERY}"],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # Ctrl-C at a terminal: a runner that started the suite in the background passes SIGINT
        # on ignored, and a process started ignoring it rightly keeps ignoring it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "started\n"  # the next statement is the query
        proc.send_signal(signal.SIGINT)
        # without interrupt() the cross join would run for hours: the timeout is the assertion
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()  # never leave the cross join running (a no-op once it has ended)
        proc.wait()
    assert (proc.returncode, err) == (130, "interrupted\n")
    after = fayshell("--db", db, "-c", "sql SELECT v FROM kept", cwd=tmp_path)
    assert (after.returncode, after.stdout.split()[-1]) == (0, "42")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--db", "{tmp}/no/such/x.duckdb", "-c", "1"],
            "fayshell: --db {tmp}/no/such/x.duckdb: directory {tmp}/no/such does not exist",
        ),
        (["--db", "{tmp}", "-c", "1"], "fayshell: --db {tmp}: is a directory, not a database file"),
        (
            ["--inventory", "{tmp}/inv.toml", "-c", "1"],
            "fayshell: --inventory {tmp}/inv.toml: no such file",
        ),
        (
            ["--ssh-config", "{tmp}/cfg", "-c", "1"],
            "fayshell: --ssh-config {tmp}/cfg: no such file",
        ),
        (
            ["top", "syscalls", "--db", "{tmp}/none.duckdb"],
            "fayshell top: --db {tmp}/none.duckdb: no such database file",
        ),
    ],
)
def test_option_errors_are_one_line_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    proc = fayshell(*(a.format(tmp=tmp_path) for a in args), cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, message.format(tmp=tmp_path) + "\n")
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--severity", "Bogus"],
            "fayshell top: unknown severity 'Bogus' (one of Emergency, Alert, "
            "Critical, Error, Warning, Notice, Info, Debug)",
        ),
        (
            ["--node", "web[01-"],
            "fayshell top: bad node set 'web[01-': missing bracket: \"web[01-\"",
        ),
        (["--interval", "0"], "fayshell top: --interval 0.0: must be more than 0"),
        (["--interval", "0.01"], "fayshell top: the interval must be at least 100ms"),
    ],
)
def test_top_option_errors_are_one_line_exit_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    db = str(tmp_path / "t.duckdb")
    assert (
        fayshell("--db", db, "-c", "sql CREATE TABLE t AS SELECT 1 AS x", cwd=tmp_path).returncode
        == 0
    )
    proc = fayshell("top", "syscalls", "--db", db, *args, cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, message + "\n")


def test_exit_sets_the_process_exit_code(tmp_path: Path) -> None:
    proc = fayshell(
        "--db", str(tmp_path / "e.duckdb"), "-c", "'before'; exit 7; 'never'", cwd=tmp_path
    )
    assert (proc.returncode, proc.stdout) == (7, "before\n")
    script = tmp_path / "e.fay"
    script.write_text("function bye { 'bye'; exit 4 }\n'a'\nbye\n'b'\n")
    proc = fayshell("--db", str(tmp_path / "e.duckdb"), str(script), cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (4, "a\nbye\n")


def test_script_param_block_binds_command_line_arguments(tmp_path: Path) -> None:
    script = tmp_path / "p.fay"
    script.write_text(
        "[CmdletBinding()]\nparam([string]$Name = 'nobody', [int]$Times = 1)\n"
        '1..$Times | ForEach-Object { "hi $Name" }\n'
    )
    db = str(tmp_path / "p.duckdb")
    proc = fayshell("--db", db, str(script), "-Name", "ann", "-Times", "2", cwd=tmp_path)
    assert proc.stdout == "hi ann\nhi ann\n", proc.stderr
    proc = fayshell("--db", db, str(script), cwd=tmp_path)
    assert proc.stdout == "hi nobody\n", proc.stderr


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            "[pscustomobject]@{Name='a'; Count=10}; [pscustomobject]@{Name='bb'; Count=2}",
            "\nName Count\n---- -----\na       10\nbb       2\n\n",
        ),
        (
            "1, 2, 3 | Measure-Object -Average",
            "\nCount             : 3\nAverage           : 2\nSum               : \n"
            "Maximum           : \nMinimum           : \nStandardDeviation : \nProperty          : \n\n",
        ),
        (
            "'b', 'a', 'b' | Group-Object | Sort-Object Name",
            "\nCount Name" + " " * 22 + "Group\n----- ----" + " " * 22 + "-----\n"
            "    1 a" + " " * 25 + "{a}\n    2 b" + " " * 25 + "{b, b}\n\n",
        ),
        (
            "1..10 | Group-Object { $_ % 2 } | Select-Object Count, Group",
            "\nCount Group\n----- -----\n    5 {2, 4, 6, 8…}\n    5 {1, 3, 5, 7…}\n\n",
        ),
        (
            "@{one=1}",
            "\nName" + " " * 27 + "Value\n----" + " " * 27 + "-----\none" + " " * 28 + "1\n\n",
        ),
        ("1; 'two'; $true; $null; 0.1 + 0.2", "1\ntwo\nTrue\n0.3\n"),
    ],
)
def test_default_output_as_powershell_formats_it(
    command: str, expected: str, tmp_path: Path
) -> None:
    proc = fayshell("-c", command, cwd=tmp_path)
    assert (proc.stdout, proc.returncode) == (expected, 0), proc.stderr


def test_a_long_statements_output_is_shown_as_it_comes(tmp_path: Path) -> None:
    """As PowerShell's Out-Default: a line written while the statement still runs is on stdout
    before the statement ends (a short statement's output all comes when it ends)."""
    import time

    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    line = (
        'foreach ($i in 1, 2) { "line$i"; Start-Sleep -Milliseconds 1500 }; '
        '1..2 | ForEach-Object { "each$_"; Start-Sleep -Milliseconds 1500 }'
    )
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "fayshell", "--db", str(tmp_path / "s.duckdb"), "-c", line],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "line1\n"
        first = time.monotonic()
        rest, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert (rest, err, proc.returncode) == ("line2\neach1\neach2\n", "", 0)
    # 6 s of sleeps after line1 was written (ForEach-Object's lines come as each block ends)
    assert time.monotonic() - first >= 5.0, (first - start, time.monotonic() - start)


def test_a_script_cannot_confirm_so_the_change_is_not_made_and_said(tmp_path: Path) -> None:
    """$ConfirmPreference = 'Medium' asks before Remove-Item (ConfirmImpact Medium); a script
    has nobody to ask: the file stays, a warning says why, and the script goes on."""
    target = tmp_path / "keep.txt"
    target.write_text("x")
    res = fayshell(
        "--no-color",
        "-c",
        f"$ConfirmPreference = 'Medium'; Remove-Item '{target}'; 'next'",
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "next"
    assert (
        f'WARNING: not confirmed (no terminal to ask): Performing the operation "Remove File" on target "{target}".'
        in res.stderr
    )
    assert target.exists()


def test_format_enumeration_limit_holds_for_what_the_console_shows(tmp_path: Path) -> None:
    res = fayshell(
        "--no-color",
        "-c",
        "$FormatEnumerationLimit = 2; [pscustomobject]@{ a = 1..5 }; [pscustomobject]@{ a = 1..3 }",
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.split("\n")[3:5] == ["{1, 2…}", "{1, 2…}"]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["-NoProfile", "-Command", "Get-Date", "-Format", "o"],
            ["--no-profile", "-c", "Get-Date -Format o"],
        ),
        (
            ["-nop", "-noni", "-ep", "Bypass", "-File", "x.ps1", "-a", "1"],
            ["--no-profile", "x.ps1", "-a", "1"],
        ),
        (["-NoLogo", "-Command", "-"], ["-"]),
        (["-c", "1", "--db", "f"], ["-c", "1", "--db", "f"]),  # fayshell's -c: one word
        (
            ["-WorkingDirectory", "/tmp", "s.fay", "-NoProfile"],
            ["--working-directory", "/tmp", "s.fay", "-NoProfile"],
        ),
    ],
)
def test_pwsh_arguments_become_fayshell_options(argv: list[str], expected: list[str]) -> None:
    assert pwsh_arguments(argv) == expected


def test_pwsh_style_command_lines_run(tmp_path: Path) -> None:
    """A harness that starts pwsh can start fayshell the same way (about_Pwsh)."""
    script = tmp_path / "args.ps1"
    script.write_text("\"$($args -join ',') in $((Get-Location).Path)\"")
    res = fayshell(
        "-NoProfile", "-NonInteractive", "-Command", "Write-Output", "1;", "exit", "4", cwd=tmp_path
    )
    assert (res.returncode, res.stdout) == (4, "1\n")
    res = fayshell(
        "-nop", "-WorkingDirectory", "/tmp", "-File", str(script), "a", "b", cwd=tmp_path
    )
    assert (res.returncode, res.stdout) == (0, "a,b in /tmp\n")
    res = fayshell("-NoProfile", "-Command", "-", stdin="Write-Output piped", cwd=tmp_path)
    assert res.stdout == "piped\n"
    res = fayshell("-wd", str(tmp_path / "missing"), "-c", "1", cwd=tmp_path)
    assert (
        res.returncode == 2 and "-WorkingDirectory" in res.stderr and "Traceback" not in res.stderr
    )


def test_daylight_saving_time_follows_the_local_zone(tmp_path: Path) -> None:
    """(Get-Date).IsDaylightSavingTime() was always False (Python's fixed-offset astimezone()
    has no DST); a real process in New York's zone, in July, in January and in UTC."""
    proc = fayshell(
        "--no-profile",
        "-c",
        "(Get-Date '2024-07-10 03:30').IsDaylightSavingTime(); "
        "(Get-Date '2024-01-10 03:30').IsDaylightSavingTime(); "
        "(Get-Date -AsUTC).IsDaylightSavingTime()",
        cwd=tmp_path,
        env_extra={"TZ": "America/New_York"},
    )
    assert proc.stdout.split() == ["True", "False", "False"], proc.stderr
