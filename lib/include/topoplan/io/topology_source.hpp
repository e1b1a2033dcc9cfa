// Where topologies come from: the built-in presets (topologies/*.yaml, compiled
// into the binary) or a file, either followed by `:key=value,...` settings.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/model/topology.hpp"

namespace topoplan {

/// A preset compiled into the binary.
struct BuiltinTopology {
  std::string_view name;  // e.g. "gb200-nvl72"
  std::string_view file;  // its path in the source tree, e.g. "topologies/gb200-nvl72.yaml"
  std::string_view text;
};

/// Every preset, sorted by name.
std::span<const BuiltinTopology> builtin_topologies();
const BuiltinTopology* find_builtin_topology(std::string_view name);

/// A TOPO argument split into what it names and its parameter settings.
struct TopologyArgument {
  std::string target;  // a preset name or a file path
  ParameterSettings settings;
};

/// Splits `NAME:key=value,key=value`. Throws InputError on malformed settings.
TopologyArgument parse_topology_argument(std::string_view argument);

/// Reads a file for the library: returns its contents, nullopt when there is
/// no such file, or throws InputError when it exists but cannot be read. Only
/// the command-line driver touches the file system, through this.
using FileReader = std::function<std::optional<std::string>(const std::string& path)>;

/// Loads the topology an argument names: a preset first, else a file.
Topology load_topology(std::string_view argument, const FileReader& read);

}  // namespace topoplan
