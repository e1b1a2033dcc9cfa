#include "topoplan/placement/comparison.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"

#include <sstream>

#include "topoplan/placement/jobs_yaml.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

// Two racks: 'big' fills most of one, 'tight' must have a rack to itself
// and 'huge' fits nowhere. Naive scatters 'tight' over both racks.
Comparison compare_sample(const Topology& t) {
  std::vector<Job> jobs = parse_jobs_yaml(R"(jobs:
  - {name: big, gpus: 60}
  - {name: tight, gpus: 40, required: rack}
  - {name: huge, gpus: 500}
)",
                                          "jobs.yaml");
  return compare_policies(t, jobs, {"topo", "naive"}, PlanOptions{});
}

}  // namespace

TEST_CASE("compare: totals name the unplaced, and violations are marked and listed") {
  Topology t = preset("gb200-nvl72:racks=2");
  Comparison c = compare_sample(t);
  REQUIRE(c.plans.size() == 2);
  const Plan& topo = c.plans[0];
  const Plan& naive = c.plans[1];
  REQUIRE(topo.placements[1].placed);
  CHECK(topo.placements[1].problems.empty());
  REQUIRE(naive.placements[1].placed);
  REQUIRE_FALSE(naive.placements[1].problems.empty());  // 12 GPUs left in rack 0, 28 in rack 1
  CHECK_FALSE(naive.placements[2].placed);

  std::ostringstream text;
  write_comparison_text(text, t, c);
  const std::string out = text.str();
  CHECK(out.find("+1 unplaced") != std::string::npos);
  CHECK(out.find(" !") != std::string::npos);
  CHECK(out.find("naive tight: spans 2 racks but requires one") != std::string::npos);
  CHECK(out.find("topo tight:") == std::string::npos);

  std::ostringstream json;
  write_comparison_json(json, t, c);
  const std::string j = json.str();
  CHECK(j.find("\"violations\": 0") != std::string::npos);
  CHECK(j.find("\"violations\": 1") != std::string::npos);
  CHECK(j.find("\"problems\": [\n") != std::string::npos);
}
