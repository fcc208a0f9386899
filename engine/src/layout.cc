// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/layout.h"

#include <string>

#include "engine/src/errors.h"

namespace blockbloom {

std::string LayoutNames() {
  std::string names;
  for (const LayoutTraits& t : kLayoutTraits) {
    if (!names.empty()) names += ", ";
    names += t.name;
  }
  return names;
}

Layout LayoutFromName(std::string_view name, std::string_view param) {
  if (const std::optional<Layout> l = ParseLayout(name)) return *l;
  detail::Invalid(std::string(param) + " = '" + std::string(name) + "' is unknown: expected one of " +
                  LayoutNames());
}

void CheckLayoutK(Layout layout, uint32_t k) {
  if (!IsKnownLayout(layout)) detail::Invalid("layout = " + std::to_string(static_cast<int>(layout)) + " is unknown");
  if (LayoutAcceptsK(layout, k)) return;
  detail::Invalid("k = " + std::to_string(k) + " is out of range for layout " + std::string(LayoutName(layout)) +
                  ": expected " + std::string(Traits(layout).k_text));
}

void CheckLayoutBlocks(Layout layout, uint64_t blocks) {
  if (!IsKnownLayout(layout)) detail::Invalid("layout = " + std::to_string(static_cast<int>(layout)) + " is unknown");
  const uint64_t max = Traits(layout).max_blocks;
  if (blocks >= 1 && blocks <= max) return;
  detail::Invalid("number of " + std::string(LayoutUnitName(layout)) + " = " + std::to_string(blocks) +
                  " is out of range for layout " + std::string(LayoutName(layout)) + ": expected 1.." +
                  std::to_string(max));
}

}  // namespace blockbloom
