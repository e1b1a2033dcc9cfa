// Small topologies for the cost-model tests, written as YAML so that every
// number the expectations use is visible here, and the helpers the tests
// share to pick ranks and read refusals.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "topoplan/cost/cost_model.hpp"
#include "topoplan/cost/rank_set.hpp"
#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/model/topology.hpp"
#include "topoplan/support/error.hpp"

namespace cost_test {

/// NODES boxes of 8 "H100" GPUs, each with 18 NVLink 4 links (25 GB/s) to one
/// NVSwitch, and one 400G NIC per GPU behind a PCIe Gen5 x16 link (63.0
/// GB/s); all NICs on one leaf switch. Hostnames box0, box1, ...
inline const char* kBoxes = R"(
name: boxes
parameters:
  nodes: {default: 1, min: 1, max: 64}
levels: [cluster, node]
blocks:
  box:
    level: node
    hostname: "box{g}"
    devices:
      - {name: "cpu0", kind: cpu, model: Xeon}
      - {name: "gpu[0-7]", kind: gpu, model: H100}
      - {name: "nvsw", kind: nvswitch}
      - {name: "nic[0-7]", kind: nic}
    links:
      - {from: "gpu*", to: "nvsw", type: nvlink4, count: 18}
      - {from: "gpu*", to: "nic*", type: pcie5x16, mode: pairwise}
      - {from: "gpu*", to: "cpu0", type: pcie5x16}
  cluster:
    level: cluster
    devices:
      - {name: "leaf", kind: switch}
    children:
      - {block: box, count: "{nodes}", name: "n{g}"}
    links:
      - {from: "*/nic*", to: "leaf", type: ib-ndr}
root: cluster
)";

/// 8 leaf domains of 4 nodes of kBoxes' kind; each leaf switch has 32 NDR
/// downlinks (1600 GB/s) and 4 NDR uplinks (200 GB/s) to one spine: 8:1
/// oversubscribed. Hostnames l0-n0 .. l7-n3.
inline const char* kLeaves = R"(
name: leaves
levels: [cluster, leaf, node]
blocks:
  box:
    level: node
    hostname: "l{leaf}-n{j}"
    devices:
      - {name: "cpu0", kind: cpu, model: Xeon}
      - {name: "gpu[0-7]", kind: gpu, model: H100}
      - {name: "nvsw", kind: nvswitch}
      - {name: "nic[0-7]", kind: nic}
    links:
      - {from: "gpu*", to: "nvsw", type: nvlink4, count: 18}
      - {from: "gpu*", to: "nic*", type: pcie5x16, mode: pairwise}
  leafdomain:
    level: leaf
    devices:
      - {name: "sw", kind: switch}
    children:
      - {block: box, count: 4, name: "n{j}"}
    links:
      - {from: "*/nic*", to: "sw", type: ib-ndr}
  cluster:
    level: cluster
    devices:
      - {name: "spine", kind: switch}
    children:
      - {block: leafdomain, count: 8, name: "{j}"}
    links:
      - {from: "*/sw", to: "spine", type: ib-ndr, count: 4}
root: cluster
)";

/// One node of 4 "MI300X" GPUs on a full xGMI mesh (64 GB/s per link).
inline const char* kMesh = R"(
name: mesh
levels: [cluster, node]
blocks:
  node:
    level: node
    hostname: "m0"
    devices:
      - {name: "gpu[0-3]", kind: gpu, model: MI300X}
    links:
      - {from: "gpu*", type: xgmi, mode: mesh}
  cluster:
    level: cluster
    children:
      - {block: node, count: 1, name: "n0"}
root: cluster
)";

/// One PCIe-only node: 4 "L40S" GPUs, two per CPU socket, each on its own
/// PCIe Gen4 x16 link (31.5 GB/s) to its CPU; the sockets joined by UPI (22 GB/s).
inline const char* kPcie = R"(
name: pcie
levels: [cluster, node]
blocks:
  node:
    level: node
    hostname: "p0"
    devices:
      - {name: "cpu[0-1]", kind: cpu, model: Xeon}
      - {name: "gpu[0-3]", kind: gpu, model: L40S}
    links:
      - {from: "gpu[0-1]", to: "cpu0", type: pcie4x16}
      - {from: "gpu[2-3]", to: "cpu1", type: pcie4x16}
      - {from: "cpu0", to: "cpu1", type: upi}
  cluster:
    level: cluster
    children:
      - {block: node, count: 1, name: "n0"}
root: cluster
)";

/// Four LPUs in a chain of Groq C2C links (14 GB/s, 1 us per hop).
inline const char* kChain = R"(
name: chain
levels: [cluster, node]
blocks:
  node:
    level: node
    hostname: "g0"
    devices:
      - {name: "lpu[0-3]", kind: lpu, model: TSP}
    links:
      - {from: "lpu*", type: groq-c2c, mode: chain}
  cluster:
    level: cluster
    children:
      - {block: node, count: 1, name: "n0"}
root: cluster
)";

inline topoplan::Topology parse(const char* yaml, std::vector<std::pair<std::string, std::string>> settings = {}) {
  topoplan::ParameterSettings p;
  p.values = std::move(settings);
  return topoplan::parse_topology_yaml(yaml, "test.yaml", p);
}

