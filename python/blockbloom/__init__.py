# SPDX-License-Identifier: Apache-2.0
"""blockbloom: SIMD cache-line-blocked Bloom filters over numpy.

    import numpy as np, blockbloom
    f = blockbloom.Filter.for_keys(1_000_000, 0.01)        # sized by the exact model
    f.insert(np.arange(1_000_000, dtype=np.uint64))         # no copy of the array, GIL released
    hits = f.may_contain(np.array([5, 2**40], np.uint64))   # numpy bool array
    "https://example.com/" in f                             # one key: str, bytes or int

The compiled core (blockbloom._core) links the C++ library and dispatches the same SIMD
targets (targets(), pin_target(), active_target()). Filters pickle through the checksummed
file format; blockbloom.dask builds and probes them across a Dask cluster.
"""

from __future__ import annotations

import os as _os

from ._core import (
    REQUIRED_ALIGNMENT,
    Filter,
    FilterView,
    FormatError,
    active_target,
    hash_key,
    layouts,
    may_contain_hash_many,
    may_contain_many,
    params as _params,
    pin_target,
    predict_fpr,
    required_bytes,
    read_rocksdb_sst,
    targets,
)
from ._core import __version__  # the C++ library's version (CMake's project version)

__all__ = [
    "REQUIRED_ALIGNMENT",
    "Filter",
    "FilterView",
    "FormatError",
    "active_target",
    "hash_key",
    "layouts",
    "load",
    "may_contain_hash_many",
    "may_contain_many",
    "open",
    "params",
    "pin_target",
    "predict_fpr",
    "required_bytes",
    "read_rocksdb_sst",
    "supported_targets",
    "targets",
]

def _from_bytes(data: bytes) -> Filter:
    """Unpickles a Filter (or a FilterView, which unpickles as a Filter) from its file bytes."""
    return Filter.from_bytes(data)


def _reduce(self):
    # Pickles through the checksummed file format: a filter crosses processes byte for byte.
    return (_from_bytes, (self.to_bytes(),))


Filter.__reduce__ = _reduce
FilterView.__reduce__ = _reduce
FormatError.__module__ = "blockbloom"


def params(n: int, fpr: float, layout: str | None = "blocked512"):
    """Size a filter by the exact model: the smallest filter whose rate for n keys is at most fpr.

    Returns a dict (layout, num_blocks, k, bits, nbytes, bits_per_key, fpr); with layout=None,
    a dict of such dicts keyed by every layout's name (what `blockbloom params` prints).
    """
    if layout is None:
        return {name: _params(n, fpr, name) for name in layouts()}
    return _params(n, fpr, layout)


def load(path: str | bytes | _os.PathLike) -> Filter:
    """Filter.load: read and validate a filter file into memory.

    Paths are taken as open() takes them (os.fsencode: any bytes, UTF-8 or not); a path with a
    NUL byte raises ValueError("embedded null byte"), as open() does.
    """
    return Filter.load(_os.fspath(path))


def open(path: str | bytes | _os.PathLike) -> FilterView:  # noqa: A001 - mirrors Filter.open
    """Filter.open: map a filter file read-only (FilterView), queried in place (paths as load())."""
    return Filter.open(_os.fspath(path))


def supported_targets() -> list[str]:
    """The names of the compiled SIMD targets this CPU can run, best first."""
    return [name for name, ok in targets() if ok]
