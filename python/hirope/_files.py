"""The one way the package reads a file a person names: a regular file only, of at most a limit.

The kind and size are checked before the file is opened (a FIFO is never opened, so nothing
blocks; a device is never read, so /dev/zero cannot fill memory) and again on the open file,
which is opened without blocking in case the path was swapped for a FIFO in between; the read
stops one byte past the limit, so a file that grew since is refused without being held.
Pure Python (no native module): the Dask job's workers read with it before importing hirope.
"""

from __future__ import annotations

import os
import stat
from typing import Optional, Union

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def file_kind(mode: int) -> str:
    """What a file that is not regular is ('a FIFO', 'a character device', ...)."""
    return next((what for test, what in _KINDS if test(mode)), "of an unknown kind")


class Unreadable(Exception):
    """Why a file was not read. reason: 'kind' (detail: file_kind's words), 'size' (detail: its
    size in bytes, over the limit, or None where only "more than the limit" is known) or 'os' (detail: the system's message, e.g. 'No such file or
    directory')."""

    def __init__(self, reason: str, detail: Union[str, int, None]):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def _os_error(e: OSError) -> Unreadable:
    return Unreadable("os", e.strerror or str(e))


def read_regular(path: Union[str, "os.PathLike[str]"], limit: Optional[int]) -> bytes:
    """The bytes of the regular file at path, at most limit of them (None: any size). Raises
    Unreadable."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise Unreadable("kind", file_kind(st.st_mode))
        if limit is not None and st.st_size > limit:
            raise Unreadable("size", st.st_size)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise _os_error(e) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Unreadable("kind", file_kind(st.st_mode))
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read() if limit is None else f.read(limit + 1)
        if limit is not None and len(data) > limit:
            # It grew since, or it is a kernel pseudo-file whose size says 0: more than the limit.
            raise Unreadable("size", None)
        return data
    except OSError as e:
        raise _os_error(e) from None
    finally:
        os.close(fd)
