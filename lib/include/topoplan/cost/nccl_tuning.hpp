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
#include <optional>
#include <span>

#include "topoplan/cost/collective.hpp"
#include "topoplan/model/link_type.hpp"
#include "topoplan/model/nccl_environment.hpp"
#include "topoplan/model/nccl_version.hpp"

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
// NET's NVLSTree entry changed between releases: TunerTables::nvlstree_net_latency.

/// Per-architecture tables, index [arch][nodes] with arch 0 Volta .. 3
/// Blackwell and nodes 0 for one node, 1 for two, 2 for more (hardware.md 1.1).
using ArchTable = std::array<std::array<double, 3>, 4>;

/// llMaxBws: single-node rows by architecture. Multi-node rows are chosen by
/// CPU vendor instead, see ll_max_bw().
inline constexpr ArchTable kLlMaxBw = {{
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}};
/// The tables of NCCL's tuner that changed between the releases the model
/// follows, read at each release's tag of github.com/NVIDIA/nccl
/// (src/graph/tuning.cc; topoplan-cost(7), "NCCL versions"). NCCL chooses
/// an algorithm and protocol by the tables of the release it is; the link
/// model takes the per-channel caps it applies as limits from the newest
/// (newest_tuner_tables()), NVIDIA's latest measure of what a channel carries.
struct TunerTables {
  NcclVersion since{};  // the first release with these values
  ArchTable ring_ll128{};  // perChMaxRingLL128Bws
  ArchTable tree_ll128{};  // perChMaxTreeLL128Bws
  ArchTable tree{};        // perChMaxTreeBws
  ArchTable nvls_tree{};   // perChMaxNVLSTreeBws; none (0) before 2.28.3
  double nvlstree_net_latency = 0;  // hwLatencies[NET][NVLSTree][Simple]
  /// 2.28.3 on: NVLS and NVLSTree busBw = heads x min(bwIntra x
  /// nvlsEfficiency x (heads - 1) / heads x 2, bwInter, cap) and algBw =
  /// busBw x n / nsteps; before, heads x min(bwIntra, bwInter) (bwInter / 2
  /// for NVLSTree beyond two nodes) x 5/6.
  bool nvls_efficiency_model = true;
  /// 2.27.3 on: LL128 across nodes up to PATH_P2C (NCCL_LL128_C2C), so a
  /// GPU that reaches its NIC through its CPU's C2C link (GB200) keeps it.
  bool ll128_over_c2c = true;
  /// 2.29.2 on: treeCorrectionFactor also on Blackwell NVLSTree (x86 hosts).
  bool nvlstree_correction = true;
  /// 2.30 on (src/transport/nvls.cc ncclNvlsTreeSm100Tuning): Blackwell's
  /// NVLS channels and NVLSTree chunk across domains by NIC speed and GPUs
  /// per domain (nvls_channels, nvlstree_chunk); before, 32 channels across
  /// domains and NVLSTree's 128 KiB chunk (64 KiB from 4 domains).
  bool nvls_sm100_tuning = true;
  /// 2.27.3 on (src/transport/nvls.cc NVLS_NCHANNELS_SM100_NVL): 24 NVLS
  /// channels inside one Blackwell NVLink domain; before, the 32 it launches
  /// across domains (NVLS_NCHANNELS_SM100) there too.
  bool nvls_one_domain_24 = true;
  /// Before 2.20.3 (src/enqueue.cc, removed in 2.20.3-1): Tree/Simple's
  /// chunk shrinks with the size (tree_chunk_for_size); from it, a full step.
  bool tree_chunk_by_depth = false;
};

/// The tables of `version`'s release; the newest with no version.
const TunerTables& tuner_tables(const std::optional<NcclVersion>& version);
/// The newest release's tables (NCCL 2.30.7, master @ 5067397c).
const TunerTables& newest_tuner_tables();
/// The first release's tables that state NVLSTree caps (perChMaxNVLSTreeBws;
/// 2.28.3): what they held for the launch the releases before already had.
const TunerTables& first_nvls_tree_cap_tables();

/// nvlsEfficiency by architecture (hardware.md 1.1).
inline constexpr std::array<double, 4> kNvlsEfficiency = {0.0, 0.0, 0.85, 0.74};

