# SPDX-License-Identifier: Apache-2.0
"""RocksDB full filters from Python: the SST RocksDB 7.8.3 wrote
(tests/golden/rocksdb_100keys.sst, keys key1000..key1099) read and rebuilt byte
for byte, blocks round-tripped, and what RocksDB cannot read refused."""
from pathlib import Path

import pytest

import blockbloom
from blockbloom import Filter, FormatError

GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "golden" / "rocksdb_100keys.sst"
KEYS = [f"key{1000 + i}" for i in range(100)]


def test_read_rocksdb_sst_equals_the_filter_built_from_its_keys():
    read = blockbloom.read_rocksdb_sst(GOLDEN)
    assert (read.layout, read.hash, read.seed, read.k, read.num_blocks) == ("blocked512", "rocksdb", 0, 6, 2)
    ours = Filter.with_bytes(128, 6, layout="blocked512", hash="rocksdb")
    ours.insert(KEYS)
    assert bytes(read) == bytes(ours)
    assert all(k in read for k in KEYS)
    block = ours.to_rocksdb()
    assert len(block) == 128 + 5 and block[128:] == b"\xff\x00\x06\x00\x00"
    assert block in GOLDEN.read_bytes()  # the filter block RocksDB wrote
    assert bytes(Filter.from_rocksdb(block)) == bytes(ours)


def test_rocksdb_hash_of_an_int_is_the_hash_of_its_8_little_endian_bytes():
    for x in (0, 1, 12345, 2**64 - 1):
        assert blockbloom.hash_key(x, hash="rocksdb") == blockbloom.hash_key(x.to_bytes(8, "little"), hash="rocksdb")


def test_rocksdb_refusals():
    with pytest.raises(ValueError, match="expected blocked512"):
        Filter.for_keys(100, 0.01, layout="split256", hash="rocksdb").to_rocksdb()
    with pytest.raises(ValueError, match="expected rocksdb"):
        Filter.for_keys(100, 0.01).to_rocksdb()
    ribbon = bytearray(Filter.with_bytes(64, 6, layout="blocked512", hash="rocksdb").to_rocksdb())
    ribbon[64] = 0xFE
    with pytest.raises(FormatError, match="Ribbon") as e:
        Filter.from_rocksdb(bytes(ribbon))
    assert e.value.offset == 64
    with pytest.raises(FormatError, match="empty filter"):
        Filter.from_rocksdb(b"\xff\x00\x06\x00\x00")  # what RocksDB writes for no keys
    with pytest.raises(OSError):
        blockbloom.read_rocksdb_sst(GOLDEN.parent / "no-such.sst")
