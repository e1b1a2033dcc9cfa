#include "topoplan/cost/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "cost/placement_layout.hpp"
#include "topoplan/cost/nccl_tuning.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

// What every price of one model shares: the size-dependent efficiency on
// or off (CostModelOptions::size_efficiency), the tuner tables of the NCCL
// release it follows, and from the topology's NCCL environment the Simple
// protocol's buffer (NCCL_BUFFSIZE), the latency the network plugin reports
// and the bounds on the channels (CostModel::price_settings).
struct PriceSettings {
  bool ramp = true;
  const nccl::TunerTables* tables = &nccl::newest_tuner_tables();
  double simple_buffer = nccl::kDefaultSimpleBuffer;
  double net_latency = 0;  // what the network plugin reports to NCCL (NcclEnvironment::net_latency_us)
  nccl::ChannelBounds channels;
};

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using nccl::kLL;
using nccl::kLL128;
using nccl::kSimple;

int tuner_proto(Protocol p) {
  switch (p) {
    case Protocol::ll: return kLL;
    case Protocol::ll128: return kLL128;
    default: return kSimple;
  }
}

// Microseconds to move `bytes` at `gbps` (1 GB/s = 1e3 bytes per microsecond).
double transfer_us(double bytes, double gbps) {
  if (bytes <= 0) return 0;
  if (!(gbps > 0)) return kInf;
  return bytes / (gbps * 1e3);
}

template <typename T, std::size_t N>
struct SmallList {
  std::array<T, N> items{};
  std::size_t count = 0;
  void push(T value) {
    if (count < N) items[count++] = value;
  }
  const T* begin() const { return items.data(); }
  const T* end() const { return items.data() + count; }
};

// The tiers one algorithm loads, written straight into a result's tier
// array, and how they combine.
struct TierList {
  std::array<TierCost, kMaxTiers>& items;
  std::uint32_t count = 0;
  std::uint8_t phases = 1;

  void add(Tier tier, LevelIndex level, std::uint32_t where, std::uint8_t phase, double bytes, double bw,
           bool nvls = false) {
    if (count == items.size() || bytes <= 0) return;
    TierCost& t = items[count++];
    t.tier = tier;
    t.level = level;
    t.where = where;
    t.phase = phase;
    t.nvls = nvls;
    t.bytes = bytes;
    t.bandwidth = bw;
    t.time_us = transfer_us(bytes, bw);
    phases = std::max<std::uint8_t>(phases, static_cast<std::uint8_t>(phase + 1));
  }
  // Phases run one after another; the tiers of a phase at the same time.
  // `inside`: only the tiers inside the groups.
  double time_us(bool inside = false) const {
    double total = 0;
    for (std::uint8_t p = 0; p < phases; ++p) {
      double worst = 0;
      for (std::uint32_t i = 0; i < count; ++i)
        if (items[i].phase == p && !(inside && is_outside(items[i].tier))) worst = std::max(worst, items[i].time_us);
      total += worst;
    }
    return total;
  }
  std::uint32_t worst() const {
    std::uint32_t best = kNone;
    for (std::uint32_t i = 0; i < count; ++i)
      if (best == kNone || items[i].time_us > items[best].time_us) best = i;
    return best;
  }
};

struct Priced {
  double time_us = kInf;   // the link model's
  double latency_us = 0;
};

class Pricer {
 public:
  Pricer(const Layout& layout, const GraphEntry& graphs, const PriceSettings& ps, bool nccl_sends = true)
      : l_(layout),
        ramp_(ps.ramp),
        tt_(*ps.tables),
        simple_buffer_(ps.simple_buffer),
        net_latency_(ps.net_latency),
        nccl_sends_(nccl_sends),
        comm_channels_(nccl::comm_channels(graphs.ring.channels, ps.channels)),
        ring_(graphs.ring),
        ring_share_(graphs.ring_share),
        tree_intra_(graphs.tree_intra),
        nvls_(graphs.nvls),
        nvls_channels_(nccl::bounded_nvls_channels(
            nccl::nvls_channels(layout.arch, layout.groups, layout.nic_mean_min, layout.min_group,
                                tt_.nvls_sm100_tuning, tt_.nvls_one_domain_24),
            ps.channels)) {}

  // Whether `algorithm` can run `op` on these ranks; `why` (when given) says
  // why not. Messages are only built on request: auto asks this for every
  // algorithm of every query.
  bool supports(Algorithm algorithm, Collective op, std::string* why = nullptr) const {
    const bool a2a = op == Collective::alltoall || op == Collective::sendrecv;
    if (l_.lpu && algorithm != Algorithm::ring && algorithm != Algorithm::p2p && algorithm != Algorithm::automatic) {
      if (why)
        *why = fmt::format("algorithm '{}' is not available on LPUs, whose transfers the compiler schedules; "
                           "use ring or p2p",
                           algorithm_name(algorithm));
      return false;
    }
    switch (algorithm) {
      case Algorithm::automatic: return true;
      case Algorithm::ring:
        if (a2a) {
          if (why) *why = fmt::format("algorithm 'ring' does not implement {}; use p2p", collective_name(op));
          return false;
        }
        return true;
      case Algorithm::tree:
        if (op != Collective::allreduce) {
          if (why) *why = "algorithm 'tree' implements allreduce only";
          return false;
        }
        return true;
      case Algorithm::nvls:
      case Algorithm::nvlstree: {
        const bool tree = algorithm == Algorithm::nvlstree;
        if (tree ? op != Collective::allreduce
                 : op != Collective::allreduce && op != Collective::allgather && op != Collective::reducescatter) {
          if (why)
            *why = tree ? "algorithm 'nvlstree' implements allreduce only"
                        : "algorithm 'nvls' implements allreduce, allgather and reducescatter only";
          return false;
        }
        if (!l_.all_switched) {
          if (why)
            *why = fmt::format("algorithm '{}' needs NVLink SHARP, in the NVSwitches that join each NVLink "
                               "domain; these ranks have no NVSwitch",
                               algorithm_name(algorithm));
          return false;
        }
        if (!has_nvls(l_.generation)) {
          if (why)
            *why = fmt::format("algorithm '{}' needs NVLink SHARP, which Hopper and Blackwell GPUs have; "
                               "these ranks are {} GPUs",
                               algorithm_name(algorithm), generation_name(l_.generation));
          return false;
        }
        if (!tree && l_.groups > 1 && !l_.in_network_reduction) {
          if (why)
            *why = fmt::format(
                "algorithm 'nvls' runs inside one NVLink domain and these ranks span {}; NVLS across domains "
                "needs switches that reduce in the network (SHARP), which these ranks' switches do not "
                "declare (label {}=sharp); try nvlstree",
                l_.groups, kInNetworkReductionLabel);
          return false;
        }
        if (!tree && l_.groups > 1 && op != Collective::allreduce) {
          if (why) *why = "algorithm 'nvls' across NVLink domains (NVLS with SHARP) implements allreduce only";
          return false;
        }
        if (tree && l_.groups < 2) {
          if (why) *why = "algorithm 'nvlstree' needs ranks in two or more NVLink domains; use nvls";
          return false;
        }
        return true;
      }
      case Algorithm::hierarchical:
        if (op == Collective::broadcast || op == Collective::reduce || op == Collective::sendrecv) {
          if (why) *why = fmt::format("algorithm 'hierarchical' does not implement {}", collective_name(op));
          return false;
        }
        if (l_.groups < 2) {
          if (why) *why = "algorithm 'hierarchical' needs ranks in two or more islands or nodes";
          return false;
        }
        return true;
      case Algorithm::p2p:
        if (!a2a) {
          if (why) *why = fmt::format("algorithm 'p2p' implements alltoall and sendrecv only; use ring");
          return false;
        }
        return true;
      case Algorithm::allpairs:
        if (op != Collective::allreduce) {
          if (why) *why = "algorithm 'allpairs' (RCCL's MSCCL) implements allreduce only";
          return false;
        }
        if (!allpairs_mesh()) {
          if (why)
            *why = fmt::format(
                "algorithm 'allpairs' is RCCL's MSCCL all-reduce for {} AMD GPUs of one node, "
                "joined in one xGMI mesh; these are {} ranks of {} GPUs on {} node{}",
                rccl::kAllPairsRanks, l_.n, generation_name(l_.generation), l_.nodes, l_.nodes == 1 ? "" : "s");
          return false;
        }
        return true;
    }
    return true;
  }

  // RCCL's MSCCL all-pairs conditions but the size (rccl::allpairs_protocol):
  // 8 ranks of AMD GPUs in one node, joined by one scale-up (xGMI) mesh, the
  // topology RCCL's model 79 describes.
  bool allpairs_mesh() const {
    return amd() && l_.n == static_cast<std::uint32_t>(rccl::kAllPairsRanks) && l_.nodes == 1 && l_.groups == 1 &&
           !l_.local_pcie && l_.all_scale_up;
  }

  // Whether NCCL enables LL128 here: the layout's rule, and across domains
  // through a GPU's C2C link to its CPU's NICs (P2C) only from 2.27.3.
  bool ll128() const {
    return l_.ll128 && (l_.groups == 1 || l_.nic_path != NicPath::p2c || tt_.ll128_over_c2c);
  }

  // NCCL's algorithms for `op` that the hardware supports, in a fixed order.
  SmallList<Algorithm, 7> automatic(Collective op) const {
    SmallList<Algorithm, 7> out;
    constexpr std::array<Algorithm, 7> kOrder = {Algorithm::ring,     Algorithm::tree, Algorithm::nvls,
                                                 Algorithm::nvlstree, Algorithm::p2p,  Algorithm::hierarchical,
                                                 Algorithm::allpairs};
    for (Algorithm a : kOrder) {
      if (!supports(a, op)) continue;
      // Hierarchical all-reduce/-gather is not one of NCCL's algorithms; for
      // alltoall it is NCCL's default PXN path.
      if (a == Algorithm::hierarchical && op != Collective::alltoall) continue;
      out.push(a);
    }
    return out;
  }