/// GB/s of the buffer one NVLS channel (one CTA) walks: its scatter and
/// gather warps copy every byte of its part whatever the head count
/// (all_reduce.h), so the channels bound the buffer's bytes and a head's
/// extra share costs only on its links. Not an NCCL constant: fitted, with
/// the fill of kNvlsFillLoops, on the two published curves of a whole GB200
/// NVLink domain: CoreWeave's 72 GPUs on NCCL 2.25.1 (a1-a5, whose 32 CTAs
/// make longer loops, TunerTables::nvls_one_domain_24) and OCI's 64 on NCCL
/// 2.29.3 (a120-a126), over the 24 channels of a domain's ceiling. 19.0
/// minimises their squared relative errors and holds both within 5 %
/// (topoplan-cost(7), "NVLS"). Checked on later curves: a GB200 rack on
/// 2.29.2 (a127-a135) and a GB300 rack (a136-a140) within 10 %. On 8 H100s
/// the links bind (16 x 19 x 9/8 = 342 > 0.85 x 370.8 = 315).
inline constexpr double kNvlsChannelBw = 19.0;

/// GB/s one send channel (one CTA copying its part to a peer over NVLink)
/// moves: sendrecv and all-to-all inside one NVLink domain run on the
/// channels p2p_send_channels gives them, each at this rate. A send's CTA
/// only copies (no multimem reduction, no scatter and gather stages), so it
/// is not NVLS's rate. Not an NCCL constant: fitted on one point, a B200
/// node's 16 GiB send and receive on its 32 channels (c39, MGHPCC: 666 GB/s,
/// 20.8 a channel), where the links (722) do not bind. Checked on the sends
/// of a B200 pair from 16 MiB to 4 GiB (a265-a267) and of 8 H100s at 32 and
/// 256 MiB (a261, a262: 19.9 and 18.7 a channel), and on Blackwell's
/// all-to-alls inside a domain, 32 channels at 569-684 GB/s from 4 to 64
/// GPUs (c38, a146, a152, a161, a395-a397, a400-a402).
inline constexpr double kP2pChannelBw = 20.8;

/// GB/s one channel (one CTA) of a Hopper GPU moves into and out of the
/// network: a ring's channel crossing to the next node, an NVLSTree
/// channel's sends up and down the tree. NCCL gives DGX H100's eight 400G
/// NICs 16 ring channels and 16 NVLS channels, two a NIC, so at 20.5 GB/s a
/// channel a node moves 328 GB/s where its NICs take 384 (NCCL's 48 GB/s
/// each). Not an NCCL constant: fitted on two runs over four and eight
/// nodes, a ring (a219, Voltage Park: 20.7 GB/s a channel) and NVLSTree
/// (a100: 20.4); the same rate holds NVIDIA/nccl#1221's four nodes (a17,
/// a18), A3 Ultra's H200 pair all-gathering (a273, a274) and the eight
/// nodes' 4 GiB (a99) within 2 %, and NVLink sends measure as much a
/// channel (20-21 GB/s, c39, a261-a267). Faster Hopper platforms are
/// reported without curves (NVIDIA/nccl-tests#283: 248 H200 nodes at about
/// 350 GB/s, 21.9 a channel; #290: NCCL's maintainers expect 46-48 GB/s a
/// 400G NIC): this rate is the measured curves' low end. What sets it is
/// the fabric's configuration, not the GPU: a B200 cluster's 4-node rings
/// move 307 GB/s (19 a channel) with NCCL's InfiniBand defaults and 384
/// with NCCL_IB_QPS_PER_CONNECTION=2 and NCCL_IB_AR_THRESHOLD=0
/// (together-nccl-tests, flapping-airplanes 2026-07-11; a345-a362 run so),
/// which no topology states. Blackwell's published runs mostly reach their
/// NICs (a B200 pair all-gathers 383 GB/s on the same 16 channels, c34), so
/// no cap is taken there; AMD's are not measured.
inline constexpr double kHopperNetChannelBw = 20.5;

