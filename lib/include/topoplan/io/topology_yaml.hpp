// topoplan's native topology format (YAML), documented in
// topoplan-topology(5): levels, parameters, reusable blocks repeated with name
// templates and counts, link rules, and per-device overrides.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "topoplan/model/topology.hpp"

namespace topoplan {

/// `key=value` settings for a topology's parameters, as given after the
/// topology name on the command line (`gb200-nvl72:racks=4`).
struct ParameterSettings {
  std::vector<std::pair<std::string, std::string>> values;
  std::string origin;  // how to name them in errors, e.g. the whole argument
};

/// What a topology file says about itself without building it.
struct TopologyInfo {
  std::string name;
  std::string description;
  std::vector<TopologyParameter> parameters;  // value == default_value
  std::vector<std::string> levels;
};

/// Builds the topology a file describes. `file` names the text in errors.
/// Throws InputError listing every problem found.
Topology parse_topology_yaml(std::string_view text, const std::string& file,
                             const ParameterSettings& settings = {});

/// Reads only the header of a topology file (name, description, parameters).
TopologyInfo describe_topology_yaml(std::string_view text, const std::string& file);

/// Size limits that keep a hostile file from exhausting memory: about
/// 600 MB at the limits (a 1M-node, 4M-GPU topology takes 500 MB), several
/// times the largest preset (gb200-nvl72:racks=4096, 0.9M devices) and any
/// cluster built so far.
struct TopologyLimits {
  static constexpr std::size_t max_devices = 4'000'000;
  static constexpr std::size_t max_links = 20'000'000;
  static constexpr std::size_t max_domains = 2'000'000;
};

}  // namespace topoplan
