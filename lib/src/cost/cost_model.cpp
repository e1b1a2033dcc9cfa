#include "topoplan/cost/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "cost/placement_layout.hpp"
#include "topoplan/cost/nccl_tuning.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

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
  double time_us() const {
    double total = 0;
    for (std::uint8_t p = 0; p < phases; ++p) {
      double worst = 0;
      for (std::uint32_t i = 0; i < count; ++i)
        if (items[i].phase == p) worst = std::max(worst, items[i].time_us);
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
  double time_us = kInf;
  double latency_us = 0;
};

class Pricer {
 public:
  Pricer(const Layout& layout, bool ramp) : l_(layout), ramp_(ramp) {}

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
        if (!tree && l_.groups > 1) {
          if (why)
            *why = fmt::format(
                "algorithm 'nvls' runs inside one NVLink domain and these ranks span {}; NVLS across domains "
                "needs SHARP/CollNet, which topologies do not declare; try nvlstree",
                l_.groups);
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
    }
    return true;
  }

  // NCCL's algorithms for `op` that the hardware supports, in a fixed order.
  SmallList<Algorithm, 6> automatic(Collective op) const {
    SmallList<Algorithm, 6> out;
    constexpr std::array<Algorithm, 6> kOrder = {Algorithm::ring, Algorithm::tree, Algorithm::nvls,
                                                 Algorithm::nvlstree, Algorithm::p2p, Algorithm::hierarchical};
    for (Algorithm a : kOrder) {
      if (!supports(a, op)) continue;
      // Hierarchical all-reduce/-gather is not one of NCCL's algorithms; for
      // alltoall it is NCCL's default PXN path.
      if (a == Algorithm::hierarchical && op != Collective::alltoall) continue;
      out.push(a);
    }
    return out;
  }

  SmallList<Protocol, 3> protocols(Algorithm a) const {
    SmallList<Protocol, 3> out;
    if (l_.lpu) {
      out.push(Protocol::scheduled);
      return out;
    }
    switch (a) {
      case Algorithm::ring:
      case Algorithm::tree:
        out.push(Protocol::ll);
        if (l_.ll128) out.push(Protocol::ll128);
        out.push(Protocol::simple);
        break;
      case Algorithm::p2p:
        out.push(Protocol::ll);
        out.push(Protocol::simple);
        break;
      default: out.push(Protocol::simple); break;
    }
    return out;
  }

  // Fills `t` with the tiers algorithm `a` loads for a collective of `s` bytes.
  void tiers(Algorithm a, Collective op, double s, TierList& t) const {
    t.count = 0;
    t.phases = 1;
    const double n = l_.n;
    const double groups = l_.groups;
    const Tier local = l_.local_pcie ? Tier::pcie : Tier::scale_up;
    auto add_levels_ring = [&](std::uint8_t phase, double bytes_per_crossing) {
      for (std::uint32_t i = 0; i < l_.level_count; ++i) {
        const LevelLoad& lv = l_.levels[i];
        if (lv.ring_crossings > 0)
          t.add(Tier::level, lv.level, lv.ring_where, phase, bytes_per_crossing * lv.ring_crossings, lv.ring_cap);
      }
    };
    auto add_levels_a2a = [&](std::uint8_t phase) {
      for (std::uint32_t i = 0; i < l_.level_count; ++i) {
        const LevelLoad& lv = l_.levels[i];
        if (lv.a2a_factor > 0) t.add(Tier::level, lv.level, lv.a2a_where, phase, lv.a2a_factor * s, lv.a2a_cap);
      }
    };
    auto add_socket = [&](std::uint8_t phase, double bytes) {
      if (l_.socket_where != kNone) t.add(Tier::socket, kNone, l_.socket_where, phase, bytes, l_.socket_bw);
    };
    auto add_island = [&](std::uint8_t phase, double bytes) {
      if (l_.groups > 1) t.add(Tier::island, l_.island_level, l_.island_where, phase, bytes, l_.island_bw);
    };
    switch (a) {
      case Algorithm::ring: {
        const double f = (op == Collective::broadcast || op == Collective::reduce) ? 1.0 : bus_factor(op, l_.n);
        if (l_.max_group > 1) t.add(local, kNone, l_.local_where, 0, f * s, l_.local_bw);
        add_socket(0, f * s);
        add_island(0, f * s);
        add_levels_ring(0, f * s);
        break;
      }
      case Algorithm::tree: {
        const double across = l_.groups == 2 ? 1.0 : 2.0;
        if (l_.max_group > 1) t.add(local, kNone, l_.local_where, 0, 2 * s, l_.local_bw);
        add_socket(0, 2 * s);
        add_island(0, across * s);
        add_levels_ring(0, across * s);
        break;
      }
      case Algorithm::nvls: {
        const double factor = op == Collective::allreduce ? (n + 1) / n : 1.0;
        t.add(Tier::scale_up, kNone, l_.switch_where, 0, factor * s, l_.switch_bw * nvls_efficiency(), true);
        break;
      }
      case Algorithm::nvlstree: {
        const double g = l_.min_group;
        const double across = l_.groups == 2 ? 1.0 : 2.0;
        if (g > 1) t.add(Tier::scale_up, kNone, l_.switch_where, 0, (g + 1) / g * s, l_.switch_bw * nvls_efficiency(), true);
        add_island(0, across * s);
        add_levels_ring(0, across * s);
        break;
      }
      case Algorithm::hierarchical: {
        const double gmax = l_.max_group;
        const double gmin = l_.min_group;
        if (op == Collective::alltoall) {
          t.add(local, kNone, l_.a2a_fwd_where, 0, l_.a2a_fwd_factor * s, l_.a2a_fwd_bw);
          t.add(Tier::nic, kNone, l_.a2a_nic_where, 0, l_.a2a_nic_factor * s, l_.a2a_nic_bw);
          t.add(Tier::island, l_.island_level, l_.a2a_island_where, 0, l_.a2a_island_factor * s, l_.a2a_island_bw);
          add_levels_a2a(0);
          break;
        }
        const double inter = op == Collective::allreduce ? 2 * (groups - 1) / groups : (groups - 1) / groups;
        std::uint8_t phase = 0;
        if (op != Collective::allgather) {  // intra-island reduce-scatter first
          if (gmax > 1) t.add(local, kNone, l_.local_where, phase, (gmax - 1) / gmax * s, l_.local_bw);
          ++phase;
        }
        t.add(Tier::nic, kNone, l_.nic_where, phase, inter * s / gmin, l_.nic_bw);
        add_island(phase, inter * s);
        add_levels_ring(phase, inter * s);
        ++phase;
        if (op != Collective::reducescatter && gmax > 1)  // intra-island all-gather last
          t.add(local, kNone, l_.local_where, phase, (gmax - 1) / gmax * s, l_.local_bw);
        break;
      }
      case Algorithm::p2p: {
        if (op == Collective::sendrecv) {
          t.add(l_.pair_tier, kNone, l_.pair_where, 0, s, l_.pair_bw);
          for (std::uint32_t i = 0; i < l_.level_count; ++i) {
            const LevelLoad& lv = l_.levels[i];
            if (lv.p2p_flows > 0) t.add(Tier::level, lv.level, lv.p2p_where, 0, s * lv.p2p_flows, lv.p2p_cap);
          }
          break;
        }
        t.add(local, kNone, l_.a2a_local_where, 0, l_.a2a_local_factor * s, l_.a2a_local_bw);
        t.add(Tier::nic, kNone, l_.a2a_nic_where, 0, l_.a2a_nic_factor * s, l_.a2a_nic_bw);
        t.add(Tier::island, l_.island_level, l_.a2a_island_where, 0, l_.a2a_island_factor * s, l_.a2a_island_bw);
        add_levels_a2a(0);
        break;
      }
      case Algorithm::automatic: break;
    }
  }

  // NCCL's busBw normalisation of an algorithm (tuning.cc): algBw times this.
  double nccl_norm(Algorithm a, Collective op) const {
    if (a == Algorithm::tree) return 2.0;
    if (op == Collective::broadcast || op == Collective::reduce || op == Collective::sendrecv) return 1.0;
    return bus_factor(op, l_.n);
  }

  // The time of algorithm `a` with protocol `p`, given its tiers' time at
  // full bandwidth (`raw_us`) and the channels NCCL would use.
  Priced price(Algorithm a, Protocol p, Collective op, double s, double raw_us, int channels) const {
    Priced out;
    if (!(raw_us < kInf)) return out;
    const int proto = tuner_proto(p);
    const bool multi = l_.groups > 1;
    const int col = nccl::nodes_column(l_.groups);
    const auto arch = static_cast<std::size_t>(l_.arch);
    const auto column = static_cast<std::size_t>(col);
    out.latency_us = latency(a, p, op, s, channels);

    if (p == Protocol::scheduled) {
      out.time_us = out.latency_us + raw_us;
      return out;
    }
    // Bandwidth as NCCL states it: busBw, then the protocol's rules.
    const double norm = nccl_norm(a, op);
    double bus = s / (raw_us * 1e3) * norm;
    const double llmax = nccl::ll_max_bw(l_.arch, l_.groups, l_.amd_host);
    switch (a) {
      case Algorithm::ring:
        if (p == Protocol::ll) bus = std::min(llmax, bus * nccl::kRingLLFactor);
        if (p == Protocol::ll128)
          bus = std::min(bus * nccl::kLL128Factor, channels * nccl::kPerChMaxRingLL128Bw[arch][column]);
        break;
      case Algorithm::tree:
        if (p == Protocol::simple) bus = std::min(bus * nccl::kLL128Factor, channels * nccl::kPerChMaxTreeBw[arch][column]);
        if (p == Protocol::ll) bus = std::min(bus / nccl::kTreeLLDivisor, llmax);
        if (p == Protocol::ll128)
          bus = std::min(bus * (multi ? nccl::kTreeLL128FactorMultiNode : nccl::kTreeLL128FactorOneNode),
                         channels * nccl::kPerChMaxTreeLL128Bw[arch][column]);
        break;
      case Algorithm::nvlstree: {
        const double cap = nccl::kPerChMaxNvlsTreeBw[arch][column];
        if (cap > 0) bus = std::min(bus, nccl::nvls_channels(l_.arch, multi) * cap);
        break;
      }
      case Algorithm::p2p:
        if (p == Protocol::ll) bus = std::min(llmax, bus * nccl::kRingLLFactor);
        break;
      default: break;
    }
    double alg = bus / norm;
    if (a == Algorithm::tree && op == Collective::allreduce) alg *= nccl::tree_correction(proto, static_cast<std::uint64_t>(s));
    // NVLSTree on Blackwell with x86 hosts also takes the tree correction.
    if (a == Algorithm::nvlstree && l_.generation == Generation::blackwell && !l_.arm_host)
      alg *= nccl::tree_correction(proto, static_cast<std::uint64_t>(s));
    const double eta = ramp_ ? nccl::ramp_efficiency(s, nccl::protocol_buffer(proto, l_.arm_host)) : 1.0;
    out.time_us = out.latency_us + s / (alg * 1e3) / eta;
    return out;
  }

  double latency(Algorithm a, Protocol p, Collective op, double s, int channels) const {
    const double n = l_.n;
    const double groups = l_.groups;
    if (p == Protocol::scheduled) {
      // Compiler-scheduled chains: every step waits for the slowest hop.
      const double step = std::max(l_.lpu_step_us, groups > 1 ? l_.route_latency : 0.0);
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
      if (!between_nodes) return nccl::kHwLatency[nccl::kPci][al][proto];
      return nccl::kHwLatency[nccl::kNet][al][proto] + l_.route_latency * (proto == kSimple ? 2 : 1);
    };
    const auto ring = static_cast<std::size_t>(nccl::kRing);
    const auto tree = static_cast<std::size_t>(nccl::kTree);
    switch (a) {
      case Algorithm::ring: {
        if (op == Collective::broadcast || op == Collective::reduce)
          return nccl::kBaseLatency[ring][proto] + (n - groups) * nccl::kHwLatency[intra_hw][ring][proto] +
                 (groups - 1) * inter(nccl::kRing);
        const bool ar = op == Collective::allreduce;
        const double steps = ar ? 2 * (n - 1) : n - 1;
        const double inter_steps = multi ? (ar ? 2 * (groups - 1) : groups - 1) : 0;
        double intra = nccl::kHwLatency[intra_hw][ring][proto];
        if (between_nodes) intra = std::max(intra, nccl::net_overhead(l_.amd_host, static_cast<int>(proto)));
        double lat = nccl::kBaseLatency[ring][proto] + (steps - inter_steps) * intra + inter_steps * inter(nccl::kRing);
        if (ar && proto == kSimple && between_nodes && s / (channels * n) >= 64)
          lat *= l_.generation == Generation::volta ? nccl::kRingPlateauVolta : nccl::kRingPlateau;
        return lat;
      }
      case Algorithm::tree:
        return nccl::kBaseLatency[tree][proto] +
               2 * ((l_.max_group - 1) * nccl::kHwLatency[intra_hw][tree][proto] +
                    nccl::log2i(l_.groups) * inter(nccl::kTree));
      case Algorithm::nvls:
        return nccl::kHwLatency[nccl::kNvlink][nccl::kNvls][kSimple];
      case Algorithm::nvlstree:
        return nccl::kHwLatency[nccl::kNvlink][nccl::kNvlsTree][kSimple] +
               2 * nccl::log2i(l_.groups) * inter(nccl::kNvlsTree);
      case Algorithm::hierarchical: {
        const double base = nccl::kBaseLatency[ring][proto];
        const double hw = nccl::kHwLatency[intra_hw][ring][proto];
        const double g = l_.max_group;
        if (op == Collective::alltoall) return base + hw + inter(nccl::kRing);
        const double inter_steps = op == Collective::allreduce ? 2 * (groups - 1) : groups - 1;
        const double intra_phases = op == Collective::allreduce ? 2 : 1;
        return (intra_phases + 1) * base + intra_phases * (g - 1) * hw + inter_steps * inter(nccl::kRing);
      }
      case Algorithm::p2p:
        return nccl::kBaseLatency[ring][proto] +
               (multi ? inter(nccl::kRing) : nccl::kHwLatency[intra_hw][ring][proto]);
      case Algorithm::automatic: break;
    }
    return 0;
  }

  double nvls_efficiency() const { return nccl::kNvlsEfficiency[static_cast<std::size_t>(l_.arch)]; }

 private:
  const Layout& l_;
  bool ramp_;
};

