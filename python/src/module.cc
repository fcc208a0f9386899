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
// NULs stripped).
//
// Threads: every batch call releases the GIL. A Filter carries a shared_mutex:
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

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
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
#include "blockbloom/model.h"
#include "blockbloom/parquet.h"
#include "blockbloom/rocksdb.h"
#include "blockbloom/targets.h"
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

// A path: str, bytes or os.PathLike (os.fspath).
std::string PathArg(py::handle path) {
  return py::module_::import("os").attr("fspath")(path).cast<std::string>();
}

Layout LayoutArg(const std::string& name) { return blockbloom::LayoutFromName(name); }
HashKind HashArg(const std::string& name) { return blockbloom::HashFromName(name); }

// ---- Keys from Python objects ------------------------------------------------------

// One key or a batch of keys, parsed under the GIL, used without it.
struct Keys {
  bool scalar = false;
  bool is_string = false;  // scalar: str_key; batch: views
  uint64_t int_key = 0;
  std::string_view str_key;
  // Batches: either u64 (n keys) or views; `shape` is the answer's shape.
  const uint64_t* u64 = nullptr;
  size_t n = 0;
  std::vector<std::string_view> views;
  std::vector<py::ssize_t> shape;
  // What keeps the bytes alive: the array or converted array, the key objects
  // (so a concurrent mutation of a list cannot free a str under us), and UTF-8
  // encodings of numpy 'U' arrays.
  py::object owner;
  std::vector<py::object> refs;
  std::string storage;
  std::vector<uint64_t> ints;  // integer keys gathered from a list / object array

  size_t size() const { return is_string ? views.size() : n; }
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
// str/bytes or all int.
void ParseObjects(PyObject* const* items, size_t n, Keys* k) {
  k->refs.reserve(n);
  bool strings = false, ints = false;
  for (size_t i = 0; i < n; ++i) {
    PyObject* o = items[i];
    std::string_view v;
    if (StringView(o, &v)) {
      strings = true;
      k->views.push_back(v);
      k->refs.push_back(py::reinterpret_borrow<py::object>(o));
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
  k->is_string = strings;
  if (!strings) {
    k->u64 = k->ints.data();
    k->n = k->ints.size();
  }
}

// UCS-4 (numpy 'U') to UTF-8; false for a lone surrogate or a code point > 0x10FFFF.
bool AppendUtf8(uint32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    if (c >= 0xD800 && c < 0xE000) return false;
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x110000) {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    return false;
  }
  return true;
}

void ParseArray(py::array arr, Keys* k) {
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
    k->is_string = true;
    const size_t n = static_cast<size_t>(c.size());
    const size_t width = static_cast<size_t>(c.itemsize());
    const auto* base = static_cast<const char*>(c.data());
    k->views.reserve(n);
    if (kind == 'S') {
      for (size_t i = 0; i < n; ++i) {
        const char* s = base + i * width;
        size_t len = width;
        while (len > 0 && s[len - 1] == '\0') --len;
        k->views.emplace_back(s, len);
      }
      return;
    }
    std::vector<size_t> ends(n);
    const size_t chars = width / 4;
    for (size_t i = 0; i < n; ++i) {
      uint32_t cps[1];
      size_t len = chars;
      const char* s = base + i * width;
      while (len > 0) {
        std::memcpy(cps, s + (len - 1) * 4, 4);
        if (cps[0] != 0) break;
        --len;
      }
      for (size_t j = 0; j < len; ++j) {
        std::memcpy(cps, s + j * 4, 4);
        if (!AppendUtf8(cps[0], &k->storage))
          throw py::value_error("blockbloom: key " + std::to_string(i) + " holds code point " +
                                std::to_string(cps[0]) + ", which UTF-8 cannot encode");
      }
      ends[i] = k->storage.size();
    }
    size_t start = 0;
    for (size_t i = 0; i < n; ++i) {
      k->views.emplace_back(k->storage.data() + start, ends[i] - start);
      start = ends[i];
    }
    return;
  }
  if (kind == 'O') {
    py::array c = contiguous(arr) ? arr : py::array(Numpy().attr("ascontiguousarray")(arr));
    k->owner = c;
    ParseObjects(static_cast<PyObject* const*>(c.data()), static_cast<size_t>(c.size()), k);
    return;
  }
  TypeErr("keys of dtype " + py::str(static_cast<py::handle>(dt)).cast<std::string>() +
          ": expected an integer, bytes ('S'), str ('U') or object array");
}

Keys ParseKeys(py::handle obj) {
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
    ParseArray(py::reinterpret_borrow<py::array>(obj), &k);
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
    ParseObjects(PySequence_Fast_ITEMS(seq.ptr()), n, &k);
    return k;
  }
  if (PyObject_HasAttrString(o, "__array__") || PySequence_Check(o)) {
    // pandas Series, Index, memoryviews ...: whatever numpy makes of it.
    ParseArray(py::array(Numpy().attr("asarray")(obj)), &k);
    return k;
  }
  TypeErr("keys of type " + TypeName(obj) + ": expected int, str, bytes, a list of them or a numpy array");
}

