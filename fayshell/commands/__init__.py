"""Cmdlets, one module per family, and the function that collects them into a registry."""

from __future__ import annotations

import importlib

from fayshell.commands.registry import Registry

#: The command modules, in the order Get-Command lists families. Each imports only light
#: modules at top level: heavy libraries (duckdb, asyncssh, textual, rich) load inside the cmdlet.
FAMILIES: tuple[str, ...] = (
    "core",
    "objects",
    "text",
    "data",
    "output",
    "variables",
    "language",
    "help",
    "dates",
    "files",
    "locations",
    "host",
    "sql",
    "store",
    "export",
    "analysis",
    "nodes",
    "remote",
    "trace",
    "recorder",
    "views",
)


def load_registry() -> Registry:
    """Import every command family and collect its cmdlets."""
    mods = [importlib.import_module(f"fayshell.commands.{name}") for name in FAMILIES]
    return Registry.from_modules(mods)
