"""``$_.FullyQualifiedErrorId``, ``$_.Exception`` and ``$_.CategoryInfo`` of the common errors,
caught in a shell, as PowerShell gives them; and the numeric literals and [char] arithmetic whose
errors and values these ids come with."""

from __future__ import annotations

import pytest

from fayshell.errors import FayError

CAUGHT = "try {{ {} }} catch {{ $_.FullyQualifiedErrorId; $_.Exception.GetType().FullName }}"


@pytest.mark.parametrize(
    ("src", "error_id", "exception"),
    [
        (
            "Get-Item /nonexistent-x -ErrorAction Stop",
            "PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand",
            "System.Management.Automation.ItemNotFoundException",
        ),
        (
            "Get-Content /nonexistent-x -ErrorAction Stop",
            "PathNotFound,Microsoft.PowerShell.Commands.GetContentCommand",
            "System.Management.Automation.ItemNotFoundException",
        ),
        (
            "$n = $null; $n.Trim()",
            "InvokeMethodOnNull",
            "System.Management.Automation.RuntimeException",
        ),
        ("$n = $null; $n[0]", "NullArray", "System.Management.Automation.RuntimeException"),
        ("'a'.NoSuchMethod()", "MethodNotFound", "System.Management.Automation.RuntimeException"),
        ("$z = 0; 1 / $z", "RuntimeException", "System.DivideByZeroException"),
        (
            "[int]'abc'",
            "InvalidCastFromStringToInteger",
            "System.Management.Automation.PSInvalidCastException",
        ),
        (
            "1 + 'A'",
            "InvalidCastFromStringToInteger",
            "System.Management.Automation.RuntimeException",
        ),
        (
            "[byte]300",
            "InvalidCastIConvertible",
            "System.Management.Automation.PSInvalidCastException",
        ),
        (
            "[char]65536",
            "InvalidCastIConvertible",
            "System.Management.Automation.PSInvalidCastException",
        ),
        (
            "[char]65 * 3",
            "NotADefinedOperationForType",
            "System.Management.Automation.RuntimeException",
        ),
        (
            "Get-NoSuchCommand",
            "CommandNotFoundException",
            "System.Management.Automation.CommandNotFoundException",
        ),
        (
            "Get-ChildItem -NoSuchParameter",
            "NamedParameterNotFound,Microsoft.PowerShell.Commands.GetChildItemCommand",
            "System.Management.Automation.ParameterBindingException",
        ),
        (
            "Get-Item",
            "MissingMandatoryParameter,Microsoft.PowerShell.Commands.GetItemCommand",
            "System.Management.Automation.ParameterBindingException",
        ),
        (
            "function Test-Range { param([ValidateRange(1, 2)]$N) }; Test-Range -N 5",
            "ParameterArgumentValidationError,Test-Range",
            "System.Management.Automation.ParameterBindingException",
        ),
        (
            "function Test-Need { param([Parameter(Mandatory)]$N) }; Test-Need",
            "MissingMandatoryParameter,Test-Need",
            "System.Management.Automation.ParameterBindingException",
        ),
        (
            "[IO.File]::ReadAllText('/nonexistent-x')",
            "FileNotFoundException",
            "System.Management.Automation.MethodInvocationException",
        ),
        (
            "Write-Error 'w' -ErrorAction Stop",
            "Microsoft.PowerShell.Commands.WriteErrorException",
            "Microsoft.PowerShell.Commands.WriteErrorException",
        ),
        ("Write-Error 'w' -ErrorId Mine -ErrorAction Stop", "Mine", None),
        ("throw 'text'", "text", "System.Management.Automation.RuntimeException"),
        ("Set-StrictMode -Version 1; $never", "VariableIsUndefined", None),
        ("Set-StrictMode -Version 2; ([pscustomobject]@{a = 1}).b", "PropertyNotFoundStrict", None),
    ],
)
async def test_error_ids_are_powershells(shell, src: str, error_id: str, exception: str) -> None:
    got = await shell.run(CAUGHT.format(src))
    assert got[0] == error_id
    assert exception is None or got[1] == exception


async def test_non_terminating_records_carry_the_same_ids(shell) -> None:
    out = await shell.run(
        "Get-Item /nonexistent-x -ErrorAction SilentlyContinue -ErrorVariable ev; "
        "$ev[0].FullyQualifiedErrorId; $Error[0].FullyQualifiedErrorId; "
        "Write-Error 'w' -ErrorAction SilentlyContinue; $Error[0].FullyQualifiedErrorId"
    )
    assert out == [
        "PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand",
        "PathNotFound,Microsoft.PowerShell.Commands.GetItemCommand",
        "Microsoft.PowerShell.Commands.WriteErrorException",
    ]


