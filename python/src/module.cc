// SPDX-License-Identifier: Apache-2.0
// blockbloom._core: the Python bindings (pybind11) over the static library.
//
// Keys cross the boundary without copies where the bytes already have the
// filter's key format: a C-contiguous numpy uint64 array (or int64, viewed as
// uint64: the same 8 little-endian bytes) is handed to the batch kernels as
// it is, and answers are written straight into a new numpy bool array (numpy
// bools are one byte, 0 or 1, which is what MayContainBatch writes). Other
// integer arrays are converted to uint64 by numpy (negative values wrap modulo
// 2^64, as a cast does); str keys are hashed as their UTF-8 bytes, bytes keys
// as they are, fixed-width numpy 'S'/'U' arrays as numpy reads them (trailing
// NULs stripped), all in place ('U': UCS-4 narrowed or UTF-8-encoded key by
// key into one small buffer, never a copy of the array).
//
// Threads: every batch call releases the GIL; only the str/bytes objects of a
// list or object array are hashed before, with it held (they are Python
// objects another thread could free). A Filter carries a shared_mutex:
// queries take it shared, inserts/union/clear exclusive, always after the GIL
// is released (a thread holding the mutex never waits for the GIL, so the two
// cannot deadlock). A FilterView is read-only and needs no lock.
//
// Errors: std::invalid_argument -> ValueError (pybind11's default), the
// library's FormatError -> blockbloom.FormatError (a ValueError) with .offset,
// file-system failures -> OSError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/fold.h"
#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "blockbloom/layout.h"
#include "blockbloom/many.h"
#include "blockbloom/model.h"
#include "blockbloom/parquet.h"
#include "blockbloom/rocksdb.h"
#include "blockbloom/targets.h"
#include "blockbloom/version.h"
#include "blockbloom/view.h"

namespace py = pybind11;

namespace {

using blockbloom::Filter;
using blockbloom::MappedFilter;
using blockbloom::HashKind;
using blockbloom::Layout;

// A file-system failure (cannot open, write, rename): OSError in Python.
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs fn(), turning the library's plain std::runtime_error from file access
// into IoError (FormatError, a runtime_error too, passes through unchanged).
template <typename Fn>
auto FileOp(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const blockbloom::FormatError&) {
    throw;
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw IoError(e.what());
  }
}

// A path as Python's open() takes it: str, bytes or os.PathLike, encoded with
// os.fsencode (the file system encoding with surrogateescape, so a str from
// os.fsdecode or os.listdir gives back the name's exact bytes, UTF-8 or not).
// A NUL byte raises ValueError("embedded null byte") as open() does: the
// system would read only the part before it.
std::string PathArg(py::handle path) {
  const py::module_ os = py::module_::import("os");
  std::string bytes = os.attr("fsencode")(os.attr("fspath")(path)).cast<std::string>();
  if (bytes.find('\0') != std::string::npos) throw py::value_error("embedded null byte");
  return bytes;
}

// A message for Python from C++ text that may hold a path's raw bytes: valid
// UTF-8 as is, any other byte as \xNN (an exception's str() must be a str;
// decoding it as strict UTF-8 would fail and lose the message).
py::str MessageStr(const char* what) {
  PyObject* s = PyUnicode_DecodeUTF8(what, static_cast<py::ssize_t>(std::strlen(what)), "backslashreplace");
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

Layout LayoutArg(const std::string& name) { return blockbloom::LayoutFromName(name); }
HashKind HashArg(const std::string& name) { return blockbloom::HashFromName(name); }

// ---- Keys from Python objects ------------------------------------------------------

// The filter's key hash, for keys hashed as they are parsed.
struct KeyHash {
  HashKind kind;
  uint64_t seed;
};
template <typename F>
KeyHash HashOf(const F& f) {
  return {f.hash_kind(), f.seed()};
}

// One key or a batch of keys, parsed under the GIL, used without it.
struct Keys {
  bool scalar = false;
  bool is_string = false;  // a scalar str/bytes key: str_key, else int_key
  uint64_t int_key = 0;
  std::string_view str_key;
  // A batch of n keys in one of four forms; `shape` is the answer's shape.
  enum class Form {
    kU64,     // u64[0, n): integers (an array used in place, or `ints`)
    kViews,   // views: the elements of a numpy 'S' array, in place
    kHashes,  // hashes: str/bytes objects, hashed while parsed (with the GIL held,
              // so no other thread can free one; nothing to keep alive after)
    kUcs4,    // a numpy 'U' array in place, n keys of ucs4_width code points,
              // hashed once the GIL is released (HashUcs4)
  } form = Form::kU64;
  size_t n = 0;
  const uint64_t* u64 = nullptr;
  std::vector<std::string_view> views;
  std::vector<uint64_t> hashes;
  const char* ucs4 = nullptr;
  size_t ucs4_width = 0;
  std::vector<py::ssize_t> shape;
  py::object owner;            // the array (or converted array) the keys live in
  std::vector<uint64_t> ints;  // integer keys gathered from a list / object array

  size_t size() const { return n; }
};

[[noreturn]] void TypeErr(const std::string& msg) { throw py::type_error("blockbloom: " + msg); }

// A Python int as a key: its value modulo 2^64, for -2^63 <= v < 2^64.
uint64_t IntKey(PyObject* o) {
  const unsigned long long u = PyLong_AsUnsignedLongLong(o);
  if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) return u;
  PyErr_Clear();
  const long long s = PyLong_AsLongLong(o);
  if (s == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error("blockbloom: integer key " + py::repr(o).cast<std::string>() +
                          " is out of range: expected -2**63 <= key < 2**64");
  }
  return static_cast<uint64_t>(s);
}

const py::module_& Numpy() {
  static const py::module_* np = new py::module_(py::module_::import("numpy"));
  return *np;
}

bool IsNumpyInteger(py::handle o) {
  static const py::object* integer = new py::object(Numpy().attr("integer"));
  return py::isinstance(o, *integer);
}

// A str or bytes object's bytes (str: UTF-8, cached in the object by CPython).
bool StringView(PyObject* o, std::string_view* out) {
  if (PyUnicode_Check(o)) {
    Py_ssize_t len = 0;
    const char* s = PyUnicode_AsUTF8AndSize(o, &len);
    if (s == nullptr) throw py::error_already_set();
    *out = std::string_view(s, static_cast<size_t>(len));
    return true;
  }
  if (PyBytes_Check(o)) {
    *out = std::string_view(PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o)));
    return true;
  }
  return false;
}

std::string TypeName(py::handle o) { return py::str(py::type::handle_of(o).attr("__name__")).cast<std::string>(); }

// A sequence of Python objects (list items or an object array's elements), all
// str/bytes (hashed here: each object is read once, and no reference to it is
// kept) or all int.
void ParseObjects(PyObject* const* items, size_t n, KeyHash h, Keys* k) {
  bool strings = false, ints = false;
  for (size_t i = 0; i < n; ++i) {
    PyObject* o = items[i];
    std::string_view v;
    if (StringView(o, &v)) {
      strings = true;
      k->hashes.push_back(blockbloom::HashBytes(v, h.kind, h.seed));
    } else if (PyLong_Check(o) && !PyBool_Check(o)) {
      ints = true;
      k->ints.push_back(IntKey(o));
    } else if (IsNumpyInteger(o)) {
      ints = true;
      py::object as_int = py::reinterpret_steal<py::object>(PyNumber_Long(o));
      if (!as_int) throw py::error_already_set();
      k->ints.push_back(IntKey(as_int.ptr()));
    } else {
      TypeErr("key " + std::to_string(i) + " is a " + TypeName(o) + ": expected str, bytes or int");
    }
    if (strings && ints) TypeErr("keys mix strings and integers: expected all str/bytes or all int");
  }
  k->n = n;
  if (strings) {
    k->form = Keys::Form::kHashes;
  } else {
    k->u64 = k->ints.data();
  }
}

