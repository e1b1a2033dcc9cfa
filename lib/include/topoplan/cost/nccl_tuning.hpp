// NCCL's tuner constants and the few derived rules the cost model uses.
//
// Unless a comment names another source, every number is read from NCCL
// 2.30.7 (github.com/NVIDIA/nccl @ 5067397c, src/graph/tuning.cc
// ncclTunerConstantsDefaults, src/graph/topo.h, src/init.cc) as transcribed in
// shared/reference/hardware.md section 1; the section is named per constant.
// Latencies are microseconds, bandwidths GB/s (1e9 bytes/s) per direction.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include "topoplan/cost/collective.hpp"
#include "topoplan/model/link_type.hpp"

namespace topoplan::nccl {

/// NCCL's tuner algorithms that the model prices with NCCL's constants.
enum TunerAlgo : int { kTree = 0, kRing = 1, kNvls = 2, kNvlsTree = 3, kTunerAlgoCount = 4 };
/// Protocol columns: LL, LL128, Simple.
enum TunerProto : int { kLL = 0, kLL128 = 1, kSimple = 2, kTunerProtoCount = 3 };
/// Hardware rows of hwLatencies: NVLink, PCI, network.
enum Hw : int { kNvlink = 0, kPci = 1, kNet = 2 };

using ProtoRow = std::array<double, kTunerProtoCount>;

/// baseLatencies [algo][proto] (hardware.md 1.1). NVLS and NVLSTree have none.
inline constexpr std::array<ProtoRow, kTunerAlgoCount> kBaseLatency = {{
    {6.8, 14.0, 8.4},  // Tree
    {6.6, 14.0, 8.4},  // Ring
    {0, 0, 0},         // NVLS
    {0, 0, 0},         // NVLSTree
}};

/// hwLatencies [hw][algo][proto] (hardware.md 1.1).
inline constexpr std::array<std::array<ProtoRow, kTunerAlgoCount>, 3> kHwLatency = {{
    {{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 25}, {0, 0, 25}}},    // NVLINK
    {{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 0}, {0, 0, 0}}},       // PCI
    {{{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 18}, {0, 0, 20.9}}},   // NET
}};

/// Per-architecture tables, index [arch][nodes] with arch 0 Volta .. 3
/// Blackwell and nodes 0 for one node, 1 for two, 2 for more (hardware.md 1.1).
using ArchTable = std::array<std::array<double, 3>, 4>;

/// llMaxBws: single-node rows by architecture. Multi-node rows are chosen by
/// CPU vendor instead, see ll_max_bw().
inline constexpr ArchTable kLlMaxBw = {{
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}};
inline constexpr ArchTable kPerChMaxRingLL128Bw = {{
    {20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}}};
