// What the benchmark drivers share: reading an input file whole and
// splitting a comma-separated option value.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace topoplan::bench {

/// The whole contents of `path`; "" when it cannot be read (a benchmark's
/// inputs are the repository's own files, whose parsers then say what is wrong).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The non-empty items of a comma-separated list (`--policies topo,kueue`).
inline std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace topoplan::bench
