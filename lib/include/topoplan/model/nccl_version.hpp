// An NCCL release, as a run or a platform states it ("NCCL 2.26.2"). NCCL's
// tuner, whose choice of algorithm and protocol the cost model reproduces,
// changed its tables between releases (topoplan-cost(7), "NCCL versions"),
// so the same collective on the same hardware may run another algorithm
// under another release.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace topoplan {

struct NcclVersion {
  int major = 2;
  int minor = 0;
  int patch = 0;

  auto operator<=>(const NcclVersion&) const = default;
  /// "2.26.2"
  std::string str() const;
};

/// Parses MAJOR.MINOR or MAJOR.MINOR.PATCH (a leading 'v' and a packaging
/// suffix such as "-1" or "+cuda12.8" are allowed, as NCCL's tags and
/// packages spell them). Releases before 2.0 did not have the tuner the
/// model follows and are refused. Empty with `problem` set on bad input.
std::optional<NcclVersion> parse_nccl_version(std::string_view text, std::string& problem);

}  // namespace topoplan