  SmallList<Protocol, 3> protocols(Algorithm a, Collective op, std::uint64_t bytes) const {
    SmallList<Protocol, 3> out;
    if (l_.lpu) {
      out.push(Protocol::scheduled);
      return out;
    }
    switch (a) {
      case Algorithm::ring:
      case Algorithm::tree: {
        // RCCL has no Simple tree inside one gfx942 node.
        const bool simple = !(amd() && a == Algorithm::tree && l_.groups == 1);
        if (amd()) {
          // RCCL picks the protocol by size, not by its model.
          const rccl::ProtocolRange range = rccl::protocol_range(op);
          if (range.ll_max > 0) {
            const Protocol p = bytes <= range.ll_max                 ? Protocol::ll
                               : bytes <= range.ll128_max && ll128() ? Protocol::ll128
                                                                      : Protocol::simple;
            if (p != Protocol::simple || simple) out.push(p);
            break;
          }
        }
        out.push(Protocol::ll);
        if (ll128()) out.push(Protocol::ll128);
        if (simple) out.push(Protocol::simple);
        break;
      }
      case Algorithm::p2p:
        if (nccl_sends_) {
          out.push(p2p_protocol(op, bytes));
          break;
        }
        out.push(Protocol::ll);
        out.push(Protocol::simple);
        break;
      case Algorithm::allpairs:
        if (const auto p = rccl::allpairs_protocol(bytes)) out.push(*p);
        break;
      default: out.push(Protocol::simple); break;
    }
    return out;
  }

  // Fills `t` with the tiers algorithm `a` loads for a collective of `s`
  // bytes. With `inside`, only the tiers inside the groups (what the
  // collective would cost on an infinitely fast network).
  void tiers(Algorithm a, Collective op, double s, TierList& t, bool inside = false) const {
    t.count = 0;
    t.phases = 1;
    const double n = l_.n;
    const double groups = l_.groups;
    const Tier local = l_.local_pcie ? Tier::pcie : Tier::scale_up;
    const bool out = !inside;
    auto add_levels_ring = [&](std::uint8_t phase, double bytes_per_crossing) {
      for (std::uint32_t i = 0; i < l_.level_count && out; ++i) {
        const LevelLoad& lv = l_.levels[i];
        if (lv.ring_crossings > 0)
          t.add(Tier::level, lv.level, lv.ring_where, phase, bytes_per_crossing * lv.ring_crossings, lv.ring_cap);
      }
    };
    auto add_levels_a2a = [&](std::uint8_t phase) {
      for (std::uint32_t i = 0; i < l_.level_count && out; ++i) {
        const LevelLoad& lv = l_.levels[i];
        if (lv.a2a_factor > 0) t.add(Tier::level, lv.level, lv.a2a_where, phase, lv.a2a_factor * s, lv.a2a_cap);
      }
    };
    auto add_socket = [&](std::uint8_t phase, double bytes) {
      if (l_.socket_where != kNone) t.add(Tier::socket, kNone, l_.socket_where, phase, bytes, l_.socket_bw);
    };
    // Out of the weakest group through the NICs the graph's channels use.
    auto add_island = [&](std::uint8_t phase, double bytes, double bw) {
      if (l_.groups > 1 && out) t.add(Tier::island, l_.island_level, l_.island_where, phase, bytes, bw);
    };
    switch (a) {
      // MSCCL's all-pairs all-reduce sends each peer 1/n of the buffer over
      // their link and gets the sums back the same way: 2 (n - 1) / n x S
      // over a GPU's n - 1 links, the ring's bytes on the same links.
      case Algorithm::allpairs:
      case Algorithm::ring: {
        const double f = (op == Collective::broadcast || op == Collective::reduce) ? 1.0 : bus_factor(op, l_.n);
        if (l_.max_group > 1) t.add(local, kNone, l_.local_where, 0, ring_local_share(inside) * f * s, l_.local_bw);
        add_socket(0, f * s);
        add_island(0, f * s, graph_egress());
        add_levels_ring(0, f * s);
        break;
      }
      case Algorithm::tree: {
        // Chains inside groups carry the data up and back down; the double
        // binary tree across groups loads the busiest group tree_traffic(N) x S.
        const double across = nccl::tree_traffic(l_.groups);
        if (l_.max_group > 1) t.add(local, kNone, l_.local_where, 0, 2 * s, l_.local_bw);
        add_socket(0, 2 * s);
        add_island(0, across * s, graph_egress());
        add_levels_ring(0, across * s);
        break;
      }
      case Algorithm::nvls: {
        if (l_.groups > 1) {
          // NVLS with SHARP (all_reduce.h, NVLS with nNodes > 1): NVLS reduces
          // each domain's data into its heads, each head streams its slice
          // through its NIC into the switches, which reduce across domains and
          // return the sum, and the heads multicast it. NCCL's tuner charges
          // the heads' NICs a busBw of heads x NIC rate (tuning.cc), as many
          // bytes per NIC as a ring's; see topoplan-cost(7), "nvls across islands".
          const double g = l_.min_group;
          const double f = bus_factor(op, l_.n);
          if (g > 1) t.add(Tier::scale_up, kNone, l_.switch_where, 0, head_share(g) * s, nvls_bw(head_share(g)), true);
          add_island(0, f * s, heads_egress());
          add_levels_ring(0, f * s);
          break;
        }
        const double factor = op == Collective::allreduce ? head_share(n) : 1.0;
        t.add(Tier::scale_up, kNone, l_.switch_where, 0, factor * s, nvls_bw(factor), true);
        break;
      }
      case Algorithm::nvlstree: {
        const double g = l_.min_group;
        const double across = nccl::tree_traffic(l_.groups);
        if (g > 1) t.add(Tier::scale_up, kNone, l_.switch_where, 0, head_share(g) * s, nvls_bw(head_share(g), true), true);
        add_island(0, across * s, heads_egress());
        add_levels_ring(0, across * s);
        break;
      }
      case Algorithm::hierarchical: {
        const double gmax = l_.max_group;
        const double gmin = l_.min_group;
        if (op == Collective::alltoall) {
          t.add(local, kNone, l_.a2a_fwd_where, 0, l_.a2a_fwd_factor * s, l_.a2a_fwd_bw);
          if (out) {
            t.add(Tier::nic, kNone, l_.a2a_nic_where, 0, l_.a2a_nic_factor * s, l_.a2a_nic_bw);
            t.add(Tier::island, l_.island_level, l_.a2a_island_where, 0, l_.a2a_island_factor * s, l_.a2a_island_bw);
          }
          add_levels_a2a(0);
          break;
        }
        const double inter = op == Collective::allreduce ? 2 * (groups - 1) / groups : (groups - 1) / groups;
        std::uint8_t phase = 0;
        if (op != Collective::allgather) {  // intra-island reduce-scatter first
          if (gmax > 1) t.add(local, kNone, l_.local_where, phase, (gmax - 1) / gmax * s, l_.local_bw);
          ++phase;
        }
        if (out) t.add(Tier::nic, kNone, l_.nic_where, phase, inter * s / gmin, l_.nic_bw);
        add_island(phase, inter * s, l_.island_bw);
        add_levels_ring(phase, inter * s);
        ++phase;
        if (op != Collective::reducescatter && gmax > 1)  // intra-island all-gather last
          t.add(local, kNone, l_.local_where, phase, (gmax - 1) / gmax * s, l_.local_bw);
        break;
      }
      case Algorithm::p2p: {
        if (op == Collective::sendrecv) {
          if (out || l_.pair_tier != Tier::nic) t.add(l_.pair_tier, kNone, l_.pair_where, 0, s, l_.pair_bw);
          for (std::uint32_t i = 0; i < l_.level_count && out; ++i) {
            const LevelLoad& lv = l_.levels[i];
            if (lv.p2p_flows > 0) t.add(Tier::level, lv.level, lv.p2p_where, 0, s * lv.p2p_flows, lv.p2p_cap);
          }
          break;
        }
        t.add(local, kNone, l_.a2a_local_where, 0, l_.a2a_local_factor * s, l_.a2a_local_bw);
        if (out) {
          t.add(Tier::nic, kNone, l_.a2a_nic_where, 0, l_.a2a_nic_factor * s, l_.a2a_nic_bw);
          t.add(Tier::island, l_.island_level, l_.a2a_island_where, 0, l_.a2a_island_factor * s, l_.a2a_island_bw);
        }
        add_levels_a2a(0);
        break;
      }
      case Algorithm::automatic: break;
    }
  }

  // The bytes per byte of the buffer an NVLS all-reduce moves over a head's
  // links, each way, in a domain of `gpus`: the reads the switch serves from
  // its buffer (1) and its own slice's multicast store (1 / heads) out, the
  // same back in. With more GPUs than heads (NCCL's 32) the heads are the
  // busiest GPUs.
  double head_share(double gpus) const {
    const double h = std::max(1.0, std::min<double>(nvls_.heads, gpus));
    return (h + 1) / h;
  }

  // NCCL's busBw normalisation of an algorithm (tuning.cc): algBw times this.
  double nccl_norm(Algorithm a, Collective op) const {
    if (a == Algorithm::tree) return 2.0;
    if (op == Collective::broadcast || op == Collective::reduce || op == Collective::sendrecv) return 1.0;
    return bus_factor(op, l_.n);
  }

  // The time of algorithm `a` with protocol `p` and latency `latency_us` on
  // tiers whose time at full bandwidth is `raw_us` (`raw_inside_us` of them
  // inside the groups, when known): the link model.
  double physical_us(Algorithm a, Protocol p, Collective op, double s, double raw_us, double latency_us,
                     bool inside = false, double raw_inside_us = -1) const {
    return physical_parts(a, p, op, s, raw_us, latency_us, inside, raw_inside_us).total();
  }

