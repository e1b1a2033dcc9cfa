// The FGD-style allocation experiment: arrivals until the load is reached,
// no departures, a job that does not fit dropped; worked out by hand on two
// 8-GPU nodes.
#include "topoplan/simulate/allocation_at_load.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

Trace jobs_of(const std::string& csv_rows) {
  return read_trace("id,submit_s,gpus,duration_s\n" + csv_rows, "t.csv", {});
}

}  // namespace

TEST_CASE("allocation at load: arrivals stop with the one that reaches the load") {
  Topology t = preset("dgx-h100:nodes=2");
  Trace trace = jobs_of("a,0,8,100\n");
  AllocationAtLoadOptions o;
  o.load = 1.5;  // 24 of 16 GPUs: three jobs of 8 arrive, the third finds no node
  for (const char* policy : {"topo", "kueue", "slurm", "naive"}) {
    AllocationAtLoad r = allocation_at_load(t, trace, policy, o);
    CHECK(r.policy == policy);
    CHECK(r.accelerators == 16);
    CHECK(r.arrived_jobs == 3);
    CHECK(r.arrived_accelerators == 24);
    CHECK(r.placed_jobs == 2);
    CHECK(r.allocated_accelerators == 16);
    CHECK(r.allocation_ratio == 1.0);
    CHECK(r.first_drop_ratio == 1.0);  // the third job found the cluster full
  }
}

TEST_CASE("allocation at load: what is left free too small for the next job stays unallocated") {
  Topology t = preset("dgx-h100:nodes=2");
  // Jobs of 6: two fit (12 GPUs), the third finds 4 free and is dropped;
  // 18 >= 16 ends the arrivals. 12 of 16 allocated.
  Trace trace = jobs_of("a,0,6,100\n");
  AllocationAtLoadOptions o;
  o.load = 1.0;
  for (const char* policy : {"topo", "kueue", "slurm", "naive"}) {
    AllocationAtLoad r = allocation_at_load(t, trace, policy, o);
    CHECK(r.arrived_jobs == 3);
    CHECK(r.placed_jobs == 2);
    CHECK(r.allocation_ratio == 0.75);
    CHECK(r.first_drop_ratio == 0.75);
  }
}

TEST_CASE("allocation at load: the draw is seeded, with replacement, and reaches the load") {
  Topology t = preset("dgx-h100:nodes=4");
  Trace trace = jobs_of("a,0,1,100\nb,0,8,100\nc,0,2,100\n");
  AllocationAtLoadOptions o;
  o.load = 1.3;
  o.seed = 11;
  AllocationAtLoad r = allocation_at_load(t, trace, "topo", o);
  AllocationAtLoad again = allocation_at_load(t, trace, "topo", o);
  CHECK(r.arrived_jobs == again.arrived_jobs);
  CHECK(r.allocated_accelerators == again.allocated_accelerators);
  // 1.3 x 32 = 41.6: the last arrival (at most 8) crossed it.
  CHECK(r.arrived_accelerators >= 42);
  CHECK(r.arrived_accelerators < 42 + 8);
  CHECK(r.arrived_jobs > 3);  // more arrivals than the trace has jobs: drawn again
  CHECK(r.allocated_accelerators <= 32);
  CHECK(r.allocation_ratio == static_cast<double>(r.allocated_accelerators) / 32.0);
  CHECK(r.first_drop_ratio <= r.allocation_ratio);
}

TEST_CASE("allocation at load: without a drop the onset is the final share") {
  Topology t = preset("dgx-h100:nodes=2");
  Trace trace = jobs_of("a,0,4,100\n");
  AllocationAtLoadOptions o;
  o.load = 0.5;  // two jobs of 4: 8 of 16, nothing dropped
  AllocationAtLoad r = allocation_at_load(t, trace, "topo", o);
  CHECK(r.placed_jobs == 2);
  CHECK(r.allocation_ratio == 0.5);
  CHECK(r.first_drop_ratio == 0.5);
}

TEST_CASE("allocation at load: bad requests are errors") {
  Topology t = preset("dgx-h100:nodes=2");
  Trace trace = jobs_of("a,0,8,100\n");
  AllocationAtLoadOptions o;
  o.load = 0;
  CHECK_THROWS_AS(allocation_at_load(t, trace, "topo", o), InputError);
  CHECK_THROWS_AS(allocation_at_load(t, Trace{}, "topo", {}), InputError);
  CHECK_THROWS_AS(allocation_at_load(t, trace, "nope", {}), InputError);
}