// Prices a query on its layout into `out`: every supported algorithm and
// protocol (or the requested algorithm's protocols), keeping the fastest.
void price_layout(const Layout& layout, const CollectiveQuery& query, bool ramp, CollectiveCost& out) {
  // Reset field by field: the tier and candidate arrays are only read up to
  // their counts, and clearing them would dominate the cost of small queries.
  out.latency_us = 0;
  out.time_us = 0;
  out.algbw_gbps = 0;
  out.busbw_gbps = 0;
  out.reachable = true;
  out.bottleneck = kNone;
  out.tier_count = 0;
  out.candidate_count = 0;
  out.op = query.op;
  out.bytes = query.bytes;
  out.ranks = layout.n;
  out.islands = layout.groups;
  out.nodes = layout.nodes;
  out.scale_up = layout.all_scale_up;
  out.generation = layout.generation;
  out.forced = query.algorithm != Algorithm::automatic;
  Pricer pricer(layout, ramp);
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

  SmallList<Algorithm, 6> algorithms;
  if (query.algorithm == Algorithm::automatic)
    algorithms = pricer.automatic(query.op);
  else
    algorithms.push(query.algorithm);

  TierList tiers{out.tier_data};
  Algorithm best_algorithm = algorithms.items[0];
  double best = kInf;
  Priced best_priced;
  bool have = false;
  for (std::size_t i = 0; i < algorithms.count; ++i) {
    const Algorithm a = algorithms.items[i];
    pricer.tiers(a, query.op, s, tiers);
    const double raw_us = tiers.time_us();
    const double bus = raw_us > 0 ? s / (raw_us * 1e3) * pricer.nccl_norm(a, query.op) : 0;
    const int channels = nccl::channels_for(bus, layout.arch, layout.groups > 1);
    for (Protocol p : pricer.protocols(a)) {
      const Priced priced = pricer.price(a, p, query.op, s, raw_us, channels);
      if (out.candidate_count < kMaxCandidates) out.candidate_data[out.candidate_count++] = {a, p, priced.time_us};
      if (!have || priced.time_us < best) {
        have = true;
        best = priced.time_us;
        best_priced = priced;
        best_algorithm = a;
        out.algorithm = a;
        out.protocol = p;
      }
    }
  }
  // The winner's tiers again: cheaper than keeping every algorithm's.
  if (best_algorithm != algorithms.items[algorithms.count - 1]) pricer.tiers(best_algorithm, query.op, s, tiers);
  const TierList& chosen = tiers;
  out.tier_count = chosen.count;
  out.latency_us = best_priced.latency_us;
  if (!(best < kInf)) {
    out.reachable = false;
    out.time_us = kInf;
    for (std::uint32_t i = 0; i < out.tier_count; ++i)
      if (!(out.tier_data[i].time_us < kInf)) out.bottleneck = i;
    return;
  }
  out.time_us = best;
  out.algbw_gbps = s / (best * 1e3);
  out.busbw_gbps = out.algbw_gbps * bus_factor(query.op, layout.n);
  if (out.time_us - out.latency_us > out.latency_us) out.bottleneck = chosen.worst();
}

}  // namespace

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

