#include "aopt/common/text.h"

namespace aopt::common {

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    // Length of the sequence `c` starts and the allowed range of its second byte (RFC 3629).
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80) len = 1;
    else if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c == 0xE0) len = 3, lo = 0xA0;
    else if (c >= 0xE1 && c <= 0xEC) len = 3;
    else if (c == 0xED) len = 3, hi = 0x9F;
    else if (c >= 0xEE && c <= 0xEF) len = 3;
    else if (c == 0xF0) len = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) len = 4;
    else if (c == 0xF4) len = 4, hi = 0x8F;
    bool ok = len > 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) {
      ok = k == 1 ? (p[i + 1] >= lo && p[i + 1] <= hi) : (p[i + k] >= 0x80 && p[i + k] <= 0xBF);
    }
    if (ok) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    }
  }
  return out;
}

std::string bounded_text(std::string_view s, std::size_t max_bytes, std::string_view marker) {
  std::string v = valid_utf8(s.substr(0, max_bytes + 4));
  if (s.size() <= max_bytes && v.size() <= max_bytes) return v;
  std::size_t cut = std::min(max_bytes, v.size());
  while (cut > 0 && (static_cast<unsigned char>(v[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  v.resize(cut);
  v += marker;
  return v;
}

}  // namespace aopt::common
