// What NVIDIA Topograph's test models (tests/data/topograph) say, read
// directly with yaml-cpp, for tests to compare topoplan's topologies against.
#pragma once

#include <map>
#include <set>
#include <string>

#include <yaml-cpp/yaml.h>

#include "source_dir.hpp"
#include "topoplan/io/hostlist.hpp"

namespace topoplan::test {

/// Accelerator domain (the block annotation) -> hostnames of a model.
inline std::map<std::string, std::set<std::string>> topograph_domains(const std::string& model) {
  std::map<std::string, std::set<std::string>> out;
  YAML::Node root = YAML::LoadFile(std::string(TOPOPLAN_SOURCE_DIR) + "/tests/data/topograph/" + model);
  for (const YAML::Node& block : root["blocks"]) {
    std::string domain = block["annotations"]["accelerator.topology.test/domain"].as<std::string>();
    for (const YAML::Node& list : block["nodes"])
      for (const std::string& host : expand_hostlist(list.as<std::string>()).names) out[domain].insert(host);
  }
  return out;
}

}  // namespace topoplan::test