CostModel::CostModel(const Topology& topology, const CostModelOptions& options)
    : fabric_(topology), options_(options), scratch_(std::make_unique<Scratch>(fabric_)) {}
CostModel::~CostModel() = default;
CostModel::CostModel(CostModel&&) noexcept = default;
CostModel& CostModel::operator=(CostModel&&) noexcept = default;

CollectiveCost CostModel::collective(const CollectiveQuery& query) const {
  if (query.bytes == 0) throw InputError({}, "the size of a collective must be at least one byte");
  const Layout& layout = analyse(*scratch_, fabric_, query.ranks, family_of(query.op), nullptr);
  CollectiveCost out;
  price_layout(layout, query, options_.size_efficiency, out);
  return out;
}

std::vector<CollectiveCost> CostModel::sweep(const CollectiveQuery& query, std::uint64_t from,
                                             std::uint64_t to) const {
  if (from == 0) throw InputError({}, "a sweep must start at one byte or more");
  if (from > to) throw InputError({}, fmt::format("a sweep must not end ({} B) below its start ({} B)", to, from));
  const Layout& layout = analyse(*scratch_, fabric_, query.ranks, family_of(query.op), nullptr);
  std::vector<CollectiveCost> out;
  CollectiveQuery q = query;
  for (std::uint64_t size = from; size <= to; size *= 2) {
    q.bytes = size;
    price_layout(layout, q, options_.size_efficiency, out.emplace_back());
    if (size > to / 2) break;
  }
  return out;
}

