"""The user's profile (about_Profiles): a fayshell script run when the shell starts, before
the first prompt, the -c command or the script (``--no-profile`` skips it). ``$PROFILE`` is
its path, with PowerShell's four names for profile paths as properties."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fayshell.errors import FayError

if TYPE_CHECKING:
    from fayshell.state import ShellState

#: The machine-wide profile's path (AllUsersAllHosts); not run (fayshell is one user's tool).
ALL_USERS = "/etc/fayshell/profile.fay"


def profile_path() -> Path:
    """``$XDG_CONFIG_HOME/fayshell/profile.fay`` (default ``~/.config/fayshell/``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "fayshell" / "profile.fay"


class ProfilePath(str):
    """``$PROFILE``: the current user's profile path; ``$PROFILE.AllUsersAllHosts`` and the
    other names PowerShell gives its profile paths."""

    __slots__ = ()

    @property
    def CurrentUserCurrentHost(self) -> str:  # noqa: N802 - PowerShell's name
        return str(self)

    @property
    def CurrentUserAllHosts(self) -> str:  # noqa: N802 - PowerShell's name
        return str(self)

    @property
    def AllUsersCurrentHost(self) -> str:  # noqa: N802 - PowerShell's name
        return ALL_USERS

    @property
    def AllUsersAllHosts(self) -> str:  # noqa: N802 - PowerShell's name
        return ALL_USERS


async def load_profile(state: ShellState, host: Any, run: bool) -> None:
    """Set ``$PROFILE``; when ``run`` and the file exists, run it in the global scope (what it
    writes is shown; an error in it is reported with its place and the shell goes on, as
    PowerShell's does)."""
    from fayshell.lang.interp import ExitSignal, Interpreter

    path = profile_path()
    state.globals.set_local("PROFILE", ProfilePath(path))
    if not run or not path.is_file():
        return
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        host.error(f"{path}: cannot read the profile: {getattr(exc, 'strerror', None) or exc}")
        return
    try:
        await Interpreter(state).run(source, str(path), on_output=host.show)
    except ExitSignal:
        pass  # `exit` in a profile ends the profile, not the shell
    except FayError as exc:
        host.report(exc)
    getattr(host, "end_output", lambda: None)()  # its last table is not the command's
