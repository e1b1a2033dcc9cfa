// A small heterogeneous topology for the planner engine's tests: 3 racks of
// 3 nodes; racks r0 and r1 hold nodes of 4 model-A GPUs, rack r2 nodes of 2
// model-B GPUs, and one node of r2 mixes models. Every count the engine
// keeps can be recomputed from it by brute force.
#pragma once

#include <string>

#include "topoplan/io/topology_yaml.hpp"

namespace topoplan::test {

inline const char* kEngineTopology = R"(name: engine
levels: [cluster, rack, node]
blocks:
  a:
    level: node
    hostname: "{rack}-{node}"
    devices:
      - {name: "gpu[0-3]", kind: gpu, model: A, memory: 80}
  b:
    level: node
    hostname: "{rack}-{node}"
    devices:
      - {name: "gpu[0-1]", kind: gpu, model: B, memory: 40}
  mixed:
    level: node
    hostname: "{rack}-{node}"
    devices:
      - {name: "gpu0", kind: gpu, model: A, memory: 80}
      - {name: "gpu1", kind: gpu, model: B, memory: 40}
      - {name: "gpu2", kind: gpu, model: B, memory: 40, state: down}
  ra:
    level: rack
    children:
      - {block: a, count: 3, name: "n{i}"}
  rb:
    level: rack
    children:
      - {block: b, count: 2, name: "n{i}"}
      - {block: mixed, name: "n2"}
  cluster:
    level: cluster
    children:
      - {block: ra, count: 2, name: "r{i}"}
      - {block: rb, name: "r2"}
root: cluster
)";

inline Topology engine_topology() { return parse_topology_yaml(kEngineTopology, "engine.yaml"); }

}  // namespace topoplan::test
