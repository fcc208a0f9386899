# SPDX-License-Identifier: Apache-2.0
"""Files, bytes, pickles, memory maps, Parquet, and byte-for-byte agreement with the CLI."""

from __future__ import annotations

import os
import pickle
import subprocess

import numpy as np
import pytest

import blockbloom
from blockbloom import Filter, FormatError

LAYOUTS = blockbloom.layouts()


def filled(layout="blocked512", n=10_000, seed=0):
    f = Filter.for_keys(n, 0.01, layout=layout, seed=seed)
    f.insert(np.arange(n, dtype=np.uint64))
    f.insert([f"s{i}" for i in range(100)])
    return f


@pytest.mark.parametrize("layout", LAYOUTS)
def test_save_load_open_round_trip(tmp_path, layout, target):
    f = filled(layout)
    path = tmp_path / "f.bbf"
    f.save(path)
    assert not [p for p in os.listdir(tmp_path) if p != "f.bbf"]  # the temporary file was renamed
    assert path.read_bytes() == f.to_bytes()
    g = blockbloom.load(path)
    assert g == f and g.inserted == f.inserted
    v = blockbloom.open(str(path))
    assert isinstance(v, blockbloom.FilterView)
    probes = np.arange(20_000, dtype=np.uint64)
    assert np.array_equal(v.may_contain(probes), f.may_contain(probes))
    assert "s5" in v and v.count(probes) == f.count(probes)
    assert (v.layout, v.k, v.nbytes, v.inserted, v.popcount) == (f.layout, f.k, f.nbytes, f.inserted, f.popcount)
    assert memoryview(v).readonly and bytes(memoryview(v)) == bytes(memoryview(f))
    assert v.to_filter() == f and v.to_bytes() == f.to_bytes()


def test_save_replaces_atomically_and_an_open_view_keeps_its_file(tmp_path):
    path = tmp_path / "f.bbf"
    old = filled(seed=1)
    old.save(path)
    view = Filter.open(path)
    new = Filter.for_keys(10_000, 0.01, seed=1)
    new.save(path)
    assert blockbloom.load(path) == new
    assert view.to_filter() == old  # the mapped inode is the old file's


@pytest.mark.parametrize("layout", LAYOUTS)
def test_bytes_and_pickle_round_trip(layout):
    f = filled(layout)
    assert Filter.from_bytes(f.to_bytes()) == f
    assert Filter.from_bytes(bytearray(f.to_bytes())) == f
    assert Filter.from_bytes(memoryview(f.to_bytes())) == f
    for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):
        g = pickle.loads(pickle.dumps(f, protocol=proto))
        assert type(g) is Filter and g == f and g.to_bytes() == f.to_bytes()
    # the pickle carries the checksummed file format
    assert f.to_bytes() in pickle.dumps(f)


def test_view_pickles_as_a_filter(tmp_path):
    f = filled()
    f.save(tmp_path / "f.bbf")
    g = pickle.loads(pickle.dumps(blockbloom.open(tmp_path / "f.bbf")))
    assert type(g) is Filter and g == f


def corrupt(data: bytes, offset: int, value: int) -> bytes:
    b = bytearray(data)
    b[offset] = value
    return bytes(b)


@pytest.mark.parametrize(
    "offset, value, problem",
    [(0, ord("X"), "magic"), (8, 7, "version 7"), (12, 9, "layout"), (13, 9, "hash"), (16, 0, "k")],
)
def test_a_corrupted_file_raises_format_error_with_the_offset(tmp_path, offset, value, problem):
    f = filled()
    path = tmp_path / "bad.bbf"
    path.write_bytes(corrupt(f.to_bytes(), offset, value))
    for load in (blockbloom.load, blockbloom.open):
        with pytest.raises(FormatError) as e:
            load(path)
        assert e.value.offset == offset
        assert f"byte {offset}:" in str(e.value) and problem in str(e.value) and str(path) in str(e.value)
    assert issubclass(FormatError, ValueError)


def test_payload_corruption_is_caught_by_the_checksum(tmp_path):
    f = filled()
    data = corrupt(f.to_bytes(), 64 + 100, f.to_bytes()[164] ^ 0xFF)
    with pytest.raises(FormatError, match="checksum") as e:
        Filter.from_bytes(data)
    assert e.value.offset == 56  # the checksum field


def test_truncated_file_names_its_size(tmp_path):
    data = filled().to_bytes()[:1000]
    with pytest.raises(FormatError) as e:
        Filter.from_bytes(data)
    assert e.value.offset == 1000


def test_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(OSError, match="cannot open"):
        blockbloom.load(tmp_path / "none.bbf")
    with pytest.raises(OSError):
        blockbloom.open(tmp_path / "none.bbf")
    with pytest.raises(OSError):
        filled().save(tmp_path / "no-such-dir" / "f.bbf")