// ---- numpy 'U' arrays: UCS-4 code points, hashed as the equal str's UTF-8 -------------
// numpy stores a 'U<w>' element as w native-endian 32-bit code points, the
// unused tail NUL-padded (so, as numpy itself does, trailing NULs are not part
// of the string; embedded ones are). Each key is narrowed or UTF-8-encoded into
// one reused buffer and hashed from there: no copy of the array, and exactly
// the bytes PyUnicode_AsUTF8AndSize gives for the equal str.

// Appends code point c as UTF-8; false for a surrogate or a value > 0x10FFFF
// (which the equal str could not encode either).
bool AppendUtf8(uint32_t c, char*& out) {
  if (c < 0x80) {
    *out++ = static_cast<char>(c);
  } else if (c < 0x800) {
    *out++ = static_cast<char>(0xC0 | (c >> 6));
    *out++ = static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    if (c >= 0xD800 && c < 0xE000) return false;
    *out++ = static_cast<char>(0xE0 | (c >> 12));
    *out++ = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x110000) {
    *out++ = static_cast<char>(0xF0 | (c >> 18));
    *out++ = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    *out++ = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (c & 0x3F));
  } else {
    return false;
  }
  return true;
}

// Key i of a 'U' array as UTF-8 in buf (which holds 4 * ucs4_width bytes).
// The padding is dropped first (4 code points at a time), then the ASCII path
// (every key of a URL column) narrows each code point to a byte, a loop the
// compiler vectorizes, and checks with one OR that none was wider; only other
// keys take the per-code-point encoder, from their first non-ASCII one on.
std::string_view Ucs4Key(const Keys& k, size_t i, char* buf) {
  const char* s = k.ucs4 + i * k.ucs4_width * 4;
  const auto at = [s](size_t j) {
    uint32_t c;
    std::memcpy(&c, s + j * 4, 4);
    return c;
  };
  size_t len = k.ucs4_width;
  uint64_t w[2] = {0, 0};
  while (len >= 4) {
    std::memcpy(w, s + (len - 4) * 4, 16);
    if ((w[0] | w[1]) != 0) break;
    len -= 4;
  }
  if (std::endian::native == std::endian::little && len >= 4) {
    // The last 4 code points hold one that is not NUL: drop the 0-3 NULs after
    // it by counting zero bits from the top (no branch to mispredict per key).
    const int zero_bits = w[1] != 0 ? std::countl_zero(w[1]) : 64 + std::countl_zero(w[0]);
    len -= static_cast<size_t>(zero_bits / 32);
  } else {
    while (len > 0 && at(len - 1) == 0) --len;
  }
  uint32_t any = 0;
  for (size_t j = 0; j < len; ++j) {
    const uint32_t c = at(j);
    any |= c;
    buf[j] = static_cast<char>(c);
  }
  if (any < 0x80) return {buf, len};
  // buf[0, p) is UTF-8 already: the ASCII code points before the first wider
  // one, found 4 at a time (kWide: the bits a code point >= 0x80 sets, per lane).
  constexpr uint64_t kWide = 0xFFFFFF80FFFFFF80;
  size_t p = 0;
  while (p + 4 <= len) {
    uint64_t v[2];
    std::memcpy(v, s + p * 4, 16);
    if (((v[0] | v[1]) & kWide) != 0) break;
    p += 4;
  }
  while (at(p) < 0x80) ++p;
  char* out = buf + p;
  for (size_t j = p; j < len; ++j) {
    if (!AppendUtf8(at(j), out))
      throw py::value_error("blockbloom: key " + std::to_string(i) + " holds code point " + std::to_string(at(j)) +
                            ", which UTF-8 cannot encode (a surrogate or a value above 0x10FFFF)");
  }
  return {buf, static_cast<size_t>(out - buf)};
}

// Hashes a 'U' array's keys (called without the GIL) into k.hashes, all of
// them before any is used: a key that fails to encode then leaves a filter as
// it was. One pass and then one batch call over all the hashes measured
// faster than chunks (the kernels' look-ahead then never restarts).
void HashUcs4(Keys& k, KeyHash h) {
  if (k.form != Keys::Form::kUcs4) return;
  std::vector<char> buf(k.ucs4_width * 4);
  k.hashes.resize(k.n);
  for (size_t i = 0; i < k.n; ++i) k.hashes[i] = blockbloom::HashBytes(Ucs4Key(k, i, buf.data()), h.kind, h.seed);
  k.form = Keys::Form::kHashes;
}

void ParseArray(py::array arr, KeyHash h, Keys* k) {
  k->shape.assign(arr.shape(), arr.shape() + arr.ndim());
  const py::dtype dt = arr.dtype();
  const char kind = dt.kind();
  const bool native = dt.attr("isnative").cast<bool>();
  const auto contiguous = [&](py::array a) {
    return (a.flags() & py::array::c_style) != 0 && reinterpret_cast<uintptr_t>(a.data()) % 8 == 0;
  };
  if (kind == 'u' || kind == 'i') {
    py::array u;
    if (dt.itemsize() == 8 && native && contiguous(arr)) {
      // uint64 as it is; int64 viewed as uint64 (the same bytes): no copy.
      u = kind == 'u' ? arr : py::array(arr.attr("view")(Numpy().attr("uint64")));
    } else {
      // Other widths, byte orders or strides: numpy converts (a cast: negatives wrap).
      u = py::array(Numpy().attr("ascontiguousarray")(arr, Numpy().attr("uint64")));
    }
    k->owner = u;
    k->u64 = static_cast<const uint64_t*>(u.data());
    k->n = static_cast<size_t>(u.size());
    return;
  }
  if (kind == 'S' || kind == 'U') {
    py::array c = contiguous(arr) && native ? arr : py::array(Numpy().attr("ascontiguousarray")(arr));
    if (kind == 'U' && !native) c = py::array(c.attr("astype")(c.dtype().attr("newbyteorder")("=")));
    k->owner = c;
    const size_t n = static_cast<size_t>(c.size());
    k->n = n;
    const size_t width = static_cast<size_t>(c.itemsize());
    const auto* base = static_cast<const char*>(c.data());
    if (kind == 'U') {
      // Read in place, hashed once the GIL is released (HashUcs4).
      k->form = Keys::Form::kUcs4;
      k->ucs4 = base;
      k->ucs4_width = width / 4;
      return;
    }
    k->form = Keys::Form::kViews;
    k->views.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const char* s = base + i * width;
      size_t len = width;
      while (len > 0 && s[len - 1] == '\0') --len;
      k->views.emplace_back(s, len);
    }
    return;
  }
  if (kind == 'O') {
    py::array c = contiguous(arr) ? arr : py::array(Numpy().attr("ascontiguousarray")(arr));
    k->owner = c;
    ParseObjects(static_cast<PyObject* const*>(c.data()), static_cast<size_t>(c.size()), h, k);
    return;
  }
  TypeErr("keys of dtype " + py::str(static_cast<py::handle>(dt)).cast<std::string>() +
          ": expected an integer, bytes ('S'), str ('U') or object array");
}

// Keys for a filter hashing with h (string objects in a batch are hashed here).
Keys ParseKeys(py::handle obj, KeyHash h) {
  Keys k;
  PyObject* o = obj.ptr();
  if (PyBool_Check(o)) TypeErr("a bool is not a key: expected int, str, bytes or an array of them");
  if (PyLong_Check(o)) {
    k.scalar = true;
    k.int_key = IntKey(o);
    return k;
  }
  if (StringView(o, &k.str_key)) {
    k.scalar = true;
    k.is_string = true;
    k.owner = py::reinterpret_borrow<py::object>(obj);
    return k;
  }
  if (py::isinstance<py::array>(obj)) {
    ParseArray(py::reinterpret_borrow<py::array>(obj), h, &k);
    return k;
  }
  if (IsNumpyInteger(obj)) {
    py::object as_int = py::reinterpret_steal<py::object>(PyNumber_Long(o));
    if (!as_int) throw py::error_already_set();
    k.scalar = true;
    k.int_key = IntKey(as_int.ptr());
    return k;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    py::object seq = py::reinterpret_steal<py::object>(PySequence_Fast(o, "keys"));
    if (!seq) throw py::error_already_set();
    const auto n = static_cast<size_t>(PySequence_Fast_GET_SIZE(seq.ptr()));
    k.owner = seq;
    k.shape = {static_cast<py::ssize_t>(n)};
    ParseObjects(PySequence_Fast_ITEMS(seq.ptr()), n, h, &k);
    return k;
  }
  if (PyObject_HasAttrString(o, "__array__") || PySequence_Check(o)) {
    // pandas Series, Index, memoryviews ...: whatever numpy makes of it.
    ParseArray(py::array(Numpy().attr("asarray")(obj)), h, &k);
    return k;
  }
  TypeErr("keys of type " + TypeName(obj) + ": expected int, str, bytes, a list of them or a numpy array");
}

