// Each collective's time against a hand computation from the topology's link
// figures, NCCL's published constants and the nccl-tests definitions. The
// expectations restate the numbers (18 x 25 GB/s x 20.6/25, 8.4 + 14 x 3.4 us
// ...) instead of asking the model for them.
#include "topoplan/cost/cost_model.hpp"

#include <catch2/catch.hpp>

#include "cost_test_topologies.hpp"

using namespace topoplan;
using namespace cost_test;

namespace {

// One H100 of kBoxes: 18 NVLink 4 links at NCCL's 20.6 GB/s each (topo.h SM90).
constexpr double kNvl = 18 * 20.6;
// Its NIC: PCIe Gen5 x16 as NCCL models it, 16 x 240 / 80 = 48 GB/s < 50 GB/s NDR.
constexpr double kNic = 48.0;

double us(double bytes, double gbps) { return bytes / (gbps * 1e3); }

}  // namespace

TEST_CASE("ring allreduce: 2(n-1)/n of the data over each rank's NVLink, NCCL's ring latency") {
  Topology t = parse(kBoxes);
  CostModel model(t);
  auto ranks = first(t, 8);
  CollectiveCost c = model.collective({ranks, Collective::allreduce, std::uint64_t{1} << 30, Algorithm::ring});
  const double s = kGiB;
  const double latency = 8.4 + 14 * 3.4;  // base Ring/Simple + 2(n-1) NVLink Ring/Simple steps
  const double expected = latency + us(s * 14 / 8, kNvl) / eta(s, kSimpleBuffer);
  CHECK(c.algorithm == Algorithm::ring);
  CHECK(c.protocol == Protocol::simple);
  CHECK(c.latency_us == Approx(latency));
  CHECK(c.time_us == Approx(expected).epsilon(1e-9));
  CHECK(c.algbw_gbps == Approx(s / (expected * 1e3)).epsilon(1e-9));
  CHECK(c.busbw_gbps == Approx(c.algbw_gbps * 14 / 8).epsilon(1e-12));
  REQUIRE(c.tiers().size() == 1);
  CHECK(c.tiers()[0].tier == Tier::scale_up);
  CHECK(c.tiers()[0].bandwidth == Approx(kNvl));
}

TEST_CASE("NVLS allreduce: (n+1)/n of the data through the switch at NCCL's nvlsEfficiency") {
  Topology t = parse(kBoxes);
  CostModel model(t);
  auto ranks = first(t, 8);
  CollectiveCost c = model.collective({ranks, Collective::allreduce, std::uint64_t{1} << 30, Algorithm::nvls});
  const double s = kGiB;
  // Each GPU serves its slices to the switch's reductions (S) and takes its
  // reduced slice back (S/n); the multicast of the result is the mirror image.
  const double expected = 25 + us(s * 9 / 8, kNvl * 0.85) / eta(s, kSimpleBuffer);
  CHECK(c.time_us == Approx(expected).epsilon(1e-9));
  CHECK(c.latency_us == Approx(25));
  // busbw of NVLS is what a ring would need: 2(n-1)/(n+1) x 0.85 of the links.
  CHECK(c.busbw_gbps == Approx(2.0 * 7 / 9 * kNvl * 0.85 * eta(s, kSimpleBuffer)).epsilon(0.01));
}

