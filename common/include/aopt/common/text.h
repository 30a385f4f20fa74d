// Text that leaves the evaluator (diagnostics, logs, JSON): valid UTF-8 and bounded.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace aopt::common {

// `s` with every byte that is not part of a well-formed UTF-8 sequence (RFC 3629: no overlongs,
// surrogates or code points above U+10FFFF) replaced by U+FFFD.
std::string valid_utf8(std::string_view s);
// valid_utf8(s), cut to at most `max_bytes` at a character boundary with `marker` appended.
std::string bounded_text(std::string_view s, std::size_t max_bytes, std::string_view marker = "\n[truncated]");
// Whether `s` is well-formed UTF-8 (valid_utf8(s) == s).
bool is_valid_utf8(std::string_view s);
// The offset of the first byte of `s` that is not part of a well-formed UTF-8 sequence, or
// std::string_view::npos when there is none: where to point a message about malformed text.
std::size_t first_invalid_utf8(std::string_view s);

// Bytes as standard base64 (RFC 4648, with padding) and back: the exact form of bytes that are not
// text in a JSON record. base64_decode throws std::invalid_argument on a character outside the
// alphabet or a bad length.
std::string base64_encode(std::string_view bytes);
std::string base64_decode(std::string_view text);

}  // namespace aopt::common