/// The share of kNvlsChannelBw an NVLSTree channel walks. A CTA has 20 warps
/// (NCCL_MAX_NTHREADS 640); with buffers not registered, NVLS in one domain
/// of more than 6 ranks gives 8 to scatter, 7 to gather and 5 to reduce
/// (all_reduce.h, RunWorkColl NVLS), while NVLSTree on every node with a
/// parent in the tree gives 6 to scatter, 5 to gather, 5 to reduce and 4 to
/// broadcast what comes back from the network (RunWorkColl NVLS_TREE; the
/// same split from 2.25 to 2.30). A channel's gather warps copy every byte of
/// its part, so it walks at 5/7 of one domain's pace; the tree's root runs
/// one domain's split, but the other domains set the time.
inline constexpr double kNvlsTreeChannelShare = 5.0 / 7.0;

/// Loops of an NVLS all-reduce's pipeline fill in one host's NVSwitch domain
/// (all-gather and reduce-scatter, which run two stages instead of three,
/// half as many). A channel walks its part of the buffer a loop at a time (a
/// chunk for every head, all_reduce.h), its scatter, reduce + multicast and
/// gather stages overlapping from the second loop on; the first loop's
/// scatter and reduce are two loops at the algorithm's rate. Hopper's curves
/// show exactly that (8 H100s and H200s, c4-c8 and c23-c26: about 120 us from
/// 1 GiB on), and so do Blackwell's: two B200 pairs on NCCL's NVLSTree, over
/// RoCE and over InfiniBand, measure the same curve (a162-a172, a275-a282;
/// within 11 % of each other from 8 MiB to 1 GiB), which four loops made 17-35
/// % slow from 16 to 256 MiB and two put within 15 %.
inline constexpr double kNvlsFillLoops = 2.0;
/// The same in a multi-node NVLink domain (GB200 and GB300 NVL72: the GPUs
/// of 18 hosts through the rack's switch trays). Not an NCCL constant: the
/// published curves of such domains carry twice the fill, on NCCL 2.25 to
/// 2.29 (fit a1-a5 and a120-a126: the least-error fill is 3.5-4.5 loops on
/// each; checked on a127-a140 and, across racks, a112-a117), and what
/// doubles it is not identified. The curve that once put every Blackwell
/// domain at four loops, MGHPCC's B200 node (a70-a74), is a one-process run
/// (-g 8) whose serial launches lengthen every call. Whether the hosts or
/// the domain's size (64-72 GPUs against 8) doubles it the published
/// curves cannot tell. See topoplan-cost(7), "NVLS".
inline constexpr double kNvlsFillLoopsMultiHost = 4.0;

/// What a ring's or tree's step between GPUs of a multi-node NVLink domain
/// takes beyond NCCL's NVLink constant (its hwLat row, 0.6 us for LL), in us,
/// when the ranks of that domain sit on several hosts (MNNVL). Not an NCCL
/// constant: NCCL's own estimate prices those steps as one host's, and the
/// published small messages across GB200 trays take about twice it: 21 us
/// for an all-gather of 1 KiB on 8 GPUs of 2 trays, 57 on 32 of 8 (Google
/// Cloud's A4X pages), 197 for an all-reduce on 128 GPUs of two racks' trays
/// (OCI; a tree along two 63-GPU chains). One microsecond a step, the
/// least-error value on the first and the last (fit a406 and a387), puts
/// the three at -16, -1 (a411, a check) and +12 % (from -49, -55 and -52 %);
/// their other sizes are checks. Whether it is the trays' cables, the
/// fabric-imported buffers or NCCL's ordering of the ring through the trays
/// that costs it, the runs cannot tell. See topoplan-cost(7), "Time".
inline constexpr double kMultiHostNvlinkStepUs = 1.0;

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

inline constexpr int kMaxChannels = kNcclMaxChannels;  // MAXCHANNELS (hardware.md 1.1)

/// The per-channel speeds NCCL's graph search tries, fastest first
/// (search.cc speedArrayIntra/Inter, sm90SpeedArray*, sm100SpeedArray*,
/// hardware.md 1.3); Volta and Ampere use the generic lists. Intra for
/// graphs inside one NCCL node, inter for graphs that leave it.
std::span<const double> search_speeds(int arch, bool inter);

