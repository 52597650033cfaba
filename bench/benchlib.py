"""Shared helpers of the bench scripts: timing a child process with its own peak RSS and CPU time,
medians, interleaved rounds, and the cache folder where generated data is kept between runs.

Wall time is what the targets are stated in; CPU time (user + system, the product's pool workers
included) is printed beside it because load from other processes moves it much less.

Generated data lives under ``$EVALSITE_BENCH_CACHE`` (default ``/tmp/evalsite-bench``), never in
the repository; a folder is reused only when its ``.complete`` marker exists.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("EVALSITE_BENCH_CACHE", "/tmp/evalsite-bench"))
QUIET_ENV = dict(os.environ, CI="true")  # no progress bars in measured runs
# Every child (floors and product alike) runs as an installed package does: with its bytecode cached
# (here in a folder of the bench cache).  An environment with PYTHONDONTWRITEBYTECODE set (this
# sandbox sets it) would otherwise compile every evalsite module from source at each start, about
# 0.5 s a process that no installed copy pays; the first (warm-up) run of each figure writes it.
QUIET_ENV.pop("PYTHONDONTWRITEBYTECODE", None)
QUIET_ENV["PYTHONPYCACHEPREFIX"] = str(CACHE / "pycache")
BYTECODE_NOTE = "children run with their bytecode cached (as installed), floors and product alike"
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
_RSS_MARK = "EVALSITE_BENCH_MAXRSS_KB "


@dataclass(frozen=True)
class Sample:
    seconds: float
    peak_rss: int  # bytes (ru_maxrss of the child, or of its largest waited-for worker)
    cpu: float  # user + system seconds of the child and the workers it waited for


def run_child(command: Sequence[str], *, cwd: Path = ROOT, stdin: bytes | None = None) -> Sample:
    """Run one child process to completion; its wall time and its own peak RSS (``wait4``)."""
    # Through /usr/bin/time when it exists: a child forked from this (possibly large) process
    # would otherwise count this process's pages in its peak RSS until it execs.
    wrapped = [TIME, "-f", f"{_RSS_MARK}%M", *command] if TIME else list(command)
    start = time.perf_counter()
    proc = subprocess.Popen(
        wrapped,
        cwd=cwd,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=QUIET_ENV,
    )
    if stdin is not None:
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
    assert proc.stderr is not None
    err = proc.stderr.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} ... failed ({proc.returncode}): {err.decode()[-2000:]}")
    peak = usage.ru_maxrss
    for line in reversed(err.decode(errors="replace").splitlines()):
        if line.startswith(_RSS_MARK):
            peak = int(line[len(_RSS_MARK) :])
            break
    return Sample(seconds, peak * 1024, usage.ru_utime + usage.ru_stime)


@dataclass
class Series:
    name: str
    samples: list[Sample] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return statistics.median(sample.seconds for sample in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(sample.cpu for sample in self.samples)

    @property
    def peak_rss(self) -> int:
        return max(sample.peak_rss for sample in self.samples)

    def line(self) -> str:
        spread = ", ".join(f"{sample.seconds:.2f}" for sample in self.samples)
        return (
            f"{self.name:<44} {self.seconds:7.2f} s  cpu {self.cpu:7.2f} s  peak RSS {self.peak_rss / 1e6:6.0f} MB"
            f"   (wall: {spread})"
        )


def _warm_bytecode() -> None:
    """Compile the package into the bench's bytecode cache once, so no measured run compiles it."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "generator")],
        check=True,
        env=QUIET_ENV,
        stdout=subprocess.DEVNULL,
    )


def interleaved(rounds: int, jobs: dict[str, Callable[[], Sample]]) -> dict[str, Series]:
    """Run every job once per round, in order, ``rounds`` times: load hits all figures alike."""
    series = {name: Series(name) for name in jobs}
    _warm_bytecode()
    print(f"({BYTECODE_NOTE})", flush=True)
    for number in range(rounds):
        for name, job in jobs.items():
            series[name].samples.append(job())
        print(f"  round {number + 1}/{rounds} done", file=sys.stderr, flush=True)
    return series


def _inventory(folder: Path) -> str:
    """The number of files and their total size below *folder* (the ``.complete`` marker left out)."""
    files = size = 0
    for parent, _dirs, names in os.walk(folder):
        for name in names:
            if name != ".complete":
                files += 1
                size += os.lstat(os.path.join(parent, name)).st_size
    return f"{files} files, {size} bytes\n"


