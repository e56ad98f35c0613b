"""gbxfs mount / umount.

`gbxfs [mount] SOURCE MOUNTPOINT [-o opt,...] [-f] [-d]` is also what
`mount -t fuse.gbxfs` and fstab run (through mount.fuse3) and what the
systemd unit runs (with -f, Type=notify).

Without -f the command returns only once the mount answers requests: the
process forks, the child mounts (the mount's name, "gbxfs[PID]:SOURCE", names
it: gbxfs umount checks that) and reports over a pipe after a stat through the
mount succeeded. Exit codes (gbxfs.cli):
0 mounted, 2 bad arguments or options, 3 source or mount point missing,
4 source cannot be shown as a folder, 5 mount failed (pyfuse3 missing or
not the tested release included) or the server died before it was ready.
"""
from __future__ import annotations

import argparse
import logging
import logging.handlers
import os
import select
import subprocess
import sys
import time

from gbxfs.cli.exits import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_MOUNT_FAILED, EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE
from gbxfs.fuse.mountinfo import find_mount

log = logging.getLogger("gbxfs")

READY_TIMEOUT = 60.0   # seconds the parent waits for the server to answer


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gbxfs mount",
        description=main.__doc__,
        epilog="options (-o): gbx=folder|file, packlist=FILE, cache_mb=N, threads=N, timeout=SECONDS, "
               "nonempty (mount on top of a live mount), verified_only (pak entries no checksum can prove, "
               "stored or LZ4, answer EIO), and FUSE's allow_other, allow_root, auto_unmount, fsname= (shown after gbxfs[PID]:), max_read=, "
               "nosuid, nodev, noexec, ...; fstab's rw, ro, noauto, user, _netdev, nofail, x-* are ignored.")
    p.add_argument("source")
    p.add_argument("mountpoint")
    p.add_argument("-o", dest="options", action="append", default=[], metavar="OPT[,OPT...]")
    p.add_argument("-f", "--foreground", action="store_true", help="stay in the foreground")
    p.add_argument("-d", "--debug", action="store_true", help="debug logging (implies -f)")
    p.add_argument("--gbx", choices=("folder", "file"), help="same as -o gbx=")
    p.add_argument("--packlist", metavar="FILE", help="same as -o packlist=")
    p.add_argument("--verified-only", action="store_true", help="same as -o verified_only")
    return p


def main(argv: list[str]) -> int:
    """Mount SOURCE (a folder, or a .pak/.Gbx file) read-only at MOUNTPOINT."""
    from gbxfs.fuse.options import OptionError, parse_options

    args = _parser().parse_args(argv)
    try:
        opts = parse_options(args.options)
    except OptionError as e:
        print(f"gbxfs: {e}", file=sys.stderr)
        return EXIT_USAGE
    if args.gbx:
        opts.gbx_mode = args.gbx
    if args.packlist:
        opts.packlist = args.packlist
    if args.verified_only:
        opts.verified_only = True

    return run_mount(args.source, args.mountpoint, opts, foreground=args.foreground or args.debug,
                     debug=args.debug)


def run_mount(source_arg: str, mountpoint_arg: str, opts, *, foreground: bool, debug: bool = False,
              on_ready=None) -> int:
    """Mount and serve (foreground) or mount and hand over to a server process.
    `on_ready()` runs (in the serving process) once the mount answers."""
    if not _can_mount():
        return EXIT_MOUNT_FAILED
    source = os.path.abspath(source_arg)
    mountpoint = os.path.abspath(mountpoint_arg)
    if not os.path.exists(source):
        print(f"gbxfs: {source_arg}: no such file or directory", file=sys.stderr)
        return EXIT_NOT_FOUND
    created = _create_mountpoint(mountpoint, mountpoint_arg)
    if created is None:
        return EXIT_NOT_FOUND
    try:
        return _mount_at(source_arg, source, mountpoint_arg, mountpoint, opts, foreground=foreground,
                         debug=debug, on_ready=on_ready, created=created)
    finally:
        if created:
            _remove_created(mountpoint)


