#include "cost/placement_layout.hpp"

#include <algorithm>
#include <bit>
#include <limits>

#include <fmt/format.h>

#include "topoplan/support/error.hpp"

namespace topoplan {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Generations in the order "oldest first" for NCCL's minCompCap.
int age(Generation g) {
  switch (g) {
    case Generation::volta: return 0;
    case Generation::ampere: return 1;
    case Generation::hopper: return 2;
    case Generation::blackwell: return 3;
    case Generation::cdna: return 4;
    case Generation::lpu: return 5;
  }
  return 5;
}

// Bandwidth of the direct scale-up links between accelerators a and b.
double direct_bw(const FabricProfile& fabric, std::uint32_t a, std::uint32_t b) {
  for (const PeerLink& p : fabric.peers(a))
    if (p.peer == b) return p.bandwidth;
  return 0;
}

// One-way latency from accelerator a to b over scale-up links (LPUs forward
// for each other), following the fewest hops; -1 when there is no such path.
double hop_latency(CostModel::Scratch& s, const FabricProfile& fabric, std::uint32_t a, std::uint32_t b) {
  const Topology& t = fabric.topology();
  const DeviceId from = fabric.accelerator(a).device;
  const DeviceId to = fabric.accelerator(b).device;
  const std::uint32_t stamp = s.next_stamp();
  s.hop_queue.clear();
  s.hop_queue.push_back(from);
  s.hop_stamp[from] = stamp;
  s.hop_latency[from] = 0;
  for (std::size_t q = 0; q < s.hop_queue.size(); ++q) {
    const DeviceId at = s.hop_queue[q];
    if (at == to) return s.hop_latency[at];
    for (LinkId id : t.links_of(at)) {
      const Link& link = t.link(id);
      if (!is_scale_up(t.link_type(link).family)) continue;
      const DeviceId next = link.other(at);
      if (s.hop_stamp[next] == stamp) continue;
      s.hop_stamp[next] = stamp;
      s.hop_latency[next] = s.hop_latency[at] + static_cast<double>(link.latency_us);
      s.hop_queue.push_back(next);
    }
  }
  return -1;
}

}  // namespace

TrafficFamily family_of(Collective op) {
  if (op == Collective::alltoall) return TrafficFamily::a2a;
  if (op == Collective::sendrecv) return TrafficFamily::p2p;
  return TrafficFamily::ring;
}

CostModel::Scratch::Scratch(const FabricProfile& fabric) {
  const Topology& t = fabric.topology();
  const std::size_t accels = fabric.accelerator_count();
  const std::size_t islands = fabric.islands().size.size();
  accel_stamp.assign(accels, 0);
  key_stamp.assign(islands + t.domain_count(), 0);
  group_of_key.assign(islands + t.domain_count(), 0);
  domain_stamp.assign(t.domain_count(), 0);
  domain_load.assign(t.domain_count(), {});
  node_stamp.assign(t.domain_count(), 0);
  totals.assign(t.domain_count(), 0);
  hop_stamp.assign(t.device_count(), 0);
  hop_latency.assign(t.device_count(), 0);
}

std::uint32_t CostModel::Scratch::next_stamp() {
  if (++stamp == 0) {
    std::fill(accel_stamp.begin(), accel_stamp.end(), 0);
    std::fill(key_stamp.begin(), key_stamp.end(), 0);
    std::fill(domain_stamp.begin(), domain_stamp.end(), 0);
    std::fill(node_stamp.begin(), node_stamp.end(), 0);
    std::fill(hop_stamp.begin(), hop_stamp.end(), 0);
    stamp = 1;
  }
  return stamp;
}

void CostModel::Scratch::begin_totals() { end_totals(); }

void CostModel::Scratch::end_totals() {
  for (DomainId d : totals_touched) totals[d] = 0;
  totals_touched.clear();
}