def cached(name: str, make: Callable[[Path], None]) -> Path:
    """The cache folder ``name``, generated by ``make(folder)`` unless already complete.

    The ``.complete`` marker records how many files of what total size ``make`` left; a folder that
    no longer holds exactly that (part of it deleted or changed in size) is generated again rather
    than measured as it is.
    """
    folder = CACHE / name
    marker = folder / ".complete"
    if not (marker.exists() and marker.read_text() == _inventory(folder)):
        if folder.exists():
            remove(folder)
        folder.mkdir(parents=True)
        started = time.perf_counter()
        make(folder)
        marker.write_text(_inventory(folder))
        print(f"generated {folder} in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    return folder


# ------------------------------------------------------------------ deleting without slowing a build

#: How long a journal-less ext4 keeps a deleted inode "recent": ``vm.dirty_expire_centisecs`` (30 s by
#: default) plus the 5 s the kernel adds while the inode's block is dirty, and a second of margin.
_RECENT = 36.0
_DELETED_AT = CACHE / ".deleted-at"


def _journal_less_ext4(path: Path) -> bool:
    """Whether *path* lies on an ext4 filesystem mounted without a journal (no ``/proc/fs/jbd2`` entry).

    There, every new inode is first checked against the inode table for a deletion in the last ~30 s
    (``recently_deleted()`` in ``fs/ext4/ialloc.c``, only without a journal), and the allocator steps
    over each such inode one by one: right after 2,000 files were deleted, creating a file cost
    0.5-1 ms of kernel CPU on this sandbox's VM instead of 0.03 ms (``perf``: 58 % of the time in
    ``recently_deleted`` and the buffer lookup under it).
    """
    try:
        device = os.stat(path).st_dev
        with open("/proc/self/mountinfo") as handle:
            types = [
                line.split(" - ", 1)[1].split()[0]
                for line in handle
                if os.makedev(*(int(part) for part in line.split()[2].split(":"))) == device
            ]
        if types[-1:] != ["ext4"]:
            return False
        # the kernel's name for the device (vda, dm-0), as /proc/fs/ext4 and /proc/fs/jbd2 use it
        uevent = Path(f"/sys/dev/block/{os.major(device)}:{os.minor(device)}/uevent").read_text()
        name = next(line.split("=", 1)[1] for line in uevent.splitlines() if line.startswith("DEVNAME="))
        return Path(f"/proc/fs/ext4/{name}").exists() and not any(Path("/proc/fs/jbd2").glob(f"{name}-*"))
    except (OSError, ValueError, IndexError, StopIteration):
        return False


def remove(path: Path) -> None:
    """Delete the folder *path* and note when, so that :func:`settle` can wait the deletion out."""
    import shutil

    shutil.rmtree(path, ignore_errors=True)
    try:
        CACHE.mkdir(parents=True, exist_ok=True)
        _DELETED_AT.write_text(f"{time.time():.3f}\n")
    except OSError:
        pass


def settle(path: Path) -> None:
    """Before timing runs that create files under *path*: on a journal-less ext4, wait until no deletion
    by a bench script (:func:`remove`) is recent, so that the timed runs do not pay for deleting the last
    script's files.  A site build into a fresh folder in CI pays no such cost; a bench that deleted the
    previous site just before timing the next one measured up to 2 s of kernel time per 1,000 pages."""
    if not _journal_less_ext4(path):
        return
    try:
        deleted = float(_DELETED_AT.read_text())
    except (OSError, ValueError):
        return
    wait = deleted + _RECENT - time.time()
    if wait > 0:
        print(
            f"(waiting {wait:.0f} s: ext4 without a journal makes new files pay for recent deletions)",
            file=sys.stderr,
            flush=True,
        )
        time.sleep(wait)


def size_of(*folders: Path) -> int:
    return sum(path.stat().st_size for folder in folders for path in folder.rglob("*") if path.is_file())


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(item) for item in handle.read().split()]
    except OSError:
        return []


def _pss_kb(pid: int) -> int:
    """The proportional set size of one process (shared pages divided among their sharers), in KB."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_memory(command: Sequence[str], *, cwd: Path = ROOT, every: float = 0.1) -> tuple[int, int] | None:
    """One more (untimed) run of *command*: the peak over time of the summed PSS of it and all its
    descendants (pool workers, helpers), and the most processes seen at once; None without /proc.

    ``ru_maxrss`` (what :func:`run_child` reports) is the peak of the *largest single process*; a
    product that moves work into helper processes lowers it without lowering what the machine
    holds.  PSS counts a page shared by forked processes once in all, so the sum is what they hold
    together.  Sampled every *every* seconds: a peak shorter than that may be missed.
    """
    if not Path("/proc/self/smaps_rollup").exists():
        return None

    proc = subprocess.Popen(list(command), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=QUIET_ENV)
    watch = TreeWatch(proc.pid, every)
    proc.wait()
    peak, most = watch.stop()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} ... failed ({proc.returncode})")
    return peak, most


class TreeWatch:
    """The peak summed PSS (bytes) of process *pid* and all its descendants, and the most processes
    seen at once, sampled every *every* seconds by a thread from construction until :meth:`stop`."""

    def __init__(self, pid: int, every: float = 0.1) -> None:
        import threading

        self.pid, self.every = pid, every
        self.peak = self.most = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._done.is_set():
            pids, stack = [], [self.pid]
            while stack:
                pid = stack.pop()
                pids.append(pid)
                stack.extend(_children(pid))
            self.peak = max(self.peak, sum(_pss_kb(pid) for pid in pids))
            self.most = max(self.most, len(pids))
            self._done.wait(self.every)

    def stop(self) -> tuple[int, int]:
        """Stop sampling: (peak summed PSS in bytes, most processes at once)."""
        self._done.set()
        self._thread.join()
        return self.peak * 1024, self.most


def ratio_line(what: str, product: Series, floor: Series, target: str) -> str:
    """The wall-time ratio (the target), and the CPU-time ratio, which load on the machine moves less."""
    return f"ratio {what}: {product.seconds / floor.seconds:.2f}x wall ({target}); {product.cpu / floor.cpu:.2f}x cpu"
