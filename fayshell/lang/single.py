"""PowerShell's [float] ([single]): .NET's 32-bit floating point number.

A cast makes one (``[float]3.14159265``): its value is the nearest 32-bit float, and it reads
as PowerShell writes a Single, with 7 significant digits (3.141593) where a [double] has 15.
Arithmetic on it gives doubles (PowerShell's binder does Single arithmetic in Double)."""

from __future__ import annotations

import struct


class Single(float):
    """A [float]: the nearest 32-bit float to the value it was made from (past its range,
    an infinity, as .NET's conversion gives)."""

    __slots__ = ()
    TYPE_NAME = "System.Single"

    def __new__(cls, value: float) -> Single:
        try:
            near = struct.unpack("f", struct.pack("f", value))[0]
        except OverflowError:
            near = float("inf") if value > 0 else float("-inf")
        return super().__new__(cls, near)

    def __str__(self) -> str:
        from fayshell.lang.dotnet import format_double

        return format_double(self, 7)

    __repr__ = __str__

    def shortest(self) -> float:
        """The double with the fewest digits that is still this Single (what JSON writes:
        3.1415927 for [float]3.14159265, not 3.1415927410125732)."""
        for digits in range(1, 10):
            near = float(f"{float(self):.{digits}g}")
            if Single(near) == self:
                return near
        return float(self)
