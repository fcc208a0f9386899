// SPDX-License-Identifier: Apache-2.0
// JSON output of the CLI's commands (stats, garden-stats): one escaping for
// every string a command prints, so any bytes (file names, keys) make valid
// JSON, and one form for reals.
#ifndef BLOCKBLOOM_TOOLS_JSON_H_
#define BLOCKBLOOM_TOOLS_JSON_H_

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace blockbloom::cli {

// The length of the valid UTF-8 sequence at s[i] (1..4), or 0 if the bytes
// there are not one (stray continuation byte, overlong form, surrogate, past
// U+10FFFF, cut short).
inline size_t Utf8Length(std::string_view s, size_t i) {
  const auto b = [&](size_t j) { return j < s.size() ? static_cast<unsigned char>(s[j]) : 0u; };
  const unsigned c = b(i);
  const auto cont = [&](size_t j) { return (b(j) & 0xC0) == 0x80; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned c1 = b(i + 1);
    if (!cont(i + 1) || !cont(i + 2)) return 0;
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F)) return 0;  // overlong, surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned c1 = b(i + 1);
    if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3)) return 0;
    if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) return 0;  // overlong, > U+10FFFF
    return 4;
  }
  return 0;
}

// A JSON string literal's body: valid UTF-8 kept; quotes, backslashes and
// control bytes escaped; each byte that is not part of valid UTF-8 (a file
// name is any bytes) becomes U+FFFD, so the document is always valid JSON.
inline std::string JsonEscape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    const size_t len = Utf8Length(s, i);
    if (len == 0) {
      out += "\\ufffd";
      ++i;
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
      ++i;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

// A real as a JSON number ("%.17g"), or null when it is not finite.
inline std::string JsonNumber(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_JSON_H_