// ---- Filters with their locks --------------------------------------------------------

// A caller's writable buffer held for a Filter.in_buffer filter: the Py_buffer
// keeps the exporter's memory in place (a bytearray cannot be resized, an mmap
// not closed) until the filter is gone. Released with the GIL held (pybind11
// destroys PyFilter under it).
struct HeldBuffer {
  HeldBuffer() = default;
  HeldBuffer(const HeldBuffer&) = delete;
  HeldBuffer& operator=(const HeldBuffer&) = delete;
  ~HeldBuffer() {
    if (held) PyBuffer_Release(&view);
  }
  Py_buffer view{};
  bool held = false;
};

struct PyFilter {
  explicit PyFilter(Filter f) : filter(std::move(f)) {}
  Filter filter;
  mutable std::shared_mutex mu;
  std::unique_ptr<HeldBuffer> buffer;  // set for Filter.in_buffer: the memory `filter` lives in
};

// A mapped file (Python's blockbloom.FilterView).
struct PyView {
  explicit PyView(MappedFilter v) : view(std::move(v)) {}
  MappedFilter view;
};

// Readers hold the filter's shared lock (views have none: `mu` is null).
std::shared_lock<std::shared_mutex> ReadLock(std::shared_mutex* mu) {
  return mu != nullptr ? std::shared_lock<std::shared_mutex>(*mu) : std::shared_lock<std::shared_mutex>();
}
// One key's answer, and a batch's answers into dst[0, k.size()) (returns the
// hits): called without the GIL, under ReadLock.
template <typename F>
bool QueryOne(const F& f, const Keys& k) {
  return k.is_string ? f.MayContain(k.str_key) : f.MayContain(k.int_key);
}
template <typename F>
size_t QueryBatchInto(const F& f, Keys& k, uint8_t* dst) {
  HashUcs4(k, HashOf(f));
  const std::span<uint8_t> out(dst, k.n);
  switch (k.form) {
    case Keys::Form::kU64:
      return f.MayContainBatch(std::span<const uint64_t>(k.u64, k.n), out);
    case Keys::Form::kViews:
      return f.MayContainBatch(std::span<const std::string_view>(k.views), out);
    case Keys::Form::kHashes:
    case Keys::Form::kUcs4:
      break;
  }
  return f.MayContainHashBatch(std::span<const uint64_t>(k.hashes), out);
}

// Queries: the scalar answer as a bool, a batch as a numpy bool array of the
// keys' shape. `mu` is null for views.
template <typename F>
py::object Probe(const F& f, std::shared_mutex* mu, py::handle keys, py::handle out_arg = py::none()) {
  Keys k = ParseKeys(keys, HashOf(f));
  if (!out_arg.is_none()) {
    // The caller's answer array, reused across calls (no allocation, no fresh pages).
    if (k.scalar) TypeErr("out= needs a batch of keys");
    if (!py::isinstance<py::array>(out_arg)) TypeErr("out= takes a numpy bool array");
    auto out = py::reinterpret_borrow<py::array>(out_arg);
    if (out.dtype().kind() != 'b' || !(out.flags() & py::array::c_style) || !out.writeable() ||
        static_cast<size_t>(out.size()) != k.size())
      throw py::value_error("blockbloom: out= must be a writable C-contiguous bool array of " +
                            std::to_string(k.size()) + " elements");
    auto* dst = static_cast<uint8_t*>(out.mutable_data());
    {
      py::gil_scoped_release release;
      const auto lock = ReadLock(mu);
      QueryBatchInto(f, k, dst);
    }
    return py::reinterpret_borrow<py::object>(out_arg);
  }
  if (k.scalar) {
    bool hit;
    {
      py::gil_scoped_release release;
      const auto lock = ReadLock(mu);
      hit = QueryOne(f, k);
    }
    return py::bool_(hit);
  }
  py::array_t<bool> out(k.shape);
  auto* dst = reinterpret_cast<uint8_t*>(out.mutable_data());
  {
    py::gil_scoped_release release;
    const auto lock = ReadLock(mu);
    QueryBatchInto(f, k, dst);
  }
  return out;
}

template <typename F>
uint64_t Count(const F& f, std::shared_mutex* mu, py::handle keys) {
  Keys k = ParseKeys(keys, HashOf(f));
  py::gil_scoped_release release;
  if (k.scalar) {
    const auto lock = ReadLock(mu);
    return QueryOne(f, k) ? 1 : 0;
  }
  std::vector<uint8_t> out(k.size());
  const auto lock = ReadLock(mu);
  return QueryBatchInto(f, k, out.data());
}

template <typename F>
bool Contains(const F& f, std::shared_mutex* mu, py::handle key) {
  Keys k = ParseKeys(key, HashOf(f));
  if (!k.scalar) TypeErr("`key in filter` takes one int, str or bytes key: use may_contain(keys) for a batch");
  py::gil_scoped_release release;
  const auto lock = ReadLock(mu);
  return QueryOne(f, k);
}

void Insert(PyFilter& pf, py::handle keys) {
  Keys k = ParseKeys(keys, HashOf(pf.filter));
  py::gil_scoped_release release;
  HashUcs4(k, HashOf(pf.filter));  // before the lock: the hash and seed never change
  std::unique_lock<std::shared_mutex> lock(pf.mu);
  if (k.scalar) {
    if (k.is_string) {
      pf.filter.Insert(k.str_key);
    } else {
      pf.filter.Insert(k.int_key);
    }
    pf.filter.AddInserted(1);  // Filter::Insert(key) does not count
    return;
  }
  switch (k.form) {
    case Keys::Form::kU64:
      pf.filter.InsertBatch(std::span<const uint64_t>(k.u64, k.n));
      break;
    case Keys::Form::kViews:
      pf.filter.InsertBatch(std::span<const std::string_view>(k.views));
      break;
    case Keys::Form::kHashes:
    case Keys::Form::kUcs4:
      pf.filter.InsertHashBatch(k.hashes);
      break;
  }
}

// Union or intersection of two filters, in place (Filter::UnionWith / IntersectWith).
using CombineOp = void (Filter::*)(const blockbloom::FilterView&);

// this op= other, locking both in address order (this exclusive, other shared).
void CombineInPlace(PyFilter& self, const PyFilter& other, CombineOp op) {
  py::gil_scoped_release release;
  if (&self == &other) {
    std::unique_lock<std::shared_mutex> lock(self.mu);
    (self.filter.*op)(self.filter);
    return;
  }
  std::unique_lock<std::shared_mutex> a(self.mu, std::defer_lock);
  std::shared_lock<std::shared_mutex> b(other.mu, std::defer_lock);
  if (&self < &other) {
    a.lock();
    b.lock();
  } else {
    b.lock();
    a.lock();
  }
  (self.filter.*op)(other.filter);
}

// A mapped file's bits (Python's FilterView) combined into a filter: the view is read-only, no lock.
void CombineView(PyFilter& self, const PyView& other, CombineOp op);

// this op= other for a Filter or a FilterView; `name` ("union") for the TypeError.
void CombineAny(PyFilter& self, py::handle other, CombineOp op, const char* name) {
  if (py::isinstance<PyFilter>(other)) {
    CombineInPlace(self, other.cast<const PyFilter&>(), op);
  } else if (py::isinstance<PyView>(other)) {
    CombineView(self, other.cast<const PyView&>(), op);
  } else {
    TypeErr(std::string(name) + " takes a blockbloom.Filter or FilterView, not a " + TypeName(other));
  }
}
void UnionAny(PyFilter& self, py::handle other) { CombineAny(self, other, &Filter::UnionWith, "union"); }
void IntersectAny(PyFilter& self, py::handle other) { CombineAny(self, other, &Filter::IntersectWith, "intersect"); }

