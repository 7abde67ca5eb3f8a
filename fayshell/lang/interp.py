"""The evaluator: runs a parsed script against a :class:`~fayshell.state.ShellState`.

It is async from top to bottom so remote cmdlets can await SSH work on the process's single
event loop. Statements hand their output to a callback (the front end renders it); commands
never print.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fayshell.commands.binding import NO_VALUE, NamedArg, bind, missing_mandatory, pipeline_binding
from fayshell.commands.invocation import Invocation
from fayshell.commands.registry import Cmdlet, Param
from fayshell.errors import (
    CommandError,
    CommandNotFound,
    FayError,
    InternalError,
    ParameterError,
    RuntimeFayError,
    SourceSpan,
)
from fayshell.lang import ast
from fayshell.lang.dates import NOT_HANDLED, call_method
from fayshell.lang.ops import (
    OperatorError,
    arithmetic,
    compare,
    convert,
    string_method,
    to_number,
    to_string,
    truthy,
)
from fayshell.lang.parser import parse
from fayshell.lang.streams import (
    aiter_items,
    as_stream,
    collect,
    is_relation,
    normalize_result,
    single_or_list,
    unroll,
)
from fayshell.lang.values import UNSET, Duration, ScriptBlock
from fayshell.records import get_property, is_record
from fayshell.state import Scope, ShellState

OutputCallback = Callable[[Any], Awaitable[None] | None]


class BreakSignal(Exception):  # noqa: N818 - control flow
    pass


class ContinueSignal(Exception):  # noqa: N818 - control flow
    pass


class ReturnSignal(Exception):  # noqa: N818 - control flow
    def __init__(self, output: list[Any]) -> None:
        super().__init__("return")
        self.output = output


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
    except (FayError, BreakSignal, ContinueSignal, ReturnSignal, GeneratorExit):
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


@dataclass
class FunctionInfo:
    """A user-defined function: its declaration and where it was written."""

    node: ast.FunctionDef
    scope: Scope
    origin: Origin
    spec: Cmdlet


class Interpreter:
    """Evaluates fayshell scripts for one shell state."""

    def __init__(self, state: ShellState) -> None:
        self.state = state
        self.origin = Origin("<input>", [])
        self.failed: list[Invocation] = []

    # ---- entry points ---------------------------------------------------------------------

    def parse(self, source: str, file: str = "<input>") -> ast.Script:
        return parse(source, file, self.raw_commands())

    def raw_commands(self) -> frozenset[str]:
        reg = self.state.registry
        return frozenset(a.lower() for c in reg if c.raw_tail for a in c.aliases)

    async def run(self, source: str, file: str = "<input>",
                  on_output: OutputCallback | None = None) -> list[Any]:
        """Parse and run ``source``; each statement's output goes to ``on_output``.

        Without a callback, all output is returned as one list (used by tests and `-c`).
        """
        script = self.parse(source, file)
        return await self.run_script(script, on_output)

    async def run_script(self, script: ast.Script,
                         on_output: OutputCallback | None = None) -> list[Any]:
        saved = self.origin
        self.origin = Origin(script.file, script.source.split("\n"))
        gathered: list[Any] = []
        try:
            for stmt in script.statements:
                self.failed = []
                out = await self.statement_output(stmt, self.state.globals)
                if on_output is None:
                    gathered.extend(unroll(out) if not is_relation(out) else [out])
                elif out is not None and out != []:
                    res = on_output(out)
                    if res is not None:
                        await res
                self.raise_for_failures(stmt)
        finally:
            self.origin = saved
        return gathered

    def raise_for_failures(self, stmt: ast.Node) -> None:
        """After a statement's output is shown: stop if a command failed items under Stop."""
        stopping = [inv for inv in self.failed if inv.errors and inv.error_action == "Stop"]
        self.failed = []
        if stopping:
            inv = stopping[0]
            count = len(inv.errors)
            what = {e.target for e in inv.errors if e.target}
            targets = f" ({', '.join(sorted(what))})" if what else ""
            raise self.located(CommandError(
                inv.name, f"{count} failure{'s' if count != 1 else ''}{targets}; "
                          "use -ErrorAction Continue to go on"), stmt)

    async def statement_output(self, stmt: ast.Node, scope: Scope) -> Any:
        """Run one statement; its output as a list, or a Relation when it stayed in DuckDB."""
        try:
            out = await self.exec(stmt, scope)
            if is_relation(out):
                return out
            return await collect(out)
        except (BreakSignal, ContinueSignal, ReturnSignal):
            raise
        except RuntimeFayError as exc:
            raise self.located(exc, stmt) from None
        except OperatorError as exc:
            raise self.located(RuntimeFayError(str(exc)), stmt) from None

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
            handler = STATEMENTS.get(type(node))
            if handler is not None:
                return await handler(self, node, scope)
            return unroll(await self.eval(node, scope))
        except OperatorError as exc:
            raise self.located(RuntimeFayError(str(exc)), node) from None

    def located(self, err: RuntimeFayError, node: ast.Node) -> RuntimeFayError:
        """``err`` with the node's place attached, unless it already knows a closer one."""
        if err.span is None:
            err.span = self.origin.span(node)
        return err

    async def block(self, body: list[ast.Node], scope: Scope) -> list[Any]:
        """Run statements and gather their output (Relations kept as items)."""
        out: list[Any] = []
        for stmt in body:
            result = await self.statement_output(stmt, scope)
            if is_relation(result):
                out.append(result)
            else:
                out.extend(result)
        return out

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
        async for item in aiter_items(source if is_relation(source) else unroll(source)):
            scope.set(node.var, item)
            if not await self.loop_body(node.body, scope, out):
                break
        return out

    async def exec_while(self, node: ast.While, scope: Scope) -> Any:
        out: list[Any] = []
        while truthy(await self.value_of(node.cond, scope)):
            if not await self.loop_body(node.body, scope, out):
                break
        return out

    async def loop_body(self, body: list[ast.Node], scope: Scope, out: list[Any]) -> bool:
        """One iteration's output appended to ``out``; False when the body said ``break``."""
        try:
            out.extend(await self.block(body, scope))
        except ContinueSignal:
            pass
        except BreakSignal:
            return False
        return True

    async def exec_function(self, node: ast.FunctionDef, scope: Scope) -> Any:
        params = tuple(
            Param(p.name, _param_type(p.type), position=i, default=p.default)
            for i, p in enumerate(node.params)
        ) or (Param("args", "any", rest=True),)
        spec = Cmdlet(name=node.name, func=_no_func, synopsis=f"function {node.name}",
                      params=params, family="function")
        self.state.functions[node.name.lower()] = FunctionInfo(node, scope, self.origin, spec)
        return None

    async def exec_return(self, node: ast.Return, scope: Scope) -> Any:
        value = [] if node.value is None else unroll(await self.value_of(node.value, scope))
        raise ReturnSignal(value)

    async def exec_break(self, node: ast.Node, scope: Scope) -> Any:
        raise BreakSignal()

    async def exec_continue(self, node: ast.Node, scope: Scope) -> Any:
        raise ContinueSignal()

    async def exec_throw(self, node: ast.Throw, scope: Scope) -> Any:
        value = None if node.value is None else await self.value_of(node.value, scope)
        raise self.located(RuntimeFayError(to_string(value) or "ScriptHalted"), node)

    async def assign(self, node: ast.Assign, scope: Scope) -> Any:
        value = await self.value_of(node.value, scope)
        if node.op != "=":
            current = await self.eval(node.target, scope)
            value = arithmetic(node.op[0], current, value)
        target = node.target
        if isinstance(target, ast.VarRef):
            self.set_variable(target.name, value, scope)
        elif isinstance(target, ast.Index):
            container = await self.eval(target.obj, scope)
            key = await self.eval(target.index, scope)
            if isinstance(container, list):
                container[int(to_number(key))] = value
            elif isinstance(container, dict):
                container[_dict_key(container, key)] = value
            else:
                raise self.located(RuntimeFayError("cannot index into this value"), node)
        elif isinstance(target, ast.Member):
            obj = await self.eval(target.obj, scope)
            if isinstance(obj, dict):
                obj[_dict_key(obj, target.name)] = value
            else:
                raise self.located(RuntimeFayError(
                    f"cannot set property {target.name} on this value"), node)
        else:
            raise self.located(RuntimeFayError("cannot assign to this expression"), node)
        return value

    def set_variable(self, name: str, value: Any, scope: Scope) -> None:
        if name.lower().startswith("env:"):
            os.environ[name[4:]] = to_string(value)
            return
        if name.lower() in ("true", "false", "null"):
            raise RuntimeFayError(f"cannot overwrite the constant ${name}")
        scope.set("_" if name.lower() == "psitem" else name, value)

    async def value_of(self, node: ast.Node, scope: Scope) -> Any:
        """The value of a statement used as a value (condition, assignment right side)."""
        if isinstance(node, (ast.Pipeline, ast.Command)):
            out = await self.exec(node, scope)
            if is_relation(out):
                return out
            return single_or_list(await collect(out))
        if isinstance(node, (ast.If, ast.Foreach, ast.While)):
            return single_or_list(await collect(await self.exec(node, scope)))
        return await self.eval(node, scope)

    # ---- pipelines and commands -----------------------------------------------------------

    async def run_pipeline(self, node: ast.Pipeline, scope: Scope) -> Any:
        stream: Any = None
        for i, element in enumerate(node.elements):
            if isinstance(element, ast.Command):
                stream = await self.invoke(element, scope, stream if i else None)
            elif i == 0:
                value = await self.eval(element, scope)
                stream = value if is_relation(value) else unroll(value)
            else:
                raise self.located(RuntimeFayError(
                    "expressions are only allowed as the first element of a pipeline"), element)
        return stream

    def lookup_command(self, name: str) -> Cmdlet | FunctionInfo:
        func = self.state.functions.get(name.lower())
        if func is not None:
            return func
        spec = self.state.registry.resolve(name)
        if spec is not None:
            return spec
        names = self.state.registry.names() + [f.node.name for f in self.state.functions.values()]
        lowered = {n.lower(): n for n in names}
        close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
        hint = f"; did you mean {lowered[close[0]]}?" if close else \
            "; 'Get-Command' lists the commands"
        raise CommandNotFound(f"unknown command {name!r}{hint}")

    async def eval_args(self, node: ast.Command, scope: Scope) -> list[Any]:
        args: list[Any] = []
        if node.raw_tail is not None:
            args.append(node.raw_tail)
        for arg in node.args:
            if isinstance(arg, ast.ParamArg):
                value = NO_VALUE if arg.value is None else await self.eval(arg.value, scope)
                args.append(NamedArg(arg.name, value))
            else:
                args.append(await self.eval(arg, scope))
        return args

    async def invoke(self, node: ast.Command, scope: Scope, input_stream: Any) -> Any:
        """Run one command of a pipeline; returns its output stream."""
        try:
            target = self.lookup_command(node.name)
            args = await self.eval_args(node, scope)
            if isinstance(target, FunctionInfo):
                return await self.call_function(target, args, input_stream)
            return await self.call_cmdlet(target, args, input_stream, node)
        except RuntimeFayError as exc:
            raise self.located(exc, node) from None

    async def call_cmdlet(self, spec: Cmdlet, args: list[Any], input_stream: Any,
                          node: ast.Node) -> Any:
        bound = bind(spec, args)
        ctx = Invocation(self.state, spec, input_stream, verbose=bound.verbose,
                         error_action=bound.error_action or self.state.error_action)
        self.failed.append(ctx)
        pipeline_params = [p for p in spec.params if p.pipeline and p.pyname not in bound.values]
        if spec.stream or input_stream is None or not pipeline_params:
            if input_stream is not None and not spec.stream and not pipeline_params:
                await self.reject_input(spec, input_stream)
            self.check_mandatory(spec, bound.values)
            ctx.input = input_stream if spec.stream else None
            return await self.guard(spec, functools.partial(
                self.call_func, spec, ctx, bound.values))
        return self.per_record(spec, ctx, bound.values, input_stream, node)

    async def call_func(self, spec: Cmdlet, ctx: Invocation, values: dict[str, Any]) -> Any:
        return await normalize_result(spec.func(ctx, **values))

    async def guard(self, spec: Cmdlet, call: Callable[[], Awaitable[Any]]) -> Any:
        """Call a cmdlet; its errors (also those of a stream it returns) as :func:`failure`."""
        try:
            result = await call()
        except (FayError, BreakSignal, ContinueSignal, ReturnSignal):
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
            raise ParameterError(spec.name, None, f"missing mandatory parameter {names}")

    async def per_record(self, spec: Cmdlet, ctx: Invocation, values: dict[str, Any],
                         input_stream: Any, node: ast.Node) -> AsyncIterator[Any]:
        """Call a cmdlet once per input record, binding the record to its pipeline parameters."""
        try:
            async for item in aiter_items(input_stream):
                call_values = {**values, **pipeline_binding(spec, values, item)}
                self.check_mandatory(spec, call_values)
                out = await self.guard(spec, functools.partial(
                    self.call_func, spec, ctx, call_values))
                async for produced in aiter_items(out):
                    yield produced
        except RuntimeFayError as exc:
            raise self.located(exc, node) from None

    async def call_function(self, func: FunctionInfo, args: list[Any], input_stream: Any) -> Any:
        bound = bind(func.spec, args)
        scope = Scope(func.scope)
        for p, decl in zip(func.spec.params, func.node.params, strict=False):
            if p.pyname in bound.values:
                value = bound.values[p.pyname]
            else:
                value = None if decl.default is None else await self.eval(decl.default, scope)
            scope.set_local(decl.name, value)
        scope.set_local("args", bound.values.get("args", []))
        scope.set_local("input", await collect(input_stream))
        saved, self.origin = self.origin, func.origin
        try:
            return as_stream(await self.block(func.node.body, scope))
        except ReturnSignal as ret:
            return as_stream(ret.output)
        finally:
            self.origin = saved

    async def invoke_block(self, block: ScriptBlock, args: list[Any], dollar_under: Any,
                           input_items: Any) -> list[Any]:
        """Run a script block in a child of the scope it was written in."""
        scope = Scope(block.scope)
        if dollar_under is not UNSET:
            scope.set_local("_", dollar_under)
        for i, decl in enumerate(block.params):
            if i < len(args):
                value = args[i]
            else:
                value = None if decl.default is None else await self.eval(decl.default, scope)
            scope.set_local(decl.name, value)
        scope.set_local("args", args[len(block.params):])
        if input_items is not None:
            scope.set_local("input", input_items)
        body = block.node.body
        if len(body) == 1 and type(body[0]) in EXPRESSIONS:  # fast path: { $_.x -gt 5 }
            return unroll(await self.eval(body[0], scope))
        try:
            return await self.block(body, scope)
        except ReturnSignal as ret:
            return ret.output

    # ---- expressions ----------------------------------------------------------------------

    async def eval(self, node: ast.Node, scope: Scope) -> Any:
        handler = EXPRESSIONS.get(type(node))
        if handler is None:
            if isinstance(node, (ast.Pipeline, ast.Command, ast.Assign, ast.If, ast.Foreach,
                                 ast.While)):
                return await self.value_of(node, scope)
            raise self.located(RuntimeFayError(f"cannot evaluate {type(node).__name__}"), node)
        try:
            return await handler(self, node, scope)
        except OperatorError as exc:
            raise self.located(RuntimeFayError(str(exc)), node) from None

    async def eval_literal(self, node: ast.Literal, scope: Scope) -> Any:
        return node.value

    async def eval_expand(self, node: ast.ExpandString, scope: Scope) -> Any:
        parts = [p if isinstance(p, str) else to_string(await self.eval(p, scope))
                 for p in node.parts]
        return "".join(parts)

    async def eval_var(self, node: ast.VarRef, scope: Scope) -> Any:
        name = node.name
        low = name.lower()
        if low.startswith("env:"):
            return os.environ.get(name[4:])
        if low == "psitem":
            low = "_"
        found, value = scope.lookup(low)
        return value if found else None

    async def eval_member(self, node: ast.Member, scope: Scope) -> Any:
        return member(await self.eval(node.obj, scope), node.name)

    async def eval_index(self, node: ast.Index, scope: Scope) -> Any:
        obj = await self.eval(node.obj, scope)
        key = await self.eval(node.index, scope)
        if is_relation(obj):
            obj = obj.records()
        if isinstance(key, list):
            return [index_value(obj, k) for k in key]
        return index_value(obj, key)

    async def eval_method(self, node: ast.MethodCall, scope: Scope) -> Any:
        obj = await self.eval(node.obj, scope)
        args = [await self.eval(a, scope) for a in node.args]
        low = node.name.lower()
        if isinstance(obj, ScriptBlock) and low == "invoke":
            return single_or_list(await obj.invoke(*args))
        result = call_method(obj, node.name, args)  # dates and durations (lang/dates.py)
        if result is not NOT_HANDLED:
            return result
        if isinstance(obj, str):
            return string_method(obj, node.name, args)
        if isinstance(obj, list) and low == "contains" and len(args) == 1:
            return compare("contains", obj, args[0])
        if isinstance(obj, dict) and low == "containskey" and len(args) == 1:
            return any(str(k).lower() == str(args[0]).lower() for k in obj)
        if low == "tostring" and not args:
            return to_string(obj)
        raise OperatorError(f"{type(obj).__name__} has no method {node.name}()")

    async def eval_unary(self, node: ast.Unary, scope: Scope) -> Any:
        value = await self.eval(node.operand, scope)
        if node.op == "-not":
            return not truthy(value)
        if node.op == "-":
            return -to_number(value)
        return to_number(value)

    async def eval_binary(self, node: ast.Binary, scope: Scope) -> Any:
        op = node.op
        left = await self.eval(node.left, scope)
        if op == "and":
            return truthy(left) and truthy(await self.eval(node.right, scope))
        if op == "or":
            return truthy(left) or truthy(await self.eval(node.right, scope))
        right = await self.eval(node.right, scope)
        return binary_op(op, left, right)

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
        out: dict[str, Any] = {}
        for key_node, value_node in node.pairs:
            key = to_string(await self.eval(key_node, scope))
            out[_dict_key(out, key)] = await self.value_of(value_node, scope)
        return out

    async def eval_block(self, node: ast.ScriptBlockLit, scope: Scope) -> Any:
        return ScriptBlock(node, scope, self)

    async def eval_cast(self, node: ast.Cast, scope: Scope) -> Any:
        return convert(await self.eval(node.operand, scope), node.type)


