#include "topoplan/cost/byte_size.hpp"

#include <array>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "topoplan/support/error.hpp"
#include "topoplan/support/json_writer.hpp"

namespace topoplan {

namespace {

struct Unit {
  std::string_view name;  // upper-case
  std::uint64_t factor;
};

constexpr std::uint64_t kKi = 1024;
constexpr std::array<Unit, 14> kUnits = {{
    {"", 1},
    {"B", 1},
    {"K", kKi},
    {"M", kKi * kKi},
    {"G", kKi * kKi * kKi},
    {"T", kKi * kKi * kKi * kKi},
    {"KIB", kKi},
    {"MIB", kKi * kKi},
    {"GIB", kKi * kKi * kKi},
    {"TIB", kKi * kKi * kKi * kKi},
    {"KB", 1000},
    {"MB", std::uint64_t{1000} * 1000},
    {"GB", std::uint64_t{1000} * 1000 * 1000},
    {"TB", std::uint64_t{1000} * 1000 * 1000 * 1000},
}};

[[noreturn]] void fail(std::string_view text, std::string_view what, std::string_view why) {
  throw InputError({}, fmt::format("{} '{}': {}", what, text, why));
}

}  // namespace

std::uint64_t parse_byte_size(std::string_view text, std::string_view what) {
  std::size_t i = 0;
  std::uint64_t whole = 0;
  bool digits = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+'))
    fail(text, what, "must be a positive number of bytes, e.g. 1048576, 8G or 256MiB");
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (whole > kMaxByteSize) fail(text, what, "is larger than 1 PiB");
    whole = whole * 10 + static_cast<std::uint64_t>(text[i] - '0');
    digits = true;
    ++i;
  }
  // Fraction digits as numerator / denominator, at most 9 of them.
  std::uint64_t numerator = 0;
  std::uint64_t denominator = 1;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (denominator >= 1'000'000'000) fail(text, what, "has too many decimals");
      numerator = numerator * 10 + static_cast<std::uint64_t>(text[i] - '0');
      denominator *= 10;
      digits = true;
      ++i;
    }
  }
  if (!digits) fail(text, what, "is not a size; write bytes or a number with a unit, e.g. 8G or 256MiB");
  std::string unit;
  for (std::size_t k = i; k < text.size(); ++k)
    unit += static_cast<char>(std::toupper(static_cast<unsigned char>(text[k])));
  const Unit* found = nullptr;
  for (const Unit& u : kUnits)
    if (u.name == unit) found = &u;
  if (!found)
    fail(text, what,
         fmt::format("unknown unit '{}'; units are K, M, G, T (binary, as nccl-tests), KiB, MiB, GiB, TiB, "
                     "and KB, MB, GB, TB (decimal)",
                     text.substr(i)));
  if (whole > kMaxByteSize / found->factor) fail(text, what, "is larger than 1 PiB");
  std::uint64_t bytes = whole * found->factor;
  if (numerator != 0) {
    // factor * numerator fits: factor <= 2^40 and numerator < 10^9 < 2^30.
    std::uint64_t scaled = found->factor * numerator;
    if (scaled % denominator != 0) fail(text, what, "is not a whole number of bytes");
    bytes += scaled / denominator;
  }
  if (bytes == 0) fail(text, what, "must be at least one byte");
  if (bytes > kMaxByteSize) fail(text, what, "is larger than 1 PiB");
  return bytes;
}

SizeRange parse_size_range(std::string_view text, std::string_view what) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos)
    fail(text, what, "must be FROM:TO, e.g. 1K:16G");
  SizeRange range;
  range.from = parse_byte_size(text.substr(0, colon), what);
  range.to = parse_byte_size(text.substr(colon + 1), what);
  if (range.to < range.from) fail(text, what, "ends below its start");
  return range;
}

std::string format_byte_size(std::uint64_t bytes) {
  constexpr std::array<std::string_view, 5> kNames = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  double value = static_cast<double>(bytes);
  while (unit + 1 < kNames.size() && value >= 1024) {
    value /= 1024;
    ++unit;
  }
  // Keep bytes when the binary unit would need rounding.
  if (unit > 0 && std::fabs(value * 1000 - std::round(value * 1000)) > 1e-6)
    return fmt::format("{} B", bytes);
  return fmt::format("{} {}", format_number(value, 3), kNames[unit]);
}

}  // namespace topoplan
