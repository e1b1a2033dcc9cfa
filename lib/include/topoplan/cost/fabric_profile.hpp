// What the cost model reads from a topology's link graph, computed once per
// topology: for every accelerator its scale-up bandwidth, direct peers, NIC
// share and PCIe attachment (all at NCCL's effective rates, see
// nccl::link_efficiency); for every node its host CPU; for every domain its
// network egress; and the network latency between islands by the level at
// which they meet; and which accelerators reach switches that reduce in the
// network (SHARP).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "topoplan/cost/gpu_generation.hpp"
#include "topoplan/model/fabric.hpp"
#include "topoplan/model/topology.hpp"

namespace topoplan {

/// A direct scale-up connection between two accelerators (all parallel links).
struct PeerLink {
  std::uint32_t peer = kNone;  // accelerator index
  double bandwidth = 0;        // effective GB/s per direction
  double latency_us = 0;       // one-way latency of one traversal
};

enum class CpuVendor : std::uint8_t { unknown, intel, amd, arm };

/// How an accelerator reaches its NIC, in NCCL's path types (src/graph/topo.h):
/// over PCIe switches only (PIX, PXB); through the CPU its NVLink-C2C link
/// leads to (P2C: GB200's NICs hang off Grace, NCCL_NET_GDR_C2C's case); or
/// through a CPU's host bridge otherwise (PHB, SYS).
enum class NicPath : std::uint8_t { pcie = 0, p2c = 1, cpu = 2 };

/// One accelerator as the cost model sees it.
struct AcceleratorProfile {
  DeviceId device = kNone;
  DomainId node = kNone;
  std::uint32_t island = kNone;      // ScaleUpIslands id; kNone without scale-up links
  Generation generation = Generation::ampere;
  LinkFamily scale_up_family = LinkFamily::pcie;  // of its scale-up links, when it has any
  int scale_up_generation = 0;       // NVLink generation of those links
  double switch_bw = 0;              // effective GB/s to NVSwitches
  double relay_bw = 0;               // slowest direct scale-up link; 0 without any
  std::uint32_t peers_begin = 0;     // [begin, end) in FabricProfile::peers()
  std::uint32_t peers_end = 0;
  double pcie_bw = 0;                // effective GB/s of its own PCIe link
  double nic_bw = 0;                 // effective network GB/s: its NICs' shares, capped by the path they share
  NicPath nic_path = NicPath::pcie;  // how it reaches its NICs (the worst path to one)
  DeviceId socket = kNone;           // the CPU its PCIe tree hangs off; kNone if none
  /// Its NICs' switches, and every switch above them, reduce in the network
  /// (SHARP): the topology labels them kInNetworkReductionLabel = "sharp".
  bool in_network_reduction = false;
};

/// The device label that declares a network switch able to reduce in the
/// network (InfiniBand SHARP); its one value is "sharp". See
/// topoplan-topology(5) and topoplan-cost(7), "nvls across islands".
inline constexpr std::string_view kInNetworkReductionLabel = "topoplan.io/in-network-reduction";

/// The host of a node, for NCCL's vendor-dependent constants.
struct NodeProfile {
  CpuVendor vendor = CpuVendor::unknown;
  double socket_bw = 0;  // GB/s per direction between the node's CPU sockets
};

class FabricProfile {
 public:
  explicit FabricProfile(const Topology& topology);

  const Topology& topology() const { return *topology_; }
  const ScaleUpIslands& islands() const { return islands_; }

  std::size_t accelerator_count() const { return accels_.size(); }
  const AcceleratorProfile& accelerator(std::uint32_t index) const { return accels_[index]; }
  std::span<const PeerLink> peers(std::uint32_t index) const {
    const AcceleratorProfile& a = accels_[index];
    return std::span<const PeerLink>(peers_).subspan(a.peers_begin, a.peers_end - a.peers_begin);
  }
  /// Whether the island's accelerators reach each other through NVSwitches.
  bool island_switched(std::uint32_t island) const { return island_switched_[island] != 0; }
  /// Whether the island's accelerators sit in more than one host: a
  /// multi-node NVLink domain (GB200 NVL72's trays), not one host's NVSwitches.
  bool island_spans_hosts(std::uint32_t island) const { return island_spans_hosts_[island] != 0; }
  /// The domain that names an island: its domain at the islands' level when
  /// that domain is exactly the island, else the node of its first accelerator.
  DomainId island_domain(std::uint32_t island) const { return island_domain_[island]; }

  /// Host facts of a node (indexed by DomainId; meaningful for nodes only).
  const NodeProfile& node(DomainId node) const { return nodes_[node]; }
  /// Network egress of a domain, GB/s per direction (fabric.hpp domain_egress).
  double network_egress(DomainId domain) const { return egress_[domain]; }
  /// One-way network latency (sum of link latencies, NIC to NIC) of a route
  /// between two islands whose lowest common domain is at `level`.
  double route_latency_us(LevelIndex level) const { return route_latency_[level]; }
  /// Whether any accelerator has in_network_reduction (most topologies none).
  bool any_in_network_reduction() const { return any_in_network_reduction_; }

 private:
  const Topology* topology_;
  ScaleUpIslands islands_;
  std::vector<AcceleratorProfile> accels_;
  std::vector<PeerLink> peers_;
  std::vector<std::uint8_t> island_switched_;
  std::vector<std::uint8_t> island_spans_hosts_;
  std::vector<DomainId> island_domain_;
  std::vector<NodeProfile> nodes_;
  std::vector<double> egress_;
  std::vector<double> route_latency_;
  bool any_in_network_reduction_ = false;
};

}  // namespace topoplan
