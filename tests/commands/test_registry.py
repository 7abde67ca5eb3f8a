"""Cmdlet declarations: parameter types, pipeline modes and completion sources are checked where
a parameter is declared, and the modes the language reads ($ErrorActionPreference) are spelled
one way whatever the user typed."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from fayshell.commands import FAMILIES, full_registry, import_family, load_registry
from fayshell.commands._index import FAMILY_OF, RAW_ALIASES
from fayshell.commands.registry import (
    COMPLETIONS,
    PARAM_KINDS,
    CommandIndex,
    Param,
    Registry,
    cmdlet,
)
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
    with pytest.raises(RuntimeFayError, match="ActionPreference.*Ignore-All") as caught:
        await shell.run("$ErrorActionPreference = 'Ignore-All'")
    assert str(caught.value).endswith(
        'try again:\nSilentlyContinue, Stop, Continue, Inquire, Ignore, Suspend, Break"'
    )
    assert await shell.run("[string]$ErrorActionPreference") == ["Stop"]  # kept
    # an ActionPreference fayshell's commands do not take: said when a command uses it
    await shell.run("$ErrorActionPreference = 'Break'")
    with pytest.raises(
        RuntimeFayError,
        match="ErrorAction 'Break' is not one of Stop, Continue, SilentlyContinue, Ignore",
    ):
        await shell.run("Get-Variable nope")


def test_the_command_index_is_current() -> None:
    """If this fails, a cmdlet was added, renamed or moved: run `python -m fayshell.commands`."""
    assert CommandIndex(FAMILY_OF, RAW_ALIASES) == CommandIndex.of(full_registry())


def test_a_lazy_registry_resolves_every_name_as_the_full_one() -> None:
    full = full_registry()
    for name in full.names():
        assert load_registry().resolve(name) is full.resolve(name), name
        assert load_registry().resolve(name.upper()) is full.resolve(name), name
    assert load_registry().names() == full.names()
    assert load_registry().alias_table()["sql"] == "Invoke-Sql"
    assert load_registry().raw_aliases() == full.raw_aliases() == {"sql"}


class Imports:
    """An importer that records which families a registry imported."""

    def __init__(self) -> None:
        self.done: list[str] = []

    def __call__(self, family: str) -> ModuleType:
        self.done.append(family)
        return import_family(family)


def test_resolving_a_name_imports_only_its_family() -> None:
    imports = Imports()
    reg = Registry.lazy(FAMILIES, imports, CommandIndex(FAMILY_OF, RAW_ALIASES))
    assert reg.resolve("import-trace") is not None
    assert reg.resolve("SQL") is not None
    assert reg.resolve("Import-Trace") is not None
    assert reg.raw_aliases() == {"sql"}
    assert imports.done == ["store", "sql"]
    assert reg.resolve("No-SuchCommand") is None  # then every family: "did you mean" needs all
    assert sorted(imports.done) == sorted(FAMILIES)


def test_a_stale_index_costs_time_not_answers() -> None:
    stale = {"get-date": "text"}  # moved elsewhere; and every other name missing
    imports = Imports()
    reg = Registry.lazy(FAMILIES, imports, CommandIndex(stale, frozenset({"sql"})))
    assert reg.resolve("Get-Date") is full_registry().resolve("Get-Date")
    assert imports.done[0] == "text" and sorted(imports.done) == sorted(FAMILIES)
    reg = Registry.lazy(FAMILIES, Imports(), CommandIndex({}, frozenset()))
    assert reg.resolve("ls") is full_registry().resolve("Get-ChildItem")
