"""The state of one shell: variables, functions, the database, the cluster, the host.

One :class:`ShellState` lives per REPL, script run or TUI; nothing is kept in module globals.
Heavy parts (the DuckDB database, SSH connections) are created on first use.
"""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fayshell.errors import ErrorAction, FayError, error_action
from fayshell.history import History
from fayshell.host import Host, StreamHost

if TYPE_CHECKING:
    from fayshell.commands.registry import Registry
    from fayshell.jobs import JobTable
    from fayshell.readline import ReadLine
    from fayshell.remote.cluster import Cluster
    from fayshell.render import OutputSettings
    from fayshell.store.database import Database


#: A token of a typed line, as ``$^``/``$$`` take them: a quoted string, a ``${name}``, a word,
#: or one of ``; | ( ) { } [ ] ,``.
LINE_TOKEN = re.compile(
    r"""'(?:[^']|'')*'|"(?:[^"`]|`.)*"|\$\{[^}]*\}|[^\s;|(){}\[\],'"]+|[;|(){}\[\],]"""
)


def default_database_path() -> Path:
    """The embedded default database: ``$XDG_DATA_HOME/fayshell/fayshell.duckdb``."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return Path(base) / "fayshell" / "fayshell.duckdb"


def _start_location() -> str:
    """The process's working directory, or the home directory when it was deleted."""
    try:
        return os.getcwd()
    except OSError:
        return os.path.expanduser("~")


@dataclass(frozen=True)
class PathInfo:
    """A location as Get-Location, Resolve-Path and $PWD give it; prints as the path."""

    Path: str
    Provider: str = field(repr=False, default="FileSystem")
    ProviderPath: str = field(repr=False, default="")

    TYPE_NAME = "System.Management.Automation.PathInfo"

    def __str__(self) -> str:
        return self.Path


@dataclass
class Options:
    """Settings given on the ``fayshell`` command line (or by a test)."""

    database: str | None = None
    inventory: str | None = None
    ssh_config: str | None = None
    interactive: bool = False


class Scope:
    """A variable scope; lookups fall back to the parent. Names are case-insensitive."""

    def __init__(self, parent: Scope | None = None, isolated: bool = False) -> None:
        self.parent = parent
        self.vars: dict[str, tuple[str, Any]] = {}
        #: Type-constrained variables (``[string[]]$x = …``): their types, outermost first.
        self.types: dict[str, list[str]] = {}
        #: A function's or ``& {}``'s scope: assignments create locals instead of reaching out.
        self.isolated = isolated
        #: Set-StrictMode's version set in this scope (0: off; None: the parent's).
        self.strict: int | None = None
        #: ``$private:x``'s names: seen only in this scope, not in the scopes it makes.
        self.private: set[str] = set()
        #: New-Variable/Set-Variable -Option ReadOnly or Constant, by lower-case name.
        self.options: dict[str, str] = {}

    def lookup(self, name: str) -> tuple[bool, Any]:
        scope: Scope | None = self
        key = name.lower()
        while scope is not None:
            if key in scope.vars and (scope is self or key not in scope.private):
                return True, scope.vars[key][1]
            scope = scope.parent
        return False, None

    def strict_version(self) -> int:
        """Set-StrictMode's version in force here (0: off): the nearest scope that set one."""
        scope: Scope | None = self
        while scope is not None:
            if scope.strict is not None:
                return scope.strict
            scope = scope.parent
        return 0

    def set(self, name: str, value: Any) -> Scope:
        """Assign in the scope that already holds the name, else in this one; the scope that
        holds it."""
        key = name.lower()
        scope: Scope | None = self
        while scope is not None:
            if key in scope.vars and (scope is self or key not in scope.private):
                if scope.protected(key):
                    from fayshell.lang.ops import VariableNotWritable

                    raise VariableNotWritable(scope.vars[key][0])
                scope.vars[key] = (scope.vars[key][0], value)
                return scope
            if scope.isolated:
                break
            scope = scope.parent
        self.vars[key] = (name, value)
        return self

    def protected(self, name: str, force: bool = False) -> bool:
        """Is this scope's ``name`` kept from change (and removal): Constant always, ReadOnly
        unless ``force`` (-Force)?"""
        kept = self.options.get(name.lower())
        return kept == "Constant" or (kept == "ReadOnly" and not force)

    def holder(self, name: str) -> Scope | None:
        """The scope whose variable ``name`` this one sees, if any."""
        key = name.lower()
        scope: Scope | None = self
        while scope is not None:
            if key in scope.vars and (scope is self or key not in scope.private):
                return scope
            scope = scope.parent
        return None

    def constraint(self, name: str) -> list[str]:
        """The types ``[int]$x = …`` gave the variable an assignment would reach (none: [])."""
        key = name.lower()
        scope: Scope | None = self
        while scope is not None:
            if key in scope.vars:
                return scope.types.get(key, [])
            if scope.isolated:
                return []
            scope = scope.parent
        return []

    def set_local(self, name: str, value: Any) -> None:
        self.vars[name.lower()] = (name, value)

    def remove(self, name: str) -> bool:
        self.options.pop(name.lower(), None)
        return self.vars.pop(name.lower(), None) is not None

    def local(self, name: str) -> tuple[str, Any] | None:
        """This scope's own (name, value) of ``name``, if it holds one."""
        return self.vars.get(name.lower())

    def items(self) -> list[tuple[str, Any]]:
        """Every visible variable (inner scopes shadow outer), sorted by name."""
        seen: dict[str, tuple[str, Any]] = {}
        scope: Scope | None = self
        while scope is not None:
            for key, item in scope.vars.items():
                seen.setdefault(key, item)
            scope = scope.parent
        return sorted(seen.values(), key=lambda kv: kv[0].lower())


