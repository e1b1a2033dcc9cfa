#include "topoplan/cost/nccl_tuning.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <utility>

namespace topoplan::nccl {

double link_efficiency(const LinkType& type) {
  switch (type.family) {
    case LinkFamily::nvlink:
      switch (type.generation) {
        case 1: return 18.0 / 20.0;
        // NCCL's per-link rate (kNvlinkBw, by architecture: NVLink 2 is
        // Volta's, 3 Ampere's, 4 Hopper's, 5 Blackwell's) over the
        // catalogue's 25 GB/s a link (50 for NVLink 5).
        case 2:
        case 3:
        case 4: return kNvlinkBw[static_cast<std::size_t>(type.generation - 2)] / 25.0;
        case 5: return kNvlinkBw[3] / 50.0;
        default: return 0.8;
      }
    case LinkFamily::pcie: {
      // NCCL: lanes * speed / 80 with speed 15, 30, 60, 120, 240, 480 for
      // Gen1..Gen6 (kvDictPciGen); the catalogue's payload rates per lane are
      // 0.25, 0.5, 0.985, 1.969, 3.938, 7.375 GB/s.
      switch (type.generation) {
        case 1:
        case 2: return 0.75;
        case 3:
        case 4:
        case 5: return 0.75 * 130.0 / 128.0;
        case 6: return 6.0 / (64.0 * 236.0 / 256.0 / 8);
        default: return 0.75;
      }
    }
    case LinkFamily::xgmi: return 48.0 / 64.0;
    case LinkFamily::nvlink_c2c:
    case LinkFamily::groq_c2c:
    case LinkFamily::cpu_link:
    case LinkFamily::infiniband:
    case LinkFamily::roce:
    case LinkFamily::ethernet: return 1.0;
  }
  return 1.0;
}

namespace {

// search.cc (hardware.md 1.3).
constexpr std::array<double, 13> kSpeedIntra = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
constexpr std::array<double, 19> kSpeedInter = {48, 30, 28, 24, 20, 18, 15, 12, 10, 9,
                                                7,  6,  5,  4,  3,  2.4, 1.2, 0.24, 0.12};
constexpr std::array<double, 11> kSm90Intra = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
constexpr std::array<double, 17> kSm90Inter = {48, 45, 42, 40, 30, 24, 22, 20, 17.5,
                                               15, 12, 6,  3,  2.4, 1.2, 0.24, 0.12};
constexpr std::array<double, 12> kSm100Intra = {90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};
constexpr std::array<double, 20> kSm100Inter = {96, 86, 80, 48, 45.1, 42, 40, 30, 24, 22,
                                                20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};

constexpr double kEps = 1e-9;

// Volta, Ampere and Hopper rows are the same in every release followed;
// Blackwell's were twice Hopper's until 2.28.3.
constexpr std::array<double, 3> kVoltaAmpereLL128 = {20.0, 20.0, 20.0};
constexpr std::array<double, 3> kHopperRingLL128 = {36.7, 36.7, 36.7};
constexpr std::array<double, 3> kHopperTreeLL128 = {36.7, 36.7, 29.0};
constexpr std::array<double, 3> kVoltaTree = {26.5, 18.5, 10.0};
constexpr std::array<double, 3> kAmpereTree = {24.0, 23.6, 17.8};
constexpr std::array<double, 3> kHopperTree = {38.7, 41.4, 36.0};
constexpr std::array<double, 3> kHopperNvlsTree = {0.0, 57.7, 45.5};

constexpr TunerTables release(NcclVersion since, std::array<double, 3> b_ring_ll128, std::array<double, 3> b_tree_ll128,
                              std::array<double, 3> b_tree, double b_nvls_tree_n4, double nvlstree_net, bool efficiency,
                              bool c2c, bool correction, bool sm100_tuning = false, bool tree_by_depth = false) {
  TunerTables t;
  t.since = since;
  t.ring_ll128 = {kVoltaAmpereLL128, kVoltaAmpereLL128, kHopperRingLL128, b_ring_ll128};
  t.tree_ll128 = {kVoltaAmpereLL128, kVoltaAmpereLL128, kHopperTreeLL128, b_tree_ll128};
  t.tree = {kVoltaTree, kAmpereTree, kHopperTree, b_tree};
  if (b_nvls_tree_n4 > 0)
    t.nvls_tree = {kVoltaTree, kAmpereTree, kHopperNvlsTree, std::array<double, 3>{0.0, 96.0, b_nvls_tree_n4}};
  t.nvlstree_net_latency = nvlstree_net;
  t.nvls_efficiency_model = efficiency;
  t.ll128_over_c2c = c2c;
  t.nvlstree_correction = correction;
  t.nvls_sm100_tuning = sm100_tuning;
  t.tree_chunk_by_depth = tree_by_depth;
  // NVLS_NCHANNELS_SM100_NVL (24 in one Blackwell domain) came with 2.27.3.
  t.nvls_one_domain_24 = since >= NcclVersion{2, 27, 3};
  return t;
}

// tuning.cc at the tags v2.25.1-1 .. v2.29.7-1 and master @ 5067397c
// (2.30.7): each entry holds from its release until the next entry's.
// Arguments: Blackwell's Ring/LL128, Tree/LL128 and Tree caps, its
// NVLSTree cap across 3+ nodes (0: none), NVLSTree's NET latency, then
// nvls_efficiency_model, ll128_over_c2c, nvlstree_correction,
// nvls_sm100_tuning and tree_chunk_by_depth (TunerTables; enqueue.cc until
// 2.20.3-1).
constexpr std::array<double, 3> kOldBlackwellRingLL128 = {2 * 36.7, 2 * 36.7, 2 * 36.7};
constexpr std::array<double, 3> kNewBlackwellTreeLL128 = {55.6, 31.67, 20.0};
constexpr std::array<double, 3> kNewBlackwellTree = {70.0, 42.8, 24.0};
constexpr std::array<TunerTables, 8> kReleases = {
    release({2, 0, 0}, kOldBlackwellRingLL128, {2 * 36.7, 2 * 36.7, 2 * 29.0}, {2 * 38.7, 2 * 41.4, 2 * 36.0}, 0, 14,
            false, false, false, false, true),
    release({2, 20, 3}, kOldBlackwellRingLL128, {2 * 36.7, 2 * 36.7, 2 * 29.0}, {2 * 38.7, 2 * 41.4, 2 * 36.0}, 0,
            14, false, false, false),
    release({2, 27, 3}, kOldBlackwellRingLL128, {2 * 36.7, 2 * 36.7, 2 * 29.0}, {2 * 38.7, 2 * 41.4, 2 * 36.0}, 0,
            14, false, true, false),
    release({2, 28, 3}, kOldBlackwellRingLL128, kNewBlackwellTreeLL128, kNewBlackwellTree, 43.1, 14, true, true,
            false),
    release({2, 28, 9}, {2 * 36.7, 34.6, 2 * 36.7}, kNewBlackwellTreeLL128, kNewBlackwellTree, 43.8, 20.9, true, true,
            false),
    release({2, 29, 2}, {34.5, 34.6, 34.5}, kNewBlackwellTreeLL128, kNewBlackwellTree, 43.8, 20.9, true, true, true),
    release({2, 29, 7}, {40.0, 40.0, 40.0}, kNewBlackwellTreeLL128, kNewBlackwellTree, 43.8, 20.9, true, true, true),
    release({2, 30, 0}, {40.0, 40.0, 40.0}, kNewBlackwellTreeLL128, kNewBlackwellTree, 80.0, 20.9, true, true, true,
            true),
};

}  // namespace

const TunerTables& newest_tuner_tables() { return kReleases.back(); }

const TunerTables& first_nvls_tree_cap_tables() {
  // Found once: the pricer asks on every NVLSTree candidate.
  static const TunerTables& first = []() -> const TunerTables& {
    for (const TunerTables& t : kReleases)
      if (t.nvls_tree != ArchTable{}) return t;
    return kReleases.back();
  }();
  return first;
}

const TunerTables& tuner_tables(const std::optional<NcclVersion>& version) {
  if (!version) return newest_tuner_tables();
  const TunerTables* found = &kReleases.front();
  for (const TunerTables& t : kReleases)
    if (t.since <= *version) found = &t;
  return *found;
}

std::span<const double> search_speeds(int arch, bool inter) {
  if (arch >= 3) return inter ? std::span<const double>(kSm100Inter) : std::span<const double>(kSm100Intra);
  if (arch == 2) return inter ? std::span<const double>(kSm90Inter) : std::span<const double>(kSm90Intra);
  return inter ? std::span<const double>(kSpeedInter) : std::span<const double>(kSpeedIntra);
}

GraphEstimate ring_graph(int arch, bool inter, double local_bw, double nic_bw, int nics, int ppn) {
  GraphEstimate best;
  if (!(local_bw > 0)) return best;
  // Across nodes a channel's last GPU hands it to a NIC, not to a peer
  // (search.cc ncclTopoSearchRecGpu: the last step goes to the network).
  // Where every GPU has a NIC of its own the channels leave by all of them,
  // so a GPU forwards (ppn - 1) / ppn of the channels over its local links.
  if (inter) local_bw /= ring_forward_share(nics, ppn);
  for (double s : search_speeds(arch, inter)) {
    // Clamped before the cast: a bandwidth without limit (an unlimited tier) is
    // no more channels than NCCL opens.
    auto fit = [](double bw, double speed) {
      return static_cast<int>(std::min<double>(kMaxRingChannels, std::floor(bw / speed + kEps)));
    };
    int channels = fit(local_bw, s);
    if (inter) {
      const int per_nic = nic_bw > 0 ? fit(nic_bw, s) : 0;
      channels = std::min(channels, std::max(0, nics) * per_nic);
    }
    if (channels < 1) continue;
    if (channels * s > best.total() + kEps) best = {channels, s};
  }
  if (best.speed == 0) {
    // Nothing fits: NCCL falls back to one channel of the link's speed.
    best = {1, inter && nic_bw > 0 ? std::min(local_bw, nic_bw) : local_bw};
    return best;
  }
  if (best.speed >= 25 && (arch < 2 || best.speed >= 50 || best.channels <= 4)) {
    best.channels = std::min(2 * best.channels, kMaxChannels);
    best.speed /= 2;
  }
  return best;
}

double tree_intra_speed(int arch, const GraphEstimate& graph, double local_bw) {
  const std::span<const double> speeds = search_speeds(arch, true);
  std::size_t i = 0;
  while (i + 1 < speeds.size() && speeds[i] > graph.speed + kEps) ++i;
  double intra = graph.speed;
  // Raise while under twice the network's speed and the channels still fit.
  while (i > 0 && intra < 2 * graph.speed - kEps && graph.channels * speeds[i - 1] <= local_bw + kEps)
    intra = speeds[--i];
  return intra;
}

NvlsGraph nvls_graph(int arch, bool inter, int gpus, double switch_bw, double nic_bw, int nics) {
  NvlsGraph g;
  const std::span<const double> speeds = search_speeds(arch, inter);
  const int max_heads = std::min(kMaxNvlsArity, gpus);
  if (max_heads < 1 || !(switch_bw > 0)) return g;
  if (!inter) {
    // One node: exactly max_heads heads (minChannels = maxChannels).
    for (double s : speeds)
      if ((max_heads + 1) * s <= switch_bw + kEps) {
        g.heads = max_heads;
        g.intra = s;
        break;
      }
  } else {
    for (double s : speeds) {
      if (s > nic_bw + kEps) continue;
      const int heads = std::min(
          {max_heads, nics,
           static_cast<int>(std::min<double>(max_heads + 1, std::floor(switch_bw / s + kEps))) - 1});
      if (heads < 1) continue;
      if (heads * s > g.heads * g.intra + kEps) {
        g.heads = heads;
        g.intra = s;
      }
    }
  }
  if (g.heads == 0) return g;
  // Pass 2: raise the inter speed while it is below twice the intra speed.
  g.inter = g.intra;
  for (auto it = speeds.rbegin(); it != speeds.rend(); ++it) {
    const double s = *it;
    if (s <= g.inter + kEps) continue;
    if (g.inter >= 2 * g.intra - kEps) break;
    if (inter && s > nic_bw + kEps) break;
    g.inter = s;
  }
  return g;
}

int nvls_channels(int arch, std::uint32_t nodes, double nic_bw, std::uint32_t ppn, bool sm100_tuning,
                  bool one_domain_24) {
  if (arch < 3) return 16;
  if (nodes <= 1) return one_domain_24 ? 24 : 32;
  if (!sm100_tuning) return 32;
  if (nodes == 2 && nic_bw >= 48) return 32;
  if (nic_bw >= 96) return ppn <= 8 ? 24 : 32;
  if (nic_bw >= 48) return 24;
  return 32;
}

double tree_traffic(std::uint32_t nodes) {
  if (nodes <= 1) return 0;
  if (nodes == 2) return 1.0;
  if (nodes == 3) return 1.5;
  return 2.0;
}

int comm_channels(int graph_channels) { return std::min(2 * std::max(graph_channels, 1), kMaxChannels); }

namespace {

// maxCTAs as NCCL holds it (MAXCHANNELS when unset), and minCTAs (1 when
// unset) lowered to it.
std::pair<int, int> cta_bounds(const ChannelBounds& b) {
  const int most = b.max_ctas > 0 ? std::min(b.max_ctas, kMaxChannels) : kMaxChannels;
  const int least = std::min(b.min_ctas > 0 ? b.min_ctas : 1, most);
  return {least, most};
}

}  // namespace

int comm_channels(int graph_channels, const ChannelBounds& bounds) {
  const auto [least_ctas, most_ctas] = cta_bounds(bounds);
  int channels = std::min(comm_channels(graph_channels), most_ctas);
  if (bounds.max_channels > 0) channels = std::min(channels, bounds.max_channels);
  return std::min(std::max({channels, bounds.min_channels, least_ctas}), kMaxChannels);
}

int bounded_nvls_channels(int tuned, const ChannelBounds& bounds) {
  const auto [least_ctas, most_ctas] = cta_bounds(bounds);
  const int channels = bounds.nvls_channels > 0 ? bounds.nvls_channels : tuned;
  return std::clamp(channels, least_ctas, most_ctas);
}

int p2p_comm_channels(int comm_channels) {
  return static_cast<int>(std::bit_ceil(static_cast<unsigned>(std::clamp(comm_channels, 1, kMaxChannels))));
}

P2pChannels p2p_channels(int comm_channels, int nvlinks, int ranks) {
  const int p2p = p2p_comm_channels(comm_channels);
  P2pChannels out;
  out.per_peer = std::min(p2p, static_cast<int>(std::bit_ceil(static_cast<unsigned>(2 * std::max(nvlinks, 1)))));
  out.start = out.per_peer;
  while (out.start * std::max(ranks, 1) > p2p && out.start > 1) out.start /= 2;
  return out;
}

int p2p_send_channels(double bytes, P2pChannels channels, double chunk) {
  if (!(bytes > 0)) return 1;
  const double min_part = chunk / 8;
  const double max_part = chunk * 32;
  int n = static_cast<int>(std::min<double>(channels.start, std::ceil(bytes / min_part)));
  double part = std::max(min_part, std::ceil(bytes / n));
  while (part > max_part && n <= channels.per_peer / 2) {
    n *= 2;
    part = std::ceil(bytes / n);
  }
  return n;
}

int p2p_batches(int ranks, int nodes, int p2p_channels) {
  const int r = std::max(ranks, 1);
  const int channels = std::max(p2p_channels, 1);
  auto div_up = [](int a, int b) { return (a + b - 1) / b; };
  if (nodes <= 1) return div_up(r, std::max(channels, kP2pPerBatch));
  const int per_node = div_up(r, nodes);
  return div_up(nodes * div_up(per_node, kP2pPerBatch), channels);
}

int collective_channels(int channels, double bytes, int threads, int threshold) {
  // NCCL's loop drops a channel while bytes < nc x per-channel share: it
  // stops at the most channels that each get their share, at least one.
  const double fit = std::floor(bytes / (static_cast<double>(threads) * threshold));
  return static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(std::max(channels, 1))));
}