async def test_a_failed_file_method_names_what_dotnet_threw(shell) -> None:
    out = await shell.run(
        "try { [IO.File]::ReadAllText('/nonexistent-x/y') } catch { "
        "$_.FullyQualifiedErrorId; $_.Exception.InnerException.GetType().FullName; "
        "$_.Exception.Message }; "
        "try { [IO.File]::ReadAllText('/nonexistent-x') } catch [IO.FileNotFoundException] { 'typed' }"
    )
    assert out == [
        "DirectoryNotFoundException",
        "System.IO.DirectoryNotFoundException",
        'Exception calling "ReadAllText" with "1" argument(s): "Could not find a part of the '
        "path '/nonexistent-x/y'.\"",
        "typed",
    ]


async def test_char_arithmetic_and_text_that_is_no_number(shell) -> None:
    assert await shell.run("1 + [char]65; [char]65 + 1; $null + [char]66; '5' + 1; 2 * '3'") == [
        66,
        "A1",
        "B",
        "51",
        6,
    ]
    with pytest.raises(FayError) as err:
        await shell.run("1.5 + 'x'")
    assert 'Cannot convert value "x" to type "System.Double".' in str(err.value)
    with pytest.raises(FayError, match=r"The operation '\[System.Char\] - \[System.Int32\]'"):
        await shell.run("[char]'b' - 1")


async def test_hex_literals_are_bit_patterns_and_suffixes_size_them(shell) -> None:
    out = await shell.run(
        "0xFFFFFFFF; 0x7FFFFFFF; 0x80000000; 0x100000000; 0xFFFFFFFFFFFFFFFF; "
        "0xFFFFFFFF -bxor 0x5A; 0xFFL; 0xFFFFFFFFL; 0xFFFFFFFFu; 0xFFFFFFFFFFFFFFFFul; 5u; "
        "4294967296u; 10n; 0x10n; (0xFFFFFFFF).GetType().Name; -0x10"
    )
    assert out == [
        -1,
        2147483647,
        -(2**31),
        2**32,
        -1,
        -91,
        255,
        2**32 - 1,
        2**32 - 1,
        2**64 - 1,
        5,
        2**32,
        10,
        16,
        "Int32",
        -16,
    ]
    with pytest.raises(FayError, match="The numeric constant 18446744073709551616ul is not valid"):
        await shell.run("18446744073709551616ul")


async def test_long_suffix_rounds_null_times_is_null_and_string_casts_join_with_ofs(shell) -> None:
    out = await shell.run(
        "1.5L; 2.5L; $n = $null; $null -eq ($n * 5); $OFS = '-'; [string]('a', 'b'); "
        '[string]@(1, 2); "$(3, 4)"; [char]65535 -eq [char]0xFFFF'
    )
    assert out == [2, 2, True, "a-b", "1-2", "3-4", True]


async def test_integer_limits_and_the_empty_guid(shell) -> None:
    out = await shell.run(
        "[uint16]::MaxValue; [sbyte]::MinValue; [ulong]::MaxValue; [int]::MinValue; "
        "[byte]::MaxValue; [long]::MaxValue; "
        "[guid]::Empty.ToString(); [guid]::Empty -eq [guid]'00000000-0000-0000-0000-000000000000'"
    )
    assert out == [
        65535,
        -128,
        2**64 - 1,
        -(2**31),
        255,
        2**63 - 1,
        "00000000-0000-0000-0000-000000000000",
        True,
    ]


async def test_text_to_number_reads_as_dotnet_does(shell) -> None:
    out = await shell.run(
        "[int]''; [int]'1,000'; [double]'1,5'; [int]'0xFFFFFFFF'; [sbyte]'0x80'; [byte]'0x80'; "
        "[long]'0xFFFFFFFFFFFFFFFF'; 12 + '0xabc'; 1 + ' 5 '; 12 -eq '1,2'; [int]'7.5'; [int]'2.5'"
    )
    assert out == [0, 1000, 15.0, -1, -128, 128, -1, 2760, 6, True, 8, 2]
    for text in ("1_0", "   ", "0o17", "0b1010"):  # Python's spellings and blanks are not numbers
        with pytest.raises(FayError, match="Input string was not in a correct format"):
            await shell.run(f"[int]'{text}'")
    with pytest.raises(FayError, match="too large or too small for an unsigned byte"):
        await shell.run("[byte]'0x100'")


@pytest.mark.parametrize(
    ("src", "category"),
    [
        ("$null.Foo()", "InvalidOperation"),
        ("$n = $null; $n[0]", "InvalidOperation"),
        ("'a'.NoSuchMethod()", "InvalidOperation"),
        ("[int]'abc'", "InvalidArgument"),
        ("Get-Item -NoSuchParameter", "InvalidArgument"),
        ("function f { param([ValidateSet('a')]$x) }; f b", "InvalidData"),
        ("function g { param([int]$x) }; g abc", "InvalidData"),
        ("Get-Item /no/such/path -ErrorAction Stop", "ObjectNotFound"),
    ],
)
async def test_categories_go_with_the_ids(shell, src: str, category: str) -> None:
    out = await shell.run(f"try {{ {src} }} catch {{ [string]$_.CategoryInfo.Category }}")
    assert out == [category]
