"""PoolGate: statements on other cursors against the memory limit lowered (issue 14)."""

from __future__ import annotations

import threading

from fayshell.store.poolgate import PoolGate


def test_alone_only_when_no_statement_runs() -> None:
    gate = PoolGate()
    with gate.statements(), gate.statements(), gate.alone() as got:
        assert not got
    with gate.alone() as got:
        assert got
        with gate.alone() as again:
            assert not again  # one at a time
    with gate.alone() as got:
        assert got  # released after each


def test_statements_wait_while_alone() -> None:
    gate = PoolGate()
    started = threading.Event()
    ran: list[bool] = []

    def statement() -> None:
        started.set()
        with gate.statements():
            ran.append(True)

    with gate.alone() as got:
        assert got
        t = threading.Thread(target=statement)
        t.start()
        assert started.wait(10)
        t.join(0.2)
        assert t.is_alive() and not ran  # held back while the limit is low
    t.join(10)
    assert ran == [True]


def test_a_failed_statement_leaves_the_gate() -> None:
    gate = PoolGate()
    try:
        with gate.statements():
            raise ValueError("statement failed")
    except ValueError:
        pass
    with gate.alone() as got:
        assert got
