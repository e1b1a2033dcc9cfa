// What the benchmark drivers share: reading an input file whole and
// splitting a comma-separated option value.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "topoplan/support/comma_list.hpp"

namespace topoplan::bench {

/// The whole contents of `path`; "" when it cannot be read (a benchmark's
/// inputs are the repository's own files, whose parsers then say what is wrong).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The items of a comma-separated list (`--policies topo,kueue`), as the CLI
/// splits them.
inline std::vector<std::string> split(const std::string& s) { return split_comma_list(s); }

}  // namespace topoplan::bench
