"""Language cmdlets: Invoke-Expression (a string run as fayshell code in the caller's scope)."""

from __future__ import annotations

from typing import Any

from fayshell.commands.invocation import Invocation
from fayshell.commands.registry import Param, cmdlet
from fayshell.errors import CommandError
from fayshell.lang.ops import to_string


@cmdlet(
    "Invoke-Expression",
    aliases=("iex",),
    synopsis="Run a string as fayshell code, in the caller's scope; its output is the output.",
    params=[Param("Command", "any", position=0, mandatory=True, pipeline="value",
                  help="The code to run (a string).")],
    examples=[("Invoke-Expression '1 + 2'", "Outputs 3."),
              ("$cmd = 'Get-Node'; iex $cmd", "Runs the command named in a variable.")],
)
async def invoke_expression(ctx: Invocation, *, command: Any) -> list[Any]:
    interp = ctx.state.interpreter
    if interp is None:
        raise CommandError("Invoke-Expression", "no interpreter is running this shell")
    return list(await interp.evaluate_string(to_string(command)))