inline constexpr int kMaxRingChannels = 32;  // MAXCHANNELS / 2: a ring or tree graph's channel limit
inline constexpr int kMaxNvlsArity = 32;     // NCCL_MAX_NVLS_ARITY (hardware.md 1.1)

/// A ring or tree graph as NCCL's search (search.cc ncclTopoCompute) would
/// find it: `channels` channels of `speed` GB/s each.
struct GraphEstimate {
  int channels = 1;
  double speed = 0;
  double total() const { return channels * speed; }
};

/// NCCL's ring search reduced to its bandwidth bookkeeping: every channel
/// passes every GPU of a node once, so channels x speed must fit the slowest
/// GPU's local bandwidth `local_bw`; across nodes every channel also enters
/// and leaves each node through a NIC, so channels x speed must fit the
/// node's `nics` NICs of `nic_bw` each (a NIC carries floor(nic_bw / speed)
/// channels), and a channel's last GPU in a node sends to the NIC instead of
/// a peer. Where the library spreads the channels' exits over a node's GPUs
/// (`ppn`, the node's GPU count; 0 where it does not) and each of them has a
/// NIC, a GPU forwards (ppn - 1) / ppn of the channels over its local links:
/// RCCL's model for 8 MI300X-class GPUs with 8 NICs (rome_models.cc
/// rome_model_81) lays out 8 rings that each leave by another GPU's NIC and
/// together use each of the 56 directed xGMI links once. The search keeps
/// the speed of search_speeds() with the most channels x speed (the fastest
/// on ties), then ncclTopoDupChannels doubles the channels at half the speed
/// when the speed is >= 25 GB/s and, from Hopper on, >= 50 GB/s or the
/// channels are 4 or fewer.
GraphEstimate ring_graph(int arch, bool inter, double local_bw, double nic_bw, int nics, int ppn = 0);

/// The share of a ring's channels a GPU forwards over its local links
/// across nodes where the channels leave a node by all of its `gpus` GPUs:
/// (gpus - 1) / gpus when each of them has a NIC (`nics` >= `gpus`), else 1
/// (ring_graph's bookkeeping; the ring's scale-up bytes take the same share).
inline double ring_forward_share(int nics, int gpus) { return gpus > 1 && nics >= gpus ? (gpus - 1.0) / gpus : 1.0; }

/// A tree graph's intra-node speed across nodes (search.cc ncclTopoCompute,
/// pass 2, "increase bwIntra for trees (2 nodes or collnet)"): from the
/// graph's speed, the next faster search_speeds() while the previous one is
/// under twice that speed and the graph's channels at it fit `local_bw`.
/// NCCL's tuner (RCCL's too) prices trees over at most two nodes at this
/// speed, the network's at the graph's (tuning.cc: bwIntra for nNodes <= 2).
double tree_intra_speed(int arch, const GraphEstimate& graph, double local_bw);

/// NCCL's NVLS graph (search.cc ncclTopoSearchTryNvls): `heads` heads, one
/// GPU (and across nodes its NIC) each. Every head takes `intra` GB/s from
/// every GPU's NVSwitch links and twice that from its own, so (heads + 1) x
/// intra must fit `switch_bw`. Inside one node the search must use
/// min(32, GPUs) heads; across nodes it keeps the most heads x speed with
/// speed at most the NICs' and at most one head per NIC. The second pass
/// raises `inter` towards twice `intra`, as far as the NICs carry it.
struct NvlsGraph {
  int heads = 0;
  double intra = 0;
  double inter = 0;
};
NvlsGraph nvls_graph(int arch, bool inter, int gpus, double switch_bw, double nic_bw, int nics);

/// NVLS channels (CTAs) NCCL launches (src/transport/nvls.cc ncclNvlsTuning):
/// 16 on Hopper; on Blackwell 24 inside one NVLink domain and 32 across
/// domains, retuned by ncclNvlsTreeSm100Tuning: 32 for two domains with NICs
/// of >= 48 GB/s, 24 for more domains with NICs of >= 48 GB/s (32 with NICs
/// of >= 96 GB/s and more than 8 GPUs per domain). Without `sm100_tuning`
/// (releases before 2.30, TunerTables::nvls_sm100_tuning) 32 across domains
/// whatever the NICs (NVLS_NCHANNELS_SM100). Without `one_domain_24`
/// (releases before 2.27.3, TunerTables::nvls_one_domain_24) one domain
/// runs those 32 too.
int nvls_channels(int arch, std::uint32_t nodes, double nic_bw, std::uint32_t ppn, bool sm100_tuning = true,
                  bool one_domain_24 = true);

