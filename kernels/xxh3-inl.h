// SPDX-License-Identifier: Apache-2.0
// Per-target XXH3-64 of 8-byte keys (stage 1: hash the key).
// Bit-exact with XXH3_64bits_withSeed(&key, 8, seed); see kernels/common.h for
// the derivation and kernels/reference.cc for the scalar twin.
#if defined(BLOCKBLOOM_KERNELS_XXH3_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_XXH3_INL_H_
#undef BLOCKBLOOM_KERNELS_XXH3_INL_H_
#else
#define BLOCKBLOOM_KERNELS_XXH3_INL_H_
#endif

#include "kernels/highway.h"
#include "kernels/common.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

// a * b mod 2^64 per u64 lane. Highway 1.0.3 has no 64-bit multiply, so on
// most targets it is built from 32x32-bit products:
// a*b = lo(a)*lo(b) + ((hi(a)*lo(b) + lo(a)*hi(b)) << 32)  (mod 2^64).
// AVX-512DQ (part of Highway's AVX3) has it in one instruction.
template <class D>
HWY_INLINE hn::Vec<D> MulLow64(D d, hn::Vec<D> a, uint64_t b) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (hn::MaxLanes(D()) == 8) {
    return hn::Vec<D>{_mm512_mullo_epi64(a.raw, hn::Set(d, b).raw)};
  }
#endif
  const hn::Repartition<uint32_t, D> d32;
  const auto a32 = hn::BitCast(d32, a);
  const auto b_lo = hn::BitCast(d32, hn::Set(d, b & 0xffffffffu));
  const auto lolo = hn::MulEven(a32, b_lo);
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4
  // Both cross products from one 32-bit multiply (PMULLD) of a by b's halves
  // swapped: c = (lo(a)*hi(b), hi(a)*lo(b)) in each lane's (low, high) half;
  // c + (c << 32) holds their sum in the high half (the low half adds
  // nothing to it), the AND clears the low. Six instructions, not seven.
  const auto c = hn::BitCast(d, hn::Mul(a32, hn::BitCast(d32, hn::Set(d, Rotl64(b, 32)))));
  const auto cross = hn::And(hn::Add(c, hn::ShiftLeft<32>(c)), hn::Set(d, uint64_t{0xffffffff00000000}));
  return hn::Add(lolo, cross);
#else
  const auto b_hi = hn::BitCast(d32, hn::Set(d, b >> 32));
  const auto a_hi = hn::BitCast(d32, hn::ShiftRight<32>(a));
  const auto cross = hn::Add(hn::MulEven(a_hi, b_lo), hn::MulEven(a32, b_hi));
  return hn::Add(lolo, hn::ShiftLeft<32>(cross));
#endif
}

// rotr(x, 40) per u64 lane. x86 below AVX-512 has no 64-bit rotate (Highway
// emulates it with two shifts and an OR), but 40 bits are 5 bytes: one byte
// shuffle (PSHUFB; byte i of a lane takes byte (i + 5) % 8).
template <class D>
HWY_INLINE hn::Vec<D> RotateRight40(D d, hn::Vec<D> x) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_SSSE3
  const hn::Repartition<uint8_t, D> d8;
  alignas(16) static constexpr uint8_t kFrom[16] = {5, 6, 7, 0, 1, 2, 3, 4, 13, 14, 15, 8, 9, 10, 11, 12};
  return hn::BitCast(d, hn::TableLookupBytes(hn::BitCast(d8, x), hn::LoadDup128(d8, kFrom)));
#else
  (void)d;
  return hn::RotateRight<40>(x);
#endif
}

// XXH3_len_4to8_64b for len = 8, on a vector of keys. `seed_const` is
// Xxh3SeedConstant(seed).
template <class D>
HWY_INLINE hn::Vec<D> Xxh3Hash8(D d, hn::Vec<D> key, hn::Vec<D> seed_const) {
  // rotl(key, 32) swaps the 32-bit halves: one lane shuffle instead of two
  // shifts and an OR on targets without a 64-bit rotate.
  const hn::Repartition<uint32_t, D> d32;
  auto x = hn::Xor(hn::BitCast(d, hn::Shuffle2301(hn::BitCast(d32, key))), seed_const);
  // rotl(x, 49) = rotr(x, 15); rotl(x, 24) = rotr(x, 40)
  x = hn::Xor(x, hn::Xor(hn::RotateRight<15>(x), RotateRight40(d, x)));
  x = MulLow64(d, x, kXxh3Rrmxmx);
  x = hn::Xor(x, hn::Add(hn::ShiftRight<35>(x), hn::Set(d, uint64_t{8})));
  x = MulLow64(d, x, kXxh3Rrmxmx);
  return hn::Xor(x, hn::ShiftRight<28>(x));
}

// out[0, n) = hashes of keys[0, n); out may equal keys.
// seed_const = Xxh3SeedConstant(seed): a caller hashing many short runs
// computes it once.
HWY_INLINE void HashU64BatchWith(const uint64_t* HWY_RESTRICT keys, size_t n, uint64_t seed_const,
                                 uint64_t* out) {
  const hn::ScalableTag<uint64_t> d;
  const size_t N = hn::Lanes(d);
  const auto sc = hn::Set(d, seed_const);
  size_t i = 0;
  // Two vectors per iteration: the two multiply chains are independent.
  for (; i + 2 * N <= n; i += 2 * N) {
    const auto a = Xxh3Hash8(d, hn::LoadU(d, keys + i), sc);
    const auto b = Xxh3Hash8(d, hn::LoadU(d, keys + i + N), sc);
    hn::StoreU(a, d, out + i);
    hn::StoreU(b, d, out + i + N);
  }
  for (; i + N <= n; i += N) hn::StoreU(Xxh3Hash8(d, hn::LoadU(d, keys + i), sc), d, out + i);
  for (; i < n; ++i) out[i] = Xxh3U64WithConstant(keys[i], seed_const);
}

#else  // HWY_SCALAR: one lane, no 32-bit view of a 64-bit lane; plain C++.

HWY_INLINE void HashU64BatchWith(const uint64_t* HWY_RESTRICT keys, size_t n, uint64_t seed_const,
                                 uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = Xxh3U64WithConstant(keys[i], seed_const);
}

#endif  // HWY_TARGET != HWY_SCALAR

HWY_INLINE void HashU64Batch(const uint64_t* HWY_RESTRICT keys, size_t n, uint64_t seed, uint64_t* out) {
  HashU64BatchWith(keys, n, Xxh3SeedConstant(seed), out);
}

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // include guard
