// SPDX-License-Identifier: Apache-2.0
// The per-target probes compiled into the caller's own translation unit, for
// the instruction set it is compiled for (Highway's static target: AVX2 under
// -mavx2 or -march=x86-64-v3 or -march=native on such a CPU, NEON on AArch64,
// ...; AArch64 with +crypto). What blockbloom/typed.h inlines at each call: the same probe classes
// as the run-time dispatched kernels (kernels/<layout>-inl.h), so the same
// bits, with the layout and k known at compile time, the hash fused in and no
// call. Why: a loop of single-key lookups overlaps its cache misses only as far
// as the core's window reaches, and a call per key (argument set-up, the call,
// the callee's constants) costs about a third of that window (issue 9: 10.5 vs
// 7.8 ns/key for split256 at 1M keys, AMD EPYC, AVX2).
//
// Everything here lives in blockbloom::kernels::HWY_NAMESPACE (N_AVX2, N_NEON,
// ...), so translation units compiled for different targets never share an
// inline function. Where the static target has no SIMD (HWY_EMU128 or
// HWY_SCALAR: plain x86-64 flags), kStaticSimd is false and typed.h calls the
// dispatched kernel instead, which then runs the best target of the CPU.
#ifndef BLOCKBLOOM_KERNELS_STATIC_PROBE_H_
#define BLOCKBLOOM_KERNELS_STATIC_PROBE_H_

#include <cstdint>

#include "kernels/highway.h"
#include "kernels/aes-inl.h"
#include "kernels/common.h"
#include "kernels/layouts-inl.h"

