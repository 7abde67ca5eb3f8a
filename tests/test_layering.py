"""The core (language, commands, remote, ctf, store) imports neither textual nor prompt-toolkit,
and a plain `fayshell -c` run imports none of the heavy libraries."""

from __future__ import annotations

import json
import subprocess
import sys

from fayshell.commands import FAMILIES

CORE = [
    "fayshell.lang.interp",
    "fayshell.lang.parser",
    "fayshell.commands",
    "fayshell.remote",
    "fayshell.ctf",
    "fayshell.store",
    "fayshell.store.database",
    "fayshell.render",
    "fayshell.console",
    "fayshell.cli",
]


def imported_after(code: str) -> set[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def in_bundle(module: str) -> bool:
    """Whether the agent bundle carries ``module`` (a fayshell module name)."""
    from fayshell.remote.agentbundle import CORE as BUNDLED

    parts = module.split(".")[1:]
    path = "/".join(parts)
    return (
        not parts
        or f"{path}.py" in BUNDLED
        or f"{path}/__init__.py" in BUNDLED
        or any(path == b or path.startswith(b + "/") for b in BUNDLED if not b.endswith(".py"))
    )


def test_core_imports_no_ui_toolkit() -> None:
    code = "\n".join(f"import {m}" for m in CORE)
    code += "\nfrom fayshell.commands import full_registry\nfull_registry()"
    mods = imported_after(code)
    assert not {m for m in mods if m.split(".")[0] in ("textual", "prompt_toolkit")}


def test_plain_run_keeps_heavy_libraries_unloaded() -> None:
    code = (
        "import io, contextlib\nfrom fayshell.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['-c', 'Write-Output 1'])"
    )
    mods = imported_after(code)
    heavy = {"duckdb", "textual", "prompt_toolkit", "asyncssh", "rich", "pyarrow", "numpy"}
    assert not {m.split(".")[0] for m in mods} & heavy


def test_plain_run_spends_no_start_on_what_it_does_not_use() -> None:
    """Every answer pays the start: no ``ldconfig -p`` child process (``ctypes.util``'s
    find_library, about 25 ms), no uuid (with platform), tempfile or secrets until a script
    asks for a GUID or a temporary file."""
    code = (
        "import io, contextlib\nfrom fayshell.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['-c', 'Write-Output 1'])"
    )
    mods = imported_after(code)
    assert not mods & {"ctypes.util", "uuid", "platform", "tempfile", "secrets"}


def test_a_script_imports_only_the_command_families_it_names() -> None:
    code = (
        "import io, contextlib\nfrom fayshell.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['-c', '1..3 | Write-Output | Out-Null'])"
    )
    mods = imported_after(code)
    assert {f for f in FAMILIES if f"fayshell.commands.{f}" in mods} == {"output"}


def test_node_agent_imports_only_the_headless_core() -> None:
    """The agent runs on production nodes from a bundle of the core and duckdb/pyarrow/numpy:
    starting it, opening its store and loading chunks must not need anything else."""
    code = (
        "import tempfile, pathlib\n"
        "from fayshell.agent.server import Agent, AgentSettings\n"
        "from fayshell.agent.nodestore import NodeStore\n"
        "import fayshell.store.loader, fayshell.lttng.chunks\n"
        "d = pathlib.Path(tempfile.mkdtemp())\n"
        "NodeStore.open(d / 's.duckdb').close()"
    )
    imported = imported_after(code)
    outside = sorted(m for m in imported if m.startswith("fayshell") and not in_bundle(m))
    assert not outside, f"the agent imports modules its bundle (agentbundle.CORE) lacks: {outside}"
    mods = {m.split(".")[0] for m in imported}
    assert not mods & {
        "textual",
        "prompt_toolkit",
        "asyncssh",
        "rich",
        "pygments",
        "ClusterShell",
        "cryptography",
        "hypothesis",
    }
    assert "duckdb" in mods