const Layout& analyse(CostModel::Scratch& s, const FabricProfile& fabric, std::span<const DeviceId> ranks,
                      TrafficFamily family, const std::vector<double>* totals) {
  const Topology& t = fabric.topology();
  Layout& l = s.layout;
  l = Layout{};
  l.levels = s.level_store.data();
  if (ranks.empty()) throw InputError({}, "a collective needs at least one rank");
  if (ranks.size() > fabric.accelerator_count())
    throw InputError({}, fmt::format("{} ranks requested but the topology has only {} accelerators", ranks.size(),
                                     fabric.accelerator_count()));
  l.n = static_cast<std::uint32_t>(ranks.size());
  const double n = l.n;

  // Ranks: validity, repeats, generation, and groups in order of first
  // appearance (NCCL orders its nodes the same way), in one pass.
  const std::uint32_t job = s.next_stamp();
  const std::uint32_t group_stamp = s.next_stamp();
  const std::uint32_t islands = static_cast<std::uint32_t>(fabric.islands().size.size());
  s.rank_accel.resize(ranks.size());
  s.rank_group.resize(ranks.size());
  s.rank_local.resize(ranks.size());
  s.groups.clear();
  std::uint32_t node_count = 0;
  bool any_lpu = false;
  bool any_gpu = false;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const DeviceId dev = ranks[i];
    if (dev >= t.device_count()) throw InputError({}, fmt::format("device id {} is not in the topology", dev));
    const std::uint32_t ai = t.accelerator_index(dev);
    if (ai == kNone)
      throw InputError({}, fmt::format("'{}' is a {}, not an accelerator", t.device_name(dev),
                                       kind_name(t.device(dev).kind)));
    if (s.accel_stamp[ai] == job)
      throw InputError({}, fmt::format("'{}' appears twice in the rank list", t.device_name(dev)));
    s.accel_stamp[ai] = job;
    s.rank_accel[i] = ai;
    const AcceleratorProfile& a = fabric.accelerator(ai);
    const Generation gen = a.generation;
    (gen == Generation::lpu ? any_lpu : any_gpu) = true;
    if (i == 0 || age(gen) < age(l.generation)) l.generation = gen;

    const std::uint32_t key = a.island != kNone ? a.island : islands + a.node;
    if (s.key_stamp[key] != group_stamp) {
      s.key_stamp[key] = group_stamp;
      s.group_of_key[key] = static_cast<std::uint32_t>(s.groups.size());
      CostModel::Scratch::Group g;
      g.island = a.island;
      g.node = a.node;
      g.name = a.island != kNone ? fabric.island_domain(a.island) : a.node;
      g.switched = a.island != kNone && fabric.island_switched(a.island);
      g.socket = a.socket;
      s.groups.push_back(g);
    }
    const std::uint32_t gi = s.group_of_key[key];
    s.rank_group[i] = gi;
    CostModel::Scratch::Group& g = s.groups[gi];
    ++g.size;
    g.nic_sum += a.nic_bw;
    g.pcie_sum += a.pcie_bw;
    if (a.nic_bw > 0) ++g.nic_ranks;
    if (a.socket != kNone && g.socket != kNone && a.socket != g.socket) g.multi_socket = true;
    if (a.node != g.node) g.multi_host = true;
    if (s.node_stamp[a.node] != group_stamp) {
      s.node_stamp[a.node] = group_stamp;
      ++node_count;
    }
  }
  if (any_lpu && any_gpu) throw InputError({}, "a collective cannot mix LPUs and GPUs");
  if (any_lpu) l.generation = Generation::lpu;
  l.arch = nccl_arch_index(l.generation);
  l.lpu = any_lpu;
  l.groups = static_cast<std::uint32_t>(s.groups.size());
  l.nodes = node_count;
  l.single_node = node_count == 1;
  l.all_scale_up = true;
  l.all_switched = true;
  l.min_group = std::numeric_limits<std::uint32_t>::max();
  for (const auto& g : s.groups) {
    l.all_scale_up = l.all_scale_up && g.island != kNone;
    l.all_switched = l.all_switched && g.switched;
    l.max_group = std::max(l.max_group, g.size);
    l.min_group = std::min(l.min_group, g.size);
    l.island_capacity = std::max(l.island_capacity, g.island != kNone ? fabric.islands().size[g.island] : g.size);
    l.island_spans_hosts = l.island_spans_hosts || (g.island != kNone && fabric.island_spans_hosts(g.island));
    l.group_spans_hosts = l.group_spans_hosts || (g.island != kNone && g.multi_host);
  }
  // Several groups inside one node talk over PCIe, not the network.
  const bool via_pcie = l.groups > 1 && l.single_node;

  // Per rank: bandwidth inside its group, NIC share, the all-to-all mix.
  l.local_bw = kInf;
  l.switch_bw = kInf;
  l.nic_bw = kInf;
  NicPath nic_path = NicPath::pcie;
  bool nvlink = true;
  // In-network reduction: checked only where some switch reduces (most
  // topologies none), in a loop of its own that the others never run.
  if (l.groups > 1 && !via_pcie && fabric.any_in_network_reduction()) {
    l.in_network_reduction = true;
    for (std::size_t i = 0; i < ranks.size() && l.in_network_reduction; ++i)
      l.in_network_reduction = fabric.accelerator(s.rank_accel[i]).in_network_reduction;
  }
  double a2a_local = -1, a2a_fwd = -1, a2a_nic = -1;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::uint32_t ai = s.rank_accel[i];
    const AcceleratorProfile& a = fabric.accelerator(ai);
    const auto& g = s.groups[s.rank_group[i]];
    double local = 0;
    if (a.island != kNone) {
      // NVSwitch ports reach every peer; direct links only the job's own
      // peers (a ring on a mesh uses the links between its members).
      local = a.switch_bw;
      for (const PeerLink& p : fabric.peers(ai))
        if (s.accel_stamp[p.peer] == job && fabric.accelerator(p.peer).island == a.island) local += p.bandwidth;
      // No link to another member: traffic is relayed by other chips.
      if (local == 0) local = a.relay_bw;
      nvlink = nvlink && a.scale_up_family == LinkFamily::nvlink;
    } else {
      local = a.pcie_bw;
      nvlink = false;
    }
    s.rank_local[i] = local;
    if (g.size > 1 && local < l.local_bw) {
      l.local_bw = local;
      l.local_where = ai;
      l.local_pcie = a.island == kNone;
    }
    if (a.switch_bw < l.switch_bw) {
      l.switch_bw = a.switch_bw;
      l.switch_where = ai;
    }
    const double off = via_pcie ? a.pcie_bw : a.nic_bw;
    if (off < l.nic_bw) {
      l.nic_bw = off;
      l.nic_where = ai;
    }
    nic_path = std::max(nic_path, a.nic_path);
    if (family != TrafficFamily::a2a) continue;
    // All-to-all: (g-1)/n of the data stays in the group, (n-g)/n leaves it;
    // PXN first forwards the leaving part to the member on the right rail.
    const double gs = g.size;
    const double stay = (gs - 1) / n;
    const double leave = (n - gs) / n;
    if (stay > 0 && (a2a_local < 0 || stay / local > a2a_local)) {
      a2a_local = stay / local;
      l.a2a_local_factor = stay;
      l.a2a_local_bw = local;
      l.a2a_local_where = ai;
    }
    const double fwd = stay + leave * (gs - 1) / gs;
    if (fwd > 0 && (a2a_fwd < 0 || fwd / local > a2a_fwd)) {
      a2a_fwd = fwd / local;
      l.a2a_fwd_factor = fwd;
      l.a2a_fwd_bw = local;
      l.a2a_fwd_where = ai;
    }
    if (leave > 0 && (a2a_nic < 0 || leave / off > a2a_nic)) {
      a2a_nic = leave / off;
      l.a2a_nic_factor = leave;
      l.a2a_nic_bw = off;
      l.a2a_nic_where = ai;
    }
  }
  if (!(l.local_bw < kInf)) l.local_bw = 0;
  if (!(l.switch_bw < kInf)) l.switch_bw = 0;
  if (!(l.nic_bw < kInf)) l.nic_bw = 0;

  // Groups: sockets, egress.
  l.socket_bw = kInf;
  l.island_bw = kInf;
  l.nic_mean_min = kInf;
  l.nics_min = std::numeric_limits<std::uint32_t>::max();
  double a2a_island = -1;
  for (const auto& g : s.groups) {
    const std::uint32_t off_ranks = via_pcie ? g.size : g.nic_ranks;
    const double off_sum = via_pcie ? g.pcie_sum : g.nic_sum;
    l.nics_min = std::min(l.nics_min, off_ranks);
    l.nic_mean_min = std::min(l.nic_mean_min, off_ranks > 0 ? off_sum / off_ranks : 0.0);
    if (g.island == kNone && g.multi_socket && g.size > 1) {
      const double bw = fabric.node(g.node).socket_bw;
      if (bw > 0 && bw < l.socket_bw) {
        l.socket_bw = bw;
        l.socket_where = g.node;
      }
    }
    if (l.groups > 1) {
      const double cap = via_pcie ? g.pcie_sum : g.nic_sum;
      if (cap < l.island_bw) {
        l.island_bw = cap;
        l.island_where = g.name;
      }
      if (family != TrafficFamily::a2a) continue;
      const double gs = g.size;
      const double factor = gs * (n - gs) / n;
      if (a2a_island < 0 || factor / cap > a2a_island) {
        a2a_island = factor / cap;
        l.a2a_island_factor = factor;
        l.a2a_island_bw = cap;
        l.a2a_island_where = g.name;
      }
    }
  }
  if (!(l.socket_bw < kInf)) l.socket_bw = 0;
  if (!(l.island_bw < kInf)) l.island_bw = 0;
  if (!(l.nic_mean_min < kInf)) l.nic_mean_min = 0;
  if (s.groups.empty()) l.nics_min = 0;
  if (l.island_where != kNone) l.island_level = t.domain(l.island_where).level;

  // Sendrecv: rank r sends to rank r+1 (nccl-tests' sendrecv ring).
  l.pair_bw = kInf;
  for (std::size_t i = 0; i < ranks.size() && ranks.size() > 1 && family == TrafficFamily::p2p; ++i) {
    const std::size_t j = (i + 1) % ranks.size();
    const std::uint32_t ai = s.rank_accel[i];
    const std::uint32_t bi = s.rank_accel[j];
    const AcceleratorProfile& a = fabric.accelerator(ai);
    const AcceleratorProfile& b = fabric.accelerator(bi);
    double bw = 0;
    Tier tier = Tier::scale_up;
    if (s.rank_group[i] == s.rank_group[j] && a.island != kNone) {
      bw = std::min(a.switch_bw, b.switch_bw) + direct_bw(fabric, ai, bi);
      if (bw == 0) bw = std::min(a.relay_bw, b.relay_bw);
    } else if (s.rank_group[i] == s.rank_group[j] || via_pcie) {
      tier = Tier::pcie;
      bw = std::min(a.pcie_bw, b.pcie_bw);
      const double sockets = fabric.node(a.node).socket_bw;
      if (a.socket != b.socket && sockets > 0) bw = std::min(bw, sockets);
    } else {
      tier = Tier::nic;
      bw = std::min(a.nic_bw, b.nic_bw);
    }
    if (bw < l.pair_bw) {
      l.pair_bw = bw;
      l.pair_tier = tier;
      l.pair_where = ai;
    }
  }
  if (!(l.pair_bw < kInf)) l.pair_bw = 0;

  // Domains of coarser levels: how often the traffic leaves each of them, and
  // what its egress offers (its switch tier, at most the job's NICs inside).
  LevelIndex group_level = t.host_level();
  for (const auto& g : s.groups)
    if (g.island != kNone) group_level = std::min(group_level, fabric.islands().level);
  s.group_anc.resize(s.groups.size());
  s.weights.clear();
  LevelIndex meet = kNone;
  for (LevelIndex level = 1; level < group_level && l.groups > 1; ++level) {
    const std::uint32_t stamp = s.next_stamp();
    s.touched.clear();
    for (std::size_t gi = 0; gi < s.groups.size(); ++gi) {
      const DomainId d = t.ancestor(s.groups[gi].node, level);
      s.group_anc[gi] = d;
      if (s.domain_stamp[d] != stamp) {
        s.domain_stamp[d] = stamp;
        s.domain_load[d] = {};
        s.touched.push_back(d);
      }
      s.domain_load[d].ranks += s.groups[gi].size;
      s.domain_load[d].nic += s.groups[gi].nic_sum;
    }
    if (s.touched.size() < 2) continue;
    if (meet == kNone) meet = level - 1;
    for (std::size_t gi = 0; gi < s.groups.size(); ++gi) {
      const DomainId a = s.group_anc[gi];
      const DomainId b = s.group_anc[(gi + 1) % s.groups.size()];
      if (a != b) s.domain_load[a].ring_out += 1;
    }
    for (std::size_t i = 0; i < ranks.size() && family == TrafficFamily::p2p; ++i) {
      const DomainId a = s.group_anc[s.rank_group[i]];
      const DomainId b = s.group_anc[s.rank_group[(i + 1) % ranks.size()]];
      if (a != b) s.domain_load[a].p2p_out += 1;
    }
    std::sort(s.touched.begin(), s.touched.end());
    LevelLoad lv;
    lv.level = level;
    double ring_worst = kInf, a2a_worst = -1, p2p_worst = kInf;
    for (DomainId d : s.touched) {
      const auto& load = s.domain_load[d];
      double weight = 0;
      switch (family) {
        case TrafficFamily::ring: weight = load.ring_out; break;
        case TrafficFamily::a2a: weight = load.ranks < l.n ? load.ranks : 0; break;
        case TrafficFamily::p2p: weight = load.p2p_out; break;
      }
      if (weight > 0) s.weights.emplace_back(d, weight);
      const double total = totals ? std::max((*totals)[d], weight) : weight;
      const double egress = fabric.network_egress(d);
      const double share = total > 0 ? egress * weight / total : egress;
      const double cap = std::min(load.nic, share);
      if (load.ring_out > 0 && cap / load.ring_out < ring_worst) {
        ring_worst = cap / load.ring_out;
        lv.ring_cap = cap;
        lv.ring_crossings = load.ring_out;
        lv.ring_where = d;
      }
      if (load.ranks < l.n) {
        const double r = load.ranks;
        const double factor = r * (n - r) / n;
        if (factor / cap > a2a_worst) {
          a2a_worst = factor / cap;
          lv.a2a_factor = factor;
          lv.a2a_cap = cap;
          lv.a2a_where = d;
        }
      }
      if (load.p2p_out > 0 && cap / load.p2p_out < p2p_worst) {
        p2p_worst = cap / load.p2p_out;
        lv.p2p_cap = cap;
        lv.p2p_flows = load.p2p_out;
        lv.p2p_where = d;
      }
    }
    if (l.level_count < s.level_store.size()) s.level_store[l.level_count++] = lv;
  }
  if (l.groups > 1 && meet == kNone) meet = group_level > 0 ? group_level - 1 : 0;
  if (l.groups > 1 && !l.single_node) l.route_latency = fabric.route_latency_us(meet);

  // Hosts and protocols.
  const NodeProfile& host = fabric.node(fabric.accelerator(s.rank_accel[0]).node);
  l.arm_host = host.vendor == CpuVendor::arm;
  for (const auto& g : s.groups)
    if (fabric.node(g.node).vendor == CpuVendor::amd) l.amd_host = true;
  // LL128: Volta..Blackwell over NVLink; across nodes only when the GPU-NIC
  // path is PXN or better (tuning.cc: typeIntra <= NVB, typeInter <= PXN):
  // below PCIe switches, or through the GPU's own Grace over C2C (P2C).
  // RCCL enables LL128 on MI300X hives (its rome model options: ll128Enabled=1).
  l.nic_path = nic_path;
  l.ll128 = (age(l.generation) <= 3 && l.all_scale_up && nvlink && (l.groups == 1 || nic_path <= NicPath::p2c)) ||
            (l.generation == Generation::cdna && l.all_scale_up);

  // LPU chains: hop latencies between consecutive ranks.
  if (l.lpu && ranks.size() > 1) {
    auto hops = [&](std::size_t i, std::size_t j) {
      const double d = hop_latency(s, fabric, s.rank_accel[i], s.rank_accel[j]);
      return d < 0 ? l.route_latency : d;
    };
    // Broadcast and reduce run along the chain of ranks in order.
    for (std::size_t i = 0; i + 1 < ranks.size(); ++i) l.lpu_chain_us += hops(i, i + 1);
    // Rings run folded over that chain (ranks 0, 2, 4, ..., 5, 3, 1), so that
    // no edge spans the whole chain; a step waits for the slowest edge.
    const std::size_t m = ranks.size();
    auto folded = [m](std::size_t k) { return k < (m + 1) / 2 ? 2 * k : 2 * (m - 1 - k) + 1; };
    for (std::size_t k = 0; k < m; ++k) l.lpu_step_us = std::max(l.lpu_step_us, hops(folded(k), folded((k + 1) % m)));
  }
  return l;
}

