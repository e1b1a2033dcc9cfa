// A small NVL72-like cluster for the what-if tests, small enough to check
// by hand: 2 SUs of 2 racks, each rack 2 trays of 2 GPUs on 2 NVSwitch
// trays, one NIC per GPU on a rail leaf of its SU, 2 spines.
//
//   su0: r0 (r0-n0, r0-n1), r1 (r1-n0, r1-n1)     leaves su0/leaf[0-1]
//   su1: r2 (r2-n0, r2-n1), r3 (r3-n0, r3-n1)     leaves su1/leaf[0-1]
//   GPUs rX-nY/gpu[0-1], NICs rX-nY/nic[0-1], NVSwitches suS/rX/nvsw[0-1]
#pragma once

#include <string>

#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/placement/plan_io.hpp"

namespace topoplan::test {

inline const char* kTinyCluster = R"(name: tiny
levels: [cluster, su, rack, node]
blocks:
  tray:
    level: node
    hostname: "{rack}-n{j}"
    devices:
      - {name: "cpu0", kind: cpu, model: Grace}
      - {name: "gpu[0-1]", kind: gpu, model: GB200, memory: 186}
      - {name: "nic[0-1]", kind: nic, model: ConnectX-7}
    links:
      - {from: "cpu0", to: "gpu[0-1]", type: nvlink-c2c}
      - {from: "gpu*", to: "nic*", type: pcie5x16, mode: pairwise}
  rack:
    level: rack
    devices:
      - {name: "nvsw[0-1]", kind: nvswitch, model: NVLink5-switch-tray}
    children:
      - {block: tray, count: 2, name: "n{j}"}
    links:
      - {from: "*/gpu*", to: "nvsw*", type: nvlink5, count: 2}
  su:
    level: su
    devices:
      - {name: "leaf[0-1]", kind: switch, model: rail-leaf}
    links:
      - {from: "*/*/nic*", to: "leaf*", type: ib-ndr, mode: rail}
  cluster:
    level: cluster
    devices:
      - {name: "spine[0-1]", kind: switch, model: spine-plane}
    children:
      - block: rack
        count: 4
        name: "r{g}"
        group: {block: su, size: 2, name: "su{i}"}
    links:
      - {from: "*/leaf*", to: "spine*", type: ib-ndr, count: 2}
root: cluster
)";

inline Topology tiny_cluster() { return parse_topology_yaml(kTinyCluster, "tiny.yaml"); }

/// A hand-written plan (topoplan-jobs(5), PLANS) on `topology`.
inline Plan hand_plan(const Topology& topology, const std::string& yaml) {
  return parse_plan_yaml(yaml, "plan.yaml", topology);
}

/// The tiny cluster's usual plan: `train` on rack r1, a service with one
/// replica on r2-n0 and one on r3-n0 (spread by rack), `small` on one GPU
/// of r2-n1. Free: rack r0, r2-n1/gpu1, node r3-n1.
inline const char* kTinyPlan = R"(jobs:
  - {name: train, gpus: 4, parallelism: {tp: 2, dp: 2}, required: rack, priority: 5,
     devices: "r1-n0/gpu[0-1],r1-n1/gpu[0-1]"}
  - {name: svc, kind: inference, replicas: 2, gpus_per_replica: 2, parallelism: {tp: 2}, spread: rack,
     priority: 10, replica_devices: ["r2-n0/gpu[0-1]", "r3-n0/gpu[0-1]"]}
  - {name: small, gpus: 1, devices: "r2-n1/gpu0"}
)";

}  // namespace topoplan::test
