// Jobs that run at the same time share the egress of the domains their
// traffic leaves; jobs that share nothing do not slow each other.
#include "topoplan/cost/cost_model.hpp"

#include <catch2/catch.hpp>

#include "cost_test_topologies.hpp"
#include "topoplan/cost/rank_set.hpp"

using namespace topoplan;
using namespace cost_test;

TEST_CASE("two rings through the same leaf uplinks each get half of them") {
  Topology t = parse(kLeaves);
  CostModel model(t);
  auto a = named(t, "l0-n0,l1-n0");
  auto b = named(t, "l0-n1,l1-n1");
  CollectiveQuery qa{a, Collective::allreduce, kGiB, Algorithm::ring};
  CollectiveQuery qb{b, Collective::allreduce, kGiB, Algorithm::ring};
  CollectiveCost alone = model.collective(qa);
  std::vector<CollectiveQuery> both = {qa, qb};
  std::vector<CollectiveCost> shared = model.concurrent(both);
  REQUIRE(shared.size() == 2);
  CHECK(shared[0].time_us > alone.time_us);
  // Alone the ring is held to the 200 GB/s of l0's uplinks; shared, each
  // ring's crossing gets 100 GB/s.
  CHECK(alone.busbw_gbps < 200);
  REQUIRE(shared[0].bottleneck != kNone);
  CHECK(shared[0].tiers()[shared[0].bottleneck].bandwidth == Approx(100));
  CHECK(shared[0].busbw_gbps == Approx(alone.busbw_gbps / 2).epsilon(0.05));
  CHECK(shared[1].time_us == Approx(shared[0].time_us));
}

TEST_CASE("sharing is in proportion to what each pushes through the shared uplinks") {
  Topology t = parse(kLeaves);
  CostModel model(t);
  auto a = named(t, "l0-n0,l1-n0");
  auto b = named(t, "l0-n1,l1-n1");
  // The same rings, 1 GiB and 4 GiB, through l0's 200 GB/s of uplinks. Under
  // processor sharing the small ring runs at half the uplinks all its life
  // (2 x its bytes go through before it ends); the large one gets half while
  // the small runs and all of it after: 1 + 4 GiB go through before it ends.
  CollectiveQuery small{a, Collective::allreduce, kGiB, Algorithm::ring};
  CollectiveQuery large{b, Collective::allreduce, 4 * kGiB, Algorithm::ring};
  std::vector<CollectiveQuery> both = {small, large};
  std::vector<CollectiveCost> shared = model.concurrent(both);
  auto uplinks = [](const CollectiveCost& c) {
    for (const TierCost& tier : c.tiers())
      if (tier.tier == Tier::level) return tier.bandwidth;
    return 0.0;
  };
  CHECK(uplinks(model.collective(small)) == Approx(200));
  CHECK(uplinks(shared[0]) == Approx(200.0 / 2));
  CHECK(uplinks(shared[1]) == Approx(200.0 * 4 / 5));
  // The equal-sized pair of the first test is the equal split again.
  CollectiveQuery large_a{a, Collective::allreduce, 4 * kGiB, Algorithm::ring};
  std::vector<CollectiveQuery> equal = {large_a, large};
  CHECK(uplinks(model.concurrent(equal)[1]) == Approx(100));
}

TEST_CASE("jobs in different leaves or inside one node do not contend") {
  Topology t = parse(kLeaves);
  CostModel model(t);
  auto a = named(t, "l0-n0,l1-n0");
  auto b = named(t, "l2-n0,l3-n0");   // other leaves
  auto c = named(t, "l0-n2");         // inside one node of a shared leaf
  CollectiveQuery qa{a, Collective::allreduce, kGiB, Algorithm::ring};
  CollectiveQuery qb{b, Collective::allreduce, kGiB, Algorithm::ring};
  CollectiveQuery qc{c, Collective::allreduce, kGiB, Algorithm::ring};
  const double alone = model.collective(qa).time_us;
  std::vector<CollectiveQuery> all = {qa, qb, qc};
  std::vector<CollectiveCost> shared = model.concurrent(all);
  CHECK(shared[0].time_us == Approx(alone));
  CHECK(shared[1].time_us == Approx(alone));
  CHECK(shared[2].time_us == Approx(model.collective(qc).time_us));
}

TEST_CASE("an all-to-all and a ring share a leaf by their flows") {
  Topology t = parse(kLeaves);
  CostModel model(t);
  auto ring = named(t, "l0-n0,l1-n0");
  auto a2a = named(t, "l0-n1,l2-n0");
  CollectiveQuery qr{ring, Collective::allreduce, kGiB, Algorithm::ring};
  CollectiveQuery qa{a2a, Collective::alltoall, kGiB};
  std::vector<CollectiveQuery> both = {qr, qa};
  std::vector<CollectiveCost> shared = model.concurrent(both);
  CHECK(shared[0].time_us > model.collective(qr).time_us);
  CHECK(shared[1].time_us > model.collective(qa).time_us);
}

TEST_CASE("concurrent steps of two jobs slow the data-parallel phase that crosses shared uplinks") {
  Topology t = parse(kLeaves);
  CostModel model(t);
  // Two jobs of 2 nodes each, data parallel across leaves 0 and 1.
  auto a = named(t, "l0-n0,l1-n0");
  auto b = named(t, "l0-n1,l1-n1");
  Parallelism p;
  p.tp = 8;
  p.dp = 2;
  Workload w;
  w.gradient_bytes = 16e9;
  w.activation_bytes = 64e6;
  w.layers = 32;
  StepCost alone = model.step(a, p, w);
  std::vector<StepQuery> jobs = {{a, p, w}, {b, p, w}};
  std::vector<StepCost> shared = model.steps(jobs);
  CHECK(shared[0].dp > alone.dp * 1.5);
  CHECK(shared[0].tp == Approx(alone.tp));  // inside nodes: nothing shared
}

TEST_CASE("expert-parallel kernels share crossed uplinks in concurrent steps as NCCL's all-to-all does") {
  Topology t = parse(kLeaves);
  CostModel model(t);
  // Two MoE jobs of 2 nodes each, their expert-parallel groups across leaves 0 and 1.
  auto a = named(t, "l0-n0,l1-n0");
  auto b = named(t, "l0-n1,l1-n1");
  Parallelism p;
  p.dp = 16;
  p.ep = 16;
  Workload w;
  w.moe_dispatch_bytes = 64e6;
  w.moe_layers = 8;
  for (EpKernel kernel : {EpKernel::nccl, EpKernel::pplx, EpKernel::deepep, EpKernel::deepep_ll}) {
    INFO(ep_kernel_name(kernel));
    w.ep_kernel = kernel;
    w.ep_message_bytes = kernel == EpKernel::pplx ? 7168 : 0;
    StepCost alone = model.step(a, p, w);
    std::vector<StepQuery> jobs = {{a, p, w}, {b, p, w}};
    std::vector<StepCost> shared = model.steps(jobs);
    // pplx-kernels' per-put cost is its own, not the links': only its wire time is shared.
    CHECK(shared[0].ep > alone.ep * (kernel == EpKernel::pplx ? 1.1 : 1.3));
    CHECK(shared[1].ep == Approx(shared[0].ep));
    // One job alone in steps() is step().
    std::vector<StepQuery> one = {{a, p, w}};
    CHECK(model.steps(one)[0].ep == alone.ep);
  }
}