void CostModel::concurrent(std::span<const CollectiveQuery> queries,
                           const std::function<void(std::size_t, const CollectiveCost&)>& result) const {
  Scratch& s = *scratch_;
  CollectiveCost cost;
  // Pass 1: every query's flows out of every domain, summed. Queries that
  // leave no domain share nothing and are priced at once.
  s.begin_totals();
  s.pending.clear();
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const CollectiveQuery& q = queries[i];
    if (q.bytes == 0) throw InputError({}, "the size of a collective must be at least one byte");
    const Layout& layout = analyse(s, fabric_, q.ranks, family_of(q.op), nullptr);
    if (s.weights.empty()) {
      price_layout(layout, q, options_.size_efficiency, cost);
      result(i, cost);
      continue;
    }
    s.add_weights_to_totals();
    s.pending.push_back(i);
  }
  // Pass 2: price the others with their share of every domain's egress.
  for (std::size_t i : s.pending) {
    const CollectiveQuery& q = queries[i];
    const Layout& layout = analyse(s, fabric_, q.ranks, family_of(q.op), &s.totals);
    price_layout(layout, q, options_.size_efficiency, cost);
    result(i, cost);
  }
  s.end_totals();
}

std::vector<CollectiveCost> CostModel::concurrent(std::span<const CollectiveQuery> queries) const {
  std::vector<CollectiveCost> out(queries.size());
  concurrent(queries, [&](std::size_t i, const CollectiveCost& c) { out[i] = c; });
  return out;
}

}  // namespace topoplan
