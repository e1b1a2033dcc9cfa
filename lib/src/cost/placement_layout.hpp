// How one set of ranks lies on the fabric: its groups (scale-up islands, or
// nodes without scale-up links), the bandwidth each tier offers it and how
// often its traffic crosses each domain boundary. Computed per query into
// reusable scratch space; the pricing in cost_model.cpp reads only this.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "topoplan/cost/collective.hpp"
#include "topoplan/cost/cost_model.hpp"
#include "topoplan/cost/fabric_profile.hpp"
#include "topoplan/cost/nccl_tuning.hpp"

namespace topoplan {

/// Which traffic pattern a collective's domain crossings follow.
enum class TrafficFamily : std::uint8_t {
  ring,  // rings and trees: each crossing of a domain boundary carries the same stream
  a2a,   // all-to-all: every rank sends a share of its data to every other
  p2p,   // sendrecv: rank r sends to rank r+1
};

TrafficFamily family_of(Collective op);

/// The worst domain of one level, per traffic family.
struct LevelLoad {
  LevelIndex level = 0;
  // ring: the domain with the least egress per crossing
  double ring_cap = 0;          // GB/s its egress offers this job
  double ring_crossings = 0;    // times the job's group sequence leaves it
  DomainId ring_where = kNone;
  // all-to-all: the domain with the most bytes per GB/s of egress
  double a2a_factor = 0;        // bytes leaving it per byte of size: n_D (n - n_D) / n
  double a2a_cap = 0;
  DomainId a2a_where = kNone;
  // sendrecv
  double p2p_cap = 0;
  double p2p_flows = 0;         // rank pairs leaving it
  DomainId p2p_where = kNone;
};

inline constexpr std::size_t kMaxLevels = 16;

struct Layout {
  std::uint32_t n = 0;          // ranks
  std::uint32_t groups = 0;     // islands (or PCIe nodes): NCCL's nNodes
  std::uint32_t nodes = 0;      // hosts
  bool single_node = false;
  bool island_spans_hosts = false;  // some rank's island holds several hosts (multi-node NVLink)
  bool group_spans_hosts = false;   // some group's ranks sit on several hosts: NCCL's hops cross them
  Generation generation = Generation::ampere;
  int arch = 2;                 // row of NCCL's [arch] tables
  bool lpu = false;
  bool all_scale_up = false;    // every group is a scale-up island
  bool all_switched = false;    // ... joined by NVSwitches
  bool ll128 = false;           // NCCL enables LL128 here
  bool amd_host = false;
  bool arm_host = false;
  bool in_network_reduction = false;  // the groups meet through switches that reduce (SHARP)
  NicPath nic_path = NicPath::pcie;  // the worst path a rank takes to its NIC
  std::uint32_t max_group = 0;  // ranks per group
  std::uint32_t min_group = 0;
  std::uint32_t island_capacity = 0;  // accelerators of the largest island (or node's group) the ranks touch

  // Per rank, inside its group (the slowest rank).
  double local_bw = 0;
  std::uint32_t local_where = kNone;  // accelerator index
  bool local_pcie = false;            // that rank's group has no scale-up links
  double switch_bw = 0;               // to NVSwitches
  std::uint32_t switch_where = kNone;
  double nic_bw = 0;
  std::uint32_t nic_where = kNone;
  // Between the sockets of a node whose ranks sit under both (PCIe groups).
  double socket_bw = 0;
  DomainId socket_where = kNone;      // the node
  // Out of the weakest group.
  double island_bw = 0;
  DomainId island_where = kNone;
  LevelIndex island_level = 0;
  // The NICs a graph can use: the fewest ranks with a NIC (PCIe link for
  // groups inside one node) in a group, and the lowest mean share among groups.
  std::uint32_t nics_min = 0;
  double nic_mean_min = 0;

  // All-to-all, per tier the worst (bytes per byte of size, GB/s).
  double a2a_local_factor = 0, a2a_local_bw = 0;
  std::uint32_t a2a_local_where = kNone;
  double a2a_fwd_factor = 0, a2a_fwd_bw = 0;  // with PXN forwarding over the scale-up fabric
  std::uint32_t a2a_fwd_where = kNone;
  double a2a_nic_factor = 0, a2a_nic_bw = 0;
  std::uint32_t a2a_nic_where = kNone;
  double a2a_island_factor = 0, a2a_island_bw = 0;
  DomainId a2a_island_where = kNone;

  // Sendrecv: the slowest pair r -> r+1.
  double pair_bw = 0;
  Tier pair_tier = Tier::scale_up;
  std::uint32_t pair_where = kNone;

  const LevelLoad* levels = nullptr;  // [0, level_count) in the scratch's level store
  std::uint32_t level_count = 0;

  double route_latency = 0;     // network latency NIC to NIC between the farthest consecutive groups
  double lpu_step_us = 0;       // LPU: the longest hop sequence of one ring step
  double lpu_chain_us = 0;      // LPU: along the whole chain of ranks
};

/// NCCL's graphs for one set of layout figures (nccl_tuning.hpp), memoised:
/// most queries of a plan or a step repeat them.
struct GraphEntry {
  // The inputs.
  int arch = -1;
  bool inter = false;
  double local_bw = 0, nic_bw = 0, nic_mean = 0, switch_bw = 0;
  std::uint32_t nics = 0, ppn = 0, groups = 0;
  std::uint32_t spread_gpus = 0;  // the channels leave a node by all of this many GPUs (RCCL), or 0
  // The outputs.
  nccl::GraphEstimate ring;
  double ring_share = 1;  // nccl::ring_forward_share across nodes: what a GPU forwards of a ring
  double tree_intra = 0;  // nccl::tree_intra_speed of `ring` across nodes
  nccl::NvlsGraph nvls;
  bool valid = false;
};

/// Reusable per-model buffers, sized for one topology.
struct CostModel::Scratch {
  explicit Scratch(const FabricProfile& fabric);