/// The channels a ring or tree collective runs on: its graph's, duplicated
/// once more when the rings and trees are connected (src/graph/connect.cc
/// ncclTopoPostset, "Duplication should be complete now"; RCCL's the same),
/// at most MAXCHANNELS. The graph's count (ring_graph) is what NCCL's tuner
/// multiplies its per-channel bandwidth by; this one is how many chunks are
/// in flight.
int comm_channels(int graph_channels);

/// The bounds a run's environment puts on NCCL's channels, each 0 when not
/// set: NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS bound the rings' and
/// trees'; NCCL_MIN_CTAS and NCCL_MAX_CTAS (ncclConfig_t's minCTAs and
/// maxCTAs, which the variables override, init.cc) bound those and NVLS's;
/// NCCL_NVLS_NCHANNELS (nvlsCTAs) replaces NVLS's own count.
struct ChannelBounds {
  int min_channels = 0;
  int max_channels = 0;
  int min_ctas = 0;
  int max_ctas = 0;
  int nvls_channels = 0;
};
/// comm_channels within `bounds`, as connect.cc ncclTopoPostset applies them
/// after the doubling: at most min(NCCL_MAX_NCHANNELS, maxCTAs), then the
/// channels copied up to max(NCCL_MIN_NCHANNELS, minCTAs), never beyond
/// MAXCHANNELS. NCCL lowers a minCTAs above maxCTAs to it (init.cc); the
/// NCHANNELS pair has no such rule, and the minimum wins.
int comm_channels(int graph_channels, const ChannelBounds& bounds);
/// NVLS's channels: `tuned` (nvls_channels), or NCCL_NVLS_NCHANNELS when set,
/// held to [minCTAs, maxCTAs] (transport/nvls.cc ncclNvlsTuning: "Clamp
/// nvlsChannels to [minCTAs, maxCTAs]"); NCCL_MIN/MAX_NCHANNELS do not
/// touch them.
int bounded_nvls_channels(int tuned, const ChannelBounds& bounds);

/// Threads a Simple tree channel starts with (tuning.cc maxThreads[TREE]
/// [SIMPLE] = NCCL_SIMPLE_MAX_NTHREADS, src/include/device.h: NCCL 512; RCCL
/// 256, its NCCL_MAX_NTHREADS; a ring's drops to 256 on graphs no faster than
/// PCIe) and the bytes each must have before NCCL adds a channel
/// (NCCL_SIMPLE_THREAD_THRESHOLD, src/include/comm.h: 64 in both).
inline constexpr int kSimpleMaxThreads = 512;
inline constexpr int kRcclSimpleMaxThreads = 256;
inline constexpr int kSimpleThreadThreshold = 64;

/// The channels a ring or tree collective of `bytes` runs on out of the
/// communicator's `channels` (src/enqueue.cc, "Ring/Tree channel tuning"):
/// one fewer while bytes < channels x `threads` x `threshold`, at least one.
/// A small Simple collective thus gives each channel threads x threshold
/// bytes (32 KiB in NCCL) rather than spreading thin over all of them.
int collective_channels(int channels, double bytes, int threads, int threshold);

/// NCCL's modelled bandwidth of one NVLink (topo.h ncclTopoNVLinkBw: SM70 and
/// SM80 20, SM90 20.6, SM100 40.1 GB/s), by architecture index.
inline constexpr std::array<double, 4> kNvlinkBw = {20.0, 20.0, 20.6, 40.1};

/// The Simple step of a send or receive over NVLink (NCCL_P2P_NVL_CHUNKSIZE,
/// src/init.cc: 512 KiB).
inline constexpr double kP2pNvlChunk = 512.0 * 1024;

/// The communicator's channels for sends and receives (p2pnChannels,
/// paths.cc ncclTopoComputeP2pChannels): its channels rounded up to a
/// power of two, at most MAXCHANNELS.
int p2p_comm_channels(int comm_channels);

