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
// requires the crypto extension); the SVE targets: the same instructions where
// the CPU has them. Every other target: the portable form.
#if defined(BLOCKBLOOM_KERNELS_AES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_AES_INL_H_
#undef BLOCKBLOOM_KERNELS_AES_INL_H_
#else
#define BLOCKBLOOM_KERNELS_AES_INL_H_
#endif

#include <type_traits>

#include "kernels/highway.h"
#include "kernels/common.h"

#if HWY_ARCH_X86 && HWY_TARGET != HWY_SSSE3 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
#include <cpuid.h>
#include <immintrin.h>
#endif
#if HWY_ARCH_ARM_A64 && HWY_TARGET != HWY_NEON && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
#include <arm_neon.h>
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether this target has the eight-key form of the "aes" hash,
// AesU64NativeX8 below (and AesX8Usable() may answer true): named once for the
// #if's that tell the targets with it from those without. Set again on each
// pass of foreach_target.
#undef BLOCKBLOOM_AES_X8
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX2
#define BLOCKBLOOM_AES_X8 1
#else
#define BLOCKBLOOM_AES_X8 0
#endif

// Whether this target has AesHash (the x86 targets with AES instructions
// below): the hash with its AES state, for the single-key paths.
#undef BLOCKBLOOM_AES_STATE
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SSSE3 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
#define BLOCKBLOOM_AES_STATE 1
#else
#define BLOCKBLOOM_AES_STATE 0
#endif

// Whether this target computes the "aes" hash with AES instructions (x86:
// only where the CPU has them too).
#if BLOCKBLOOM_AES_STATE
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
// A key's "aes" hash as the single-key paths keep it (typed.h's inlined probes,
// kernels.cc QueryKeyOne and InsertKeyOne): the value, and the AES state whose
// low half it is. The blocked probes broadcast the hash's low 32 bits to
// build their masks (SetLo32, kernels/probe-inl.h); from the state that is one
// VPBROADCASTD, where the value took a move back from the general register
// first (VMOVD, after the VMOVQ that the block's address needs anyway): one
// instruction a key fewer in a loop of single keys, whose misses overlap only
// as far as the core's window reaches (the CHANGELOG has the measurements).
struct AesHash {
  uint64_t value;
  __m128i state;
  operator uint64_t() const { return value; }  // NOLINT: a hash wherever one is taken
};
// kernels/common.h AesU64Portable with AESENC; only where NativeAesUsable().
// The seed is XORed in the vector register, not into the key before it moves
// there: a key read from memory then goes straight into the register (VMOVQ
// xmm, m64), one general-to-vector move (~3 cycles) less in the chain to its
// line. Zen 5, 1M keys: typed.h queries of split256 and split512 took 6% less
// time (Boost's unchanged rows 1-4% less), register64's 1-3.5% more (CHANGELOG).
HWY_INLINE AesHash AesU64NativeHash(uint64_t key, uint64_t seed) {
  __m128i s = _mm_xor_si128(_mm_cvtsi64_si128(static_cast<long long>(key)),
                            _mm_cvtsi64_si128(static_cast<long long>(seed)));
  for (const auto& rk : kAesRoundKey)
    s = AesEnc(s, _mm_set_epi64x(static_cast<long long>(rk[1]), static_cast<long long>(rk[0])));
  return AesHash{static_cast<uint64_t>(_mm_cvtsi128_si64(s)), s};
}
HWY_INLINE uint64_t AesU64Native(uint64_t key, uint64_t seed) { return AesU64NativeHash(key, seed); }
// AesU64Native for a key already in a general register, as the single-key
// kernels' (kernels.cc QueryKeyOne, InsertKeyOne) is: the seed XORed there (one
// move to the vector register, not two and an XOR) and each round's key an
// operand from memory (nothing hoists them out of one call; VEX forms need no
// alignment). The loops keep AesU64Native's form (typed.h: AesU64NativeHash).
HWY_INLINE AesHash AesU64NativeOneCallHash(uint64_t key, uint64_t seed) {
#if HWY_TARGET == HWY_SSE4
  return AesU64NativeHash(key, seed);
#else
  __m128i s = _mm_cvtsi64_si128(static_cast<long long>(key ^ seed));
  for (const auto& rk : kAesRoundKey) {
    // The value, not kAesRoundKey's storage: g++ puts it in the file's constant pool, addressed from the
    // instruction pointer, where the array itself would take a load of its address (-fPIC) first.
    const __m128i round_key = _mm_set_epi64x(static_cast<long long>(rk[1]), static_cast<long long>(rk[0]));
    asm("vaesenc %2, %1, %0" : "=x"(s) : "x"(s), "xm"(round_key));
  }
  return AesHash{static_cast<uint64_t>(_mm_cvtsi128_si64(s)), s};
#endif
}
HWY_INLINE uint64_t AesU64NativeOneCall(uint64_t key, uint64_t seed) { return AesU64NativeOneCallHash(key, seed); }
template <class D>
HWY_INLINE hn::Vec<D> SetLo32(D d, const AesHash& h) {
  if constexpr (std::is_same_v<hn::TFromD<D>, uint32_t> && hn::MaxLanes(D()) == 8) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    return hn::Vec<D>{_mm256_broadcastd_epi32(h.state)};
#endif
  } else if constexpr (std::is_same_v<hn::TFromD<D>, uint32_t> && hn::MaxLanes(D()) == 16) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    // (Masked: g++ 12's unmasked form starts from _mm512_undefined_epi32, a false -Wuninitialized.)
    return hn::Vec<D>{_mm512_maskz_broadcastd_epi32(0xFFFF, h.state)};
