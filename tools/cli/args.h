// SPDX-License-Identifier: Apache-2.0
// A small command-line parser shared by every blockbloom command: "--name value"
// options, "--flag" switches and positionals, with errors that name the
// parameter, the value and what was expected.
#ifndef BLOCKBLOOM_TOOLS_ARGS_H_
#define BLOCKBLOOM_TOOLS_ARGS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "blockbloom/hash.h"
#include "blockbloom/layout.h"

namespace blockbloom::cli {

// The most keys any command accepts for --n (params, table, build, demo): the
// largest filters hold 2^40 (classic) or 2^41 (512-bit layouts) bits, so more
// keys than this leave under 2 bits per key in any filter blockbloom can make.
inline constexpr uint64_t kMaxKeys = uint64_t{1} << 40;

// Thrown for bad usage; main prints "blockbloom <cmd>: <message>" and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  // `options` take a value ("o" is spelled -o), `switches` do not. Any other
  // word starting with '-' (except "-" itself, standard input) is an unknown
  // option; other words are positionals. A command that reads key files (its
  // options include "key-width") also takes the switch --strip-cr, handed to
  // the key splitter (keys.h, SetStripCr); it is refused with --key-width.
  Args(int argc, char** argv, std::set<std::string> options, std::set<std::string> switches = {});

  bool Has(const std::string& name) const;  // option given or switch set
  std::optional<std::string> Get(const std::string& name) const;
  std::string GetOr(const std::string& name, const std::string& fallback) const;
  std::string Require(const std::string& name) const;
  // Numbers, with range checks whose messages name the option.
  uint64_t U64(const std::string& name, uint64_t fallback, uint64_t lo = 0, uint64_t hi = UINT64_MAX) const;
  std::optional<uint64_t> OptU64(const std::string& name, uint64_t lo = 0, uint64_t hi = UINT64_MAX) const;
  double Double(const std::string& name, double fallback) const;
  std::optional<double> OptDouble(const std::string& name) const;
  // "A:B" inclusive ranges of numbers (e.g. --k 1:16); a single number is A:A.
  std::pair<double, double> Range(const std::string& name, std::pair<double, double> fallback) const;

  const std::vector<std::string>& positionals() const { return positionals_; }
  // Throws unless the number of positionals is within [lo, hi].
  void ExpectPositionals(size_t lo, size_t hi, const std::string& what) const;

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> switches_set_;
  std::vector<std::string> positionals_;
};

// The one number grammar of the CLI. Counts: decimal digits, or the
// scientific shorthand D[.D]eE (1e6, 2.5e3) when it names a whole number; no
// sign, no spaces, no hex, no "inf". Out-of-range counts name [lo, hi].
// Rates and other reals: [+-]digits[.digits][e[+-]digits], finite.
// Errors name the option ("--n = ' 5' is not a non-negative integer: ...").
uint64_t ParseU64(std::string_view text, const std::string& name, uint64_t lo = 0, uint64_t hi = UINT64_MAX);
double ParseDouble(std::string_view text, const std::string& name);
// "--name" (or "-o").
std::string OptionName(const std::string& name);
// "expected 8" or "expected 1..16".
std::string RangeText(uint64_t lo, uint64_t hi);
// The one parser of --layout and --hash values: the engine's names and
// message (LayoutFromName / HashFromName), as a UsageError naming the option.
Layout LayoutOption(const std::string& name);
HashKind HashOption(const std::string& name);
// "--k = 3 is out of range for layout sectorized512: expected 1, 2, 4, 8 or 16"
// as a UsageError unless the layout accepts k (the allowed k from the traits table).
void CheckKOption(Layout layout, uint64_t k);
// A rate or other real for a message: 0.01, 1e-09 (never "0.000000").
std::string FormatReal(double x);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_ARGS_H_
