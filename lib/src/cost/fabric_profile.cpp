#include "topoplan/cost/fabric_profile.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <unordered_map>

#include "topoplan/cost/nccl_tuning.hpp"
#include "topoplan/support/ascii.hpp"

namespace topoplan {

namespace {

CpuVendor vendor_of(std::string_view model) {
  const std::string m = ascii_lower(model);
  auto has = [&](std::string_view word) { return m.find(word) != std::string::npos; };
  if (has("xeon") || has("intel")) return CpuVendor::intel;
  if (has("epyc") || has("amd") || has("rome") || has("milan") || has("genoa") || has("turin"))
    return CpuVendor::amd;
  if (has("grace") || has("arm") || has("neoverse") || has("graviton")) return CpuVendor::arm;
  return CpuVendor::unknown;
}

// Links inside a host: PCIe, CPU-to-CPU and Grace's C2C.
bool host_link(LinkFamily family) {
  return family == LinkFamily::pcie || family == LinkFamily::cpu_link || family == LinkFamily::nvlink_c2c;
}

// What a link carries as NCCL models it (nccl::link_efficiency).
double modelled_bw(const Topology& topology, const Link& link) {
  return link.total_bandwidth() * nccl::link_efficiency(topology.link_type(link));
}

std::optional<Generation> generation_from_links(LinkFamily family, int generation) {
  if (family == LinkFamily::nvlink) {
    if (generation <= 2) return Generation::volta;
    if (generation == 3) return Generation::ampere;
    if (generation == 4) return Generation::hopper;
    return Generation::blackwell;
  }
  if (family == LinkFamily::xgmi) return Generation::cdna;
  return std::nullopt;
}

// Breadth-first search over a subset of the link graph with reusable state.
struct Search {
  std::vector<std::uint32_t> dist;
  std::vector<double> bottleneck;
  std::vector<std::uint8_t> via_cpu;
  std::vector<double> latency;
  std::vector<DeviceId> queue;
  std::vector<DeviceId> touched;

  explicit Search(std::size_t devices)
      : dist(devices, kNone), bottleneck(devices, 0), via_cpu(devices, 0), latency(devices, 0) {}

