// Message sizes as users write them: `1048576`, `8G`, `256MiB`, `1.5GB`.
//
// Units: a bare number is bytes (`B` may follow). K, M, G, T are binary
// (powers of 1024), as in nccl-tests' -b/-e options; KiB, MiB, GiB, TiB are
// binary too; KB, MB, GB, TB are decimal (powers of 1000), as SI defines them.
// Unit letters are case-insensitive. A fractional number is allowed when the
// result is a whole number of bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace topoplan {

/// The largest size accepted: 1 PiB.
inline constexpr std::uint64_t kMaxByteSize = std::uint64_t{1} << 50;

/// Parses a positive size. Throws InputError naming `what` (e.g. "--size")
/// when the text is not a size, is zero or negative, or exceeds kMaxByteSize.
std::uint64_t parse_byte_size(std::string_view text, std::string_view what);

/// A range of sizes, `FROM:TO` (`1K:16G`), each as parse_byte_size reads it.
struct SizeRange {
  std::uint64_t from = 0;
  std::uint64_t to = 0;
};

/// Parses `FROM:TO`; throws InputError naming `what` when either end is not a
/// size or TO is below FROM.
SizeRange parse_size_range(std::string_view text, std::string_view what);

/// `256 MiB`, `1.5 GiB`, `1000 B`: binary units when the value is a multiple
/// of one, with at most three decimals; bytes otherwise.
std::string format_byte_size(std::uint64_t bytes);

}  // namespace topoplan
