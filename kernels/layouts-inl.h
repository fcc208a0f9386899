// SPDX-License-Identifier: Apache-2.0
// Every layout's mechanism, listed once. Included by the scalar reference
// (kernels/reference.cc: the reference probes only) and by the per-target
// pipeline (kernels/pipeline-inl.h: the per-target probes too). No include
// guard around the includes: each layout file guards its two parts itself, and
// its per-target part must be seen once per Highway target.
//
// BLOCKBLOOM_FOR_EACH_LAYOUT(X) calls X(Name) for every layout: Name names
// blockbloom::Layout::kName, the reference probe reference::Name (with
// `template <Access> static bool Probe(const FilterRef&, uint64_t hash)`) and
// the per-target probe chooser HWY_NAMESPACE::Name (with
// `static auto Visit(const FilterRef&, Fn)` calling Fn with the probe type),
// both in kernels/<name>-inl.h. A layout missing here fails the build: the
// switches over the layout in kernels/reference.cc and kernels/kernels.cc have
// no default (-Wswitch). CMakeLists.txt reads the includes below to install
// each layout's file for blockbloom::typed: keep one include a line.
#include "kernels/blocked512-inl.h"
#include "kernels/classic-inl.h"
#include "kernels/register64-inl.h"
#include "kernels/sectorized512-inl.h"
#include "kernels/split256-inl.h"
#include "kernels/split512-inl.h"

#ifndef BLOCKBLOOM_FOR_EACH_LAYOUT
#define BLOCKBLOOM_FOR_EACH_LAYOUT(X) X(Blocked512) X(Split256) X(Sectorized512) X(Register64) X(Classic) X(Split512)
#endif
