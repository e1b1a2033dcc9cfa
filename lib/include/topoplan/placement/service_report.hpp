// What a placed inference service gets: the availability guarantee achieved
// per level, KV transfer time and path per request, memory per accelerator
// against HBM, TTFT and TPOT (compute and communication, service_latency.hpp)
// per role replica with SLO verdicts,
// and which role and slice every device serves. Plan, evaluate, check and
// compare print it (text and JSON); service_problems are check's failures.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/planner.hpp"
#include "topoplan/placement/service.hpp"
#include "topoplan/placement/service_latency.hpp"

namespace topoplan {

class CostModel;
class JsonWriter;

/// Failures of one level a service survives.
struct LevelSurvival {
  LevelIndex level = 0;
  std::uint32_t survives = 0;            // domains of the level that may fail with >= min_slices left
  std::uint32_t slices_after_worst = 0;  // slices left after the worst single domain failure
  DomainId worst = kNone;                // that domain
  std::uint32_t worst_slices = 0;        // slices it takes down
};

struct RoleMemoryFit {
  std::uint32_t role = 0;
  double need_gib = 0;
  double have_gib = 0;  // the smallest HBM among the role's accelerators; 0 = unknown
  bool fits = true;
};

struct KvPath {
  bool known = false;      // the service is disaggregated, its workload gives KV sizes and a model priced it
  double bytes = 0;        // KV of one prompt
  double seconds = 0;      // the worst slice's transfer (its prefill replica to the nearest decode replica)
  double gbps = 0;
  bool scale_up = false;   // over NVLink (one scale-up island)
  LevelIndex level = 0;    // finest level whose one domain holds both ends
  std::uint32_t slice = 0; // the worst slice
};

struct SloVerdict {
  std::string target;   // "ttft_ms" or "tpot_ms"
  double target_ms = 0;
  double estimate_ms = 0;  // the worst replica's: compute + communication (+ KV hand-over for TTFT); < 0 none
  double compute_ms = -1;  // of that replica: compute (< 0 unknown), communication, KV hand-over
  double comm_ms = -1;
  double kv_ms = 0;
  bool ok = true;
};

struct ServiceReport {
  std::vector<LevelSurvival> levels;       // levels 1 .. host level
  std::optional<LevelSurvival> guarantee;  // at the availability level, when one is asked
  bool guarantee_ok = true;
  KvPath kv;
  double ttft_comm_ms = -1;  // prefill's TP/EP communication for one prompt; < 0 unknown
  double tpot_comm_ms = -1;  // decode's per output token; < 0 unknown
  double ttft_compute_ms = -1;  // the worst replica's prefill compute for one prompt; < 0 unknown
  double tpot_compute_ms = -1;  // the worst replica's decode compute per output token; < 0 unknown
  std::vector<ReplicaLatency> replicas;  // every role replica's estimate, slices in order
  std::vector<RoleMemoryFit> memory;
  std::vector<SloVerdict> slo;
  /// Every device with its slice and role replica, slices in order.
  struct Entry {
    DeviceId device = kNone;
    std::uint32_t slice = 0;
    std::uint32_t role = 0;
    std::uint32_t replica = 0;
  };
  std::vector<Entry> placement;
};

/// The report of a placed service (job `j` of `plan`); the cost model is
/// optional (without it KV and SLO figures stay unknown).
ServiceReport service_report(const Topology& topology, const Plan& plan, std::size_t j, const CostModel* model);

/// What the service breaks, one sentence each: the guarantee, a pack level,
/// the KV policy, tenant isolation, memory fit and TP/EP groups of a role
/// replica split over NVLink domains that one would hold.
void add_service_problems(const Topology& topology, const Plan& plan, std::size_t j, const CostModel* model,
                          std::vector<std::string>& problems);

/// The report as indented text lines (`indent` spaces), and as the fields
/// of an open JSON object (`availability`, `kv_transfer_ms`, `kv_path`,
/// `memory`, `slo`, `placement`).
void write_service_text(std::ostream& out, const Topology& topology, const Service& service,
                        const ServiceReport& report, std::size_t indent);
void write_service_json(JsonWriter& json, const Topology& topology, const Service& service,
                        const ServiceReport& report);

}  // namespace topoplan
