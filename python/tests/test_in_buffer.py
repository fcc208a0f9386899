# SPDX-License-Identifier: Apache-2.0
"""Filter.in_buffer: a filter over the caller's writable memory (numpy, mmap, shared memory)."""
import mmap
from multiprocessing import shared_memory

import numpy as np
import pytest

import blockbloom


def aligned(nbytes, extra=0):
    """A numpy uint8 view of nbytes whose address is a multiple of REQUIRED_ALIGNMENT (plus `extra`)."""
    raw = np.zeros(nbytes + 2 * blockbloom.REQUIRED_ALIGNMENT, dtype=np.uint8)
    off = (-raw.ctypes.data) % blockbloom.REQUIRED_ALIGNMENT + extra
    return raw, raw[off:off + nbytes]


KEYS = np.arange(1, 20_001, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
PROBES = ~KEYS


@pytest.mark.parametrize("layout,k", [("blocked512", 6), ("split256", 8), ("sectorized512", 8),
                                      ("register64", 5), ("classic", 7), ("split512", 8)])
def test_a_buffer_filter_is_the_owning_filter_bit_for_bit(layout, k):
    blocks = 100_003 if layout == "classic" else 1000  # whole 64-byte lines: with_bytes(n) has as many
    n = blockbloom.required_bytes(layout, blocks)
    raw, buf = aligned(n)
    f = blockbloom.Filter.in_buffer(buf, blocks, k, layout=layout, seed=3)
    g = blockbloom.Filter.with_bytes(n, k, layout=layout, seed=3) if layout != "classic" else None
    assert not f.owns_memory
    f.insert(KEYS)
    f.insert("a string key")
    assert f.may_contain(KEYS).all() and "a string key" in f
    # The bits are the buffer's: what the filter wrote is in the caller's array, and equal to a
    # filter built the ordinary way from the same keys.
    assert bytes(memoryview(f)) == buf.tobytes()
    if g is not None and g.nbytes == f.nbytes:
        g.insert(KEYS)
        g.insert("a string key")
        assert g.to_bytes() == f.to_bytes()
        assert (g.may_contain(PROBES) == f.may_contain(PROBES)).all()
    # Nothing outside the buffer was written.
    start = buf.ctypes.data - raw.ctypes.data
    assert not raw[:start].any() and not raw[start + n:].any()
    # Reattached with clear=False the bits answer as before; the file round-trips.
    again = blockbloom.Filter.in_buffer(buf, blocks, k, layout=layout, seed=3, clear=False, inserted=f.inserted)
    assert again.may_contain(KEYS).all() and again.inserted == f.inserted
    assert blockbloom.Filter.from_bytes(again.to_bytes()).to_bytes() == f.to_bytes()


def test_mmap_and_shared_memory_hold_the_filter_across_views():
    n = blockbloom.required_bytes("blocked512", 64)
    m = mmap.mmap(-1, n)
    f = blockbloom.Filter.in_buffer(m, 64, 6)
    f.insert(KEYS[:500])
    with pytest.raises(BufferError):
        m.close()  # held while the filter lives
    shm = shared_memory.SharedMemory(create=True, size=n)
    try:
        writer = blockbloom.Filter.in_buffer(shm.buf, 64, 6)
        writer.insert(KEYS[:500])
        other = shared_memory.SharedMemory(name=shm.name)  # as another process attaches
        reader = blockbloom.Filter.in_buffer(other.buf, 64, 6, clear=False)
        assert reader.may_contain(KEYS[:500]).all()
        assert bytes(memoryview(reader)) == bytes(memoryview(f))
        del reader, writer
        other.close()
    finally:
        shm.close()
        shm.unlink()
    del f
    m.close()


def test_bad_buffers_are_refused_with_what_was_expected():
    n = blockbloom.required_bytes("split256", 10)
    assert n == 320
    with pytest.raises(ValueError, match="read-only or not contiguous"):
        blockbloom.Filter.in_buffer(bytes(n), 10, 8, layout="split256")
    _, short = aligned(n - 1)
    with pytest.raises(ValueError, match="buffer = 319 bytes is too small.*RequiredBytes = 320"):
        blockbloom.Filter.in_buffer(short, 10, 8, layout="split256")
    raw, skew = aligned(n, extra=8)
    with pytest.raises(ValueError, match="is not aligned: expected a multiple of 64"):
        blockbloom.Filter.in_buffer(skew, 10, 8, layout="split256")
    assert not raw.any()  # nothing written by a refused call
    _, ok = aligned(2 * n)
    with pytest.raises(ValueError, match="not contiguous"):
        blockbloom.Filter.in_buffer(ok[::2], 10, 8, layout="split256")
    with pytest.raises(ValueError, match="k = 7"):
        blockbloom.Filter.in_buffer(ok, 10, 7, layout="split256")
