# SPDX-License-Identifier: Apache-2.0
"""numpy 'U' arrays (read in place as UCS-4 and hashed per key) hash exactly the bytes of the equal str:
the same filter bytes and the same answers as a list of str, for every kind of string numpy can hold."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import blockbloom
from blockbloom import Filter

# ASCII, 2-, 3- and 4-byte UTF-8 (é, 中, an emoji outside the BMP), empty strings, embedded NULs (kept:
# only trailing NULs are numpy's padding), and ASCII keys in an array made wide by a non-ASCII one.
SAMPLES = [
    "https://example.com/a",
    "café",
    "中文网址/路径",
    "emoji \U0001F600 and \U0001F680",
    "",
    "a\0b",
    "\0lead",
    "mixed é 中 \U0001F600 ascii",
    "x",
    "\x7f\x80\u07ff\u0800\uffff\U00010000\U0010ffff",  # each UTF-8 length's first and last code point
]


def varied_keys(n: int, seed: int) -> list[str]:
    """n distinct strings of every kind in SAMPLES and of varied lengths."""
    rng = np.random.default_rng(seed)
    return [SAMPLES[i % len(SAMPLES)] + "/" * int(rng.integers(0, 3)) + str(i) for i in range(n)]


@pytest.mark.parametrize("hash_name", ["xxh3", "xxh64"])
def test_u_array_equals_list_of_str(target, hash_name):
    keys = varied_keys(3_000, 1) + SAMPLES  # > 1024: the query's chunks cross boundaries
    arr = np.array(keys)
    assert arr.dtype.kind == "U" and arr.tolist() == keys
    by_list = Filter.for_keys(len(keys), 0.01, hash=hash_name, seed=7)
    by_list.insert(keys)
    by_array = Filter.for_keys(len(keys), 0.01, hash=hash_name, seed=7)
    by_array.insert(arr)
    assert by_array.to_bytes() == by_list.to_bytes()
    assert by_array.inserted == len(keys)
    # the C++ string batch (an 'S' array of the UTF-8 bytes) and one key at a time agree
    by_utf8 = Filter.for_keys(len(keys), 0.01, hash=hash_name, seed=7)
    by_utf8.insert(np.array([k.encode() for k in keys]))
    one_by_one = Filter.for_keys(len(keys), 0.01, hash=hash_name, seed=7)
    for key in keys:
        one_by_one.insert(key)
    assert by_utf8.to_bytes() == one_by_one.to_bytes() == by_list.to_bytes()
    assert by_list.may_contain(arr).all()

    probes = varied_keys(5_000, 2)  # the same shapes of strings, other keys: some false positives
    expected = by_list.may_contain(probes)
    assert np.array_equal(by_list.may_contain(np.array(probes)), expected)
    assert by_list.count(np.array(probes)) == int(expected.sum())
    out = np.empty(len(probes), dtype=bool)
    assert by_list.may_contain(np.array(probes), out=out) is out and np.array_equal(out, expected)


def test_each_sample_hits_as_its_str_alone():
    for s in SAMPLES:
        f = Filter.for_keys(10, 0.0001)
        f.insert(np.array([s]))
        assert s in f and s.encode() in f, repr(s)
        f2 = Filter.for_keys(10, 0.0001)
        f2.insert(s)
        assert f.to_bytes() == f2.to_bytes(), repr(s)


def test_trailing_nuls_are_numpy_padding_and_embedded_ones_are_kept():
    arr = np.array(["ab\0", "a\0b", "\0"], dtype="U5")
    assert arr.tolist() == ["ab", "a\0b", ""]  # numpy's own reading: the reference
    f = Filter.for_keys(10, 0.0001)
    f.insert(arr)
    g = Filter.for_keys(10, 0.0001)
    g.insert(["ab", "a\0b", ""])
    assert f.to_bytes() == g.to_bytes()
    assert "ab" in f and "a\0b" in f and "" in f
    assert f.may_contain(["ab\0", "a"]).tolist() == [False, False]  # a str's NUL is part of it


def test_u_arrays_of_any_layout_in_memory():
    keys = varied_keys(200, 3)
    f = Filter.for_keys(200, 0.001)
    f.insert(keys)
    wide = np.array(keys, dtype="U80")
    assert f.may_contain(wide).all()
    assert f.may_contain(wide.astype(">U80")).all()  # big-endian code points
    assert f.may_contain(np.array(keys + keys)[::2]).all()  # strided
    square = np.array(keys[:16]).reshape(4, 4)
    assert f.may_contain(square).shape == (4, 4) and f.may_contain(square).all()
    assert f.may_contain(np.array(keys[0])).shape == () and f.may_contain(np.array(keys[0]))[()]  # 0-d
    assert f.may_contain(np.array([], dtype="U3")).shape == (0,)
    all_nul = np.zeros(3, dtype="U1")  # three empty strings
    g = Filter.for_keys(10, 0.001)
    g.insert(all_nul)
    assert "" in g and g.inserted == 3


def test_views_answer_u_arrays_as_filters_do(tmp_path):
    keys = varied_keys(2_000, 4)
    f = Filter.for_keys(2_000, 0.01)
    f.insert(np.array(keys))
    f.save(tmp_path / "u.bbf")
    view = blockbloom.open(tmp_path / "u.bbf")
    probes = np.array(varied_keys(3_000, 5))
    assert np.array_equal(view.may_contain(probes), f.may_contain(probes.tolist()))
    assert view.may_contain(np.array(keys)).all()


def test_a_key_utf8_cannot_encode_raises_and_inserts_nothing():
    lone = np.array(["fine", "also fine", "\ud800"])  # a lone surrogate: numpy holds it, UTF-8 cannot
    f = Filter.for_keys(100, 0.01)
    before = f.to_bytes()
    with pytest.raises(ValueError, match="key 2 holds code point 55296"):
        f.insert(lone)
    assert f.to_bytes() == before and f.inserted == 0
    with pytest.raises(ValueError):  # the equal list of str fails too (UnicodeEncodeError)
        f.insert(lone.tolist())
    with pytest.raises(ValueError, match="key 0 holds code point 1114112"):
        f.may_contain(np.array([0x110000, 0x41], dtype="<u4").view("U1"))


def test_every_length_in_every_narrow_width():
    # Each count of trailing NULs in the field (0 to width), behind ASCII and non-ASCII last characters.
    for width in range(1, 10):
        keys = [("é" if last else "a") * length for length in range(width + 1) for last in (False, True)]
        keys += ["\0" * j + "b" + "c" * (width - j - 1) for j in range(width)]  # leading and embedded NULs
        arr = np.array(keys, dtype=f"U{width}")
        f = Filter.for_keys(64, 0.0001)
        f.insert(arr)
        g = Filter.for_keys(64, 0.0001)
        g.insert(arr.tolist())
        assert f.to_bytes() == g.to_bytes(), width
        assert f.inserted == len(keys)


RSS_SCRIPT = """
import resource, sys
import numpy as np
import blockbloom
keys = np.full(50_000, "k" * 399 + "{last}", dtype="U400")  # 80 MB of code points, 20 MB as UTF-8
f = blockbloom.Filter.for_keys(50_000, 0.01)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
f.{call}(keys)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


