"""The evaluator: runs a parsed script against a :class:`~fayshell.state.ShellState`.

It is async from top to bottom so remote cmdlets can await SSH work on the process's single
event loop. Statements hand their output to a callback (the front end renders it); commands
never print.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import difflib
import functools
import inspect
import math
import operator
import os
import re
import socket
import sys
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

from fayshell import errorids
from fayshell.commands.binding import (
    NO_VALUE,
    Bound,
    DelayBound,
    NamedArg,
    ParameterToken,
    bind,
    convert_value,
    missing_mandatory,
    pipeline_binding,
    resolve_param,
)
from fayshell.commands.invocation import (
    STREAMS,
    Capture,
    Collected,
    Invocation,
    ScriptCmdlet,
    ShouldProcess,
)
from fayshell.commands.registry import Cmdlet, Param
from fayshell.errors import (
    NOT_RECOGNIZED,
    ActionStopped,
    CommandError,
    CommandNotFound,
    ErrorAction,
    FayError,
    InternalError,
    ParameterError,
    RuntimeFayError,
    SourceSpan,
    UnknownProperty,
)
from fayshell.host import Host, HostInfo, HostUI, ProgressTask
from fayshell.lang import (
    ast,
    dotnet,
    integers,
    netaddr,
    netio,
    netlinq,
    netnumerics,
    netregex,
    nettext,
    validate,
    xmldoc,
)
from fayshell.lang.classes import ClassInstance, ClassType, no_overload
from fayshell.lang.dates import NOT_HANDLED, DateTime, call_method
from fayshell.lang.dates import static_member as date_static
from fayshell.lang.dotnet import DotNetError, type_name_of
from fayshell.lang.enums import (
    ACTION_PREFERENCE,
    CONFIRM_IMPACT,
    EnumType,
    EnumValue,
    enum_static,
    members_of,
)
from fayshell.lang.generic import ArrayList, DotNetCollection, new_collection
from fayshell.lang.ops import (
    CastError,
    DivideByZero,
    IndexOutOfRange,
    MethodFailed,
    MethodSyntax,
    OperatorError,
    PropertyNotFound,
    SortKey,
    UnknownType,
    VariableNotSet,
    arithmetic,
    compare,
    convert,
    culture_compare,
    element_name,
    int_limits,
    method_failed,
    no_method,
    no_property_to_set,
    string_method,
    to_number,
    to_string,
    truthy,
    wildcard_match,
)
from fayshell.lang.parser import parse
from fayshell.lang.preferences import (
    FORMAT_ENUMERATION_LIMIT,
    ConfirmImpact,
    confirm_due,
    int_preference,
)
from fayshell.lang.preferences import check as preference_check
from fayshell.lang.psstyle import PSStyle
from fayshell.lang.single import Single
from fayshell.lang.streams import (
    aiter_items,
    as_stream,
    collect,
    collected,
    is_relation,
    normalize_result,
    single_or_list,
    unroll,
)
from fayshell.lang.values import (
    NUMBERS,
    SORTED_TYPES,
    UNSET,
    Char,
    DictionaryEntry,
    Duration,
    ErrorCategoryInfo,
    ErrorInvocationInfo,
    ErrorRecordValue,
    ExceptionValue,
    Guid,
    Hashtable,
    LoopEnumerator,
    NetException,
    OrderedDictionary,
    PSCustomObject,
    Ref,
    ScriptBlock,
    Size,
    SortedDictionary,
    StreamingEnumerator,
    TypeInfo,
    TypeName,
)
from fayshell.lang.versions import SemanticVersion, Version
from fayshell.records import MISSING, attribute_named, get_property, has_property, is_record
from fayshell.render import OUTPUT
from fayshell.state import PathInfo, Scope, ShellState

if TYPE_CHECKING:
    from fayshell.transcript import Transcript

OutputCallback = Callable[[Any], Awaitable[None] | None]
#: Seconds a top-level statement runs before its output is shown as it comes (then as often).
STREAM_AFTER = 0.2

#: The scripts a statement naming a path runs (``./incident.fay``).
SCRIPT_SUFFIXES = (".fay", ".ps1")


class BreakSignal(Exception):  # noqa: N818 - control flow
    """``break [label]``; ``output`` is what the interrupted block wrote before it."""

    def __init__(self, target: str | None = None) -> None:
        super().__init__("break")
        self.target = target
        self.output: list[Any] = []


class ContinueSignal(Exception):  # noqa: N818 - control flow
    """``continue [label]``."""

    def __init__(self, target: str | None = None) -> None:
        super().__init__("continue")
        self.target = target
        self.output: list[Any] = []


class ReturnSignal(Exception):  # noqa: N818 - control flow
    def __init__(self, output: list[Any]) -> None:
        super().__init__("return")
        self.output = output
        #: What ``return`` itself gave (``output`` gains what ran before it, on its way out):
        #: a class's method gives only this.
        self.value = list(output)


class ExitSignal(Exception):  # noqa: N818 - control flow
    """``exit [N]``: ends the script (or the REPL) with exit code N."""

    def __init__(self, code: int) -> None:
        super().__init__(f"exit {code}")
        self.code = code
        self.output: list[Any] = []


class ThrownError(RuntimeFayError):
    """``throw value``: carries the thrown value and the exception type it names."""

    def __init__(
        self,
        message: str,
        value: Any = None,
        type_name: str = "System.Management.Automation.RuntimeException",
    ) -> None:
        super().__init__(message)
        self.value = value
        self.type_name = type_name
        #: ``$MyInvocation.MyCommand`` where it was thrown ($_.InvocationInfo.MyCommand).
        self.my_command: Any = None


def thrown(value: Any) -> ThrownError:
    """What ``throw value`` (and $PSCmdlet.ThrowTerminatingError) raises: an exception or an
    error record as it is, anything else as a RuntimeException with its text."""
    if isinstance(value, ExceptionValue):
        return ThrownError(value.Message, value, value.TypeName)
    if isinstance(value, ErrorRecordValue):
        return ThrownError(value.Exception.Message, value, value.Exception.TypeName)
    return ThrownError(to_string(value) or "ScriptHalted", value)


def throw(value: Any) -> NoReturn:
    raise thrown(value)


CONTROL = (BreakSignal, ContinueSignal, ReturnSignal, ExitSignal)


def failure(command: str, exc: Exception) -> FayError:
    """A cmdlet's Python error: bad operands or a missing file are the user's (one line),
    anything else is a bug (internal error, traceback kept by the edge)."""
    if isinstance(exc, (OperatorError, OSError)):
        return CommandError(command, str(exc) or type(exc).__name__)
    return InternalError(command, exc)


async def guarded(command: str, stream: Any) -> AsyncIterator[Any]:
    """``stream`` with its errors turned into :func:`failure` like those of a plain cmdlet."""
    try:
        async for item in stream:
            yield item
    except (FayError, *CONTROL, GeneratorExit):
        raise
    except Exception as exc:
        raise failure(command, exc) from exc
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()


@dataclass(frozen=True)
class Origin:
    """The file and source text nodes of a parse came from, for error locations."""

    file: str
    lines: list[str]

    def span(self, node: ast.Node) -> SourceSpan:
        text = self.lines[node.line - 1] if 0 < node.line <= len(self.lines) else ""
        return SourceSpan(self.file, node.line, node.col, text)


class Call(NamedTuple):
    """A function or script running (Get-PSCallStack): its name, where it was called from
    (None: not from a script's line, as a script the shell itself runs) and the scope that
    holds its $PSBoundParameters."""

    command: str
    function: str
    site: SourceSpan | None
    scope: Scope | None = None


@dataclass
class FunctionInfo:
    """A user-defined function: its declaration and where it was written."""

    node: ast.FunctionDef
    scope: Scope
    origin: Origin
    spec: Cmdlet

    def __str__(self) -> str:  # "$function:f" is its body's text, as PowerShell's
        return self.node.text


class Interpreter:
    """Evaluates fayshell scripts for one shell state."""

    def __init__(self, state: ShellState) -> None:
        self.state = state
        self.origin = Origin("<input>", [])
        #: The functions and scripts running, the outermost first (Get-PSCallStack).
        self.calls: list[Call] = []
        self.failed: list[Invocation] = []
        #: try blocks the running code is inside: a command's errors under Stop are then the
        #: try's to catch (not shown; the first is the caught error, as in PowerShell).
        self.try_depth = 0
        #: Set while a command runs under ``2>`` / ``2>&1``: its errors are collected, not shown.
        self.error_override: ErrorAction | None = None
        #: The redirections in force, the outermost first: commands write their streams there.
        self.captures: list[Capture] = []
        #: Output lists of the running top-level statement whose items go to the console as
        #: they are (not into a variable or a pipe); host text first shows what they hold, so
        #: Write-Host and output keep their order (see :meth:`flush`).
        self.direct = False
        self.sinks: list[list[Any]] = []
        self.flush_to: Callable[[list[Any]], None] | None = None
        self.trap_cache: dict[int, tuple[list[ast.Node], list[ast.Trap]]] = {}
        #: True once a script assigns $ErrorActionPreference (Write-Error then follows it).
        self.preference_set = False
        #: The objects whose ToString() is running now (see text_of).
        self.texts: set[int] = set()
        #: What the running function calls' -ErrorVariable, -WarningVariable and
        #: -InformationVariable collect (the innermost last): the commands inside write there.
        self.collecting_calls: list[Collected] = []
        #: The scope of the statement whose command is running (Invoke-Expression, -Scope).
        self.caller_scope: Scope = state.globals
        state.interpreter = self
        # deep recursion in scripts (PowerShell allows ~1000 nested calls): ~10 frames a call
        sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
        for name, value in automatic_variables(state).items():
            if not state.globals.lookup(name)[0]:
                state.globals.set_local(name, value)
        OUTPUT.set(state.output)  # shared with the tasks it runs and the console

    # ---- entry points ---------------------------------------------------------------------

    def parse(self, source: str, file: str = "<input>") -> ast.Script:
        return parse(source, file, self.raw_commands())

    def raw_commands(self) -> frozenset[str]:
        return self.state.registry.raw_aliases()

    async def run(
        self, source: str, file: str = "<input>", on_output: OutputCallback | None = None
    ) -> list[Any]:
        """Parse and run ``source``; each statement's output goes to ``on_output``.

        Without a callback, all output is returned as one list (used by tests and `-c`).
        """
        script = self.parse(source, file)
        return await self.run_script(script, on_output)

    async def run_script(
        self, script: ast.Script, on_output: OutputCallback | None = None
    ) -> list[Any]:
        saved = self.origin
        self.origin = Origin(script.file, script.source.split("\n"))
        if not script.file.startswith("<"):
            for name, value in script_variables(os.path.abspath(script.file), "").items():
                self.state.globals.set_local(name, value)
        if script.params:  # the script's param(): bound from its command-line arguments
            found, given = self.state.globals.lookup("args")
            try:
                await self.bind_params(
                    script.params,
                    command_line_args(given if found and isinstance(given, list) else []),
                    self.state.globals,
                    script.file,
                    None,
                )
            except RuntimeFayError:
                self.origin = saved
                raise
        gathered: list[Any] = []
        traps = [stmt for stmt in script.statements if isinstance(stmt, ast.Trap)]
        try:
            for stmt in script.statements:
                with self.numbered():
                    if not await self.top_statement(stmt, traps, on_output, gathered):
                        break
        finally:
            self.origin = saved
        return gathered

    @contextlib.contextmanager
    def numbered(self) -> Iterator[None]:
        """A script's statement, numbered for the shell state, which starts a held background
        write once a statement begun after the import has run and shown its output."""
        started = self.state.statement_started()
        try:
            yield
        finally:
            self.state.statement_finished(started)

    async def top_statement(
        self,
        stmt: ast.Node,
        traps: list[ast.Trap],
        on_output: OutputCallback | None,
        gathered: list[Any],
    ) -> bool:
        """Run a script's statement and show its output; False when a break or continue
        outside any loop stops the script."""
        self.failed = []
        if traps:
            trapped: list[Any] = []
            await self.trapped(stmt, self.state.globals, traps, trapped)
            out = trapped
        else:
            try:
                out = await self.statement_with_partial(stmt, on_output, gathered)
            except (BreakSignal, ContinueSignal) as sig:  # outside any loop: stop
                await self.emit(sig.output, on_output, gathered)
                return False
            except ExitSignal as sig:
                await self.emit(sig.output, on_output, gathered)
                sig.output = []
                raise
        self.state.close_progress()  # a Write-Progress bar lasts its statement (its loop)
        self.state.sync_output()  # shown as the session's preferences are now
        if on_output is None:
            gathered.extend(unroll(out) if not is_relation(out) else [out])
        elif out is not None and out != []:
            res = on_output(out)
            if res is not None:
                await res
        self.raise_for_failures(stmt)
        return True

    async def statement_with_partial(
        self, stmt: ast.Node, on_output: OutputCallback | None, gathered: list[Any]
    ) -> Any:
        """A top-level statement; on an error, what it wrote before failing is shown first."""
        saved = self.direct, self.flush_to, self.state.host
        self.direct = not isinstance(stmt, (ast.Assign, ast.IncDec))
        self.flush_to = gathered.extend if on_output is None else _sync_output(on_output)
        self.state.host = FlushingHost(saved[2], self)
        timer = FlushTimer(self.flush)
        try:
            return await self.statement_output(stmt, self.state.globals)
        except RuntimeFayError as exc:
            partial, exc.partial_output = exc.partial_output, []
            await self.emit(partial, on_output, gathered)
            raise
        finally:
            timer.stop()
            self.direct, self.flush_to, self.state.host = saved

    def flush(self) -> None:
        """Show the output the running statement has produced so far (before host text)."""
        if self.flush_to is None:
            return
        items: list[Any] = []
        for sink in self.sinks:
            items.extend(sink)
            sink.clear()
        if items:
            self.flush_to(items)

    def collecting(self, out: list[Any]) -> contextlib.AbstractContextManager[Any]:
        """Register ``out`` as holding console-bound output while the block runs."""
        return Collecting(self.sinks, out) if self.direct else NOTHING

    @contextlib.contextmanager
    def as_value(self) -> Iterator[None]:
        """Output produced inside is a value (a condition, an argument, a pipe's input)."""
        saved, self.direct = self.direct, False
        try:
            yield
        finally:
            self.direct = saved

    @staticmethod
    async def emit(items: list[Any], on_output: OutputCallback | None, gathered: list[Any]) -> None:
        if not items:
            return
        if on_output is None:
            gathered.extend(items)
            return
        res = on_output(items)
        if res is not None:
            await res

    def raise_for_failures(self, stmt: ast.Node, since: int = 0) -> None:
        """After a statement's output is shown: stop if a command it ran (those after the
        first ``since`` of ``failed``) failed items under Stop."""
        if len(self.failed) == since:  # nothing failed (every statement asks)
            return
        stopping = [inv for inv in self.failed[since:] if inv.errors and inv.error_action == "Stop"]
        del self.failed[since:]
        if stopping:
            inv = stopping[0]
            if inv.caught:  # PowerShell stops at the first: that error is what is caught
                raise self.located(ActionStopped.of(inv.name, inv.errors), stmt)
            count = len(inv.errors)
            what = {e.target for e in inv.errors if e.target}
            targets = f" ({', '.join(sorted(what))})" if what else ""
            raise self.located(
                CommandError(
                    inv.name,
                    f"{count} failure{'s' if count != 1 else ''}{targets}; "
                    "use -ErrorAction Continue to go on",
                ),
                stmt,
            )

    async def statement_output(self, stmt: ast.Node, scope: Scope) -> Any:
        """Run one statement; its output as a list, or a Relation when it stayed in DuckDB."""
        if self.state.trace_level:
            self.trace_statement(stmt)
        try:
            out = await self.exec(stmt, scope)
            if not is_relation(out):
                out = await self.drain(out)
        except CONTROL:
            raise
        except RuntimeFayError as exc:
            self.state.globals.set_local("?", False)
            raise self.located(exc, stmt) from None
        except (OperatorError, DotNetError, OverflowError) as exc:
            self.state.globals.set_local("?", False)
            raise self.located(operator_error(exc), stmt) from None
        failed = self.failed
        self.state.globals.set_local("?", not failed or not any(inv.errors for inv in failed))
        return out

    async def drain(self, stream: Any) -> list[Any]:
        """Collect a stream; items that came out before a break/continue/error stay output."""
        if stream is None or isinstance(stream, list):
            return await collect(stream)
        items: list[Any] = []
        try:
            with self.collecting(items):
                async for item in aiter_items(stream):
                    items.append(item)
        except RuntimeFayError as exc:
            exc.partial_output[:0] = items
            raise
        except (BreakSignal, ContinueSignal, ReturnSignal, ExitSignal) as signal:
            signal.output[:0] = items
            raise
        return items

    # ---- statements -----------------------------------------------------------------------

    async def exec(self, node: ast.Node, scope: Scope) -> Any:
        """Execute a statement; returns a stream (list, async iterator or Relation)."""
        try:
            if isinstance(node, ast.Pipeline):
                return await self.run_pipeline(node, scope)
            if isinstance(node, ast.Command):
                return await self.invoke(node, scope, None)
            if isinstance(node, ast.Assign):
                await self.assign(node, scope)
                return None
            if isinstance(node, ast.IncDec):
                await self.eval_incdec(node, scope)
                return None
            handler = STATEMENTS.get(type(node))
            if handler is not None:
                return await handler(self, node, scope)
            value = await self.eval(node, scope)
            return [None] if value is None and writes_null(node) else unroll(value)
        except (OperatorError, DotNetError, OverflowError) as exc:
            raise self.located(operator_error(exc), node) from None

    def trace_statement(self, stmt: ast.Node) -> None:
        """Set-PSDebug -Trace: the statement's line, ``>>>>`` where it starts, as a DEBUG
        line (shown whatever $DebugPreference says, as PowerShell's trace)."""
        first = leftmost(stmt)
        span = self.origin.span(first)
        at = max(first.col - 1, 0)
        text = span.text
        self.state.host.debug(f"{span.line:4}+ {text[:at]} >>>> {text[at:]}")

    def trace_set(self, name: str, value: Any) -> None:
        """Set-PSDebug -Trace 2: a variable's assignment."""
        if self.state.trace_level >= 2:
            self.state.host.debug(f"    ! SET ${name} = '{to_string(value)}'.")

    def located(self, err: RuntimeFayError, node: ast.Node) -> RuntimeFayError:
        """``err`` with the node's place attached, unless it already knows a closer one."""
        if err.span is None:
            err.span = self.origin.span(node)
        return err

    async def block(self, body: list[ast.Node], scope: Scope) -> list[Any]:
        """Run statements and gather their output (Relations kept as items)."""
        out: list[Any] = []
        traps = self.traps_of(body)
        try:
            with self.collecting(out):
                for stmt in body:
                    if traps:
                        await self.trapped(stmt, scope, traps, out)
                        continue
                    before = len(self.failed)
                    result = await self.statement_output(stmt, scope)
                    if is_relation(result):
                        out.append(result)
                    else:
                        out.extend(result)
                    self.raise_for_failures(stmt, before)  # a function, a loop: stop here
        except (BreakSignal, ContinueSignal, ReturnSignal, ExitSignal) as signal:
            signal.output[:0] = out  # what ran before break/continue/return is still output
            raise
        except RuntimeFayError as exc:
            exc.partial_output[:0] = out  # written before the error: shown, or kept by a catch
            raise
        return out

    def traps_of(self, body: list[ast.Node]) -> list[ast.Trap]:
        """The ``trap`` statements of a block (remembered per block)."""
        known = self.trap_cache.get(id(body))
        if known is None or known[0] is not body:
            known = (body, [stmt for stmt in body if isinstance(stmt, ast.Trap)])
            self.trap_cache[id(body)] = known
        return known[1]

    async def trapped(
        self, stmt: ast.Node, scope: Scope, traps: list[ast.Trap], out: list[Any]
    ) -> None:
        """Run a statement under ``trap``: a matching trap runs, then the block goes on."""
        if isinstance(stmt, ast.Trap):
            return
        try:
            before = len(self.failed)
            result = await self.statement_output(stmt, scope)
            self.raise_for_failures(stmt, before)
            out.extend([result] if is_relation(result) else result)
        except RuntimeFayError as exc:
            trap = next((t for t in traps if error_matches(exc, t.types)), None)
            if trap is None:
                raise
            record = self.error_record(exc)
            saved = scope.lookup("_")
            scope.set_local("_", record)
            try:
                for trap_stmt in trap.body:
                    result = await self.statement_output(trap_stmt, scope)
                    out.extend([result] if is_relation(result) else result)
            except BreakSignal:
                raise exc from None
            except ContinueSignal as sig:
                out.extend(sig.output)
                return
            finally:
                scope.set_local("_", saved[1])
            self.state.host.error(exc.one_line())

    def error_record(self, exc: RuntimeFayError) -> ErrorRecordValue:
        """The ``$_`` of a catch block for ``exc``; also added to ``$Error``."""
        record = self.error_value(exc)
        self.state.remember_error(record)
        return record

    @staticmethod
    def error_value(exc: RuntimeFayError) -> ErrorRecordValue:
        """PowerShell's ErrorRecord for ``exc``, with where it happened."""
        record = Interpreter.error_record_of(exc)
        if exc.span is not None and record.InvocationInfo is None:
            command = getattr(exc, "my_command", None) or getattr(exc, "command", "") or None
            if isinstance(command, str):
                command = {"Name": command, "CommandType": "Cmdlet", "Definition": command}
            span = exc.span
            record.InvocationInfo = ErrorInvocationInfo(
                command, span.file, span.line, span.col, span.text
            )
        return record

    @staticmethod
    def error_record_of(exc: RuntimeFayError) -> ErrorRecordValue:
        if isinstance(exc, ThrownError):
            if isinstance(exc.value, ErrorRecordValue):
                record = exc.value
            else:
                exception = (
                    exc.value
                    if isinstance(exc.value, ExceptionValue)
                    else ExceptionValue(exc.message, exc.type_name, exc)
                )
                # a throw statement stops the operation; what it threw (but an exception) is the
                # record's target: OperationStopped: (boom:String) [], RuntimeException
                target = None if isinstance(exc.value, ExceptionValue) else exc.value
                info = ErrorCategoryInfo(
                    "OperationStopped",
                    Reason=exception.TypeName.rsplit(".", 1)[-1],
                    TargetName="" if target is None else to_string(target),
                    TargetType="" if target is None else type_name_of(target),
                )
                record = ErrorRecordValue(exception, target, str(exc.span or ""), "", info)
        else:
            kind = dotnet_type_of(exc)
            target = getattr(exc, "target", "") or None  # a stopped command's first item
            error_id = getattr(exc, "error_id", "") or getattr(exc.cause, "error_id", "")
            info = ErrorCategoryInfo(
                getattr(exc, "category", None)
                or getattr(exc.cause, "category", None)
                or errorids.category_of(error_id)
                or ERROR_CATEGORIES.get(kind, "NotSpecified"),
                getattr(exc, "command", ""),
                kind.rsplit(".", 1)[-1],
                TargetName="" if target is None else to_string(target),
                TargetType="" if target is None else type_name_of(target),
            )
            exception = ExceptionValue(exc.detail, kind, exc)
            if isinstance(exc.cause, MethodFailed):  # what the .NET method threw
                exception.InnerException = ExceptionValue(exc.cause.inner_message, exc.cause.inner)
            record = ErrorRecordValue(exception, target, str(exc.span or ""), error_id, info)
        return record

    async def exec_if(self, node: ast.If, scope: Scope) -> Any:
        for cond, body in node.clauses:
            if truthy(await self.value_of(cond, scope)):
                return await self.block(body, scope)
        if node.else_body is not None:
            return await self.block(node.else_body, scope)
        return None

    async def exec_foreach(self, node: ast.Foreach, scope: Scope) -> Any:
        out: list[Any] = []
        source = await self.value_of(node.iterable, scope)
        if not is_relation(source):  # a query's rows stream by; an array has its $foreach
            return await self.foreach_items(node, LoopEnumerator(unroll(source)), scope)
        rows = StreamingEnumerator()
        with self.collecting(out), automatic(scope, "foreach", rows):
            async for item in aiter_items(source):
                rows.Current = item
                scope.set(node.var, item)
                if self.state.trace_level:
                    self.trace_set(node.var, item)
                if not await self.loop_body(node.body, scope, out, node.label):
                    break
        return out

    async def foreach_items(self, node: ast.Foreach, items: LoopEnumerator, scope: Scope) -> Any:
        out: list[Any] = []
        with self.collecting(out), automatic(scope, "foreach", items):
            while items.MoveNext():
                scope.set(node.var, items.Current)
                if self.state.trace_level:
                    self.trace_set(node.var, items.Current)
                if not await self.loop_body(node.body, scope, out, node.label):
                    break
        return out

    async def exec_while(self, node: ast.While, scope: Scope) -> Any:
        out: list[Any] = []
        with self.collecting(out):
            while truthy(await self.value_of(node.cond, scope)):
                if not await self.loop_body(node.body, scope, out, node.label):
                    break
        return out

    async def exec_for(self, node: ast.For, scope: Scope) -> Any:
        out: list[Any] = []
        with self.as_value():
            if node.init is not None:
                await self.statement_output(node.init, scope)
        with self.collecting(out):
            while node.cond is None or truthy(await self.value_of(node.cond, scope)):
                if not await self.loop_body(node.body, scope, out, node.label):
                    break
                if node.step is not None:
                    with self.as_value():
                        await self.statement_output(node.step, scope)
        return out

    async def exec_do(self, node: ast.DoLoop, scope: Scope) -> Any:
        out: list[Any] = []
        with self.collecting(out):
            while await self.loop_body(node.body, scope, out, node.label):
                if truthy(await self.value_of(node.cond, scope)) == node.until:
                    break
        return out

    async def exec_switch(self, node: ast.Switch, scope: Scope) -> Any:
        value = await self.value_of(node.value, scope)
        items = (
            value.records() if is_relation(value) else ([None] if value is None else unroll(value))
        )
        if "file" in node.flags:  # switch -File path: one item per line of the file
            items = read_lines(self.state, to_string(value))
        out: list[Any] = []
        saved = scope.lookup("_")
        each = LoopEnumerator(items)
        try:
            with self.collecting(out), automatic(scope, "switch", each):
                while each.MoveNext():
                    item = each.Current
                    scope.set_local("_", item)
                    try:
                        await self.switch_item(node, item, scope, out)
                    except ContinueSignal as sig:
                        if sig.target is not None and sig.target != node.label:
                            raise
                        out.extend(sig.output)
        except BreakSignal as sig:
            if sig.target is not None and sig.target != node.label:
                sig.output[:0] = out
                raise
            out.extend(sig.output)
        finally:
            scope.set_local("_", saved[1])
        return out

    async def switch_item(self, node: ast.Switch, item: Any, scope: Scope, out: list[Any]) -> None:
        matched = False
        for clause in node.clauses:
            if clause.pattern is None:
                continue
            if await self.switch_matches(node.flags, clause.pattern, item, scope):
                matched = True
                out.extend(await self.block(clause.body, scope))
        if not matched:
            for clause in node.clauses:
                if clause.pattern is None:
                    out.extend(await self.block(clause.body, scope))

    async def switch_matches(
        self, flags: frozenset[str], pattern_node: ast.Node, item: Any, scope: Scope
    ) -> bool:
        pattern = await self.eval(pattern_node, scope)
        case = "casesensitive" in flags
        if isinstance(pattern, ScriptBlock):
            return truthy(single_or_list(await self.invoke_here(pattern, item)))
        if "regex" in flags:
            m = dotnet.regex(to_string(pattern), case).search(to_string(item))
            if m:
                scope.set("Matches", dotnet.matches_table(m))
            return m is not None
        if "wildcard" in flags:
            return wildcard_match(to_string(item), to_string(pattern), case)
        return bool(compare("ceq" if case else "eq", item, pattern))

    async def exec_try(self, node: ast.Try, scope: Scope) -> Any:
        out: list[Any] = []
        with self.collecting(out):
            return await self.try_into(node, scope, out)

    async def try_body(self, body: list[ast.Node], scope: Scope, out: list[Any]) -> None:
        self.try_depth += 1
        try:
            for stmt in body:
                before = len(self.failed)
                result = await self.statement_output(stmt, scope)
                out.extend([result] if is_relation(result) else result)
                self.raise_for_failures(stmt, before)
        finally:
            self.try_depth -= 1

    async def try_into(self, node: ast.Try, scope: Scope, out: list[Any]) -> list[Any]:
        try:
            try:
                await self.try_body(node.body, scope, out)
            except RuntimeFayError as exc:
                out.extend(exc.partial_output)
                exc.partial_output.clear()
                catch = next((c for c in node.catches if error_matches(exc, c.types)), None)
                if catch is None:
                    raise
                out.extend(await self.run_catch(catch, exc, scope))
        except RuntimeFayError as exc:  # output so far travels with the error
            exc.partial_output[:0] = out
            out.clear()
            raise
        except (BreakSignal, ContinueSignal, ReturnSignal) as signal:
            signal.output[:0] = out
            out.clear()
            raise
        finally:
            if node.finally_body is not None:
                await self.run_finally(node.finally_body, scope, out)
        return out

    async def run_finally(self, body: list[ast.Node], scope: Scope, out: list[Any]) -> None:
        """A finally block's output goes after whatever is leaving the try (error or return)."""
        final = await self.block(body, scope)
        pending = sys.exc_info()[1]
        if isinstance(pending, RuntimeFayError):
            pending.partial_output.extend(final)
        elif isinstance(pending, (BreakSignal, ContinueSignal, ReturnSignal)):
            pending.output.extend(final)
        else:
            out.extend(final)

    async def run_catch(self, catch: ast.Catch, exc: RuntimeFayError, scope: Scope) -> list[Any]:
        record = self.error_record(exc)
        saved = scope.lookup("_")
        scope.set_local("_", record)
        try:
            return await self.block(catch.body, scope)
        finally:
            scope.set_local("_", saved[1])

    async def exec_trap(self, node: ast.Trap, scope: Scope) -> Any:
        return None  # traps act through block(); on their own they do nothing

    async def exec_exit(self, node: ast.Exit, scope: Scope) -> Any:
        value = None if node.value is None else await self.value_of(node.value, scope)
        try:
            code = 0 if value is None else int(to_number(value))
        except OperatorError:
            raise self.located(
                RuntimeFayError(f"exit needs a number, got {to_string(value)!r}"), node
            ) from None
        raise ExitSignal(code)

    async def exec_chain(self, node: ast.Chain, scope: Scope) -> Any:
        """``a && b`` runs b when a succeeded, ``a || b`` when it failed."""
        out: list[Any] = []
        with self.collecting(out):
            return await self.chain_into(node, scope, out)

    async def chain_into(self, node: ast.Chain, scope: Scope, out: list[Any]) -> list[Any]:
        try:
            left = await self.statement_output(node.left, scope)
            out.extend([left] if is_relation(left) else left)
            ok = not any(inv.errors for inv in self.failed) and self.last_exit_ok()
        except RuntimeFayError as exc:
            if node.op == "&&":
                raise
            self.state.host.error(exc.one_line())
            ok = False
        self.failed = [inv for inv in self.failed if inv.error_action == "Stop" and ok]
        if ok == (node.op == "&&"):
            right = await self.statement_output(node.right, scope)
            out.extend([right] if is_relation(right) else right)
        return out

    async def invoke_command_method(self, low: str, text: str, scope: Scope) -> Any:
        """``$ExecutionContext.InvokeCommand.ExpandString(s)``: ``s`` expanded as a
        double-quoted string here; ``.InvokeScript(s)``: ``s`` run here."""
        if low == "invokescript":
            return single_or_list(await self.evaluate_string(text, scope))
        if '\n"@' in text:
            raise OperatorError('ExpandString: the text may not hold a line starting with "@')
        (expanded,) = await self.evaluate_string(f'@"\n{text}\n"@', scope)
        return expanded

    def bind_with_defaults(self, spec: Cmdlet, args: list[Any]) -> Bound:
        """Bind ``args``; then the ``$PSDefaultParameterValues`` entries for this command
        ('Cmdlet:Parameter', wildcards allowed) give the parameters the call did not
        (about_Parameters_Default_Values; a 'Disabled' entry that is true turns them off)."""
        bound = bind(spec, args)
        found, table = self.state.scope_now.lookup("PSDefaultParameterValues")
        if not found or not isinstance(table, Mapping) or not table:
            return bound
        extra = default_arguments(spec, table, bound)
        return bind(spec, [*args, *extra]) if extra else bound

    def closure_scope(self, scope: Scope) -> Scope:
        """``{ }.GetNewClosure()``: a scope holding copies of the variables the calling
        scope sees now (later changes to them are not seen; new globals are)."""
        made = Scope(self.state.globals)
        here: Scope | None = scope
        while here is not None:
            for key, item in here.vars.items():
                made.vars.setdefault(key, item)
            here = here.parent
        return made

    def last_exit_ok(self) -> bool:
        found, code = self.state.globals.lookup("LASTEXITCODE")
        return not found or code in (0, None)

    async def exec_redirected(self, node: ast.Redirected, scope: Scope) -> Any:
        async def produce() -> Any:
            return unroll(await self.eval(node.expr, scope))

        return await self.redirected(node.redirects, produce, scope)

    async def redirected(
        self,
        redirects: list[tuple[str, str, ast.Node | None]],
        produce: Callable[[], Awaitable[Any]],
        scope: Scope,
    ) -> list[Any]:
        """Run ``produce`` with its output and error streams sent where ``redirects`` say."""
        with self.as_value():
            return await self.redirected_items(redirects, produce, scope)

    async def redirected_items(
        self,
        redirects: list[tuple[str, str, ast.Node | None]],
        produce: Callable[[], Awaitable[Any]],
        scope: Scope,
    ) -> list[Any]:
        named = {stream for stream, _, _ in redirects}
        capture = Capture(frozenset(STREAMS if "*" in named else named & set(STREAMS)))
        saved = self.error_override
        if "2" in capture.streams:
            self.error_override = "SilentlyContinue"
        self.captures.append(capture)
        try:
            items = await collect(await produce())
        except RuntimeFayError as exc:
            if "2" not in capture.streams:
                raise
            items = []
            capture.records.append(("2", self.error_record(exc)))
        finally:
            self.error_override = saved
            self.captures.remove(capture)
        for stream, op, target in redirects:
            items = await self.apply_redirect(stream, op, target, items, capture, scope)
        return items

    async def apply_redirect(
        self,
        stream: str,
        op: str,
        target: ast.Node | None,
        items: list[Any],
        capture: Capture,
        scope: Scope,
    ) -> list[Any]:
        """One redirection: ``n>&1`` adds stream n's records to the output (after it);
        ``n>file`` writes them (``1``/``*``: the output too), ``n>$null`` drops them."""
        records = [] if stream == "1" else capture.of(stream)
        if op == ">&":
            return items + records
        dest = None if target is None else await self.eval(target, scope)
        written = (items if stream in ("1", "*") else []) + records
        if dest is not None:
            write_text(self.state, to_string(dest), written, append=op == ">>")
        return [] if stream in ("1", "*") else items

    async def loop_body(
        self, body: list[ast.Node], scope: Scope, out: list[Any], label: str | None = None
    ) -> bool:
        """One iteration's output appended to ``out``; False when the body said ``break``."""
        try:
            out.extend(await self.block(body, scope))
        except (ContinueSignal, BreakSignal) as sig:
            if sig.target is not None and sig.target != label:
                sig.output[:0] = out  # a labelled break/continue for an outer loop
                out.clear()
                raise
            out.extend(sig.output)
            return isinstance(sig, ContinueSignal)
        return True

    def define_function(self, name: str, block: ScriptBlock) -> None:
        """``Set-Item function:name -Value { ... }``: a function whose body is the block."""
        lit = block.node
        node = ast.FunctionDef(
            name,
            lit.params,
            lit.body,
            lit.text,
            lit.named,
            should_process=lit.should_process,
            confirm_impact=lit.confirm_impact,
            positional=lit.positional,
            advanced=lit.advanced,
            default_set=lit.default_set,
            line=lit.line,
            col=lit.col,
        )
        self.define(node, block.scope)

    def define(self, node: ast.FunctionDef, scope: Scope) -> None:
        """The function ``node`` declares, written in ``scope``, under its names."""
        spec = callable_spec(
            node.name,
            node.params,
            node.should_process,
            node.advanced,
            node.confirm_impact,
            node.positional,
        )
        info = FunctionInfo(node, scope, self.origin, spec)
        for name in (node.name, *node.aliases):  # [Alias('x')] names it too
            self.state.functions[name.lower()] = info

    async def exec_function(self, node: ast.FunctionDef, scope: Scope) -> Any:
        self.define(node, scope)
        return None

    async def exec_enum(self, node: ast.EnumDef, scope: Scope) -> Any:
        """``enum Name { ... }``: the type, for the rest of the session (as a script's
        types are in PowerShell's session once it ran)."""
        declared = [
            (name, None if value is None else await self.eval(value, scope))
            for name, value in node.members
        ]
        members = members_of(node.name, declared)
        self.state.types[node.name.lower()] = EnumType(node.name, members, node.flags)
        return None

    async def exec_class(self, node: ast.ClassDef, scope: Scope) -> Any:
        """``class Name { ... }``: the type, for the rest of the session; its static
        properties get their values now."""
        found = None if node.base is None else self.user_type(node.base)
        base = found if isinstance(found, ClassType) else None
        interfaces = list(node.interfaces)
        if node.base is not None and base is None and is_interface_name(node.base):
            interfaces.insert(0, node.base)  # class K : IComparable { }
        elif node.base is not None and base is None:
            raise self.located(
                RuntimeFayError(f"class {node.name}: [{node.base}] is not a class declared before"),
                node,
            )
        cls = ClassType(
            node.name,
            base,
            node.properties,
            node.methods,
            scope,
            cast=self.cast_to,
            interfaces=frozenset(dotnet.short_type(i) for i in interfaces),
            text_of=self.text_of,
        )
        self.state.types[node.name.lower()] = cls  # a static default may name its own class
        for prop in node.properties:
            if prop.checks:  # the attributes' arguments, once (constants in PowerShell)
                cls.checks[prop.name.lower()] = [
                    (attr, [await self.eval(a, scope) for a in args]) for attr, args in prop.checks
                ]
        for prop in node.properties:
            if prop.static:
                cls.statics[prop.name] = await self.property_default(prop, scope)
        return None

    async def property_default(self, prop: ast.ClassProperty, scope: Scope) -> Any:
        """A class property's first value: its ``= value``, else its type's (numbers 0, bool
        False, anything else $null, as in PowerShell's classes)."""
        if prop.default is None:
            kind = (prop.type or "").lower()
            return None if kind == "string" else TYPE_DEFAULTS.get(kind)
        value = await self.eval(prop.default, scope)
        return value if prop.type is None or value is None else self.cast_to(value, prop.type)

    async def construct(self, cls: ClassType, args: list[Any]) -> ClassInstance:
        """``[T]::new(args)`` and ``New-Object T``: the properties' defaults, then the
        constructor taking as many arguments (its base class's first)."""
        obj = ClassInstance(cls)
        for prop in cls.instance_properties():
            obj.init(prop.name, await self.property_default(prop, cls.scope))
        await self.run_constructor(cls, obj, args)
        return obj

    async def run_constructor(self, cls: ClassType, obj: ClassInstance, args: list[Any]) -> None:
        ctors = cls.constructors()
        fitting = [(cls, c) for c in ctors if len(c.params) == len(args)]
        chosen = self.overload(fitting, args)
        ctor = None if chosen is None else chosen[1]
        if ctor is None and (ctors or args):
            raise no_overload(cls, "new", len(args))
        if ctor is None:  # none declared: the base class's default one
            if cls.base is not None:
                await self.run_constructor(cls.base, obj, [])
            return
        scope = await self.method_scope(cls, ctor, obj, args)
        if cls.base is not None:  # : base(args), evaluated with the parameters bound
            values = [await self.eval(a, scope) for a in ctor.base_args or []]
            await self.run_constructor(cls.base, obj, values)
        await self.method_result(ctor, scope)

    def overload(
        self, candidates: list[tuple[ClassType, ast.ClassMethod]], args: list[Any]
    ) -> tuple[ClassType, ast.ClassMethod] | None:
        """The overload the arguments fit best (about_Classes_Methods): each argument that is
        of its parameter's type counts more than one that converts to it; one that does not
        convert rules the overload out. The first declared wins a tie; when none fits, the
        first (its binding then says why)."""
        best, best_score = (candidates[0] if candidates else None), -1
        for candidate in candidates:
            fits = [self.fit(a, p.type) for a, p in zip(args, candidate[1].params, strict=True)]
            score = sum(fits) if all(fits) else -1
            if score > best_score:
                best, best_score = candidate, score
        return best

    def fit(self, value: Any, type_name: str | None) -> int:
        """2: ``value`` is of the type; 1: it converts to it (or the type takes anything);
        0: it does not convert."""
        if not type_name or dotnet.short_type(type_name) in ("object", "psobject"):
            return 1
        own = self.user_type(type_name)
        with contextlib.suppress(OperatorError):
            if own.is_instance(value) if own is not None else is_type(value, type_name):
                return 2
        try:
            self.cast_to(value, type_name)
        except (OperatorError, DotNetError, ValueError, TypeError, OverflowError):
            return 0
        return 1

    async def method_scope(
        self, cls: ClassType, method: ast.ClassMethod, this: ClassInstance | None, args: list[Any]
    ) -> Scope:
        """A method's scope: ``$this`` (none in a static method) and its parameters bound."""
        scope = Scope(cls.scope, True)
        if this is not None:
            scope.set_local("this", this)
        await self.bind_params(method.params, args, scope, f"{cls.Name}.{method.name}", None)
        return scope

    async def method_result(self, method: ast.ClassMethod, scope: Scope) -> Any:
        """A method's value: what its ``return`` gives, as its declared type (what its other
        statements write is not output, as in PowerShell's classes)."""
        try:
            with self.as_value():
                await self.block(method.body, scope)
            return None
        except ReturnSignal as ret:
            value = single_or_list(ret.value)
        kind = (method.return_type or "").lower()
        if kind in ("", "void") or value is None:
            return None if kind == "void" else value
        return self.cast_to(value, kind)

    async def object_method(
        self, obj: ClassInstance, name: str, args: list[Any], start: ClassType | None = None
    ) -> Any:
        """``$obj.Name(args)`` on an object of a script's class: its method taking as many
        arguments (its base class's when it has none), else GetType, ToString, Equals.
        ``start``: the base class the call was cast to, ``([Base]$this).Name()``, whose
        method runs even where the object's class overrides it (about_Classes_Inheritance)."""
        cls = obj.ps_class
        own = start if start is not None and start.is_instance(obj) else cls
        found = self.overload(own.overloads(name, len(args), static=False), args)
        if found is not None:
            owner, method = found
            return await self.method_result(
                method, await self.method_scope(owner, method, obj, args)
            )
        low = name.lower()
        if low == "gettype" and not args:
            return cls
        if low == "tostring" and not args:
            return str(obj)
        if low == "equals" and len(args) == 1:
            return obj is args[0]
        raise no_overload(cls, name, len(args))

    async def awaited_text(self, obj: ClassInstance) -> str:
        """``obj.ToString()``, awaited ("$this" inside it is the class's name)."""
        self.texts.add(id(obj))
        try:
            return to_string(await self.object_method(obj, "ToString", []))
        finally:
            self.texts.discard(id(obj))

    def text_of(self, obj: ClassInstance) -> str | None:
        """``obj.ToString()`` of its class (or a base), run at once, wherever text is made of
        it (``-join``, a table cell, "$obj"); None when it has none, when it fails, or when it
        would wait for something (then the class's name is its text)."""
        if id(obj) in self.texts or not obj.ps_class.overloads("ToString", 0, static=False):
            return None  # ("$this" inside its own ToString: the class's name)
        self.texts.add(id(obj))
        running = self.object_method(obj, "ToString", [])
        try:
            running.send(None)
        except StopIteration as done:
            return to_string(done.value)
        except (FayError, OperatorError, DotNetError):
            return None
        finally:
            self.texts.discard(id(obj))
        running.close()  # it waited: not a text to make now
        return None

    async def class_static(self, cls: ClassType, name: str, args: list[Any] | None) -> Any:
        """``[T]::new(args)``, ``[T]::Property`` and ``[T]::Method(args)`` of a script's
        class ($null for a static property it does not have, as in PowerShell)."""
        if args is None:
            owner = cls.static_owner(name)
            return None if owner is None else owner.statics[owner.static_key(name)]
        if name.lower() == "new":
            return await self.construct(cls, args)
        found = self.overload(cls.overloads(name, len(args), static=True), args)
        if found is None:
            raise no_overload(cls, name, len(args))
        owner, method = found
        return await self.method_result(method, await self.method_scope(owner, method, None, args))

    def set_static(self, cls: ClassType, name: str, value: Any) -> None:
        """``[T]::Count = 5``: a static property of a script's class, as its declared type."""
        owner = cls.static_owner(name)
        if owner is None:
            raise OperatorError(f"The property '{name}' cannot be found on [{cls.Name}].")
        key = owner.static_key(name)
        prop = next(p for p in owner.properties if p.static and p.name.lower() == key.lower())
        owner.statics[key] = value if prop.type is None else self.cast_to(value, prop.type)

    def user_type(self, name: str) -> EnumType | ClassType | None:
        """The script's own type a ``[Name]`` names, if it is one."""
        found = self.state.types.get(dotnet.short_type(name))
        return found if isinstance(found, (EnumType, ClassType)) else None

    def cast_class(self, target: ast.Node) -> ClassType | None:
        """The script class a method call's target is cast to, as in ``([Base]$this)``."""
        while isinstance(target, ast.Paren):
            target = target.pipeline
        if not isinstance(target, ast.Cast):
            return None
        own = self.user_type(target.type)
        return own if isinstance(own, ClassType) else None

    def cast_to(self, value: Any, type_name: str) -> Any:
        """``[T]value`` for a .NET type or a script's enum or class (an object of the class
        or of a class derived from it; a hashtable is cast where it can run the constructor,
        in ``[T]@{...}``)."""
        own = self.user_type(type_name)
        if own is None:
            return convert(value, type_name)
        if isinstance(own, EnumType):
            return own.convert(value)
        if value is None or own.is_instance(value):
            return value
        raise CastError(
            f'Cannot convert the "{to_string(value)}" value of type "{type_name_of(value)}" to '
            f'type "{own.Name}".'
        )

    async def exec_return(self, node: ast.Return, scope: Scope) -> Any:
        value = [] if node.value is None else unroll(await self.value_of(node.value, scope))
        raise ReturnSignal(value)

    async def exec_break(self, node: ast.Break, scope: Scope) -> Any:
        raise BreakSignal(node.target)

    async def exec_continue(self, node: ast.Continue, scope: Scope) -> Any:
        raise ContinueSignal(node.target)

    async def exec_throw(self, node: ast.Throw, scope: Scope) -> Any:
        value = None if node.value is None else await self.value_of(node.value, scope)
        if node.value is None:  # `throw` alone in a catch block rethrows its error
            found, current = scope.lookup("_")
            if found and isinstance(current, ErrorRecordValue):
                value = current
        err = thrown(value)
        found, invocation = scope.lookup("MyInvocation")  # the function or script throwing
        if found and isinstance(invocation, dict):
            err.my_command = invocation.get("MyCommand")
        raise self.located(err, node)

    async def assign(self, node: ast.Assign, scope: Scope) -> Any:
        if node.op == "??=":
            current = await self.eval(node.target, scope)
            if current is not None:
                return current
            value = await self.value_of(node.value, scope)
        else:
            value = await self.value_of(node.value, scope)
        if node.op not in ("=", "??="):
            current = await self.eval(node.target, scope)
            value = arithmetic(node.op[0], current, value)
        await self.store(node.target, value, scope, node)
        if self.state.trace_level and isinstance(node.target, ast.VarRef):
            self.trace_set(node.target.name, value)
        return value

    async def eval_incdec(self, node: ast.IncDec, scope: Scope) -> Any:
        current = await self.eval(node.target, scope)
        new = arithmetic(node.op[0], 0 if current is None else current, 1)
        await self.store(node.target, new, scope, node)
        return new if node.prefix else current

    async def store(self, target: ast.Node, value: Any, scope: Scope, node: ast.Node) -> None:
        """Assign ``value`` to a variable, an element or a property."""
        if isinstance(target, ast.ArrayLit):  # $a, $b = 1, 2, 3 -> $b is 2, 3
            items = value.records() if is_relation(value) else unroll(value)
            last = len(target.items) - 1
            for i, sub in enumerate(target.items):
                part = (
                    items[i]
                    if i < last and i < len(items)
                    else (single_or_list(items[last:]) if i == last else None)
                )
                await self.store(sub, part, scope, node)
            return
        if isinstance(target, ast.VarRef):
            types = node.types if isinstance(node, ast.Assign) else []
            self.set_variable(target.name, value, scope, types)
        elif isinstance(target, ast.Index):
            container = await self.eval(target.obj, scope)
            key = await self.eval(target.index, scope)
            if isinstance(container, list):
                if not in_bounds(container, key):
                    raise self.located(operator_error(IndexOutOfRange()), node)
                container[int(to_number(key))] = value
            elif isinstance(container, dict):
                container[_dict_key(container, key)] = value
            else:
                raise self.located(RuntimeFayError("cannot index into this value"), node)
        elif isinstance(target, ast.Member):
            obj = await self.eval(target.obj, scope)
            name = target.name
            if target.computed is not None:  # $o.$p = 1
                name = to_string(await self.eval(target.computed, scope))
            if isinstance(obj, dict):
                key = _dict_key(obj, name)
                try:
                    if key not in obj and not isinstance(obj, Hashtable):
                        raise no_property_to_set(name)  # an object: Add-Member adds one
                    obj[key] = value
                except OperatorError as exc:  # a class's object: no such property, or its type
                    raise self.located(operator_error(exc), node) from None
            elif isinstance(obj, Ref) and name.lower() == "value":
                obj.Value = value
            else:
                try:
                    set_property(obj, name, value)
                except OperatorError as exc:
                    raise self.located(operator_error(exc), node) from None
        elif isinstance(target, ast.StaticMember) and target.args is None:
            own = self.user_type(target.type)
            if not isinstance(own, ClassType):
                raise self.located(
                    RuntimeFayError(f"[{target.type}]::{target.name} is read-only"), node
                )
            try:
                self.set_static(own, target.name, value)
            except OperatorError as exc:
                raise self.located(operator_error(exc), node) from None
        else:
            raise self.located(RuntimeFayError("cannot assign to this expression"), node)

    def set_variable(
        self, name: str, value: Any, scope: Scope, types: list[str] | None = None
    ) -> None:
        low = name.lower()
        if ":" in low:
            prefix, _, rest = name.partition(":")
            if prefix.lower() == "env":
                os.environ[rest] = to_string(value)
                return
            if prefix.lower() in ("global", "script", "local", "private"):
                target = self.state.globals if prefix.lower() in ("global", "script") else scope
                target.set_local(rest, value)
                if prefix.lower() == "private":  # about_Scopes: not seen by child scopes
                    target.private.add(rest.lower())
                return
        if low in SPECIAL_NAMES:
            if low == "null":
                return  # $null = expr discards the value, as in PowerShell
            if low in ("true", "false"):
                raise RuntimeFayError(f"cannot overwrite the constant ${name}")
            if low == "psitem":
                name = "_"
            if low == "erroractionpreference":
                self.preference_set = True  # Write-Error follows it from now on
        kept = scope.constraint(name)  # [string[]]$l = …; $l += 3 keeps strings
        for type_name in reversed(kept if not types else []):
            value = self.cast_to(value, type_name)
        invalid = preference_check(name, value)  # $MaximumHistoryCount = 0
        if invalid is not None:
            raise RuntimeFayError(invalid)
        holder = scope.set(name, value)
        if low == "formatenumerationlimit":  # Out-String in the same statement follows it
            self.state.output.enumeration_limit = int_preference(value, FORMAT_ENUMERATION_LIMIT)
        if types:
            holder.types[low] = list(types)

    async def value_of(self, node: ast.Node, scope: Scope) -> Any:
        """The value of a statement used as a value (condition, assignment right side)."""
        if not self.direct:
            return await self.value_of_node(node, scope)
        self.direct = False
        try:
            return await self.value_of_node(node, scope)
        finally:
            self.direct = True

    async def value_of_node(self, node: ast.Node, scope: Scope) -> Any:
        if isinstance(node, (ast.Pipeline, ast.Command)):
            out = await self.exec(node, scope)
            if is_relation(out):
                return out
            return single_or_list(await collect(out))
        if isinstance(node, STATEMENT_VALUES):
            return single_or_list(await collect(await self.exec(node, scope)))
        if isinstance(node, ast.Assign):  # $x = $y = 5: the inner assignment's value
            return await self.assign(node, scope)
        return await self.eval(node, scope)

    # ---- pipelines and commands -----------------------------------------------------------

    async def run_pipeline(self, node: ast.Pipeline, scope: Scope) -> Any:
        stream: Any = None
        last = len(node.elements) - 1
        for i, element in enumerate(node.elements):
            if isinstance(element, ast.Command) and i < last:
                with self.as_value():  # its output is the next command's input
                    stream = await self.invoke(element, scope, stream if i else None)
            elif isinstance(element, ast.Command):
                stream = await self.invoke(element, scope, stream if i else None)
            elif i == 0:
                value = await self.eval(element, scope)
                one_null = value is None and writes_null(element)  # $null | % {} runs once
                stream = value if is_relation(value) else ([None] if one_null else unroll(value))
            else:
                raise self.located(
                    RuntimeFayError(
                        "expressions are only allowed as the first element of a pipeline"
                    ),
                    element,
                )
        return stream

    def lookup_command(self, name: str) -> Cmdlet | FunctionInfo:
        name = self.state.resolve_alias(name)
        func = self.state.functions.get(name.lower())
        if func is not None:
            return func
        spec = self.state.registry.resolve(name)
        if spec is not None:
            return spec
        raise CommandNotFound(
            f"unknown command {name!r}{self.command_hint(name)}",
            NOT_RECOGNIZED.format(name),  # $_.Exception.Message: PowerShell's words
        )

    def command_hint(self, name: str) -> str:
        """What to try instead of an unknown command: a program on this machine runs on a
        node (fayshell runs no local programs), else the closest command's name."""
        import shutil

        if "/" not in name and shutil.which(name):
            return (
                f"; {name!r} is a program, and fayshell runs programs on nodes: "
                f"Invoke-Command -Node localhost -Command '{name} ...'"
            )
        lowered = {n.lower(): n for n in self.state.command_names()}
        close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
        return (
            f"; did you mean {lowered[close[0]]}?"
            if close
            else "; 'Get-Command' lists the commands"
        )

    async def eval_args(self, node: ast.Command, scope: Scope) -> list[Any]:
        args: list[Any] = []
        if node.raw_tail is not None:
            args.append(node.raw_tail)
        for arg in node.args:
            if isinstance(arg, ast.ParamArg):
                value = NO_VALUE if arg.value is None else await self.eval(arg.value, scope)
                args.append(NamedArg(arg.name, value))
            elif isinstance(arg, ast.Splat):
                args.extend(self.splat(arg, scope))
            else:
                args.append(await self.eval(arg, scope))
        return args

    def splat(self, arg: ast.Splat, scope: Scope) -> list[Any]:
        """``@params``: a hashtable gives named arguments, an array positional ones.

        Without such a variable the word stays text (``@ops`` names a node group)."""
        found, value = scope.lookup(arg.name)
        if not found:
            return ["@" + arg.name]
        if isinstance(value, Mapping):
            return [NamedArg(str(k), NO_VALUE if v is True else v) for k, v in value.items()]
        return [NamedArg(v[1:]) if isinstance(v, ParameterToken) else v for v in unroll(value)]

    async def invoke(self, node: ast.Command, scope: Scope, input_stream: Any) -> Any:
        """Run one command of a pipeline; returns its output stream."""
        if node.redirects:

            async def produce() -> Any:
                return await self.invoke_plain(node, scope, input_stream)

            return await self.redirected(node.redirects, produce, scope)
        return await self.invoke_plain(node, scope, input_stream)

    async def invoke_plain(self, node: ast.Command, scope: Scope, input_stream: Any) -> Any:
        try:
            if node.callee is not None:
                return await self.call_operator(node, scope, input_stream)
            if "/" in node.name or "\\" in node.name:  # ./incident.fay: run the script
                return await self.script_command(node, scope)
            target = self.lookup_command(node.name)
            if method_style(node) and scope.strict_version() >= 2:
                raise operator_error(MethodSyntax())
            args = await self.eval_args(node, scope)
            if isinstance(target, FunctionInfo):
                return await self.call_function(target, args, input_stream, scope, node)
            self.caller_scope = scope
            return await self.call_cmdlet(target, args, input_stream, node)
        except RuntimeFayError as exc:
            raise self.located(exc, node) from None

    async def evaluate_string(self, source: str, scope: Scope | None = None) -> list[Any]:
        """Invoke-Expression: parse ``source`` and run it in the caller's scope."""
        script = self.parse(source, "<Invoke-Expression>")
        saved = self.origin
        self.origin = Origin("<Invoke-Expression>", source.split("\n"))
        try:
            return await self.block(script.statements, scope or self.caller_scope)
        finally:
            self.origin = saved

    def scope_named(self, name: str | None) -> Scope:
        """``-Scope Global|Script|Local|N`` relative to the running command's caller."""
        low = (name or "local").lower()
        if low in ("global", "script"):
            return self.state.globals
        scope = self.caller_scope
        if low in ("local", "private", "0"):
            return scope
        if not low.isdigit():
            raise RuntimeFayError(f"unknown scope {name!r} (Global, Script, Local or a number)")
        for _ in range(int(low)):
            scope = scope.parent or scope
        return scope

    async def call_operator(self, node: ast.Command, scope: Scope, input_stream: Any) -> Any:
        """``& callee args`` (new scope) and ``. callee args`` (the caller's scope)."""
        assert node.callee is not None
        callee = await self.eval(node.callee, scope)
        args = await self.eval_args(node, scope)
        dot = node.name == "."
        if isinstance(callee, ScriptBlock):
            run_scope = scope if dot else Scope(callee.scope, isolated=True)
            return as_stream(
                await self.run_callable(
                    callee.node.params,
                    callee.node.body,
                    callee.node.named,
                    run_scope,
                    args,
                    input_stream,
                    "scriptblock",
                )
            )
        if isinstance(callee, FunctionInfo):
            return await self.call_function(callee, args, input_stream, scope, node)
        kind = getattr(callee, "CommandType", None)
        if isinstance(kind, str):  # & (Get-Command Get-Span): the command it describes
            callee = callee.Definition if kind == "Alias" else callee.Name
        name = to_string(callee)
        if name.lower().endswith(".fay") or os.path.sep in name:
            return await self.run_script_file(name, args, scope, dot, self.origin.span(node))
        target = self.lookup_command(name)
        if isinstance(target, FunctionInfo):
            return await self.call_function(target, args, input_stream, scope, node)
        return await self.call_cmdlet(target, args, input_stream, node)

    async def script_command(self, node: ast.Command, scope: Scope) -> Any:
        """A statement naming a path (``./x.fay``, ``.\\x.fay``, ``~/x.fay``): that script,
        as ``& path`` runs it; fayshell runs no native programs (Invoke-Command does, on
        nodes)."""
        path = node.name.replace("\\", "/")
        if not path.lower().endswith(SCRIPT_SUFFIXES):
            raise CommandNotFound(
                f"cannot run {node.name!r}: fayshell runs scripts "
                f"({', '.join(SCRIPT_SUFFIXES)}); run programs on a node with Invoke-Command"
            )
        args = await self.eval_args(node, scope)
        return await self.run_script_file(path, args, scope, False, self.origin.span(node))

    async def run_script_file(
        self, path: str, args: list[Any], scope: Scope, dot: bool, site: SourceSpan
    ) -> Any:
        """``& path`` (a scope of its own; its ``exit N`` sets $LASTEXITCODE) or ``. path``,
        called at ``site``."""
        self.calls.append(Call(os.path.basename(path), "<ScriptBlock>", site))
        try:
            if dot:
                return await self.run_file(path, scope, args)
            return await self.run_file(path, Scope(self.state.globals, True), args)
        except ExitSignal as exc:
            if dot:
                raise
            self.state.globals.set_local("LASTEXITCODE", exc.code)
            return exc.output
        finally:
            self.calls.pop()

    async def run_file(self, path: str, scope: Scope, args: list[Any]) -> Any:
        """Run a .fay script file in ``scope`` (dot-sourcing passes the caller's scope)."""
        path = os.path.normpath(
            os.path.join(
                getattr(self.state, "location", "") or os.getcwd(), os.path.expanduser(path)
            )
        )
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise RuntimeFayError(f"cannot read script {path}: {exc.strerror or exc}") from None
        source = script_text(path, data)
        script = self.parse(source, path)
        saved = self.origin
        own = script_variables(path, saved.file)  # the script's own, also when dot-sourced
        held = {name: scope.local(name) for name in own}
        self.origin = Origin(path, source.split("\n"))
        scope.set_local("args", [a for a in args if not isinstance(a, NamedArg)])
        for name, value in own.items():
            scope.set_local(name, value)
        try:
            if script.params:
                await self.bind_params(script.params, args, scope, path, None)
            return as_stream(await self.block(script.statements, scope))
        except ReturnSignal as ret:
            return as_stream(ret.output)
        finally:
            for name, item in held.items():  # a dot-sourcing caller gets its own back
                if item is None:
                    scope.remove(name)
                else:
                    scope.set_local(*item)
            self.origin = saved

    def what_if(self, bound: Bound) -> bool:
        """-WhatIf as given, else $WhatIfPreference (a -WhatIf function sets it for what it
        calls)."""
        if bound.what_if is not None:
            return bound.what_if
        found, value = self.caller_scope.lookup("WhatIfPreference")
        return found and truthy(value)

    async def call_cmdlet(
        self, spec: Cmdlet, args: list[Any], input_stream: Any, node: ast.Node
    ) -> Any:
        bound = self.bind_with_defaults(spec, args)
        ctx = Invocation(
            self.state,
            spec,
            input_stream,
            verbose=bound.verbose,
            debug=bound.debug,
            error_action=self.error_override or bound.error_action or self.state.error_action,
            warning_action=bound.warning_action,
            information_action=bound.information_action,
            progress_action=bound.progress_action,
            caught=self.try_depth > 0,
            what_if=self.what_if(bound),
            confirm=spec.should_process and self.confirms(spec, bound, self.caller_scope),
            collected=self.collecting_calls[::-1],
            captures=self.captures[::-1],
            at=self.origin.span(node),
        )
        self.failed.append(ctx)
        result = await self.kept_output(spec, ctx, bound, input_stream, node)
        if bound.pipeline_variable is None:
            return result
        return each_as(bound.pipeline_variable, result, self.caller_scope)

    async def kept_output(
        self, spec: Cmdlet, ctx: Invocation, bound: Bound, input_stream: Any, node: ast.Node
    ) -> Any:
        """The cmdlet's output, kept in its -OutVariable and its errors in its -ErrorVariable."""
        kept = Kept.of(bound, self.caller_scope)
        if kept is None:
            return await self.run_cmdlet(spec, ctx, bound, input_stream, node)
        ctx.collected.insert(0, kept.collected)
        try:
            result = await self.run_cmdlet(spec, ctx, bound, input_stream, node)
        except RuntimeFayError as exc:
            kept.failed(self.error_value(exc))
            raise
        if hasattr(result, "__aiter__"):
            return kept.stream(result, self.error_value)
        kept.store(result)
        return result

    async def run_cmdlet(
        self, spec: Cmdlet, ctx: Invocation, bound: Bound, input_stream: Any, node: ast.Node
    ) -> Any:
        pipeline_params = [p for p in spec.params if p.pipeline and p.pyname not in bound.values]
        if spec.stream or input_stream is None or not pipeline_params:
            if input_stream is not None and not spec.stream and not pipeline_params:
                await self.reject_input(spec, input_stream)
            self.check_mandatory(spec, bound.values)
            for p in spec.params:  # a delay-bind script block with no input to run it for
                if isinstance(bound.values.get(p.pyname), DelayBound):
                    raise ParameterError(spec.name, p.name, DelayBound.NO_INPUT.format(p.name))
            ctx.input = input_stream if spec.stream else None
            with self.as_value():  # what a cmdlet's script blocks write is the cmdlet's business
                result = await self.guard(
                    spec, functools.partial(self.call_func, spec, ctx, bound.values)
                )
            return self.inside_cmdlet(result) if hasattr(result, "__aiter__") else result
        return self.inside_cmdlet(self.per_record(spec, ctx, bound.values, input_stream, node))

    async def inside_cmdlet(self, stream: Any) -> AsyncIterator[Any]:
        """A cmdlet's streamed output; while it computes the next item, output its script
        blocks write is not console output (only the items it yields may be)."""
        it = stream.__aiter__()
        while True:
            saved, self.direct = self.direct, False
            try:
                item = await it.__anext__()
            except StopAsyncIteration:
                return
            finally:
                self.direct = saved
            yield item

    async def call_func(self, spec: Cmdlet, ctx: Invocation, values: dict[str, Any]) -> Any:
        return await normalize_result(spec.func(ctx, **values))

    async def guard(self, spec: Cmdlet, call: Callable[[], Awaitable[Any]]) -> Any:
        """Call a cmdlet; its errors (also those of a stream it returns) as :func:`failure`."""
        try:
            result = await call()
        except (FayError, *CONTROL):
            raise
        except Exception as exc:
            raise failure(spec.name, exc) from exc
        return guarded(spec.name, result) if hasattr(result, "__aiter__") else result

    async def reject_input(self, spec: Cmdlet, input_stream: Any) -> None:
        items = await collect(input_stream)
        if items:
            raise ParameterError(spec.name, None, "does not take pipeline input")

    def check_mandatory(self, spec: Cmdlet, values: Mapping[str, Any]) -> None:
        missing = missing_mandatory(spec, values)
        if missing:
            names = ", ".join("-" + p.name for p in missing)
            raise ParameterError(
                spec.name,
                None,
                f"missing mandatory parameter {names}",
                MISSING_MANDATORY.format(", ".join(p.name for p in missing)),
                errorids.MISSING_MANDATORY,
            )

    async def per_record(
        self,
        spec: Cmdlet,
        ctx: Invocation,
        values: dict[str, Any],
        input_stream: Any,
        node: ast.Node,
    ) -> AsyncIterator[Any]:
        """Call a cmdlet once per input record, binding the record to its pipeline parameters."""
        try:
            async for item in aiter_items(input_stream):
                call_values = {**values, **pipeline_binding(spec, values, item)}
                call_values = await self.delay_bound(spec, call_values, item)
                self.check_mandatory(spec, call_values)
                out = await self.guard(
                    spec, functools.partial(self.call_func, spec, ctx, call_values)
                )
                async for produced in aiter_items(out):
                    yield produced
        except RuntimeFayError as exc:
            raise self.located(exc, node) from None

    async def delay_bound(self, spec: Cmdlet, values: dict[str, Any], item: Any) -> dict[str, Any]:
        """``values`` with each DelayBound script block run for ``item`` ($_), its output
        converted to its parameter's type."""
        out = dict(values)
        for p in spec.params:
            given = values.get(p.pyname)
            if isinstance(given, DelayBound):
                with self.as_value():
                    written = await given.block.invoke(dollar_under=item)
                out[p.pyname] = convert_value(spec, p, single_or_list(written))
        return out

    async def call_function(
        self,
        func: FunctionInfo,
        args: list[Any],
        input_stream: Any,
        caller: Scope,
        at: ast.Command | None = None,
    ) -> Any:
        """A user's function, in a scope of its own; its -PipelineVariable is set in the
        ``caller``'s scope, where the pipeline runs; ``at``: the command that called it."""
        saved, self.origin = self.origin, func.origin
        node = func.node
        if self.state.trace_level >= 2:
            self.state.host.debug(f"    ! CALL function '{node.name}'.")
        scope = Scope(func.scope, True)
        invocation = invocation_info(node.name, "Function", saved.file)
        if at is not None:  # the call's own name (an alias's) and where it is
            invocation.update(call_site(saved.span(at), at.name if at.callee is None else ""))
        scope.set_local("MyInvocation", invocation)
        site = None if at is None else saved.span(at)
        self.calls.append(Call(node.name, node.name, site, scope))
        try:
            bound = await self.bind_params(
                node.params, args, scope, node.name, input_stream, func.spec, node.default_set
            )
            if node.advanced:  # [CmdletBinding()]
                asks = self.asks(scope, bound, func.spec)
                made = ScriptCmdlet(
                    node.name,
                    asks,
                    throw,
                    bound.parameter_set,
                    lambda name: scope.lookup(name)[1],
                )
                scope.set_local("PSCmdlet", made)
            out = as_stream(await self.kept_call(bound, node, scope, input_stream, caller))
            if bound.pipeline_variable is None:
                return out
            return each_as(bound.pipeline_variable, out, caller)
        except RecursionError:
            raise RuntimeFayError(
                f"{node.name}: the script failed due to call depth overflow"
            ) from None
        finally:
            self.origin = saved
            self.calls.pop()

    async def kept_call(
        self, bound: Bound, node: ast.FunctionDef, scope: Scope, input_stream: Any, caller: Scope
    ) -> list[Any]:
        """A function's body, its output kept in its -OutVariable, and what the commands
        inside it write kept in its -ErrorVariable, -WarningVariable and -InformationVariable
        (stored in the ``caller``'s scope when it ends, as for a cmdlet)."""
        args = (bound, node.params, node.body, node.named, scope, input_stream, node.name)
        kept = Kept.of(bound, caller)
        if kept is None:
            return await self.run_bound(*args)
        self.collecting_calls.append(kept.collected)
        try:
            out = await self.run_bound(*args)
        except RuntimeFayError as exc:
            kept.failed(self.error_value(exc))
            raise
        finally:
            self.collecting_calls.remove(kept.collected)
        kept.store(out)
        return out

    async def run_callable(
        self,
        params: list[ast.ParamDecl],
        body: list[ast.Node],
        named: dict[str, list[ast.Node]] | None,
        scope: Scope,
        args: list[Any],
        input_stream: Any,
        name: str,
    ) -> list[Any]:
        """A script block: bind ``param()``, then body or begin/process/end."""
        bound = await self.bind_params(params, args, scope, name, input_stream)
        return await self.run_bound(bound, params, body, named, scope, input_stream, name)

    async def run_bound(
        self,
        bound: Bound,
        params: list[ast.ParamDecl],
        body: list[ast.Node],
        named: dict[str, list[ast.Node]] | None,
        scope: Scope,
        input_stream: Any,
        name: str,
    ) -> list[Any]:
        """A function's or script block's body (or begin/process/end), its arguments bound;
        its common parameters set the preference variables of its scope, as in PowerShell
        (``f -WarningAction SilentlyContinue``: no warning of what it runs is shown)."""
        for preference, value in preferences(bound).items():
            scope.set_local(preference, value)
        if named is None:
            scope.set_local("input", await collect(input_stream))
            return await self.body_output(body, scope)
        return await self.named_output(named, params, scope, input_stream, name)

    def asks(self, scope: Scope, bound: Bound, spec: Cmdlet) -> ShouldProcess:
        """What $PSCmdlet.ShouldProcess does in a function: under SupportsShouldProcess, its
        -WhatIf or $WhatIfPreference and its -Confirm or $ConfirmPreference (both also hold
        for the commands it calls, as -Confirm sets $ConfirmPreference to Low and
        -Confirm:$false to None); otherwise it always goes ahead."""
        if not spec.should_process:
            return ShouldProcess(self.state.host)
        if bound.what_if is not None:
            scope.set_local("WhatIfPreference", bound.what_if)
        if bound.confirm is not None:
            scope.set_local("ConfirmPreference", CONFIRM_IMPACT.convert(int(bound.confirm)))
        found, value = scope.lookup("WhatIfPreference")
        return ShouldProcess(
            self.state.host,
            found and truthy(value),
            self.confirms(spec, bound, scope),
            lambda message: self.verbose_in(scope, message),
        )

    def verbose_in(self, scope: Scope, message: str) -> None:
        """A VERBOSE line when the scope's $VerbosePreference (a function's -Verbose) asks."""
        found, value = scope.lookup("VerbosePreference")
        if found and to_string(value).lower() == "continue":
            self.state.host.verbose(message)

    @staticmethod
    def confirms(spec: Cmdlet, bound: Bound, scope: Scope) -> bool:
        """Is a change confirmed first? -Confirm as given, else when the command's
        ConfirmImpact is at or above $ConfirmPreference (never when that is None)."""
        if bound.confirm is not None:
            return bound.confirm
        found, value = scope.lookup("ConfirmPreference")
        return found and confirm_due(spec.confirm_impact, value)

    async def bind_params(
        self,
        params: list[ast.ParamDecl],
        args: list[Any],
        scope: Scope,
        name: str,
        input_stream: Any,
        spec: Cmdlet | None = None,
        default_set: str = "",
    ) -> Any:
        """Bind arguments to a ``param()`` block: each parameter a local of ``scope``; the
        parameter set the arguments name is resolved first (its mandatory parameters are)."""
        spec = spec or callable_spec(name, params)
        bound = self.bind_with_defaults(spec, args)
        given = {
            d.name.lower() for d in params if (p := spec.param(d.name)) and p.pyname in bound.values
        }
        try:
            bound.parameter_set = parameter_set(params, given, default_set)
        except ValueError as exc:
            raise ParameterError(name, None, str(exc)) from None
        scope.set_local(
            "PSBoundParameters",
            Hashtable(
                (decl.name, bound.values[p.pyname])
                for decl in params
                if (p := spec.param(decl.name)) is not None and p.pyname in bound.values
            ),
        )
        for decl in params:
            p = spec.param(decl.name)
            if p is not None and p.pyname in bound.values:
                value = self.typed(decl, bound.values[p.pyname], name)
                await self.check_param(decl, value, scope, name)
            elif mandatory_in(decl, bound.parameter_set) and not (
                (decl.from_pipeline or decl.by_property) and input_stream is not None
            ):
                raise ParameterError(
                    name,
                    decl.name,
                    "missing mandatory parameter",
                    MISSING_MANDATORY.format(decl.name),
                    errorids.MISSING_MANDATORY,
                )
            else:
                value = await self.param_default(decl, scope)
            scope.set_local(decl.name, value)
        scope.set_local("args", bound.values.get("args", []))
        return bound

    def typed(self, decl: ast.ParamDecl, value: Any, name: str, piped: bool = False) -> Any:
        """A bound value as its parameter's declared type, as PowerShell converts it
        (``[datetime]$d`` given '2024-03-01'); the binder converts the simple types of
        arguments itself, not those of ``piped`` items. A type fayshell does not know keeps
        the value as it is."""
        kind = (decl.type or "").lower()
        if not kind or kind in ("object", "psobject"):
            return value
        if not piped and _param_type(kind) != "any" and kind not in integers.NAMES:
            return value  # an [int] or [long] still gets its range checked and its type
        try:
            return self.cast_to(value, kind)
        except UnknownType:
            return value
        except (OperatorError, DotNetError, ValueError) as exc:
            raise ParameterError(
                name,
                decl.name,
                f"Cannot process argument transformation on parameter '{decl.name}'. {exc}",
            ) from None

    async def param_default(self, decl: ast.ParamDecl, scope: Scope) -> Any:
        """A parameter not given: its default, else its type's (``[switch]`` and ``[bool]``
        False, numbers 0, ``[string]`` ''), else $null."""
        if decl.default is not None:
            return await self.eval(decl.default, scope)
        return TYPE_DEFAULTS.get((decl.type or "").lower())

    async def check_param(self, decl: ast.ParamDecl, value: Any, scope: Scope, name: str) -> None:
        """A bound value against the parameter's [Validate...] attributes; a failure is
        PowerShell's "Cannot validate argument on parameter" error."""
        for attr, arg_nodes in decl.checks:
            args = [await self.eval(a, scope) for a in arg_nodes]
            if attr == "validatescript" and args and isinstance(args[0], ScriptBlock):
                ok = truthy(single_or_list(await args[0].invoke(dollar_under=value)))
                why = None if ok else validate.script_failed(args[0].node.text.strip(), value)
            else:
                why = validate.problem(attr, args, value)
            if why is not None:
                message = f"Cannot validate argument on parameter '{decl.name}'. {why}"
                raise ParameterError(name, decl.name, message, error_id=errorids.VALIDATION_FAILED)

    async def body_output(self, body: list[ast.Node], scope: Scope) -> list[Any]:
        try:
            return await self.block(body, scope)
        except ReturnSignal as ret:
            return ret.output

    async def named_output(
        self,
        named: dict[str, list[ast.Node]],
        params: list[ast.ParamDecl],
        scope: Scope,
        input_stream: Any,
        name: str,
    ) -> list[Any]:
        """begin once, process once per input item (``$_`` bound), end once."""
        out: list[Any] = []
        with self.collecting(out):
            return await self.named_into(named, params, scope, input_stream, out, name)

    async def named_into(
        self,
        named: dict[str, list[ast.Node]],
        params: list[ast.ParamDecl],
        scope: Scope,
        input_stream: Any,
        out: list[Any],
        name: str,
    ) -> list[Any]:
        out += await self.body_output(named.get("begin", []), scope)
        process = named.get("process")
        if process is not None:
            piped = [p for p in params if p.from_pipeline or p.by_property]
            if input_stream is None:
                out += await self.body_output(process, scope)
            else:
                async for item in aiter_items(input_stream):
                    scope.set_local("_", item)
                    for decl in piped:
                        await self.bind_piped(decl, item, scope, name)
                    out += await self.body_output(process, scope)
        elif input_stream is not None:
            scope.set_local("input", await collect(input_stream))
        out += await self.body_output(named.get("end", []), scope)
        return out

    async def bind_piped(self, decl: ast.ParamDecl, item: Any, scope: Scope, name: str) -> None:
        """One pipeline item bound to a ValueFromPipeline(ByPropertyName) parameter: converted
        to its type and checked, and in $PSBoundParameters (as PowerShell binds it)."""
        by_value = decl.from_pipeline and not (decl.by_property and is_record(item))
        if by_value:
            value = item
        else:  # by its name or an [Alias()] of it; an item without one leaves it unbound
            held = (get_property(item, n, MISSING) for n in (decl.name, *decl.aliases))
            value = next((v for v in held if v is not MISSING), MISSING)
            if value is MISSING:
                await self.unbind_piped(decl, scope)
                return
        value = self.typed(decl, value, name, piped=True)
        await self.check_param(decl, value, scope, name)
        scope.set_local(decl.name, value)
        found, bound = scope.lookup("PSBoundParameters")
        if found and isinstance(bound, dict):
            bound[decl.name] = value

    async def unbind_piped(self, decl: ast.ParamDecl, scope: Scope) -> None:
        """An item without the property: the parameter is its default again, not bound."""
        scope.set_local(decl.name, await self.param_default(decl, scope))
        found, bound = scope.lookup("PSBoundParameters")
        if found and isinstance(bound, dict):
            bound.pop(decl.name, None)

    async def invoke_block(
        self, block: ScriptBlock, args: list[Any], dollar_under: Any, input_items: Any
    ) -> list[Any]:
        """Run a script block in a child of the scope it was written in."""
        if not self.direct:
            return await self.block_in_scope(block, args, dollar_under, input_items)
        self.direct = False  # a cmdlet consumes what the block writes
        try:
            return await self.block_in_scope(block, args, dollar_under, input_items)
        finally:
            self.direct = True

    async def invoke_here(self, block: ScriptBlock, item: Any = UNSET) -> list[Any]:
        """Run a block dot-sourced in the scope it was written in, with $_ set there, as
        ForEach-Object, Where-Object and a switch's { } condition run theirs: ``-Begin
        { $sum = 0 }`` is seen by -Process and after the pipeline, and so is the $Matches a
        -match inside sets."""
        scope = block.scope
        saved = scope.vars.get("_")
        if item is not UNSET:
            scope.set_local("_", item)
        body = block.node.body
        try:
            if len(body) == 1 and type(body[0]) in VALUE_EXPRESSIONS:  # fast path: { $_ * 2 }
                return unroll(await self.eval(body[0], scope))
            return await self.block(body, scope)
        except ReturnSignal as ret:  # `return` ends this one invocation, as in PowerShell
            return ret.output
        finally:
            if saved is None:
                scope.vars.pop("_", None)
            else:
                scope.vars["_"] = saved

    async def block_in_scope(
        self, block: ScriptBlock, args: list[Any], dollar_under: Any, input_items: Any
    ) -> list[Any]:
        scope = Scope(block.scope)
        if dollar_under is not UNSET:
            scope.set_local("_", dollar_under)
        if block.node.named is not None or (args and any(isinstance(a, NamedArg) for a in args)):
            return await self.run_callable(
                block.params,
                block.node.body,
                block.node.named,
                scope,
                args,
                input_items,
                "scriptblock",
            )
        for i, decl in enumerate(block.params):
            if i < len(args):
                value = args[i]
            else:
                value = await self.param_default(decl, scope)
            scope.set_local(decl.name, value)
        scope.set_local("args", args[len(block.params) :] if args else [])
        if input_items is not None:
            scope.set_local("input", input_items)
        body = block.node.body
        if len(body) == 1 and type(body[0]) in VALUE_EXPRESSIONS:  # fast: { $_.x -gt 5 }
            return unroll(await self.eval(body[0], scope))
        return await self.body_output(body, scope)

    # ---- expressions ----------------------------------------------------------------------

    async def eval(self, node: ast.Node, scope: Scope) -> Any:
        if self.direct:  # an expression's output is a value, not console output
            self.direct = False
            try:
                return await self.eval_node(node, scope)
            finally:
                self.direct = True
        handler = EXPRESSIONS.get(type(node))
        if handler is None:
            return await self.eval_node(node, scope)
        try:
            return await handler(self, node, scope)
        except (OperatorError, DotNetError, OverflowError) as exc:
            raise self.located(operator_error(exc), node) from None

    async def eval_node(self, node: ast.Node, scope: Scope) -> Any:
        handler = EXPRESSIONS.get(type(node))
        if handler is None:
            if isinstance(node, (ast.Pipeline, ast.Command, ast.Assign) + STATEMENT_VALUES):
                return await self.value_of(node, scope)
            raise self.located(RuntimeFayError(f"cannot evaluate {type(node).__name__}"), node)
        try:
            return await handler(self, node, scope)
        except (OperatorError, DotNetError, OverflowError) as exc:
            raise self.located(operator_error(exc), node) from None

    async def eval_literal(self, node: ast.Literal, scope: Scope) -> Any:
        return node.value

    async def eval_expand(self, node: ast.ExpandString, scope: Scope) -> Any:
        parts: list[str] = []
        for p in node.parts:
            if isinstance(p, str):
                parts.append(p)
                continue
            try:
                value = await self.eval(p, scope)
            except RuntimeFayError as exc:
                # Set-StrictMode 1 allows "$unset" (later versions do not)
                if not isinstance(exc.cause, VariableNotSet) or scope.strict_version() != 1:
                    raise
                value = None
            if isinstance(value, (list, tuple)):  # "$arr" joins with $OFS (default a space)
                parts.append(self.joined(value, scope))
            elif isinstance(value, ClassInstance) and id(value) not in self.texts:
                parts.append(await self.awaited_text(value))  # its ToString(): it may wait
            else:
                parts.append(to_string(value))
        return "".join(parts)

    @staticmethod
    def joined(items: list[Any] | tuple[Any, ...], scope: Scope) -> str:
        """An array as text, its items joined by $OFS (a space when it is unset)."""
        found, ofs = scope.lookup("OFS")
        sep = to_string(ofs) if found and ofs is not None else " "
        return sep.join(to_string(v) for v in items)

    async def eval_var(self, node: ast.VarRef, scope: Scope) -> Any:
        name = node.name
        low = name.lower()
        if ":" in low:
            prefix, _, rest = low.partition(":")
            if prefix == "env":
                return os.environ.get(name[4:])
            if prefix == "function":  # ${function:f}: the function, to call with &
                return self.state.functions.get(rest)
            if prefix in ("global", "script", "local", "private", "using"):
                # $using:x: ForEach-Object -Parallel runs its block in this session, in a
                # child of the scope that wrote it, where $x is visible as it is
                where = self.state.globals if prefix in ("global", "script") else scope
                found, value = where.lookup(rest)
                return value if found else unset(name, scope)
        if low == "psitem":
            low = "_"
        found, value = scope.lookup(low)
        return value if found else unset(name, scope)

    async def eval_member(self, node: ast.Member, scope: Scope) -> Any:
        obj = await self.eval(node.obj, scope)
        if node.safe and obj is None:
            return None
        name = node.name
        if node.computed is not None:
            name = to_string(await self.eval(node.computed, scope))
        value = member(obj, name)
        if value is None and scope.strict_version() >= 2 and not has_member(obj, name):
            raise PropertyNotFound(name)
        return value

    async def eval_typelit(self, node: ast.TypeLit, scope: Scope) -> Any:
        return self.user_type(node.name) or TypeName(node.name)

    async def eval_static(self, node: ast.StaticMember, scope: Scope) -> Any:
        args = None if node.args is None else [await self.eval(a, scope) for a in node.args]
        own = self.user_type(node.type)
        if isinstance(own, ClassType):
            return await self.class_static(own, node.name, args)
        if own is not None:
            return own.static(node.name, args)
        if dotnet.short_type(node.type) == "enum" and args is not None:
            return enum_static(node.name, args)
        evaluator = self.regex_evaluator(node.type, node.name, args)
        if evaluator is not None:  # [regex]::Replace(text, pattern, { ... }[, options])
            assert args is not None
            return await self.replace_with_block(args[0], evaluator, args[2])
        if (
            dotnet.short_type(node.type) in ("scriptblock", "management.automation.scriptblock")
            and node.name.lower() == "create"
            and args
        ):
            return self.script_block_of(to_string(args[0]), scope)
        return static_member(node.type, node.name, args)

    @staticmethod
    def regex_evaluator(type_name: str, name: str, args: list[Any] | None) -> Any:
        """The pattern of ``[regex]::Replace(text, pattern, { ... }[, options])``, compiled,
        or None for any other call."""
        if (
            dotnet.short_type(type_name) not in ("regex", "text.regularexpressions.regex")
            or name.lower() != "replace"
            or args is None
            or len(args) < 3
            or not isinstance(args[2], ScriptBlock)
        ):
            return None
        options = to_string(args[3]) if len(args) > 3 else ""
        return netregex.Regex(to_string(args[1]), options).compiled

    def script_block_of(self, text: str, scope: Scope) -> ScriptBlock:
        """``[scriptblock]::Create(text)``: the text parsed as a block's body."""
        script = self.parse("{" + text + "\n}", "<scriptblock>")
        lit = script.statements[0]
        if isinstance(lit, ast.Pipeline):
            lit = lit.elements[0]
        if not isinstance(lit, ast.ScriptBlockLit):
            raise RuntimeFayError("[scriptblock]::Create: the text is not a script block body")
        return ScriptBlock(lit, scope, self)

    async def eval_ternary(self, node: ast.Ternary, scope: Scope) -> Any:
        cond = truthy(await self.eval(node.cond, scope))
        return await self.eval(node.then if cond else node.other, scope)

    async def eval_redirected(self, node: ast.Redirected, scope: Scope) -> Any:
        return single_or_list(await self.exec_redirected(node, scope))

    async def eval_index(self, node: ast.Index, scope: Scope) -> Any:
        obj = await self.eval(node.obj, scope)
        if obj is None:
            if node.safe:
                return None
            raise OperatorError("Cannot index into a null array.", errorids.NULL_ARRAY)
        key = await self.eval(node.index, scope)
        if isinstance(obj, (netregex.GroupCollection, dotnet.MemberList)) and isinstance(key, str):
            return obj.named(key)  # $m.Groups['year'], $o.PSObject.Properties['Name']
        if is_relation(obj):
            obj = obj.records()
        if not isinstance(obj, (list, tuple, str)):
            return (
                [index_value(obj, k) for k in key]
                if isinstance(key, list)
                else index_value(obj, key)
            )
        if isinstance(key, list):  # a slice: indexes past either end give nothing
            return [index_value(obj, k) for k in key if in_bounds(obj, k)]
        if not in_bounds(obj, key) and scope.strict_version() >= 3:
            raise IndexOutOfRange()
        return index_value(obj, key)

    async def eval_method(self, node: ast.MethodCall, scope: Scope) -> Any:
        obj = collected(await self.eval(node.obj, scope))
        if obj is None:
            if node.safe:
                return None
            raise OperatorError(
                "You cannot call a method on a null-valued expression.",
                errorids.INVOKE_METHOD_ON_NULL,
            )
        args = [await self.eval(a, scope) for a in node.args]
        low = node.name.lower()
        if isinstance(obj, ScriptBlock) and low in ("invoke", "invokereturnasis"):
            return single_or_list(await obj.invoke(*args))
        if isinstance(obj, ScriptBlock) and low == "getnewclosure" and not args:
            return ScriptBlock(obj.node, self.closure_scope(scope), self)
        if isinstance(obj, CommandIntrinsics) and low in obj.METHODS and len(args) == 1:
            return await self.invoke_command_method(low, to_string(args[0]), scope)
        if isinstance(obj, VariableIntrinsics) and low in obj.METHODS:
            return variable_method(node.name, args, scope)
        if (
            isinstance(obj, netregex.Regex)
            and low == "replace"
            and len(args) >= 2
            and isinstance(args[1], ScriptBlock)
        ):  # $rx.Replace(text, { ... }): the block is the MatchEvaluator
            return await self.replace_with_block(args[0], obj.compiled, args[1])
        own = net_method(obj, node.name) if isinstance(obj, DotNetCollection) else None
        if own is not None:  # a HashSet's Add, a Queue's Dequeue ...
            try:
                return own(*args)
            except TypeError:
                raise no_method("", node.name, len(args), True) from None
        if isinstance(obj, ClassInstance):
            return await self.object_method(obj, node.name, args, self.cast_class(node.obj))
        if isinstance(obj, PSCustomObject) and low in obj.script_methods():
            return await self.script_method(obj, obj.script_methods()[low][1], args)
        if isinstance(obj, (list, dict)):
            handled, value = await self.collection_method(obj, node.name, args)
            if handled:
                return value
        return value_method(obj, node.name, args)

    async def script_method(self, obj: PSCustomObject, block: ScriptBlock, args: list[Any]) -> Any:
        """A ScriptMethod's block run for ``obj``: ``$this`` is the object, the call's
        arguments its ``param()`` (or ``$args``)."""
        scope = Scope(block.scope)
        scope.set_local("this", obj)
        return single_or_list(await ScriptBlock(block.node, scope, self).invoke(*args))

    async def collection_method(
        self, obj: list[Any] | dict[Any, Any], name: str, args: list[Any]
    ) -> tuple[bool, Any]:
        """Array and hashtable methods: Contains, IndexOf, Add, Remove, ContainsKey, Where ..."""
        low = name.lower()
        if isinstance(obj, dict):
            key = _dict_key(obj, args[0]) if args else None
            has_key = lambda: any(same_key(k, key) for k in obj)  # noqa: E731
            table: dict[str, Callable[[], Any]] = {
                "containskey": has_key,
                "contains": has_key,  # OrderedDictionary's, and Hashtable's too
                "containsvalue": lambda: any(compare("eq", v, args[0]) for v in obj.values()),
                "trygetvalue": lambda: _try_get(obj, key, args[1] if len(args) > 1 else None),
                "add": lambda: obj.__setitem__(key, args[1]) if key not in obj else _dup(key),
                "remove": lambda: obj.pop(key, None) and None,
                "clear": obj.clear,
                "clone": lambda: type(obj)(obj),
                "getenumerator": lambda: [DictionaryEntry(k, v) for k, v in obj.items()],
            }
        else:
            table = {
                # .NET's Equals: case-sensitive, unlike -contains and -eq
                "contains": lambda: compare("ccontains", obj, args[0]),
                "indexof": lambda: next(
                    (i for i, v in enumerate(obj) if compare("ceq", v, args[0])), -1
                ),
                "getupperbound": lambda: len(obj) - 1,  # of dimension 0, the only one
                "getlowerbound": lambda: 0,
                "getvalue": lambda: index_value(obj, args[0]),
                "lastindexof": lambda: next(
                    (i for i in range(len(obj) - 1, -1, -1) if compare("ceq", obj[i], args[0])),
                    -1,
                ),
                "add": lambda: obj.append(args[0]),
                "addrange": lambda: obj.extend(unroll(args[0])),
                "insertrange": lambda: obj.__setitem__(
                    slice(int(to_number(args[0])), int(to_number(args[0]))), unroll(args[1])
                ),
                "getrange": lambda: obj[_range(obj, args)],
                "removerange": lambda: obj.__delitem__(_range(obj, args)),
                "clear": obj.clear,
                "remove": lambda: _remove_first(obj, args[0]),
                "removeat": lambda: obj.__delitem__(_index(obj, args[0])),
                "insert": lambda: obj.insert(int(to_number(args[0])), args[1]),
                "clone": lambda: list(obj),
                "toarray": lambda: list(obj),
                "reverse": obj.reverse,
                "sort": lambda: obj.sort(key=_sort_key),
            }
        if low in table:
            try:
                return True, table[low]()
            except (IndexError, TypeError, ValueError) as exc:
                raise method_failed(name, len(args), exc) from None
        if low == "where" and isinstance(obj, list) and args:
            return True, await self.where_method(obj, args)
        if low == "foreach" and isinstance(obj, list) and args:
            return True, await self.foreach_method(obj, args)
        return False, None

    async def where_method(self, items: list[Any], args: list[Any]) -> list[Any]:
        """``.Where({...}[, mode[, count]])``: Default, First, Last, SkipUntil, Until, Split."""
        if not isinstance(args[0], ScriptBlock):
            raise OperatorError(".Where() needs a script block")
        mode = to_string(args[1]).lower() if len(args) > 1 else "default"
        count = int(to_number(args[2])) if len(args) > 2 else 0
        if mode not in WHERE_MODES:
            raise OperatorError(f".Where() mode {args[1]!r}: one of {', '.join(WHERE_MODES)}")
        if count < 0:
            raise OperatorError(".Where() count cannot be negative")
        hits = [truthy(single_or_list(await args[0].invoke(dollar_under=i))) for i in items]
        return where_selected(items, hits, mode, count)

    async def foreach_method(self, items: list[Any], args: list[Any]) -> list[Any]:
        """``.ForEach({...})``, ``.ForEach('Property')`` or ``.ForEach('Method', args...)``."""
        out: list[Any] = []
        if isinstance(args[0], ScriptBlock):
            for item in items:
                out.extend(await args[0].invoke(dollar_under=item))
            return out
        for item in items:
            out.extend(member_or_call(item, to_string(args[0]), list(args[1:])))
        return out

    async def eval_unary(self, node: ast.Unary, scope: Scope) -> Any:
        value = await self.eval(node.operand, scope)
        if node.op == "-not":
            return not truthy(value)
        if node.op in ("-split", "-isplit", "-csplit"):
            return [part for v in unroll(value) for part in to_string(v).split()]
        if node.op == "-join":
            return "".join(to_string(v) for v in unroll(value))
        if node.op == "-bnot":
            return integers.bnot(bit_operand(value))
        if node.op == "-":
            n = to_number(value)
            return integers.negate(n) if isinstance(n, integers.SizedInt) else -n
        return to_number(value)

    async def eval_binary(self, node: ast.Binary, scope: Scope) -> Any:
        op = node.op
        left = await self.eval(node.left, scope)
        if op in SHORT_CIRCUIT:
            if op == "and":
                return truthy(left) and truthy(await self.eval(node.right, scope))
            if op == "or":
                return truthy(left) or truthy(await self.eval(node.right, scope))
            return left if left is not None else await self.eval(node.right, scope)
        right = await self.eval(node.right, scope)
        if op in ORDER_OPS and isinstance(left, ClassInstance) and left.implements("icomparable"):
            return ORDER_OPS[op](await self.compare_to(left, right), 0)  # its CompareTo
        if op not in REGEX_OPS:
            return binary_op(op, left, right)
        if (
            op in ("replace", "ireplace", "creplace")
            and isinstance(right, list)
            and len(right) == 2
            and isinstance(right[1], ScriptBlock)
        ):
            rx = dotnet.regex(to_string(right[0]), op == "creplace")
            return await self.replace_with_block(left, rx, right[1])
        if op in ("match", "imatch", "cmatch") and not isinstance(left, (list, tuple)):
            m = dotnet.regex(to_string(right), op == "cmatch").search(to_string(left))
            if m is not None:
                scope.set("Matches", Hashtable(dotnet.matches_table(m)))
            return m is not None
        return binary_op(op, left, right)

    async def compare_to(self, left: ClassInstance, right: Any) -> int:
        """``left.CompareTo(right)`` of an IComparable object: below 0, 0 or above 0."""
        return int(to_number(await self.object_method(left, "CompareTo", [right])))

    async def replace_with_block(self, left: Any, rx: re.Pattern[str], block: ScriptBlock) -> Any:
        """``-replace pattern, { $_.Value ... }`` and .NET's Regex.Replace with a script block
        as its MatchEvaluator (``$args[0]`` or ``param($m)`` is the match too): each match
        replaced by the block's output."""

        async def one(text: str) -> str:
            out, pos = [], 0
            for m in rx.finditer(text):
                match = netregex.match_info(m)
                out.append(text[pos : m.start()])
                written = await block.invoke(match, dollar_under=match)
                out.append(to_string(single_or_list(written)))
                pos = m.end()
            return "".join(out) + text[pos:]

        if isinstance(left, (list, tuple)):
            return [await one(to_string(v)) for v in left]
        return await one(to_string(left))

    async def eval_array(self, node: ast.ArrayLit, scope: Scope) -> Any:
        return [await self.eval(item, scope) for item in node.items]

    async def eval_subexpr(self, node: ast.SubExpr, scope: Scope) -> Any:
        out = await self.block(node.body, scope)
        return out[0] if len(out) == 1 and is_relation(out[0]) else single_or_list(out)

    async def eval_array_subexpr(self, node: ast.ArraySubExpr, scope: Scope) -> Any:
        out = await self.block(node.body, scope)
        if len(out) == 1 and is_relation(out[0]):
            return out[0].records()
        return out

    async def eval_paren(self, node: ast.Paren, scope: Scope) -> Any:
        inner = node.pipeline
        if isinstance(inner, ast.Assign):
            return await self.assign(inner, scope)
        return await self.value_of(inner, scope)

    async def eval_hash(self, node: ast.HashLit, scope: Scope) -> Any:
        out: dict[str, Any] = Hashtable()
        for key_node, value_node in node.pairs:
            key = await self.eval(key_node, scope)
            key = key if isinstance(key, (int, float, Decimal)) else to_string(key)  # @{1 = 'a'}
            out[_dict_key(out, key)] = await self.value_of(value_node, scope)
        return out

    async def eval_block(self, node: ast.ScriptBlockLit, scope: Scope) -> Any:
        return ScriptBlock(node, scope, self)

    async def eval_cast(self, node: ast.Cast, scope: Scope) -> Any:
        if dotnet.short_type(node.type) == "ref":
            return self.reference(node.operand, scope)
        value = await self.eval(node.operand, scope)
        if is_relation(value) and node.type in ("array", "object[]"):
            value = value.records()
        own = self.user_type(node.type)
        if isinstance(own, ClassType) and isinstance(value, dict) and not own.is_instance(value):
            made = await self.construct(own, [])  # [T]@{ X = 1 }: the properties set after
            for key, item in value.items():
                made[key] = item
            return made
        if isinstance(value, (list, tuple)) and dotnet.short_type(node.type) == "string":
            return self.joined(value, scope)  # [string]$array joins with $OFS, as "$array"
        return self.cast_to(value, node.type)

    def reference(self, operand: ast.Node, scope: Scope) -> Ref:
        """``[ref]$x``: the variable itself (a method's or function's ``.Value = v`` sets it)."""
        if not isinstance(operand, ast.VarRef):
            raise self.located(RuntimeFayError("[ref] needs a variable, as in [ref]$x"), operand)
        name = operand.name
        return Ref(
            lambda: scope.lookup(name)[1], lambda value: self.set_variable(name, value, scope)
        )


def _no_func(ctx: Invocation, **kwargs: Any) -> None:
    """Placeholder callable for user functions' declarations (they run through the evaluator)."""
    return None


class Collecting:
    """While a block runs in the console's direct line, its output list is a flush sink."""

    __slots__ = ("out", "sinks")

    def __init__(self, sinks: list[list[Any]], out: list[Any]) -> None:
        self.sinks, self.out = sinks, out

    def __enter__(self) -> None:
        self.sinks.append(self.out)

    def __exit__(self, *exc: object) -> None:
        sinks = self.sinks
        for i in range(len(sinks) - 1, -1, -1):
            if sinks[i] is self.out:
                del sinks[i]
                return


class FlushTimer:
    """While a top-level statement runs: its output so far is shown every STREAM_AFTER
    seconds, so a long statement's output appears as it comes, as PowerShell's Out-Default
    shows it (a short statement's all at once, when it ends). One per statement, stopped when
    it ends."""

    def __init__(self, flush: Callable[[], None]) -> None:
        self.flush = flush
        self.handle = asyncio.get_running_loop().call_later(STREAM_AFTER, self.fire)

    def fire(self) -> None:
        self.flush()
        self.handle = asyncio.get_running_loop().call_later(STREAM_AFTER, self.fire)

    def stop(self) -> None:
        self.handle.cancel()


class FlushingHost:
    """The host while a top-level statement runs: host text first shows pending output."""

    def __init__(self, host: Host, interp: Interpreter) -> None:
        self.host = host
        self.interp = interp

    def write_host(self, text: str, color: str | None = None, newline: bool = True) -> None:
        self.interp.flush()
        self.host.write_host(text, color, newline)

    def verbose(self, message: str) -> None:
        self.interp.flush()
        self.host.verbose(message)

    def debug(self, message: str) -> None:
        self.interp.flush()
        self.host.debug(message)

    def warning(self, message: str) -> None:
        self.interp.flush()
        self.host.warning(message)

    def error(self, message: str) -> None:
        self.interp.flush()
        self.host.error(message)

    def progress(
        self, description: str, total: float | None = None, unit: str = ""
    ) -> ProgressTask:
        return self.host.progress(description, total, unit)

    def confirm(self, question: str) -> bool:
        self.interp.flush()
        return self.host.confirm(question)

    def read_line(self, prompt: str, secret: bool = False) -> str | None:
        self.interp.flush()
        return self.host.read_line(prompt, secret)

    def transcribe(self, transcript: Transcript | None) -> Transcript | None:
        """Start or stop a transcript after what was output before it is shown (and so is
        in the transcript, or not)."""
        self.interp.flush()
        getattr(self.host, "end_output", lambda: None)()
        return self.host.transcribe(transcript)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.host, name)


def preferences(bound: Bound) -> dict[str, Any]:
    """The preference variables a function's common parameters set in its scope."""
    out: dict[str, Any] = {}
    if bound.verbose:
        out["VerbosePreference"] = "Continue"
    if bound.debug:
        out["DebugPreference"] = "Continue"
    if bound.error_action is not None:
        out["ErrorActionPreference"] = bound.error_action
    for name, action in (
        ("WarningPreference", bound.warning_action),
        ("InformationPreference", bound.information_action),
        ("ProgressPreference", bound.progress_action),
    ):
        if action is not None:
            out[name] = action
    return {name: ACTION_PREFERENCE.convert(action) for name, action in out.items()}


@dataclass
class Kept:
    """A call's -OutVariable, -ErrorVariable, -WarningVariable and -InformationVariable: its
    output and what it wrote, stored in the caller's scope once the call is done (``+name``
    adds to what the variable held)."""

    scope: Scope
    names: dict[str, str]  # "out", "errors", "warnings", "information" -> variable
    collected: Collected = field(default_factory=Collected)

    @classmethod
    def of(cls, bound: Bound, scope: Scope) -> Kept | None:
        names = {
            kind: name
            for kind, name in (
                ("out", bound.out_variable),
                ("errors", bound.error_variable),
                ("warnings", bound.warning_variable),
                ("information", bound.information_variable),
            )
            if name is not None
        }
        return cls(scope, names) if names else None

    def store(self, output: Any) -> None:
        for kind, name in self.names.items():
            if kind == "out":
                self._set(name, output if is_relation(output) else unroll(output))
            else:
                self._set(name, getattr(self.collected, kind))

    def failed(self, error: Any) -> None:
        """The call ended with ``error``: kept with its other errors, no output kept."""
        self.collected.errors.append(error)
        self.store([])

    def _set(self, name: str, items: Any) -> None:
        if name.startswith("+"):
            name = name[1:]
            found, held = self.scope.lookup(name)
            items = (unroll(held) if found and held is not None else []) + unroll(items)
        self.scope.set_local(name, items)

    async def stream(
        self, items: AsyncIterator[Any], error_value: Callable[[RuntimeFayError], Any]
    ) -> AsyncIterator[Any]:
        out: list[Any] = []
        try:
            async for item in items:
                out.append(item)
                yield item
        except RuntimeFayError as exc:
            self.collected.errors.append(error_value(exc))
            raise
        finally:
            self.store(out)


@contextlib.contextmanager
def automatic(scope: Scope, name: str, value: Any) -> Iterator[None]:
    """``$name`` is ``value`` in ``scope`` while the block runs ($foreach, $switch), then what
    it was (a loop inside a loop has its own)."""
    held = scope.local(name)
    scope.set_local(name, value)
    try:
        yield
    finally:
        if held is None:
            scope.remove(name)
        else:
            scope.set_local(*held)


async def each_as(name: str, output: Any, scope: Scope) -> AsyncIterator[Any]:
    """-PipelineVariable: each item of ``output`` is also ``$name`` while the commands after
    it take it."""
    async for item in aiter_items(output):
        scope.set_local(name, item)
        yield item


def culture_args(args: list[Any]) -> list[Any]:
    """-f's and [string]::Format's arguments, dates made the shell's DateTime: they format in
    en-US, the culture -f uses ("{0}" -f $d is 3/10/2024 9:05:00 AM; "$d" stays invariant)."""
    return [DateTime.of(a) if isinstance(a, datetime.datetime) else a for a in args]


def writes_null(node: ast.Node) -> bool:
    """Whether an expression whose value is $null writes that $null (``@($null).Count`` is
    1, ``$null | % { 'ran' }`` runs once) rather than nothing: a method call that gives
    nothing is a void one (``$list.Add(1)``), and so is a ``[void]`` cast."""
    if isinstance(node, ast.Paren):
        inner = node.pipeline
        return not isinstance(inner, (ast.Pipeline, ast.Command)) and writes_null(inner)
    if isinstance(node, ast.Cast):
        return node.type.lower() not in ("void", "system.void")
    return not isinstance(node, (ast.MethodCall, ast.StaticMember, ast.Assign, ast.IncDec))


def invocation_info(name: str, kind: str, caller: str, path: str | None = None) -> dict[str, Any]:
    """``$MyInvocation`` of a function or script: what runs and the script that called it."""
    command = {"Name": name, "CommandType": kind, "Definition": path or name}
    if path is not None:
        command["Path"] = path
    return {
        "MyCommand": command,
        "InvocationName": name,
        "ScriptName": "" if caller.startswith("<") else caller,
        "PSScriptRoot": "" if caller.startswith("<") else os.path.dirname(caller),
        "PSCommandPath": "" if caller.startswith("<") else caller,
    }


def call_site(span: SourceSpan, name: str) -> dict[str, Any]:
    """``$MyInvocation``'s account of the call: its line and where on it the call starts, in
    PowerShell's words (PositionMessage), and the name it was called by (as typed)."""
    where = "line" if span.file.startswith("<") else span.file
    marker = " " * (span.col - 1) + "~" * max(len(name), 1)
    out: dict[str, Any] = {
        "Line": span.text,
        "ScriptLineNumber": span.line,
        "OffsetInLine": span.col,
        "PositionMessage": f"At {where}:{span.line} char:{span.col}\n+ {span.text}\n+ {marker}",
    }
    if name:
        out["InvocationName"] = name
    return out


def script_variables(path: str, caller: str) -> dict[str, Any]:
    """The automatic variables a script file runs with: its own folder and path, and
    ``$MyInvocation``."""
    return {
        "PSScriptRoot": os.path.dirname(path),
        "PSCommandPath": path,
        "MyInvocation": invocation_info(
            os.path.basename(path), "ExternalScript", caller, path=path
        ),
    }


#: The modes of an array's .Where() (about_Arrays).
WHERE_MODES = ("default", "first", "last", "skipuntil", "until", "split")


def where_selected(items: list[Any], hits: list[bool], mode: str, count: int) -> list[Any]:
    """The items ``.Where`` keeps in ``mode`` given each item's test; ``count`` (0: all, but
    one for First and Last) bounds how many (Split: in its first collection)."""
    found = [i for i, h in zip(items, hits, strict=True) if h]
    if mode == "first":
        return found[: count or 1]
    if mode == "last":
        return found[-(count or 1) :] if found else []
    limit = count or len(items)
    start = next((k for k, h in enumerate(hits) if h), len(items))
    if mode == "skipuntil":
        return items[start:][:limit]
    if mode == "until":
        return items[:start][:limit]
    if mode == "split":
        chosen = [k for k, h in enumerate(hits) if h][:limit]
        rest = set(range(len(items))) - set(chosen)
        return [[items[k] for k in chosen], [items[k] for k in sorted(rest)]]
    return found[:limit]


def _sync_output(on_output: OutputCallback) -> Callable[[list[Any]], None]:
    def show(items: list[Any]) -> None:
        res = on_output(items)
        if inspect.isawaitable(res):
            asyncio.ensure_future(res)

    return show


class CommandIntrinsics:
    """``$ExecutionContext.InvokeCommand``: ExpandString and InvokeScript (the evaluator
    runs them, in the calling scope)."""

    METHODS = ("expandstring", "invokescript")
    TYPE_NAME = "System.Management.Automation.CommandInvocationIntrinsics"


@dataclass(frozen=True)
class PathIntrinsics:
    """``$ExecutionContext.SessionState.Path``: the current location, and a path resolved
    against it whether or not it exists (GetUnresolvedProviderPathFromPSPath, the usual way
    scripts make an output file's full path)."""

    state: ShellState = field(repr=False)
    TYPE_NAME = "System.Management.Automation.PathIntrinsics"

    @property
    def CurrentLocation(self) -> PathInfo:  # noqa: N802 - .NET property name
        return PathInfo(self.state.location, ProviderPath=self.state.location)

    CurrentFileSystemLocation = CurrentLocation

    def GetUnresolvedProviderPathFromPSPath(self, path: Any) -> str:  # noqa: N802 - .NET name
        return str(self.state.resolve_path(to_string(path)))


class VariableIntrinsics:
    """``$ExecutionContext.SessionState.PSVariable``: Get, GetValue, Set and Remove of the
    variables the calling scope sees (the evaluator runs them there)."""

    #: Each method's counts of arguments.
    METHODS = {"get": (1,), "getvalue": (1, 2), "set": (2,), "remove": (1,)}
    TYPE_NAME = "System.Management.Automation.PSVariableIntrinsics"


@dataclass(frozen=True)
class SessionStateIntrinsics:
    """``$ExecutionContext.SessionState``: Path and PSVariable."""

    Path: PathIntrinsics
    PSVariable: VariableIntrinsics = field(default_factory=VariableIntrinsics)
    TYPE_NAME = "System.Management.Automation.SessionState"


@dataclass(frozen=True)
class EngineIntrinsics:
    """``$ExecutionContext``: what scripts reach through it (InvokeCommand, SessionState)."""

    SessionState: SessionStateIntrinsics
    InvokeCommand: CommandIntrinsics = field(default_factory=CommandIntrinsics)


def automatic_variables(state: ShellState) -> dict[str, Any]:
    """PowerShell's automatic variables a script may read before anything sets them."""
    from fayshell import __version__
    from fayshell.lang.generic import ArrayList

    return {
        "?": True,
        "Error": ArrayList(),  # System.Collections.ArrayList, as PowerShell's $Error
        "HOME": os.path.expanduser("~"),
        "PID": os.getpid(),
        "IsLinux": sys.platform.startswith("linux"),
        "IsMacOS": sys.platform == "darwin",
        "IsWindows": sys.platform == "win32",
        "IsCoreCLR": True,
        "PSVersionTable": Hashtable(
            PSVersion=SemanticVersion(7, 4, 0),
            PSEdition="Core",
            FayshellVersion=__version__,
            Platform="Unix" if os.name == "posix" else "Win32NT",
            OS=f"{os.uname().sysname} {os.uname().release}",
        ),
        "PSEdition": "Core",
        "Host": HostInfo(UI=HostUI(_console=lambda: state.host)),  # the host when it writes
        "PSHOME": os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # fayshell's own
        "PSStyle": PSStyle(),
        "OutputEncoding": nettext.Encoding("Unicode (UTF-8)", "utf-8", "utf-8"),
        "PSCulture": "en-US",  # the culture -f and the shell's dates format in
        "PSUICulture": "en-US",
        "ShellId": "Microsoft.PowerShell",
        "PSDefaultParameterValues": Hashtable(),
        "ExecutionContext": EngineIntrinsics(SessionStateIntrinsics(PathIntrinsics(state))),
        "NestedPromptLevel": 0,
    }


def variable_method(method: str, args: list[Any], scope: Scope) -> Any:
    """``$ExecutionContext.SessionState.PSVariable.<method>(args)`` in ``scope``: GetValue(name
    [, default]), Get(name) (a Get-Variable object, or $null), Set(name, value), Remove(name)."""
    from fayshell.commands.variables import VariableInfo

    low = method.lower()
    if len(args) not in VariableIntrinsics.METHODS[low]:
        raise no_method(VariableIntrinsics.TYPE_NAME, method, len(args), True)
    name = to_string(args[0])
    found, value = scope.lookup(name)
    if low == "getvalue":
        return value if found or len(args) < 2 else args[1]
    if low == "get":
        return VariableInfo(name, value, scope) if found else None
    if low == "set":
        scope.set(name, args[1])
    else:
        scope.remove(name)
    return None


#: The first line of a program's script that fayshell runs itself: ``#!/usr/bin/env fayshell``.
OWN_SHEBANG = re.compile(rb"#!.*\b(?:fayshell|pwsh)\b")


def script_text(path: str, data: bytes) -> str:
    """A script file's text. A program (a binary, or a script whose ``#!`` line names another
    interpreter) is an error saying where programs run (fayshell runs none here); so is text
    that is not UTF-8 (naming the byte offset)."""
    first = data.split(b"\n", 1)[0]
    foreign = first.startswith(b"#!") and not OWN_SHEBANG.match(first)
    if data.startswith(b"\x7fELF") or b"\0" in data[:4096] or foreign:
        raise RuntimeFayError(
            f"{path} is a program, and fayshell runs programs on nodes: "
            f"Invoke-Command -Node localhost -Command '{path} ...'"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RuntimeFayError(
            f"cannot read script {path}: not UTF-8 text (byte offset {exc.start})"
        ) from None


def command_line_args(words: list[Any]) -> list[Any]:
    """A script's command-line words as arguments: ``-Name`` starts a named one."""
    out: list[Any] = []
    for word in words:
        if isinstance(word, str) and re.fullmatch(r"-[A-Za-z_][A-Za-z0-9_]*(:.*)?", word):
            name, _, value = word[1:].partition(":")
            out.append(NamedArg(name, value if value else NO_VALUE))
        else:
            out.append(word)
    return out


ALL_SETS = "__AllParameterSets"
AMBIGUOUS_SET = (
    "Parameter set cannot be resolved using the specified named parameters. One or more "
    "parameters issued cannot be used together or an insufficient number of parameters were "
    "provided."
)


def parameter_set(params: list[ast.ParamDecl], given: set[str], default: str = "") -> str:
    """The parameter set a call resolves to (about_Parameter_Sets): the sets of every named
    parameter it gave, then the default set, then the one set whose mandatory parameters it
    gave; ValueError (PowerShell's words) when none or several remain."""
    declared = list(
        dict.fromkeys([s for d in params for s, _ in d.sets] + [default] * bool(default))
    )
    if not declared:
        return ALL_SETS
    left = declared
    for decl in params:
        if decl.name.lower() in given and decl.sets:
            left = [s for s in left if any(s == own for own, _ in decl.sets)]
    if len(left) == 1:
        return left[0]
    if default in left:
        return default
    complete = [
        s for s in left if all(d.name.lower() in given for d in params if mandatory_in(d, s))
    ]
    if len(complete) == 1:
        return complete[0]
    raise ValueError(AMBIGUOUS_SET)


def mandatory_in(decl: ast.ParamDecl, chosen: str) -> bool:
    """Is ``decl`` mandatory in the ``chosen`` parameter set?"""
    return decl.mandatory or any(s == chosen and must for s, must in decl.sets)


def callable_spec(
    name: str,
    params: list[ast.ParamDecl],
    should_process: bool = False,
    advanced: bool = False,
    confirm_impact: ConfirmImpact = "Medium",
    positional: bool = True,
) -> Cmdlet:
    """A binder declaration for a function's or script block's ``param()``: the arguments no
    parameter takes are its ``ValueFromRemainingArguments`` parameter's, else ``$args``
    (an advanced function has no ``$args``: an argument no parameter takes is an error)."""
    # once one parameter has a position (or PositionalBinding is off), only those are positional
    explicit = not positional or any(p.position is not None for p in params)
    declared = tuple(
        Param(
            p.name,
            _param_type(p.type),
            position=None if p.remaining else (p.position if explicit else i),
            default=p.default,
            pipeline="value" if p.from_pipeline else "",
            aliases=tuple(p.aliases),
            rest=p.remaining,
        )
        for i, p in enumerate(params)
        if _param_type(p.type) is not bool
    ) + tuple(Param(p.name, bool) for p in params if _param_type(p.type) is bool)
    taken = any(p.rest for p in declared)
    rest = () if taken or advanced else (Param("args", "any", rest=True),)
    return Cmdlet(
        name=name,
        func=_no_func,
        synopsis=f"function {name}",
        params=declared + rest,
        family="function",
        should_process=should_process,
        confirm_impact=confirm_impact,
    )


#: What a typed parameter holds when it is not given and has no default (.NET's default).
TYPE_DEFAULTS: dict[str, Any] = {
    **dict.fromkeys(("switch", "bool", "boolean"), False),
    **{name: integers.make(kind, 0) for name, kind in integers.NAMES.items()},
    "double": 0.0,
    **dict.fromkeys(("float", "single"), Single(0.0)),
    "decimal": Decimal(0),
    "string": "",
}


def _param_type(declared: str | None) -> Any:
    return {
        "int": int,
        "long": int,
        "double": float,
        "float": float,
        "string": str,
        "switch": bool,
        "bool": bool,
        "scriptblock": "scriptblock",
        "hashtable": "hashtable",
        "string[]": "strings",
        "int[]": "ints",
    }.get((declared or "").lower(), "any")


def _dict_key(d: dict[Any, Any], key: Any) -> Any:
    """The existing key that is ``key`` (a string without regard to case, as a hashtable's
    default comparer; any other key by its value and kind: 1 and '1' are two keys, as in
    PowerShell), else ``key`` itself. An object's property names are always text."""
    if not isinstance(d, Hashtable) or isinstance(key, str):
        text = to_string(key)
        if text in d:  # the same string: no need to look at every key
            return text
        low = text.lower()
        return next((k for k in d if isinstance(k, str) and k.lower() == low), text)
    return next((k for k in d if same_key(k, key)), key)


def same_key(a: Any, b: Any) -> bool:
    """Are two hashtable keys one key? Strings without regard to case; others by value, a
    string never equal to a number."""
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a.lower() == b.lower()
    return type(a) is type(b) and a == b


def member(obj: Any, name: str) -> Any:
    """``obj.name`` with PowerShell's extras: Count/Length, and member enumeration on arrays.

    A relation is rows: ``.Count`` counts them in DuckDB, unless the relation holds one row
    with a column of that name (``(… | Measure-Object).Count`` is that row's Count). Its columns
    are known: a name that is none of them is an error naming them, not $null (about_Differences)."""
    low = name.lower()
    if is_relation(obj):
        columns = obj.columns()
        has_column = any(c.lower() == low for c in columns)
        if low in ("count", "length"):
            rows = obj.wrap("count(*)").scalar()
            if not (has_column and rows == 1):
                return rows
        elif not has_column and low not in ("psobject", "pstypenames"):
            raise UnknownProperty(name, columns)
        obj = obj.records()
        if len(obj) == 1:
            obj = obj[0]
    if (
        low in ("psobject", "pstypenames")
        and obj is not None
        and not (isinstance(obj, dict) and low in map(str.lower, obj))
    ):  # about_Intrinsic_Members
        view = dotnet.PSObjectView(obj)
        return view if low == "psobject" else view.TypeNames
    if low == "psbase" and isinstance(obj, (list, tuple)):  # the array, not its items' psbase
        return obj
    if isinstance(obj, (list, tuple)):
        if low in ("count", "length", "longlength"):
            return len(obj)
        if low == "rank":  # arrays here have one dimension
            return 1
        return single_or_list([v for v in (member(item, name) for item in obj) if v is not None])
    if obj is None:
        return 0 if low in ("count", "length") else None
    if isinstance(obj, bool) and low == "ispresent":  # a [switch] parameter
        return obj
    if isinstance(obj, str):
        if low == "length":
            return len(obj)
        if low == "count":
            return 1
    if isinstance(obj, dict):
        key = next((k for k in obj if str(k).lower() == low), None)
        if key is not None:
            return obj[key]
        if low == "count":  # a hashtable's entries; any other object is one object
            return len(obj) if isinstance(obj, Hashtable) else 1
        if low == "keys":
            return list(obj)
        if low == "values":
            return list(obj.values())
        return 1 if low == "length" else None
    if low in ("count", "length") and not has_property(obj, name):
        return 1  # about_Intrinsic_Members: one object counts 1
    try:
        return get_property(obj, name)
    except NetException as exc:  # a .NET property getter that throws ([uri]'rel').Host
        raise OperatorError(f'Exception getting "{name}": "{exc}"') from None


def unset(name: str, scope: Scope) -> None:
    """The value of a variable never set: $null, or Set-StrictMode's error."""
    if scope.strict_version():
        raise VariableNotSet(name)


def has_member(obj: Any, name: str) -> bool:
    """Does ``obj`` have a property ``name`` (Set-StrictMode 2 asks before it gives $null)?
    A hashtable has every key; an array what one of its items has (none: it is empty)."""
    if name.lower() in ("count", "length") or isinstance(obj, Hashtable):
        return True
    if is_relation(obj):
        return any(c.lower() == name.lower() for c in obj.columns())
    if isinstance(obj, (list, tuple)):
        return not obj or any(has_member(item, name) for item in obj)
    return obj is not None and not isinstance(obj, str) and has_property(obj, name)


def method_style(node: ast.Command) -> bool:
    """``add(3, 4)``: parenthesised arguments with commas right after the command's name."""
    if not node.args or not isinstance(node.args[0], ast.Paren):
        return False
    first = node.args[0]
    inner = first.pipeline
    if isinstance(inner, ast.Pipeline) and len(inner.elements) == 1:
        inner = inner.elements[0]
    adjacent = first.line == node.line and first.col == node.col + len(node.name)
    return adjacent and isinstance(inner, ast.ArrayLit)


def member_or_call(item: Any, name: str, args: list[Any]) -> list[Any]:
    """``ForEach-Object Name`` and ``.ForEach('Name')``: the property's value, or what
    calling the method gives (as ``$x.Name(args)``: 'a,b' | % Split ',', a date's AddDays)."""
    value = member(item, name)
    # not a property (nothing, or a Python method such as str.split): a method call
    if not isinstance(item, Mapping) and (value is None or inspect.isroutine(value)):
        try:
            return unroll(value_method(item, name, args))
        except OperatorError:
            pass
    return unroll(value)


def value_method(obj: Any, name: str, args: list[Any]) -> Any:
    """``obj.Name(args)`` on a value (collections' own methods and script blocks' Invoke are
    the evaluator's): dates and durations, strings, the .NET-named methods of fayshell's value
    types ([version], a regex match ...), then ToString, Equals and CompareTo on any value."""
    low = name.lower()
    result = call_method(obj, name, args)  # dates and durations (lang/dates.py)
    if result is not NOT_HANDLED:
        return result
    if low == "gettype" and not args and not hasattr(obj, "GetType"):
        return TypeInfo(type_name_of(obj), dotnet.full_type_name_of(obj))
    if isinstance(obj, str) and not isinstance(obj, TypeName):  # a type has its own methods
        return string_method(obj, name, args)
    own = not isinstance(obj, NUMBERS) or isinstance(obj, EnumValue)  # an enum's HasFlag ...
    method = net_method(obj, name) if own else None
    if method is not None:
        try:
            return method(*args)
        except (TypeError, ValueError) as exc:
            raise method_failed(name, len(args), exc) from None
    if low == "tostring":
        return number_to_string(obj, args)
    if low in ("equals", "compareto") and len(args) == 1:
        eq = compare("eq", obj, args[0])
        return eq if low == "equals" else (0 if eq else (-1 if compare("lt", obj, args[0]) else 1))
    raise no_method(dotnet.full_type_name_of(obj), name, len(args), False)


def set_property(obj: Any, name: str, value: Any) -> None:
    """``$obj.Name = value`` on an object with such a settable property (``$Host.UI.RawUI.
    WindowTitle``); PowerShell's errors for a missing or read-only one."""
    hook = getattr(obj, "ps_set", None)  # a record whose property does something when set
    if hook is not None and hasattr(type(obj), "ps_get"):  # its content's names (XML's)
        try:
            if hook(name, value):
                return
        except NetException as exc:
            raise OperatorError(f'Exception setting "{name}": "{exc}"') from None
    real = attribute_named(obj, name)
    if obj is None or real is None or callable(getattr(obj, real)):
        raise no_property_to_set(name)
    try:
        if hook is not None and hook(real, value):
            return
        setattr(obj, real, value)
    except AttributeError:  # a frozen record, a property without a setter
        raise OperatorError(f"'{real}' is a ReadOnly property.") from None
    except NetException as exc:  # the setter refused the value, in .NET's words
        raise OperatorError(f'Exception setting "{real}": "{exc}"') from None


def in_bounds(items: list[Any] | tuple[Any, ...] | str, index: Any) -> bool:
    """Is ``items[index]`` an item (negative indexes count from the end)?"""
    return -len(items) <= int(to_number(index)) < len(items)


def net_method(obj: Any, name: str) -> Callable[..., Any] | None:
    """``obj``'s .NET-named method ``name`` (a capitalised Python method), in any case."""
    method = getattr(obj, name, None)
    if callable(method) and name[:1].isupper():
        return method
    attr = attribute_named(obj, name)  # capitalised names sort first
    found = getattr(obj, attr) if attr is not None and attr[:1].isupper() else None
    return found if callable(found) else None


def leftmost(node: ast.Node) -> ast.Node:
    """The node where an expression's text starts (a binary operator's node is at the
    operator, a member's at the dot)."""
    while True:
        inner = (
            getattr(node, "left", None)
            or getattr(node, "obj", None)
            or getattr(node, "target", None)
            or (node.elements[0] if isinstance(node, ast.Pipeline) and node.elements else None)
        )
        if not isinstance(inner, ast.Node) or (inner.line, inner.col) > (node.line, node.col):
            return node
        node = inner


def index_value(obj: Any, key: Any) -> Any:
    if isinstance(obj, (list, tuple, str)):
        try:
            item = obj[int(to_number(key))]
        except IndexError:
            return None
        return Char(item) if isinstance(obj, str) else item
    if isinstance(obj, OrderedDictionary) and isinstance(key, int) and not isinstance(key, bool):
        values = list(obj.values())  # [ordered]: an integer is a position, as in .NET
        return values[key] if -len(values) <= key < len(values) else None
    if isinstance(obj, Hashtable):  # by the key's type too: $h['1'] is not $h[1]
        return obj.get(_dict_key(obj, key))
    if isinstance(obj, Mapping):
        return get_property(obj, to_string(key))
    if obj is None:
        return None
    if int(to_number(key)) in (0, -1):
        return obj
    return None


def binary_op(op: str, left: Any, right: Any) -> Any:
    """All binary operators except the short-circuit ``-and``/``-or``/``??``."""
    if op in "+-*/%":
        return arithmetic(op, left, right)
    if op == "xor":
        return truthy(left) != truthy(right)
    if op in BITWISE:
        result = integers.bitwise(op, bit_operand(left), bit_operand(right))
        if isinstance(left, EnumValue) and op in ("band", "bor", "bxor"):
            return EnumValue(left.enum_type, result)  # [Perm]::Read -bor [Perm]::Write
        return result
    if op == "..":
        return range_values(left, right)
    if op == "f":
        args = right if isinstance(right, list) else [right]
        try:
            return dotnet.composite_format(to_string(left), culture_args(args), to_string)
        except DotNetError as exc:  # PowerShell's words around .NET's
            raise OperatorError(f"Error formatting a string: {exc}.", "FormatError") from None
    if op == "join":
        return to_string(right).join(to_string(v) for v in unroll(left))
    if op in ("split", "isplit", "csplit"):
        return split_op(left, right, op == "csplit")
    if op in ("replace", "ireplace", "creplace"):
        return replace_op(left, right, op == "creplace")
    if op in ("is", "isnot"):
        own = isinstance(right, (EnumType, ClassType))
        hit = right.is_instance(left) if own else is_type(left, str(right))
        return hit if op == "is" else not hit
    if op == "as":
        try:
            if isinstance(right, EnumType):
                return right.convert(left)
            if isinstance(right, ClassType):
                return left if right.is_instance(left) else None
            return convert(left, to_string(right))
        except (OperatorError, DotNetError, ValueError):
            return None
    return compare(op, left, right)


#: The most elements a range may have (PowerShell refuses huge ranges too).
MAX_RANGE = 50_000_000

#: The bitwise operators (lang/integers types their results).
BITWISE = frozenset(("band", "bor", "bxor", "shl", "shr"))


def bit_operand(value: Any) -> int:
    """An operand of a bitwise operator as an integer: a double or decimal rounds (to even)
    to an Int64, as PowerShell converts it."""
    n = to_number(value)
    if isinstance(n, (float, Decimal)):
        return integers.make(integers.INT64, int(convert(n, "long")))
    return int(n) if isinstance(n, bool) else n


def range_values(left: Any, right: Any) -> list[Any]:
    """``1..5``, ``5..1`` and character ranges ``'a'..'e'``."""
    if (
        isinstance(left, str)
        and isinstance(right, str)
        and len(left) == 1 == len(right)
        and not (left.isdigit() and right.isdigit())
    ):
        a, b = ord(left), ord(right)
        step = 1 if a <= b else -1
        return [chr(c) for c in range(a, b + step, step)]
    a, b = int(to_number(left)), int(to_number(right))
    if abs(b - a) >= MAX_RANGE:
        raise OperatorError(f"the range {a}..{b} has more than {MAX_RANGE:,} elements")
    return list(range(a, b + 1)) if a <= b else list(range(a, b - 1, -1))


def split_op(left: Any, right: Any, case: bool) -> list[str]:
    """``-split pattern[, max[, options]]`` on each string of the left side."""
    parts = right if isinstance(right, list) else [right]
    pattern = to_string(parts[0])
    limit = min(int(to_number(parts[1])), MAX_RANGE) if len(parts) > 1 else 0
    options = to_string(parts[2]).lower() if len(parts) > 2 else ""
    if "simplematch" in options:
        pattern = re.escape(pattern)
    flags = (re.MULTILINE if "multiline" in options else 0) | (
        re.DOTALL if "singleline" in options else 0
    )
    rx = dotnet.regex(pattern, case and "ignorecase" not in options, flags)
    out: list[str] = []
    for item in unroll(left):
        out.extend(rx.split(to_string(item), maxsplit=max(limit - 1, 0)))
    return [p if p is not None else "" for p in out]


def replace_op(left: Any, right: Any, case: bool) -> Any:
    """``-replace pattern, replacement`` with .NET ``$1``/``${name}`` substitutions."""
    parts = list(right) if isinstance(right, list) else [right]
    if not parts or len(parts) > 2:
        raise OperatorError("-replace takes a pattern and an optional replacement")
    pat, rep = parts[0], parts[1] if len(parts) > 1 else ""
    rx = dotnet.regex(to_string(pat), case)
    if isinstance(rep, ScriptBlock):
        raise OperatorError("-replace with a script block is not supported")
    func = dotnet.replacement(to_string(rep))
    if isinstance(left, (list, tuple)):
        return [rx.sub(func, to_string(v)) for v in left]
    return rx.sub(func, to_string(left))


TYPE_CHECKS: dict[str, tuple[type, ...]] = {
    "double": (float,),  # not a Single (is_type)
    "float": (Single,),
    "single": (Single,),
    "decimal": (Decimal,),
    **dict.fromkeys(netnumerics.TYPES, (netnumerics.BigInteger,)),
    "string": (str,),
    "bool": (bool,),
    "boolean": (bool,),
    "array": (list, tuple),
    "object[]": (list, tuple),
    "hashtable": (dict,),
    "collections.hashtable": (dict,),
    "collections.arraylist": (ArrayList,),
    "text.stringbuilder": (nettext.StringBuilder,),
    "scriptblock": (ScriptBlock,),
    "pscustomobject": (dict,),
    "valuetype": (int, float, Decimal, bool),
    "char": (str,),
    "datetime": (datetime.datetime,),
    "datetimeoffset": (datetime.datetime,),
    "guid": (Guid,),
    "timespan": (Duration,),
    "uri": (netaddr.Uri,),
    **dict.fromkeys(("ipaddress", "net.ipaddress"), (netaddr.IPAddress,)),
    **dict.fromkeys(("xml", "xml.xmldocument"), (xmldoc.XmlDocument,)),
    "xml.xmlelement": (xmldoc.XmlElement,),
    "xml.xmlnode": (xmldoc.XmlDocument, xmldoc.XmlElement, xmldoc.XmlAttribute),
    "version": (Version,),
    "semver": (SemanticVersion,),
    "management.automation.semanticversion": (SemanticVersion,),
    "exception": (ExceptionValue,),
    "management.automation.errorrecord": (ErrorRecordValue,),
    "errorrecord": (ErrorRecordValue,),
    # Get-Item's and Get-ChildItem's records answer these themselves (FileItem.ps_is)
    **dict.fromkeys(
        ("io.fileinfo", "io.directoryinfo", "io.filesysteminfo"),
        (),
    ),
}


def is_interface_name(name: str) -> bool:
    """A .NET interface's name, by .NET's convention: ``IComparable``, ``System.IDisposable``,
    ``IEquatable[K]``."""
    return re.fullmatch(r"I[A-Z]\w*(\[.*\])?", name.rsplit(".", 1)[-1]) is not None


def is_type(value: Any, name: str) -> bool:
    """``$x -is [int]``; bools are not ints here, as in PowerShell."""
    value = collected(value, 2)
    low = dotnet.short_type(name)
    if low in ("object", "psobject"):
        return value is not None
    if low == "double" and isinstance(value, Single):
        return False
    if low in integers.NAMES:  # a size (1kb) is the number it stands for
        number = int(value) if isinstance(value, Size) else value
        return integers.is_kind(number, integers.NAMES[low])
    if isinstance(value, ClassInstance) and low not in TYPE_CHECKS:  # [IComparable] ...
        return bool(value.ps_is(low))
    types = TYPE_CHECKS.get(low)
    element = element_name(low[:-2]) if types is None and low.endswith("[]") else None
    if element is not None:
        return isinstance(value, list) and getattr(value, "element", None) == element
    if types is None:
        raise OperatorError(f"unknown type [{name}]")
    answer = getattr(value, "ps_is", lambda _: None)(low)
    if answer is not None:
        return bool(answer)
    if isinstance(value, bool) and bool not in types:
        return False
    if low == "char":
        return isinstance(value, str) and len(value) == 1
    return isinstance(value, types)


def default_arguments(spec: Cmdlet, table: Mapping[Any, Any], bound: Bound) -> list[NamedArg]:
    """The ``$PSDefaultParameterValues`` entries that give ``spec`` a parameter ``bound``
    does not have, as named arguments (the first entry for a parameter wins)."""
    if any(str(k).lower() == "disabled" and truthy(v) for k, v in table.items()):
        return []
    out: dict[str, NamedArg] = {}
    for key, value in table.items():
        command, sep, name = str(key).partition(":")
        if not sep or not wildcard_match(spec.name, command.strip()):
            continue
        try:
            param = resolve_param(spec, name.strip())
        except ParameterError:
            continue  # an entry for a parameter this command does not have
        common = getattr(bound, param.pyname, None)  # -ErrorAction, -Verbose ...
        given = param.pyname in bound.values or common not in (None, False)
        if not given and param.name not in out:
            out[param.name] = NamedArg(param.name, value)
    return list(out.values())


def new_array(type_name: str, size: Any) -> list[Any]:
    """``[int[]]::new(3)`` and ``New-Object int[] 3``: ``size`` elements of the type's
    default (0 for numbers, $null for objects and strings)."""
    count = int(to_number(size))
    if count < 0 or count > MAX_RANGE:
        raise OperatorError(f"an array of {count} elements cannot be made")
    element = dotnet.short_type(type_name)[:-2]
    if element in ("object", "psobject", "string"):
        return [None] * count
    return convert([None] * count, type_name)


def static_member(type_name: str, name: str, args: list[Any] | None) -> Any:
    """``[math]::Round(2.5)``, ``[int]::MaxValue``, ``[string]::Join(',', $a)`` ..."""
    try:  # [datetime]::Now, [timespan]::FromMinutes(5), [TimeZoneInfo]::Local
        dated = date_static(type_name, name, args)
    except NetException as exc:
        raise method_failed(name, len(args or []), exc) from None
    if dated is not NOT_HANDLED:
        return dated
    t, low = dotnet.short_type(type_name), name.lower()
    if t in netnumerics.TYPES:
        try:
            made = netnumerics.static(name, args)
        except NetException as exc:
            raise method_failed(name, len(args or []), exc) from None
        if made is not NotImplemented:
            return made
    if t in nettext.TYPES:
        made = nettext.static(t, name, args)
        if made is not NotImplemented:
            return made
    if t in netaddr.TYPES:
        try:
            made = netaddr.static(t, name, args)
        except TypeError:
            raise no_method(type_name, name, len(args or []), True) from None
        except NetException as exc:
            raise method_failed(name, len(args or []), exc) from None
        if made is not NotImplemented:
            return made
    if low == "new" and t.endswith("[]") and args is not None and len(args) == 1:
        return new_array(t, args[0])  # [int[]]::new(3): three zeros
    if low == "new" and args is not None and t in ("array", "object[]"):
        return list(unroll(args[0])) if args and isinstance(args[0], list) else []
    if (
        low == "new"
        and args is not None
        and (
            t in ("hashtable", "collections.hashtable", "collections.specialized.ordereddictionary")
            or t.startswith("collections.generic.dictionary")
        )
    ):
        return Hashtable()
    if low == "new" and args is not None and t.startswith(SORTED_TYPES):
        return SortedDictionary()
    if low == "new" and args is not None:  # HashSet[T], Queue[T], Stack[T]
        made = new_collection(type_name, args[0] if args else None)
        if made is not None:
            return made
    if low == "new" and args is not None and ("exception" in t or t.endswith("errorrecord")):
        message = to_string(args[0]) if args else f"Exception of type '{type_name}' was thrown."
        made = ExceptionValue(message, _full_type_name(type_name))
        inner = args[-1] if len(args) > 1 else None  # ::new(message, innerException)
        made.InnerException = inner if isinstance(inner, ExceptionValue) else None
        return made
    if t == "math" and low in dotnet.MATH:
        fn = dotnet.MATH[low]
        if args is None:
            return fn
        modes = dotnet.ROUNDING if low == "round" else {}  # Round(x, 'AwayFromZero')
        given = [a if to_string(a).lower() in modes else to_number(a) for a in args]
        try:
            return fn(*given)
        except (TypeError, ValueError, OverflowError) as exc:
            raise method_failed(name, len(args), exc) from None
    if t == "io.path" and low in dotnet.PATH_METHODS and args is not None:
        fn = dotnet.PATH_METHODS[low]
        if args and args[0] is None:
            return None  # .NET: a $null path gives $null
        try:
            return fn(*[None if a is None else to_string(a) for a in args])
        except TypeError:
            raise no_method(type_name, name, len(args), True) from None
    if args is None and low in (limits := dotnet.LIMITS.get(t) or int_limits(t)):
        return limits[low]
    if t == "guid" and args is None and low == "empty":
        return Guid("00000000-0000-0000-0000-000000000000")
    if t in ("globalization.cultureinfo", "cultureinfo"):
        if args is None and low in dotnet.CULTURES:
            return dotnet.CULTURES[low]
        if low in ("getcultureinfo", "new") and args is not None and len(args) == 1:
            return dotnet.culture_named(args[0])
    if t == "environment" and args is None and low in dotnet.ENVIRONMENT:
        return dotnet.ENVIRONMENT[low]()
    if args is None and (t.endswith("options") or t in dotnet.ENUMS):
        return name  # an enum value such as [StringSplitOptions]::RemoveEmptyEntries
    if args is not None:
        try:
            handled, value = _static_call(t, name, args)
        except (NetException, DotNetError) as exc:  # what the .NET method throws
            raise method_failed(name, len(args), exc) from None
        if handled:
            return value
    raise OperatorError(
        f"[{type_name}] has no static member {name}" + ("()" if args is not None else "")
    )


def _full_type_name(type_name: str) -> str:
    if "." in type_name:
        return (
            type_name if not type_name.lower().startswith("system.") else "System." + type_name[7:]
        )
    return "System." + type_name


#: The types whose ``::TryParse(text, [ref]$x)`` fayshell answers, and the value $x gets when
#: the text does not parse (.NET's default of the type).
TRY_PARSE = {
    **{name: integers.make(kind, 0) for name, kind in integers.NAMES.items()},
    "double": 0.0,
    **dict.fromkeys(("single", "float"), Single(0.0)),
    "decimal": Decimal(0),
    "bool": False,
    "boolean": False,
    "datetime": None,
    "version": None,
}


def _try_parse(t: str, args: list[Any]) -> bool:
    """``[int]::TryParse($s, [ref]$n)``: True and $n set when ``$s`` converts, else False and
    $n the type's default. Booleans parse only 'True'/'False', as .NET's do."""
    if len(args) != 2 or not isinstance(args[1], Ref):
        raise OperatorError(f"[{t}]::TryParse needs (text, [ref]$variable)")
    text = to_string(args[0]).strip()
    try:
        if t in ("bool", "boolean"):
            if text.lower() not in ("true", "false"):
                raise CastError(text)
            value: Any = text.lower() == "true"
        else:
            value = convert(text, t)
    except (OperatorError, ValueError):
        args[1].Value = TRY_PARSE[t]
        return False
    args[1].Value = value
    return True


#: [double]::IsNaN(x) and its kin.
FLOAT_TESTS: dict[str, Callable[[float], bool]] = {
    "isnan": math.isnan,
    "isinfinity": math.isinf,
    "ispositiveinfinity": lambda x: x == math.inf,
    "isnegativeinfinity": lambda x: x == -math.inf,
    "isfinite": math.isfinite,
}


def _float_test(test: str, args: list[Any]) -> bool:
    return FLOAT_TESTS[test](float(to_number(args[0])))


def _static_call(t: str, name: str, args: list[Any]) -> tuple[bool, Any]:
    low = name.lower()
    if low == "tryparse" and t in TRY_PARSE:
        return True, _try_parse(t, args)
    text = [to_string(a) for a in args]
    if t in ("regex", "text.regularexpressions.regex"):
        made = netregex.static(low, text)
        return made is not NotImplemented, made
    if t in netio.TYPES:
        made = netio.static(t, low, [_net_arg(a) for a in args])
        return made is not NotImplemented, made
    if t in netlinq.TYPES:
        made = netlinq.static(name, args)
        return made is not NotImplemented, made
    calls: dict[tuple[str, str], Callable[[], Any]] = {
        ("string", "isnullorempty"): lambda: args[0] is None or text[0] == "",
        ("string", "isnullorwhitespace"): lambda: args[0] is None or text[0].strip() == "",
        ("string", "join"): lambda: text[0].join(to_string(v) for a in args[1:] for v in unroll(a)),
        ("string", "concat"): lambda: "".join(text),
        ("string", "new"): lambda: text[0] * (int(to_number(args[1])) if len(args) > 1 else 1),
        ("guid", "newguid"): Guid.new,
        ("guid", "parse"): lambda: Guid.parse(text[0]),
        ("net.dns", "gethostname"): socket.gethostname,
        ("string", "format"): lambda: dotnet.composite_format(
            text[0],
            culture_args(args[1] if len(args) == 2 and isinstance(args[1], list) else args[1:]),
            to_string,
        ),
        ("string", "equals"): lambda: (
            (None if args[0] is None else text[0].casefold())
            == (None if args[1] is None else text[1].casefold())
            if len(args) > 2 and _ignores_case(args[2])
            else args[0] == args[1]
        ),
        ("string", "compare"): lambda: culture_compare(
            text[0], text[1], len(args) > 2 and _ignores_case(args[2])
        ),
        **{
            (name, "parse"): functools.partial(_parsed_integer, kind, text[0] if text else "")
            for name, kind in integers.NAMES.items()
        },
        ("double", "parse"): lambda: _parsed(float, text[0]),
        **dict.fromkeys(
            (("single", "parse"), ("float", "parse")), lambda: Single(_parsed(float, text[0]))
        ),
        ("decimal", "parse"): lambda: _parsed(lambda t: Decimal(t.replace(",", "")), text[0]),
        **{
            (kind, test): functools.partial(_float_test, test, args)
            for kind in ("double", "single", "float")
            for test in FLOAT_TESTS
        },
        ("convert", "toint32"): lambda: (
            _digits(text[0], int(to_number(args[1]))) if len(args) > 1 else convert(args[0], "int")
        ),
        ("convert", "tostring"): lambda: (
            _to_base(int(to_number(args[0])), int(to_number(args[1])))
            if len(args) > 1
            else to_string(args[0])
        ),
        ("convert", "toboolean"): lambda: convert(args[0], "bool"),
        ("convert", "tobase64string"): lambda: nettext.to_base64(args[0]),
        ("convert", "frombase64string"): lambda: nettext.from_base64(args[0]),
        ("convert", "todouble"): lambda: convert(args[0], "double"),
        ("environment", "getenvironmentvariable"): lambda: os.environ.get(text[0]),
        ("char", "isdigit"): lambda: text[0].isdigit(),
        ("char", "isletter"): lambda: text[0].isalpha(),
        ("char", "isupper"): lambda: text[0].isupper(),
        ("char", "islower"): lambda: text[0].islower(),
        ("char", "iswhitespace"): lambda: text[0].isspace(),
        ("char", "isletterordigit"): lambda: text[0].isalnum(),
        ("char", "ispunctuation"): lambda: unicodedata.category(text[0][:1] or " ")[0] == "P",
        ("char", "toupper"): lambda: Char(text[0].upper()),
        ("char", "tolower"): lambda: Char(text[0].lower()),
        ("version", "new"): lambda: Version.new(*args),
        ("version", "parse"): lambda: Version.parse(text[0]),
        **{
            (semver, name): fn
            for semver in ("semver", "management.automation.semanticversion")
            for name, fn in (
                ("new", lambda: SemanticVersion.new(*args)),
                ("parse", lambda: SemanticVersion.parse(text[0])),
            )
        },
        ("array", "reverse"): lambda: args[0].reverse() if isinstance(args[0], list) else None,
        ("array", "sort"): lambda: args[0].sort(key=SortKey) if isinstance(args[0], list) else None,
        ("array", "indexof"): lambda: next(
            (i for i, v in enumerate(unroll(args[0])) if compare("eq", v, args[1])), -1
        ),
    }
    fn = calls.get((t, low))
    if fn is None:
        return False, None
    try:
        return True, fn()
    except (ValueError, IndexError, TypeError, KeyError) as exc:
        raise method_failed(name, len(args), exc) from None


def _ignores_case(option: Any) -> bool:
    """[string]::Compare's third argument: $true, or a StringComparison that ignores case."""
    return option is True or (isinstance(option, str) and option.lower().endswith("ignorecase"))


def _net_arg(value: Any) -> Any:
    """An argument of a .NET method as text (a list as texts); $null and booleans as they are."""
    if value is None or isinstance(value, bool):
        return value
    return [to_string(v) for v in value] if isinstance(value, list) else to_string(value)


#: PowerShell's words (a script cannot prompt for the value).
MISSING_MANDATORY = (
    "Cannot process command because of one or more missing mandatory parameters: {}."
)


def _parsed(kind: Callable[[str], Any], text: str) -> Any:
    """``[int]::Parse(s)``, ``[double]::Parse(s)``: .NET's error for text that is no number."""
    try:
        return kind(text.strip())
    except ValueError:
        message = f"The input string '{text}' was not in a correct format."
        raise NetException(message, "System.FormatException") from None


#: What .NET's integer Parse takes: blanks around, a sign, decimal digits.
INTEGER_TEXT = re.compile(r"\s*[+-]?\d+\s*")


def _parsed_integer(kind: integers.IntKind, text: str) -> int:
    """``[long]::Parse(s)`` and its kin: .NET's errors for no number and for one out of range."""
    if not INTEGER_TEXT.fullmatch(text):
        message = f"The input string '{text}' was not in a correct format."
        raise NetException(message, "System.FormatException")
    n = int(text)
    if not kind.holds(n):
        message = f"Value was either too large or too small for {kind.called}."
        raise NetException(message, "System.OverflowException")
    return integers.make(kind, n)


def _digits(text: str, base: int) -> int:
    """``[Convert]::ToInt32(s, base)`` (base 2, 8, 10 or 16), .NET's error for other digits."""
    if base not in (2, 8, 10, 16):
        raise NetException("Invalid Base.", "System.ArgumentException")
    try:
        return int(text.strip(), base)
    except ValueError:
        raise NetException(
            "Could not find any recognizable digits.", "System.FormatException"
        ) from None


def _to_base(n: int, base: int) -> str:
    return {2: format(n, "b"), 8: format(n, "o"), 10: str(n), 16: format(n, "x")}[base]


def number_to_string(obj: Any, args: list[Any]) -> str:
    """``$x.ToString()`` and ``$n.ToString('N2')``."""
    if args:
        return dotnet.format_item(obj, to_string(args[0]), to_string)
    return to_string(obj)


def _dup(key: Any) -> None:
    raise OperatorError(f"item has already been added: key {key!r}")


def _index(items: list[Any], index: Any) -> int:
    """A collection's index, checked as .NET checks it (no counting from the end)."""
    at = int(to_number(index))
    if not 0 <= at < len(items):
        raise ValueError(
            "Index was out of range. Must be non-negative and less than the size of the "
            "collection. (Parameter 'index')"
        )
    return at


def _range(items: list[Any], args: list[Any]) -> slice:
    """``GetRange(index, count)`` / ``RemoveRange(index, count)``'s items, checked as .NET's."""
    start, count = int(to_number(args[0])), int(to_number(args[1]))
    if start < 0 or count < 0 or start + count > len(items):
        raise ValueError("Offset and length were out of bounds for the array")
    return slice(start, start + count)


def _try_get(table: dict[Any, Any], key: Any, out: Any) -> bool:
    """``$d.TryGetValue('k', [ref]$v)``: whether the key is there; its value into ``$v``."""
    found = key in table
    if isinstance(out, Ref):
        out.Value = table[key] if found else None
    return found


def _remove_first(items: list[Any], value: Any) -> None:
    for i, v in enumerate(items):
        if compare("eq", v, value):
            del items[i]
            return


def _sort_key(value: Any) -> tuple[int, Any]:
    return (0, value.casefold()) if isinstance(value, str) else (1, value)


def error_matches(exc: RuntimeFayError, types: list[str]) -> bool:
    """Does a ``catch [T1], [T2]`` (or ``trap [T]``) take this error? No types takes all. A
    type takes its derived types; a failed .NET method is also what it threw (PowerShell
    looks at the MethodInvocationException's inner exception)."""
    if not types:
        return True
    kinds = [exc.type_name if isinstance(exc, ThrownError) else dotnet_type_of(exc)]
    if not isinstance(exc, ThrownError):  # the engine's errors are RuntimeExceptions too
        kinds.append("System.Management.Automation.RuntimeException")
    if isinstance(exc.cause, MethodFailed):
        kinds.append(exc.cause.inner)
    if isinstance(exc.cause, CastError):  # text that is no number: .NET's FormatException
        kinds.append("System.FormatException")
    return any(dotnet.exception_is(kind, name) for kind in kinds for name in types)


#: The .NET exception a PowerShell user sees for fayshell's errors, most specific first.
DOTNET_EXCEPTIONS: tuple[tuple[type[BaseException], str], ...] = (
    (CommandNotFound, "System.Management.Automation.CommandNotFoundException"),
    (MethodFailed, "System.Management.Automation.MethodInvocationException"),
    (ParameterError, "System.Management.Automation.ParameterBindingException"),
    (DivideByZero, "System.DivideByZeroException"),
    (CastError, "System.Management.Automation.PSInvalidCastException"),
    (PropertyNotFound, "System.Management.Automation.PropertyNotFoundException"),
    (IndexOutOfRange, "System.IndexOutOfRangeException"),
)


#: $_.CategoryInfo.Category of the errors fayshell raises (by their .NET type).
ERROR_CATEGORIES = {
    "System.Management.Automation.CommandNotFoundException": "ObjectNotFound",
    "System.Management.Automation.ParameterBindingException": "InvalidArgument",
    "System.Management.Automation.PSInvalidCastException": "InvalidArgument",
}


def dotnet_type_of(exc: RuntimeFayError) -> str:
    """The .NET exception type name a PowerShell user would see for a fayshell error."""
    own = getattr(exc, "exception", "")  # a command's record names it (ItemNotFoundException)
    if own:
        return str(own)
    for cause in (exc.cause, exc):
        for cls, name in DOTNET_EXCEPTIONS:
            if cause is not None and isinstance(cause, cls):
                return name
    return "System.Management.Automation.RuntimeException"


def operator_error(exc: Exception) -> RuntimeFayError:
    """An operator's failure as a runtime error that remembers its cause (for typed catch)."""
    if isinstance(exc, OverflowError):
        err = RuntimeFayError(f"the number is too large: {exc}")
        err.cause = exc
        return err
    err = RuntimeFayError(str(exc))
    err.cause = exc
    return err


def read_lines(state: ShellState, path: str) -> list[str]:
    """The lines of a text file, relative to the shell's location (``switch -File``)."""
    full = os.path.join(getattr(state, "location", "") or os.getcwd(), os.path.expanduser(path))
    try:
        with open(full, encoding="utf-8") as f:
            return f.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise RuntimeFayError(
            f"switch -File: cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
        ) from None


def write_text(state: ShellState, path: str, items: list[Any], append: bool) -> None:
    """``> file`` / ``>> file``: the items rendered as the console would show them."""
    from fayshell.render import render_plain

    text = render_plain(items)
    full = os.path.join(getattr(state, "location", "") or os.getcwd(), os.path.expanduser(path))
    try:
        with open(full, "a" if append else "w", encoding="utf-8") as f:
            f.write(text + "\n" if text else "")
    except OSError as exc:
        raise RuntimeFayError(f"cannot write {path}: {exc.strerror or exc}") from None


SHORT_CIRCUIT = frozenset({"and", "or", "??"})
RECURSION_LIMIT = 20_000
REGEX_OPS = frozenset({"replace", "ireplace", "creplace", "match", "imatch", "cmatch"})
#: Variable names assignment treats specially.
SPECIAL_NAMES = frozenset({"null", "true", "false", "psitem", "erroractionpreference"})
NOTHING = contextlib.nullcontext()

STATEMENT_VALUES = (
    ast.If,
    ast.Foreach,
    ast.While,
    ast.For,
    ast.DoLoop,
    ast.Switch,
    ast.Try,
    ast.Chain,
    ast.Redirected,
)

STATEMENTS: dict[type, Callable[[Interpreter, Any, Scope], Awaitable[Any]]] = {
    ast.For: Interpreter.exec_for,
    ast.DoLoop: Interpreter.exec_do,
    ast.Switch: Interpreter.exec_switch,
    ast.Try: Interpreter.exec_try,
    ast.Trap: Interpreter.exec_trap,
    ast.Exit: Interpreter.exec_exit,
    ast.Chain: Interpreter.exec_chain,
    ast.Redirected: Interpreter.exec_redirected,
    ast.If: Interpreter.exec_if,
    ast.Foreach: Interpreter.exec_foreach,
    ast.While: Interpreter.exec_while,
    ast.FunctionDef: Interpreter.exec_function,
    ast.EnumDef: Interpreter.exec_enum,
    ast.ClassDef: Interpreter.exec_class,
    ast.Return: Interpreter.exec_return,
    ast.Break: Interpreter.exec_break,
    ast.Continue: Interpreter.exec_continue,
    ast.Throw: Interpreter.exec_throw,
}

EXPRESSIONS: dict[type, Callable[[Interpreter, Any, Scope], Awaitable[Any]]] = {
    ast.Literal: Interpreter.eval_literal,
    ast.ExpandString: Interpreter.eval_expand,
    ast.VarRef: Interpreter.eval_var,
    ast.Member: Interpreter.eval_member,
    ast.Index: Interpreter.eval_index,
    ast.MethodCall: Interpreter.eval_method,
    ast.Unary: Interpreter.eval_unary,
    ast.Binary: Interpreter.eval_binary,
    ast.ArrayLit: Interpreter.eval_array,
    ast.SubExpr: Interpreter.eval_subexpr,
    ast.ArraySubExpr: Interpreter.eval_array_subexpr,
    ast.Paren: Interpreter.eval_paren,
    ast.HashLit: Interpreter.eval_hash,
    ast.ScriptBlockLit: Interpreter.eval_block,
    ast.Cast: Interpreter.eval_cast,
    ast.TypeLit: Interpreter.eval_typelit,
    ast.StaticMember: Interpreter.eval_static,
    ast.Ternary: Interpreter.eval_ternary,
    ast.IncDec: Interpreter.eval_incdec,
}
#: The order comparisons, which an IComparable object answers with its CompareTo.
ORDER_OPS: dict[str, Callable[[int, int], bool]] = {
    **dict.fromkeys(("lt", "ilt", "clt"), operator.lt),
    **dict.fromkeys(("le", "ile", "cle"), operator.le),
    **dict.fromkeys(("gt", "igt", "cgt"), operator.gt),
    **dict.fromkeys(("ge", "ige", "cge"), operator.ge),
}
#: Expressions a block whose one statement is one of them writes the value of (its fast path):
#: all but ``$x++``, which as a statement writes nothing.
VALUE_EXPRESSIONS = frozenset(EXPRESSIONS) - {ast.IncDec}