def _no_func(ctx: Invocation, **kwargs: Any) -> None:
    """Placeholder callable for user functions' declarations (they run through the evaluator)."""
    return None


def _param_type(declared: str | None) -> Any:
    return {"int": int, "long": int, "double": float, "float": float, "string": str,
            "switch": bool, "bool": bool, "scriptblock": "scriptblock",
            "hashtable": "hashtable", "string[]": "strings", "int[]": "ints"}.get(
        (declared or "").lower(), "any")


def _dict_key(d: dict[str, Any], key: Any) -> str:
    """The existing key matching ``key`` case-insensitively, or ``key`` itself."""
    text = to_string(key)
    low = text.lower()
    return next((k for k in d if str(k).lower() == low), text)


def member(obj: Any, name: str) -> Any:
    """``obj.name`` with PowerShell's extras: Count/Length, and member enumeration on arrays."""
    low = name.lower()
    if is_relation(obj):
        if low in ("count", "length"):
            return obj.wrap("count(*)").scalar()
        obj = obj.records()
    if isinstance(obj, (list, tuple)):
        if low in ("count", "length"):
            return len(obj)
        return single_or_list([v for v in (member(item, name) for item in obj) if v is not None])
    if isinstance(obj, str) and low == "length":
        return len(obj)
    if isinstance(obj, dict) and low == "count" and not any(str(k).lower() == "count" for k in obj):
        return len(obj)
    if isinstance(obj, dict) and low == "keys":
        return list(obj)
    if obj is not None and not is_record(obj) and low == "count":
        return 1
    return get_property(obj, name)


