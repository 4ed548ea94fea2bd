"""Every output a command writes follows the same rules (docs/architecture.md, "Outputs"):

- missing parent folders are created;
- an output that exists is refused with one line, unless the user said ``--force`` (replace it)
  or ``--resume`` (finish it);
- one run at a time per output: ``claim_output`` takes an OS lock (``fcntl.flock``) on a file
  beside the output, ``.<name>.lock``, that the kernel releases when the process ends however
  it ends (even SIGKILL), so a second run on the same output refuses at start and a dead run
  never blocks the next one;
- a write that fails (no permission, read-only, disk full) is one line naming the path and the
  reason (``write_failure``), never a traceback.

Results themselves appear complete or not at all: they are staged beside the target and
renamed into place (the driver for run files, ``analysis.page`` for report folders).
"""
from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from simcore.errors import BalanceError

REASONS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOTDIR: "a part of the path is a file, not a directory",
    errno.ENOENT: "no such folder",
}


def reason(exc: BaseException) -> str:
    """The cause of a failed write in a few words ('the disk is full', 'permission denied')."""
    code = getattr(exc, "errno", None)
    if code in REASONS:
        return REASONS[code]
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    # Polars wraps the OS error in its own text: find the cause in it
    lowered = text.lower()
    if "no space left" in lowered or "os error 28" in lowered:
        return REASONS[errno.ENOSPC]
    if "read-only file system" in lowered or "os error 30" in lowered:
        return REASONS[errno.EROFS]
    if "permission denied" in lowered or "os error 13" in lowered:
        return REASONS[errno.EACCES]
    return " ".join(text.split())[:200]


def write_failure(path, exc: BaseException, kept: str = "") -> BalanceError:
    """One line for a write that failed: what, where, why, and what was kept."""
    return BalanceError(f"cannot write {path}: {reason(exc)}" + (f"; {kept}" if kept else ""))


def make_parents(path: Path) -> None:
    """Create the folders above ``path`` (one line if that is impossible)."""
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):  # a file stands where a folder must be
        blocker = next((p for p in (parent, *parent.parents) if p.exists() and not p.is_dir()), parent)
        raise BalanceError(f"cannot create folder {parent}: {blocker} is not a directory") from None
    except OSError as exc:
        raise BalanceError(f"cannot create folder {parent}: {reason(exc)}") from None
    if not parent.is_dir():
        raise BalanceError(f"output folder {parent} is not a folder")


def write_atomic(path: str | Path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` complete or not at all: staged in a hidden file beside it (this
    process's own name) and renamed into place, so a reader or a crash never sees half a file."""
    path = Path(path)
    staged = path.parent / f".{path.name}.{os.getpid()}.tmp"
    try:
        staged.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(staged, path)
    finally:
        staged.unlink(missing_ok=True)


def lock_path(target: Path) -> Path:
    return target.parent / f".{target.name}.lock"


class OutputLock:
    """An exclusive OS lock on ``.<name>.lock`` beside ``target`` for as long as a run writes it.

    The lock is on the open file, so the kernel drops it when the process ends, however it
    ends.  The lock file is removed on release; a process that opened the file just before
    that removal finds the path gone or pointing at a new file and tries again, so two
    processes can never both hold a lock for one target."""

    def __init__(self, target: Path):
        self.target = target
        self.path = lock_path(target)
        self.fd: int | None = None

    def acquire(self) -> "OutputLock":
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise BalanceError(f"cannot write to {self.path.parent}: {reason(exc)}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                holder = _read_pid(fd)
                os.close(fd)
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise BalanceError(f"cannot lock {self.path}: {reason(exc)}") from None
                who = f" (process {holder})" if holder else ""
                raise BalanceError(f"{self.target} is being written by another balance run{who}: wait for it to "
                                   "finish or choose another output") from None
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # the holder released and removed it between our open and our lock
                os.close(fd)
                continue
            try:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
            except OSError:
                pass  # the pid is only a courtesy for the message above
            self.fd = fd
            return self

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()
        return False


def _read_pid(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode().strip()
    except (OSError, UnicodeDecodeError):
        return ""
    return text if text.isdigit() else ""


def claim_output(target: str | Path, *, folder: bool = False, force: bool = False, resume: bool = False,
                 option: str = "--out", is_run=None) -> OutputLock:
    """Make ``target``'s parent folders, lock it for this process, and refuse it if it exists
    (a report folder: exists and is not empty) unless ``force`` or ``resume``.  ``is_run(path)``
    (for a run, which is a folder of parts: ``simcore.parts.is_run_folder``) says whether a
    folder at ``target`` is an earlier output that may be replaced or finished.  Returns the
    held lock; release it when the output is complete (a ``with`` block)."""
    target = Path(target)
    if force and resume:
        raise BalanceError("--force starts again and --resume continues: give one of them, not both")
    make_parents(target)
    if folder:
        if target.exists() and not target.is_dir():
            raise BalanceError(f"{target} exists and is not a directory")
    elif target.is_dir() and not (is_run is not None and is_run(target)):
        raise BalanceError(f"{option} {target} is a folder: give a file name such as {target / 'run.parquet'}")
    elif target.exists() and not (target.is_file() or target.is_dir()):
        raise BalanceError(f"{option} {target} exists and is not a regular file")
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise BalanceError(f"cannot write to {target.parent}: permission denied")
    lock = OutputLock(target).acquire()
    try:
        exists = target.exists() and (not folder or any(target.iterdir()))
        if exists and not (force or resume):
            what = "report folder" if folder else "run" if target.is_dir() else "file"
            hint = "--force to replace it" + ("" if folder else ", or --resume to finish an interrupted run")
            raise BalanceError(f"{option} {target}: the {what} exists; add {hint}")
    except BaseException:
        lock.release()
        raise
    return lock