  // physical_us's terms: the latency, the links' ramped transfer, the
  // channels' own pace through the NICs where it is known (the transfer is
  // the longer of the two) and the pipeline's fill.
  struct Parts {
    double latency_us = 0, links_us = 0, channels_us = 0, fill_us = 0;
    bool send_channels_bind = false;  // links_us is the send channels' pace
    double head_cap = 0;              // NVLSTree: NCCL's cap a head, where it binds
    double total() const { return latency_us + std::max(links_us, channels_us) + fill_us; }
  };
  Parts physical_parts(Algorithm a, Protocol p, Collective op, double s, double raw_us, double latency_us,
                       bool inside = false, double raw_inside_us = -1) const {
    Parts out;
    out.latency_us = latency_us;
    if (!(raw_us < kInf)) {
      out.links_us = kInf;
      return out;
    }
    if (p == Protocol::scheduled) {
      out.links_us = raw_us;
      return out;
    }
    const int proto = tuner_proto(p);
    const double norm = nccl_norm(a, op);
    double bus = raw_us > 0 ? s / (raw_us * 1e3) * norm : kInf;
    bus = protocol_bus(a, p, bus, ring_.channels, false, inside);
    const double channel_bus = p2p_channel_bus(op, p, s);
    // An all-to-all's links ramp with its size, but not its channels: NCCL
    // gives a peer more of them as its part grows (p2p_send_channels), so
    // they are already its size dependence, as a send's are. Ramping both
    // made a larger all-to-all of few channels faster than a smaller one
    // (4 H100s: 27.6 us at 256 KiB, 21.3 at 1 MiB).
    const bool channels_ramp_free = channel_bus < kInf;
    if (channels_ramp_free && op == Collective::alltoall && ramp_)
      bus *= nccl::ramp_efficiency(s, pipeline_unit(a, proto));
    out.send_channels_bind = channel_bus < bus;
    bus = std::min(bus, channel_bus);
    // A tree's chains inside the groups are the one-node tree's, whatever
    // runs beyond them: LL128 moves them at NCCL's one-node rate (7/9 of the
    // links, tuning.cc) where the network side takes 120/128, so leaving an
    // island never speeds the chains it keeps.
    if (a == Algorithm::tree && p == Protocol::ll128 && !inside && l_.groups > 1 && raw_inside_us > 0 && !amd())
      bus = std::min(bus, s / (raw_inside_us * 1e3) * norm * nccl::kTreeLL128FactorOneNode);
    // The heads' rate into the network tree (NCCL's per-channel NVLSTree cap)
    // is a cost of leaving the islands.
    if (a == Algorithm::nvlstree && !inside) {
      const double cap = nvlstree_cap();
      if (cap > 0 && nvls_.heads * cap < bus) {
        bus = nvls_.heads * cap;
        out.head_cap = cap;
      }
    }
    const double alg = bus / norm;
    // No ramp where the size dependence is priced otherwise: RCCL's LL ratio
    // is what LL reaches at the sizes RCCL gives it (up to 1 MiB); MSCCL's
    // XML walks the buffer in a fixed number of chunks, whose cost is in its
    // latency; a send inside a domain runs on NCCL's channels for its size;
    // an all-to-all's links took the ramp above, under its channels' bound
    // (8 H100s' 32 MiB, a259, runs at the links' ramped rate, 37 % under
    // them unramped).
    const bool no_ramp = (amd() && p == Protocol::ll) || a == Algorithm::allpairs || channels_ramp_free;
    const double eta = ramp_ && !no_ramp ? nccl::ramp_efficiency(s, pipeline_unit(a, proto)) : 1.0;
    out.links_us = transfer_us(s, alg) / eta;
    out.channels_us = network_channels_us(a, p, op, s, inside);
    out.fill_us = fill_us(a, p, op, s, alg, inside);
    return out;
  }

  // NCCL's per-channel NVLSTree cap (perChMaxNVLSTreeBws) as the link model
  // takes it: the newest release's, but on Blackwell the one that goes with
  // the run's launch. NCCL 2.30 chose Blackwell's NVLSTree channels and
  // chunks anew (ncclNvlsTreeSm100Tuning, nvls_sm100_tuning) and raised the
  // cap from four nodes with them, 43.8 to 80 GB/s a head; the launch before
  // (32 channels, 64 KiB chunks from four nodes) is held to the cap NCCL
  // stated for it from 2.28.3 on, and so in the releases before that stated
  // none. B200s on 2.29.7 run NVLSTree at 274-290 GB/s from 4 to 64 nodes
  // (bench/data a328-a344), below even that cap's 350.
  double nvlstree_cap() const {
    const auto arch = static_cast<std::size_t>(l_.arch);
    if (l_.generation == Generation::blackwell && !tt_.nvls_sm100_tuning) {
      const double stated = tt_.nvls_tree[arch][column()];
      return stated > 0 ? stated : nccl::first_nvls_tree_cap_tables().nvls_tree[arch][column()];
    }
    return nccl::newest_tuner_tables().nvls_tree[arch][column()];
  }

  // What the channels' CTAs take to move a ring's or NVLSTree's bytes
  // through each node's NICs on Hopper (nccl::kHopperNetChannelBw; Simple,
  // the protocol of the sizes where it binds): 16 channels move 328 GB/s
  // where DGX H100's NICs take 384. A bound of its own beside the links'
  // ramped time: the CTAs' pace does not ramp with the size. 0 elsewhere.
  double network_channels_us(Algorithm a, Protocol p, Collective op, double s, bool inside) const {
    const int channels = network_channels(a, p, inside);
    if (channels == 0) return 0;
    const double bytes = a == Algorithm::ring ? bus_factor(op, l_.n) * s : nccl::tree_traffic(l_.groups) * s;
    return transfer_us(bytes, channels * nccl::kHopperNetChannelBw);
  }
  // The channels whose pace network_channels_us prices (0: none).
  int network_channels(Algorithm a, Protocol p, bool inside) const {
    if (inside || l_.groups < 2 || p != Protocol::simple || l_.generation != Generation::hopper) return 0;
    if (a == Algorithm::ring) return comm_channels_;
    if (a == Algorithm::nvlstree) return nvls_channels_;
    return 0;
  }

  // A send and receive inside one NVLink domain runs on the channels NCCL
  // gives its size (nccl::p2p_send_channels), each one CTA copying its part
  // (nccl::kP2pChannelBw, Hopper and Blackwell; LL's lines half of it): 4
  // channels for 32 MiB among 8 H100s, 83 GB/s where the links would take
  // 370. An all-to-all's peers each take their part's channels, together at
  // most the communicator's send channels (enqueue.cc spreads the rounds
  // over them): 32 CTAs hold a GPU's sends to 666 GB/s, under Blackwell's
  // 722 of NVLink (measured: 569-684 from 4 to 64 GPUs: c38, a146, a152,
  // a161, a395-a397, a400-a402), above Hopper's 371. Unbounded elsewhere:
  // no CTA rate is measured there, and across nodes NCCL's 128 KiB parts
  // reach the channels' maximum within a few MiB.
  // Not for a kernel's own sends (CollectiveQuery::nccl_sends).
  double p2p_channel_bus(Collective op, Protocol p, double s) const {
    const SendChannels ch = send_channels(op, s);
    if (ch.total == 0) return kInf;
    // LL's lines carry 8 bytes of data in 16.
    const double line = p == Protocol::ll ? nccl::kRingLLFactor : 1.0;
    return ch.total * nccl::kP2pChannelBw * line;
  }

  // The send channels p2p_channel_bus prices: a GPU's (at most the
  // communicator's send channels for an all-to-all's peers together) and
  // one peer's; none outside one NVLink domain or for a kernel's own sends.
  struct SendChannels {
    int total = 0, per_peer = 0;
  };
  SendChannels send_channels(Collective op, double s) const {
    if ((op != Collective::sendrecv && op != Collective::alltoall) || !nccl_sends_) return {};
    const std::optional<nccl::P2pChannels> domain = domain_p2p_channels();
    if (!domain) return {};
    if (op == Collective::sendrecv) {
      const int n = nccl::p2p_send_channels(s, *domain);
      return {n, n};
    }
    const int per_peer = nccl::p2p_send_channels(s / l_.n, *domain);
    const int peers = static_cast<int>(l_.n) - 1;
    return {std::min(nccl::p2p_comm_channels(comm_channels_), peers * per_peer), per_peer};
  }

  // The protocol NCCL gives a send (enqueue.cc addP2pToPlan): LL while a
  // peer's part is at most NCCL_P2P_LL_THRESHOLD (nccl::kP2pLLThreshold)
  // on each of its channels, else Simple; not its tuner's choice, as no
  // tuner models sends. Outside one NVLink domain a send is taken to run on
  // one channel (its parts are at least 64 KiB there). RCCL's rule is the part alone against the same
  // 16 KiB (its enqueue.cc, on gfx942 and gfx950).
  Protocol p2p_protocol(Collective op, std::uint64_t bytes) const {
    const double peer = op == Collective::alltoall ? static_cast<double>(bytes) / l_.n : static_cast<double>(bytes);
    const std::optional<nccl::P2pChannels> domain = domain_p2p_channels();
    const double channels = domain ? nccl::p2p_send_channels(peer, *domain) : 1;
    return peer <= channels * nccl::kP2pLLThreshold ? Protocol::ll : Protocol::simple;
  }

  // The channels NCCL gives a send between GPUs of one Hopper or Blackwell
  // NVLink domain (nccl::p2p_channels, from the links to a peer); empty
  // elsewhere (across islands, PCIe, other generations, AMD GPUs).
  std::optional<nccl::P2pChannels> domain_p2p_channels() const {
    if (l_.groups != 1 || l_.local_pcie || !l_.all_scale_up || amd() || l_.arch < 2 || l_.arch > 3) return std::nullopt;
    const int nvlinks = static_cast<int>(std::lround(l_.local_bw / nccl::kNvlinkBw[static_cast<std::size_t>(l_.arch)]));
    return nccl::p2p_channels(comm_channels_, nvlinks, static_cast<int>(l_.n));
  }

  // The steps an all-to-all's sends take in turn: the batches a channel
  // runs (nccl::p2p_batches), the islands taken for NCCL's nodes (a
  // multi-node NVLink domain is one), also where the network is taken as
  // free (the batches are NCCL's schedule, not the network's). One for a
  // send, on AMD GPUs, whose RCCL the batch rule is not read for, and for
  // a kernel's own sends (CollectiveQuery::nccl_sends).
  double p2p_batches(Collective op, std::uint32_t groups) const {
    if (!batched(op)) return 1;
    return nccl::p2p_batches(static_cast<int>(l_.n), static_cast<int>(groups), nccl::p2p_comm_channels(comm_channels_));
  }
  // Whether `op` runs NCCL's batches of sends (p2p_batches).
  bool batched(Collective op) const { return op == Collective::alltoall && !amd() && nccl_sends_; }

  // NCCL's own estimate (its tuner's) of (a, p) with latency `latency_us`;
  // negative where NCCL has no model (all-to-all, sendrecv, LPUs).
  double tuner_us(Algorithm a, Protocol p, Collective op, double s, double latency_us) const {
    if (p == Protocol::scheduled) return -1;
    const double alg = tuner_algbw(a, p, op, s);
    return alg > 0 ? latency_us + transfer_us(s, alg) : -1;
  }