double nccl_tree_depth(std::uint32_t ranks_per_node, std::uint32_t nodes) {
  const double below = ranks_per_node > 0 ? ranks_per_node - 1.0 : 0.0;
  return below + log2i(nodes);
}

double tree_chunk_for_size(double chunk, double bytes, double channels, double depth) {
  const auto whole = [&] { return std::floor(bytes / (channels * chunk)); };
  while (whole() < depth * 8 && chunk > 131072) chunk /= 2;
  while (whole() < depth * 4 && chunk > 65536) chunk /= 2;
  while (whole() < depth && chunk > 32768) chunk /= 2;
  return chunk;
}

double tree_depth(std::uint32_t ppn, std::uint32_t nodes) {
  const double chain = ppn > 0 ? ppn - 1.0 : 0.0;
  // ceil(log2(nodes)) for nodes >= 2
  const double levels = nodes > 1 ? static_cast<double>(std::bit_width(nodes - 1)) : 0.0;
  return 2 * (chain + levels);
}

double tree_chunk(int proto, double simple_buffer) {
  const double step = protocol_buffer(proto, simple_buffer) / 8;  // NCCL_STEPS
  if (proto == kLL) return step / 2;
  if (proto == kLL128) return step * 120 / 128;
  return step;
}

double nvlstree_chunk(int arch, std::uint32_t nodes, std::uint32_t ppn, double nic_bw, bool nic_through_cpu,
                      bool sm100_tuning) {
  constexpr double k64 = 64.0 * 1024, k128 = 128.0 * 1024, k256 = 256.0 * 1024;
  double chunk = k128;
  double tree_max = 0;  // 0: the tuning leaves it to the default
  if (arch >= 3 && nodes > 1 && sm100_tuning) {
    if (nodes == 2 && nic_bw >= 48) {
      tree_max = k128;
      if (ppn <= 4) {
        chunk = k256;
        tree_max = k256;
      } else if (ppn >= 16 || (ppn <= 8 && !nic_through_cpu && nic_bw < 96)) {
        tree_max = k64;
      }
    } else if (nic_bw >= 96) {
      if (ppn <= 8) {
        chunk = k256;
        tree_max = k256;
      } else {
        tree_max = ppn < 32 ? k128 : k64;
      }
    } else if (nic_bw >= 48) {
      tree_max = nic_through_cpu ? k128 : k64;
    }
  }
  if (tree_max == 0) tree_max = nodes >= 4 ? k64 : chunk;
  return std::min(chunk, tree_max);
}