/// Two hosts (NODES) of 2 "H100" GPUs on one NVSwitch whose NICs hang off
/// the CPU's root complex, not a PCIe switch shared with the GPUs: NCCL's
/// PHB. Hostnames h0, h1, ...
inline const char* kHostBridge = R"(
name: host-bridge
parameters:
  nodes: {default: 2, min: 1, max: 8}
levels: [cluster, node]
blocks:
  host:
    level: node
    hostname: "h{g}"
    devices:
      - {name: "cpu0", kind: cpu, model: Xeon}
      - {name: "gpu[0-1]", kind: gpu, model: H100}
      - {name: "nvsw", kind: nvswitch}
      - {name: "nic[0-1]", kind: nic}
    links:
      - {from: "gpu*", to: "nvsw", type: nvlink4, count: 18}
      - {from: "gpu*", to: "cpu0", type: pcie5x16}
      - {from: "cpu0", to: "nic*", type: pcie5x16}
  cluster:
    level: cluster
    devices:
      - {name: "leaf", kind: switch}
    children:
      - {block: host, count: "{nodes}", name: "n{g}"}
    links:
      - {from: "*/nic*", to: "leaf", type: ib-ndr}
root: cluster
)";

/// Two kinds of 8-GPU "B200" box on one leaf, each GPU with its Grace over
/// NVLink-C2C and its own 400G NIC: in p0, p1 the NIC links the GPU over PCIe
/// (NCCL's PIX); in g2, g3 it hangs off the Grace (NCCL's P2C).
inline const char* kMixedNicPaths = R"(
name: mixed-nic-paths
levels: [cluster, node]
blocks:
  pcie-box:
    level: node
    hostname: "p{j}"
    devices:
      - {name: "cpu[0-7]", kind: cpu, model: Grace}
      - {name: "gpu[0-7]", kind: gpu, model: B200}
      - {name: "nvsw", kind: nvswitch}
      - {name: "nic[0-7]", kind: nic}
    links:
      - {from: "gpu*", to: "nvsw", type: nvlink5, count: 18}
      - {from: "cpu*", to: "gpu*", type: nvlink-c2c, mode: pairwise}
      - {from: "gpu*", to: "nic*", type: pcie5x16, mode: pairwise}
  grace-box:
    level: node
    hostname: "g{j}"
    devices:
      - {name: "cpu[0-7]", kind: cpu, model: Grace}
      - {name: "gpu[0-7]", kind: gpu, model: B200}
      - {name: "nvsw", kind: nvswitch}
      - {name: "nic[0-7]", kind: nic}
    links:
      - {from: "gpu*", to: "nvsw", type: nvlink5, count: 18}
      - {from: "cpu*", to: "gpu*", type: nvlink-c2c, mode: pairwise}
      - {from: "cpu*", to: "nic*", type: pcie5x16, mode: pairwise}
  cluster:
    level: cluster
    devices:
      - {name: "leaf", kind: switch}
    children:
      - {block: pcie-box, count: 2, name: "p{j}"}
      - {block: grace-box, count: 2, name: "g{j}"}
    links:
      - {from: "*/nic*", to: "leaf", type: ib-ndr}
root: cluster
)";

/// Accelerators by name, in the order given.
inline std::vector<topoplan::DeviceId> devices(const topoplan::Topology& t, const std::vector<std::string>& names) {
  topoplan::TopologyIndex index(t);
  std::vector<topoplan::DeviceId> out;
  for (const std::string& n : names) out.push_back(*index.find_device(n));
  return out;
}

/// The first `n` accelerators.
inline std::vector<topoplan::DeviceId> first(const topoplan::Topology& t, std::size_t n) {
  auto a = t.accelerators();
  return {a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n)};
}
inline std::vector<topoplan::DeviceId> first_n(const topoplan::Topology& t, std::size_t n) { return first(t, n); }

/// NCCL's size ramp, restated for expectations: 1 / (1 + sqrt(buffer / bytes)).
inline double eta(double bytes, double buffer) { return 1.0 / (1.0 + std::sqrt(buffer / bytes)); }

inline constexpr double kSimpleBuffer = 4.0 * 1024 * 1024;  // NCCL DEFAULT_BUFFSIZE
inline constexpr double kLLBuffer = 512.0 * 1024;           // NCCL DEFAULT_LL_BUFFSIZE

/// One box of 8 A100 on 6 NVSwitches, 2 NVLink 3 links to each (DGX A100).
inline const char* kA100Box = R"(
name: a100
levels: [cluster, node]
blocks:
  node:
    level: node
    hostname: "a0"
    devices:
      - {name: "gpu[0-7]", kind: gpu, model: A100}
      - {name: "nvsw[0-5]", kind: nvswitch}
    links:
      - {from: "gpu*", to: "nvsw*", type: nvlink3, count: 2}
  cluster:
    level: cluster
    children:
      - {block: node, count: 1, name: "n0"}
root: cluster
)";

/// The devices a rank list names ("box0/gpu0,box1/gpu0"), in that order.
inline std::vector<topoplan::DeviceId> named(const topoplan::Topology& t, const std::string& list) {
  topoplan::RankSelection s;
  s.devices = list;
  return topoplan::select_ranks(t, s);
}

inline constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

/// The message with which the model refuses `q`, or "" when it prices it.
inline std::string error_of(const topoplan::CostModel& model, const topoplan::CollectiveQuery& q) {
  try {
    model.collective(q);
  } catch (const topoplan::InputError& e) {
    return e.diagnostics().front().message;
  }
  return "";
}

}  // namespace cost_test
