// What a refused Groq shape costs: the planner's place() of a chain that
// does not fit, reason and suggestion included (three chain searches: the
// free chips, then every chip weighed by what is taken, for the jobs in
// the way), on a full and on a fragmented cluster, one rack and 145 racks
// (10,440 LPUs, the largest Dragonfly of the groq preset).
//
//   topoplan_chain_bench [REPEATS]   (default 5)
//
// Full: every chip taken. Fragmented: 7 of each GroqNode's 8 chips taken,
// so the free chips are one per node, linked only where a global link
// happens to join two free ones. Prints milliseconds per refusal (the
// least over the repeats, CPU time) and exits 1 when one takes longer than
// the target: a refusal should cost about what a placement does, not the
// search's whole budget (issue 14).
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "topoplan/io/topology_source.hpp"
#include "topoplan/placement/jobs_yaml.hpp"
#include "topoplan/placement/planner_state.hpp"

using namespace topoplan;

namespace {

constexpr double kTargetMs = 50;

double cpu_ms(std::clock_t start) {
  return 1000.0 * static_cast<double>(std::clock() - start) / static_cast<double>(CLOCKS_PER_SEC);
}

// The cluster with `taken` chips of every node held by one job per node.
PlannerState filled(const Topology& t, std::uint32_t taken) {
  PlannerState state(t);
  const Job filler = parse_jobs_yaml(fmt::format("jobs: [{{name: fill, lpus: {}}}]", taken), "fill.yaml").front();
  auto [first, last] = t.domains_at(t.host_level());
  for (DomainId node = first; node < last; ++node) {
    const Domain& d = t.domain(node);
    Job job = filler;
    job.name = fmt::format("fill{}", node - first);
    JobPlacement p;
    p.placed = true;
    p.replicas.emplace_back();
    for (std::uint32_t a = d.accel_begin; a < d.accel_begin + taken && a < d.accel_end; ++a)
      p.replicas.back().push_back(t.accelerators()[a]);
    state.occupy(job, p);
  }
  return state;
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::stoi(argv[1])) : 5;
  auto no_files = [](const std::string&) { return std::optional<std::string>(); };
  bool ok = true;
  for (const char* topology : {"groq:racks=1", "groq:racks=145"}) {
    Topology t = load_topology(topology, no_files);
    for (std::uint32_t taken : {8u, 7u}) {
      for (const char* spec :
           {"{name: pipe, lpus: 16, shape: chain, deterministic: true}",
            "{name: pipe, lpus: 9, shape: chain, deterministic: true}", "{name: loop, lpus: 24, shape: ring}"}) {
        Job job = parse_jobs_yaml(fmt::format("jobs: [{}]", spec), "bench.yaml").front();
        double best = 1e300;
        std::string reason;
        for (int k = 0; k < repeats; ++k) {
          PlannerState state = filled(t, taken);
          std::clock_t start = std::clock();
          PlannerState::PlaceResult r = state.place(job);
          best = std::min(best, cpu_ms(start));
          reason = r.id == kNone ? r.placement.reason : "placed";
        }
        fmt::print("{:<15} {} taken/node  {:<7} {:>3} {:<5}  {:8.2f} ms  {}\n", topology, taken, job.name,
                   job.per_replica, job.shape == ChainShape::ring ? "ring" : "chain", best, reason);
        ok = ok && best <= kTargetMs;
      }
    }
  }
  if (!ok) fmt::print("a refusal took longer than {} ms\n", kTargetMs);
  return ok ? 0 : 1;
}
