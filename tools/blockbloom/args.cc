#include "tools/blockbloom/args.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace blockbloom::cli {

uint64_t ParseU64(std::string_view text, const std::string& name) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) {
    // Accept 1e7-style integers too.
    char* e = nullptr;
    const std::string s(text);
    const double d = std::strtod(s.c_str(), &e);
    if (s.empty() || *e != '\0' || !(d >= 0) || d > 1.8e19 || d != std::floor(d))
      throw UsageError("--" + name + " = '" + s + "' is not a non-negative integer");
    return static_cast<uint64_t>(d);
  }
  return v;
}

double ParseDouble(std::string_view text, const std::string& name) {
  const std::string s(text);
  char* e = nullptr;
  const double d = std::strtod(s.c_str(), &e);
  if (s.empty() || *e != '\0' || !std::isfinite(d)) throw UsageError("--" + name + " = '" + s + "' is not a number");
  return d;
}

Args::Args(int argc, char** argv, std::set<std::string> options, std::set<std::string> switches) {
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 2 && a.rfind("--", 0) == 0) {
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
          if (i + 1 >= argc) throw UsageError("--" + name + " needs a value");
          values_[name] = argv[++i];
        }
      } else {
        std::string known;
        for (const auto& o : options) known += " --" + o;
        for (const auto& s : switches) known += " --" + s;
        throw UsageError("unknown option --" + name + " (expected one of:" + known + ")");
      }
    } else if (a == "-o") {
      if (!options.count("o")) throw UsageError("unknown option -o");
      if (i + 1 >= argc) throw UsageError("-o needs a value");
      values_["o"] = argv[++i];
    } else {
      positionals_.push_back(a);
    }
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
  if (!v) throw UsageError((name == "o" ? std::string("-o") : "--" + name) + " is required");
  return *v;
}

std::optional<uint64_t> Args::OptU64(const std::string& name, uint64_t lo, uint64_t hi) const {
  auto v = Get(name);
  if (!v) return std::nullopt;
  const uint64_t x = ParseU64(*v, name);
  if (x < lo || x > hi)
    throw UsageError("--" + name + " = " + *v + " is out of range: expected " + std::to_string(lo) + ".." +
                     std::to_string(hi));
  return x;
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