/// The channels NCCL gives sends and receives between ranks joined by
/// NVLink in one node: `per_peer` (p2pnChannelsPerPeer, paths.cc: 2 per
/// NVLink to the peer, as a power of two, at most the communicator's) and
/// `start` (enqueue.cc: per_peer halved while start x ranks exceeds the
/// communicator's p2pnChannels, its channels as a power of two).
struct P2pChannels {
  int per_peer = 1;
  int start = 1;
};
P2pChannels p2p_channels(int comm_channels, int nvlinks, int ranks);

/// The channels one send of `bytes` runs on (enqueue.cc addP2pToPlan, one
/// node): as many of `start` as parts of chunk / 8 fill, doubled while a
/// part exceeds 32 chunks and the channels are at most half of per_peer.
/// A send of 32 MiB among 8 H100s runs on 4 channels (parts of 8 MiB), of
/// 1 GiB on 32.
int p2p_send_channels(double bytes, P2pChannels channels, double chunk = kP2pNvlChunk);

/// The most a send's channel carries with LL (NCCL_P2P_LL_THRESHOLD,
/// src/enqueue.cc: 16384 bytes); larger parts go Simple.
inline constexpr double kP2pLLThreshold = 16384;

/// Point-to-point operations one channel runs at once: a work batch
/// (NCCL_MAX_DEV_WORK_P2P_PER_BATCH, src/include/device.h, since 2.22.3).
inline constexpr int kP2pPerBatch = 8;

/// The work batches one channel runs in turn for an all-to-all among
/// `ranks` in `nodes` nodes on `p2p_channels` channels (the communicator's
/// as a power of two), each peer's operation on one channel, as it is where
/// a peer's part is small (enqueue.cc scheduleP2pTasksToPlan; channel.h
/// ncclP2pChannelBaseForRound). One node: round r (a peer) runs on channel
/// reverse(r), and a channel's rounds share a batch only within the same
/// eight rounds. Across nodes: the rounds of one node's peers go in batches
/// of eight to one channel, the nodes' batches spread over the channels. A
/// batch waits for its peers before the next starts, so the batches, not
/// the peers, set how an all-to-all's latency grows with its ranks. At
/// least 1.
int p2p_batches(int ranks, int nodes, int p2p_channels);

/// NCCL's tree depth (src/graph/connect.cc connectTrees, "not an exact
/// value"): ranks per node - 1 + floor(log2(nodes)).
double nccl_tree_depth(std::uint32_t ranks_per_node, std::uint32_t nodes);

/// Tree/Simple's chunk for `bytes` on `channels` channels in the releases
/// that shrink it (NCCL before 2.20.3, TunerTables::tree_chunk_by_depth, and
/// RCCL, whose enqueue.cc keeps it at 2.21.5): from `chunk`, halved while
/// bytes / (channels x chunk) (whole chunks) is under 8 x `depth` and the
/// chunk above 128 KiB, under 4 x depth above 64 KiB, under depth above 32
/// KiB.
double tree_chunk_for_size(double chunk, double bytes, double channels, double depth);

/// Bytes that leave the busiest node of NCCL's double binary tree per byte of
/// the buffer (trees.cc ncclGetDtree: a btree and its mirror or shift, each
/// carrying half the data): 1 for two nodes (each is the root of one tree and
/// a leaf of the other), 1.5 for three, 2 from four on (an inner node of one
/// tree, a leaf of the other); 0 for one node.
double tree_traffic(std::uint32_t nodes);

/// Hops a chunk makes through NCCL's tree, up and then down: a chain through
/// the `ppn` GPUs of each node and ceil(log2(nodes)) levels across nodes.
double tree_depth(std::uint32_t ppn, std::uint32_t nodes);

/// NCCL's Simple buffer without NCCL_BUFFSIZE: 4 MiB (src/init.cc
/// DEFAULT_BUFFSIZE; the 1 MiB of Arm hosts went in NCCL 2.19.1).
inline constexpr double kDefaultSimpleBuffer = 4.0 * 1024 * 1024;

