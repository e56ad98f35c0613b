"""Listings made between requests (fuse/idle.py): the folders a readdirplus
answer showed never listed wait, newest first, bounded, in the Operations'
own IdleListings; its task lists them only while the loop has nothing else
to run."""
from __future__ import annotations

import logging

import pyfuse3
import pytest
import trio
import trio.testing

from gbxfs.fuse import idle
from gbxfs.fuse.attrs import AttrPolicy
from gbxfs.fuse.ops import Operations
from gbxfs.tree.model import BytesFile, Dir


class Counted(Dir):
    """A folder listed from memory that records when it is listed."""

    def __init__(self, name, log, fail=False, children=()):
        super().__init__(name, load=self._make)
        self.log, self.fail, self.kids = log, fail, list(children)

    lists_from_memory = True

    def _make(self):
        self.log.append(self.name)
        if self.fail:
            raise OSError("broken folder")
        return self.kids


def test_folders_are_listed_in_listing_order_newest_listing_first():
    log = []
    todo = idle.IdleListings()
    todo.add([Counted("a", log), Counted("b", log)])
    todo.add([Counted("a/x", log), Counted("a/y", log)])      # a depth-first walk entered "a"
    while todo:
        todo.run_one()
    assert log == ["a/x", "a/y", "a", "b"]


def test_at_most_limit_folders_wait_the_oldest_dropped():
    log = []
    todo = idle.IdleListings(limit=3)
    todo.add([Counted(n, log) for n in "abcde"])
    assert len(todo) == 3
    while todo:
        todo.run_one()
    assert log == ["a", "b", "c"]       # the first ones shown are the ones entered first


def test_a_folder_that_needs_work_is_not_listed():
    made = []
    todo = idle.IdleListings()
    todo.add([Dir("disk", load=lambda: made.append(1) or [])])     # not from memory: a worker's job
    todo.run_one()
    assert made == [] and not todo


def test_a_failing_listing_is_logged_and_forgotten(caplog):
    log = []
    todo = idle.IdleListings()
    todo.add([Counted("bad", log, fail=True), Counted("good", log)])
    with caplog.at_level(logging.DEBUG, logger="gbxfs.fuse"):
        todo.run_one()
        todo.run_one()
    assert log == ["bad", "good"]
    assert "broken folder" in caplog.text


async def _until_listed(todo: idle.IdleListings) -> None:
    """Let the loop go idle until no folder waits."""
    with trio.fail_after(10):          # a guard: the loop must reach idle
        while todo:
            await trio.testing.wait_all_tasks_blocked()


def test_the_task_lists_the_waiting_folders_when_the_loop_is_idle():
    log = []

    async def main():
        todo = idle.IdleListings()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(todo.run)
            todo.add([Counted("a", log), Counted("b", log), Counted("c", log)])
            await _until_listed(todo)
            assert log == ["a", "b", "c"]
            todo.add([Counted("later", log)])       # the task parked meanwhile: woken by add
            await _until_listed(todo)
            assert log[-1] == "later"
            nursery.cancel_scope.cancel()

    trio.run(main)


def test_nothing_is_listed_while_another_task_can_run():
    """A request being answered (here: a task that keeps being runnable) goes
    before every listing."""
    log = []

    async def main():
        todo = idle.IdleListings()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(todo.run)
            todo.add([Counted("waits", log)])
            for _ in range(100):
                await trio.sleep(0)         # runnable at every scheduling pass
            assert log == [] and len(todo) == 1
            await _until_listed(todo)
            assert log == ["waits"]
            nursery.cancel_scope.cancel()

    trio.run(main)


def test_with_nothing_waiting_the_task_does_not_keep_the_loop_busy():
    """Parked, not polling: the loop goes idle (and a MockClock can jump), so an
    empty IdleListings costs the mount nothing."""
    async def main():
        todo = idle.IdleListings()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(todo.run)
            await trio.sleep(3600)          # jumps at once when all tasks are blocked
            assert trio.current_time() >= 3600
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_a_readdirplus_answer_queues_the_folders_it_showed_never_listed(monkeypatch):
    log = []
    listed = Counted("listed", log, children=[BytesFile("f", b"1")])
    listed.children()
    tree = Dir("root", children=[Counted("one", log), BytesFile("file", b"x"), listed, Counted("two", log)])
    ops = Operations(tree, policy=AttrPolicy(uid=1, gid=1))
    todo = ops.idle
    monkeypatch.setattr(pyfuse3, "readdir_reply", lambda *a: True)

    async def main():
        fh = await ops.opendir(pyfuse3.ROOT_INODE, None)
        await ops.readdir(fh, 0, None)

    trio.run(main)
    log.clear()
    while todo:
        todo.run_one()
    assert log == ["one", "two"]


def test_a_folder_the_kernel_refused_is_queued_by_the_answer_that_shows_it(monkeypatch):
    """A full buffer refuses an entry: the next readdir shows it again, and only
    that answer queues it (once)."""
    log = []
    tree = Dir("root", children=[Counted("one", log), Counted("two", log)])
    ops = Operations(tree, policy=AttrPolicy(uid=1, gid=1))
    todo = ops.idle
    full = [True]

    def reply(token, name, attrs, nxt):
        return not (full[0] and name == b"two")

    monkeypatch.setattr(pyfuse3, "readdir_reply", reply)

    async def main():
        fh = await ops.opendir(pyfuse3.ROOT_INODE, None)
        await ops.readdir(fh, 0, None)          # "one" taken, "two" refused
        assert len(todo) == 1
        full[0] = False
        await ops.readdir(fh, 3, None)          # "two" shown now
        assert len(todo) == 2

    trio.run(main)
    while todo:
        todo.run_one()
    assert sorted(log) == ["one", "two"]
