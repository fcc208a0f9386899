// SPDX-License-Identifier: Apache-2.0
#include "tools/cli/args.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "tools/cli/keys.h"

namespace blockbloom::cli {

std::string OptionName(const std::string& name) { return name == "o" ? std::string("-o") : "--" + name; }

namespace {
// The engine's message without its "blockbloom: " prefix (main adds the command's).
template <typename Fn>
auto AsUsage(Fn&& fn) {
  try {
    return fn();
  } catch (const std::invalid_argument& e) {
    std::string_view m = e.what();
    if (m.starts_with("blockbloom: ")) m.remove_prefix(12);
    throw UsageError(std::string(m));
  }
}
}  // namespace

Layout LayoutOption(const std::string& name) {
  return AsUsage([&] { return LayoutFromName(name, "--layout"); });
}
HashKind HashOption(const std::string& name) {
  return AsUsage([&] { return HashFromName(name, "--hash"); });
}
void CheckKOption(Layout layout, uint64_t k) {
  if (k <= UINT32_MAX && LayoutAcceptsK(layout, static_cast<uint32_t>(k))) return;
  throw UsageError("--k = " + std::to_string(k) + " is out of range for layout " + std::string(LayoutName(layout)) +
                   ": expected " + std::string(Traits(layout).k_text));
}

std::string RangeText(uint64_t lo, uint64_t hi) {
  return "expected " + std::to_string(lo) + (lo == hi ? "" : ".." + std::to_string(hi));
}

std::string FormatReal(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// v = 10 v + d; false on overflow.
bool Push(uint64_t* v, unsigned d) {
  if (*v > (UINT64_MAX - d) / 10) return false;
  *v = *v * 10 + d;
  return true;
}
// `digits` appended to `v`; false on overflow.
bool AppendDigits(std::string_view digits, uint64_t* v) {
  for (char c : digits)
    if (!Push(v, static_cast<unsigned>(c - '0'))) return false;
  return true;
}

}  // namespace

uint64_t ParseU64(std::string_view text, const std::string& name, uint64_t lo, uint64_t hi) {
  const std::string shown = OptionName(name) + " = '" + std::string(text) + "'";
  auto bad = [&]() -> void {
    throw UsageError(shown + " is not a non-negative integer: expected decimal digits or shorthand such as 1e6");
  };
  auto out_of_range = [&]() -> void { throw UsageError(shown + " is out of range: " + RangeText(lo, hi)); };
  // D+ [. D+] [e|E D+]
  size_t i = 0;
  while (i < text.size() && IsDigit(text[i])) ++i;
  const std::string_view int_part = text.substr(0, i);
  std::string_view frac;
  if (int_part.empty()) bad();
  if (i < text.size() && text[i] == '.') {
    const size_t f0 = ++i;
    while (i < text.size() && IsDigit(text[i])) ++i;
    frac = text.substr(f0, i - f0);
    if (frac.empty()) bad();
  }
  uint64_t exp = 0;
  const bool has_exp = i < text.size() && (text[i] == 'e' || text[i] == 'E');
  if (has_exp) {
    const size_t e0 = ++i;
    while (i < text.size() && IsDigit(text[i])) ++i;
    const std::string_view e = text.substr(e0, i - e0);
    if (e.empty()) bad();
    for (char c : e) exp = std::min<uint64_t>(exp * 10 + static_cast<unsigned>(c - '0'), 1000);
  }
  if (i != text.size()) bad();
  if (!frac.empty() && !has_exp) bad();  // "1.5" is not a count
  while (!frac.empty() && frac.back() == '0') frac.remove_suffix(1);
  if (frac.size() > exp) bad();  // 1.25e1 = 12.5: not whole
  uint64_t x = 0;
  if (!AppendDigits(int_part, &x) || !AppendDigits(frac, &x)) out_of_range();
  for (uint64_t z = frac.size(); z < exp && x != 0; ++z)
    if (!Push(&x, 0)) out_of_range();
  if (x < lo || x > hi) out_of_range();
  return x;
}

double ParseDouble(std::string_view text, const std::string& name) {
  const std::string s(text);
  auto bad = [&]() -> void {
    throw UsageError(OptionName(name) + " = '" + s + "' is not a number: expected a decimal such as 0.01 or 1e-6");
  };
  // [+-] (D+ [. D*] | . D+) [e [+-] D+]
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = 0;
  while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  }
  if (digits == 0) bad();
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t e = 0;
    while (i < s.size() && IsDigit(s[i])) ++i, ++e;
    if (e == 0) bad();
  }
  if (i != s.size()) bad();
  const double d = std::strtod(s.c_str(), nullptr);
  if (!std::isfinite(d)) throw UsageError(OptionName(name) + " = '" + s + "' is out of range: expected a finite number");
  return d;
}

