"""Divergent branches that wait on each other, run as coroutines: a warp-specialized kernel
(`if (warpgroup == 0) { produce } else { consume }`, each side waiting on mbarriers the
other arrives on) needs both sides to make progress, which the interpreter's lockstep walk
of one branch after the other cannot give.

Each branch of such an `if` runs in a thread of its own, but only one runs at a time: a
branch runs until its lanes wait on an mbarrier phase that has not completed, then hands
over to the next ready branch (round robin), and is resumed later to look again. A wait
that finds nothing has run since it last looked, while every other branch is waiting too,
is a real deadlock: the GPU would hang there (the interpreter's usual located fault).
Threads are only the means of suspending a deep Python stack; there is no parallelism and
the order is deterministic (program order within a branch, round robin between them).
"""
from __future__ import annotations

import threading
import weakref
from collections import deque


class _Abort(BaseException):
    """Unwinds a coroutine whose run is being abandoned (another branch faulted)."""


class _Coroutine:
    def __init__(self, parent: "_Coroutine | None", loop_stack: list):
        self.event = threading.Event()
        self.parent = parent
        self.children = 0
        self.loop_stack = loop_stack      # the loops this branch is inside (for reports)
        self.blocked_at: int | None = None
        self.done = False


class Scheduler:
    """The branch coroutines of one interpreter run (kernels_ir.interpreter.Machine)."""

    def __init__(self, machine, loop_stack: list):
        # (not a reference: the machine holds its scheduler, and a cycle would keep the
        # machine's per-thread arrays until the cycle collector ran)
        self.machine = weakref.proxy(machine)
        self.root = _Coroutine(None, loop_stack)   # the caller's thread
        self.current = self.root
        self.ready: deque = deque()
        self.live: list = []
        self.error: BaseException | None = None
        self.aborting = False
        self.killer: _Coroutine | None = None

    @property
    def inside(self) -> bool:
        """Whether the running code is a branch coroutine (not the run's own thread)."""
        return self.current is not self.root

    def together(self, branches) -> None:
        """Run `(statements, lanes)` branches as coroutines until all are done; re-raise the
        first fault any of them raised (the others abandoned)."""
        me = self.current
        kids = []
        for stmts, idx in branches:
            co = _Coroutine(me, list(me.loop_stack))
            thread = threading.Thread(target=self._body, args=(co, stmts, idx), daemon=True,
                                      name="smemsim-branch")
            kids.append(co)
            self.live.append(co)
            thread.start()
        me.children = len(kids)
        self.ready.extend(kids)
        self._run_next(me)
        if self.aborting:
            raise _Abort()
        if self.error is not None:
            self._abandon_all(me)
            error, self.error = self.error, None
            raise error

    def wait_for_others(self) -> bool:
        """The running branch's wait cannot complete yet: let the others run. False when
        that cannot help (no other branch, or nothing ran since this one last looked)."""
        me = self.current
        if not self.ready or me.blocked_at == self.machine.steps:
            return False
        me.blocked_at = self.machine.steps
        self.ready.append(me)
        self._run_next(me)
        if self.aborting:
            raise _Abort()
        return True

    def _run_next(self, me: _Coroutine) -> None:
        nxt = self.ready.popleft()
        self.current = nxt
        nxt.event.set()
        me.event.wait()
        me.event.clear()
        self.current = me

    def _body(self, co: _Coroutine, stmts, idx) -> None:
        co.event.wait()
        co.event.clear()
        try:
            if not self.aborting:
                self.machine.exec_block(stmts, idx)
        except _Abort:
            pass
        except BaseException as err:  # noqa: BLE001 - handed to the waiting parent
            if self.error is None:
                self.error = err
        co.done = True
        self.live.remove(co)
        if self.aborting:
            self.current = self.killer
            self.killer.event.set()
            return
        parent = co.parent
        parent.children -= 1
        if self.error is not None:      # the parent abandons the rest and raises
            if parent in self.ready:
                self.ready.remove(parent)
            self.current = parent
            parent.event.set()
            return
        if parent.children == 0:
            self.ready.append(parent)
        nxt = self.ready.popleft()
        self.current = nxt
        nxt.event.set()

    def _abandon_all(self, me: _Coroutine) -> None:
        """Unwind every other live branch, innermost first, before the fault is raised (not
        this one's ancestors: the fault travels up through them)."""
        keep, up = set(), me
        while up is not None:
            keep.add(id(up))
            up = up.parent
        self.aborting, self.killer = True, me
        try:
            while any(id(c) not in keep for c in self.live):
                co = [c for c in self.live if id(c) not in keep][-1]
                self.current = co
                co.event.set()
                me.event.wait()
                me.event.clear()
        finally:
            self.aborting, self.killer = False, None
            self.ready.clear()
            self.current = me