/// The chunk one step of a tree moves (src/enqueue.cc calcCollChunking): a
/// protocol buffer's step (buffer / NCCL_STEPS; LL carries half its lines'
/// bytes, LL128 120 of every 128), Simple's from `simple_buffer`.
double tree_chunk(int proto, double simple_buffer = kDefaultSimpleBuffer);

/// NVLSTree's chunk before the size rules: min(the NVLS chunk, the NVLSTree
/// maximum), as src/transport/nvls.cc sets them (ncclNvlsTuning and, on
/// Blackwell across nodes, ncclNvlsTreeSm100Tuning): 128 KiB and, without
/// Blackwell's tuning, a maximum of 64 KiB from 4 nodes on. On Blackwell,
/// with NICs of >= 48 GB/s: two nodes of at most 4 GPUs 256 KiB; two nodes
/// of 16 GPUs or more (two NVL72 racks), or of at most 8 whose NICs sit
/// below PCIe switches (NCCL's path PXB or better: not `nic_through_cpu`)
/// with NICs under 96 GB/s, 64 KiB; more nodes with NICs of >= 96 GB/s 256
/// KiB for at most 8 GPUs a node, else 128 KiB under 32 GPUs and 64 KiB
/// from 32; more nodes with slower NICs 128 KiB through the CPU (on GB200,
/// NCCL's P2C path through Grace) and 64 KiB below PCIe switches.
/// Without `sm100_tuning` (releases before 2.30, TunerTables::
/// nvls_sm100_tuning) Blackwell takes the default too.
double nvlstree_chunk(int arch, std::uint32_t nodes, std::uint32_t ppn, double nic_bw, bool nic_through_cpu,
                      bool sm100_tuning = true);

/// The chunk NCCL gives an NVLS (or NVLSTree) collective of `bytes` with
/// `ops` = channels x heads operations in flight (enqueue.cc): from 128 KiB
/// (NVLSTree: nvlstree_chunk) down to 64 KiB below 64 (NVLSTree 4) chunks per
/// operation, 32 KiB below 8 (NVLSTree 1) and, for NVLS, 16 KiB below 2.
/// NVLS's starts at no more than a Simple step (`simple_buffer` / NCCL_STEPS),
/// NVLSTree's at its own maximum whatever the buffer.
double nvls_chunk(bool tree, int arch, std::uint32_t nodes, std::uint32_t ppn, double nic_bw, bool nic_through_cpu,
                  double bytes, double ops, bool sm100_tuning = true, double simple_buffer = kDefaultSimpleBuffer);

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

