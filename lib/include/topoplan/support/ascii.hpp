// ASCII case for names that are matched without case (NCCL_ALGO names, file
// extensions, Slurm keywords, model names): bytes outside A-Z stay as they are,
// so UTF-8 text passes through unchanged and no locale is consulted.
#pragma once

#include <string>
#include <string_view>

namespace topoplan {

/// `c` with A-Z mapped to a-z.
constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

/// `text` with A-Z mapped to a-z.
std::string ascii_lower(std::string_view text);

/// Whether `a` and `b` are equal when A-Z and a-z are taken as the same.
bool ascii_iequals(std::string_view a, std::string_view b);

}  // namespace topoplan