std::unique_ptr<PyFilter> Copy(const PyFilter& pf) {
  py::gil_scoped_release release;
  std::shared_lock<std::shared_mutex> lock(pf.mu);
  return std::make_unique<PyFilter>(pf.filter);
}

py::bytes ToBytes(const PyFilter& pf) {
  std::vector<uint8_t> bytes;
  {
    py::gil_scoped_release release;
    std::shared_lock<std::shared_mutex> lock(pf.mu);
    bytes = blockbloom::SerializeFilter(pf.filter);
  }
  return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::unique_ptr<PyFilter> FromBytes(py::buffer data, const std::string& name) {
  py::buffer_info info = data.request();
  if (info.ndim != 1 || info.itemsize != 1 || (info.ndim == 1 && info.strides[0] != 1))
    TypeErr("from_bytes takes a contiguous bytes-like object");
  const std::span<const uint8_t> span(static_cast<const uint8_t*>(info.ptr), static_cast<size_t>(info.size));
  py::gil_scoped_release release;
  return std::make_unique<PyFilter>(blockbloom::DeserializeFilter(span, name));
}

void CombineView(PyFilter& self, const PyView& other, CombineOp op) {
  py::gil_scoped_release release;
  std::unique_lock<std::shared_mutex> lock(self.mu);
  (self.filter.*op)(other.view);
}

// ---- Answer forms (bool / bits / indices), precomputed hashes, many filters -------------
// may_contain(keys, output=...), may_contain_hash(hashes, out=, output=...)
// and the module's may_contain_many / may_contain_hash_many. `output`:
//   "bool":    a numpy bool array, one answer per key (many: shape (keys, filters));
//   "bits":    numpy uint64 words, bit i % 64 of word i / 64 for key i, LSB-first,
//              the last word's unused bits 0 (many: shape (filters, words));
//   "indices": a numpy uint32 array of the indices of the keys that may be
//              present, ascending (many: a list of them, one per filter).

enum class Output { kBool, kBits, kIndices };

Output OutputArg(const std::string& name) {
  if (name == "bool") return Output::kBool;
  if (name == "bits") return Output::kBits;
  if (name == "indices") return Output::kIndices;
  throw py::value_error("blockbloom: output = '" + name + "' is unknown: expected 'bool', 'bits' or 'indices'");
}

// Precomputed hashes: any integer array (uint64 as it is, others converted as
// numpy casts them), as a Keys batch of u64 whose `hashes` flag says what they are.
struct Batch {
  Keys keys;
  bool hashes = false;
};

Batch HashBatch(py::handle obj) {
  Batch b;
  b.hashes = true;
  py::array arr = py::isinstance<py::array>(obj) ? py::reinterpret_borrow<py::array>(obj)
                                                 : py::array(Numpy().attr("asarray")(obj));
  const char kind = arr.dtype().kind();
  if (kind != 'u' && kind != 'i')
    TypeErr("hashes of dtype " + py::str(static_cast<py::handle>(arr.dtype())).cast<std::string>() +
            ": expected a uint64 array (blockbloom.hash_key's values)");
  ParseArray(arr, KeyHash{}, &b.keys);  // an integer array: the hash kind is not used
  return b;
}

// Keys for filters hashing with h, every form but u64 and string views hashed
// (a 'U' array without the GIL, as QueryBatchInto does).
Batch KeyBatch(py::handle obj, KeyHash h) {
  Batch b{ParseKeys(obj, h)};
  if (b.keys.scalar) TypeErr("this form needs a batch of keys, not one key");
  py::gil_scoped_release release;
  HashUcs4(b.keys, h);
  return b;
}

std::span<const uint64_t> U64(const Keys& k) { return {k.u64, k.n}; }
std::span<const std::string_view> Views(const Keys& k) { return {k.views}; }
// What a batch holds once parsed: hashes (precomputed ones in place, or the
// keys' own: string objects and 'U' arrays are hashed while parsed), string
// views ('S' arrays), or integer keys.
bool IsHashes(const Batch& b) { return b.hashes || b.keys.form == Keys::Form::kHashes; }
std::span<const uint64_t> Hashes(const Batch& b) {
  return b.hashes ? U64(b.keys) : std::span<const uint64_t>(b.keys.hashes);
}
bool IsStrings(const Batch& b) { return !b.hashes && b.keys.form == Keys::Form::kViews; }

// One filter's answers in one form; under the caller's ReadLock, without the GIL.
template <typename F>
size_t BytesOf(const F& f, const Batch& b, std::span<uint8_t> out) {
  if (IsHashes(b)) return f.MayContainHashBatch(Hashes(b), out);
  return IsStrings(b) ? f.MayContainBatch(Views(b.keys), out) : f.MayContainBatch(U64(b.keys), out);
}
template <typename F>
size_t BitsOf(const F& f, const Batch& b, std::span<uint64_t> out) {
  if (IsHashes(b)) return f.MayContainHashBatchBitmap(Hashes(b), out);
  return IsStrings(b) ? f.MayContainBatchBitmap(Views(b.keys), out) : f.MayContainBatchBitmap(U64(b.keys), out);
}
template <typename F>
size_t IndicesOf(const F& f, const Batch& b, std::span<uint32_t> out) {
  if (IsHashes(b)) return f.MayContainHashBatchSelect(Hashes(b), out);
  return IsStrings(b) ? f.MayContainBatchSelect(Views(b.keys), out) : f.MayContainBatchSelect(U64(b.keys), out);
}

// out=: a writable C-contiguous bool or uint8 array of n elements.
uint8_t* OutBytes(py::handle out_arg, size_t n) {
  if (!py::isinstance<py::array>(out_arg)) TypeErr("out= takes a numpy bool or uint8 array");
  auto out = py::reinterpret_borrow<py::array>(out_arg);
  const bool bytes = out.dtype().kind() == 'b' || (out.dtype().kind() == 'u' && out.itemsize() == 1);
  if (!bytes || !(out.flags() & py::array::c_style) || !out.writeable() || static_cast<size_t>(out.size()) != n)
    throw py::value_error("blockbloom: out= must be a writable C-contiguous bool or uint8 array of " +
                          std::to_string(n) + " elements");
  return static_cast<uint8_t*>(out.mutable_data());
}

template <typename F>
py::object ProbeForm(const F& f, std::shared_mutex* mu, const Batch& b, Output form, py::handle out_arg) {
  const size_t n = b.keys.size();
  if (!out_arg.is_none() && form != Output::kBool) TypeErr("out= goes with output='bool' only");
  if (form == Output::kBool) {
    py::object out = out_arg.is_none() ? py::object(py::array_t<bool>(b.keys.shape))
                                       : py::reinterpret_borrow<py::object>(out_arg);
    uint8_t* dst = OutBytes(out, n);
    py::gil_scoped_release release;
    const auto lock = ReadLock(mu);
    BytesOf(f, b, std::span<uint8_t>(dst, n));
    return out;
  }
  if (form == Output::kBits) {
    py::array_t<uint64_t> bits(static_cast<py::ssize_t>((n + 63) / 64));
    uint64_t* dst = bits.mutable_data();
    py::gil_scoped_release release;
    const auto lock = ReadLock(mu);
    BitsOf(f, b, std::span<uint64_t>(dst, (n + 63) / 64));
    return bits;
  }
  std::vector<uint32_t> sel(n);
  size_t r;
  {
    py::gil_scoped_release release;
    const auto lock = ReadLock(mu);
    r = IndicesOf(f, b, sel);
  }
  return py::array_t<uint32_t>(static_cast<py::ssize_t>(r), sel.data());
}

// may_contain(keys, out=, output=): "bool" is the established path (scalars too).
template <typename F>
py::object ProbeKeys(const F& f, std::shared_mutex* mu, py::handle keys, py::handle out, const std::string& output) {
  const Output form = OutputArg(output);
  if (form == Output::kBool) return Probe(f, mu, keys, out);
  return ProbeForm(f, mu, KeyBatch(keys, HashOf(f)), form, out);
}

// The filters of a many-filter probe (Filter or FilterView objects) with
// their locks, taken shared in address order (as unions take theirs), so no
// two calls can wait on each other.
struct ManyFilters {
  std::vector<const blockbloom::FilterView*> views;
  std::vector<std::shared_mutex*> mutexes;  // distinct, ascending
  std::vector<py::object> refs;             // keeps the filters of a generator alive for the call

  explicit ManyFilters(py::handle seq) {
    for (py::handle item : py::reinterpret_borrow<py::iterable>(seq)) {
      refs.push_back(py::reinterpret_borrow<py::object>(item));
      if (py::isinstance<PyFilter>(item)) {
        PyFilter& pf = item.cast<PyFilter&>();
        views.push_back(&pf.filter);
        mutexes.push_back(&pf.mu);
      } else if (py::isinstance<PyView>(item)) {
        views.push_back(&item.cast<PyView&>().view);
      } else {
        TypeErr("filters[" + std::to_string(views.size()) + "] is a " + TypeName(item) +
                ": expected a blockbloom.Filter or FilterView");
      }
    }
    std::sort(mutexes.begin(), mutexes.end());
    mutexes.erase(std::unique(mutexes.begin(), mutexes.end()), mutexes.end());
  }
  std::vector<std::shared_lock<std::shared_mutex>> Lock() const {
    std::vector<std::shared_lock<std::shared_mutex>> locks;
    for (std::shared_mutex* mu : mutexes) locks.emplace_back(*mu);
    return locks;
  }
};

// The many-filter call for the batch's kind: many(keys) for u64 or string
// keys, hash_many(hashes) for precomputed hashes.
template <typename Many, typename HashMany>
void ForBatch(const Batch& b, Many&& many, HashMany&& hash_many) {
  if (IsHashes(b)) {
    hash_many(Hashes(b));
  } else if (IsStrings(b)) {
    many(Views(b.keys));
  } else {
    many(U64(b.keys));
  }
}

py::object ProbeMany(py::handle filters_arg, py::handle keys_arg, bool are_hashes, const std::string& output) {
  using namespace blockbloom;  // NOLINT(google-build-using-namespace): the MayContain*Many overloads
  const Output form = OutputArg(output);
  const ManyFilters fs(filters_arg);
  // String keys are hashed as the first filter with blocks hashes (the call
  // refuses filters that hash otherwise, naming the first that does).
  KeyHash h{HashKind::kXxh3, 0};
  for (const FilterView* v : fs.views) {
    if (!v->empty()) {
      h = HashOf(*v);
      break;
    }
  }
  const Batch b = are_hashes ? HashBatch(keys_arg) : KeyBatch(keys_arg, h);
  const FilterPtrs filters(fs.views);
  const size_t n = b.keys.size(), nf = fs.views.size();
  const auto run = [&](auto&& many, auto&& hash_many) {
    py::gil_scoped_release release;
    const auto locks = fs.Lock();
    ForBatch(b, many, hash_many);
  };
  if (form == Output::kBool) {
    py::array_t<bool> out({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(nf)});
    const std::span<uint8_t> dst(reinterpret_cast<uint8_t*>(out.mutable_data()), n * nf);
    run([&](auto keys) { MayContainMany(filters, keys, dst); },
        [&](auto hashes) { MayContainHashMany(filters, hashes, dst); });
    return out;
  }
  if (form == Output::kBits) {
    const size_t words = (n + 63) / 64;
    py::array_t<uint64_t> out({static_cast<py::ssize_t>(nf), static_cast<py::ssize_t>(words)});
    const std::span<uint64_t> dst(out.mutable_data(), nf * words);
    run([&](auto keys) { MayContainManyBitmap(filters, keys, dst); },
        [&](auto hashes) { MayContainHashManyBitmap(filters, hashes, dst); });
    return out;
  }
  std::vector<uint32_t> sel(n * nf);
  std::vector<size_t> counts(nf);
  run([&](auto keys) { MayContainManySelect(filters, keys, std::span<uint32_t>(sel), std::span<size_t>(counts)); },
      [&](auto hashes) { MayContainHashManySelect(filters, hashes, std::span<uint32_t>(sel), std::span<size_t>(counts)); });
  py::list rows;
  for (size_t j = 0; j < nf; ++j)
    rows.append(py::array_t<uint32_t>(static_cast<py::ssize_t>(counts[j]), sel.data() + j * n));
  return rows;
}

// Model rate at the distinct keys the fill suggests (what `blockbloom stats` reports).
template <typename F>
std::pair<double, double> EstimateAndRate(const F& f, uint64_t popcount) {
  const double est = blockbloom::EstimateDistinctKeys(f.layout(), f.num_blocks(), f.k(), popcount);
  const double rate = std::isfinite(est)
                          ? blockbloom::PredictFpr(f.layout(), f.num_blocks(), f.k(),
                                                   static_cast<uint64_t>(std::llround(est)))
                          : 1.0;
  return {est, rate};
}

py::dict ParamsDict(const blockbloom::FilterParams& p, uint64_t n) {
  py::dict d;
  d["layout"] = std::string(blockbloom::LayoutName(p.layout));
  d["num_blocks"] = p.num_blocks;
  d["k"] = p.k;
  d["bits"] = p.bits;
  d["nbytes"] = (p.bits + 511) / 512 * 64;
  d["bits_per_key"] = static_cast<double>(p.bits) / static_cast<double>(n);
  d["fpr"] = p.fpr;
  return d;
}

std::string Describe(Layout layout, uint64_t blocks, uint32_t k, uint64_t bytes, HashKind hash, uint64_t seed,
                     uint64_t inserted) {
  return std::string(blockbloom::LayoutName(layout)) + ", " + std::to_string(blocks) +
         " " + std::string(blockbloom::LayoutUnitName(layout)) + ", k=" + std::to_string(k) + ", " +
         std::to_string(bytes) + " bytes, hash " + std::string(blockbloom::HashName(hash)) + " seed " +
         std::to_string(seed) + ", " + std::to_string(inserted) + " keys inserted";
}

// Common read-only properties of Filter and FilterView. lock(s) returns the
// shared lock that orders a Filter's bit reads against inserts (none for a view).
template <typename Cls, typename Get, typename Lock>
void DefineInfo(Cls& cls, Get get, Lock lock) {
  cls.def_property_readonly("layout", [get](const typename Cls::type& s) { return std::string(blockbloom::LayoutName(get(s).layout())); },
                            "The layout's name, one of blockbloom.layouts().")
      .def_property_readonly("hash", [get](const typename Cls::type& s) { return std::string(blockbloom::HashName(get(s).hash_kind())); },
                             "The key hash: 'xxh3', 'xxh64', 'mulx', 'rocksdb', 'aes' or 'foldmul'.")
      .def_property_readonly("seed", [get](const typename Cls::type& s) { return get(s).seed(); }, "The hash seed.")
      .def_property_readonly("k", [get](const typename Cls::type& s) { return get(s).k(); }, "Bits set per key.")
      .def_property_readonly("num_blocks", [get](const typename Cls::type& s) { return get(s).num_blocks(); },
                             "Blocks (classic: bits).")
      .def_property_readonly("bits", [get](const typename Cls::type& s) { return get(s).bit_count(); }, "Bits m.")
      .def_property_readonly("nbytes", [get](const typename Cls::type& s) { return get(s).byte_size(); },
                             "Payload bytes (a multiple of 64).")
      .def_property_readonly("inserted", [get](const typename Cls::type& s) { return get(s).inserted(); },
                             "Keys inserted, duplicates counted each time (unions add them up).")
      .def_property_readonly("popcount", [get, lock](const typename Cls::type& s) {
        py::gil_scoped_release release;
        const auto held = lock(s);
        return get(s).PopCount();
      }, "Bits set.")
      .def_property_readonly("fill_ratio", [get, lock](const typename Cls::type& s) {
        py::gil_scoped_release release;
        const auto held = lock(s);
        return static_cast<double>(get(s).PopCount()) / static_cast<double>(get(s).bit_count());
      }, "Fraction of bits set.")
      .def_property_readonly("estimated_keys", [get, lock](const typename Cls::type& s) {
        py::gil_scoped_release release;
        const auto held = lock(s);
        return EstimateAndRate(get(s), get(s).PopCount()).first;
      }, "Distinct keys estimated from the fill (inf when every bit is set).")
      .def_property_readonly("predicted_fpr", [get, lock](const typename Cls::type& s) {
        py::gil_scoped_release release;
        const auto held = lock(s);
        return EstimateAndRate(get(s), get(s).PopCount()).second;
      }, "The exact model's false-positive rate at estimated_keys (blockbloom stats' 'rate now').");
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "blockbloom's compiled core: SIMD cache-line-blocked Bloom filters (see the blockbloom package).";
  // The library's version (CMake's project version), which setup.py also gives the package.
  m.attr("__version__") = std::string(blockbloom::Version());

  // FormatError(ValueError) with .offset, created here so the translator can raise it.
  static py::handle format_error = PyErr_NewExceptionWithDoc(
      "blockbloom.FormatError",
      "A file or buffer that is not a valid blockbloom filter. str() names the file, the byte offset and the\n"
      "problem; .offset is the byte offset of the first byte found wrong (for a truncated file, its size).",
      PyExc_ValueError, nullptr);
  m.attr("FormatError") = py::reinterpret_borrow<py::object>(format_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const blockbloom::FormatError& e) {
      py::object err = py::reinterpret_borrow<py::object>(format_error)(MessageStr(e.what()));
      err.attr("offset") = e.offset();
      PyErr_SetObject(format_error.ptr(), err.ptr());
    } catch (const IoError& e) {
      PyErr_SetObject(PyExc_OSError, MessageStr(e.what()).ptr());
    } catch (const std::invalid_argument& e) {  // as pybind11's ValueError, but any bytes of a path kept
      PyErr_SetObject(PyExc_ValueError, MessageStr(e.what()).ptr());
    }
  });

  using FilterCls = py::class_<PyFilter>;
  FilterCls filter(m, "Filter", py::buffer_protocol(), R"doc(
A Bloom filter of any layout, built by Filter.for_keys / Filter.with_bytes / load / from_bytes.

Keys: a numpy integer array (uint64 and int64 C-contiguous arrays are used in place, without a copy),
a bytes ('S') or str ('U') array, an object array or list of str/bytes, or one int, str or bytes.
Batch calls release the GIL. The buffer protocol exposes the payload bits read-only without a copy:
memoryview(f), numpy.frombuffer(f, numpy.uint64).
)doc");
  filter
      .def_static("for_keys", [](uint64_t n, double fpr, const std::string& layout, const std::string& hash, uint64_t seed) {
        return std::make_unique<PyFilter>(Filter::ForKeys(LayoutArg(layout), n, fpr, HashArg(hash), seed));
      }, py::arg("n"), py::arg("fpr"), py::arg("layout") = "blocked512", py::arg("hash") = "xxh3", py::arg("seed") = 0,
      "The smallest filter (and its best k) whose exact-model false-positive rate for n keys is at most fpr.")
      .def_static("with_bytes", [](uint64_t nbytes, std::optional<uint32_t> k, std::optional<uint64_t> n,
                                   const std::string& layout, const std::string& hash, uint64_t seed) {
        const Layout l = LayoutArg(layout);
        if (!k) {
          if (!n || *n == 0)
            throw std::invalid_argument("blockbloom: with_bytes needs k, or n (the expected keys) to choose the best k");
          if (nbytes == 0) throw std::invalid_argument("blockbloom: nbytes = 0 is out of range: expected > 0");
          const uint64_t block = blockbloom::LayoutBlockBits(l);
          k = blockbloom::SolveForSize(l, (nbytes * 8 + block - 1) / block, *n).k;
        }
        return std::make_unique<PyFilter>(Filter::WithBytes(l, nbytes, *k, HashArg(hash), seed));
      }, py::arg("nbytes"), py::arg("k") = py::none(), py::kw_only(), py::arg("n") = py::none(),
      py::arg("layout") = "blocked512", py::arg("hash") = "xxh3", py::arg("seed") = 0,
      "A filter of at least nbytes bytes (whole blocks) with k bits per key; without k, the model's best k for n keys.")
      .def("insert", [](PyFilter& self, py::handle keys) { Insert(self, keys); }, py::arg("keys"),
           "Inserts one key or a batch (GIL released; exclusive against other calls on this filter).")
      .def("may_contain", [](const PyFilter& self, py::handle keys, py::handle out, const std::string& output) {
        return ProbeKeys(self.filter, &self.mu, keys, out, output);
      }, py::arg("keys"), py::arg("out") = py::none(), py::kw_only(), py::arg("output") = "bool",
           "False: certainly absent; True: present or a false positive. A bool for one key, a numpy bool array "
           "of the keys' shape for a batch (or `out`, a bool array of as many elements, filled and returned). "
           "output='bits': uint64 words, bit i % 64 of word i // 64 for key i (LSB-first); "
           "output='indices': the uint32 indices of the keys that may be present, ascending.")
      .def("may_contain_hash", [](const PyFilter& self, py::handle hashes, py::handle out, const std::string& output) {
        return ProbeForm(self.filter, &self.mu, HashBatch(hashes), OutputArg(output), out);
      }, py::arg("hashes"), py::arg("out") = py::none(), py::kw_only(), py::arg("output") = "bool",
           "As may_contain for precomputed 64-bit hashes (a uint64 array of hash_key values with this filter's "
           "hash and seed); out= may be a bool or uint8 array.")
      .def("count", [](const PyFilter& self, py::handle keys) { return Count(self.filter, &self.mu, keys); },
           py::arg("keys"), "How many of the keys may be present.")
      .def("__contains__", [](const PyFilter& self, py::handle key) { return Contains(self.filter, &self.mu, key); })
      .def("union", [](PyFilter& self, py::handle other) { UnionAny(self, other); }, py::arg("other"),
           "self |= other (a Filter or a FilterView): the filter of both key sets, exactly. ValueError naming "
           "the difference if incompatible.")
      .def("__ior__", [](py::object self, py::handle other) {
        UnionAny(self.cast<PyFilter&>(), other);
        return self;
      })
      .def("__or__", [](const PyFilter& self, py::handle other) {
        std::unique_ptr<PyFilter> out = Copy(self);
        UnionAny(*out, other);
        return out;
      })
      .def("intersect", [](PyFilter& self, py::handle other) { IntersectAny(self, other); }, py::arg("other"),
           "self &= other (a Filter or a FilterView): the bitwise AND. Every key of both is still found and the "
           "false-positive rate is at most either's, but it is not the filter of the intersection set (bits set "
           "by different keys in each survive). ValueError naming the difference if incompatible.")
      .def("__iand__", [](py::object self, py::handle other) {
        IntersectAny(self.cast<PyFilter&>(), other);
        return self;
      })
      .def("__and__", [](const PyFilter& self, py::handle other) {
        std::unique_ptr<PyFilter> out = Copy(self);
        IntersectAny(*out, other);
        return out;
      })
      .def("compatible", [](const PyFilter& self, const PyFilter& other) -> std::optional<std::string> {
        std::string why;
        if (self.filter.CompatibleWith(other.filter, &why)) return std::nullopt;
        return why;
      }, py::arg("other"), "None if union with other is possible, else why not.")
      .def("clear", [](PyFilter& self) {
        py::gil_scoped_release release;
        std::unique_lock<std::shared_mutex> lock(self.mu);
        self.filter.Clear();
      }, "Removes every key.")
      .def("copy", [](const PyFilter& self) { return Copy(self); }, "An independent copy.")
      .def("__copy__", [](const PyFilter& self) { return Copy(self); })
      .def("__deepcopy__", [](const PyFilter& self, py::handle) { return Copy(self); })
      .def("__eq__", [](const PyFilter& self, py::handle other) -> py::object {
        if (!py::isinstance<PyFilter>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        const PyFilter& o = other.cast<const PyFilter&>();
        if (&o == &self) return py::bool_(true);
        bool eq;
        {
          py::gil_scoped_release release;
          std::shared_lock<std::shared_mutex> a(self.mu, std::defer_lock);
          std::shared_lock<std::shared_mutex> b(o.mu, std::defer_lock);
          if (&self < &o) {
            a.lock();
            b.lock();
          } else {
            b.lock();
            a.lock();
          }
          eq = self.filter == o.filter;
        }
        return py::bool_(eq);
      }, py::arg("other"), "Same parameters and the same bits (inserted counts are not compared).")
      .def("save", [](const PyFilter& self, py::handle path_arg) {
        const std::string path = PathArg(path_arg);
        py::gil_scoped_release release;
        std::shared_lock<std::shared_mutex> lock(self.mu);
        FileOp([&] { blockbloom::SaveFilter(self.filter, path); });
      }, py::arg("path"), "Writes the filter file atomically (temporary file, fsync, rename).")
      .def_static("load", [](py::handle path_arg) {
        const std::string path = PathArg(path_arg);
        py::gil_scoped_release release;
        return FileOp([&] { return std::make_unique<PyFilter>(blockbloom::LoadFilter(path)); });
      }, py::arg("path"), "Reads and validates a filter file: FormatError (with .offset) if it is not one, OSError if unreadable.")
      .def("to_bytes", &ToBytes, "The filter file's bytes (header + payload).")
      .def_static("from_bytes", [](py::buffer data) { return FromBytes(data, "<bytes>"); }, py::arg("data"),
                  "The filter in a filter file's bytes, validated as load() does.")
      .def("to_parquet", [](const PyFilter& self, bool header) {
        std::string out;
        {
          py::gil_scoped_release release;
          std::shared_lock<std::shared_mutex> lock(self.mu);
          const std::span<const uint8_t> bits = blockbloom::ParquetBitset(self.filter);
          if (header) {
            const std::vector<uint8_t> h = blockbloom::ParquetHeaderBytes(static_cast<uint32_t>(bits.size()));
            out.assign(h.begin(), h.end());
          }
          out.append(reinterpret_cast<const char*>(bits.data()), bits.size());
        }
        return py::bytes(out);
      }, py::arg("header") = true,
      "An Apache Parquet split-block Bloom filter (Thrift header + bitset, or the bare bitset): needs "
      "layout='split256', hash='xxh64', seed=0, else ValueError.")
      .def_static("from_parquet", [](py::buffer data, bool header) {
        py::buffer_info info = data.request();
        const std::span<const uint8_t> span(static_cast<const uint8_t*>(info.ptr), static_cast<size_t>(info.size));
        return std::make_unique<PyFilter>(header ? blockbloom::ImportParquet(span, "<parquet>")
                                                 : blockbloom::ImportParquetBitset(span, "<parquet>"));
      }, py::arg("data"), py::arg("header") = true,
      "A Parquet split-block Bloom filter (Thrift header + bitset, or a bare bitset with header=False).")
      .def_buffer([](PyFilter& self) {
        return py::buffer_info(const_cast<uint8_t*>(self.filter.data()), 1, py::format_descriptor<uint8_t>::format(), 1,
                               {static_cast<py::ssize_t>(self.filter.byte_size())}, {py::ssize_t{1}},
                               /*readonly=*/true);
      })
      .def("__repr__", [](const PyFilter& self) {
        const Filter& f = self.filter;
        return "<blockbloom.Filter " + Describe(f.layout(), f.num_blocks(), f.k(), f.byte_size(), f.hash_kind(),
                                                f.seed(), f.inserted()) + ">";
      });
  filter.attr("__hash__") = py::none();
  // ---- Caller-owned memory (Filter::InBuffer) ----
  filter.def_static("in_buffer", [](py::handle buffer, uint64_t blocks, uint32_t k, const std::string& layout,
                                    const std::string& hash, uint64_t seed, bool clear, uint64_t inserted) {
    auto held = std::make_unique<HeldBuffer>();
    if (PyObject_GetBuffer(buffer.ptr(), &held->view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) {
      PyErr_Clear();
      throw py::value_error("blockbloom: buffer must be a writable C-contiguous buffer (bytearray, numpy array, "
                            "mmap, multiprocessing.shared_memory): got a " +
                            std::string(Py_TYPE(buffer.ptr())->tp_name) + " that is read-only or not contiguous");
    }
    held->held = true;
    const std::span<uint8_t> span(static_cast<uint8_t*>(held->view.buf), static_cast<size_t>(held->view.len));
    auto f = std::make_unique<PyFilter>(Filter::InBuffer(span, LayoutArg(layout), blocks, k, HashArg(hash), seed,
                                                         clear ? Filter::BufferInit::kClear : Filter::BufferInit::kKeep,
                                                         inserted));
    f->buffer = std::move(held);
    return f;
  }, py::arg("buffer"), py::arg("blocks"), py::arg("k"), py::kw_only(), py::arg("layout") = "blocked512",
  py::arg("hash") = "xxh3", py::arg("seed") = 0, py::arg("clear") = true, py::arg("inserted") = 0,
  "A filter whose bits live in the caller's writable buffer (numpy, mmap, shared memory): at least "
  "required_bytes(layout, blocks) bytes at an address that is a multiple of REQUIRED_ALIGNMENT (64). "
  "clear=True zeroes them (an empty filter); clear=False takes the bits already there (a filter's payload, "
  "e.g. attached from another process; pass its inserted count). The buffer stays held (cannot be resized or "
  "closed) while the filter lives; inserts, queries, save and to_bytes are those of any Filter.");
  filter.def_property_readonly("owns_memory", [](const PyFilter& self) { return self.filter.owns_memory(); },
                               "False for a filter made by in_buffer (its bits are the caller's buffer).");
  m.def("required_bytes", [](const std::string& layout, uint64_t blocks) {
    return Filter::RequiredBytes(LayoutArg(layout), blocks);
  }, py::arg("layout"), py::arg("blocks"), "The bytes Filter.in_buffer needs for a filter of this layout and size.");
  m.attr("REQUIRED_ALIGNMENT") = Filter::kRequiredAlignment;
  DefineInfo(
      filter, [](const PyFilter& s) -> const Filter& { return s.filter; },
      [](const PyFilter& s) { return std::shared_lock<std::shared_mutex>(s.mu); });

  py::class_<PyView> view(m, "FilterView", py::buffer_protocol(), R"doc(
A filter file mapped read-only (Filter.open / blockbloom.open): queried in place, pages shared with every
process mapping the same file. The same queries and introspection as Filter; no insert or union.
)doc");
  view.def("may_contain", [](const PyView& self, py::handle keys, py::handle out, const std::string& output) {
        return ProbeKeys(self.view, nullptr, keys, out, output);
      }, py::arg("keys"), py::arg("out") = py::none(), py::kw_only(), py::arg("output") = "bool",
      "As Filter.may_contain.")
      .def("may_contain_hash", [](const PyView& self, py::handle hashes, py::handle out, const std::string& output) {
        return ProbeForm(self.view, nullptr, HashBatch(hashes), OutputArg(output), out);
      }, py::arg("hashes"), py::arg("out") = py::none(), py::kw_only(), py::arg("output") = "bool",
      "As Filter.may_contain_hash.")
      .def("count", [](const PyView& self, py::handle keys) { return Count(self.view, nullptr, keys); }, py::arg("keys"))
      .def("__contains__", [](const PyView& self, py::handle key) { return Contains(self.view, nullptr, key); })
      .def("to_filter", [](const PyView& self) {
        py::gil_scoped_release release;
        return std::make_unique<PyFilter>(self.view.ToFilter());
      }, "A heap copy as an ordinary, mutable Filter.")
      .def("to_bytes", [](const PyView& self) {
        std::vector<uint8_t> bytes;
        {
          py::gil_scoped_release release;
          bytes = blockbloom::SerializeFilter(self.view);
        }
        return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      })
      .def_buffer([](PyView& self) {
        return py::buffer_info(const_cast<uint8_t*>(self.view.data()), 1, py::format_descriptor<uint8_t>::format(), 1,
                               {static_cast<py::ssize_t>(self.view.byte_size())}, {py::ssize_t{1}},
                               /*readonly=*/true);
      })
      .def("__repr__", [](const PyView& self) {
        const MappedFilter& f = self.view;
        return "<blockbloom.FilterView " + Describe(f.layout(), f.num_blocks(), f.k(), f.byte_size(), f.hash_kind(),
                                                    f.seed(), f.inserted()) + ">";
      });
  DefineInfo(
      view, [](const PyView& s) -> const MappedFilter& { return s.view; },
      [](const PyView&) { return std::shared_lock<std::shared_mutex>(); });
  filter.def_static("open", [](py::handle path_arg) {
    const std::string path = PathArg(path_arg);
    py::gil_scoped_release release;
    return FileOp([&] { return std::make_unique<PyView>(MappedFilter::Open(path)); });
  }, py::arg("path"), "Maps a filter file read-only and validates it (FilterView); FormatError / OSError as load().");

  // Filter.__new__(Filter) would give an instance whose C++ object was never
  // built (pybind11 allocates in __new__ and constructs in __init__; these
  // classes come from factories and have no __init__), and every method on it
  // would read uninitialised memory: to_bytes() wrote garbage, may_contain()
  // crashed. Python-level __new__ is refused; pybind11 makes the instances it
  // returns with tp_alloc, not __new__, and pickling goes through __reduce__.
  const auto refuse_new = [](const char* what) {
    return py::staticmethod(py::cpp_function([what](py::args, py::kwargs) -> py::object {
      throw py::type_error(std::string("blockbloom: ") + what);
    }));
  };
  filter.attr("__new__") = refuse_new(
      "a Filter is made by Filter.for_keys, Filter.with_bytes, load, from_bytes or from_parquet, not by __new__");
  view.attr("__new__") = refuse_new("a FilterView is made by blockbloom.open (Filter.open), not by __new__");

  m.def("params", [](uint64_t n, double fpr, const std::string& layout) {
    return ParamsDict(blockbloom::SolveForKeys(LayoutArg(layout), n, fpr), n);
  }, py::arg("n"), py::arg("fpr"), py::arg("layout") = "blocked512",
  "The smallest filter of `layout` whose exact-model rate for n keys is at most fpr: a dict with layout, "
  "num_blocks, k, bits, nbytes, bits_per_key and fpr (the model's rate at n).");
  m.def("predict_fpr", [](const std::string& layout, uint64_t num_blocks, uint32_t k, uint64_t n) {
    return blockbloom::PredictFpr(LayoutArg(layout), num_blocks, k, n);
  }, py::arg("layout"), py::arg("num_blocks"), py::arg("k"), py::arg("n"),
  "The exact model's false-positive rate of a filter of num_blocks blocks (classic: bits) and k bits per key "
  "after n distinct keys.");
  m.def("layouts", [] {
    std::vector<std::string> out;
    for (Layout l : blockbloom::kAllLayouts) out.emplace_back(blockbloom::LayoutName(l));
    return out;
  }, "The layout names.");
  m.def("targets", [] {
    std::vector<std::pair<std::string, bool>> out;
    for (const auto& t : blockbloom::CompiledTargets()) out.emplace_back(std::string(t.name), t.supported);
    return out;
  }, "Every compiled SIMD target, best first, as (name, supported by this CPU).");
  m.def("active_target", [] { return std::string(blockbloom::ActiveTarget()); }, "The SIMD target in use.");
  m.def("pin_target", [](const std::string& name) { blockbloom::PinTarget(name); }, py::arg("name"),
        "Uses the named target for every filter in the process ('auto' unpins). ValueError if it is not "
        "compiled or not supported by this CPU.");
  m.def("may_contain_many", [](py::handle filters, py::handle keys, const std::string& output) {
    return ProbeMany(filters, keys, false, output);
  }, py::arg("filters"), py::arg("keys"), py::kw_only(), py::arg("output") = "bool",
  "One batch of keys against many filters (Filter or FilterView) sharing a hash and seed, each key hashed once: "
  "a bool array of shape (len(keys), len(filters)); output='bits': uint64 words of shape (len(filters), words); "
  "output='indices': a list of uint32 index arrays, one per filter. ValueError naming the filter whose hash "
  "or seed differs.");
  m.def("may_contain_hash_many", [](py::handle filters, py::handle hashes, const std::string& output) {
    return ProbeMany(filters, hashes, true, output);
  }, py::arg("filters"), py::arg("hashes"), py::kw_only(), py::arg("output") = "bool",
  "As may_contain_many for precomputed uint64 hashes.");
  m.def("hash_key", [](py::handle key, const std::string& hash, uint64_t seed) {
    const KeyHash h{HashArg(hash), seed};
    Keys k = ParseKeys(key, h);
    if (!k.scalar) TypeErr("hash_key takes one int, str or bytes key");
    return k.is_string ? blockbloom::HashBytes(k.str_key, h.kind, h.seed) : blockbloom::HashU64(k.int_key, h.kind, h.seed);
  }, py::arg("key"), py::arg("hash") = "xxh3", py::arg("seed") = 0, "A key's 64-bit hash, as the filters compute it.");

  // For python/bench: the C++ batch call timed in C++ (no Python in the loop),
  // so the benchmark compares it with the Python call in the same process.
  m.def("_bench_cpp", [](PyFilter& self, py::array_t<uint64_t, py::array::c_style> keys, const std::string& op,
                         int reps) {
    const auto n = static_cast<size_t>(keys.size());
    const std::span<const uint64_t> span(keys.data(), n);
    std::vector<uint8_t> out(n);
    double best = 1e300;
    py::gil_scoped_release release;
    std::unique_lock<std::shared_mutex> lock(self.mu);
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      if (op == "insert") {
        self.filter.InsertBatch(span);
      } else {
        self.filter.MayContainBatch(span, out);
      }
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, s);
    }
    return best;
  }, py::arg("filter"), py::arg("keys"), py::arg("op") = "query", py::arg("reps") = 5);

  // ---- RocksDB full filters (blockbloom/rocksdb.h), added to Filter here ----
  {
    py::object filter_cls = m.attr("Filter");
    filter_cls.attr("to_rocksdb") = py::cpp_function(
        [](const PyFilter& self) {
          std::vector<uint8_t> block;
          {
            py::gil_scoped_release release;
            std::shared_lock<std::shared_mutex> lock(self.mu);
            block = blockbloom::ExportRocksdb(self.filter);
          }
          return py::bytes(reinterpret_cast<const char*>(block.data()), block.size());
        },
        py::is_method(filter_cls), py::name("to_rocksdb"),
        "A RocksDB full filter block (FastLocalBloom bitset + 5-byte trailer): needs layout='blocked512', "
        "hash='rocksdb', seed=0, else ValueError.");
    filter_cls.attr("from_rocksdb") = py::staticmethod(py::cpp_function(
        [](py::buffer data) {
          py::buffer_info info = data.request();
          const std::span<const uint8_t> span(static_cast<const uint8_t*>(info.ptr), static_cast<size_t>(info.size));
          return std::make_unique<PyFilter>(blockbloom::ImportRocksdb(span, "<rocksdb>"));
        },
        py::name("from_rocksdb"), py::arg("data"),
        "A RocksDB full filter block as a blocked512 / rocksdb / seed 0 filter; FormatError (with .offset) for "
        "Ribbon, legacy Bloom or malformed blocks."));
    m.def("read_rocksdb_sst", [](py::handle path_arg) {
      const std::string path = PathArg(path_arg);
      py::gil_scoped_release release;
      return FileOp([&] { return std::make_unique<PyFilter>(blockbloom::ReadRocksdbSst(path)); });
    }, py::arg("path"),
    "The full filter of a RocksDB block-based SST file (fullfilter.rocksdb.BuiltinBloomFilter) as a Filter; "
    "FormatError (with .offset) for partitioned or other filters and malformed files, OSError if unreadable.");
  }
}
