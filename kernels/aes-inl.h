// SPDX-License-Identifier: Apache-2.0
// Per-target "aes" hash of 8-byte keys (stage 1; HashKind::kAes): three AES
// rounds, one instruction each where the target has them. Bit-exact with
// kernels/common.h AesU64Portable (the reference's and the engine's form;
// tests/kernels_test.cc holds every target to it).
//
// x86: Highway 1.0.3's AESRound is left out of the project's targets
// (kernels/hwy_targets.h says why: Highway would then demand AES of every
// file compiled for AVX2), so the rounds are AESENC in inline assembly, which
// needs no "aes" in the calling function's attributes (an intrinsic would, and
// so would every function it is inlined through). Run-time dispatch picks
// SSE4, AVX2 or AVX-512 by Highway's checks, which then do not ask for AES, so
// the instructions run only where NativeAesUsable() (the CPU has them; a
// virtual machine may hide AES-NI from a CPU with AVX2): the kernels' entry
// points choose once per call between the kAesNative instantiation and the
// scalar reference (kernels/reference.cc, the rounds in software).
// AArch64 NEON: Highway's AESRound (AESE + AESMC; Highway's NEON target
// requires the crypto extension). Every other target: the portable form.
#if defined(BLOCKBLOOM_KERNELS_AES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_AES_INL_H_
#undef BLOCKBLOOM_KERNELS_AES_INL_H_
#else
#define BLOCKBLOOM_KERNELS_AES_INL_H_
#endif

#include "kernels/highway.h"
#include "kernels/common.h"

#if HWY_ARCH_X86 && HWY_TARGET != HWY_SSSE3 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
#include <emmintrin.h>
#endif

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether this target computes the "aes" hash with AES instructions (x86:
// only where the CPU has them too).
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SSSE3 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
inline bool NativeAesUsable() {
  static const bool usable = __builtin_cpu_supports("aes");
  return usable;
}
// One AESENC: VEX-encoded on the AVX targets (no SSE/AVX transitions), the
// SSE form on SSE4. "x": xmm0-15, which both forms can address.
HWY_INLINE __m128i AesEnc(__m128i s, __m128i round_key) {
#if HWY_TARGET == HWY_SSE4
  asm("aesenc %1, %0" : "+x"(s) : "x"(round_key));
#else
  asm("vaesenc %2, %1, %0" : "=x"(s) : "x"(s), "x"(round_key));
#endif
  return s;
}
// kernels/common.h AesU64Portable with AESENC; only where NativeAesUsable().
// The seed is XORed in the vector register, not into the key before it moves
// there: a key read from memory then goes straight into the register (VMOVQ
// xmm, m64), one general-to-vector move (~3 cycles) less in the chain to its
// line. Zen 5, 1M keys: typed.h queries of split256 and split512 took 6% less
// time (Boost's unchanged rows 1-4% less), register64's 1-3.5% more (CHANGELOG).
HWY_INLINE uint64_t AesU64Native(uint64_t key, uint64_t seed) {
  __m128i s = _mm_xor_si128(_mm_cvtsi64_si128(static_cast<long long>(key)),
                            _mm_cvtsi64_si128(static_cast<long long>(seed)));
  for (const auto& rk : kAesRoundKey)
    s = AesEnc(s, _mm_set_epi64x(static_cast<long long>(rk[1]), static_cast<long long>(rk[0])));
  return static_cast<uint64_t>(_mm_cvtsi128_si64(s));
}
#if HWY_TARGET == HWY_AVX3_DL
// Batches on AVX-512 with VAES (which Highway's AVX3_DL target requires of
// the CPU and adds to its attributes): AesU64Native of 8 keys, out[i] the
// hash of keys[i], four keys to a 512-bit register, one 128-bit AES block
// each (key ^ seed in its low half, zero above, as AesU64Native's). Per 8
// keys one load, an XOR, two unpacks with zero, six VAESENC and an unpack that
// puts the eight low halves back in order, for ~50 instructions one key at a
// time (the moves in and out of the vector registers included).
HWY_INLINE void AesU64NativeX8(const uint64_t* HWY_RESTRICT keys, uint64_t seed, uint64_t* HWY_RESTRICT out) {
  const __m512i x = _mm512_xor_si512(_mm512_loadu_si512(keys), _mm512_set1_epi64(static_cast<long long>(seed)));
  const __m512i zero = _mm512_setzero_si512();
  __m512i even = _mm512_unpacklo_epi64(x, zero);  // keys 0, 2, 4, 6: one to a 128-bit lane
  __m512i odd = _mm512_unpackhi_epi64(x, zero);   // keys 1, 3, 5, 7
  for (const auto& rk : kAesRoundKey) {
    const __m512i k = _mm512_broadcast_i32x4(_mm_set_epi64x(static_cast<long long>(rk[1]), static_cast<long long>(rk[0])));
    even = _mm512_aesenc_epi128(even, k);
    odd = _mm512_aesenc_epi128(odd, k);
  }
  _mm512_storeu_si512(out, _mm512_unpacklo_epi64(even, odd));
}
#endif
#elif HWY_TARGET == HWY_NEON
inline bool NativeAesUsable() { return true; }
HWY_INLINE uint64_t AesU64Native(uint64_t key, uint64_t seed) {
  const hn::Full128<uint64_t> d64;
  const hn::Full128<uint8_t> d8;
  auto s = hn::BitCast(d8, hn::ZeroExtendVector(d64, hn::Set(hn::Full64<uint64_t>(), key ^ seed)));
  for (const auto& rk : kAesRoundKey) s = hn::AESRound(s, hn::BitCast(d8, hn::LoadU(d64, rk)));
  return hn::GetLane(hn::BitCast(d64, s));
}
#else
inline bool NativeAesUsable() { return false; }
HWY_INLINE uint64_t AesU64Native(uint64_t key, uint64_t seed) { return AesU64Portable(key, seed); }
#endif

// Internal to the kernels, never stored: the "aes" kind hashed by
// AesU64Native (HashKind::kAes as a template argument means the portable
// form, HashU64With).
inline constexpr HashKind kAesNative = static_cast<HashKind>(0x80 | static_cast<uint8_t>(HashKind::kAes));

// Stage 1 for one key, as HashU64With<kHash> (kernels/common.h), with the
// "aes" kind's instructions under kAesNative.
template <HashKind kHash>
HWY_INLINE uint64_t KeyHash(uint64_t key, uint64_t seed_const) {
  if constexpr (kHash == kAesNative) {
    return AesU64Native(key, seed_const);
  } else {
    return HashU64With<kHash>(key, seed_const);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // include guard