namespace {
bool placed_alike(std::uint32_t a, std::uint32_t b) { return (a == kNone) == (b == kNone); }

bool same_level(const LevelLoad& a, const LevelLoad& b) {
  return a.level == b.level && a.ring_cap == b.ring_cap && a.ring_crossings == b.ring_crossings &&
         a.a2a_factor == b.a2a_factor && a.a2a_cap == b.a2a_cap && a.p2p_cap == b.p2p_cap &&
         a.p2p_flows == b.p2p_flows && placed_alike(a.ring_where, b.ring_where) &&
         placed_alike(a.a2a_where, b.a2a_where) && placed_alike(a.p2p_where, b.p2p_where);
}
}  // namespace

// A field added to Layout or LevelLoad must be compared here (the sizes below
// are a reminder; update them with the comparison. A small field that fills
// padding leaves them as they are: nic_path did).
static_assert(sizeof(LevelLoad) == 80 && sizeof(Layout) == 288, "compare the new field in same_figures");

bool same_figures(const Layout& a, const Layout& b) {
  if (!(a.n == b.n && a.groups == b.groups && a.nodes == b.nodes && a.single_node == b.single_node &&
        a.generation == b.generation && a.arch == b.arch && a.lpu == b.lpu && a.all_scale_up == b.all_scale_up &&
        a.all_switched == b.all_switched && a.ll128 == b.ll128 && a.amd_host == b.amd_host &&
        a.arm_host == b.arm_host && a.in_network_reduction == b.in_network_reduction && a.nic_path == b.nic_path &&
        a.island_spans_hosts == b.island_spans_hosts && a.group_spans_hosts == b.group_spans_hosts &&
        a.max_group == b.max_group && a.min_group == b.min_group && a.island_capacity == b.island_capacity &&
        a.local_bw == b.local_bw && a.local_pcie == b.local_pcie && a.switch_bw == b.switch_bw &&
        a.nic_bw == b.nic_bw && a.socket_bw == b.socket_bw && a.island_bw == b.island_bw &&
        a.island_level == b.island_level && a.nics_min == b.nics_min && a.nic_mean_min == b.nic_mean_min &&
        a.a2a_local_factor == b.a2a_local_factor && a.a2a_local_bw == b.a2a_local_bw &&
        a.a2a_fwd_factor == b.a2a_fwd_factor && a.a2a_fwd_bw == b.a2a_fwd_bw && a.a2a_nic_factor == b.a2a_nic_factor &&
        a.a2a_nic_bw == b.a2a_nic_bw && a.a2a_island_factor == b.a2a_island_factor &&
        a.a2a_island_bw == b.a2a_island_bw && a.pair_bw == b.pair_bw && a.pair_tier == b.pair_tier &&
        a.level_count == b.level_count && a.route_latency == b.route_latency && a.lpu_step_us == b.lpu_step_us &&
        a.lpu_chain_us == b.lpu_chain_us))
    return false;
  if (!(placed_alike(a.local_where, b.local_where) && placed_alike(a.switch_where, b.switch_where) &&
        placed_alike(a.nic_where, b.nic_where) && placed_alike(a.socket_where, b.socket_where) &&
        placed_alike(a.island_where, b.island_where) && placed_alike(a.a2a_local_where, b.a2a_local_where) &&
        placed_alike(a.a2a_fwd_where, b.a2a_fwd_where) && placed_alike(a.a2a_nic_where, b.a2a_nic_where) &&
        placed_alike(a.a2a_island_where, b.a2a_island_where) && placed_alike(a.pair_where, b.pair_where)))
    return false;
  for (std::uint32_t i = 0; i < a.level_count; ++i)
    if (!same_level(a.levels[i], b.levels[i])) return false;
  return true;
}

