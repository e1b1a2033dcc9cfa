// What the cost model reads off the link graph per accelerator: here, how it
// reaches its NICs, in NCCL's path types, and what NCCL does with that.
#include "topoplan/cost/fabric_profile.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "cost_test_topologies.hpp"
#include "test_presets.hpp"
#include "topoplan/cost/cost_model.hpp"

using namespace topoplan;
using namespace cost_test;
using topoplan::test::preset;

namespace {

bool offers_ll128(const CollectiveCost& c) {
  for (const Candidate& cand : c.candidates())
    if (cand.protocol == Protocol::ll128) return true;
  return false;
}

}  // namespace

TEST_CASE("NIC paths: PCIe switches, Grace over C2C (P2C), a CPU's host bridge") {
  // DGX H100: each GPU shares a PCIe switch with its NIC.
  Topology h100 = preset("dgx-h100:nodes=2");
  CostModel dgx(h100);
  CHECK(dgx.fabric().accelerator(0).nic_path == NicPath::pcie);
  // GB200: the tray's NICs hang off its two Graces; a GPU reaches them over
  // its C2C link, two NICs shared by the Grace's two GPUs: one NIC's worth
  // each, held to PCIe Gen5 x16 as NCCL models it (48 GB/s).
  Topology gb200 = preset("gb200-nvl72:racks=2");
  CostModel nvl(gb200);
  CHECK(nvl.fabric().accelerator(0).nic_path == NicPath::p2c);
  CHECK(nvl.fabric().accelerator(0).nic_bw == Approx(48.0).epsilon(0.01));
  // GB300: ConnectX-8 links its GPU directly (PCIe Gen6) as well as Grace:
  // the NIC's nearest accelerator is the GPU it links, over PCIe.
  Topology gb300 = preset("gb300-nvl72");
  CostModel ultra(gb300);
  CHECK(ultra.fabric().accelerator(0).nic_path == NicPath::pcie);
  // A NIC on the CPU's root complex, the GPU on PCIe: PHB.
  Topology bridge = parse(kHostBridge);
  CostModel host(bridge);
  CHECK(host.fabric().accelerator(0).nic_path == NicPath::cpu);
}

TEST_CASE("LL128 across nodes needs a NIC path of PXN or better: P2C keeps it, a host bridge does not") {
  // tuning.cc: LL128 only while typeInter <= PXN; P2C (GB200, NCCL 2.27.3 on)
  // is below PXN, PHB above it.
  Topology gb200 = preset("gb200-nvl72:racks=2");
  CostModel nvl(gb200);
  CHECK(offers_ll128(nvl.collective({first(gb200, 144), Collective::allreduce, std::uint64_t{1} << 30})));
  Topology bridge = parse(kHostBridge);
  CostModel host(bridge);
  CHECK_FALSE(offers_ll128(host.collective({first(bridge, 4), Collective::allreduce, std::uint64_t{1} << 30})));
  // Inside one node the NIC path does not matter.
  CHECK(offers_ll128(host.collective({first(bridge, 2), Collective::allreduce, std::uint64_t{1} << 30})));
}

TEST_CASE("an island spans hosts in a multi-node NVLink domain, not in one host's NVSwitches") {
  // GB200 NVL72: one NVLink domain over the rack's 18 compute trays (hosts).
  Topology gb200 = preset("gb200-nvl72:racks=2");
  CostModel nvl(gb200);
  const std::uint32_t rack = nvl.fabric().accelerator(0).island;
  REQUIRE(rack != kNone);
  CHECK(nvl.fabric().island_spans_hosts(rack));
  // DGX B200: each host's 8 GPUs are an island of their own.
  Topology b200 = preset("dgx-b200:nodes=2");
  CostModel dgx(b200);
  const std::uint32_t box = dgx.fabric().accelerator(0).island;
  REQUIRE(box != kNone);
  CHECK_FALSE(dgx.fabric().island_spans_hosts(box));
  CHECK_FALSE(dgx.fabric().island_spans_hosts(dgx.fabric().accelerator(8).island));
}

TEST_CASE("a GPU's NICs add up to what the path beyond each NIC's own link carries") {
  // One GPU with two 400G NICs under one PCIe switch, each NIC on its own
  // Gen5 x16 (48 GB/s as NCCL models it): with the GPU on Gen6 x16 both
  // NICs count (AWS p6-b300's two EFA devices a GPU), with the GPU on Gen5
  // x16 the GPU's link holds them to one NIC's worth.
  auto two_nics = [](const char* gpu_link) {
    const std::string text = fmt::format(R"(
name: two-nics
parameters:
  nodes: {{default: 2, min: 1, max: 2}}
levels: [cluster, node]
blocks:
  host:
    level: node
    hostname: "h{{g}}"
    devices:
      - {{name: "cpu0", kind: cpu, model: Xeon}}
      - {{name: "gpu0", kind: gpu, model: B300}}
      - {{name: "psw0", kind: pcie-switch}}
      - {{name: "nic[0-1]", kind: nic}}
    links:
      - {{from: "gpu0", to: "psw0", type: {}}}
      - {{from: "nic*", to: "psw0", type: pcie5x16}}
      - {{from: "psw0", to: "cpu0", type: pcie5x16}}
  cluster:
    level: cluster
    devices:
      - {{name: "leaf", kind: switch}}
    children:
      - {{block: host, count: "{{nodes}}", name: "n{{g}}"}}
    links:
      - {{from: "*/nic*", to: "leaf", type: eth-400g}}
root: cluster
)",
                                         gpu_link);
    return parse(text.c_str());
  };
  Topology gen6 = two_nics("pcie6x16");
  Topology gen5 = two_nics("pcie5x16");
  const double one = CostModel(gen5).fabric().accelerator(0).nic_bw;
  CHECK(one == Approx(48.0).epsilon(0.01));
  CHECK(CostModel(gen6).fabric().accelerator(0).nic_bw == Approx(2 * one).epsilon(0.01));
  // A NIC is held to its own host link once, whatever shares it: the
  // PCIe box's 200G NIC (25 GB/s) behind Gen4 x16 (24) gives its two GPUs
  // 12 each.
  Topology pcie = preset("pcie-8gpu:nodes=2");
  CHECK(CostModel(pcie).fabric().accelerator(0).nic_bw == Approx(12.0).epsilon(0.01));
}