  void reset() {
    for (DeviceId d : touched) dist[d] = kNone;
    touched.clear();
    queue.clear();
  }
  void visit(DeviceId d, std::uint32_t distance, double bw, bool cpu, double lat) {
    dist[d] = distance;
    bottleneck[d] = bw;
    via_cpu[d] = cpu ? 1 : 0;
    latency[d] = lat;
    touched.push_back(d);
    queue.push_back(d);
  }
};

}  // namespace

FabricProfile::FabricProfile(const Topology& topology)
    : topology_(&topology), islands_(find_scale_up_islands(topology)) {
  const auto accels = topology.accelerators();
  accels_.resize(accels.size());
  island_switched_.assign(islands_.size.size(), 0);
  island_spans_hosts_.assign(islands_.size.size(), 0);
  island_domain_.assign(islands_.size.size(), kNone);
  std::vector<DeviceId> first_nic(accels.size(), kNone);

  // A model's generation, read once per distinct model name.
  std::unordered_map<StringId, std::optional<Generation>> generations;
  auto generation_of = [&](StringId model) {
    auto it = generations.find(model);
    if (it == generations.end()) it = generations.emplace(model, generation_from_model(topology.str(model))).first;
    return it->second;
  };

  // Scale-up links, PCIe attachment and generation.
  for (std::uint32_t i = 0; i < accels.size(); ++i) {
    AcceleratorProfile& a = accels_[i];
    a.device = accels[i];
    const Device& dev = topology.device(a.device);
    a.node = dev.domain;
    a.island = islands_.island_of[i];
    a.peers_begin = static_cast<std::uint32_t>(peers_.size());
    for (LinkId id : topology.links_of(a.device)) {
      const Link& link = topology.link(id);
      const LinkType& type = topology.link_type(link);
      const double bw = modelled_bw(topology, link);
      const DeviceId other = link.other(a.device);
      const Device& peer = topology.device(other);
      if (type.family == LinkFamily::pcie) a.pcie_bw = std::max(a.pcie_bw, bw);
      if (!is_scale_up(type.family)) continue;
      if (a.scale_up_family == LinkFamily::pcie) {
        a.scale_up_family = type.family;
        a.scale_up_generation = type.generation;
      }
      if (peer.kind == DeviceKind::nvswitch) {
        a.switch_bw += bw;
      } else if (is_accelerator(peer.kind)) {
        const std::uint32_t index = topology.accelerator_index(other);
        auto begin = peers_.begin() + a.peers_begin;
        auto it = std::find_if(begin, peers_.end(), [&](const PeerLink& p) { return p.peer == index; });
        if (it == peers_.end()) {
          peers_.push_back({index, bw, static_cast<double>(link.latency_us)});
        } else {
          it->bandwidth += bw;
          it->latency_us = std::min(it->latency_us, static_cast<double>(link.latency_us));
        }
      }
    }
    a.peers_end = static_cast<std::uint32_t>(peers_.size());
    std::sort(peers_.begin() + a.peers_begin, peers_.end(),
              [](const PeerLink& x, const PeerLink& y) { return x.peer < y.peer; });
    for (std::uint32_t p = a.peers_begin; p < a.peers_end; ++p)
      a.relay_bw = a.relay_bw == 0 ? peers_[p].bandwidth : std::min(a.relay_bw, peers_[p].bandwidth);
    if (dev.kind == DeviceKind::lpu) {
      a.generation = Generation::lpu;
    } else if (auto g = generation_of(dev.model)) {
      a.generation = *g;
    } else if (auto l = generation_from_links(a.scale_up_family, a.scale_up_generation)) {
      a.generation = *l;
    } else {
      a.generation = Generation::ampere;
    }
    if (a.island != kNone && a.switch_bw > 0) island_switched_[a.island] = 1;
  }

  // Name each island by its domain when the domain is the island, else by the
  // node of its first accelerator; note the islands whose accelerators sit in
  // more than one node.
  std::vector<DomainId> first_node(islands_.size.size(), kNone);
  for (std::uint32_t i = 0; i < accels.size(); ++i) {
    const std::uint32_t island = accels_[i].island;
    if (island == kNone) continue;
    if (first_node[island] == kNone) first_node[island] = accels_[i].node;
    if (accels_[i].node != first_node[island]) island_spans_hosts_[island] = 1;
    if (island_domain_[island] != kNone) continue;
    DomainId d = topology.ancestor(accels_[i].node, islands_.level);
    if (topology.domain(d).accelerator_count() != islands_.size[island]) d = accels_[i].node;
    island_domain_[island] = d;
  }

  Search search(topology.device_count());

  // Sockets: the CPU an accelerator's PCIe tree (or C2C link) leads to.
  for (AcceleratorProfile& a : accels_) {
    search.reset();
    search.visit(a.device, 0, 0, false, 0);
    for (std::size_t q = 0; q < search.queue.size() && a.socket == kNone; ++q) {
      const DeviceId at = search.queue[q];
      for (LinkId id : topology.links_of(at)) {
        const Link& link = topology.link(id);
        if (!host_link(topology.link_type(link).family)) continue;
        const DeviceId next = link.other(at);
        if (search.dist[next] != kNone) continue;
        const DeviceKind kind = topology.device(next).kind;
        if (kind == DeviceKind::cpu) {
          a.socket = next;
          break;
        }
        if (kind == DeviceKind::pcie_switch) search.visit(next, search.dist[at] + 1, 0, false, 0);
      }
    }
  }

  // In-network reduction: a switch reduces for a collective only when every
  // switch above it does too (a SHARP aggregation tree spans the switches the
  // traffic crosses), so a labelled switch keeps the capability only while all
  // the switches it links to keep it. Topologies without the label skip this.
  std::vector<std::uint8_t> reduces;
  for (DeviceId dev = 0; dev < topology.device_count(); ++dev) {
    const Device& d = topology.device(dev);
    if (d.kind != DeviceKind::network_switch || d.labels == 0) continue;
    for (const auto& [key, value] : topology.labels(d.labels)) {
      if (key != kInNetworkReductionLabel || value != "sharp") continue;
      if (reduces.empty()) reduces.assign(topology.device_count(), 0);
      reduces[dev] = 1;
    }
  }
  auto network_switches_of = [&](DeviceId dev, auto&& visit) {
    for (LinkId id : topology.links_of(dev)) {
      const Link& link = topology.link(id);
      if (!is_network(topology.link_type(link).family)) continue;
      const DeviceId other = link.other(dev);
      if (topology.device(other).kind == DeviceKind::network_switch) visit(other);
    }
  };
  for (bool changed = !reduces.empty(); changed;) {
    changed = false;
    for (DeviceId dev = 0; dev < topology.device_count(); ++dev) {
      if (!reduces[dev]) continue;
      network_switches_of(dev, [&](DeviceId other) {
        if (!reduces[other] && reduces[dev]) {
          reduces[dev] = 0;
          changed = true;
        }
      });
    }
  }
  // Per accelerator: 0 no NIC seen yet, 1 every NIC reduces, 2 some does not.
  std::vector<std::uint8_t> reduce_state(reduces.empty() ? 0 : accels.size(), 0);

  // NIC shares: every NIC is shared equally by the accelerators nearest to
  // it over host links; each gets at most what the path to the NIC carries,
  // and all of an accelerator's NICs together at most what the path beyond
  // a NIC's own link carries (the part its NICs share: two 400G EFA devices
  // of a p6-b300 GPU behind one PCIe Gen6 switch move 96 GB/s, each over
  // its own Gen5 link of 48; four 100G ones of a p5 GPU, the GPU's 48).
  std::vector<double> nic_sum(accels.size(), 0);
  std::vector<double> shared_max(accels.size(), 0);
  std::vector<double> beyond(topology.device_count(), 0);
  std::vector<std::uint32_t> nearest;
  std::vector<NicPath> nearest_path;
  for (DeviceId nic = 0; nic < topology.device_count(); ++nic) {
    if (topology.device(nic).kind != DeviceKind::nic) continue;
    double nic_bw = 0, host_bw = 0;
    for (LinkId id : topology.links_of(nic)) {
      const Link& link = topology.link(id);
      const LinkFamily family = topology.link_type(link).family;
      if (is_network(family)) nic_bw += modelled_bw(topology, link);
      if (host_link(family)) host_bw += modelled_bw(topology, link);
    }
    if (nic_bw <= 0) continue;
    // A NIC moves no more than its own host links carry, however many
    // accelerators share it.
    if (host_bw > 0) nic_bw = std::min(nic_bw, host_bw);
    search.reset();
    search.visit(nic, 0, std::numeric_limits<double>::infinity(), false, 0);
    beyond[nic] = std::numeric_limits<double>::infinity();
    nearest.clear();
    nearest_path.clear();
    std::uint32_t found_at = kNone;
    for (std::size_t q = 0; q < search.queue.size(); ++q) {
      const DeviceId at = search.queue[q];
      if (found_at != kNone && search.dist[at] >= found_at) break;
      for (LinkId id : topology.links_of(at)) {
        const Link& link = topology.link(id);
        const LinkType& type = topology.link_type(link);
        if (!host_link(type.family)) continue;
        const DeviceId next = link.other(at);
        if (search.dist[next] != kNone) continue;
        const Device& d = topology.device(next);
        const double link_bw = modelled_bw(topology, link);
        const double bw = std::min(search.bottleneck[at], link_bw);
        beyond[next] = at == nic ? std::numeric_limits<double>::infinity() : std::min(beyond[at], link_bw);
        const bool cpu = search.via_cpu[at] != 0 || topology.device(at).kind == DeviceKind::cpu;
        if (is_accelerator(d.kind)) {
          search.visit(next, search.dist[at] + 1, bw, cpu, 0);
          found_at = search.dist[at] + 1;
          nearest.push_back(topology.accelerator_index(next));
          // P2C: the one CPU crossed is the one the accelerator's C2C link leads to.
          const bool p2c = topology.device(at).kind == DeviceKind::cpu && search.via_cpu[at] == 0 &&
                           type.family == LinkFamily::nvlink_c2c;
          nearest_path.push_back(!cpu ? NicPath::pcie : p2c ? NicPath::p2c : NicPath::cpu);
        } else if (d.kind == DeviceKind::pcie_switch || d.kind == DeviceKind::cpu) {
          search.visit(next, search.dist[at] + 1, bw, cpu, 0);
        }
      }
    }
    if (!reduces.empty()) {
      bool nic_reduces = false;
      bool all = true;
      network_switches_of(nic, [&](DeviceId sw) {
        nic_reduces = true;
        all = all && reduces[sw] != 0;
      });
      const std::uint8_t state = nic_reduces && all ? 1 : 2;
      for (std::uint32_t index : nearest) reduce_state[index] = std::max(reduce_state[index], state);
    }
    for (std::size_t k = 0; k < nearest.size(); ++k) {
      const std::uint32_t index = nearest[k];
      const DeviceId dev = accels_[index].device;
      const double share = nic_bw / static_cast<double>(nearest.size());
      nic_sum[index] += std::min(share, search.bottleneck[dev]);
      shared_max[index] = std::max(shared_max[index], beyond[dev]);
      accels_[index].nic_path = std::max(accels_[index].nic_path, nearest_path[k]);
      if (first_nic[index] == kNone) first_nic[index] = nic;
    }
  }
  for (std::uint32_t i = 0; i < accels.size(); ++i) accels_[i].nic_bw = std::min(nic_sum[i], shared_max[i]);
  for (std::uint32_t i = 0; i < reduce_state.size(); ++i) {
    accels_[i].in_network_reduction = reduce_state[i] == 1;
    any_in_network_reduction_ = any_in_network_reduction_ || reduce_state[i] == 1;
  }

  // Hosts.
  nodes_.assign(topology.domain_count(), {});
  for (DeviceId dev = 0; dev < topology.device_count(); ++dev) {
    const Device& d = topology.device(dev);
    if (d.kind != DeviceKind::cpu) continue;
    NodeProfile& node = nodes_[d.domain];
    const CpuVendor v = vendor_of(topology.str(d.model));
    if (node.vendor == CpuVendor::unknown) node.vendor = v;
    for (LinkId id : topology.links_of(dev)) {
      const Link& link = topology.link(id);
      const DeviceId other = link.other(dev);
      // Count each CPU-to-CPU link once, from its lower end.
      if (other < dev || topology.device(other).kind != DeviceKind::cpu) continue;
      node.socket_bw += modelled_bw(topology, link);
    }
  }

  std::vector<Egress> egress = domain_egress(topology);
  egress_.resize(egress.size());
  for (std::size_t d = 0; d < egress.size(); ++d) egress_[d] = egress[d].network;

  // Route latency by meeting level: the network path between the first
  // accelerators of two children of the first domain of that level that has
  // two children with accelerators (the presets are regular per level).
  route_latency_.assign(topology.levels().size(), 0);
  for (LevelIndex level = 0; level < topology.host_level(); ++level) {
    auto [first, last] = topology.domains_at(level);
    std::uint32_t a = kNone;
    std::uint32_t b = kNone;
    for (DomainId d = first; d < last && b == kNone; ++d) {
      const Domain& dom = topology.domain(d);
      a = kNone;
      for (std::uint32_t c = 0; c < dom.child_count && b == kNone; ++c) {
        const Domain& child = topology.domain(dom.first_child + c);
        if (child.accelerator_count() == 0) continue;
        if (a == kNone)
          a = child.accel_begin;
        else
          b = child.accel_begin;
      }
    }
    if (b == kNone || first_nic[a] == kNone || first_nic[b] == kNone) continue;
    search.reset();
    search.visit(first_nic[a], 0, 0, false, 0);
    const DeviceId goal = first_nic[b];
    for (std::size_t q = 0; q < search.queue.size() && search.dist[goal] == kNone; ++q) {
      const DeviceId at = search.queue[q];
      for (LinkId id : topology.links_of(at)) {
        const Link& link = topology.link(id);
        if (!is_network(topology.link_type(link).family)) continue;
        const DeviceId next = link.other(at);
        if (search.dist[next] != kNone) continue;
        const DeviceKind kind = topology.device(next).kind;
        if (next != goal && kind != DeviceKind::network_switch) continue;
        search.visit(next, search.dist[at] + 1, 0, false, search.latency[at] + static_cast<double>(link.latency_us));
      }
    }
    if (search.dist[goal] != kNone) route_latency_[level] = search.latency[goal];
  }
}

}  // namespace topoplan
