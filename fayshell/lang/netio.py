"""``[System.IO.File]`` and ``[System.IO.Directory]``'s static methods scripts use, on the
operator's machine. Relative paths resolve against the process's directory, as .NET's do (not
against Set-Location's: use full paths, as in PowerShell). Text is UTF-8 without a byte order
mark, .NET's default; a failure is PowerShell's "Exception calling ..." error."""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Callable
from typing import Any

from fayshell.lang.integers import Byte
from fayshell.lang.ops import OperatorError, method_failed
from fayshell.lang.values import NetException, TypedArray


def _read_lines(path: str) -> list[str]:
    with open(path, encoding="utf-8-sig", newline="") as f:
        return f.read().splitlines()


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8-sig", newline="") as f:
        return f.read()


def _write(mode: str) -> Callable[[str, str], None]:
    def write(path: str, text: str) -> None:
        with open(path, mode, encoding="utf-8", newline="") as f:
            f.write(text)

    return write


def _lines_text(lines: Any) -> str:
    items = lines if isinstance(lines, (list, tuple)) else [lines]
    return "".join(f"{'' if v is None else v}\n" for v in items)


def _read_bytes(path: str) -> TypedArray:
    with open(path, "rb") as f:
        return TypedArray(map(Byte, f.read()), "Byte")


def _write_bytes(path: str, data: Any) -> None:
    """[IO.File]::WriteAllBytes: each value a byte (0 to 255), as .NET's byte[] holds them."""
    values = data if isinstance(data, (list, tuple)) else [data]
    try:
        raw = bytes(int(v) for v in values)
    except ValueError:
        raise NetException(
            "Value was either too large or too small for an unsigned byte.",
            "System.OverflowException",
        ) from None
    with open(path, "wb") as f:
        f.write(raw)


def _copy(src: str, dst: str, overwrite: bool = False) -> None:
    if os.path.exists(dst) and not overwrite:
        raise FileExistsError(f"The file '{dst}' already exists.")
    shutil.copyfile(src, dst)


def _move(src: str, dst: str) -> None:
    if os.path.exists(dst):
        raise FileExistsError(f"The file '{dst}' already exists.")
    os.rename(src, dst)


def _entries(path: str, pattern: str, keep: Callable[[str], bool]) -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(glob.escape(path), pattern)) if keep(p))


def _delete_dir(path: str, recursive: bool = False) -> None:
    if recursive:
        shutil.rmtree(path)
    else:
        os.rmdir(path)


def _create_dir(path: str) -> str:
    os.makedirs(path, exist_ok=True)
    return os.path.abspath(path)


def _remove_file(path: str) -> None:
    if os.path.exists(path):  # .NET: deleting a file that is not there is no error
        os.remove(path)


FILE: dict[str, Callable[..., Any]] = {
    "Exists": lambda p: p is not None and os.path.isfile(p),
    "ReadAllText": _read_text,
    "ReadAllLines": _read_lines,
    "ReadAllBytes": _read_bytes,
    "WriteAllBytes": _write_bytes,
    "WriteAllText": _write("w"),
    "AppendAllText": _write("a"),
    "WriteAllLines": lambda p, lines: _write("w")(p, _lines_text(lines)),
    "AppendAllLines": lambda p, lines: _write("a")(p, _lines_text(lines)),
    "Delete": _remove_file,
    "Copy": _copy,
    "Move": _move,
}

DIRECTORY: dict[str, Callable[..., Any]] = {
    "Exists": lambda p: p is not None and os.path.isdir(p),
    "CreateDirectory": _create_dir,
    "GetFiles": lambda p, pattern="*": _entries(p, pattern, os.path.isfile),
    "GetDirectories": lambda p, pattern="*": _entries(p, pattern, os.path.isdir),
    "GetFileSystemEntries": lambda p, pattern="*": _entries(p, pattern, os.path.exists),
    "GetCurrentDirectory": os.getcwd,
    "Delete": _delete_dir,
}

TYPES = {"io.file": FILE, "io.directory": DIRECTORY}


def static(type_name: str, name: str, args: list[Any]) -> Any:
    """``[IO.File]::Name(args)`` or ``[IO.Directory]::Name(args)``; NotImplemented for other
    types and names."""
    methods = TYPES.get(type_name, {})
    name = next((n for n in methods if n.lower() == name.lower()), "")
    method = methods.get(name)
    if method is None:
        return NotImplemented
    try:
        return method(*args)
    except TypeError:
        raise OperatorError(
            f'Cannot find an overload for "{name}" and the argument count: "{len(args)}".'
        ) from None
    except OSError as exc:
        raise method_failed(name, len(args), NetException(_why(exc), _net_type(exc))) from None


def _net_type(exc: OSError) -> str:
    """The .NET exception type for a failed file operation (``$_.Exception.InnerException``)."""
    if isinstance(exc, FileNotFoundError):
        parent = os.path.dirname(os.path.abspath(exc.filename or "."))
        found = os.path.isdir(parent)
        return (
            "System.IO.FileNotFoundException" if found else "System.IO.DirectoryNotFoundException"
        )
    if isinstance(exc, PermissionError):
        return "System.UnauthorizedAccessException"
    return "System.IO.IOException"


def _why(exc: OSError) -> str:
    """.NET's sentence for the common failures, else the system's."""
    path = exc.filename
    if isinstance(exc, FileNotFoundError) and path is not None:
        if _net_type(exc).endswith("DirectoryNotFoundException"):
            return f"Could not find a part of the path '{os.path.abspath(path)}'."
        return f"Could not find file '{os.path.abspath(path)}'."
    if isinstance(exc, PermissionError) and path is not None:
        return f"Access to the path '{os.path.abspath(path)}' is denied."
    if isinstance(exc, FileExistsError) and exc.args and path is None:
        return str(exc.args[0])
    return exc.strerror or str(exc)