  // The protocols' efficiency on the busBw of a graph with `channels`
  // channels (tuning.cc): LL carries 8 of every 16 bytes and is held to
  // llMaxBw; LL128 carries 120 of every 128, with NCCL's per-channel cap on
  // rings. Trees take NCCL's protocol factors, and NCCL's per-channel caps
  // from four nodes on (the tables' N4 column): at 3 nodes measured trees run
  // far above them (NVIDIA/nccl#1801: 486 GB/s on 8 channels, cap 192), at 20
  // racks at them (coreweave/nccl-tests#48), on B200s from 4 to 64 nodes at
  // them (bench/data a327-a343: 189-193 GB/s on 8 channels, cap 192). Over
  // two Blackwell nodes the N2 column too: NCCL 2.28.3 cut Blackwell's caps
  // (twice Hopper's before) to what its trees measure, and a B200 pair's
  // Tree/Simple runs at 334 GB/s on 8 channels (a323), cap 342. Hopper's
  // two-node cap predates its measurements, which run above it (GCP A3
  // Mega's pair, c31: 338.8 against 8 x 41.4). `tuner` applies NCCL's own
  // rules, caps at every node count and the 0.92 of Tree/Simple.
  double protocol_bus(Algorithm a, Protocol p, double bus, int channels, bool tuner = false,
                      bool inside = false) const {
    const auto arch = static_cast<std::size_t>(l_.arch);
    // Inside the groups (outside_us's reference): as one node.
    const std::uint32_t groups = inside ? 1 : l_.groups;
    const std::size_t col = static_cast<std::size_t>(nccl::nodes_column(groups));
    const double llmax = nccl::ll_max_bw(l_.arch, groups, l_.amd_host);
    const bool capped = tuner || groups >= 4 || (groups == 2 && l_.generation == Generation::blackwell);
    const nccl::TunerTables& k = tuner ? tt_ : nccl::newest_tuner_tables();
    // MSCCL's LL carries 8 of every 16 bytes at the link's rate, its Simple
    // the share AMD's curve shows (rccl::kAllPairsSimpleEfficiency).
    if (a == Algorithm::allpairs)
      return bus * (p == Protocol::ll ? nccl::kRingLLFactor : rccl::kAllPairsSimpleEfficiency);
    if (amd() && (a == Algorithm::ring || a == Algorithm::tree)) {
      // RCCL's ratios; physically only LL's is a property of the link (LL128
      // and Simple move at NCCL's rates).
      const std::size_t row = groups <= 2 ? 0 : 1;
      const std::size_t al = a == Algorithm::tree ? 0 : 1;
      if (p == Protocol::ll || tuner) return bus * rccl::kBwRatio[row][al][static_cast<std::size_t>(tuner_proto(p))];
      return p == Protocol::ll128 ? bus * nccl::kLL128Factor : bus;
    }
    switch (a) {
      case Algorithm::ring:
      case Algorithm::p2p:
        if (p == Protocol::ll) return std::min(llmax, bus * nccl::kRingLLFactor);
        if (p == Protocol::ll128 && a == Algorithm::ring)
          return std::min(bus * nccl::kLL128Factor, channels * k.ring_ll128[arch][col]);
        return bus;
      case Algorithm::tree:
        if (p == Protocol::ll) return std::min(bus / nccl::kTreeLLDivisor, llmax);
        if (p == Protocol::ll128) {
          bus *= groups > 1 ? nccl::kTreeLL128FactorMultiNode : nccl::kTreeLL128FactorOneNode;
          return capped ? std::min(bus, channels * k.tree_ll128[arch][col]) : bus;
        }
        if (tuner) bus *= nccl::kLL128Factor;
        return capped ? std::min(bus, channels * k.tree[arch][col]) : bus;
      default: return bus;
    }
  }

  // NCCL's algBw for (a, p) from its graphs (tuning.cc ncclTopoTuneModel and
  // ncclTopoGetAlgoTime); 0 where NCCL has no model (all-to-all, sendrecv).
  double tuner_algbw(Algorithm a, Protocol p, Collective op, double s) const {
    const auto arch = static_cast<std::size_t>(l_.arch);
    const std::size_t col = column();
    const int proto = tuner_proto(p);
    const double n = l_.n;
    const bool ar = op == Collective::allreduce;
    const double nsteps = ar ? 2 * (n - 1) : (op == Collective::allgather || op == Collective::reducescatter) ? n - 1 : n;
    double bus = 0;
    switch (a) {
      case Algorithm::ring: bus = ring_.total(); break;
      // Over two nodes NCCL prices a tree at its graph's raised intra-node
      // speed (nccl::tree_intra_speed), beyond them at the network's.
      case Algorithm::tree: bus = l_.groups == 2 ? ring_.channels * tree_intra_ : ring_.total(); break;
      case Algorithm::nvls:
      case Algorithm::nvlstree: {
        if (nvls_.heads < 2) return 0;
        const double h = nvls_.heads;
        if (!tt_.nvls_efficiency_model) {
          // Before 2.28.3: the graph's speeds as they are, NVLSTree's
          // network half beyond two nodes, and 5/6 for algBw.
          const double inter = a == Algorithm::nvlstree && l_.groups > 2 ? nvls_.inter / 2 : nvls_.inter;
          const double old_bus = h * std::min(nvls_.intra, inter);
          return op == Collective::allgather || op == Collective::reducescatter ? old_bus : old_bus * 5.0 / 6.0;
        }
        const double ppn = l_.min_group;
        double intra = nvls_.intra * nvls_efficiency() * (h - 1) / h;
        intra *= ar ? 2.0 : (ppn - 1) / ppn;
        const double inter = nvls_.inter * (a == Algorithm::nvlstree && l_.groups <= 2 ? 2.0 : 1.0);
        double bw = std::min(intra, inter);
        if (a == Algorithm::nvlstree) bw = std::min(bw, tt_.nvls_tree[arch][col]);
        bus = h * bw;
        break;
      }
      default: return 0;
    }
    bus = protocol_bus(a, p, bus, ring_.channels, true);
    // busBw to algBw: n / nsteps for ring and NVLS, 1/2 for tree; NCCL leaves
    // non-ring allgather and reducescatter as they are.
    double alg = bus;
    if (!(a != Algorithm::ring && (op == Collective::allgather || op == Collective::reducescatter)))
      alg = a == Algorithm::tree ? bus * 0.5 : bus * n / nsteps;
    if (a == Algorithm::tree && ar && !amd()) alg *= nccl::tree_correction(proto, static_cast<std::uint64_t>(s), 23);
    if (a == Algorithm::nvlstree && ar && tt_.nvlstree_correction && l_.generation == Generation::blackwell &&
        !l_.arm_host)
      alg *= nccl::tree_correction(proto, static_cast<std::uint64_t>(s), 24);
    return alg;
  }

  // The rate one channel's chunk crosses a hop of a tree's chain inside a
  // group during the fill. One node: every channel's chain is the same
  // (search.cc replays the first channel's GPUs), so their first chunks
  // cross each hop together, each at its share of the link. Across groups a
  // channel's chain starts at the GPU by its NIC and runs round the
  // node's GPUs (search.cc ncclTopoSearchRecNet takes the channels' NICs in
  // turn; NCCL's "Trees" lines show a GPU at the head of some channels and
  // in the middle of others, NVIDIA/nccl#1357), so the channels' first
  // chunks are spread over as many heads as the graph has NICs and share a
  // GPU's link with fewer. Either way a channel moves at most NCCL's
  // per-channel tree rate, the one-node busBw cap of perChMaxTreeBws
  // (tuning.cc; Hopper 38.7, Blackwell 70 GB/s) halved into algBw (a tree's
  // busBw counts a byte up and down; a hop carries it one way). RCCL's
  // tables have no such cap: there the share of the link alone.
  double chain_rate(double channels, std::uint32_t groups) const {
    if (amd()) return l_.local_bw / channels;
    const double heads = groups > 1 ? std::clamp(graph_nics(), 1.0, channels) : 1.0;
    const double share = l_.local_bw * heads / channels;
    const double cap = nccl::newest_tuner_tables().tree[static_cast<std::size_t>(l_.arch)][0] / 2;
    return cap > 0 ? std::min(share, cap) : share;
  }

  // Pipeline fill of the multi-hop algorithms: the first chunk crosses every
  // hop of the tree before the last one leaves, each hop at its channel's
  // rate: inside the groups chain_rate (chains) or its share of the link
  // (NVLS), out of them its share of the algorithm's bandwidth, as NCCL's
  // Tree and NVLSTree chunk their data (enqueue.cc calcCollChunking).
  // Simple only: it hands a hop a step's data and then the flag that it is
  // there, while LL and LL128 carry a flag in every word or line, so a hop
  // forwards each line as it arrives and their fill is the per-hop latency
  // the latency term holds.
  // Whether (a, p) has a pipeline fill (fill_us): Simple's trees, NVLS and
  // NVLSTree.
  static bool fills(Algorithm a, Protocol p) {
    return p == Protocol::simple && (a == Algorithm::tree || a == Algorithm::nvls || a == Algorithm::nvlstree);
  }
  double fill_us(Algorithm a, Protocol p, Collective op, double s, double alg, bool inside) const {
    if (!(alg > 0) || !fills(a, p)) return 0;
    const std::uint32_t groups = inside ? 1 : l_.groups;
    // NVLS's loop fill is its size dependence, off with the ramp.
    if (a == Algorithm::nvls || a == Algorithm::nvlstree) {
      if (!ramp_) return 0;
      if (a == Algorithm::nvls || groups == 1) return nvls_fill_us(op, s, alg, nvls_channels_, nvls_.heads);
      // NVLSTree's smaller chunks cost per loop what the model does not
      // price (why NCCL gives one domain 128 KiB ones): the fill of its NVLS
      // side is held to NVLS's on one domain alone (its channels, its
      // heads: NCCL's graph across domains may keep fewer, each head a
      // NIC), so spanning domains never speeds the NVLS side; the network
      // hops come on top.
      const int one_domain =
          std::min(nvls_channels_, nccl::nvls_channels(l_.arch, 1, 0, 0, true, tt_.nvls_one_domain_24));
      const int alone = static_cast<int>(std::min<std::uint32_t>(nccl::kMaxNvlsArity, std::max(l_.min_group, 1U)));
      const double share = static_cast<double>(alone + 1) / alone;
      const double alone_alg = nvls_bw(share) / share;
      const NvlsTreeFill tree = nvlstree_fill(s);
      return std::max(tree.switch_us, nvls_fill_us(op, s, alone_alg, one_domain, alone)) + tree.network_us;
    }
    // A tree's.
    const double chain_hops = nccl::tree_depth(l_.max_group, 1);
    // Every channel the collective runs on has a chunk in flight; a small
    // collective runs on fewer channels, each with a larger share.
    const int threads = amd() ? nccl::kRcclSimpleMaxThreads : nccl::kSimpleMaxThreads;
    const double channels = nccl::collective_channels(comm_channels_, s, threads, nccl::kSimpleThreadThreshold);
    double step = nccl::tree_chunk(tuner_proto(p), simple_buffer_);
    if (tt_.tree_chunk_by_depth || amd()) {
      const double depth = nccl::nccl_tree_depth(l_.n / std::max(l_.groups, 1U), groups);
      step = nccl::tree_chunk_for_size(step, s, channels, depth);
    }
    const double chunk = std::min(step, s / channels);
    const double net_hops = nccl::tree_depth(1, groups);
    double fill = 0;
    if (chain_hops > 0 && l_.local_bw > 0) fill += chain_hops * transfer_us(chunk, chain_rate(channels, groups));
    if (net_hops > 0) fill += net_hops * transfer_us(chunk * channels, alg);
    // The last hop belongs to the bandwidth term.
    return std::max(0.0, fill - transfer_us(chunk * channels, alg));
  }

