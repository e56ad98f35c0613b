"""Listings made between requests (fuse/idle.py): the folders a readdirplus
answer showed never listed wait, newest first, bounded; the wait for the next
request (fuse/readable.py) lists them until a request is queued."""
from __future__ import annotations

import logging
import socket

import pyfuse3
import pytest
import trio

from gbxfs.fuse import idle, listing, readable
from gbxfs.fuse.attrs import AttrPolicy
from gbxfs.fuse.ops import Operations
from gbxfs.tree.model import BytesFile, Dir
from test_readable import _taken_without_checkpoint


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


class Sends:
    """A folder whose listing queues a request on the device (socket `b`)."""

    def __init__(self, b, log):
        self.b, self.log, self.name = b, log, "sends"

    def listing_nowait(self):
        self.log.append(self.name)
        self.b.send(b"request")


def test_the_wait_lists_until_a_request_is_queued():
    a, b = socket.socketpair()
    with a, b:
        log = []
        todo = idle.IdleListings()
        todo.add([Counted("first", log), Sends(b, log), Counted("left", log)])
        r = readable.ReadableFirst(idle=todo, linger_ns=0)
        assert _taken_without_checkpoint(r.wait_readable, a.fileno())      # the request, taken without trio
        assert log == ["first", "sends"] and len(todo) == 1


def test_nothing_is_listed_while_a_worker_thread_is_out(monkeypatch):
    a, b = socket.socketpair()
    with a, b:
        log = []
        todo = idle.IdleListings()
        todo.add([Counted("waits", log)])
        r = readable.ReadableFirst(idle=todo, linger_ns=0)
        monkeypatch.setattr(readable.Threads, "out", 1)
        assert not _taken_without_checkpoint(r.wait_readable, a.fileno())
        assert log == [] and len(todo) == 1


def test_a_readdirplus_answer_queues_the_folders_it_showed_never_listed(monkeypatch):
    log = []
    listed = Counted("listed", log, children=[BytesFile("f", b"1")])
    listed.children()
    tree = Dir("root", children=[Counted("one", log), BytesFile("file", b"x"), listed, Counted("two", log)])
    ops = Operations(tree, policy=AttrPolicy(uid=1, gid=1))
    todo = idle.IdleListings()
    monkeypatch.setattr(listing, "IDLE", todo)
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
    todo = idle.IdleListings()
    monkeypatch.setattr(listing, "IDLE", todo)
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


def test_the_wait_goes_through_trio_once_its_idle_time_is_spent(monkeypatch):
    """Listings nobody asks for (an `ls -l` of many folders) do not keep trio's
    other tasks waiting: after IDLE_NS the wait goes through trio, the rest wait."""
    a, b = socket.socketpair()
    with a, b:
        log = []
        todo = idle.IdleListings()
        todo.add([Counted(str(n), log) for n in range(5)])
        clock = iter(range(0, 10**12, 10**6))       # each listing takes 1 ms
        monkeypatch.setattr(readable.time, "perf_counter_ns", lambda: next(clock))
        monkeypatch.setattr(readable, "IDLE_NS", 2_500_000)
        r = readable.ReadableFirst(idle=todo, linger_ns=0)
        assert not _taken_without_checkpoint(r.wait_readable, a.fileno())      # through trio
        assert log == ["0", "1", "2"] and len(todo) == 2
