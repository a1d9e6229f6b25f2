"""Reading the training's stored arrays (model files, linear_N.npy, positions_N.npz) with
nothing taken on trust: the file must be a regular file no larger than its kind can be;
an npz is opened as a zip archive and only the members its layout names are read (any
other member is ignored, never decompressed); a member's npy header is checked (dtype,
number of dimensions, size) before its data is read, so a header claiming a huge array
allocates nothing; pickled (object) arrays are never loaded. Every problem is one line of
the caller's error class naming the file; numpy's own messages (which may advise
``allow_pickle``) are never shown.

A member's spec is (dtype kinds, number of dimensions, most elements[, most characters]),
e.g. ("f", 1, 100): a 1-D float array of at most 100 numbers; kinds "i" integers, "f"
floats, "U" text (of at most 256 characters an element unless told); the dimensions may
be a tuple of the numbers allowed.
"""
from __future__ import annotations

import os
import zipfile
from pathlib import Path

import numpy as np

from fishing2sim.safe_files import FileSafetyError, open_regular

MAX_HEADER = 4096  # an npy header of ours is < 200 bytes
MEMBER_OVERHEAD = 2 * 1024  # zip local and central headers, npy header, per member


def max_npz_bytes(specs: dict) -> int:
    """The largest an npz of these members can be (uncompressed, with their headers)."""
    return sum(_max_member_bytes(s) + MEMBER_OVERHEAD for s in specs.values()) + 4096


def _max_member_bytes(spec) -> int:
    kinds, _, most = spec[:3]
    return most * (8 if kinds != "U" else 4 * spec_chars(spec))


def spec_chars(spec) -> int:
    """The most characters of one text element (a "U" member's 4th entry, default 256)."""
    return spec[3] if len(spec) > 3 else 256


def read_npy(path, spec, error, what: str) -> np.ndarray:
    """The one array of an npy file, checked against ``spec``."""
    path = Path(path)
    f = _open(path, _max_member_bytes(spec) + MAX_HEADER, error, what)
    with f:
        return _read_member(f, spec, None, error, f"{what} {path}")


def read_npz(path, specs: dict, error, what: str, kind: str, required=None,
             limit: int | None = None) -> dict:
    """The members of an npz file that ``specs`` names (name -> spec), checked; those in
    ``required`` (default: all) must be there; others are never read. ``what`` names the
    file ("model file"), ``kind`` what it should be ("skilled model")."""
    path = Path(path)
    where = f"{what} {path}"
    f = _open(path, limit or max_npz_bytes(specs), error, what)
    out = {}
    with f:
        try:
            z = zipfile.ZipFile(f)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError):
            raise error(f"{where} cannot be read as an npz {kind.split()[-1]} (not a zip "
                        "archive: damaged, truncated or foreign)") from None
        with z:
            infos = {}
            for info in z.infolist():
                name = info.filename[:-4] if info.filename.endswith(".npy") else None
                if name in specs and name not in infos:
                    infos[name] = info
            for name in (specs if required is None else required):
                if name not in infos:
                    raise error(f"{where} is not a {kind} (no '{name}' array)")
            for name, info in infos.items():
                try:
                    member = z.open(info)
                except (zipfile.BadZipFile, NotImplementedError, OSError, EOFError,
                        ValueError, RuntimeError) as exc:
                    raise error(f"{where}: its '{name}' array cannot be read "
                                f"({_reason(exc)})") from None
                with member:
                    out[name] = _read_member(member, specs[name], info.file_size, error,
                                             f"{where}: its '{name}' array")
    return out


def _open(path: Path, limit: int, error, what: str):
    try:
        fd = open_regular(path, what=what)
    except FileSafetyError as exc:
        raise error(str(exc)) from None
    size = os.fstat(fd).st_size
    if size > limit:
        os.close(fd)
        raise error(f"{what} {path} has {size:,} bytes, more than a {what} can have "
                    f"({limit:,}); it is not read")
    return os.fdopen(fd, "rb")


def _reason(exc: BaseException) -> str:
    if isinstance(exc, (zipfile.BadZipFile, EOFError)):
        return "damaged or truncated"
    if isinstance(exc, NotImplementedError):
        return "an unknown compression"
    return type(exc).__name__


def _read_member(f, spec, size, error, where: str) -> np.ndarray:
    """One npy array from the file object ``f`` (``size``: its bytes, if known)."""
    kinds, ndim, most = spec[:3]
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(
                f, max_header_size=MAX_HEADER)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(
                f, max_header_size=MAX_HEADER)
        else:
            raise ValueError
    except Exception:  # not an npy array: numpy's message is not shown (allow_pickle)
        raise error(f"{where} is not a numpy array of numbers or text (damaged, "
                    "truncated or foreign)") from None
    dims = ndim if isinstance(ndim, tuple) else (ndim,)
    if dtype.hasobject or dtype.kind not in kinds or len(shape) not in dims \
            or (dtype.kind == "U" and dtype.itemsize > 4 * spec_chars(spec)):
        raise error(f"{where} is {dtype} of {len(shape)} dimension(s); expected "
                    f"{_kinds_text(kinds)} of {' or '.join(map(str, dims))}")
    count = int(np.prod(shape, dtype=object)) if shape else 1
    if count > most:
        raise error(f"{where} has {count:,} elements, more than the {most:,} it can have")
    nbytes = count * dtype.itemsize
    if size is not None and nbytes > size:
        raise error(f"{where} is truncated ({size:,} bytes for {nbytes:,} of data)")
    arr = np.empty(count, dtype)
    if nbytes:
        buf = arr.view(np.uint8)
        got = 0
        try:
            while got < nbytes:
                n = f.readinto(buf[got:])
                if not n:
                    break
                got += n
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
            raise error(f"{where} cannot be read ({_reason(exc)})") from None
        if got < nbytes:
            raise error(f"{where} is truncated ({got:,} of {nbytes:,} bytes)")
    if not dtype.isnative:
        arr = arr.astype(dtype.newbyteorder("="))
    return arr.reshape(shape, order="F" if fortran else "C")


def _kinds_text(kinds: str) -> str:
    return " or ".join({"i": "integers", "f": "floats", "U": "text"}[k] for k in kinds)