/// The tree correction factor for `bytes` (ncclTopoGetAlgoTime): indexed by
/// log2(bytes / 64) from 64 B, 1 below the table and from index `limit` on
/// (23 for Tree, 24 for NVLSTree).
inline double tree_correction(int proto, std::uint64_t bytes, int limit = 23) {
  if (bytes < 64) return 1.0;
  const int index = static_cast<int>(std::bit_width(bytes / 64)) - 1;
  if (index >= limit || index > 23) return 1.0;
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

/// Protocol buffer per channel and peer (src/init.cc computeBuffSizes): Simple
/// `simple_buffer` (NCCL_BUFFSIZE, else kDefaultSimpleBuffer), LL 8 lines x
/// 512 threads x 8 steps x 16 B = 512 KiB, LL128 120 x 640 x 8 x 8 B = 4800
/// KiB.
inline double protocol_buffer(int proto, double simple_buffer = kDefaultSimpleBuffer) {
  switch (proto) {
    case kLL: return 8.0 * 512 * 8 * 16;
    case kLL128: return 120.0 * 640 * 8 * 8;
    default: return simple_buffer;
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

/// RCCL's own tuning for AMD Instinct GPUs, which replaces NCCL's tables on
/// AMD (ROCm/rccl src/graph/tuning.cc, tuning_model_5, the model RCCL's MI300X
/// hive topologies select with "tuning=5,ll128Enabled=1"; values verbatim).
namespace topoplan::rccl {

using nccl::ProtoRow;

/// baseLat [algo][LL, LL128, Simple]: Tree, Ring.
inline constexpr std::array<ProtoRow, 2> kBaseLatency = {{{12.0, 12.0, 17.0}, {12.0, 12.0, 17.0}}};

/// hwLat [hw][algo][proto] for Tree and Ring; the "NVLINK" row is xGMI.
inline constexpr std::array<std::array<ProtoRow, 2>, 3> kHwLatency = {{
    {{{0.9, 0.9, 2.3}, {0.8, 0.8, 2.1}}},      // xGMI
    {{{2.2, 2.2, 5.7}, {2.2, 2.2, 5.7}}},      // PCI
    {{{10.5, 10.5, 25.0}, {9.5, 9.5, 320.0}}}, // NET
}};

/// bwRatio [nodes <= 2, more][algo][proto]: RCCL's busBw multipliers, which
/// take the place of NCCL's protocol factors. Ring LL moves 8 % of the link
/// rate (an MI300X 1 MiB all-reduce takes 82 us on Azure ND MI300X v5 with
/// one process for the 8 GPUs; with a process per GPU MSCCL runs it).
inline constexpr std::array<std::array<ProtoRow, 2>, 2> kBwRatio = {{
    {{{0.06, 0.06, 0.11}, {0.08, 0.08, 1.00}}},
    {{{0.06, 0.06, 0.59}, {0.08, 0.08, 1.00}}},
}};

/// The protocol RCCL forces by size on gfx942 (llProtoRanges): LL up to
/// `ll_max` bytes, LL128 up to `ll128_max`, Simple above; allreduce 1 MiB /
/// 9 MiB, allgather 96 KiB / 4.8 MiB, reducescatter 640 KiB / 3.1 MiB. Other
/// collectives are left to the tuner (ll_max = 0).
struct ProtocolRange {
  std::uint64_t ll_max = 0;
  std::uint64_t ll128_max = 0;
};
ProtocolRange protocol_range(Collective op);

/// RCCL's MSCCL all-pairs all-reduce (ROCm/rccl tools/msccl-algorithms,
/// allreduce-allpairs-8n-*.xml, since ROCm 6.0; msccl_lifecycle.cc runs it
/// ahead of the tuner). RCCL loads it where a node matches its topology model
/// 79, 8 GPUs in one fully connected xGMI mesh with 7 links each
/// (rome_models.cc, "mscclEnabled=1"), and runs it for an 8-rank sum whose
/// element count is a multiple of the XML's chunks per loop and whose size
/// is in the XML's range: LL on 4 channels to 64 KiB (256 chunks), LL on 8
/// channels below 512 KiB (512), Simple on 8 channels from 512 KiB to 16 MiB
/// (512). Each GPU sends every peer its share of the buffer straight over
/// their link, reduces what it receives and sends the sum back: two hops.
inline constexpr int kAllPairsRanks = 8;
inline constexpr std::uint64_t kAllPairsFewChunksMax = 65536;  // the 4-channel LL XML's maxBytes
inline constexpr std::uint64_t kAllPairsFewChunks = 256;       // its chunks per loop
inline constexpr std::uint64_t kAllPairsChunks = 512;          // the 8-channel XMLs'
inline constexpr std::uint64_t kAllPairsLLMax = 524287;
inline constexpr std::uint64_t kAllPairsSimpleMax = 16777216;

/// The all-pairs XML's protocol for an all-reduce of `bytes` in elements of
/// `element_bytes` (nccl-tests' float: 4); nullopt where RCCL runs its own
/// algorithms instead (the count is not a multiple of the XML's chunks per
/// loop, or the size is beyond 16 MiB).
std::optional<Protocol> allpairs_protocol(std::uint64_t bytes, std::uint64_t element_bytes = 4);

/// The share of a link's rate the all-pairs Simple XML moves: fitted, the
/// one constant of this path. AMD's own 8 x MI300X curve (ROCm blog "Understanding
/// RCCL Bandwidth and xGMI Performance on AMD Instinct MI300X", Mar 2025, RCCL
/// 2.22.3, one process per GPU) grows 31 us per MB of a link's share from 2 to
/// 16 MiB: 32 GB/s of the 48 its TransferBench run measures per link
/// (bench/data a243-a245). LL needs none: it moves at LL's half of the link
/// (a242, 256 KiB, within 4 %).
inline constexpr double kAllPairsSimpleEfficiency = 0.67;

}  // namespace topoplan::rccl
