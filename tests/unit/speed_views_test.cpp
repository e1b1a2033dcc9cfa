#include "../../lib/src/placement/speed_views.hpp"

#include <catch2/catch.hpp>

#include <cmath>

#include "../../lib/src/placement/job_shape.hpp"
#include "test_presets.hpp"
#include "topoplan/io/device_perf.hpp"
#include "topoplan/placement/jobs_yaml.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

std::string host(const Topology& t, std::size_t i) {
  return std::string(t.hostname(t.domains_at(t.host_level()).first + static_cast<DomainId>(i)));
}

// Four 8-GPU nodes: node 0 nominal, node 1 with one GPU at 0.5, node 2 all
// at 0.9, node 3 all at 1.1.
Topology four_nodes() {
  Topology base = preset("dgx-h100:nodes=4");
  const std::string csv = "device,speed\n" + host(base, 1) + "/gpu3,0.5\n" + host(base, 2) + "/gpu*,0.9\n" +
                          host(base, 3) + "/gpu*,1.1\n";
  return with_device_overrides(base, read_device_perf(csv, "perf.csv", base));
}

}  // namespace

TEST_CASE("speed views: device thresholds leave a few jobs' worth at each end, node thresholds by a node's slowest") {
  const Topology t = four_nodes();
  PlannerCore core(t, {"topo", nullptr, true});
  const Job job = parse_jobs_yaml("jobs: [{name: a, gpus: 8}]", "jobs.yaml").front();
  const JobShape shape = resolve_job(t, job, core.node_size);
  const CapacityView view = core.view_for(job, shape, {});
  const SpeedViews v = speed_views(core, view, nullptr, 8);

  // 32 usable speeds, ascending: 0.5, 8 x 0.9, 15 x 1.0, 8 x 1.1. The
  // thresholds keeping 8, 10, 12, 16, 24 and 32 of them from each end; one
  // that keeps everything is left out.
  CHECK(v.slow == std::vector<float>{0.9f, 1.0f});
  CHECK(v.fast == std::vector<float>{1.1f, 1.0f, 0.9f});
  // Node minimums: 1.0, 0.5, 0.9, 1.1.
  REQUIRE(v.node_min.size() == 4);
  CHECK(v.node_min[0] == Approx(1.0f));
  CHECK(v.node_min[1] == Approx(0.5f));
  CHECK(v.node_min[2] == Approx(0.9f));
  CHECK(v.node_min[3] == Approx(1.1f));
  const std::uint32_t first_of_node1 = t.domain(v.first_node + 1).accel_begin;
  CHECK(v.node_min_of(core.occupancy, first_of_node1) == Approx(0.5f));
  // Node minimums ascending: 0.5, 0.9, 1.0, 1.1; one job is one node.
  CHECK(v.slow_nodes == std::vector<float>{0.5f, 0.9f, 1.0f});
  CHECK(v.fast_nodes == std::vector<float>{1.1f, 1.0f, 0.9f});
}

TEST_CASE("speed views: down devices are not counted, and one speed gives no views") {
  Topology base = preset("dgx-h100:nodes=2");
  PlannerCore core(base, {"topo", nullptr, true});
  const Job job = parse_jobs_yaml("jobs: [{name: a, gpus: 4}]", "jobs.yaml").front();
  const JobShape shape = resolve_job(base, job, core.node_size);
  const SpeedViews uniform = speed_views(core, core.view_for(job, shape, {}), nullptr, 4);
  CHECK(uniform.fast.empty());
  CHECK(uniform.slow.empty());
  CHECK(uniform.fast_nodes.empty());
  CHECK(uniform.slow_nodes.empty());

  // Node 1 down: only node 0's speeds are seen, and node 1 has no minimum.
  const std::string csv = "device,speed,state\n" + host(base, 0) + "/gpu0,0.8,\n" + host(base, 1) + "/gpu*,,down\n";
  const Topology t = with_device_overrides(base, read_device_perf(csv, "perf.csv", base));
  PlannerCore masked(t, {"topo", nullptr, true});
  const SpeedViews v = speed_views(masked, masked.view_for(job, shape, {}), nullptr, 4);
  CHECK(std::isinf(v.node_min[1]));
  // 0.8 and seven at 1.0: only "the fast ones" narrows anything.
  CHECK(v.slow.empty());
  CHECK(v.fast == std::vector<float>{1.0f});
  CHECK(v.fast_nodes.empty());
}
