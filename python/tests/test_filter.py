# SPDX-License-Identifier: Apache-2.0
"""The Filter API on every SIMD target this CPU runs (each pinned in turn)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import blockbloom
from blockbloom import Filter

LAYOUTS = blockbloom.layouts()


def keys_u64(n: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**64, size=n, dtype=np.uint64)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_no_false_negatives_and_model_rate(target, layout):
    n = 20_000
    f = Filter.for_keys(n, 0.01, layout=layout)
    present = keys_u64(n, 1)
    f.insert(present)
    assert f.inserted == n
    f.insert(int(present[0]))  # one key: counted by the binding (Filter::Insert(key) does not count)
    assert f.inserted == n + 1
    hits = f.may_contain(present)
    assert hits.dtype == np.bool_ and hits.shape == (n,)
    assert hits.all()
    absent = keys_u64(200_000, 2)
    rate = f.may_contain(absent).mean()
    # Sized for 1% by the exact model; 200k probes put 3% far outside any plausible deviation.
    assert 0.003 < rate < 0.03, rate
    assert f.count(absent) == int(f.may_contain(absent).sum())


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_target_writes_the_scalar_reference_bytes(target, layout):
    keys = keys_u64(5_000, 3)
    strs = [f"https://example.com/{i}" for i in range(2_000)]
    f = Filter.for_keys(7_000, 0.02, layout=layout, seed=9)
    f.insert(keys)
    f.insert(strs)
    answers = f.may_contain(keys_u64(10_000, 4))
    blockbloom.pin_target("scalar")
    ref = Filter.for_keys(7_000, 0.02, layout=layout, seed=9)
    ref.insert(keys)
    ref.insert(strs)
    ref_answers = ref.may_contain(keys_u64(10_000, 4))
    blockbloom.pin_target(target)
    assert f.to_bytes() == ref.to_bytes()
    assert np.array_equal(answers, ref_answers)


def test_key_kinds_agree(target):
    f = Filter.for_keys(1000, 0.001)
    f.insert(np.array([1, 2, 3], dtype=np.uint64))
    # the same values as other integer types, scalars and lists
    assert f.may_contain(np.array([1, 2, 3], dtype=np.int32)).all()
    assert f.may_contain(np.array([1, 2, 3], dtype=np.int64)).all()
    assert f.may_contain(np.array([1, 2, 3], dtype=">u8")).all()  # big-endian: converted by value
    assert f.may_contain(np.array([[1, 2], [3, 1]], dtype=np.uint64)).shape == (2, 2)
    assert f.may_contain(np.array([1, 9, 2, 9, 3], dtype=np.uint64)[::2]).all()  # strided: made contiguous
    assert f.may_contain([1, 2, 3]).all()
    assert f.may_contain(np.uint64(2)) is True
    assert f.may_contain(3) is True and 3 in f
    # negative ints wrap modulo 2**64, as a cast does
    f.insert(-1)
    assert (2**64 - 1) in f and f.may_contain(np.array([-1], dtype=np.int8))[0]
    # str is hashed as UTF-8 and equals the bytes key
    f.insert("grüße")
    assert "grüße".encode() in f and "grüße" in f
    assert f.may_contain(np.array(["grüße"]))[0] and f.may_contain(np.array(["grüße".encode()]))[0]
    assert f.may_contain(np.array(["grüße", "x"], dtype=object)).tolist()[0]
    # an 8-byte bytes key is the uint64 of its little-endian value
    f.insert((777).to_bytes(8, "little"))
    assert 777 in f


def test_scalars_return_bool_and_batches_arrays():
    f = Filter.for_keys(100, 0.01)
    assert f.may_contain("a") is False
    assert isinstance(f.may_contain(["a"]), np.ndarray)
    assert f.may_contain([]).shape == (0,)
    assert f.may_contain(np.array([], dtype=np.uint64)).shape == (0,)


def test_bad_keys_and_parameters_raise():
    f = Filter.for_keys(100, 0.01)
    with pytest.raises(TypeError):
        f.may_contain(np.zeros(3))
    with pytest.raises(TypeError):
        f.insert(True)
    with pytest.raises(TypeError):
        f.insert(["a", 1])
    with pytest.raises(TypeError):
        f.insert(1.5)
    with pytest.raises(TypeError):
        [1, 2] in f  # noqa: B015 - a batch is not a key
    with pytest.raises(ValueError, match="out of range"):
        f.insert(2**64)
    with pytest.raises(ValueError, match="false-positive rate = 1.5"):
        Filter.for_keys(100, 1.5)
    with pytest.raises(ValueError):
        Filter.for_keys(0, 0.01)
    with pytest.raises(ValueError, match="layout"):
        Filter.for_keys(100, 0.01, layout="nope")
    with pytest.raises(ValueError, match="hash"):
        Filter.for_keys(100, 0.01, hash="md5")
    with pytest.raises(ValueError, match="k"):
        Filter.with_bytes(1024, k=99)
    with pytest.raises(ValueError, match="k, or n"):
        Filter.with_bytes(1024)
    with pytest.raises(ValueError):
        blockbloom.pin_target("no-such-target")
    with pytest.raises(TypeError):
        Filter()


def test_with_bytes_and_introspection():
    f = Filter.with_bytes(1 << 20, k=6, layout="blocked512", seed=3)
    assert f.nbytes == 1 << 20 and f.k == 6 and f.layout == "blocked512" and f.seed == 3 and f.hash == "xxh3"
    assert f.bits == 8 << 20 and f.num_blocks == (8 << 20) // 512
    g = Filter.with_bytes(1 << 20, n=500_000)
    rate = blockbloom.predict_fpr("blocked512", g.num_blocks, g.k, 500_000)
    assert all(blockbloom.predict_fpr("blocked512", g.num_blocks, k, 500_000) >= rate for k in range(1, 17))
    assert f.fill_ratio == 0.0 and f.estimated_keys == 0.0 and f.predicted_fpr == 0.0
    keys = keys_u64(100_000)
    f.insert(keys)
    assert f.popcount > 0 and 0 < f.fill_ratio < 1
    assert abs(f.estimated_keys - 100_000) < 2_000  # the fill estimate, within 2%
    model = blockbloom.predict_fpr("blocked512", f.num_blocks, 6, round(f.estimated_keys))
    assert f.predicted_fpr == pytest.approx(model)
    assert "blocked512" in repr(f)


def test_params_and_predict_fpr_come_from_the_exact_model():
    p = blockbloom.params(1_000_000, 0.01)
    assert p["layout"] == "blocked512" and p["k"] == 6 and p["fpr"] <= 0.01
    assert p["bits_per_key"] == pytest.approx(9.92, abs=0.01)  # docs/layouts-and-model.md's cheat sheet
    assert blockbloom.predict_fpr("blocked512", p["num_blocks"], p["k"], 1_000_000) == pytest.approx(p["fpr"])
    # one block fewer misses the target (the solver's minimality)
    assert blockbloom.predict_fpr("blocked512", p["num_blocks"] - 1, p["k"], 1_000_000) > 0.01
    every = blockbloom.params(1_000_000, 0.01, layout=None)
    assert set(every) == set(LAYOUTS) and every["split256"]["k"] == 8
    f = Filter.for_keys(1_000_000, 0.01)
    assert (f.num_blocks, f.k, f.nbytes) == (p["num_blocks"], p["k"], p["nbytes"])
    # 10 bits/key, k = 6, 512-bit blocks: the model's 0.9665% (model.h)
    assert blockbloom.predict_fpr("blocked512", 1_000_000 * 10 // 512, 6, 1_000_000) == pytest.approx(0.009665, rel=2e-3)


def test_union(target):
    a, b = Filter.for_keys(10_000, 0.01), Filter.for_keys(10_000, 0.01)
    ka, kb = keys_u64(5_000, 5), keys_u64(5_000, 6)
    a.insert(ka)
    b.insert(kb)
    both = Filter.for_keys(10_000, 0.01)
    both.insert(np.concatenate([ka, kb]))
    u = a | b
    assert u == both and u.to_bytes() == both.to_bytes() and u.inserted == 10_000
    assert a.inserted == 5_000  # | made a new filter
    a |= b
    assert a == both
    a.union(b)
    assert a == both and a.inserted == 15_000  # idempotent bits, counted keys
    assert a.compatible(b) is None
    with pytest.raises(ValueError, match="cannot union filters: number of blocks differs"):
        a |= Filter.for_keys(100, 0.01)
    other = Filter.for_keys(10_000, 0.01, seed=1)
    assert "seed" in a.compatible(other)
    with pytest.raises(ValueError, match="seed"):
        a | other


def test_clear_copy_eq():
    f = Filter.for_keys(1000, 0.01)
    f.insert([b"a", b"b"])
    g = copy.copy(f)
    h = copy.deepcopy(f)
    assert g == f and h == f and g is not f
    f.clear()
    assert f.popcount == 0 and f.inserted == 0 and g != f and b"a" in g
    with pytest.raises(TypeError):
        hash(f)


def test_buffer_protocol_is_a_read_only_zero_copy_view():
    f = Filter.for_keys(10_000, 0.01)
    view = memoryview(f)
    assert view.readonly and view.nbytes == f.nbytes and view.format == "B"
    words = np.frombuffer(f, dtype=np.uint64)
    assert not words.flags.writeable
    assert words.sum() == 0
    f.insert(42)  # the view sees the filter's own memory change: no copy was taken
    assert int(np.unpackbits(np.frombuffer(f, np.uint8)).sum()) == f.popcount
    assert 1 <= f.popcount <= f.k
    assert words.any()
    with pytest.raises(TypeError):
        view[0] = 1
    assert bytes(view) == f.to_bytes()[64:]


def test_targets_api():
    ts = blockbloom.targets()
    names = [n for n, _ in ts]
    assert "scalar" in names or "emu128" in names
    assert blockbloom.active_target() in blockbloom.supported_targets()
    blockbloom.pin_target(blockbloom.supported_targets()[-1])
    assert blockbloom.active_target() == blockbloom.supported_targets()[-1]
    blockbloom.pin_target("auto")
    assert blockbloom.active_target() == blockbloom.supported_targets()[0]


def test_hash_key_matches_u64_and_bytes():
    assert blockbloom.hash_key(5) == blockbloom.hash_key((5).to_bytes(8, "little"))
    assert blockbloom.hash_key("x", seed=1) != blockbloom.hash_key("x", seed=2)
    for h in ("xxh3", "xxh64", "mulx", "rocksdb", "aes", "foldmul"):
        assert blockbloom.hash_key(12345, hash=h) == blockbloom.hash_key((12345).to_bytes(8, "little"), hash=h)
    # mulx = fold(fold(key ^ seed, m1), m2), fold(x, m) = the halves of x * m XORed (blockbloom/hash.h)
    fold = lambda x, m: ((x * m) & (2**64 - 1)) ^ ((x * m) >> 64)
    assert blockbloom.hash_key(12345, hash="mulx") == fold(fold(12345, 0x9E3779B97F4A7C15), 0xD6E8FEB86659FD93)
    assert blockbloom.hash_key("a url", hash="mulx", seed=4) == blockbloom.hash_key("a url", hash="xxh3", seed=4)
    # aes: three AES rounds of (key ^ seed, 8 zero bytes); the value tests/filter_test.cc pins
    assert blockbloom.hash_key(0, hash="aes") == 0x4B428352BD093C85
    assert blockbloom.hash_key(12345, hash="aes", seed=7) == 0xF1414ABA65A43773
    assert blockbloom.hash_key("a url", hash="aes", seed=4) == blockbloom.hash_key("a url", hash="xxh3", seed=4)
    # foldmul = fold(key ^ seed, m1) * m3 mod 2^64 (blockbloom/hash.h)
    m3 = 0xF1357AEA2E62A9C5
    expected = (fold(12345 ^ 9, 0x9E3779B97F4A7C15) * m3) & (2**64 - 1)
    assert blockbloom.hash_key(12345, hash="foldmul", seed=9) == expected
    assert blockbloom.hash_key("a url", hash="foldmul", seed=4) == blockbloom.hash_key("a url", hash="xxh3", seed=4)


@pytest.mark.parametrize("hash_kind", ["mulx", "aes", "foldmul"])
def test_integer_hash_filter_finds_its_keys_and_round_trips(target, tmp_path, hash_kind):
    f = Filter.for_keys(10_000, 0.01, layout="split256", hash=hash_kind, seed=7)
    # sequential: what mulx's second fold, aes's third round and foldmul's multiply are for
    keys = np.arange(10_000, dtype=np.uint64)
    f.insert(keys)
    assert f.may_contain(keys).all()
    assert f.may_contain(np.arange(10_000, 110_000, dtype=np.uint64)).mean() < 0.02
    f.save(tmp_path / "m.bbf")
    g = blockbloom.load(tmp_path / "m.bbf")
    assert g == f
    assert g.hash == hash_kind


def test_may_contain_into_a_reused_answer_array(target):
    f = Filter.for_keys(1000, 0.01)
    keys = np.arange(1000, dtype=np.uint64)
    f.insert(keys[:500])
    out = np.zeros(1000, dtype=bool)
    assert f.may_contain(keys, out=out) is out
    assert out[:500].all() and np.array_equal(out, f.may_contain(keys))
    with pytest.raises(ValueError, match="1000 elements"):
        f.may_contain(keys, out=np.zeros(10, dtype=bool))
    with pytest.raises(ValueError):
        f.may_contain(keys, out=np.zeros(1000, dtype=np.uint8))
    with pytest.raises(TypeError):
        f.may_contain(5, out=out)