#endif
  }
  return hn::Set(d, static_cast<uint32_t>(h.value));
}
// Batches: AesU64Native of 8 keys, out[i] the hash of keys[i], several keys
// to a register with VAES, one 128-bit AES block each (key ^ seed in its low
// half, zero above, as AesU64Native's): per 8 keys the loads, an XOR, unpacks
// with zero, the rounds (six VAESENC on AVX-512, twelve on AVX2) and unpacks
// that put the eight low halves back in order, for ~50 instructions one key
// at a time (the moves in and out of the vector registers included). Only
// where AesX8Usable(), which KeySource (kernels/pipeline-inl.h) asks once per
// batch.
#if HWY_TARGET == HWY_AVX3_DL
// Highway's AVX3_DL target requires VAES of the CPU and adds it to its
// attributes: the intrinsics, four keys to a 512-bit register. (Intrinsics
// whose g++ 12 forms start from _mm512_undefined_epi32, as the unmasked
// unpacks and broadcasts do, draw a false -Wmaybe-uninitialized there: masked
// moves, byte shifts and a merge-masked unpack instead.)
inline bool AesX8Usable() { return true; }
HWY_INLINE void AesU64NativeX8(const uint64_t* HWY_RESTRICT keys, uint64_t seed, uint64_t* HWY_RESTRICT out) {
  const __m512i x = _mm512_xor_si512(_mm512_loadu_si512(keys), _mm512_set1_epi64(static_cast<long long>(seed)));
  __m512i even = _mm512_maskz_mov_epi64(0x55, x);  // keys 0, 2, 4, 6: one to a 128-bit lane, zero above
  __m512i odd = _mm512_bsrli_epi128(x, 8);         // keys 1, 3, 5, 7
  for (const auto& rk : kAesRoundKey) {
    const auto lo = static_cast<long long>(rk[0]), hi = static_cast<long long>(rk[1]);
    const __m512i k = _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo);
    even = _mm512_aesenc_epi128(even, k);
    odd = _mm512_aesenc_epi128(odd, k);
  }
  // Lane 2i + 1 takes odd's low half of block i: hashes 0..7 in order.
  _mm512_storeu_si512(out, _mm512_mask_unpacklo_epi64(even, 0xAA, even, odd));
}
#elif HWY_TARGET == HWY_AVX2
// AVX2 CPUs with VAES (Zen 3, Alder Lake and later clients): two keys to a
// 256-bit register. Highway's AVX2 target does not require VAES, so the CPU
// is asked (CPUID leaf 7, ECX bit 9) and the rounds are inline assembly, as
// AesEnc's (the target's attributes have no "vaes").
inline bool AesX8Usable() {
  static const bool usable = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return NativeAesUsable() && __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && ((c >> 9) & 1) != 0;
  }();
  return usable;
}
HWY_INLINE __m256i AesEnc256(__m256i s, __m256i round_key) {
  asm("vaesenc %2, %1, %0" : "=x"(s) : "x"(s), "x"(round_key));
  return s;
}
HWY_INLINE void AesU64NativeX8(const uint64_t* HWY_RESTRICT keys, uint64_t seed, uint64_t* HWY_RESTRICT out) {
  const __m256i sd = _mm256_set1_epi64x(static_cast<long long>(seed));
  const __m256i zero = _mm256_setzero_si256();
  const __m256i lo = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys)), sd);
  const __m256i hi = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys + 4)), sd);
  __m256i s[4] = {_mm256_unpacklo_epi64(lo, zero), _mm256_unpackhi_epi64(lo, zero),   // keys 0, 2 / 1, 3
                  _mm256_unpacklo_epi64(hi, zero), _mm256_unpackhi_epi64(hi, zero)};  // keys 4, 6 / 5, 7
  for (const auto& rk : kAesRoundKey) {
    const __m256i k =
        _mm256_broadcastsi128_si256(_mm_set_epi64x(static_cast<long long>(rk[1]), static_cast<long long>(rk[0])));
    for (__m256i& v : s) v = AesEnc256(v, k);
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_unpacklo_epi64(s[0], s[1]));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4), _mm256_unpacklo_epi64(s[2], s[3]));
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
#elif HWY_ARCH_ARM_A64 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
// AArch64 SVE targets (SVE, SVE2, SVE_256, SVE2_128; Graviton 3 and 4, Neoverse
// V1 and V2 dispatch to them): Highway's SVE and SVE_256 attributes have no
// "aes" and do not require it of the CPU, so the CPU is asked (HWCAP_AES) and
// the rounds are AESE + AESMC in inline assembly on a NEON register, as
// Highway's NEON AESRound (AESE's own key XOR given zero, the round key XORed
// after). Without it these targets hashed "aes" keys in software.
inline bool NativeAesUsable() {
  static const bool usable = (getauxval(AT_HWCAP) & HWCAP_AES) != 0;
  return usable;
}
HWY_INLINE uint64_t AesU64Native(uint64_t key, uint64_t seed) {
  const uint8x16_t zero = vdupq_n_u8(0);
  uint8x16_t s = vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(key ^ seed), vcreate_u64(0)));
  for (const auto& rk : kAesRoundKey) {
    asm(".arch_extension aes\n\taese %0.16b, %1.16b\n\taesmc %0.16b, %0.16b" : "+w"(s) : "w"(zero));
    s = veorq_u8(s, vreinterpretq_u8_u64(vld1q_u64(rk)));
  }
  return vgetq_lane_u64(vreinterpretq_u64_u8(s), 0);
}
#else
inline bool NativeAesUsable() { return false; }
HWY_INLINE uint64_t AesU64Native(uint64_t key, uint64_t seed) { return AesU64Portable(key, seed); }
#endif

