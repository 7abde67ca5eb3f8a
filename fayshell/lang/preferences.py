"""PowerShell's preference variables (about_Preference_Variables), written once: each one's
default and the type an assignment converts to, so ``$ConfirmPreference = 'Bogus'`` fails as in
PowerShell and ``$ErrorActionPreference.GetType().Name`` is ``ActionPreference``.

fayshell differs in one default, on purpose: ``$ErrorActionPreference`` is ``Stop`` (a script
stops at its first error, README). ``$OFS``, ``$PSEmailServer``, ``$Transcript`` and
``$PSModuleAutoLoadingPreference`` do not exist until a script sets them, as in PowerShell.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from fayshell.lang.enums import (
    ACTION_PREFERENCE,
    CONFIRM_IMPACT,
    ERROR_VIEW,
    NATIVE_ARGUMENT_PASSING,
    EnumType,
)
from fayshell.lang.ops import OperatorError

#: A change's risk (PowerShell's ConfirmImpact, as CONFIRM_IMPACT numbers it): a command
#: confirms a change first when its impact is at or above $ConfirmPreference.
ConfirmImpact = Literal["None", "Low", "Medium", "High"]
IMPACTS: tuple[ConfirmImpact, ...] = get_args(ConfirmImpact)

#: $FormatEnumerationLimit's default: a collection in a table or list cell shows 4 items.
FORMAT_ENUMERATION_LIMIT = 4
#: $MaximumHistoryCount's default.
MAXIMUM_HISTORY_COUNT = 4096


@dataclass(frozen=True)
class Preference:
    """One preference variable: its name, default and type (an engine enum, ``int``, or None
    for a value of any type)."""

    name: str
    default: Any
    kind: EnumType | str | None = None
    #: The values a number may take (first, last), checked on assignment.
    valid: tuple[int, int] | None = None

    @property
    def type_name(self) -> str | None:
        """The type constraint an assignment converts to, as ``[T]$x = ...`` records it."""
        if isinstance(self.kind, EnumType):
            return self.kind.FullName
        return self.kind

    def initial(self) -> Any:
        return self.kind.convert(self.default) if isinstance(self.kind, EnumType) else self.default


PREFERENCES = (
    Preference("ConfirmPreference", "High", CONFIRM_IMPACT),
    Preference("DebugPreference", "SilentlyContinue", ACTION_PREFERENCE),
    Preference("ErrorActionPreference", "Stop", ACTION_PREFERENCE),
    Preference("ErrorView", "ConciseView", ERROR_VIEW),
    Preference("FormatEnumerationLimit", FORMAT_ENUMERATION_LIMIT, "int"),
    Preference("InformationPreference", "SilentlyContinue", ACTION_PREFERENCE),
    Preference("LogCommandHealthEvent", False),
    Preference("LogCommandLifecycleEvent", False),
    Preference("LogEngineHealthEvent", True),
    Preference("LogEngineLifecycleEvent", True),
    Preference("LogProviderHealthEvent", True),
    Preference("LogProviderLifecycleEvent", True),
    Preference("MaximumHistoryCount", MAXIMUM_HISTORY_COUNT, "int", (1, 32768)),
    Preference("ProgressPreference", "Continue", ACTION_PREFERENCE),
    Preference("PSNativeCommandArgumentPassing", "Standard", NATIVE_ARGUMENT_PASSING),
    Preference("PSNativeCommandUseErrorActionPreference", False),
    Preference("PSSessionApplicationName", "wsman", "string"),
    Preference(
        "PSSessionConfigurationName",
        "http://schemas.microsoft.com/powershell/Microsoft.PowerShell",
        "string",
    ),
    Preference("VerbosePreference", "SilentlyContinue", ACTION_PREFERENCE),
    Preference("WarningPreference", "Continue", ACTION_PREFERENCE),
    Preference("WhatIfPreference", False),
)


BY_NAME = {p.name.lower(): p for p in PREFERENCES}


def check(name: str, value: Any) -> str | None:
    """PowerShell's words when ``value`` is outside the preference's valid values, else None."""
    found = BY_NAME.get(name.lower())
    if found is None or found.valid is None or not isinstance(value, int):
        return None
    first, last = found.valid
    if first <= value <= last:
        return None
    return (
        f"The variable cannot be validated because the value {value} is not a valid value for "
        f"the {found.name} variable."
    )


def confirm_due(impact: ConfirmImpact, preference: Any) -> bool:
    """Whether a command of ``impact`` confirms its changes under ``$ConfirmPreference``
    (``preference``): at or above it, and never when it is None (or not a ConfirmImpact)."""
    try:
        level = int(CONFIRM_IMPACT.convert(preference))
    except OperatorError:
        return False
    return level > 0 and IMPACTS.index(impact) >= level


def int_preference(value: Any, default: int) -> int:
    """An integer preference as a number (``default`` when it is unset or not a number)."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