Args::Args(int argc, char** argv, std::set<std::string> options, std::set<std::string> switches) {
  // Every command that reads key files (it takes --key-width) also takes
  // --strip-cr, for keys.cc's line splitting.
  const bool reads_keys = options.count("key-width") > 0;
  if (reads_keys) switches.insert("strip-cr");
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 1 && a[0] == '-' && a != "-o") {
      if (a.rfind("--", 0) != 0 || a.size() == 2) {
        std::string known;
        for (const auto& o : options) known += " " + OptionName(o);
        for (const auto& sw : switches) known += " --" + sw;
        throw UsageError("unknown option " + a + (known.empty() ? " (this command takes no options)" : " (expected one of:" + known + ")"));
      }
      std::string name = a.substr(2);
      std::optional<std::string> inline_value;
      if (auto eq = name.find('='); eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      if (switches.count(name)) {
        if (inline_value) throw UsageError("--" + name + " takes no value");
        switches_set_.insert(name);
      } else if (options.count(name)) {
        if (inline_value) {
          values_[name] = *inline_value;
        } else {
          if (i + 1 >= argc) throw UsageError(OptionName(name) + " needs a value");
          values_[name] = argv[++i];
        }
      } else {
        std::string known;
        for (const auto& o : options) known += " " + OptionName(o);
        for (const auto& sw : switches) known += " --" + sw;
        throw UsageError("unknown option --" + name +
                         (known.empty() ? " (this command takes no options)" : " (expected one of:" + known + ")"));
      }
    } else if (a == "-o") {
      if (!options.count("o")) throw UsageError("unknown option -o");
      if (i + 1 >= argc) throw UsageError("-o needs a value");
      values_["o"] = argv[++i];
    } else {
      positionals_.push_back(a);
    }
  }
  if (reads_keys) {
    if (Has("strip-cr") && Has("key-width"))
      throw UsageError("--strip-cr applies to keys read as lines: expected it without --key-width");
    SetStripCr(Has("strip-cr"));
  }
}

bool Args::Has(const std::string& name) const { return values_.count(name) || switches_set_.count(name); }

std::optional<std::string> Args::Get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Args::GetOr(const std::string& name, const std::string& fallback) const {
  return Get(name).value_or(fallback);
}

std::string Args::Require(const std::string& name) const {
  auto v = Get(name);
  if (!v) throw UsageError(OptionName(name) + " is required");
  return *v;
}

std::optional<uint64_t> Args::OptU64(const std::string& name, uint64_t lo, uint64_t hi) const {
  auto v = Get(name);
  if (!v) return std::nullopt;
  return ParseU64(*v, name, lo, hi);
}

uint64_t Args::U64(const std::string& name, uint64_t fallback, uint64_t lo, uint64_t hi) const {
  return OptU64(name, lo, hi).value_or(fallback);
}

std::optional<double> Args::OptDouble(const std::string& name) const {
  auto v = Get(name);
  if (!v) return std::nullopt;
  return ParseDouble(*v, name);
}

double Args::Double(const std::string& name, double fallback) const { return OptDouble(name).value_or(fallback); }

std::pair<double, double> Args::Range(const std::string& name, std::pair<double, double> fallback) const {
  auto v = Get(name);
  if (!v) return fallback;
  const auto colon = v->find(':');
  if (colon == std::string::npos) {
    const double x = ParseDouble(*v, name);
    return {x, x};
  }
  const double a = ParseDouble(v->substr(0, colon), name);
  const double b = ParseDouble(v->substr(colon + 1), name);
  if (b < a) throw UsageError("--" + name + " = " + *v + ": expected A:B with A <= B");
  return {a, b};
}

void Args::ExpectPositionals(size_t lo, size_t hi, const std::string& what) const {
  if (positionals_.size() < lo || positionals_.size() > hi)
    throw UsageError("expected " + what + ", got " + std::to_string(positionals_.size()) + " positional argument(s)");
}

}  // namespace blockbloom::cli