// The static target's namespace, for blockbloom/typed.h (which names no
// Highway macro itself): N_AVX2, N_NEON, N_EMU128, ...
#define BLOCKBLOOM_STATIC_NAMESPACE HWY_NAMESPACE

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {

// Whether the calling file's flags cover the attributes Highway gives the
// static target's code: on x86 its static target is derived from those flags;
// on AArch64 Highway tags its code with more than the target's name under
// run-time dispatch (hwy/ops/set_macros-inl.h: NEON "+crypto", SVE2 and
// SVE2_128 "+sve2-aes"), so a file compiled without that extension (plain
// armv8-a; armv9-a, whose SVE2 lacks the AES instructions) cannot inline it
// (GCC: "target specific option mismatch") and takes the call instead.
// tools/ci/compile-matrix.sh compiles typed.h under those flags.
#if HWY_ARCH_ARM_A64 && HWY_STATIC_TARGET == HWY_NEON && !defined(__ARM_FEATURE_CRYPTO) && \
    !defined(__ARM_FEATURE_AES)
inline constexpr bool kStaticFlagsCover = false;
#elif HWY_ARCH_ARM_A64 && (HWY_STATIC_TARGET == HWY_SVE2 || HWY_STATIC_TARGET == HWY_SVE2_128) && \
    !defined(__ARM_FEATURE_SVE2_AES)
inline constexpr bool kStaticFlagsCover = false;
#else
inline constexpr bool kStaticFlagsCover = true;
#endif
// The static target's name ("AVX2", "NEON", ...), for tests and reports.
inline const char* StaticTargetName() { return hwy::TargetName(HWY_STATIC_TARGET); }
// Whether this translation unit's static target is worth inlining (and can be).
inline constexpr bool kStaticSimd =
    kStaticFlagsCover && HWY_STATIC_TARGET != HWY_EMU128 && HWY_STATIC_TARGET != HWY_SCALAR;

// fn(probe type of layout kL at k = f.k): the layout's own chooser (Visit),
// whose switch on k folds away when f.k is a constant.
template <Layout kL, class Fn>
HWY_INLINE auto VisitLayout(const FilterRef& f, Fn&& fn) {
#define BLOCKBLOOM_STATIC_CASE(Name)    \
  if constexpr (kL == Layout::k##Name) \
    return Name::Visit(f, fn);          \
  else
  BLOCKBLOOM_FOR_EACH_LAYOUT(BLOCKBLOOM_STATIC_CASE) {
    static_assert(kL == Layout::kBlocked512, "a layout missing from BLOCKBLOOM_FOR_EACH_LAYOUT");
  }
#undef BLOCKBLOOM_STATIC_CASE
}

// Whether the calling file's flags promise AES instructions (x86 -maes or a
// -march with AES, such as native on most CPUs; AArch64 NEON, which Highway
// builds with crypto). g++ 12's -march=x86-64-v3 and -march=haswell do not.
#if (HWY_ARCH_X86 && defined(__AES__)) || HWY_TARGET == HWY_NEON
#define BLOCKBLOOM_STATIC_AES_IN_FLAGS 1
#else
#define BLOCKBLOOM_STATIC_AES_IN_FLAGS 0
// Else whether this CPU has them, asked once as the program starts, and the
// rounds in software out of the caller's loop: a per-key NativeAesUsable()
// (a function-local static's guard and flag) with the software rounds inlined
// beside the AES ones kept a loop's count on the stack (CHANGELOG, "Changed
// (speed)"); a flag fixed before main lets the compiler test it once a loop.
inline const bool kStaticAesUsable = [] {
#if HWY_ARCH_X86
  __builtin_cpu_init();  // before __builtin_cpu_supports in a static initializer
#endif
  return NativeAesUsable();
}();
#if HWY_ARCH_X86 && BLOCKBLOOM_AES_STATE
// As an AesHash, the form AesU64NativeHash gives (its state the value's vector).
HWY_NOINLINE inline AesHash AesU64PortableOutOfLine(uint64_t key, uint64_t seed) {
  const uint64_t v = AesU64Portable(key, seed);
  return AesHash{v, _mm_cvtsi64_si128(static_cast<long long>(v))};
}
#else
HWY_NOINLINE inline uint64_t AesU64PortableOutOfLine(uint64_t key, uint64_t seed) {
  return AesU64Portable(key, seed);
}
#endif
#endif

// Stage 1 for a uint64 key inlined into the caller (HashU64With, kernels/
// common.h): the "aes" kind with AES instructions where the calling file's
// flags promise them (BLOCKBLOOM_STATIC_AES_IN_FLAGS), else where this CPU has
// them (kStaticAesUsable), else in software, out of line.
// On x86 the AesHash, whose AES state the blocked probes broadcast (SetLo32,
// kernels/probe-inl.h); else the value.
template <HashKind kHash>
HWY_INLINE auto StaticKeyHash(uint64_t key, uint64_t seed_const) {
  if constexpr (kHash == HashKind::kAes) {
#if BLOCKBLOOM_STATIC_AES_IN_FLAGS && HWY_ARCH_X86 && BLOCKBLOOM_AES_STATE
    return AesU64NativeHash(key, seed_const);
#elif BLOCKBLOOM_STATIC_AES_IN_FLAGS
    return AesU64Native(key, seed_const);
#elif HWY_ARCH_X86 && BLOCKBLOOM_AES_STATE
    if (kStaticAesUsable) [[likely]] return AesU64NativeHash(key, seed_const);
    return AesU64PortableOutOfLine(key, seed_const);
#else
    if (kStaticAesUsable) [[likely]] return AesU64Native(key, seed_const);
    return AesU64PortableOutOfLine(key, seed_const);
#endif
  } else {
    return HashU64With<kHash>(key, seed_const);
  }
}

// One key of layout kL at k = kK. num_blocks = 0 is the empty filter (one zero
// line): queries answer false; inserts must not be called.
// (H: uint64_t, or StaticKeyHash's AesHash.)
template <Layout kL, uint32_t kK, class H = uint64_t>
HWY_INLINE bool StaticQuery(const uint8_t* bits, uint64_t num_blocks, const H& hash) {
  const FilterRef f{const_cast<uint8_t*>(bits), num_blocks, kK, kL};
  return VisitLayout<kL>(f, [&](auto tag) HWY_ATTR {
    using P = typename decltype(tag)::type;
    return P(f).Query(hash);
  });
}
template <Layout kL, uint32_t kK, class H = uint64_t>
HWY_INLINE void StaticInsert(uint8_t* bits, uint64_t num_blocks, const H& hash) {
  const FilterRef f{bits, num_blocks, kK, kL};
  VisitLayout<kL>(f, [&](auto tag) HWY_ATTR {
    using P = typename decltype(tag)::type;
    InsertAlone(P(f), hash);
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // BLOCKBLOOM_KERNELS_STATIC_PROBE_H_