  struct Group {
    std::uint32_t size = 0;
    std::uint32_t island = kNone;
    DomainId node = kNone;      // of its first rank
    DomainId name = kNone;      // the domain that names it
    bool switched = false;
    bool multi_socket = false;
    bool multi_host = false;  // its ranks sit on several hosts (a multi-node NVLink domain)
    DeviceId socket = kNone;
    double nic_sum = 0;
    double pcie_sum = 0;
    std::uint32_t nic_ranks = 0;  // ranks with a NIC share of their own
  };
  struct DomainLoad {
    std::uint32_t ranks = 0;
    double nic = 0;
    double ring_out = 0;
    double p2p_out = 0;
  };

  std::uint32_t next_stamp();
  void begin_totals();
  void end_totals();

  std::uint32_t stamp = 0;
  std::vector<std::uint32_t> accel_stamp;   // per accelerator index
  std::vector<std::uint32_t> key_stamp;     // per group key (island, or islands + node)
  std::vector<std::uint32_t> group_of_key;
  std::vector<std::uint32_t> domain_stamp;  // per domain, one level at a time
  std::vector<DomainLoad> domain_load;
  std::vector<std::uint32_t> node_stamp;
  std::vector<DomainId> touched;
  std::vector<std::uint32_t> rank_accel;
  std::vector<std::uint32_t> rank_group;
  std::vector<double> rank_local;
  std::vector<Group> groups;
  std::vector<DomainId> group_anc;
  // Contention: this query's weight (flows) per domain; every query's flows
  // and bytes per shared domain; and the totals analyse() reads, set per query.
  std::vector<std::pair<DomainId, double>> weights;
  struct Share {
    DomainId domain = kNone;
    std::uint32_t query = 0;  // index into pending
    double flows = 0;         // the query's weight in the domain
    double bytes = 0;         // flows x the query's size: what it pushes through
    double total = 0;         // the flows the domain's egress is divided by for this query
  };
  std::vector<Share> shares;
  std::vector<double> totals;
  std::vector<DomainId> totals_touched;
  std::vector<std::size_t> pending;         // queries that wait for pass 2
  // The collective groups of one kind of a step (CostModel::steps).
  struct StepGroups {
    std::vector<DeviceId> pool;
    std::vector<std::size_t> offset, size, job;
    std::vector<Collective> op;
    std::vector<std::uint64_t> bytes;
    std::vector<Algorithm> algorithm;
    std::vector<CollectiveQuery> queries;
    void clear() {
      pool.clear();
      offset.clear();
      size.clear();
      job.clear();
      op.clear();
      bytes.clear();
      algorithm.clear();
    }
    void begin(std::size_t owner, Collective collective, std::uint64_t b, Algorithm a = Algorithm::automatic) {
      offset.push_back(pool.size());
      size.push_back(0);
      job.push_back(owner);
      op.push_back(collective);
      bytes.push_back(b);
      algorithm.push_back(a);
    }
    void add(DeviceId rank) {
      pool.push_back(rank);
      ++size.back();
    }
  };
  StepGroups step_groups;
  // Hop search for LPU chains.
  std::vector<std::uint32_t> hop_stamp;     // per device
  std::vector<double> hop_latency;
  std::vector<DeviceId> hop_queue;
  Layout layout;
  std::array<LevelLoad, kMaxLevels> level_store;
  std::array<GraphEntry, 16> graphs{};  // direct-mapped by a hash of the inputs
  // The last query priced without candidates and its result (the groups of
  // one kind of a step are mostly alike): its layout figures and levels.
  struct PricedMemo {
    bool valid = false;
    Layout layout;
    std::array<LevelLoad, kMaxLevels> levels;
    GraphEntry graphs;
    Collective op = Collective::allreduce;
    std::uint64_t bytes = 0;
    Algorithm algorithm = Algorithm::automatic;
    AlgorithmSet allowed = 0;
    ProtocolSet protocols = 0;
    bool nccl_sends = true;
    CollectiveCost cost;
  };
  PricedMemo memo;
};

/// Whether two layouts price alike: every figure and level equal, wherever
/// they lie (the *_where fields may differ).
bool same_figures(const Layout& a, const Layout& b);

/// NCCL's ring and NVLS graphs and NVLS channels for `layout`, from the memo.
const GraphEntry& graphs_of(CostModel::Scratch& scratch, const Layout& layout);

/// Analyses `ranks` into `scratch.layout`. With `totals`, every domain's
/// egress is divided by totals[domain] flows, of which the query has its own
/// (CostModel::concurrent sets them by processor sharing). Throws InputError
/// for ranks that are not accelerators, repeats, or a mix of GPUs and LPUs.
const Layout& analyse(CostModel::Scratch& scratch, const FabricProfile& fabric, std::span<const DeviceId> ranks,
                      TrafficFamily family, const std::vector<double>* totals);

}  // namespace topoplan
