// A job's communication per step from its parallelism, and KV-cache transfers.
#include "topoplan/cost/cost_model.hpp"

#include <catch2/catch.hpp>

#include "cost_test_topologies.hpp"
#include "topoplan/cost/rank_set.hpp"
#include "topoplan/io/topology_source.hpp"

using namespace topoplan;
using namespace cost_test;

namespace {

Workload training() {
  Workload w;
  w.gradient_bytes = 8e9;
  w.activation_bytes = 32e6;
  w.layers = 16;
  w.micro_batches = 4;
  return w;
}

double us_of(const CostModel& m, std::vector<DeviceId> ranks, Collective op, double bytes) {
  return m.collective({ranks, op, static_cast<std::uint64_t>(bytes)}).time_us;
}

}  // namespace

TEST_CASE("tensor groups are consecutive ranks, then pipeline stages, then replicas") {
  Topology t = parse(kBoxes, {{"nodes", "4"}});
  CostModel model(t);
  auto ranks = first(t, 32);
  Parallelism p{8, 2, 2, 1};
  Workload w = training();
  StepCost s = model.step(ranks, p, w);

  // TP: ranks 0-7 (box0) all-reduce the activations 4 times per layer of
  // their stage (16 / 2 layers) and micro-batch.
  const double tp = us_of(model, {ranks.begin(), ranks.begin() + 8}, Collective::allreduce, 32e6);
  CHECK(s.tp == Approx(tp * 1e-6 * 4 * 8 * 4));
  // PP: rank t of stage 0 (box0) sends a 1/8 slice to rank t of stage 1
  // (box1), forward and backward, per micro-batch.
  const double pp = us_of(model, {ranks[0], ranks[8]}, Collective::sendrecv, 4e6);
  CHECK(s.pp == Approx(pp * 1e-6 * 2 * 4));
  // DP: rank (t, p) of replica 0 (box0/box1) with the same of replica 1
  // (box2/box3) all-reduce 8 GB / (8 x 2) once per step.
  const double dp = us_of(model, {ranks[0], ranks[16]}, Collective::allreduce, 0.5e9);
  CHECK(s.dp == Approx(dp * 1e-6));
  CHECK(s.ep == 0);
  CHECK(s.seconds() == Approx(s.tp + s.pp + s.dp));
}

TEST_CASE("a tensor group split over nodes costs more than one inside a node") {
  Topology t = parse(kBoxes, {{"nodes", "2"}});
  CostModel model(t);
  Parallelism p{8, 1, 2, 1};
  Workload w = training();
  StepCost packed = model.step(first(t, 16), p, w);
  // Interleave the boxes: every tensor group now spans both.
  StepCost split = model.step(named(t, "box0/gpu0,box1/gpu0,box0/gpu1,box1/gpu1,box0/gpu2,box1/gpu2,box0/gpu3,"
                                       "box1/gpu3,box0/gpu4,box1/gpu4,box0/gpu5,box1/gpu5,box0/gpu6,box1/gpu6,"
                                       "box0/gpu7,box1/gpu7"),
                              p, w);
  // Packed: NVLS inside a box, 8 x 18 NVLink 4 links at 0.85 for 9/8 of
  // the data (280 GB/s). Split: 4 GPUs per box, the two halves exchange
  // through 4 x 48 GB/s of NICs (192 GB/s): at least 1.46x slower.
  CHECK(split.tp > 1.4 * packed.tp);
  CHECK(split.dp < packed.dp);  // ... while the replicas now sit in one node
}

