// The collective cost model: how long a collective takes on a set of placed
// ranks, structured like NCCL's tuner (per algorithm and protocol, latency +
// size / bandwidth) with bandwidths derived from the topology graph, tier by
// tier: inside scale-up islands, out of islands through NICs, and out of each
// coarser domain through its switch tier. topoplan-cost(7) documents the
// formulas, their sources and the calibration.
//
//   CostModel model(topology);
//   CollectiveCost c = model.collective({ranks, Collective::allreduce, 1 << 30});
//
// A CostModel keeps a reference to its topology and reusable scratch space:
// its methods are const but not safe to call from two threads at once; use one
// model per thread.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "topoplan/cost/collective.hpp"
#include "topoplan/cost/fabric_profile.hpp"
#include "topoplan/cost/step_cost.hpp"
#include "topoplan/model/nccl_version.hpp"
#include "topoplan/model/topology.hpp"

namespace topoplan {

namespace nccl {
struct TunerTables;
}

/// One collective on placed ranks. The query views its ranks: keep the
/// vector they live in alive while the query is used.
struct CollectiveQuery {
  std::span<const DeviceId> ranks;  // accelerators in rank order, no repeats
  Collective op = Collective::allreduce;
  std::uint64_t bytes = 0;          // nccl-tests size: the total buffer for allgather/reducescatter
  Algorithm algorithm = Algorithm::automatic;
  /// With `automatic`: the algorithms NCCL may choose from (NCCL_ALGO).
  AlgorithmSet allowed = kAllAlgorithms;
  /// The protocols NCCL may use (NCCL_PROTO), for a requested algorithm too.
  ProtocolSet protocols = kAllProtocols;
  /// An all-to-all's or send's data moves on NCCL's channels, whose CTAs'
  /// copy rate and batches of sends price it; false for a kernel of its own
  /// (an expert-parallel kernel's wire, ep_kernel.hpp), priced by the links.
  bool nccl_sends = true;
};

/// The traffic of one tier for the chosen algorithm.
struct TierCost {
  Tier tier = Tier::scale_up;
  LevelIndex level = kNone;      // island: the level naming the group; level: that level
  std::uint32_t where = kNone;   // DomainId for island/level/socket; accelerator index otherwise
  std::uint8_t phase = 0;        // hierarchical algorithms run phases one after another
  bool nvls = false;             // bandwidth includes NCCL's nvlsEfficiency
  double bytes = 0;              // bytes the busiest resource of the tier carries
  double bandwidth = 0;          // its effective GB/s per direction (its share, under contention)
  double time_us = 0;            // bytes / bandwidth
};

/// An algorithm and protocol the model priced, with its time.
struct Candidate {
  Algorithm algorithm = Algorithm::ring;
  Protocol protocol = Protocol::simple;
  double time_us = 0;   // the model's time
  double tuner_us = 0;  // NCCL's own estimate, by which auto chooses
};

inline constexpr std::size_t kMaxTiers = 20;
inline constexpr std::size_t kMaxCandidates = 16;

struct CollectiveCost {
  Collective op = Collective::allreduce;
  std::uint64_t bytes = 0;
  std::uint32_t ranks = 0;
  std::uint32_t islands = 0;        // scale-up islands (or PCIe nodes) spanned: NCCL's "nodes"
  std::uint32_t nodes = 0;          // hosts spanned
  Generation generation = Generation::ampere;  // the oldest among the ranks
  Algorithm algorithm = Algorithm::ring;
  Protocol protocol = Protocol::simple;
  bool forced = false;              // the algorithm was requested, not chosen
  bool reachable = true;            // false when some ranks have no path to each other
  bool scale_up = true;             // the islands are scale-up islands, not PCIe-only nodes
  double time_us = 0;
  double latency_us = 0;            // the latency part of time_us
  /// What crossing the island boundaries costs: time_us minus one_island_us
  /// (never below 0). For all-to-all and sendrecv, whose one-island form
  /// needs another layout, time_us minus the same algorithm and protocol on a
  /// free network (infinite bandwidth, no network latency). 0 inside one island.
  double outside_us = 0;
  /// The same collective (algorithm chosen afresh, among the allowed ones)
  /// inside one island of the same kind: on as many ranks when the largest
  /// island it touches holds them, else on a full island (one_island_ranks).
  /// 0 inside one island, and for all-to-all and sendrecv.
  double one_island_us = 0;
  std::uint32_t one_island_ranks = 0;
  double algbw_gbps = 0;            // bytes / time
  double busbw_gbps = 0;            // algbw x bus_factor
  /// The GPUs one thread drove (nccl-tests' -g; with_serial_launches) and
  /// the time its serial launches added to time_us and latency_us
  /// (serial_launch.hpp); 1 and 0 for a process per GPU, as the model prices.
  std::uint32_t gpus_per_thread = 1;
  double serial_launch_us = 0;
  /// Index into tiers() of the limiting tier; kNone when latency dominates.
  std::uint32_t bottleneck = kNone;
  /// NCCL's launch of an NVLS or NVLSTree choice (0 for other algorithms):
  /// its channels (CTAs), NVLS heads and chunk for this size (nvls.cc,
  /// enqueue.cc), which set its loops and, on Blackwell, its switch side.
  std::uint32_t nvls_channels = 0;
  std::uint32_t nvls_heads = 0;
  std::uint32_t nvls_chunk_bytes = 0;
  /// Where the channels' CTAs, not the NICs, set the transfer through each
  /// node's NICs (Hopper's rings and NVLSTree across nodes at
  /// nccl::kHopperNetChannelBw a channel): the channels and the time they
  /// take, which replaces the links' transfer in time_us. 0 elsewhere.
  std::uint32_t network_channels = 0;
  double network_channels_us = 0;
  /// Where NCCL's send channels inside one NVLink domain, not its links, set
  /// a sendrecv's or all-to-all's transfer (nccl::p2p_send_channels, one CTA
  /// each at nccl::kP2pChannelBw; transfer_us is their time): the channels a
  /// GPU's sends run on and those of one peer. 0 elsewhere.
  std::uint32_t send_channels = 0;
  std::uint32_t send_channels_per_peer = 0;
  /// The pipeline's fill in time_us (Simple trees, NVLS and NVLSTree): how
  /// long the first chunks take through the stages and hops before the
  /// transfer runs at its rate. 0 where there is none.
  double fill_us = 0;
  /// The time beside latency_us and fill_us: the tiers' transfer
  /// (`tiers_us`, the slowest tier of each phase) at the protocol's rate
  /// and the size ramp, or at the channels' or heads' pace where they bind.
  /// time_us = latency_us + transfer_us + fill_us for a collective priced
  /// alone (CostModel::collective); 0 where not set.
  double transfer_us = 0;
  double tiers_us = 0;
  /// NVLSTree across islands where NCCL's per-channel NVLSTree cap
  /// (perChMaxNVLSTreeBws, taken a head), not a tier, sets the transfer
  /// (transfer_us is its time at nvls_heads of it): the cap a head. 0
  /// elsewhere.
  double nvlstree_cap_gbps = 0;
  /// An NCCL all-to-all's sends (p2p or hierarchical; not on AMD GPUs): the
  /// work batches of up to 8 peers each channel runs in turn
  /// (nccl::p2p_batches), and the latency those after the first add to
  /// latency_us. 0 for other collectives and kernels.
  std::uint32_t p2p_batches = 0;
  double p2p_batch_us = 0;