def index_value(obj: Any, key: Any) -> Any:
    if isinstance(obj, (list, tuple, str)):
        try:
            return obj[int(to_number(key))]
        except IndexError:
            return None
    if isinstance(obj, Mapping):
        return get_property(obj, to_string(key))
    if obj is None:
        return None
    if int(to_number(key)) in (0, -1):
        return obj
    return None


def binary_op(op: str, left: Any, right: Any) -> Any:
    """All binary operators except the short-circuit ``-and``/``-or``."""
    if op in "+-*/%":
        return arithmetic(op, left, right)
    if op == "xor":
        return truthy(left) != truthy(right)
    if op == "..":
        a, b = int(to_number(left)), int(to_number(right))
        return list(range(a, b + 1)) if a <= b else list(range(a, b - 1, -1))
    if op == "f":
        args = right if isinstance(right, list) else [right]
        return to_string(left).format(*args)
    if op == "join":
        return to_string(right).join(to_string(v) for v in unroll(left))
    if op == "split":
        return re.split(to_string(right), to_string(left), flags=re.IGNORECASE)
    if op == "replace":
        pat, rep = (right + [""])[:2] if isinstance(right, list) else (right, "")
        return re.sub(to_string(pat), to_string(rep).replace("$", "\\"), to_string(left),
                      flags=re.IGNORECASE)
    if op in ("is", "isnot"):
        hit = is_type(left, to_string(right))
        return hit if op == "is" else not hit
    return compare(op, left, right)


TYPE_CHECKS: dict[str, tuple[type, ...]] = {
    "int": (int,), "long": (int,), "double": (float,), "float": (float,), "string": (str,),
    "bool": (bool,), "array": (list, tuple), "hashtable": (dict,), "scriptblock": (ScriptBlock,),
    "datetime": (datetime,), "timespan": (Duration,),
}


def is_type(value: Any, name: str) -> bool:
    """``$x -is [int]``; bools are not ints here, as in PowerShell."""
    types = TYPE_CHECKS.get(name.lower())
    if types is None:
        raise OperatorError(f"unknown type [{name}]")
    if isinstance(value, bool) and bool not in types:
        return False
    return isinstance(value, types)


STATEMENTS: dict[type, Callable[[Interpreter, Any, Scope], Awaitable[Any]]] = {
    ast.If: Interpreter.exec_if,
    ast.Foreach: Interpreter.exec_foreach,
    ast.While: Interpreter.exec_while,
    ast.FunctionDef: Interpreter.exec_function,
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
}
