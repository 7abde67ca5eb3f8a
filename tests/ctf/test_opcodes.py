"""The instruction set is declared once: fayshell/ctf/_opcodes.h (which _decode.c includes)
holds exactly the names and numbers of fayshell/ctf/program.py."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import fayshell.ctf.program as program

CTF = Path(program.__file__).parent


def _python_constants() -> dict[str, int]:
    """program.py's module-level ``NAME = <int>`` assignments (opcodes, kinds, width, registers)."""
    tree = ast.parse((CTF / "program.py").read_text())
    out: dict[str, int] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id.isupper()
            and isinstance(node.value, ast.Constant)
            and type(node.value.value) is int
        ):
            out[node.targets[0].id] = node.value.value
    return out


def _header_constants() -> dict[str, int]:
    """``#define NAME <int>`` lines and ``NAME = <int>`` enum members of _opcodes.h."""
    text = re.sub(r"/\*.*?\*/", "", (CTF / "_opcodes.h").read_text(), flags=re.S)
    out: dict[str, int] = {}
    for name, value in re.findall(r"^#define\s+([A-Z_][A-Z0-9_]*)\s+(-?\d+)\s*$", text, re.M):
        out[name] = int(value)
    for body in re.findall(r"enum\s*\{(.*?)\}", text, re.S):
        for member in filter(None, (m.strip() for m in body.split(","))):
            name, _, value = (p.strip() for p in member.partition("="))
            assert value, f"_opcodes.h: enum member {name} has no explicit number"
            assert name not in out, f"_opcodes.h: {name} declared twice"
            out[name] = int(value)
    return out


def test_header_equals_program_py() -> None:
    python = _python_constants()
    assert {"WIDTH", "ALIGN", "END", "REG_ID", "K_LIST"} <= python.keys()  # the parse works
    assert _header_constants() == python


def test_program_values_are_the_module_attributes() -> None:
    for name, value in _python_constants().items():
        assert getattr(program, name) == value


def test_decoder_takes_its_opcodes_from_the_header() -> None:
    source = (CTF / "_decode.c").read_text()
    assert '#include "_opcodes.h"' in source
    assert not re.search(r"\b(ALIGN|INT|END|K_INT)\s*=\s*\d", source)  # no second copy