  // The switch side of NVLSTree as an algorithm bandwidth for its fill: one
  // domain's NVLS rate over the head's share of the buffer it carries. The
  // fill is the first loop's way through the stages ahead of the slowest,
  // NVLSTree's gather (nvls_bw with `tree`), and its loop count
  // (kNvlsFillLoops) was measured at one domain's rate.
  double switch_alg() const {
    const double share = head_share(std::max<double>(l_.min_group, 1));
    return nvls_bw(share) / share;
  }

  // The bytes of one NVLS (or NVLSTree) loop on `channels` channels and
  // `heads` heads: a chunk on every channel of every head, NCCL's chunk for
  // `s` (enqueue.cc), at most the buffer.
  double nvls_loop(bool tree, int channels, int heads, double s) const {
    const double ops = static_cast<double>(channels) * std::max(1, heads);
    return std::min(s, ops * nvls_chunk(tree, channels, heads, s));
  }
  double nvls_chunk(bool tree, int channels, int heads, double s) const {
    const double ops = static_cast<double>(channels) * std::max(1, heads);
    return nccl::nvls_chunk(tree, l_.arch, tree ? l_.groups : 1, l_.min_group, l_.nic_mean_min,
                            l_.nic_path != NicPath::pcie, s, ops, tt_.nvls_sm100_tuning, simple_buffer_);
  }

  // NCCL's launch of NVLS or NVLSTree at `s` into `out`: channels, heads
  // and chunk, as its loops and switch side are priced.
  void report_launch(Algorithm a, double s, CollectiveCost& out) const {
    if (a != Algorithm::nvls && a != Algorithm::nvlstree) return;
    out.nvls_channels = static_cast<std::uint32_t>(nvls_channels_);
    out.nvls_heads = static_cast<std::uint32_t>(std::max(1, nvls_.heads));
    out.nvls_chunk_bytes =
        static_cast<std::uint32_t>(nvls_chunk(a == Algorithm::nvlstree, nvls_channels_, nvls_.heads, s));
  }

  // NVLS inside one domain (all_reduce.h, the oneNode path): each channel
  // takes a contiguous part of the buffer and walks it a loop at a time, a
  // loop being one chunk for each head (NCCL's chunk for the size,
  // enqueue.cc, and the whole buffer when it is smaller than a loop).
  // Scatter warps copy a loop into the heads' buffers, the heads' warps
  // reduce it through the switch and multicast the sum, gather warps copy
  // it out. From the second loop on the three stages overlap; the first
  // loop's scatter and reduce are the fill, two loops at the algorithm's
  // rate on Hopper and four on Blackwell, whose measured curves carry twice
  // the fill (nvls_fill_loops). The fill stops growing once the chunk
  // reaches its 128 KiB, as the measured curves of 8 H100s do (about 120 us
  // from 1 GiB on; c4-c8, c23-c26), where the sqrt ramp it replaces kept
  // growing with the size.
  double nvls_fill_us(Collective op, double s, double alg, int channels, int heads) const {
    return nvls_fill_loops(op) * transfer_us(nvls_loop(false, channels, heads, s), alg);
  }

  // The loops of NVLS's fill: an all-reduce's three stages fill two loops
  // in one host's NVSwitch domain (nccl::kNvlsFillLoops), four in a
  // multi-node NVLink domain (kNvlsFillLoopsMultiHost); all-gather and
  // reduce-scatter run two stages and fill half as many.
  double nvls_fill_loops(Collective op) const {
    const double loops = l_.island_spans_hosts ? nccl::kNvlsFillLoopsMultiHost : nccl::kNvlsFillLoops;
    return op == Collective::allreduce ? loops : loops / 2;
  }

  // NVLSTree (all_reduce.h, NVLS_TREE): NVLS's loops, which the heads send
  // up NCCL's tree across domains and multicast as they come back down. The
  // first loop fills NVLS's loops at the switch's rate, as inside one
  // domain (nvls_fill_loops), then its network hops, L up and L down (L =
  // ceil(log2 domains)), each a loop through the heads' NICs; the last hop
  // belongs to the bandwidth term. A parent reduces and forwards a loop
  // step by step as its children's steps arrive, so the tree's inner
  // reduces and multicasts overlap the hops. Over 2 and 4 H100 nodes (bench/data a83-a86,
  // a90-a93, a103-a105) this follows the measured curves within 7 % from
  // 256 MiB on, where the sqrt ramp it replaces made them 12-21 % slow.
  struct NvlsTreeFill {
    double switch_us = 0;   // NVLS's loops at the switch's rate
    double network_us = 0;  // the network hops but the last
  };
  NvlsTreeFill nvlstree_fill(double s) const {
    const double loop = nvls_loop(true, nvls_channels_, nvls_.heads, s);
    const double net_hops = nccl::tree_depth(1, l_.groups);
    const double wire = heads_egress();
    NvlsTreeFill fill;
    if (wire > 0 && net_hops > 1) fill.network_us = (net_hops - 1) * transfer_us(loop, wire);
    if (l_.min_group > 1 && switch_alg() > 0)
      fill.switch_us = nvls_fill_loops(Collective::allreduce) * transfer_us(loop, switch_alg());
    return fill;
  }

  // NCCL's latency of (a, p): a network step adds the route's link
  // latencies to NCCL's NET row, or, with `tuner` (what NCCL chooses by),
  // the latency the network plugin reports (net_latency_: its graph's
  // latencyInter, 0 on InfiniBand, 75 us from aws-ofi-nccl on p4d and p5).
  // On AMD GPUs the tuner's are RCCL's tables; with `physical`, the network
  // steps take NCCL's NET row instead, since RCCL's NET row steers RCCL's
  // choice rather than timing a step (Ring/Simple 320 us a step, against 14
  // in NCCL's table and a few us of wire; rccl::kHwLatency), and the link
  // model prices the chosen algorithm by what a step costs.
  double latency(Algorithm a, Protocol p, Collective op, double s, bool inside = false, bool physical = false,
                 bool tuner = false, int batches = 0) const {
    const double n = l_.n;
    const double groups = inside ? 1 : l_.groups;
    if (p == Protocol::scheduled) {
      // Compiler-scheduled chains: every step waits for the slowest hop.
      const double step = std::max(l_.lpu_step_us, l_.groups > 1 && !inside ? l_.route_latency : 0.0);
      switch (op) {
        case Collective::allreduce: return 2 * (n - 1) * step;
        case Collective::allgather:
        case Collective::reducescatter:
        case Collective::alltoall: return (n - 1) * step;
        case Collective::broadcast:
        case Collective::reduce: return l_.lpu_chain_us;
        case Collective::sendrecv: return step;
      }
      return 0;
    }
    const auto proto = static_cast<std::size_t>(tuner_proto(p));
    const auto intra_hw = static_cast<std::size_t>(l_.all_scale_up ? nccl::kNvlink : nccl::kPci);
    const bool multi = groups > 1;
    const bool between_nodes = multi && !l_.single_node;
    auto inter = [&](int algo) {
      const auto al = static_cast<std::size_t>(algo);
      const bool rccl_row = amd() && al <= static_cast<std::size_t>(nccl::kRing);
      if (!between_nodes) return rccl_row ? rccl::kHwLatency[nccl::kPci][al][proto] : nccl::kHwLatency[nccl::kPci][al][proto];
      const bool rccl_net = rccl_row && !physical;
      // One GPU per node exposes the network latency fully: NCCL takes Tree's.
      const auto row = l_.max_group == 1 ? static_cast<std::size_t>(nccl::kTree) : al;
      double net = rccl_net ? rccl::kHwLatency[nccl::kNet][row][proto] : nccl::kHwLatency[nccl::kNet][row][proto];
      if (row == static_cast<std::size_t>(nccl::kNvlsTree)) net = tt_.nvlstree_net_latency;
      return net + (tuner ? net_latency_ : l_.route_latency) * (proto == kSimple ? 2 : 1);
    };
    const auto ring = static_cast<std::size_t>(nccl::kRing);
    const auto tree = static_cast<std::size_t>(nccl::kTree);
    // NCCL's tables, or RCCL's (Tree and Ring only) on AMD GPUs.
    auto base = [&](std::size_t algo) {
      return amd() && algo <= ring ? rccl::kBaseLatency[algo][proto] : nccl::kBaseLatency[algo][proto];
    };
    // A step between GPUs of a multi-node NVLink domain takes longer than
    // NCCL's row says (nccl::kMultiHostNvlinkStepUs); NCCL's estimate does
    // not know it.
    const double mnnvl_step = !tuner && l_.group_spans_hosts && intra_hw == static_cast<std::size_t>(nccl::kNvlink)
                                  ? nccl::kMultiHostNvlinkStepUs
                                  : 0.0;
    auto hw = [&](std::size_t row, std::size_t algo) {
      const double step =
          amd() && algo <= ring ? rccl::kHwLatency[row][algo][proto] : nccl::kHwLatency[row][algo][proto];
      return row == intra_hw ? step + mnnvl_step : step;
    };
    // An all-to-all's steps in turn: `batches` when given, else NCCL's.
    auto waves = [&] { return batches > 0 ? static_cast<double>(batches) : p2p_batches(op, l_.groups); };
    switch (a) {
      case Algorithm::ring: {
        if (op == Collective::broadcast || op == Collective::reduce)
          return base(ring) + (n - groups) * hw(intra_hw, ring) +
                 (groups - 1) * inter(nccl::kRing);
        const bool ar = op == Collective::allreduce;
        const double steps = ar ? 2 * (n - 1) : n - 1;
        const double inter_steps = multi ? (ar ? 2 * (groups - 1) : groups - 1) : 0;
        double intra = hw(intra_hw, ring);
        if (between_nodes) intra = std::max(intra, nccl::net_overhead(l_.amd_host, static_cast<int>(proto)));
        double lat = base(ring) + (steps - inter_steps) * intra + inter_steps * inter(nccl::kRing);
        // NCCL's estimate makes a Simple ring across nodes 1.4 times as
        // slow to start ("plateau effect of ring", ncclTopoGetAlgoTime): a
        // rule of its choice. The steps do not pay it: the ramp (eta) is
        // the model's mid-size slowness, and measured rings start sooner
        // than either (what their 1 GiB and 8-16 GiB points put before the
        // bandwidth: 130-145 us on 4 H100 nodes over InfiniBand, a91-a93
        // and a218-a219, against 286 here and 401 with the 1.4; 320 on 4
        // p6-b200 over EFA, a310-a315, against 547 and 766).
        if (tuner && ar && proto == kSimple && between_nodes && s / (ring_.channels * n) >= 64)
          lat *= l_.generation == Generation::volta ? nccl::kRingPlateauVolta : nccl::kRingPlateau;
        return lat;
      }
      case Algorithm::tree:
        return base(tree) +
               2 * ((l_.max_group - 1) * hw(intra_hw, tree) +
                    nccl::log2i(static_cast<std::uint32_t>(groups)) * inter(nccl::kTree));
      case Algorithm::nvls:
        // With SHARP, one network traversal: the switches' tree is not NCCL's.
        return nccl::kHwLatency[nccl::kNvlink][nccl::kNvls][kSimple] + (multi ? inter(nccl::kNvls) : 0.0);
      case Algorithm::nvlstree:
        return nccl::kHwLatency[nccl::kNvlink][nccl::kNvlsTree][kSimple] +
               2 * nccl::log2i(static_cast<std::uint32_t>(groups)) * inter(nccl::kNvlsTree);
      case Algorithm::hierarchical: {
        const double b = base(ring);
        const double h = hw(intra_hw, ring);
        const double g = l_.max_group;
        if (op == Collective::alltoall) return b + h + (multi ? waves() * inter(nccl::kRing) : 0.0);
        const double inter_steps = op == Collective::allreduce ? 2 * (groups - 1) : groups - 1;
        const double intra_phases = op == Collective::allreduce ? 2 : 1;
        return (intra_phases + 1) * b + intra_phases * (g - 1) * h + inter_steps * inter(nccl::kRing);
      }
      case Algorithm::p2p:
        return base(ring) + waves() * (multi ? inter(nccl::kRing) : hw(intra_hw, ring));
      case Algorithm::allpairs:
        // One launch and two hops (to the peers and back), at RCCL's rates
        // for a step over xGMI: 13.6 us for LL, 21.2 for Simple.
        return base(ring) + 2 * hw(intra_hw, ring);
      case Algorithm::automatic: break;
    }
    return 0;
  }