// ---- Filters with their locks --------------------------------------------------------

struct PyFilter {
  explicit PyFilter(Filter f) : filter(std::move(f)) {}
  Filter filter;
  mutable std::shared_mutex mu;
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
size_t QueryBatchInto(const F& f, const Keys& k, uint8_t* dst) {
  const std::span<uint8_t> out(dst, k.size());
  return k.is_string ? f.MayContainBatch(std::span<const std::string_view>(k.views), out)
                     : f.MayContainBatch(std::span<const uint64_t>(k.u64, k.size()), out);
}

// Queries: the scalar answer as a bool, a batch as a numpy bool array of the
// keys' shape. `mu` is null for views.
template <typename F>
py::object Probe(const F& f, std::shared_mutex* mu, py::handle keys, py::handle out_arg = py::none()) {
  Keys k = ParseKeys(keys);
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
  Keys k = ParseKeys(keys);
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
  Keys k = ParseKeys(key);
  if (!k.scalar) TypeErr("`key in filter` takes one int, str or bytes key: use may_contain(keys) for a batch");
  py::gil_scoped_release release;
  const auto lock = ReadLock(mu);
  return QueryOne(f, k);
}

void Insert(PyFilter& pf, py::handle keys) {
  Keys k = ParseKeys(keys);
  py::gil_scoped_release release;
  std::unique_lock<std::shared_mutex> lock(pf.mu);
  if (k.scalar) {
    if (k.is_string) {
      pf.filter.Insert(k.str_key);
    } else {
      pf.filter.Insert(k.int_key);
    }
  } else if (k.is_string) {
    pf.filter.InsertBatch(std::span<const std::string_view>(k.views));
  } else {
    pf.filter.InsertBatch(std::span<const uint64_t>(k.u64, k.n));
  }
}

// this |= other, locking both in address order (this exclusive, other shared).
void UnionInPlace(PyFilter& self, const PyFilter& other) {
  py::gil_scoped_release release;
  if (&self == &other) {
    std::unique_lock<std::shared_mutex> lock(self.mu);
    self.filter.UnionWith(self.filter);
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
  self.filter.UnionWith(other.filter);
}

// A mapped file's bits (Python's FilterView) ORed into a filter: the view is read-only, no lock.
void UnionView(PyFilter& self, const PyView& other);

// this |= other for a Filter or a FilterView.
void UnionAny(PyFilter& self, py::handle other) {
  if (py::isinstance<PyFilter>(other)) {
    UnionInPlace(self, other.cast<const PyFilter&>());
  } else if (py::isinstance<PyView>(other)) {
    UnionView(self, other.cast<const PyView&>());
  } else {
    TypeErr("union takes a blockbloom.Filter or FilterView, not a " + TypeName(other));
  }
}

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

void UnionView(PyFilter& self, const PyView& other) {
  py::gil_scoped_release release;
  std::unique_lock<std::shared_mutex> lock(self.mu);
  self.filter.UnionWith(other.view);
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
                            "The layout's name: 'blocked512', 'split256', 'sectorized512', 'register64' or 'classic'.")
      .def_property_readonly("hash", [get](const typename Cls::type& s) { return std::string(blockbloom::HashName(get(s).hash_kind())); },
                             "The key hash: 'xxh3', 'xxh64', 'mulx' or 'rocksdb'.")
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
      py::object err = py::reinterpret_borrow<py::object>(format_error)(e.what());
      err.attr("offset") = e.offset();
      PyErr_SetObject(format_error.ptr(), err.ptr());
    } catch (const IoError& e) {
      PyErr_SetString(PyExc_OSError, e.what());
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
      .def("may_contain", [](const PyFilter& self, py::handle keys, py::handle out) {
        return Probe(self.filter, &self.mu, keys, out);
      }, py::arg("keys"), py::arg("out") = py::none(),
           "False: certainly absent; True: present or a false positive. A bool for one key, a numpy bool array "
           "of the keys' shape for a batch (or `out`, a bool array of as many elements, filled and returned).")
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
  DefineInfo(
      filter, [](const PyFilter& s) -> const Filter& { return s.filter; },
      [](const PyFilter& s) { return std::shared_lock<std::shared_mutex>(s.mu); });

  py::class_<PyView> view(m, "FilterView", py::buffer_protocol(), R"doc(
A filter file mapped read-only (Filter.open / blockbloom.open): queried in place, pages shared with every
process mapping the same file. The same queries and introspection as Filter; no insert or union.
)doc");
  view.def("may_contain", [](const PyView& self, py::handle keys, py::handle out) {
        return Probe(self.view, nullptr, keys, out);
      }, py::arg("keys"), py::arg("out") = py::none(), "As Filter.may_contain.")
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
  m.def("hash_key", [](py::handle key, const std::string& hash, uint64_t seed) {
    Keys k = ParseKeys(key);
    if (!k.scalar) TypeErr("hash_key takes one int, str or bytes key");
    return k.is_string ? blockbloom::HashBytes(k.str_key, HashArg(hash), seed)
                       : blockbloom::HashU64(k.int_key, HashArg(hash), seed);
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