inline constexpr ArchTable kPerChMaxTreeLL128Bw = {{
    {20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
inline constexpr ArchTable kPerChMaxTreeBw = {{
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
inline constexpr ArchTable kPerChMaxNvlsTreeBw = {{
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}}};

/// nvlsEfficiency by architecture (hardware.md 1.1).
inline constexpr std::array<double, 4> kNvlsEfficiency = {0.0, 0.0, 0.85, 0.74};

/// treeCorrectionFactor [proto][log2(bytes / 64)], 64 B .. 256 MB (hardware.md 1.1).
inline constexpr std::array<std::array<double, 24>, 3> kTreeCorrection = {{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}};

/// Protocol efficiencies of tuning.cc's busBw formulas (hardware.md 1.4).
inline constexpr double kRingLLFactor = 0.5;          // Ring/LL: busBw * 0.5
inline constexpr double kLL128Factor = 0.92;          // Ring/LL128, Tree/Simple: busBw * 0.92
inline constexpr double kTreeLLDivisor = 3.8;         // Tree/LL: busBw / 3.8
inline constexpr double kTreeLL128FactorOneNode = 7.0 / 9.0;
inline constexpr double kTreeLL128FactorMultiNode = 120.0 / 128.0;
/// Ring/Simple/AllReduce across nodes: latency * 1.4 (1.9 before Ampere),
/// the "plateau effect of ring" (hardware.md 1.4).
inline constexpr double kRingPlateau = 1.4;
inline constexpr double kRingPlateauVolta = 1.9;

inline constexpr int kMaxChannels = 64;  // MAXCHANNELS (hardware.md 1.1)

/// The fastest per-channel speed NCCL's graph search tries (search.cc
/// speedArrayIntra/Inter[0], hardware.md 1.3), by arch row; intra (one node)
/// and inter (several).
inline constexpr std::array<double, 4> kSpeedIntraMax = {40, 40, 60, 90};
inline constexpr std::array<double, 4> kSpeedInterMax = {48, 48, 48, 96};

/// NVLS channels: SM90 16; SM100 24 inside one NVLink domain, 32 across
/// (src/transport/nvls.c, hardware.md 1.1).
inline int nvls_channels(int arch, bool multi_node) {
  if (arch >= 3) return multi_node ? 32 : 24;
  return 16;
}

/// Channels the model assumes for a graph of total bandwidth `bw`: NCCL's
/// search fills the link with channels of the largest speed that fits and
/// then doubles them (ncclTopoDupChannels, hardware.md 1.3). An
/// approximation: the real search also depends on path shapes.
inline int channels_for(double bw, int arch, bool multi_node) {
  const auto row = static_cast<std::size_t>(arch < 0 ? 0 : arch > 3 ? 3 : arch);
  const double speed = multi_node ? kSpeedInterMax[row] : kSpeedIntraMax[row];
  if (!(bw > 0)) return 1;
  int channels = static_cast<int>(std::ceil(bw / speed - 1e-9));
  if (channels < 1) channels = 1;
  // ncclTopoDupChannels doubles the channels when each carries >= 25 GB/s.
  if (bw / channels >= 25) channels *= 2;
  return channels > kMaxChannels ? kMaxChannels : channels;
}

/// Per inter-node step overhead (getNetOverhead, hardware.md 1.1): 1 us on
/// Intel and other hosts, 2 us on AMD hosts; x3 for Simple.
inline double net_overhead(bool amd_host, int proto) {
  const double base = amd_host ? 2.0 : 1.0;
  return proto == kSimple ? 3 * base : base;
}

/// llMaxBw for `nodes` NCCL nodes: the arch row on one node; across nodes the
/// row is chosen by CPU vendor (row 1 when AMD, else row 0).
inline double ll_max_bw(int arch, std::uint32_t nodes, bool amd_host) {
  const int column = nodes <= 1 ? 0 : nodes == 2 ? 1 : 2;
  const int row = nodes <= 1 ? (arch < 0 ? 0 : arch > 3 ? 3 : arch) : (amd_host ? 1 : 0);
  return kLlMaxBw[static_cast<std::size_t>(row)][static_cast<std::size_t>(column)];
}

/// The [nodes] column of the per-arch tables.
inline int nodes_column(std::uint32_t nodes) { return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2; }

/// The tree correction factor for `bytes`, clamped to the table's ends.
inline double tree_correction(int proto, std::uint64_t bytes) {
  int index = 0;
  if (bytes >= 128) index = static_cast<int>(std::bit_width(bytes / 64)) - 1;
  if (index > 23) index = 23;
  return kTreeCorrection[static_cast<std::size_t>(proto)][static_cast<std::size_t>(index)];
}

/// floor(log2(n)) for n >= 1, as NCCL's log2i.
inline int log2i(std::uint32_t n) { return n <= 1 ? 0 : static_cast<int>(std::bit_width(n)) - 1; }

/// NCCL's modelled bandwidth of a link divided by the link's nominal
/// bandwidth in the topology catalogue: how much of a link a collective can use.
///   NVLink (topo.h per-link effective GB/s / nominal per-link GB/s):
///     gen 1 18.0/20 = 0.90 (SM60), gen 2 20.0/25 = 0.80 (SM70),
///     gen 3 20.0/25 = 0.80 (SM80), gen 4 20.6/25 = 0.824 (SM90),
///     gen 5 40.1/50 = 0.802 (SM100)                        (hardware.md 1.2)
///   PCIe: NCCL's width * speed / 80 (Gen5 x16 = 48 GB/s) over the payload
///     rate of the catalogue (Gen5 x16 = 63.0 GB/s): 0.75 for Gen1-2, 0.762
///     for Gen3-5, 0.814 for Gen6                           (hardware.md 1.2)
///   xGMI: RCCL's 48 GB/s per MI300X link over 64 GB/s = 0.75 (hardware.md 5.5)
///   NICs: NCCL uses line rate / 8, the catalogue value: 1.0 (hardware.md 1.2)
///   NVLink-C2C, CPU links (NCCL's own QPI/UPI figures), Groq C2C: 1.0
double link_efficiency(const LinkType& type);

/// Protocol buffer per channel and peer (src/init.cc DEFAULT_*BUFFSIZE):
/// Simple 4 MiB (1 MiB on Arm hosts, DEFAULT_BUFFSIZE_ARM), LL 8 lines x 512
/// threads x 8 steps x 16 B = 512 KiB, LL128 120 x 640 x 8 x 8 B = 4800 KiB.
inline double protocol_buffer(int proto, bool arm_host) {
  switch (proto) {
    case kLL: return 8.0 * 512 * 8 * 16;
    case kLL128: return 120.0 * 640 * 8 * 8;
    default: return arm_host ? static_cast<double>(1 << 20) : static_cast<double>(1 << 22);
  }
}

/// The size-dependent efficiency of the bandwidth term: a transfer of `bytes`
/// through a protocol buffer of `buffer` bytes reaches
///     eta = 1 / (1 + sqrt(buffer / bytes))
/// of its asymptotic bandwidth. The square-root law is the shape of optimal
/// pipelining (T = (sqrt(L) + sqrt(S/B))^2, Hockney/van de Geijn) and is what
/// the calibration curves show (topoplan-cost(7), "Calibration"); the buffer
/// is NCCL's, not a fitted number.
inline double ramp_efficiency(double bytes, double buffer) {
  if (!(bytes > 0)) return 0;
  return 1.0 / (1.0 + std::sqrt(buffer / bytes));
}

}  // namespace topoplan::nccl
