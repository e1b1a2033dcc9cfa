#include "topoplan/io/topology_catalog.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/io/topology_source.hpp"
#include "topoplan/support/json_writer.hpp"

namespace topoplan {

std::vector<TopologyInfo> describe_builtin_topologies() {
  std::vector<TopologyInfo> out;
  for (const BuiltinTopology& t : builtin_topologies())
    out.push_back(describe_topology_yaml(t.text, std::string(t.file)));
  return out;
}

void write_catalog_text(std::ostream& out, const std::vector<TopologyInfo>& topologies) {
  for (const TopologyInfo& t : topologies) {
    std::vector<std::string> params;
    // The default is what the bare name gives: one node, or one rack.
    for (const TopologyParameter& p : t.parameters)
      params.push_back(fmt::format("{} {}..{} (default {}): {}", p.name, p.min, p.max, p.default_value, p.help));
    fmt::print(out, "{:<14} {}\n", t.name, t.description);
    fmt::print(out, "{:<14} levels: {}", "", fmt::join(t.levels, " > "));
    if (!params.empty()) fmt::print(out, "; parameters: {}", fmt::join(params, ", "));
    fmt::print(out, "\n");
  }
}

void write_catalog_json(std::ostream& out, const std::vector<TopologyInfo>& topologies) {
  JsonWriter j(out);
  j.begin_array();
  for (const TopologyInfo& t : topologies) {
    j.begin_object().field("name", t.name).field("description", t.description);
    j.key("levels").begin_array();
    for (const std::string& l : t.levels) j.value(l);
    j.end_array();
    j.key("parameters").begin_array();
    for (const TopologyParameter& p : t.parameters) {
      j.begin_object().field("name", p.name).field("default", p.default_value).field("min", p.min);
      j.field("max", p.max).field("help", p.help).end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
}

}  // namespace topoplan