def _mount_at(source_arg: str, source: str, mountpoint_arg: str, mountpoint: str, opts, *, foreground: bool,
              debug: bool, on_ready, created: bool) -> int:
    if not os.path.isdir(mountpoint):
        print(f"gbxfs: mount point {mountpoint_arg} is not a directory", file=sys.stderr)
        return EXIT_NOT_FOUND
    covered = find_mount(mountpoint)
    if covered is not None and not opts.nonempty:
        # mounting on top would hide a live file system (and gbxfs umount then removes ours only)
        print(f"gbxfs: {mountpoint_arg} is already a mount point ({covered.fstype} from {covered.source}); "
              f"unmount it first, or add -o nonempty to mount on top of it", file=sys.stderr)
        return EXIT_MOUNT_FAILED
    if opts.packlist and not os.path.isfile(opts.packlist):
        print(f"gbxfs: packlist {opts.packlist}: no such file", file=sys.stderr)
        return EXIT_NOT_FOUND

    _setup_logging(debug, to_syslog=not foreground)
    try:
        ops = _operations(source, opts)
    except OSError as e:
        print(f"gbxfs: {source_arg}: {e.strerror or e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(ops, str):
        print(f"gbxfs: {source_arg} {ops}", file=sys.stderr)
        return EXIT_BAD_INPUT
    # the scheduler's memory loop charges the kernel's inodes to the cache (fuse/scheduler.py)
    memory = {"scheduler": ops.scheduler, "outside": ops.inodes.nbytes}

    from gbxfs.fuse import runner
    from gbxfs.fuse.notify import sd_notify

    if not foreground:
        # the server process mounts: the mount's name carries its pid (gbxfs umount checks it)
        return _daemonize(source, mountpoint, source_arg, mountpoint_arg, ops, opts, runner, sd_notify,
                          memory, created)
    if not _mount(runner, ops, source, mountpoint, source_arg, mountpoint_arg, opts):
        return EXIT_MOUNT_FAILED

    def ready() -> None:
        sd_notify("READY=1")
        log.info("ready: %s on %s", source, mountpoint)
        if on_ready is not None:
            on_ready()
        else:
            print(ready_line(source_arg, mountpoint_arg), flush=True)
    runner.serve(mountpoint, ready, **memory)
    return EXIT_OK


def _mount(runner, ops, source: str, mountpoint: str, source_arg: str, mountpoint_arg: str, opts) -> bool:
    """Mount, named after this process; False (said on stderr) when refused."""
    try:
        runner.mount(ops, mountpoint, opts.fuse_options(source))
    except RuntimeError as e:
        print(f"gbxfs: cannot mount {source_arg} on {mountpoint_arg}: {e}", file=sys.stderr)
        return False
    return True


def _operations(source: str, opts):
    """The FUSE operations over the source's tree, with their scheduler, or why the
    source cannot be mounted."""
    from gbxfs.fuse.attrs import AttrPolicy
    from gbxfs.fuse.ops import Operations
    from gbxfs.fuse.scheduler import Scheduler
    from gbxfs.tree.cache import ByteLRU
    from gbxfs.tree.context import TreeContext
    from gbxfs.tree.model import Dir
    from gbxfs.tree.root import build_tree

    ctx = TreeContext(gbx_mode=opts.gbx_mode, cache=ByteLRU(opts.cache_mb * 1024 * 1024),
                      packlist_path=os.path.abspath(opts.packlist) if opts.packlist else None,
                      verified_only=opts.verified_only)
    tree = build_tree(source, ctx)
    if not isinstance(tree, Dir):
        return "is neither a folder nor a pak/GBX/GP2 file"
    why = _unusable(tree)
    if why is not None:
        # a single bad file would mount as nothing but its error.txt: say why instead
        # (inside a mounted folder, the same file is a folder holding error.txt)
        return f"cannot be shown as a folder: {why}"
    policy = AttrPolicy(entry_timeout=opts.timeout, attr_timeout=opts.timeout, negative_timeout=opts.timeout)
    statfs_path = source if os.path.isdir(source) else os.path.dirname(source)
    scheduler = Scheduler(opts.threads, ctx.cache)
    return Operations(tree, policy=policy, scheduler=scheduler, statfs_path=statfs_path)


def _unusable(tree) -> str | None:
    """Why a single-file source gives no usable folder (None: it does)."""
    from gbxfs.tree.model import ErrorFolder
    from gbxfs.tree.openers import ViewDir

    if not isinstance(tree, ViewDir):
        return None
    tree.children()          # builds the view; a listing that fails turns it into its error folder
    view = tree.view()
    return view.reason if isinstance(view, ErrorFolder) else None


def _daemonize(source: str, mountpoint: str, source_arg: str, mountpoint_arg: str, ops, opts, runner, sd_notify,
               memory: dict, created: bool) -> int:
    r, w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the server
        os.close(r)
        os.setsid()
        if not _mount(runner, ops, source, mountpoint, source_arg, mountpoint_arg, opts):
            os.write(w, b"0")       # said on the caller's stderr; the caller removes what it made
            os._exit(EXIT_MOUNT_FAILED)
        os.chdir("/")
        _detach_stdio()

        def ready() -> None:
            os.write(w, b"1")
            os.close(w)
            sd_notify(f"READY=1\nMAINPID={os.getpid()}")

        code = EXIT_OK
        try:
            runner.serve(mountpoint, ready, **memory)
        except BaseException:
            log.exception("server failed")
            code = EXIT_INTERNAL
        if created:   # unmounted: the folder the command made for this mount goes too
            _remove_created(mountpoint)
        os._exit(code)

    os.close(w)
    answer = _wait_ready(r, pid)
    os.close(r)
    if answer == b"1":
        # the mount (and the mount point it may have made) belongs to the server now:
        # leave without any cleanup that could touch them
        os._exit(EXIT_OK)
    if answer == b"0":        # not mounted: the server said why and left
        os.waitpid(pid, 0)
        return EXIT_MOUNT_FAILED
    print(f"gbxfs: the server for {mountpoint} did not become ready", file=sys.stderr)
    _cleanup_failed(mountpoint, pid)
    return EXIT_MOUNT_FAILED


def _wait_ready(fd: int, pid: int) -> bytes:
    """b"1" ready, b"0" not mounted, b"" the server died first or timed out."""
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return b""
        readable, _, _ = select.select([fd], [], [], left)
        if readable:
            return os.read(fd, 1)


def _cleanup_failed(mountpoint: str, pid: int) -> None:
    try:
        os.kill(pid, 15)
    except ProcessLookupError:
        pass
    subprocess.run(["fusermount3", "-u", "-z", "-q", mountpoint], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)


def _detach_stdio() -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _setup_logging(debug: bool, to_syslog: bool) -> None:
    root = logging.getLogger()
    # a terminal gets warnings and errors (one per bad file); syslog also gets mount/unmount
    root.setLevel(logging.DEBUG if debug else logging.INFO if to_syslog else logging.WARNING)
    handler: logging.Handler
    if to_syslog and os.path.exists("/dev/log"):
        handler = logging.handlers.SysLogHandler(address="/dev/log")
        handler.setFormatter(logging.Formatter("gbxfs[%(process)d]: %(name)s: %(message)s"))
    elif to_syslog:
        handler = logging.NullHandler()  # a daemon without syslog has nowhere to write
    else:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("gbxfs: %(levelname)s %(name)s: %(message)s"))
    root.handlers[:] = [handler]
    if not debug:
        logging.getLogger("pyfuse3").setLevel(logging.WARNING)