TEST_CASE("groups of a step are priced apart unless they lie alike") {
  // Steps reuse the price of a group whose layout has the last group's
  // figures; a group that lies differently must be priced afresh, in either
  // order.
  Topology t = parse(kBoxes, {{"nodes", "3"}});
  CostModel model(t);
  Parallelism p{8, 1, 2, 1};
  Workload w = training();
  const std::string packed = "box0/gpu[0-7]";
  const std::string straddling = "box1/gpu[0-3],box2/gpu[0-3]";
  const double inside = us_of(model, named(t, packed), Collective::allreduce, 32e6);
  const double across = us_of(model, named(t, straddling), Collective::allreduce, 32e6);
  REQUIRE(across > 1.4 * inside);
  StepCost first_packed = model.step(named(t, packed + "," + straddling), p, w);
  StepCost first_straddling = model.step(named(t, straddling + "," + packed), p, w);
  const double per_step = 4.0 * 16 * 4 * 1e-6;  // 4 all-reduces per layer, 16 layers, 4 micro-batches
  CHECK(first_packed.tp == Approx(across * per_step));
  CHECK(first_straddling.tp == Approx(across * per_step));
  // Either way the slowest group reported is the straddling one.
  for (const StepCost* c : {&first_packed, &first_straddling}) {
    CHECK(c->part(StepKind::tp).islands == 2);
    CHECK(c->part(StepKind::tp).outside_seconds > 0);
  }
  // Alike groups in different boxes cost the same as one of them alone.
  StepCost alike = model.step(named(t, "box0/gpu[0-7],box2/gpu[0-7]"), p, w);
  CHECK(alike.tp == Approx(inside * per_step));
  CHECK(alike.part(StepKind::tp).tier == Tier::scale_up);
}

TEST_CASE("groups whose NICs lie on other paths are priced apart") {
  // Two kinds of Blackwell box, alike but for the GPUs' path to their NICs
  // (kMixedNicPaths: PIX or P2C). NVLSTree across two such boxes takes 64
  // KiB chunks on PCIe and 128 KiB through the CPU (ncclNvlsTreeSm100Tuning),
  // so a step must not reuse one group's price for the other.
  Topology t = parse(kMixedNicPaths);
  CostModel model(t);
  Parallelism p{16, 1, 2, 1};
  Workload w = training();
  w.activation_bytes = 512e6;
  const std::string pcie = "p0/gpu[0-7],p1/gpu[0-7]";
  const std::string grace = "g2/gpu[0-7],g3/gpu[0-7]";
  const double on_pcie = us_of(model, named(t, pcie), Collective::allreduce, 512e6);
  const double on_grace = us_of(model, named(t, grace), Collective::allreduce, 512e6);
  REQUIRE(on_grace != Approx(on_pcie));
  const double per_step = 4.0 * 16 * 4 * 1e-6;
  const double slowest = std::max(on_pcie, on_grace) * per_step;
  CHECK(model.step(named(t, pcie + "," + grace), p, w).tp == Approx(slowest));
  CHECK(model.step(named(t, grace + "," + pcie), p, w).tp == Approx(slowest));
}

