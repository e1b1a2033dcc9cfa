// How the topo policy compares with its peers on the sample mixes.
//
//   topoplan_policy_bench [SOURCE_DIR]
//
// For each mix in samples/ (topology, manifest): every policy plans the same
// queue; the report gives jobs placed, total communication seconds per step
// (with shared links), each peer's total relative to topo's (> 1: topo is
// faster), the largest free domain left at the scale-up island level, and
// the constraint problems of each plan. Exit status 1 when a peer whose plan
// has no more problems than topo's places more jobs, or as many in less
// total time.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_support.hpp"
#include "topoplan/io/topology_source.hpp"
#include "topoplan/model/fabric.hpp"
#include "topoplan/placement/comparison.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/jobs_yaml.hpp"

namespace {

struct Mix {
  const char* topology;
  const char* manifest;
};

constexpr Mix kMixes[] = {
    {"gb200-nvl72:racks=8", "samples/jobs-nvl72.yaml"},
    {"dgx-h100:nodes=128", "samples/jobs-superpod.yaml"},
    {"pcie-8gpu:nodes=32", "samples/jobs-pcie-fleet.yaml"},
};

}  // namespace

int main(int argc, char** argv) {
  using namespace topoplan;
  using bench::slurp;
  std::string root = argc > 1 ? argv[1] : TOPOPLAN_SOURCE_DIR;
  const std::vector<std::string> policies = {"topo", "kueue", "slurm", "naive"};
  bool ok = true;
  for (const Mix& mix : kMixes) {
    Topology t = load_topology(mix.topology, [](const std::string&) { return std::optional<std::string>(); });
    std::vector<Job> jobs = parse_jobs_yaml(slurp(root + "/" + mix.manifest), mix.manifest);
    JobPricer pricer(t);
    PlanOptions options;
    options.topology_name = mix.topology;
    options.pricer = &pricer;
    Comparison c = compare_policies(t, jobs, policies, options);
    ScaleUpIslands islands = find_scale_up_islands(t);
    LevelIndex island = islands.size.empty() ? t.host_level() : islands.level;
    if (island == 0) island = t.host_level();
    fmt::print("{} with {}\n", mix.manifest, mix.topology);
    fmt::print("  {:<8} {:>7} {:>14} {:>12} {:>20} {:>9}\n", "policy", "placed", "comm s/step", "vs topo",
               fmt::format("largest free {}", t.levels()[island].name), "problems");
    // A plan that breaks a job's constraints (a spread, a required level, a
    // tenant's isolation) buys its step time with them: it is shown, with
    // its count of problems, but only a plan with no more problems than
    // topo's can be ahead of it.
    auto problems = [](const Plan& p) {
      std::size_t n = 0;
      for (const JobPlacement& jp : p.placements) n += jp.problems.size();
      return n;
    };
    const Plan& topo = c.plans.front();
    for (const Plan& p : c.plans) {
      double ratio = p.summary.step_seconds_total / topo.summary.step_seconds_total;
      fmt::print("  {:<8} {:>4}/{:<2} {:>14.3f} {:>11.3f}x {:>20} {:>9}\n", p.policy, p.summary.placed, p.summary.jobs,
                 p.summary.step_seconds_total, ratio, p.summary.levels[island].largest_free, problems(p));
      if (problems(p) > problems(topo)) continue;
      if (p.summary.placed > topo.summary.placed ||
          (p.summary.placed == topo.summary.placed && ratio < 1.0 - 1e-9))
        ok = false;
    }
    fmt::print("\n");
  }
  if (!ok) fmt::print("topo is behind a peer that keeps as many constraints on at least one mix\n");
  return ok ? 0 : 1;
}