@dataclass
class ShellState:
    """Everything one shell session holds between statements."""

    options: Options = field(default_factory=Options)
    host: Host = field(default_factory=StreamHost)
    globals: Scope = field(default_factory=Scope)
    functions: dict[str, Any] = field(default_factory=dict)
    #: Aliases made by Set-Alias and New-Alias: name (lower case) -> (name, the command).
    aliases: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: Short facts components publish for the REPL toolbar, e.g. {"sessions": "incident"}.
    status: dict[str, str] = field(default_factory=dict)
    #: Trace sessions this shell created: name -> fayshell.tracing.records.SessionMemo.
    trace_sessions: dict[str, Any] = field(default_factory=dict)
    #: Flight-recorder watches this shell runs: trigger name -> fayshell.tracing.recorder.TriggerWatch.
    trace_triggers: dict[str, Any] = field(default_factory=dict)
    #: The shell's current directory (Set-Location); relative paths resolve against it.
    location: str = field(default_factory=lambda: _start_location())
    #: Push-Location's stack, and the directories `cd -` and `cd +` go back and forth to.
    location_stack: list[str] = field(default_factory=list)
    location_back: list[str] = field(default_factory=list)
    location_forward: list[str] = field(default_factory=list)
    #: Every input run so far (REPL lines, -c, scripts); see fayshell.history.
    history: History = field(default_factory=lambda: History())
    #: The evaluator running this state (set by it), for Invoke-Expression and -Scope.
    interpreter: Any = None
    #: The enums and classes scripts declared, after the engine's own enums that preference
    #: variables hold: lower-case name -> EnumType or ClassType.
    types: dict[str, Any] = field(default_factory=lambda: _engine_types())
    #: What its preference variables ask of its output ($FormatEnumerationLimit,
    #: $PSStyle.OutputRendering), kept up to date by the interpreter (sync_output).
    output: OutputSettings = field(default_factory=lambda: _output_settings())
    #: Set-PSDebug -Trace: 0 off, 1 each statement as it runs, 2 also assignments and calls.
    trace_level: int = 0
    #: Write-Progress bars still shown, by their -Id (see ``close_progress``).
    progress_bars: dict[int, Any] = field(default_factory=dict)
    #: Statements of scripts and input lines begun so far (the interpreter numbers a script's
    #: own statements, not those inside its blocks): see ``statement_finished``.
    statements: int = 0
    _registry: Registry | None = None
    _jobs: JobTable | None = None
    _random: Any = None  # random.Random, made at its first use (Get-Random)
    _database: Database | None = None
    _cluster: Cluster | None = None
    #: The held background write last seen (its chunk's number) and ``statements`` then.
    _held: tuple[int, int] | None = None
    _readline: ReadLine | None = None

    @property
    def readline(self) -> ReadLine:
        """The line editor's options and key handlers (Set-PSReadLineOption ...), for the
        REPL; made at first use (a -c command seldom asks)."""
        if self._readline is None:
            from fayshell.readline import ReadLine

            self._readline = ReadLine()
        return self._readline

    @property
    def jobs(self) -> JobTable:
        """Background jobs (Start-Job), made at first use; stopped and removed when the shell
        ends (:meth:`aclose`)."""
        if self._jobs is None:
            from fayshell.jobs import JobTable

            self._jobs = JobTable()
        return self._jobs

    def resolve_alias(self, name: str) -> str:
        """The command a name stands for through the user's aliases (which come before
        functions and cmdlets); ``name`` itself when it is none of them."""
        seen = set()
        while name.lower() in self.aliases and name.lower() not in seen:
            seen.add(name.lower())
            name = self.aliases[name.lower()][1]
        return name

    def command_names(self) -> list[str]:
        """Every name a command can be called by: cmdlets, their aliases, the user's functions
        and aliases (completion, "did you mean")."""
        own = [f.node.name for f in self.functions.values()]
        return self.registry.names() + own + [n for n, _ in self.aliases.values()]

    def __post_init__(self) -> None:
        for name, value in (
            ("true", True),
            ("false", False),
            ("null", None),
            ("PWD", PathInfo(self.location, ProviderPath=self.location)),
            ("HOME", os.path.expanduser("~")),
        ):
            self.globals.set_local(name, value)
        from fayshell.lang.preferences import PREFERENCES

        for pref in PREFERENCES:
            self.globals.set_local(pref.name, pref.initial())
            if pref.type_name is not None:
                self.globals.types[pref.name.lower()] = [pref.type_name]

    def resolve_path(self, path: str) -> Path:
        """``path`` as an absolute path: ``~`` expanded, relative to the shell's location,
        ``.`` and ``..`` resolved lexically (symbolic links are kept, as PowerShell does)."""
        text = path.replace("\\", "/") if os.sep == "/" else path
        text = os.path.expanduser(text) if text.startswith("~") else text
        return Path(os.path.normpath(os.path.join(self.location, text)))

    def set_location(self, path: str) -> None:
        """Change the current directory (the caller checked that it exists)."""
        self.location = path
        self.globals.set_local("PWD", PathInfo(path, ProviderPath=path))

    @property
    def registry(self) -> Registry:
        if self._registry is None:
            from fayshell.commands import load_registry

            self._registry = load_registry()
        return self._registry

    @property
    def database(self) -> Database:
        """The session's DuckDB database, opened on first use."""
        if self._database is None:
            from fayshell.store.database import Database

            path = self.options.database or str(default_database_path())
            self._database = Database.open(path)
            if self.location != _start_location():
                self.follow_location_in_database()
        return self._database

    def follow_location_in_database(self) -> None:
        """Let DuckDB find relative file names (``read_csv('x.csv')``) where the shell is."""
        if self._database is None:
            return
        from fayshell.store.relation import quote_literal

        try:
            self._database.execute(f"SET file_search_path = {quote_literal(self.location)}")
        except Exception as exc:  # a DuckDB without the setting: files resolve as before
            self.host.verbose(f"DuckDB file_search_path not set: {exc}")

    def use_database(self, db: Database) -> None:
        """Switch databases (Connect-Database); the old one is closed."""
        if self._database is not None and self._database is not db:
            self._database.close()
        self._database = db
        self.follow_location_in_database()

    @property
    def database_label(self) -> str:
        if self._database is not None:
            return self._database.path
        return self.options.database or str(default_database_path())

    @property
    def cluster(self) -> Cluster:
        """The session's cluster: inventory, node sets and the SSH connection pool."""
        if self._cluster is None:
            from fayshell.remote.cluster import Cluster

            self._cluster = Cluster.from_options(self.options, self.host)
        return self._cluster

    @property
    def error_action(self) -> ErrorAction:
        """$ErrorActionPreference as the running statement sees it (``f -ErrorAction X`` sets
        it in f's scope); Stop when unset."""
        found, value = self.scope_now.lookup("ErrorActionPreference")
        return error_action(value) if found and value is not None and value != "" else "Stop"

    def history_count(self) -> int:
        """$MaximumHistoryCount: how many inputs Get-History keeps."""
        from fayshell.lang.preferences import MAXIMUM_HISTORY_COUNT

        return self._int_preference("MaximumHistoryCount", MAXIMUM_HISTORY_COUNT)

    def _int_preference(self, name: str, default: int) -> int:
        """A session-wide integer preference ($MaximumHistoryCount ...), ``default`` when it
        is unset or not a number."""
        from fayshell.lang.preferences import int_preference

        found, value = self.globals.lookup(name)
        return int_preference(value, default) if found else default

    def received(self, line: str) -> None:
        """A line typed at the prompt ran: ``$^`` and ``$$`` are its first and last tokens
        (about_Automatic_Variables), until the next line."""
        tokens = LINE_TOKEN.findall(line)
        if tokens:
            self.globals.set_local("^", tokens[0])
            self.globals.set_local("$", tokens[-1])

    def sync_output(self) -> None:
        """Output settings from the session's preference variables, as they are now."""
        from fayshell.lang.preferences import FORMAT_ENUMERATION_LIMIT

        limit = self._int_preference("FormatEnumerationLimit", FORMAT_ENUMERATION_LIMIT)
        self.output.enumeration_limit = limit
        found, style = self.globals.lookup("PSStyle")
        self.output.rendering = str(getattr(style, "OutputRendering", "Host"))

    @property
    def error_action_scoped(self) -> bool:
        """Whether the running statement's $ErrorActionPreference is a function's own (its
        -ErrorAction), not the session's."""
        return self.scope_now.lookup("ErrorActionPreference") != self.globals.lookup(
            "ErrorActionPreference"
        )

    @property
    def scope_now(self) -> Scope:
        """The scope of the statement running now (the session's between statements)."""
        return self.globals if self.interpreter is None else self.interpreter.caller_scope

    def remember_error(self, record: Any) -> None:
        """Put an error first in ``$Error`` (the newest first, as PowerShell keeps it)."""
        found, errors = self.globals.lookup("Error")
        if not found or not isinstance(errors, list):
            from fayshell.lang.generic import ArrayList

            errors = ArrayList()
            self.globals.set_local("Error", errors)
        errors.insert(0, record)

    def close_progress(self) -> None:
        """Take down what Write-Progress left shown: when the statement that drew it ends
        (before its output is shown, which a live bar would break into), an input line
        fails or the shell closes."""
        for bar in self.progress_bars.values():
            bar.close()
        self.progress_bars.clear()

    async def aclose(self) -> None:
        """Stop background jobs and trigger watches, close SSH connections and the database."""
        self.close_progress()
        if self._jobs is not None and self._jobs.jobs:
            await asyncio.to_thread(self._jobs.close)
        for watch in self.trace_triggers.values():
            await watch.stop()
        self.trace_triggers.clear()
        if self._cluster is not None:
            await self._cluster.aclose()
            self._cluster = None
        if self._database is not None:
            db, self._database = self._database, None
            try:
                db.close()  # waits for a chunk written in the background
            except FayError as exc:
                self.host.error(exc.message)

    def statement_started(self) -> int:
        """Number a statement that begins."""
        self.statements += 1
        return self.statements

    def statement_finished(self, started: int) -> None:
        """After the statement numbered ``started``. Import-Trace's background write is held
        (LoadSettings.hold_write) until a statement begun after the importing one has run: the
        question asked right after the import runs on both cores, then the write starts."""
        db = self._database
        held = None if db is None else db.held_write
        if db is None or held is None:
            return
        if self._held is None or self._held[0] != held:
            self._held = (held, self.statements)  # first seen: the importing statement ended
        elif started > self._held[1]:
            db.start_pending()

    def random(self, seed: int | None = None) -> Any:
        """The session's random generator (a ``random.Random``), seeded anew when ``seed``
        is given: Get-Random -SetSeed makes the session's later results repeatable too."""
        import random

        if self._random is None or seed is not None:
            self._random = random.Random(seed)
        return self._random

    def release_writes(self) -> None:
        """The shell is about to wait (for the user, for time): a held write starts now."""
        if self._database is not None:
            self._database.start_pending()

    def wait_for_writes(self) -> None:
        """Block until the database's background write (Import-Trace) is on disk."""
        if self._database is not None:
            self._database.wait_pending()


def _output_settings() -> OutputSettings:
    from fayshell.render import OutputSettings

    return OutputSettings()


def _engine_types() -> dict[str, Any]:
    from fayshell.lang.enums import engine_enums

    return dict(engine_enums())
