"""Cmdlet declarations: parameter types, pipeline modes and completion sources are checked where
a parameter is declared, and the modes the language reads ($ErrorActionPreference) are spelled
one way whatever the user typed."""

from __future__ import annotations

from typing import Any

import pytest

from fayshell.commands import load_registry
from fayshell.commands.registry import COMPLETIONS, PARAM_KINDS, Param, cmdlet
from fayshell.completion import SOURCES
from fayshell.errors import RuntimeFayError
from tests.fixtures.shell import Shell


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"type": "durations"}, "type 'durations' is not one of"),
        ({"type": list}, "type <class 'list'> is not one of"),
        ({"pipeline": "values"}, "pipeline 'values' is not one of"),
        ({"complete": "columns"}, "complete 'columns' is not one of"),
    ],
)
def test_a_bad_declaration_fails_where_it_is_declared(kw: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=f"parameter -Limit: {message}"):

        @cmdlet("Get-Thing", synopsis="A thing.", params=[Param("Limit", **kw)])
        def get_thing(ctx: Any, *, limit: Any = None) -> None:
            return None


def test_every_declared_parameter_uses_known_modes() -> None:
    params = [p for spec in load_registry() for p in spec.params]
    assert params
    assert {p.type for p in params if isinstance(p.type, str)} <= set(PARAM_KINDS)
    assert {p.complete for p in params} - {None} <= set(COMPLETIONS)


def test_completion_sources_are_exactly_the_declarable_ones() -> None:
    assert set(SOURCES) | {"files"} == set(COMPLETIONS)


async def test_error_action_preference_is_case_insensitive(shell: Shell) -> None:
    await shell.run("$ErrorActionPreference = 'silentlycontinue'")
    assert await shell.run("Get-Variable nope; 'went on'") == ["went on"]
    assert shell.host.errors == []  # silently: nothing shown
    await shell.run("$ErrorActionPreference = 'stop'")
    with pytest.raises(RuntimeFayError, match="Get-Variable: 1 failure"):
        await shell.run("Get-Variable nope; 'went on'")
    assert await shell.run("Get-Variable nope -ErrorAction continue; 'on'") == ["on"]
    shell.host.errors.clear()
    assert await shell.run("Get-Variable nope -ErrorAction ignore; 'on'") == ["on"]
    assert await shell.run("Write-Error 'quiet' -ErrorAction Ignore; 'on'") == ["on"]
    assert shell.host.errors == []


async def test_an_unknown_error_action_preference_is_one_clear_error(shell: Shell) -> None:
    await shell.run("$ErrorActionPreference = 'Ignore-All'")
    with pytest.raises(
        RuntimeFayError,
        match="ErrorAction 'Ignore-All' is not one of Stop, Continue, SilentlyContinue, Ignore",
    ):
        await shell.run("Get-Variable nope")
