"""The lttng package loads its submodules on first use: the store imports only the severity
ladder, and every public name still resolves to its definition."""

from __future__ import annotations

import ast
import subprocess
import sys

import fayshell.lttng as lttng


def test_every_public_name_resolves_from_its_submodule() -> None:
    assert sorted(lttng.__all__) == sorted(lttng._WHERE)
    for name in lttng.__all__:
        value = getattr(lttng, name)
        assert value is getattr(sys.modules[lttng._WHERE[name]], name)


def test_unknown_name_is_an_attribute_error() -> None:
    try:
        lttng.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("no AttributeError")


def test_the_severity_ladder_alone_loads_no_cli_builder() -> None:
    code = (
        "import sys, fayshell.lttng.severity; "
        "print(sorted(m for m in sys.modules if m.startswith('fayshell.lttng.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(ast.literal_eval(out.stdout))
    assert "fayshell.lttng.severity" in loaded
    assert not loaded & {f"fayshell.lttng.{m}" for m in ("argv", "mi", "chunks", "plan", "explain")}