def test_a_path_with_a_nul_byte_is_refused_as_open_refuses_it(tmp_path):
    # The system would read only the part before the NUL: load/open would read
    # the victim and save would write "out". Python's open() raises ValueError.
    victim = tmp_path / "victim.bbf"
    filled().save(victim)
    for bad in (str(victim) + "\0x", os.fsencode(victim) + b"\0x"):
        with pytest.raises(ValueError, match="embedded null byte"):
            blockbloom.load(bad)
        with pytest.raises(ValueError, match="embedded null byte"):
            Filter.load(bad)
        with pytest.raises(ValueError, match="embedded null byte"):
            blockbloom.open(bad)
        with pytest.raises(ValueError, match="embedded null byte"):
            Filter.open(bad)
    out = tmp_path / "out"
    for bad in (str(out) + "\0evil.bbf", os.fsencode(out) + b"\0evil.bbf"):
        with pytest.raises(ValueError, match="embedded null byte"):
            filled().save(bad)
    assert sorted(os.listdir(tmp_path)) == ["victim.bbf"]


def test_a_non_utf8_path_is_a_file_name_like_any_other(tmp_path):
    # bytes, and the str os.fsdecode makes of them, name the same file (os.fsencode).
    name = os.fsencode(tmp_path) + b"/caf\xe9.bbf"
    f = filled()
    f.save(name)
    assert os.path.exists(name)
    assert blockbloom.load(name) == f
    assert blockbloom.load(os.fsdecode(name)) == f
    assert blockbloom.open(name).to_filter() == f
    missing = os.fsencode(tmp_path) + b"/\xff\xfe.bbf"
    # The message names the file, its undecodable bytes escaped: never an empty OSError.
    with pytest.raises(OSError, match=r"\\xff\\xfe\.bbf: cannot open") as e:
        blockbloom.load(missing)
    assert str(e.value)
    with pytest.raises(OSError, match=r"\\xff\\xfe\.bbf: cannot open"):
        blockbloom.open(os.fsdecode(missing))
    # A FormatError names the file the same way.
    bad = os.fsencode(tmp_path) + b"/\xff.bbf"
    with open(bad, "wb") as out:
        out.write(b"x" * 100)
    with pytest.raises(FormatError, match=r"\\xff\.bbf: byte 0: magic"):
        blockbloom.load(bad)


def test_an_instance_without_its_cpp_object_cannot_be_made():
    # __new__ without __init__ gave an object whose methods read uninitialised
    # memory (to_bytes wrote garbage, may_contain crashed).
    with pytest.raises(TypeError, match="Filter.for_keys"):
        Filter.__new__(Filter)
    with pytest.raises(TypeError, match="blockbloom.open"):
        blockbloom.FilterView.__new__(blockbloom.FilterView)
    f = filled()
    assert pickle.loads(pickle.dumps(f)) == f  # factories and pickling are unaffected


def test_parquet_split_block_filter_round_trip():
    f = Filter.for_keys(10_000, 0.01, layout="split256", hash="xxh64")
    f.insert([f"v{i}" for i in range(10_000)])
    with_header = f.to_parquet()
    bare = f.to_parquet(header=False)
    assert len(bare) == f.num_blocks * 32 and with_header.endswith(bare)
    assert Filter.from_parquet(with_header) == f
    assert Filter.from_parquet(bare, header=False) == f
    with pytest.raises(ValueError, match="xxh64|split256"):
        Filter.for_keys(100, 0.01).to_parquet()
    with pytest.raises(FormatError):
        Filter.from_parquet(b"\x00" * 40)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_python_filter_equals_the_cli_filter_byte_for_byte(tmp_path, cli, layout):
    n = 50_000
    strings = [f"https://example.com/page/{i}" for i in range(n)]
    (tmp_path / "keys.txt").write_text("".join(s + "\n" for s in strings))
    ints = np.random.default_rng(7).integers(0, 2**64, size=n, dtype=np.uint64)
    (tmp_path / "keys.u64").write_bytes(ints.astype("<u8").tobytes())
    for keys, extra, name in ((strings, [], "keys.txt"), (ints, ["--key-width", "8"], "keys.u64")):
        out = tmp_path / f"{name}.bbf"
        subprocess.run(
            [cli, "build", "--layout", layout, "--n", str(n), "--fpr", "0.01", "--seed", "11",
             "--keys", str(tmp_path / name), *extra, "-o", str(out)],
            check=True, capture_output=True,
        )
        f = Filter.for_keys(n, 0.01, layout=layout, seed=11)
        f.insert(keys)
        assert out.read_bytes() == f.to_bytes()
    # and the other way: the CLI answers from a file Python saved
    f.save(tmp_path / "py.bbf")
    count = subprocess.run([cli, "query", str(tmp_path / "py.bbf"), "--keys", str(tmp_path / "keys.u64"),
                            "--key-width", "8", "--output", "count"], check=True, capture_output=True, text=True)
    assert int(count.stdout) == n


def test_a_mapped_file_unions_into_a_filter(tmp_path):
    a = Filter.for_keys(20_000, 0.01)
    a.insert(np.arange(10_000, dtype=np.uint64))
    b = Filter.for_keys(20_000, 0.01)
    b.insert(np.arange(10_000, 20_000, dtype=np.uint64))
    b.save(tmp_path / "b.bbf")
    view = blockbloom.open(tmp_path / "b.bbf")
    u = a | view
    assert u == a | b and u.inserted == 20_000
    a |= view
    assert a == u
    with pytest.raises(ValueError, match="cannot union filters"):
        Filter.for_keys(10, 0.01) | view
    with pytest.raises(TypeError):
        a | 5