@pytest.mark.parametrize("call", ["insert", "may_contain"])
@pytest.mark.parametrize("last", ["k", "é"])
def test_a_u_array_is_not_copied(call, last, tmp_path):
    # In a fresh process, so that the peak resident size before the call is the array's: a UTF-8 copy of
    # the keys would add 20 MB to the peak; what the call may allocate is 8 bytes of hash and 1 of answer
    # per key (450 kB) and the interpreter's slack.
    script = tmp_path / "rss.py"
    script.write_text(RSS_SCRIPT.format(call=call, last=last))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    grown_kib = int(out.stdout)
    assert grown_kib < 5_000, f"{call} of a 'U' array raised the peak resident size by {grown_kib} KiB"


def test_a_wide_code_point_at_every_position_after_an_ascii_prefix():
    # The encoder starts at the first code point >= 0x80 (searched 4 at a time): each position in and
    # across those groups, for each UTF-8 length (0x80 and 0xff are the 2-byte range's Latin-1 end).
    keys = [
        "a" * pos + wide + "b" * (13 - pos)
        for pos in range(14)
        for wide in ("\x80", "\xff", "é", "\u0100", "中", "\U0001F600")
    ]
    f = Filter.for_keys(len(keys), 0.0001)
    f.insert(np.array(keys))
    g = Filter.for_keys(len(keys), 0.0001)
    g.insert(keys)
    assert f.to_bytes() == g.to_bytes()
