"""fayshell.concurrency: thread work and sibling tasks never outlive the task that started them."""

from __future__ import annotations

import asyncio
import threading

import pytest

from fayshell.concurrency import Background, in_thread, together


class Blocked:
    """A thread function that signals the loop when it starts and then waits to be let go."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.started = asyncio.Event()
        self.go = threading.Event()
        self.finished = False

    def __call__(self, value: int) -> int:
        self.loop.call_soon_threadsafe(self.started.set)
        self.go.wait()
        self.finished = True
        return value


async def turns(n: int = 50) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


async def test_in_thread_returns_and_raises_like_the_function() -> None:
    assert await in_thread(pow, 2, 10) == 1024
    with pytest.raises(ZeroDivisionError):
        await in_thread(divmod, 1, 0)


async def test_cancelled_in_thread_waits_for_the_thread_even_if_cancelled_again() -> None:
    work = Blocked()
    seen: list[bool] = []

    async def caller() -> None:
        try:
            await in_thread(work, 1)
        finally:
            seen.append(work.finished)

    task = asyncio.ensure_future(caller())
    await work.started.wait()
    task.cancel()
    await turns()
    task.cancel()  # a second cancellation while it waits
    await turns()
    assert not task.done()
    work.go.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == [True]  # the caller's cleanup ran after the thread had finished


async def test_together_raises_the_first_error_after_every_sibling_finished() -> None:
    work = Blocked()

    async def fails() -> None:
        await work.started.wait()
        raise ValueError("bad chunk")

    task = asyncio.ensure_future(together([in_thread(work, 2), fails()]))
    await work.started.wait()
    await turns()
    assert not task.done()  # the error is known, the sibling's thread still runs
    work.go.set()
    with pytest.raises(ValueError, match="bad chunk"):
        await task
    assert work.finished


async def test_together_of_nothing_and_of_successes() -> None:
    await together([])
    done: list[int] = []

    async def add(i: int) -> None:
        await asyncio.sleep(0)
        done.append(i)

    await together(add(i) for i in range(5))
    assert sorted(done) == list(range(5))


def test_background_returns_its_value_computed_on_another_thread() -> None:
    with Background(lambda: threading.current_thread().name) as job:
        here = threading.current_thread().name
        assert job.result() != here


def test_background_error_is_raised_by_result_and_thread_is_joined() -> None:
    def fail() -> None:
        raise ValueError("broken input")

    with Background(fail) as job, pytest.raises(ValueError, match="broken input"):
        job.result()
    assert not job._thread.is_alive()


def test_background_never_outlives_its_block() -> None:
    release = threading.Event()
    job = Background(release.wait, 5.0)
    with job:
        release.set()
    assert not job._thread.is_alive()