  // The ramp's unit (nccl::ramp_efficiency): a protocol buffer for rings and
  // trees. NVLS and NVLSTree have none: they walk the buffer in loops of
  // NCCL's chunk on every channel of every head, and the first loop's fill
  // (nvls_fill_us, nvlstree_fill) is their size dependence.
  double pipeline_unit(Algorithm a, int proto) const {
    if (a == Algorithm::nvls || a == Algorithm::nvlstree) return 0;
    return nccl::protocol_buffer(proto, simple_buffer_);
  }

  double nvls_efficiency() const { return nccl::kNvlsEfficiency[static_cast<std::size_t>(l_.arch)]; }
  bool amd() const { return l_.generation == Generation::cdna; }
  std::size_t column() const { return static_cast<std::size_t>(nccl::nodes_column(l_.groups)); }

  // What of a ring's traffic a GPU sends over its scale-up links: across
  // groups of AMD GPUs that each have a NIC of their own, RCCL's rings leave
  // a group by all its GPUs, and each GPU hands 1 / g of them to its NIC
  // instead of a peer (the graph's share, nccl::ring_forward_share); else
  // (and priced inside the groups) all of it. NCCL's search tries one GPU
  // order for all channels first (sameChannels), and keeps one for most even
  // where they take different NICs (NVIDIA/nccl#601's log: three of four
  // channels through four NICs in one order): the GPUs ahead of the last
  // forward all of them.
  double ring_local_share(bool inside) const { return inside ? 1.0 : ring_share_; }

  // The NICs a ring or tree graph's channels use in a group: one per
  // channel, at most all of them.
  double graph_nics() const { return std::min<double>(ring_.channels, l_.nics_min); }

  // What a ring or tree graph's channels take out of a group through their
  // NICs (NCCL spreads channels over NICs).
  double graph_egress() const {
    return std::min(l_.island_bw, graph_nics() * l_.nic_mean_min);
  }
  // NVLSTree's network tree runs through its heads' NICs.
  double heads_egress() const {
    return std::min(l_.island_bw, std::min<double>(nvls_.heads, l_.nics_min) * l_.nic_mean_min);
  }
  // The NVLS tier, which carries `share` bytes over a head's links per byte
  // of the buffer: the switch links at nvlsEfficiency, at most what NCCL's
  // NVLS channels (CTAs) move. A channel walks its part of the buffer (its
  // scatter and gather warps copy every byte of it, all_reduce.h) whatever
  // the head count, so the channels bound the buffer's bytes, and the
  // head's share of extra link bytes costs only on the links. Across
  // domains NCCL gives NVLS more channels (32 against 24 on one Blackwell
  // domain), but NVLSTree's channels also run the network tree's sends and
  // receives: the switch side moves no more than one domain's channels do,
  // so spanning more domains never speeds it. The 24 channels of one domain
  // are its ceiling in every release: before 2.27.3 NCCL launched 32 there,
  // and CoreWeave's rack on 2.25.1 (a1-a5) runs no faster for them; their
  // longer loops cost fill (nvls_fill_us). With `tree`, NVLSTree's channels,
  // whose CTAs give fewer warps to the copies, walk kNvlsTreeChannelShare of
  // a domain's pace each: 32 channels 434 GB/s against a domain's 456, the
  // 24 of NCCL 2.30's launch over four domains and more (nvls_channels) 326.
  // Blackwell only, whose channel rate is known: on Hopper the links bind
  // one domain and NCCL's per-channel NVLSTree cap binds two nodes
  // (physical_us), so its channels' pace is never seen.
  double nvls_bw(double share, bool tree = false) const {
    const int one_domain = nccl::nvls_channels(l_.arch, 1, 0, 0);
    double channels = std::min(nvls_channels_, one_domain) * nccl::kNvlsChannelBw;
    if (tree && l_.generation == Generation::blackwell)
      channels = std::min(channels, nvls_channels_ * nccl::kNvlsChannelBw * nccl::kNvlsTreeChannelShare);
    return std::min(l_.switch_bw * nvls_efficiency(), share * channels);
  }

 private:
  const Layout& l_;
  bool ramp_;
  // The run's NCCL release's tuner tables: what NCCL chooses by. Limits
  // the link model takes from NCCL's per-channel caps are the newest's.
  const nccl::TunerTables& tt_;
  double simple_buffer_;
  double net_latency_;
  bool nccl_sends_;    // CollectiveQuery::nccl_sends
  int comm_channels_;  // the communicator's channels: the ring graph's doubled, within the bounds (ChannelBounds)
  nccl::GraphEstimate ring_;
  double ring_share_;
  double tree_intra_;
  nccl::NvlsGraph nvls_;
  int nvls_channels_;
};

// The ranks of the one-island reference: as many as the job's, at most the
// largest island it touches.
std::uint32_t one_island_ranks(const Layout& layout) {
  return std::min(layout.n, std::max(layout.island_capacity, layout.max_group));
}

