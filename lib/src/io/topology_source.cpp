#include "topoplan/io/topology_source.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace topoplan {

const BuiltinTopology* find_builtin_topology(std::string_view name) {
  for (const BuiltinTopology& t : builtin_topologies())
    if (t.name == name) return &t;
  return nullptr;
}

TopologyArgument parse_topology_argument(std::string_view argument) {
  TopologyArgument out;
  out.settings.origin = std::string(argument);
  std::size_t colon = argument.rfind(':');
  std::string_view tail = colon == std::string_view::npos ? std::string_view() : argument.substr(colon + 1);
  // Only a tail of key=value pairs is settings; otherwise the colon is part of a path.
  if (colon == std::string_view::npos || tail.find('=') == std::string_view::npos) {
    out.target = std::string(argument);
    return out;
  }
  out.target = std::string(argument.substr(0, colon));
  std::size_t start = 0;
  while (start <= tail.size()) {
    std::size_t comma = tail.find(',', start);
    std::string_view item = tail.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
      throw InputError({std::string(argument), 0, 0},
                       fmt::format("'{}' is not a setting; write NAME:key=value,key=value", item));
    std::string key(item.substr(0, eq));
    for (const auto& existing : out.settings.values)
      if (existing.first == key)
        throw InputError({std::string(argument), 0, 0}, fmt::format("parameter '{}' is set twice", key));
    out.settings.values.emplace_back(std::move(key), std::string(item.substr(eq + 1)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

Topology load_topology(std::string_view argument, const FileReader& read) {
  TopologyArgument arg = parse_topology_argument(argument);
  if (arg.target.empty()) throw InputError({}, "empty topology name");
  if (const BuiltinTopology* builtin = find_builtin_topology(arg.target))
    return parse_topology_yaml(builtin->text, std::string(builtin->file), arg.settings);
  if (std::optional<std::string> text = read(arg.target))
    return parse_topology_yaml(*text, arg.target, arg.settings);
  std::vector<std::string> names;
  for (const BuiltinTopology& t : builtin_topologies()) names.emplace_back(t.name);
  std::string hint = did_you_mean(arg.target, names);
  throw InputError({arg.target, 0, 0},
                   fmt::format("no such file or built-in topology{}; built-ins are {} (see 'topoplan topology list')",
                               hint.empty() ? "" : " (" + hint + ")", fmt::join(names, ", ")));
}

}  // namespace topoplan