TEST_CASE("allgather and broadcast rings move (n-1)/n and all of the buffer") {
  Topology t = parse(kBoxes);
  CostModel model(t);
  auto ranks = first(t, 8);
  const double s = kGiB;
  CollectiveCost ag = model.collective({ranks, Collective::allgather, std::uint64_t{1} << 30, Algorithm::ring});
  CHECK(ag.time_us == Approx(8.4 + 7 * 3.4 + us(s * 7 / 8, kNvl) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CHECK(ag.busbw_gbps == Approx(ag.algbw_gbps * 7 / 8));
  CollectiveCost rs = model.collective({ranks, Collective::reducescatter, std::uint64_t{1} << 30, Algorithm::ring});
  CHECK(rs.time_us == Approx(ag.time_us));
  CollectiveCost bc = model.collective({ranks, Collective::broadcast, std::uint64_t{1} << 30});
  CHECK(bc.algorithm == Algorithm::ring);
  CHECK(bc.time_us == Approx(8.4 + 7 * 3.4 + us(s, kNvl) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CHECK(bc.busbw_gbps == Approx(bc.algbw_gbps));
}

TEST_CASE("tree allreduce: NCCL's Simple tree with its per-channel cap and size correction") {
  Topology t = parse(kBoxes);
  CostModel model(t);
  auto ranks = first(t, 8);
  CollectiveCost c = model.collective({ranks, Collective::allreduce, std::uint64_t{1} << 30, Algorithm::tree});
  const double s = kGiB;
  // busBw = min(0.92 x 370.8, channels x 38.7); 14 channels (7 of at most 60
  // GB/s, doubled) leave the 0.92 term; algBw = busBw / 2 x 0.9 (correction
  // at log2(1 GiB / 64) = 24, the table's last entry).
  const double alg = 0.92 * kNvl / 2 * 0.9;
  const double latency = 8.4 + 2 * (7 * 4.0);
  CHECK(c.protocol == Protocol::simple);
  CHECK(c.time_us == Approx(latency + us(s, alg) / eta(s, kSimpleBuffer)).epsilon(1e-9));
}

TEST_CASE("sendrecv across nodes: the NIC behind its PCIe link, the network's latency") {
  Topology t = parse(kBoxes, {{"nodes", "2"}});
  CostModel model(t);
  auto ranks = devices(t, {"box0/gpu0", "box1/gpu0"});
  CollectiveCost c = model.collective({ranks, Collective::sendrecv, std::uint64_t{1} << 30});
  const double s = kGiB;
  // Ring/Simple base 8.4 + NET Ring/Simple 14 + twice (Simple's flush) the
  // route NIC-leaf-NIC of two 0.15 us InfiniBand hops.
  const double latency = 8.4 + 14 + 2 * 0.3;
  CHECK(c.algorithm == Algorithm::p2p);
  CHECK(c.latency_us == Approx(latency));
  CHECK(c.time_us == Approx(latency + us(s, kNic) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CHECK(c.busbw_gbps == Approx(c.algbw_gbps));
}

TEST_CASE("alltoall across two nodes: half of every rank's data leaves through its NIC") {
  Topology t = parse(kBoxes, {{"nodes", "2"}});
  CostModel model(t);
  auto ranks = first(t, 16);
  CollectiveCost c = model.collective({ranks, Collective::alltoall, std::uint64_t{1} << 30, Algorithm::p2p});
  const double s = kGiB;
  const double latency = 8.4 + 14 + 2 * 0.3;
  CHECK(c.time_us == Approx(latency + us(s * 8 / 16, kNic) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  bool nic = false;
  for (const TierCost& tier : c.tiers())
    if (tier.tier == Tier::nic) {
      nic = true;
      CHECK(tier.bytes == Approx(s / 2));
    }
  CHECK(nic);
  CHECK(c.busbw_gbps == Approx(c.algbw_gbps * 15 / 16));
}

TEST_CASE("a ring on a direct mesh uses only the links between its members") {
  Topology t = parse(kMesh);
  CostModel model(t);
  const double s = kGiB;
  const double link = 64 * 0.75;  // RCCL's 48 GB/s per MI300X xGMI link
  CollectiveCost four = model.collective({first(t, 4), Collective::allreduce, std::uint64_t{1} << 30});
  CollectiveCost two = model.collective({first(t, 2), Collective::allreduce, std::uint64_t{1} << 30});
  // AMD: no LL128 (RCCL only enables it with its own tuning tables), no NVLS.
  CHECK(four.algorithm == Algorithm::ring);
  CHECK(four.protocol == Protocol::simple);
  CHECK(four.time_us == Approx(8.4 + 6 * 3.4 + us(s * 1.5, 3 * link) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CHECK(two.time_us == Approx(8.4 + 2 * 3.4 + us(s, link) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CHECK(four.busbw_gbps / two.busbw_gbps == Approx(3).epsilon(0.01));
}

TEST_CASE("PCIe-only nodes: each GPU's link, and the socket link when a ring crosses it") {
  Topology t = parse(kPcie);
  CostModel model(t);
  const double s = kGiB;
  const double pcie = 16 * 120 / 80.0;  // NCCL's Gen4 x16: 24 GB/s
  CollectiveCost near = model.collective({devices(t, {"p0/gpu0", "p0/gpu1"}), Collective::allreduce,
                                          std::uint64_t{1} << 30});
  CollectiveCost far = model.collective({devices(t, {"p0/gpu0", "p0/gpu2"}), Collective::allreduce,
                                         std::uint64_t{1} << 30});
  const double latency = 8.4 + 2 * 5.7;  // PCI Ring/Simple
  CHECK(near.protocol == Protocol::simple);  // no LL128 off NVLink
  CHECK(near.time_us == Approx(latency + us(s, pcie) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CHECK(far.time_us == Approx(latency + us(s, 22.0) / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CHECK(far.tiers()[far.bottleneck].tier == Tier::socket);
}

TEST_CASE("LPU chains: per-hop latency on a folded ring, no protocol overhead") {
  Topology t = parse(kChain);
  CostModel model(t);
  const double s = 1 << 20;
  CollectiveCost ar = model.collective({first(t, 4), Collective::allreduce, 1 << 20});
  // Folded order 0, 2, 3, 1: its longest edges span two hops (2 us); six
  // steps; the chain's end chips have one 14 GB/s link.
  CHECK(ar.protocol == Protocol::scheduled);
  CHECK(ar.latency_us == Approx(6 * 2.0));
  CHECK(ar.time_us == Approx(12 + us(s * 1.5, 14)).epsilon(1e-9));
  CollectiveCost bc = model.collective({first(t, 4), Collective::broadcast, 1 << 20});
  CHECK(bc.latency_us == Approx(3.0));  // along the chain: three hops
  CHECK(bc.time_us == Approx(3 + us(s, 14)).epsilon(1e-9));
  CHECK_THROWS_AS(model.collective({first(t, 4), Collective::allreduce, 1 << 20, Algorithm::tree}), InputError);
}

TEST_CASE("one rank costs nothing") {
  Topology t = parse(kBoxes);
  CostModel model(t);
  CollectiveCost c = model.collective({first(t, 1), Collective::allreduce, 1 << 20});
  CHECK(c.time_us == 0);
  CHECK(c.busbw_gbps == 0);
}

TEST_CASE("generations come from model names, then from NVLink generations") {
  CHECK(generation_from_model("H100-SXM5-80GB") == Generation::hopper);
  CHECK(generation_from_model("NVIDIA H200") == Generation::hopper);
  CHECK(generation_from_model("GB200") == Generation::blackwell);
  CHECK(generation_from_model("b300") == Generation::blackwell);
  CHECK(generation_from_model("A100-SXM4-80GB") == Generation::ampere);
  CHECK(generation_from_model("A10") == Generation::ampere);
  CHECK(generation_from_model("V100") == Generation::volta);
  CHECK(generation_from_model("MI300X") == Generation::cdna);
  CHECK_FALSE(generation_from_model("X9000"));
  Topology t = parse(R"(
name: unknown
levels: [cluster, node]
blocks:
  node:
    level: node
    hostname: "u0"
    devices:
      - {name: "gpu[0-1]", kind: gpu, model: X9000}
      - {name: "nvsw", kind: nvswitch}
    links:
      - {from: "gpu*", to: "nvsw", type: nvlink5, count: 18}
  cluster:
    level: cluster
    children:
      - {block: node, count: 1, name: "n0"}
root: cluster
)");
  CostModel model(t);
  CHECK(model.fabric().accelerator(0).generation == Generation::blackwell);
  CHECK(model.fabric().accelerator(0).switch_bw == Approx(18 * 40.1));
}

TEST_CASE("NVLSTree across four boxes: NVLS inside, a tree of twice the data through the NICs") {
  Topology t = parse(kBoxes, {{"nodes", "4"}});
  CostModel model(t);
  CollectiveCost c = model.collective({first(t, 32), Collective::allreduce, std::uint64_t{1} << 30, Algorithm::nvlstree});
  const double s = kGiB;
  // Inside: 9/8 S at 370.8 x 0.85 = 315 GB/s; across four boxes each box
  // sends and receives 2 S through 8 NICs of 48 GB/s: the NICs bind.
  const double bw_us = std::max(us(s * 9 / 8, kNvl * 0.85), us(2 * s, 8 * kNic));
  // NVLSTree: 25 us inside, then 2 log2(4) network steps of 20.9 us plus
  // twice the 0.3 us route.
  const double latency = 25 + 2 * 2 * (20.9 + 2 * 0.3);
  CHECK(c.latency_us == Approx(latency));
  CHECK(c.time_us == Approx(latency + bw_us / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CHECK(c.tiers()[c.bottleneck].tier == Tier::island);
}

TEST_CASE("hierarchical allreduce: reduce-scatter inside, all-reduce over rails, all-gather inside") {
  Topology t = parse(kBoxes, {{"nodes", "2"}});
  CostModel model(t);
  CollectiveCost c =
      model.collective({first(t, 16), Collective::allreduce, std::uint64_t{1} << 30, Algorithm::hierarchical});
  const double s = kGiB;
  // Phases one after another: 7/8 S over NVLink, then each rank's 1/8 slice
  // all-reduced with its peer in the other box over its NIC (2(N-1)/N = 1),
  // then 7/8 S over NVLink again.
  const double bw_us = 2 * us(s * 7 / 8, kNvl) + us(s / 8, kNic);
  const double latency = 3 * 8.4 + 2 * 7 * 3.4 + 2 * (14 + 2 * 0.3);
  CHECK(c.latency_us == Approx(latency));
  CHECK(c.time_us == Approx(latency + bw_us / eta(s, kSimpleBuffer)).epsilon(1e-9));
  CollectiveCost reduce = model.collective({first(t, 16), Collective::reduce, std::uint64_t{1} << 30});
  CollectiveCost broadcast = model.collective({first(t, 16), Collective::broadcast, std::uint64_t{1} << 30});
  CHECK(reduce.time_us == Approx(broadcast.time_us));
}
