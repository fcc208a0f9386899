#include "blockbloom/layout.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/src/hash.h"
#include "kernels/kernels.h"
#include "kernels/layout.h"

namespace blockbloom {

static_assert(static_cast<int>(Layout::kBlocked512) == static_cast<int>(kernels::LayoutId::kBlocked512));
static_assert(static_cast<int>(Layout::kSplit256) == static_cast<int>(kernels::LayoutId::kSplit256));
static_assert(static_cast<int>(Layout::kSectorized512) ==
              static_cast<int>(kernels::LayoutId::kSectorized512));
static_assert(static_cast<int>(Layout::kRegister64) == static_cast<int>(kernels::LayoutId::kRegister64));
static_assert(static_cast<int>(Layout::kClassic) == static_cast<int>(kernels::LayoutId::kClassic));

namespace {
constexpr kernels::LayoutId Id(Layout l) { return static_cast<kernels::LayoutId>(l); }
}  // namespace

std::string_view LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kBlocked512: return "blocked512";
    case Layout::kSplit256: return "split256";
    case Layout::kSectorized512: return "sectorized512";
    case Layout::kRegister64: return "register64";
    case Layout::kClassic: return "classic";
  }
  return "unknown";
}

std::optional<Layout> ParseLayout(std::string_view name) {
  for (Layout l : kAllLayouts) {
    if (LayoutName(l) == name) return l;
  }
  return std::nullopt;
}

uint32_t LayoutBlockBits(Layout layout) { return kernels::BlockBits(Id(layout)); }
uint32_t LayoutMinK(Layout layout) { return kernels::KRangeOf(Id(layout)).lo; }
uint32_t LayoutMaxK(Layout layout) { return kernels::KRangeOf(Id(layout)).hi; }
bool LayoutAcceptsK(Layout layout, uint32_t k) { return kernels::KValid(Id(layout), k); }

std::string_view HashName(HashKind kind) { return kind == HashKind::kXxh64 ? "xxh64" : "xxh3"; }

std::optional<HashKind> ParseHash(std::string_view name) {
  if (name == "xxh3") return HashKind::kXxh3;
  if (name == "xxh64") return HashKind::kXxh64;
  return std::nullopt;
}

uint64_t HashBytes(std::string_view key, HashKind kind, uint64_t seed) {
  return detail::HashBytesInline(key.data(), key.size(), kind, seed);
}
uint64_t HashU64(uint64_t key, HashKind kind, uint64_t seed) {
  return detail::HashU64Inline(key, kind, seed);
}

std::span<const TargetInfo> CompiledTargets() {
  static const std::vector<TargetInfo> list = [] {
    std::vector<TargetInfo> v;
    for (const kernels::Ops* o : kernels::CompiledTargets()) {
      v.push_back({o->name, kernels::Supported(*o)});
    }
    return v;
  }();
  return list;
}

std::string_view ActiveTarget() { return kernels::Active().name; }

void PinTarget(std::string_view name) {
  if (kernels::PinTarget(name)) return;
  std::string msg = "blockbloom: target '" + std::string(name) +
                    "' is not available: expected 'auto' or one of the compiled targets this CPU supports:";
  for (const TargetInfo& t : CompiledTargets()) {
    if (t.supported) msg.append(" ").append(t.name);
  }
  throw std::invalid_argument(msg);
}

}  // namespace blockbloom