#if !BLOCKBLOOM_AES_X8
inline bool AesX8Usable() { return false; }  // no eight-key form on this target
#endif

// Stage 1 of the "aes" kind for keys[0, n) eight at a time (AesU64NativeX8),
// for callers that asked AesX8Usable() once: the engine's chunked hashing
// (kernels/kernels.cc) and the fused batches' KeySource (pipeline-inl.h).
// Returns how many keys it hashed, n rounded down to a multiple of 8 (0 on
// targets without the eight-key form); the caller hashes the rest one by one.
HWY_INLINE size_t AesU64NativeRunsOf8(const uint64_t* HWY_RESTRICT keys, size_t n, uint64_t seed,
                                      uint64_t* HWY_RESTRICT out) {
  size_t i = 0;
#if BLOCKBLOOM_AES_X8
  for (; i + 8 <= n; i += 8) AesU64NativeX8(keys + i, seed, out + i);
#else
  (void)keys, (void)n, (void)seed, (void)out;
#endif
  return i;
}

// Internal to the kernels, never stored: the "aes" kind hashed by
// AesU64Native (HashKind::kAes as a template argument means the portable
// form, HashU64With).
inline constexpr HashKind kAesNative = static_cast<HashKind>(0x80 | static_cast<uint8_t>(HashKind::kAes));

#if !(HWY_ARCH_X86 && HWY_TARGET != HWY_SSSE3 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR)
HWY_INLINE uint64_t AesU64NativeOneCall(uint64_t key, uint64_t seed) { return AesU64Native(key, seed); }
#endif

// Stage 1 for one key, as HashU64With<kHash> (kernels/common.h), with the
// "aes" kind's instructions under kAesNative; kOneCall for the single-key
// kernels (one call, the key in a register: AesU64NativeOneCall).
template <HashKind kHash, bool kOneCall = false>
HWY_INLINE uint64_t KeyHash(uint64_t key, uint64_t seed_const) {
  if constexpr (kHash == kAesNative) {
    return kOneCall ? AesU64NativeOneCall(key, seed_const) : AesU64Native(key, seed_const);
  } else {
    return HashU64With<kHash, kOneCall>(key, seed_const);
  }
}
// KeyHash for one key on its own (kernels.cc QueryKeyOne, InsertKeyOne): the
// "aes" kind's AesHash where this target has it (its probes then broadcast
// the AES state: SetLo32), else KeyHash's value.
template <HashKind kHash, bool kOneCall = false>
HWY_INLINE auto KeyHashOne(uint64_t key, uint64_t seed_const) {
#if BLOCKBLOOM_AES_STATE
  if constexpr (kHash == kAesNative) {
    return kOneCall ? AesU64NativeOneCallHash(key, seed_const) : AesU64NativeHash(key, seed_const);
  } else {
    return KeyHash<kHash, kOneCall>(key, seed_const);
  }
#else
  return KeyHash<kHash, kOneCall>(key, seed_const);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // include guard
