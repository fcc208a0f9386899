# SPDX-License-Identifier: Apache-2.0
"""blockbloom over Dask: one filter per partition, merged by union; probes against one shared filter.

    import dask.array as da, blockbloom.dask
    keys = da.arange(100_000_000, dtype="uint64", chunks=5_000_000)
    f = blockbloom.dask.build(keys, n=100_000_000, fpr=0.01)   # a blockbloom.Filter
    hits = blockbloom.dask.may_contain(keys, f)                # a Dask bool array, same chunks

Every partition's filter has the same parameters (Filter.for_keys(n, fpr, ...) with the total n), so
their union (bitwise OR, a tree reduction) is exactly the filter one process would build from all
the keys: the same bytes. Works on the local schedulers and on dask.distributed; with a distributed
Client the probe filter is scattered to the workers once (broadcast), otherwise it enters the graph
once as a delayed object, and either way it is not pickled per task.

Collections: a Dask array (any shape; integer, 'S' or 'U' dtype), a Dask bag (of int, str or bytes),
or one Dask dataframe column (a Series: integer or string). Integer keys are hashed as their 8-byte
uint64 value (negative values wrap modulo 2**64), strings as their UTF-8 bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from dask.delayed import Delayed, delayed

from . import Filter

__all__ = ["build", "may_contain", "share"]


def _dataframe_module():
    try:
        import dask.dataframe as dd
    except ImportError:  # pandas missing: arrays and bags still work
        return None
    return dd


def _keys(part: Any):
    """A partition as something Filter.insert / may_contain take."""
    if isinstance(part, (np.ndarray, list, tuple)):
        return part
    to_numpy = getattr(part, "to_numpy", None)
    if to_numpy is not None:  # pandas Series / Index
        return to_numpy()
    return list(part)  # a bag partition may be any iterable


def _build_partition(n: int, fpr: float, layout: str, hash: str, seed: int, *parts: Any) -> Filter:
    f = Filter.for_keys(n, fpr, layout=layout, hash=hash, seed=seed)
    for part in parts:
        f.insert(_keys(part))
    return f


def _union(*filters: Filter) -> Filter:
    out = filters[0].copy()  # never mutate a task's result in place
    for g in filters[1:]:
        out |= g
    return out


def _partitions(collection: Any) -> list:
    import dask.array as da
    import dask.bag as db

    dd = _dataframe_module()
    if isinstance(collection, da.Array):
        return list(collection.to_delayed().ravel())
    if isinstance(collection, db.Bag):
        return list(collection.to_delayed())
    if dd is not None:
        if isinstance(collection, dd.DataFrame):
            raise TypeError("blockbloom.dask: pass one column of the dataframe (df['key']), not the whole frame")
        if isinstance(collection, (dd.Series, dd.Index)):
            return list(collection.to_delayed())
    raise TypeError(
        f"blockbloom.dask: a {type(collection).__name__} is not a Dask array, bag or dataframe column"
    )


def build(
    collection: Any,
    n: int,
    fpr: float,
    layout: str = "blocked512",
    hash: str = "xxh3",
    seed: int = 0,
    *,
    split_every: int = 8,
    partitions_per_filter: int = 1,
    compute: bool = True,
) -> Filter | Delayed:
    """The filter of every key in `collection`: one filter per partition, OR-merged in a tree.

    n is the total number of keys the filter is sized for (Filter.for_keys(n, fpr, layout, hash, seed)
    is built per partition, so every partial filter is compatible). split_every is the fan-in of the
    tree reduction. partitions_per_filter > 1 inserts that many consecutive partitions into one
    filter (one task): fewer full-size filters to allocate, pickle, ship and OR -- each is sized for
    all n keys -- at the price of moving those partitions to one worker. Returns the Filter, or with
    compute=False the Delayed that computes it.
    """
    if split_every < 2:
        raise ValueError(f"blockbloom.dask: split_every = {split_every} is out of range: expected >= 2")
    if partitions_per_filter < 1:
        raise ValueError(
            f"blockbloom.dask: partitions_per_filter = {partitions_per_filter} is out of range: expected >= 1"
        )
    Filter.for_keys(n, fpr, layout=layout, hash=hash, seed=seed)  # bad parameters fail here, not on a worker
    build_part = delayed(_build_partition, pure=True)
    union = delayed(_union, pure=True)
    parts = _partitions(collection)
    g = partitions_per_filter
    level = [build_part(n, fpr, layout, hash, seed, *parts[i : i + g]) for i in range(0, len(parts), g)]
    if not level:
        level = [delayed(Filter.for_keys, pure=True)(n, fpr, layout=layout, hash=hash, seed=seed)]
    while len(level) > 1:
        level = [union(*level[i : i + split_every]) for i in range(0, len(level), split_every)]
    result = level[0]
    return result.compute() if compute else result


def share(f: Any) -> Any:
    """f made ready to be passed to many tasks without being pickled per task.

    With a dask.distributed Client current: the filter scattered to every worker (a Future, broadcast).
    Otherwise: a Delayed holding it (it enters the graph once). Futures and Delayed pass through.
    """
    if isinstance(f, Delayed):
        return f
    try:
        from distributed import Future, get_client
    except ImportError:
        return delayed(f, pure=True)
    if isinstance(f, Future):
        return f
    try:
        client = get_client()
    except ValueError:  # no client: the local schedulers
        return delayed(f, pure=True)
    return client.scatter(f, broadcast=True, hash=False)


def _probe_block(block: np.ndarray, f: Filter) -> np.ndarray:
    return f.may_contain(block)


def _probe_partition(part: Any, f: Filter) -> list:
    return f.may_contain(_keys(part)).tolist()


def _probe_series(part: Any, f: Filter):
    import pandas as pd

    return pd.Series(f.may_contain(_keys(part)), index=part.index, name=part.name, dtype=bool)


def may_contain(collection: Any, f: Any) -> Any:
    """Probes every key of `collection` against the filter f; a collection of the same shape.

    Dask array -> bool array with the same chunks; bag -> bag of bools; Series -> bool Series with
    the same index and divisions. f: a Filter (shared once, see share()), or an already shared
    Future / Delayed of one. Lazy: call .compute() on the result.
    """
    import dask.array as da
    import dask.bag as db

    dd = _dataframe_module()
    shared = share(f)
    if isinstance(collection, da.Array):
        return collection.map_blocks(_probe_block, shared, dtype=bool, meta=np.empty((0,) * collection.ndim, dtype=bool))
    if isinstance(collection, db.Bag):
        return collection.map_partitions(_probe_partition, shared)
    if dd is not None and isinstance(collection, dd.Series):
        import pandas as pd

        meta = pd.Series([], dtype=bool, name=collection.name)
        return collection.map_partitions(_probe_series, shared, meta=meta)
    _partitions(collection)  # raises the TypeError naming what is accepted
    raise TypeError(f"blockbloom.dask: cannot probe a {type(collection).__name__}")