TEST_CASE("expert parallelism, sharded data parallelism and inference") {
  Topology t = parse(kBoxes, {{"nodes", "2"}});
  CostModel model(t);
  auto ranks = first(t, 16);
  Workload w = training();
  w.moe_dispatch_bytes = 64e6;
  w.moe_layers = 16;
  StepCost s = model.step(ranks, {1, 1, 16, 8}, w);
  // EP groups: 8 consecutive replicas (box0, then box1); 4 all-to-alls per
  // MoE layer and micro-batch.
  const double a2a = us_of(model, {ranks.begin(), ranks.begin() + 8}, Collective::alltoall, 64e6);
  CHECK(s.ep == Approx(a2a * 1e-6 * 4 * 16 * 4));

  Workload sharded = training();
  sharded.sharded_data_parallel = true;
  StepCost z = model.step(ranks, {1, 1, 16, 1}, sharded);
  StepCost plain = model.step(ranks, {1, 1, 16, 1}, training());
  // Reduce-scatter + all-gather move what a ring all-reduce moves; the
  // all-reduce alone can also use NVLSTree, so sharding is never cheaper here.
  const double ring = model.collective({ranks, Collective::allreduce, 8'000'000'000, Algorithm::ring}).time_us;
  CHECK(z.dp == Approx(ring * 1e-6).epsilon(0.05));
  CHECK(z.dp >= plain.dp);
  CHECK(z.dp < 2 * plain.dp);

  Workload inference = training();
  inference.training = false;
  StepCost fwd = model.step(ranks, {8, 1, 2, 1}, inference);
  StepCost both = model.step(ranks, {8, 1, 2, 1}, training());
  CHECK(fwd.tp == Approx(both.tp / 2));
  CHECK(fwd.dp == 0);
}

TEST_CASE("an FP8 dispatch and a BF16 combine are priced each on its own bytes") {
  Topology t = parse(kBoxes, {{"nodes", "2"}});
  CostModel model(t);
  auto ranks = first(t, 16);
  Workload w = training();
  w.training = false;
  w.moe_dispatch_bytes = 7392.0 * 8 * 128;  // 128 tokens, top-8, FP8 with scales
  w.moe_combine_bytes = 14336.0 * 8 * 128;  // back in BF16
  w.micro_batches = 1;
  w.moe_layers = 10;
  const std::vector<DeviceId> group(ranks.begin(), ranks.begin() + 16);
  const double dispatch = us_of(model, group, Collective::alltoall, w.moe_dispatch_bytes);
  const double combine = us_of(model, group, Collective::alltoall, w.moe_combine_bytes);
  REQUIRE(combine > dispatch);
  StepCost s = model.step(ranks, {1, 1, 16, 16}, w);
  // One dispatch and one combine per MoE layer, forward only.
  CHECK(s.ep == Approx((dispatch + combine) * 1e-6 * 10));
  // Equal bytes both ways: the dispatch's time twice, as before.
  w.moe_combine_bytes = w.moe_dispatch_bytes;
  CHECK(model.step(ranks, {1, 1, 16, 16}, w).ep == Approx(2 * dispatch * 1e-6 * 10));
  w.moe_combine_bytes = -1;
  CHECK_THROWS_AS(model.step(ranks, {1, 1, 16, 16}, w), InputError);
}

TEST_CASE("step inputs are checked") {
  Topology t = parse(kBoxes, {{"nodes", "2"}});
  CostModel model(t);
  auto ranks = first(t, 16);
  CHECK_THROWS_AS(model.step(ranks, {8, 1, 1, 1}, training()), InputError);  // 8 != 16 ranks
  CHECK_THROWS_AS(model.step(ranks, {2, 1, 8, 3}, training()), InputError);  // ep does not divide dp
  CHECK_THROWS_AS(model.step(ranks, {0, 1, 16, 1}, training()), InputError);
  Workload none = training();
  none.micro_batches = 0;
  CHECK_THROWS_AS(model.step(ranks, {16, 1, 1, 1}, none), InputError);
}

TEST_CASE("KV transfers follow Mooncake's vLLM measurements over 8 x 200G RoCE") {
  // Two nodes with 8 x 200G RoCE NICs each: 200 GB/s per node, as in the
  // Mooncake 1P1D benchmark (hardware.md 6.1).
  std::string yaml = kBoxes;
  yaml.replace(yaml.find("ib-ndr"), 6, "roce-200g");
  Topology t = parse(yaml.c_str(), {{"nodes", "2"}});
  CostModel model(t);
  auto prefill = named(t, "box0/gpu0");
  auto decode = named(t, "box1/gpu0");
  struct Point {
    double bytes, ms;
  };
  // 128, 1024, 8192 and 32768 tokens of Qwen3-8B: 20 MB ... 4.50 GB.
  for (Point p : {Point{20e6, 0.54}, Point{146e6, 1.50}, Point{1.13e9, 8.84}, Point{4.50e9, 31.65}}) {
    KvTransferCost c = model.kv_transfer(prefill, decode, static_cast<std::uint64_t>(p.bytes));
    CHECK_FALSE(c.scale_up);
    CHECK(c.seconds * 1e3 == Approx(p.ms).epsilon(0.08));
  }
}

TEST_CASE("KV transfers inside one NVLink domain take the NVLink path") {
  Topology t = load_topology("gb200-nvl72:racks=2", [](const std::string&) { return std::optional<std::string>(); });
  CostModel model(t);
  auto prefill = named(t, "r0000-n00");
  auto near = named(t, "r0000-n01");
  auto far = named(t, "r0001-n00");
  KvTransferCost in = model.kv_transfer(prefill, near, 4'000'000'000);
  KvTransferCost out = model.kv_transfer(prefill, far, 4'000'000'000);
  CHECK(in.scale_up);
  CHECK_FALSE(out.scale_up);
  CHECK(in.seconds < out.seconds / 5);
  CHECK_THROWS_AS(model.kv_transfer(prefill, prefill, 1000), InputError);
}
