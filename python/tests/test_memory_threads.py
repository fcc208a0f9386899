# SPDX-License-Identifier: Apache-2.0
"""Zero-copy key arrays (measured with tracemalloc, which sees numpy's allocations) and the GIL
released around batch calls."""

from __future__ import annotations

import ctypes
import threading
import time
import tracemalloc

import numpy as np

from blockbloom import Filter

N = 10_000_000  # 80 MB of uint64 keys


def peak_bytes(fn) -> int:
    """The peak of Python-visible (numpy included) allocations while fn runs, above the start."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del result
    return peak - base


def test_a_uint64_array_is_not_copied():
    keys = np.arange(N, dtype=np.uint64)
    f = Filter.for_keys(N, 0.01)
    insert_peak = peak_bytes(lambda: f.insert(keys))
    query_peak = peak_bytes(lambda: f.may_contain(keys))
    # A copy would cost 80 MB; the answer array is N bools (10 MB) and nothing else of size.
    assert insert_peak < 1_000_000, insert_peak
    assert N <= query_peak < N + 1_000_000, query_peak
    # int64 is viewed as uint64 (the same bytes), not copied either
    signed = keys.view(np.int64)
    assert peak_bytes(lambda: f.insert(signed)) < 1_000_000
    # the control: the same measurement does see the 80 MB conversion of an int32 array
    narrow = np.arange(N, dtype=np.int32)
    assert peak_bytes(lambda: f.insert(narrow)) >= 8 * N
    assert f.may_contain(keys).all()


def test_the_answer_array_is_the_only_allocation_for_strings():
    keys = np.array([f"k{i}" for i in range(100_000)], dtype="S")
    f = Filter.for_keys(100_000, 0.01)
    f.insert(keys)
    peak = peak_bytes(lambda: f.may_contain(keys))
    assert peak < 100_000 + 100_000  # answers + slack; the 'S' array is read in place


def probes_during(long_call, probe) -> tuple[int, bool]:
    """Runs long_call in a thread and probe() here meanwhile: (probes made, still busy after 50).
    A call that holds the GIL lets this thread make no probe until it returns."""
    started, done = threading.Event(), threading.Event()

    def run():
        started.set()
        long_call()
        done.set()

    worker = threading.Thread(target=run)
    worker.start()
    started.wait()
    time.sleep(0.01)  # yield the GIL so that the worker enters its call
    probes = 0
    while not done.is_set() and probes < 50:
        probe()
        probes += 1
    busy_at_end = not done.is_set()
    worker.join()
    return probes, busy_at_end


def test_batch_calls_release_the_gil():
    keys = np.arange(50_000_000, dtype=np.uint64)
    big = Filter.for_keys(len(keys), 0.01)
    small = Filter.for_keys(10, 0.01)
    four = np.arange(4, dtype=np.uint64)
    assert probes_during(lambda: big.insert(keys), lambda: small.may_contain(four)) == (50, True)
    assert big.inserted == len(keys)
    assert probes_during(lambda: big.may_contain(keys), lambda: small.may_contain(four)) == (50, True)
    # The control: the same harness around a C call that keeps the GIL (ctypes.PyDLL does not
    # release it) sees no probe while the call runs.
    libc = ctypes.PyDLL(None)
    probes, busy = probes_during(lambda: libc.usleep(300_000), lambda: small.may_contain(four))
    assert not busy and probes < 50


def test_threads_inserting_and_probing_one_filter_agree_with_one_thread():
    parts = [np.random.default_rng(i).integers(0, 2**64, 200_000, dtype=np.uint64) for i in range(4)]
    shared = Filter.for_keys(800_000, 0.01)
    threads = [threading.Thread(target=shared.insert, args=(p,)) for p in parts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    alone = Filter.for_keys(800_000, 0.01)
    for p in parts:
        alone.insert(p)
    assert shared == alone and shared.inserted == 800_000
    results = [None] * 4

    def probe(i):
        results[i] = shared.may_contain(parts[i])

    threads = [threading.Thread(target=probe, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.all() for r in results)