  std::span<const TierCost> tiers() const { return {tier_data.data(), tier_count}; }
  std::span<const Candidate> candidates() const { return {candidate_data.data(), candidate_count}; }

  std::array<TierCost, kMaxTiers> tier_data{};
  std::uint32_t tier_count = 0;
  std::array<Candidate, kMaxCandidates> candidate_data{};
  std::uint32_t candidate_count = 0;
};

struct CostModelOptions {
  /// The size-dependent efficiency of the bandwidth term (nccl::ramp_efficiency
  /// for rings and trees, the first loop's fill for NVLS and NVLSTree).
  /// Off only to show what it contributes (the calibration report does).
  bool size_efficiency = true;
  /// The NCCL release whose tuner chooses (topoplan-cost(7), "NCCL
  /// versions"); without it the topology's (`nccl: {version: ...}`), and
  /// without that the newest the model follows.
  std::optional<NcclVersion> nccl_version;
};

/// Whether a tier, rather than the latency, limits a collective of
/// `time_us` of which `latency_us` is latency: the transfer is the larger
/// part (CollectiveCost::bottleneck is kNone otherwise).
inline bool transfer_bound(double time_us, double latency_us) { return time_us - latency_us > latency_us; }

/// What every price of one model shares (cost_model.cpp).
struct PriceSettings;

class CostModel {
 public:
  /// Analyses the topology's fabric once. The topology must outlive the model.
  explicit CostModel(const Topology& topology, const CostModelOptions& options = {});
  ~CostModel();
  CostModel(CostModel&&) noexcept;
  CostModel& operator=(CostModel&&) noexcept;