// Prices a query on its layout into `out`: every supported algorithm and
// protocol (or the requested algorithm's protocols), choosing as NCCL's tuner
// does (its own estimate) and timing the choice with the link model.
// `one_island_us` (when >= 0) is the reference outside_us is measured from.
void price_layout(const Layout& layout, const GraphEntry& graphs, const CollectiveQuery& query, const PriceSettings& ps,
                  CollectiveCost& out, bool candidates = true, double one_island_us = -1) {
  // Reset field by field: the tier and candidate arrays are only read up to
  // their counts, and clearing them would dominate the cost of small queries.
  out.latency_us = 0;
  out.time_us = 0;
  out.outside_us = 0;
  out.one_island_us = 0;
  out.one_island_ranks = 0;
  out.algbw_gbps = 0;
  out.busbw_gbps = 0;
  out.gpus_per_thread = 1;
  out.serial_launch_us = 0;
  out.reachable = true;
  out.bottleneck = kNone;
  out.tier_count = 0;
  out.candidate_count = 0;
  out.nvls_channels = 0;
  out.nvls_heads = 0;
  out.nvls_chunk_bytes = 0;
  out.network_channels = 0;
  out.network_channels_us = 0;
  out.send_channels = 0;
  out.send_channels_per_peer = 0;
  out.fill_us = 0;
  out.transfer_us = 0;
  out.tiers_us = 0;
  out.nvlstree_cap_gbps = 0;
  out.p2p_batches = 0;
  out.p2p_batch_us = 0;
  out.op = query.op;
  out.bytes = query.bytes;
  out.ranks = layout.n;
  out.islands = layout.groups;
  out.nodes = layout.nodes;
  out.scale_up = layout.all_scale_up;
  out.generation = layout.generation;
  out.forced = query.algorithm != Algorithm::automatic;
  Pricer pricer(layout, graphs, ps, query.nccl_sends);
  const double s = static_cast<double>(query.bytes);

  if (query.algorithm != Algorithm::automatic) {
    std::string why;
    if (!pricer.supports(query.algorithm, query.op, &why)) throw InputError({}, why);
  }
  if (layout.n == 1) {
    // One rank: NCCL returns at once (tuning: time 0 for a single rank).
    out.algorithm = query.op == Collective::alltoall || query.op == Collective::sendrecv ? Algorithm::p2p
                                                                                          : Algorithm::ring;
    if (query.algorithm != Algorithm::automatic) out.algorithm = query.algorithm;
    out.protocol = layout.lpu ? Protocol::scheduled : Protocol::simple;
    return;
  }

  SmallList<Algorithm, 7> algorithms;
  if (query.algorithm == Algorithm::automatic) {
    for (Algorithm a : pricer.automatic(query.op))
      if (query.allowed & algorithm_bit(a)) algorithms.push(a);
    if (algorithms.count == 0)
      throw InputError({}, fmt::format("none of the allowed algorithms implements {} on these ranks",
                                       collective_name(query.op)));
  } else {
    algorithms.push(query.algorithm);
  }

  // NCCL chooses by its own estimate, which needs no tiers; the link model
  // times every candidate when they are listed, else only the choice (and
  // the algorithms NCCL has no estimate for).
  TierList tiers{out.tier_data};
  Algorithm best_algorithm = algorithms.items[0];
  Protocol best_protocol = Protocol::simple;
  double best_estimate = kInf, best_time = kInf, best_latency = 0;
  std::size_t tiers_of = algorithms.count;  // whose tiers `tiers` holds
  bool have = false;
  bool msccl = false;  // RCCL's MSCCL took it ahead of the tuner
  for (std::size_t i = 0; i < algorithms.count; ++i) {
    const Algorithm a = algorithms.items[i];
    double raw_us = -1, raw_inside_us = -1;
    for (Protocol p : pricer.protocols(a, query.op, query.bytes)) {
      if ((query.protocols & protocol_bit(p)) == 0) continue;
      // NCCL chooses by its tables and the plugin's latency; the steps take
      // the route's (and on AMD GPUs NCCL's NET row, not RCCL's).
      const double step_lat = pricer.latency(a, p, query.op, s, false, pricer.amd());
      double estimate = pricer.tuner_us(a, p, query.op, s, pricer.latency(a, p, query.op, s, false, false, true));
      double time = -1;
      if (candidates || estimate < 0) {
        if (raw_us < 0) {
          pricer.tiers(a, query.op, s, tiers);
          raw_us = tiers.time_us();
          raw_inside_us = tiers.time_us(true);
          tiers_of = i;
        }
        time = pricer.physical_us(a, p, query.op, s, raw_us, step_lat, false, raw_inside_us);
        if (estimate < 0) estimate = time;
      }
      if (candidates && out.candidate_count < kMaxCandidates)
        out.candidate_data[out.candidate_count++] = {a, p, time, estimate};
      // Ties keep the first. RCCL runs an MSCCL algorithm that fits before
      // its tuner sees the collective (msccl_lifecycle.cc).
      if (!msccl && (a == Algorithm::allpairs || !have || estimate < best_estimate)) {
        have = true;
        msccl = a == Algorithm::allpairs;
        best_estimate = estimate;
        best_time = time;
        best_latency = step_lat;
        best_algorithm = a;
        best_protocol = p;
      }
    }
  }
  if (!have && query.protocols != kAllProtocols)
    throw InputError({}, fmt::format("no allowed protocol (NCCL_PROTO) runs {} on these ranks with {}",
                                     collective_name(query.op), algorithm_name(algorithms.items[0])));
  if (!have && algorithms.items[0] == Algorithm::allpairs)
    throw InputError({}, fmt::format("algorithm 'allpairs' does not run {} B: RCCL's MSCCL XML takes whole loops "
                                     "of {} 4-byte elements up to {} KiB and of {} above, up to {} MiB",
                                     query.bytes, rccl::kAllPairsFewChunks, rccl::kAllPairsFewChunksMax / 1024,
                                     rccl::kAllPairsChunks, rccl::kAllPairsSimpleMax >> 20));
  if (!have)
    throw InputError({}, fmt::format("algorithm '{}' has no protocol for {} B here: RCCL runs trees inside one "
                                     "AMD node only with LL and LL128, which it keeps to small sizes",
                                     algorithm_name(algorithms.items[0]), query.bytes));
  out.algorithm = best_algorithm;
  out.protocol = best_protocol;
  out.latency_us = best_latency;
  pricer.report_launch(best_algorithm, s, out);
  if (pricer.batched(query.op) && (best_algorithm == Algorithm::p2p || best_algorithm == Algorithm::hierarchical) &&
      best_protocol != Protocol::scheduled) {
    out.p2p_batches = static_cast<std::uint32_t>(pricer.p2p_batches(query.op, layout.groups));
    out.p2p_batch_us =
        best_latency - pricer.latency(best_algorithm, best_protocol, query.op, s, false, pricer.amd(), false, 1);
  }
  std::size_t best_index = 0;
  while (algorithms.items[best_index] != best_algorithm) ++best_index;
  if (tiers_of != best_index) pricer.tiers(best_algorithm, query.op, s, tiers);
  out.tier_count = tiers.count;
  // The choice's time where the loop did not take it, and where the
  // channels' pace through the NICs sets the transfer, which: one pricing.
  const int channels = pricer.network_channels(best_algorithm, best_protocol, false);
  const auto sends = best_algorithm == Algorithm::p2p ? pricer.send_channels(query.op, s) : Pricer::SendChannels{};
  if (best_time < 0 || channels > 0 || sends.total > 0 || Pricer::fills(best_algorithm, best_protocol)) {
    const auto parts = pricer.physical_parts(best_algorithm, best_protocol, query.op, s, tiers.time_us(), best_latency,
                                             false, tiers.time_us(true));
    if (best_time < 0) best_time = parts.total();
    if (channels > 0 && parts.channels_us > parts.links_us) {
      out.network_channels = static_cast<std::uint32_t>(channels);
      out.network_channels_us = parts.channels_us;
    }
    if (sends.total > 0 && parts.send_channels_bind) {
      out.send_channels = static_cast<std::uint32_t>(sends.total);
      out.send_channels_per_peer = static_cast<std::uint32_t>(sends.per_peer);
    }
    out.fill_us = parts.fill_us;
    if (parts.head_cap > 0 && parts.links_us >= parts.channels_us) out.nvlstree_cap_gbps = parts.head_cap;
  }
  Priced best_priced;
  best_priced.time_us = best_time;
  best_priced.latency_us = best_latency;
  // What the choice would cost if leaving the groups were free: its inside
  // tiers, no network latency (the reference where no one-island time is).
  double inside_us = 0;
  if (layout.groups > 1 && one_island_us < 0 && best_priced.time_us < kInf) {
    const double lat = pricer.latency(best_algorithm, best_protocol, query.op, s, true);
    inside_us = pricer.physical_us(best_algorithm, best_protocol, query.op, s, tiers.time_us(true), lat, true);
  }
  if (!(best_priced.time_us < kInf)) {
    out.reachable = false;
    out.time_us = kInf;
    for (std::uint32_t i = 0; i < out.tier_count; ++i)
      if (!(out.tier_data[i].time_us < kInf)) out.bottleneck = i;
    return;
  }
  out.time_us = best_priced.time_us;
  // The rest of the time beside the latency and the fill: the tiers'
  // bytes at the protocol's rate and the size ramp, or at the pace of the
  // channels or heads that bind.
  out.tiers_us = tiers.time_us();
  out.transfer_us = std::max(0.0, out.time_us - out.latency_us - out.fill_us);
  if (layout.groups > 1) {
    if (one_island_us >= 0) {
      out.one_island_us = one_island_us;
      out.one_island_ranks = one_island_ranks(layout);
      inside_us = one_island_us;
    }
    out.outside_us = std::max(0.0, out.time_us - std::min(inside_us, out.time_us));
  }
  out.algbw_gbps = s / (out.time_us * 1e3);
  out.busbw_gbps = out.algbw_gbps * bus_factor(query.op, layout.n);
  if (transfer_bound(out.time_us, out.latency_us)) out.bottleneck = tiers.worst();
}

// The same query inside one island of the same kind (one NCCL node: its
// graphs, channels, latencies), the algorithm chosen afresh among the allowed
// ones: what the collective costs when it crosses no island boundary. On as
// many ranks when the largest island it touches would hold them; else on a
// full island, the same buffer (an island of 1,440 GPUs does not exist, and a
// ring through one would pay 2,878 steps no real job does). -1 inside one
// island, for all-to-all and sendrecv (whose one-island traffic needs
// another layout), and where no allowed algorithm runs on one island.
double one_island_us(CostModel::Scratch& s, const Layout& layout, const CollectiveQuery& query,
                     const PriceSettings& ps) {
  if (layout.groups < 2 || query.op == Collective::alltoall || query.op == Collective::sendrecv) return -1;
  Layout one = layout;
  one.groups = 1;
  one.n = one_island_ranks(layout);
  one.min_group = one.max_group = one.n;
  one.level_count = 0;
  CollectiveQuery q = query;
  q.algorithm = Algorithm::automatic;
  const GraphEntry& graphs = graphs_of(s, one);
  bool any = false;
  for (Algorithm a : Pricer(one, graphs, ps).automatic(q.op)) any = any || (q.allowed & algorithm_bit(a)) != 0;
  if (!any) return -1;
  CollectiveCost ref;
  price_layout(one, graphs, q, ps, ref, false);
  return ref.reachable ? ref.time_us : -1;
}

// Copies a result without its candidates (none are listed without them).
void copy_result(const CollectiveCost& from, CollectiveCost& to) {
  to.op = from.op;
  to.bytes = from.bytes;
  to.ranks = from.ranks;
  to.islands = from.islands;
  to.nodes = from.nodes;
  to.generation = from.generation;
  to.algorithm = from.algorithm;
  to.protocol = from.protocol;
  to.forced = from.forced;
  to.reachable = from.reachable;
  to.scale_up = from.scale_up;
  to.time_us = from.time_us;
  to.latency_us = from.latency_us;
  to.outside_us = from.outside_us;
  to.one_island_us = from.one_island_us;
  to.one_island_ranks = from.one_island_ranks;
  to.algbw_gbps = from.algbw_gbps;
  to.busbw_gbps = from.busbw_gbps;
  to.bottleneck = from.bottleneck;
  to.network_channels = from.network_channels;
  to.network_channels_us = from.network_channels_us;
  to.send_channels = from.send_channels;
  to.send_channels_per_peer = from.send_channels_per_peer;
  to.fill_us = from.fill_us;
  to.transfer_us = from.transfer_us;
  to.tiers_us = from.tiers_us;
  to.nvlstree_cap_gbps = from.nvlstree_cap_gbps;
  to.p2p_batches = from.p2p_batches;
  to.p2p_batch_us = from.p2p_batch_us;
  to.tier_count = from.tier_count;
  std::copy_n(from.tier_data.begin(), from.tier_count, to.tier_data.begin());
  to.candidate_count = 0;
}

