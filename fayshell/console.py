"""The console edge: shows output (rich tables on a terminal, plain text when piped), errors as
one red line, progress bars; turns errors into exit codes. rich is imported only for terminals."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from fayshell.errors import FayError, ParseError
from fayshell.host import (
    NullProgress,
    ProgressTask,
    RecordedProgress,
    Transcribing,
    read_stdin_line,
)
from fayshell.lang.psstyle import plain
from fayshell.lang.streams import is_relation
from fayshell.render import (
    VIEW,
    fit_widths,
    format_cell,
    groups,
    is_rigid,
    output_settings,
    render_lines,
    shows_as_list,
    table_shape,
)

RELATION_PREVIEW = 10_000


@dataclass
class RichProgress:
    """One rich progress bar, shown while a long command runs on a terminal; ``shown`` lists
    the bars on the terminal, this one until it closes."""

    progress: Any
    task: Any
    shown: list[RichProgress] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.shown.append(self)

    def advance(self, amount: float = 1.0) -> None:
        self.progress.advance(self.task, amount)

    def update(
        self,
        *,
        completed: float | None = None,
        total: float | None = None,
        description: str | None = None,
    ) -> None:
        kwargs: dict[str, Any] = {}
        if completed is not None:
            kwargs["completed"] = completed
        if total is not None:
            kwargs["total"] = total
        if description is not None:
            kwargs["description"] = description
        self.progress.update(self.task, **kwargs)

    def close(self) -> None:
        self.progress.stop()
        if self in self.shown:
            self.shown.remove(self)


#: Units :meth:`ConsoleHost.progress` shows as bytes (size, speed) rather than a count.
BYTE_UNITS = ("bytes", "B")


@dataclass
class DelayedProgress(RecordedProgress):
    """A progress bar that appears only once its work has taken ``delay_s``: a quick command
    shows none. Until then it only remembers where the work is."""

    start: Any = field(default=None, kw_only=True)  # () -> RichProgress: builds the bar
    delay_s: float = field(default=0.0, kw_only=True)
    began: float = field(default_factory=time.monotonic, kw_only=True)
    shown: RichProgress | None = field(default=None, kw_only=True)

    def advance(self, amount: float = 1.0) -> None:
        super().advance(amount)
        self._show()
        if self.shown is not None:
            self.shown.advance(amount)

    def update(
        self,
        *,
        completed: float | None = None,
        total: float | None = None,
        description: str | None = None,
    ) -> None:
        super().update(completed=completed, total=total, description=description)
        if self.shown is not None:
            self.shown.update(
                completed=completed,
                total=total,
                description=None if description is None else _short(description),
            )
        else:
            self._show()

    def _show(self) -> None:
        if self.shown is None and time.monotonic() - self.began >= self.delay_s:
            self.shown = self.start()
            self.shown.update(
                completed=self.completed,
                total=self.total,
                description=None if self.description is None else _short(self.description),
            )

    def close(self) -> None:
        super().close()
        if self.shown is not None:
            self.shown.close()


@dataclass
class ConsoleHost(Transcribing):
    """Host for the REPL and script runs: stdout for output, stderr for diagnostics."""

    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    color: bool | None = None
    interactive: bool = False
    width: int | None = None  # of the terminal; None asks the terminal (tests fix it)
    #: A progress bar appears once its command has run this long (none for quick ones).
    progress_delay_s: float = 1.0
    #: Records shown but not yet written: the table or list output ended with (see show).
    open: list[Any] = field(default_factory=list)
    #: The progress bars on the terminal now.
    bars: list[RichProgress] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.color is None:
            self.color = bool(getattr(self.out, "isatty", lambda: False)())

    def _err_console(self) -> Any:
        from rich.console import Console

        return Console(
            file=self.err, force_terminal=bool(self.color), highlight=False, soft_wrap=True
        )

    @contextlib.contextmanager
    def _above_bars(self) -> Iterator[None]:
        """Take the progress bars down while text is written, and draw them again below it:
        written beside a live bar, the text and the bar ran into each other."""
        live = list(self.bars)
        for bar in live:
            bar.progress.stop()
        try:
            yield
        finally:
            for bar in live:
                bar.progress.start()

    def write_host(self, text: str, color: str | None = None, newline: bool = True) -> None:
        with self._above_bars():
            self._write_host(text, color, newline)

    def _write_host(self, text: str, color: str | None, newline: bool) -> None:
        if self.color and color:
            from rich.console import Console

            Console(file=self.out, force_terminal=True, highlight=False, soft_wrap=True).print(
                text, style=color.lower(), end="\n" if newline else "", markup=False
            )
        else:
            self.out.write(self._plain(text) + ("\n" if newline else ""))
        self.out.flush()

    def _plain(self, text: str) -> str:
        """``text`` as this output takes it: without ANSI escape sequences unless
        $PSStyle.OutputRendering keeps them here (Ansi; Host on a terminal)."""
        terminal = getattr(self.out, "isatty", lambda: False)()
        return text if output_settings().keeps_ansi(terminal) else plain(text)

    def _diag(self, prefix: str, message: str, style: str) -> None:
        with self._above_bars():
            self._write_diag(prefix, message, style)

    def _write_diag(self, prefix: str, message: str, style: str) -> None:
        if self.color:
            self._err_console().print(f"{prefix}{message}", style=style, markup=False)
        else:
            self.err.write(f"{prefix}{message}\n")
        self.err.flush()

    def verbose(self, message: str) -> None:
        self._diag("VERBOSE: ", message, "cyan")

    def debug(self, message: str) -> None:
        self._diag("DEBUG: ", message, "yellow")

    def warning(self, message: str) -> None:
        self._diag("WARNING: ", message, "yellow")

    def error(self, message: str) -> None:
        self._diag("", message, "red")

    def report(self, exc: FayError) -> None:
        """A FayError as the user sees it: one red line (parse errors add the caret lines)."""
        text = exc.with_caret() if isinstance(exc, ParseError) else exc.one_line()
        self._diag("", text, "bold red")

    def progress(
        self, description: str, total: float | None = None, unit: str = ""
    ) -> ProgressTask:
        """A rich bar on a terminal (bytes with size and speed for ``B``/``bytes``), shown once
        the work takes longer than ``progress_delay_s``; nothing on a non-terminal."""
        if not (self.color and getattr(self.err, "isatty", lambda: False)()):
            return NullProgress()
        task = DelayedProgress(
            total=total,
            start=lambda: self._rich_progress(_short(description), total, unit),
            delay_s=self.progress_delay_s,
        )
        task.update()
        return task

    def _rich_progress(self, description: str, total: float | None, unit: str) -> RichProgress:
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TransferSpeedColumn,
        )

        columns: list[Any] = [TextColumn("{task.description}"), BarColumn()]
        columns += (
            [DownloadColumn(), TransferSpeedColumn()]
            if unit in BYTE_UNITS
            else [MofNCompleteColumn()]
        )
        columns.append(TimeElapsedColumn())
        prog = Progress(*columns, console=self._err_console(), transient=True)
        prog.start()
        return RichProgress(prog, prog.add_task(description, total=total), self.bars)

    def confirm(self, question: str) -> bool:
        if not self.interactive:  # a script: nobody to ask, so the change is not made
            self.warning(f"not confirmed (no terminal to ask): {question}")
            return False
        self.err.write(f"{question} [y/N] ")
        self.err.flush()
        answer = sys.stdin.readline().strip().lower()
        return answer in ("y", "yes")

    def read_line(self, prompt: str, secret: bool = False) -> str | None:
        return read_stdin_line(prompt, secret, self.err)

    def typed(self, line: str) -> None:
        """A line typed at the prompt, for a transcript that is running."""
        if self.transcript is not None:
            self.transcript.typed(line)

    # ---- output -----------------------------------------------------------------------------

    def show(self, output: Any) -> None:
        """Render one statement's output (a huge relation shows its first rows and a note).

        As PowerShell's one Out-Default over a script, the records that end a statement's
        output stay open (not yet written) while the next statements add records of the same
        shape: they join the same table or list. :meth:`end_output` writes what is open."""
        items, more = _materialize(output)
        if more:
            self.warning(
                f"showing the first {RELATION_PREVIEW:,} rows; pipe to Export-Csv, "
                "Select-Object -Skip or add a LIMIT for the rest"
            )
        runs = groups(self.open + items)
        self.open = []
        if runs and runs[-1][0] not in ("scalar", "formatted"):
            self.open = runs.pop()[1]
        self._write([item for _, run in runs for item in run])

    def end_output(self) -> None:
        """Write the table or list the last statements left open (end of a script or input)."""
        pending, self.open = self.open, []
        self._write(pending)

    def _write(self, items: list[Any]) -> None:
        if not items:
            return
        with self._above_bars():
            self._write_items(items)

    def _write_items(self, items: list[Any]) -> None:
        if self.color:
            self._show_rich(items)
        else:
            lines = render_lines(items)
            if lines:
                self.out.write(self._plain("\n".join(lines)) + "\n")
        self.out.flush()

    def _show_rich(self, items: list[Any]) -> None:
        """As the plain text frames output (blank lines around tables and lists, lists and
        hashtables as PowerShell lays them out), with plain record tables drawn by rich."""
        from rich.console import Console

        console = Console(file=self.out, force_terminal=True, highlight=False, width=self.width)
        for kind, run in groups(items):
            if not _rich_drawn(kind, run):
                for line in render_lines(run if kind != "formatted" else [run[0]]):
                    console.print(line, markup=False, highlight=False)
                continue
            f = run[0] if kind == "formatted" else None
            columns, rows = (f.columns, f.rows) if f is not None else table_shape(run)
            table, width = _rich_table(columns, rows, console.width)
            console.print()
            # a console of the table's own width: rich would squeeze numbers to fit the terminal
            Console(file=self.out, force_terminal=True, highlight=False, width=width).print(table)
            console.print()


def _rich_drawn(kind: str, run: list[Any]) -> bool:
    """Whether rich draws this run as a table: plain record tables and Format-Table output
    (scalars, lists, hashtables and grouped tables print as the plain text does)."""
    if kind == "formatted":
        f = run[0]  # grouped or with set widths or alignments: as the plain text lays it out
        return bool(
            f.kind == "table" and f.groups is None and f.widths is None and f.aligns is None
        )
    if kind in ("scalar", "hashtable", "date", "timespan") or kind.startswith(VIEW):
        return False
    if shows_as_list(run[0]):
        return False
    return not isinstance(getattr(type(run[0]), "GROUP_BY", None), str)


#: What a rich table adds between two columns: padding on both sides and the divider.
COLUMN_GAP = 3


def _rich_table(columns: list[str], rows: list[list[Any]], room: int) -> tuple[Any, int]:
    """A table that never cuts a number: text columns give way (with an ellipsis) when the
    terminal is narrow; when even the numbers do not fit, the table is wider than the terminal.
    Returns the table and the width to print it at."""
    from rich.table import Table

    cells = [
        [format_cell(c, v).replace("\n", " ") for c, v in zip(columns, r, strict=True)]
        for r in rows
    ]
    rigid = [is_rigid([r[i] for r in rows]) for i in range(len(columns))]
    natural = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    gaps = COLUMN_GAP * (len(columns) - 1)
    widths = fit_widths(natural, rigid, room - gaps)
    table = Table(show_edge=False, header_style="bold", pad_edge=False)
    for c, w, fixed in zip(columns, widths, rigid, strict=True):
        table.add_column(
            c, justify="right" if fixed else "left", width=w, no_wrap=True, overflow="ellipsis"
        )
    for r in cells:
        table.add_row(*r)
    return table, max(room, sum(widths) + gaps)


#: Room a progress bar's description may take (a long path keeps its end: the bar stays).
DESCRIPTION_WIDTH = 40


def _short(description: str) -> str:
    """``Import-Trace …/incident/web01``: the command kept, the middle of a long path cut."""
    if len(description) <= DESCRIPTION_WIDTH:
        return description
    head, _, rest = description.partition(" ")
    room = max(DESCRIPTION_WIDTH - len(head) - 2, 8)
    return f"{head} …{rest[-room:]}"


def _materialize(output: Any) -> tuple[list[Any], bool]:
    """Output as a list for display; True when a relation had more rows than are shown."""
    items: list[Any] = []
    more = False
    for item in [output] if is_relation(output) else output or []:
        if is_relation(item):
            rows = item.wrap("*", f"LIMIT {RELATION_PREVIEW + 1}").records()
            more = more or len(rows) > RELATION_PREVIEW
            items.extend(rows[:RELATION_PREVIEW])
        else:
            items.append(item)
    return items, more