  const Topology& topology() const { return fabric_.topology(); }
  const FabricProfile& fabric() const { return fabric_; }
  /// The NCCL release the model follows: the options', else the topology's;
  /// empty for the newest.
  const std::optional<NcclVersion>& nccl_version() const { return nccl_version_; }

  /// Prices one collective. Throws InputError for invalid queries: no ranks,
  /// a device that is not an accelerator, a repeated rank, a zero size, or a
  /// requested algorithm that the ranks' hardware does not support.
  CollectiveCost collective(const CollectiveQuery& query) const;

  /// The query at every power-of-two multiple of `from` up to `to`, as
  /// nccl-tests -b FROM -e TO -f 2 runs it.
  std::vector<CollectiveCost> sweep(const CollectiveQuery& query, std::uint64_t from, std::uint64_t to) const;

  /// Prices collectives that run at the same time: where their traffic leaves
  /// the same domain, they share its egress, each flow an equal part.
  std::vector<CollectiveCost> concurrent(std::span<const CollectiveQuery> queries) const;
  /// The same, handing each result to `result(index, cost)` instead of
  /// keeping them all (the planner's and step()'s path).
  void concurrent(std::span<const CollectiveQuery> queries,
                  const std::function<void(std::size_t, const CollectiveCost&)>& result) const;

  /// Communication seconds per step of one job (rank mapping in step_cost.hpp).
  StepCost step(std::span<const DeviceId> ranks, const Parallelism& parallelism, const Workload& workload) const;
  /// Steps of jobs that run at the same time: each kind of communication of
  /// every job is priced together with that kind of every other job.
  std::vector<StepCost> steps(std::span<const StepQuery> jobs) const;

  /// Moving `bytes` of KV cache from a prefill pool to a decode pool.
  KvTransferCost kv_transfer(std::span<const DeviceId> prefill, std::span<const DeviceId> decode,
                             std::uint64_t bytes) const;

  struct Scratch;

 private:
  // concurrent(); without `candidates`, only the chosen candidate is timed
  // and none is listed (what step() and steps() need).
  void price_concurrent(std::span<const CollectiveQuery> queries,
                        const std::function<void(std::size_t, const CollectiveCost&)>& result, bool candidates) const;

  // The query within the topology's NCCL environment (Topology::
  // nccl_environment): its algorithms and protocols narrowed to those the
  // platform allows. Throws InputError for a requested algorithm it rules out.
  CollectiveQuery in_environment(const CollectiveQuery& query) const;
  // The options' and the topology's NCCL environment's settings every price
  // of this model shares.
  PriceSettings price_settings() const;

  FabricProfile fabric_;
  CostModelOptions options_;
  std::optional<NcclVersion> nccl_version_;
  const nccl::TunerTables* tables_ = nullptr;
  AlgorithmSet env_algorithms_ = kAllAlgorithms;
  ProtocolSet env_protocols_ = kAllProtocols;
  std::unique_ptr<Scratch> scratch_;
};

}  // namespace topoplan
