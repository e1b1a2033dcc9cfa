// UTF-8 validity: every text topoplan reads and writes is UTF-8. Readers
// refuse input that is not; writers of formats that require it (JSON) mark
// what is not with U+FFFD instead of writing invalid bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace topoplan {

/// The length of the valid UTF-8 sequence starting at `text[at]` (1 to 4),
/// or 0 when none starts there (a stray continuation byte, an overlong or
/// truncated sequence, a surrogate, a code point above U+10FFFF).
std::size_t utf8_sequence_length(std::string_view text, std::size_t at);

/// The offset of the first byte that starts no valid sequence; npos when
/// `text` is all valid UTF-8.
std::size_t first_invalid_utf8(std::string_view text);

/// `text` with each byte that starts no valid sequence replaced by `with`.
std::string repair_utf8(std::string_view text, std::string_view with = "\xEF\xBF\xBD");

}  // namespace topoplan
