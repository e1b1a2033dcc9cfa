// NCCL's list syntax for NCCL_ALGO and NCCL_PROTO: names separated by commas,
// matched without case, and a leading '^' to take every name but those
// (NCCL's docs, "NCCL_ALGO"; src/graph/tuning.cc parseList). One parser for
// the topology's `nccl:` settings, `cost --algorithm/--protocol` and the
// calibration setups (which write '+' for the comma a CSV field cannot hold).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace topoplan {

struct NameList {
  std::uint32_t named = 0;  // bit i: names[i] was given
  bool excluded = false;    // '^': the list names what is left out

  /// The members of `all` (a mask over the same names) the list selects.
  std::uint32_t selected(std::uint32_t all) const { return excluded ? all & ~named : all & named; }
};

/// Parses `text` over `names` (lower case, at most 32), with any character of
/// `separators` between names. Returns nullopt and sets `problem` for an empty
/// name (also an empty list) or an unknown one; the message lists `names`.
std::optional<NameList> parse_name_list(std::string_view text, std::span<const std::string_view> names,
                                        std::string_view separators, std::string& problem);

}  // namespace topoplan