double nvls_chunk(bool tree, int arch, std::uint32_t nodes, std::uint32_t ppn, double nic_bw, bool nic_through_cpu,
                  double bytes, double ops, bool sm100_tuning, double simple_buffer) {
  double chunk = tree ? nvlstree_chunk(arch, nodes, ppn, nic_bw, nic_through_cpu, sm100_tuning)
                      : std::min(128.0 * 1024, simple_buffer / 8);  // NCCL_STEPS
  if (tree) {
    if (bytes < 32 * ops * chunk && chunk > 262144) chunk = 262144;
    if (bytes < 16 * ops * chunk && chunk > 131072) chunk = 131072;
    if (bytes < 4 * ops * chunk && chunk > 65536) chunk = 65536;
    if (bytes < 1 * ops * chunk && chunk > 32768) chunk = 32768;
  } else {
    if (bytes < 64 * ops * chunk && chunk > 65536) chunk = 65536;
    if (bytes < 8 * ops * chunk && chunk > 32768) chunk = 32768;
    if (bytes < 2 * ops * chunk && chunk > 16384) chunk = 16384;
  }
  return chunk;
}

}  // namespace topoplan::nccl

namespace topoplan::rccl {

ProtocolRange protocol_range(Collective op) {
  switch (op) {
    case Collective::allreduce: return {1048576, 9437184};
    case Collective::allgather: return {98304, 5046272};
    case Collective::reducescatter: return {655360, 3211264};
    default: return {};
  }
}

std::optional<Protocol> allpairs_protocol(std::uint64_t bytes, std::uint64_t element_bytes) {
  if (bytes == 0 || element_bytes == 0 || bytes % element_bytes != 0) return std::nullopt;
  const std::uint64_t count = bytes / element_bytes;
  if (bytes <= kAllPairsFewChunksMax)
    return count % kAllPairsFewChunks == 0 ? std::optional(Protocol::ll) : std::nullopt;
  if (count % kAllPairsChunks != 0) return std::nullopt;
  if (bytes <= kAllPairsLLMax) return Protocol::ll;
  if (bytes <= kAllPairsSimpleMax) return Protocol::simple;
  return std::nullopt;
}

}  // namespace topoplan::rccl
