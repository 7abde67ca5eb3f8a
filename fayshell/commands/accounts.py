"""User and group names by id, as files (Get-ChildItem's User, Group) and processes
(Get-Process's UserName) show them; looked up once per id."""

from __future__ import annotations

import functools
import grp
import pwd


@functools.lru_cache(maxsize=256)
def user_name(uid: int) -> str | None:
    """The name of user ``uid``, None when the system has none."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return None


@functools.lru_cache(maxsize=256)
def group_name(gid: int) -> str | None:
    """The name of group ``gid``, None when the system has none."""
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return None
