// topoplan's native job manifest format (YAML), documented in topoplan-jobs(5).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topoplan/placement/job.hpp"

namespace topoplan {

/// Parses `jobs: [...]`. Throws InputError listing every problem (unknown keys
/// with suggestions, wrong types, impossible numbers), each with line and column.
std::vector<Job> parse_jobs_yaml(std::string_view text, const std::string& file);

/// `70B`, `1.5T`, `350M`, `7e9` -> a count (K, M, B/G, T are powers of 1000).
std::optional<double> parse_count(std::string_view text);

}  // namespace topoplan
