# SPDX-License-Identifier: Apache-2.0
"""Intersection (f & g), answers from precomputed hashes, the bits / indices output forms and
may_contain_many, on every SIMD target this CPU runs: each equal to the byte loop it replaces."""

from __future__ import annotations

import numpy as np
import pytest

import blockbloom
from blockbloom import Filter

LAYOUTS = blockbloom.layouts()
SIZES = [0, 1, 63, 64, 65, 511, 512, 513, 4097]
K = {"blocked512": 6, "split256": 8, "register64": 4, "sectorized512": 8, "classic": 7, "split512": 8}  # each layout accepts its k


def keys_u64(n: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**64, size=n, dtype=np.uint64)


def hashes_of(keys: np.ndarray, f) -> np.ndarray:
    return np.array([blockbloom.hash_key(int(k), f.hash, f.seed) for k in keys], dtype=np.uint64)


def bits_of(answers: np.ndarray) -> np.ndarray:
    """The bitmap contract by hand: bit i % 64 of word i // 64 is answer i (LSB-first)."""
    words = np.zeros((len(answers) + 63) // 64, dtype=np.uint64)
    for i in np.flatnonzero(answers):
        words[i // 64] |= np.uint64(1) << np.uint64(i % 64)
    return words


# ---- Intersection ------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_and_is_the_bitwise_and_and_keeps_the_keys_of_both(target, layout):
    a_only, b_only, both = keys_u64(3000, 1), keys_u64(3000, 2), keys_u64(1500, 3)
    a = Filter.with_bytes(16384, K[layout], layout=layout, seed=4)
    b = Filter.with_bytes(16384, K[layout], layout=layout, seed=4)
    a.insert(a_only)
    a.insert(both)
    b.insert(b_only)
    b.insert(both)
    ab = a & b
    want = np.frombuffer(bytes(memoryview(a)), np.uint8) & np.frombuffer(bytes(memoryview(b)), np.uint8)
    assert np.array_equal(np.frombuffer(bytes(memoryview(ab)), np.uint8), want)
    assert ab.may_contain(both).all()
    assert ab.inserted == min(a.inserted, b.inserted)
    absent = keys_u64(100_000, 5)
    ra, rb, rab = a.may_contain(absent), b.may_contain(absent), ab.may_contain(absent)
    assert not (rab & ~(ra & rb)).any()
    assert rab.sum() < min(ra.sum(), rb.sum())
    c = a.copy()
    c &= b
    assert c == ab
    d = a.copy()
    d.intersect(blockbloom.Filter.from_bytes(b.to_bytes()))
    assert d == ab


def test_and_refuses_incompatible_filters():
    a = Filter.with_bytes(1024, 5)
    a.insert([1, 2, 3])
    before = a.copy()
    with pytest.raises(ValueError, match="cannot intersect filters: k differs: 5 vs 6"):
        a &= Filter.with_bytes(1024, 6)
    with pytest.raises(ValueError, match="seed differs: 0 vs 3"):
        a & Filter.with_bytes(1024, 5, seed=3)
    with pytest.raises(TypeError, match="intersect takes a blockbloom.Filter or FilterView, not a int"):
        a.intersect(3)
    assert a == before


def test_and_with_a_mapped_file(tmp_path):
    a, b = Filter.with_bytes(2048, 6), Filter.with_bytes(2048, 6)
    a.insert([1, 2, 3, 4])
    b.insert([3, 4, 5])
    b.save(tmp_path / "b.bbf")
    ab = a & blockbloom.open(tmp_path / "b.bbf")
    assert ab == a & b
    assert ab.may_contain([3, 4]).all()


# ---- Precomputed hashes and the output forms ---------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_hash_forms_equal_the_key_loop(target, layout):
    f = Filter.for_keys(2000, 0.05, layout=layout, hash="xxh64", seed=7)
    present = keys_u64(2000, 8)
    f.insert(present)
    for n in SIZES:
        keys = keys_u64(n, 100 + n)
        keys[::2] = np.resize(present, len(keys[::2]))
        want = np.array([f.may_contain(int(k)) for k in keys], dtype=bool)
        h = hashes_of(keys, f)
        assert np.array_equal(f.may_contain_hash(h), want)
        out = np.zeros(n, np.uint8)
        assert f.may_contain_hash(h, out) is out
        assert np.array_equal(out.astype(bool), want)
        assert np.array_equal(f.may_contain_hash(h, output="bits"), bits_of(want))
        assert np.array_equal(f.may_contain(keys, output="bits"), bits_of(want))
        idx = f.may_contain_hash(h, output="indices")
        assert idx.dtype == np.uint32
        assert np.array_equal(idx, np.flatnonzero(want))
        assert np.array_equal(f.may_contain(keys, output="indices"), np.flatnonzero(want))
        strs = [f"k{k % 997}" for k in keys]
        want_s = np.array([f.may_contain(s) for s in strs], dtype=bool)
        assert np.array_equal(f.may_contain(strs, output="indices"), np.flatnonzero(want_s))


def test_output_forms_refuse_bad_arguments():
    f = Filter.with_bytes(1024, 6)
    with pytest.raises(ValueError, match="output = 'bytes' is unknown: expected 'bool', 'bits' or 'indices'"):
        f.may_contain([1, 2], output="bytes")
    with pytest.raises(TypeError, match="needs a batch of keys"):
        f.may_contain(1, output="bits")
    with pytest.raises(TypeError, match="hashes of dtype float64: expected a uint64 array"):
        f.may_contain_hash(np.array([1.5]))
    with pytest.raises(ValueError, match="bool or uint8 array of 2 elements"):
        f.may_contain_hash(np.array([1, 2], np.uint64), np.zeros(3, np.uint8))
    with pytest.raises(TypeError, match="out= goes with output='bool' only"):
        f.may_contain_hash(np.array([1, 2], np.uint64), np.zeros(2, np.uint8), output="bits")


# ---- Many filters ---------------------------------------------------------------------------------


def mixed_filters(tmp_path, hash="xxh3", seed=11):
    present = keys_u64(3000, 20)
    fs = []
    for j, layout in enumerate(LAYOUTS):
        f = Filter.with_bytes(2048 * (j + 1), K[layout], layout=layout, hash=hash, seed=seed)
        f.insert(present[j :: j + 2])
        fs.append(f)
    fs[0].save(tmp_path / "mapped.bbf")
    fs.append(blockbloom.open(tmp_path / "mapped.bbf"))
    return fs, present


def test_many_equals_the_loop(target, tmp_path):
    fs, present = mixed_filters(tmp_path)
    for n in SIZES:
        keys = keys_u64(n, 200 + n)
        keys[::2] = np.resize(present, len(keys[::2]))
        want = np.stack([f.may_contain(keys) for f in fs], axis=1) if n else np.zeros((0, len(fs)), bool)
        got = blockbloom.may_contain_many(fs, keys)
        assert got.dtype == np.bool_ and got.shape == (n, len(fs))
        assert np.array_equal(got, want)
        bits = blockbloom.may_contain_many(fs, keys, output="bits")
        assert bits.shape == (len(fs), (n + 63) // 64)
        for j, f in enumerate(fs):
            assert np.array_equal(bits[j], bits_of(want[:, j]))
        idx = blockbloom.may_contain_many(fs, keys, output="indices")
        assert [list(r) for r in idx] == [list(np.flatnonzero(want[:, j])) for j in range(len(fs))]
        h = hashes_of(keys, fs[0])
        assert np.array_equal(blockbloom.may_contain_hash_many(fs, h), want)
        assert np.array_equal(fs[-1].may_contain_hash(h, output="indices"), np.flatnonzero(want[:, -1]))
        # Filters from a generator live for the call.
        paths = [tmp_path / "mapped.bbf"] * 2
        assert np.array_equal(blockbloom.may_contain_many((blockbloom.open(p) for p in paths), keys),
                              want[:, [-1, -1]])
        strs = [f"s{k % 1009}" for k in keys]
        want_s = np.stack([f.may_contain(strs) for f in fs], axis=1) if n else np.zeros((0, len(fs)), bool)
        assert np.array_equal(blockbloom.may_contain_many(fs, strs), want_s)


def test_many_refuses_another_hash_naming_the_filter(tmp_path):
    fs, _ = mixed_filters(tmp_path)
    other = Filter.with_bytes(1024, 6, seed=12)
    with pytest.raises(ValueError, match=r"filters\[2\] hashes with xxh3 seed 12: expected xxh3 seed 11, as filters\[0\]"):
        blockbloom.may_contain_many([fs[0], fs[1], other], [1, 2, 3])
    with pytest.raises(TypeError, match=r"filters\[1\] is a str: expected a blockbloom.Filter or FilterView"):
        blockbloom.may_contain_many([fs[0], "f"], [1, 2, 3])