// price_layout without candidates, for the groups of a step, which are mostly
// alike: a query whose layout has the figures of the last one (wherever its
// ranks lie) and the same operation costs the same. Only where its tiers lie
// is worked out again.
void price_layout_alike(CostModel::Scratch& s, const Layout& layout, const CollectiveQuery& query,
                        const PriceSettings& ps, CollectiveCost& out) {
  auto& m = s.memo;
  if (m.valid && m.op == query.op && m.bytes == query.bytes && m.algorithm == query.algorithm &&
      m.allowed == query.allowed && m.protocols == query.protocols && m.nccl_sends == query.nccl_sends &&
      same_figures(layout, m.layout)) {
    copy_result(m.cost, out);
    if (out.tier_count > 0) {
      TierList tiers{out.tier_data};
      Pricer(layout, m.graphs, ps).tiers(out.algorithm, query.op, static_cast<double>(query.bytes), tiers);
    }
    return;
  }
  m.valid = false;
  const double one = one_island_us(s, layout, query, ps);
  m.graphs = graphs_of(s, layout);
  price_layout(layout, m.graphs, query, ps, out, false, one);
  m.layout = layout;
  std::copy_n(layout.levels, layout.level_count, m.levels.begin());
  m.layout.levels = m.levels.data();
  m.op = query.op;
  m.bytes = query.bytes;
  m.algorithm = query.algorithm;
  m.allowed = query.allowed;
  m.protocols = query.protocols;
  m.nccl_sends = query.nccl_sends;
  copy_result(out, m.cost);
  m.valid = true;
}

void price_query(CostModel::Scratch& s, const Layout& layout, const CollectiveQuery& query, const PriceSettings& ps,
                 CollectiveCost& out, bool candidates) {
  if (candidates) {
    // First: the reference's graphs may take the slot of the layout's.
    const double one = one_island_us(s, layout, query, ps);
    price_layout(layout, graphs_of(s, layout), query, ps, out, true, one);
  } else {
    price_layout_alike(s, layout, query, ps, out);
  }
}

}  // namespace

bool is_outside(Tier tier) { return tier == Tier::nic || tier == Tier::island || tier == Tier::level; }

std::string_view tier_name(Tier tier) {
  switch (tier) {
    case Tier::scale_up: return "scale-up";
    case Tier::pcie: return "pcie";
    case Tier::socket: return "cpu-link";
    case Tier::nic: return "nic";
    case Tier::island: return "island";
    case Tier::level: return "level";
  }
  return "?";
}

PriceSettings CostModel::price_settings() const {
  const NcclEnvironment& env = topology().nccl_environment();
  PriceSettings ps;
  ps.ramp = options_.size_efficiency;
  ps.tables = tables_;
  if (env.simple_buffer_bytes) ps.simple_buffer = static_cast<double>(*env.simple_buffer_bytes);
  ps.net_latency = env.net_latency_us.value_or(0.0);
  ps.channels = {.min_channels = env.min_channels.value_or(0),
                 .max_channels = env.max_channels.value_or(0),
                 .min_ctas = env.min_ctas.value_or(0),
                 .max_ctas = env.max_ctas.value_or(0),
                 .nvls_channels = env.nvls_channels.value_or(0)};
  return ps;
}

CostModel::CostModel(const Topology& topology, const CostModelOptions& options)
    : fabric_(topology), options_(options), scratch_(std::make_unique<Scratch>(fabric_)) {
  nccl_version_ = options.nccl_version ? options.nccl_version : topology.nccl_environment().version;
  tables_ = &nccl::tuner_tables(nccl_version_);
  // NCCL_ALGO's names kNcclAlgorithmNames[0..3] are the model's ring, tree,
  // nvls and nvlstree; the model has no CollNet or PAT to rule out, and its
  // hierarchical and p2p paths are not NCCL_ALGO algorithms.
  const NcclEnvironment& env = topology.nccl_environment();
  constexpr std::array<Algorithm, 4> kNamed = {Algorithm::ring, Algorithm::tree, Algorithm::nvls, Algorithm::nvlstree};
  for (std::size_t i = 0; i < kNamed.size(); ++i)
    if (!env.allows_algorithm(i))
      env_algorithms_ = static_cast<AlgorithmSet>(env_algorithms_ & ~algorithm_bit(kNamed[i]));
  constexpr std::array<Protocol, 3> kProtocols = {Protocol::ll, Protocol::ll128, Protocol::simple};
  for (std::size_t i = 0; i < kProtocols.size(); ++i)
    if (!env.allows_protocol(i))
      env_protocols_ = static_cast<ProtocolSet>(env_protocols_ & ~protocol_bit(kProtocols[i]));
}

CollectiveQuery CostModel::in_environment(const CollectiveQuery& query) const {
  CollectiveQuery q = query;
  q.allowed = static_cast<AlgorithmSet>(q.allowed & env_algorithms_);
  q.protocols = static_cast<ProtocolSet>(q.protocols & env_protocols_);
  if (q.algorithm != Algorithm::automatic && (env_algorithms_ & algorithm_bit(q.algorithm)) == 0) {
    // Point at the setting that rules it out: NCCL_NVLS_ENABLE=0 for the
    // NVLS algorithms where it is given, else NCCL_ALGO.
    const NcclEnvironment& env = topology().nccl_environment();
    const bool nvls = q.algorithm == Algorithm::nvls || q.algorithm == Algorithm::nvlstree;
    SourceLocation where;
    for (const NcclSetting& setting : env.settings)
      if ((nvls && setting.name == "NCCL_NVLS_ENABLE" && setting.value == "0") ||
          (setting.name == "NCCL_ALGO" && where.file.empty()))
        where = setting.where;
    throw InputError(where, fmt::format("the NCCL environment ({}) rules out algorithm '{}'", env.describe(),
                                        algorithm_name(q.algorithm)));
  }
  return q;
}
CostModel::~CostModel() = default;
CostModel::CostModel(CostModel&&) noexcept = default;
CostModel& CostModel::operator=(CostModel&&) noexcept = default;

CollectiveCost CostModel::collective(const CollectiveQuery& request) const {
  const CollectiveQuery query = in_environment(request);
  if (query.bytes == 0) throw InputError({}, "the size of a collective must be at least one byte");
  const Layout& layout = analyse(*scratch_, fabric_, query.ranks, family_of(query.op), nullptr);
  CollectiveCost out;
  const PriceSettings ps = price_settings();
  const double one = one_island_us(*scratch_, layout, query, ps);
  price_layout(layout, graphs_of(*scratch_, layout), query, ps, out, true, one);
  return out;
}

std::vector<CollectiveCost> CostModel::sweep(const CollectiveQuery& query, std::uint64_t from,
                                             std::uint64_t to) const {
  if (from == 0) throw InputError({}, "a sweep must start at one byte or more");
  if (from > to) throw InputError({}, fmt::format("a sweep must not end ({} B) below its start ({} B)", to, from));
  const Layout& layout = analyse(*scratch_, fabric_, query.ranks, family_of(query.op), nullptr);
  std::vector<CollectiveCost> out;
  CollectiveQuery q = in_environment(query);
  const PriceSettings ps = price_settings();
  for (std::uint64_t size = from; size <= to; size *= 2) {
    q.bytes = size;
    const double one = one_island_us(*scratch_, layout, q, ps);
    price_layout(layout, graphs_of(*scratch_, layout), q, ps, out.emplace_back(), true, one);
    if (size > to / 2) break;
  }
  return out;
}

void CostModel::concurrent(std::span<const CollectiveQuery> queries,
                           const std::function<void(std::size_t, const CollectiveCost&)>& result) const {
  price_concurrent(queries, result, true);
}

void CostModel::price_concurrent(std::span<const CollectiveQuery> queries,
                                 const std::function<void(std::size_t, const CollectiveCost&)>& result,
                                 bool candidates) const {
  Scratch& s = *scratch_;
  CollectiveCost cost;
  const PriceSettings ps = price_settings();
  // Pass 1: every query's flows out of every domain. Queries that leave no
  // domain share nothing and are priced at once.
  s.begin_totals();
  s.pending.clear();
  s.shares.clear();
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const CollectiveQuery q = in_environment(queries[i]);
    if (q.bytes == 0) throw InputError({}, "the size of a collective must be at least one byte");
    const Layout& layout = analyse(s, fabric_, q.ranks, family_of(q.op), nullptr);
    if (s.weights.empty()) {
      price_query(s, layout, q, ps, cost, candidates);
      result(i, cost);
      continue;
    }
    const auto index = static_cast<std::uint32_t>(s.pending.size());
    for (const auto& [domain, flows] : s.weights)
      s.shares.push_back({domain, index, flows, flows * static_cast<double>(q.bytes), 0});
    s.pending.push_back(i);
  }
  // Processor sharing of every domain's egress: flows share it equally while
  // they run, so a query that pushes x bytes through a domain finishes after
  // sum_j min(x, x_j) bytes have gone through: it is slowed in proportion to
  // what the others push while it runs, not by their number. As a share of
  // its flows: total = sum_j min(x, x_j) / (x / flows).
  std::sort(s.shares.begin(), s.shares.end(), [](const Scratch::Share& a, const Scratch::Share& b) {
    return a.domain != b.domain ? a.domain < b.domain : a.bytes != b.bytes ? a.bytes < b.bytes : a.query < b.query;
  });
  for (std::size_t begin = 0; begin < s.shares.size();) {
    std::size_t end = begin;
    while (end < s.shares.size() && s.shares[end].domain == s.shares[begin].domain) ++end;
    double smaller = 0;
    for (std::size_t k = begin; k < end; ++k) {
      Scratch::Share& sh = s.shares[k];
      const double pushed = smaller + static_cast<double>(end - k) * sh.bytes;
      sh.total = sh.bytes > 0 ? pushed / (sh.bytes / sh.flows) : sh.flows;
      smaller += sh.bytes;
    }
    begin = end;
  }
  std::stable_sort(s.shares.begin(), s.shares.end(),
                   [](const Scratch::Share& a, const Scratch::Share& b) { return a.query < b.query; });
  // Pass 2: price the others with their share of every domain's egress.
  std::size_t next = 0;
  for (std::uint32_t k = 0; k < s.pending.size(); ++k) {
    const std::size_t first = next;
    for (; next < s.shares.size() && s.shares[next].query == k; ++next) {
      const DomainId d = s.shares[next].domain;
      if (s.totals[d] == 0) s.totals_touched.push_back(d);
      s.totals[d] = s.shares[next].total;
    }
    const CollectiveQuery q = in_environment(queries[s.pending[k]]);
    const Layout& layout = analyse(s, fabric_, q.ranks, family_of(q.op), &s.totals);
    price_query(s, layout, q, ps, cost, candidates);
    result(s.pending[k], cost);
    for (std::size_t m = first; m < next; ++m) s.totals[s.shares[m].domain] = 0;
  }
  s.end_totals();
}

std::vector<CollectiveCost> CostModel::concurrent(std::span<const CollectiveQuery> queries) const {
  std::vector<CollectiveCost> out(queries.size());
  concurrent(queries, [&](std::size_t i, const CollectiveCost& c) { out[i] = c; });
  return out;
}

}  // namespace topoplan