const GraphEntry& graphs_of(CostModel::Scratch& s, const Layout& l) {
  const bool inter = l.groups > 1;
  // A group of one GPU puts no GPU-side limit on a ring's channels.
  const double local = l.max_group > 1 ? l.local_bw : std::numeric_limits<double>::max();
  // RCCL lays its rings out over an xGMI mesh so that they leave a node by
  // every GPU's NIC (nccl::ring_graph); NCCL's search tries one GPU order
  // for all channels first (sameChannels), so one GPU leaves them. The
  // largest group's GPUs forward the most.
  const std::uint32_t spread = l.generation == Generation::cdna ? l.max_group : 0;
  auto same = [&](const GraphEntry& e) {
    return e.valid && e.arch == l.arch && e.inter == inter && e.local_bw == local && e.nic_bw == l.nic_bw &&
           e.nic_mean == l.nic_mean_min && e.switch_bw == l.switch_bw && e.nics == l.nics_min && e.ppn == l.min_group &&
           e.groups == l.groups && e.spread_gpus == spread;
  };
  auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  const std::uint64_t h = (bits(local) * 0x9e3779b97f4a7c15ull) ^ (bits(l.nic_bw) * 0xc2b2ae3d27d4eb4full) ^
                          (bits(l.switch_bw) >> 7) ^ (std::uint64_t{l.nics_min} * 7919u) ^
                          (std::uint64_t{l.min_group} * 104729u) ^ (static_cast<std::uint64_t>(l.arch) << 3) ^
                          (std::uint64_t{l.groups} * 15485863u);
  GraphEntry& e = s.graphs[h % s.graphs.size()];
  if (same(e)) return e;
  e.arch = l.arch;
  e.inter = inter;
  e.local_bw = local;
  e.nic_bw = l.nic_bw;
  e.nic_mean = l.nic_mean_min;
  e.switch_bw = l.switch_bw;
  e.nics = l.nics_min;
  e.ppn = l.min_group;
  e.groups = l.groups;
  e.spread_gpus = spread;
  e.ring = nccl::ring_graph(l.arch, inter, local, l.nic_bw, static_cast<int>(l.nics_min), static_cast<int>(spread));
  e.ring_share = inter ? nccl::ring_forward_share(static_cast<int>(l.nics_min), static_cast<int>(spread)) : 1.0;
  e.tree_intra = inter ? nccl::tree_intra_speed(l.arch, e.ring, local) : e.ring.speed;
  e.nvls = nccl::nvls_graph(l.arch, inter, static_cast<int>(l.min_group), l.switch_bw, l.nic_mean_min,
                            static_cast<int>(l.nics_min));
  e.valid = true;
  return e;
}

}  // namespace topoplan
