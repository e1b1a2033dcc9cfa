// Comma-separated option values (`--policies topo,kueue`, `--sizes 0.25,0.5`):
// one way to split them for the CLI and the benchmarks alike.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace topoplan {

/// The items of `list` split at commas, each without the spaces and tabs
/// around it, in order; empty items ("a,,b", a trailing comma, "" itself)
/// are left out.
std::vector<std::string> split_comma_list(std::string_view list);

}  // namespace topoplan