# A missing mount point is made for the mount (as ratarmount does) and removed
# again once it is unmounted; a folder that was there before is never removed.

def _create_mountpoint(mountpoint: str, shown: str) -> bool | None:
    """True: made it now; False: it was there; None: it could not be made (said why)."""
    if os.path.lexists(mountpoint):
        return False
    try:
        os.mkdir(mountpoint, 0o755)
    except OSError as e:
        print(f"gbxfs: mount point {shown} does not exist and cannot be created: {e.strerror or e}",
              file=sys.stderr)
        return None
    return True


def _remove_created(mountpoint: str) -> None:
    """Remove the mount point this command made, once nothing is mounted there
    (rmdir: only while it is an empty folder)."""
    if find_mount(mountpoint) is not None:
        return
    try:
        os.rmdir(mountpoint)
    except OSError:
        pass


def ready_line(source_arg: str, mountpoint_arg: str) -> str:
    """What `gbxfs mount -f` prints once the mount answers."""
    return (f"gbxfs: ready: {source_arg} is mounted on {mountpoint_arg} (read-only); "
            f"Ctrl-C or `gbxfs umount {mountpoint_arg}` unmounts")


def _can_mount() -> bool:
    """Whether pyfuse3 is installed (it is only on Linux: pyproject.toml), and the
    release gbxfs is tested with (fuse/runner.py); says why not."""
    import importlib.util
    if importlib.util.find_spec("pyfuse3") is None:
        print("gbxfs: mounting needs FUSE 3 and pyfuse3 (Linux); they are not installed here. "
              "ls, cat, info, extract and coverage work without them.", file=sys.stderr)
        return False
    from gbxfs.fuse import runner
    try:
        runner.require_tested_pyfuse3()
    except RuntimeError as e:
        print(f"gbxfs: cannot mount: {e}", file=sys.stderr)
        return False
    return True
