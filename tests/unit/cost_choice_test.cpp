// Which algorithm and protocol auto picks, and which requests are refused.
#include "topoplan/cost/cost_model.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"

#include "cost_test_topologies.hpp"
#include "topoplan/io/topology_source.hpp"

using namespace topoplan;
using topoplan::test::preset;
using namespace cost_test;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("small messages are latency-bound and take a low-latency protocol") {
  Topology t = preset("dgx-h100:nodes=1");
  CostModel model(t);
  auto ranks = first(t, 8);
  CollectiveCost c = model.collective({ranks, Collective::allreduce, 1024});
  CHECK(c.protocol == Protocol::ll);
  CHECK(c.bottleneck == kNone);  // latency dominates
  // LL's 0.6 us per NVLink step beats NVLS's 25 us.
  CHECK(c.time_us < 25);
}

TEST_CASE("large messages take NVLS where the NVSwitches reduce, rings elsewhere") {
  const std::uint64_t big = std::uint64_t{8} << 30;
  Topology hopper = preset("dgx-h100:nodes=1");
  CostModel h(hopper);
  CHECK(h.collective({first(hopper, 8), Collective::allreduce, big}).algorithm == Algorithm::nvls);

  Topology ampere = parse(kA100Box);
  CostModel a(ampere);
  CollectiveCost c = a.collective({first(ampere, 8), Collective::allreduce, big});
  CHECK(c.algorithm == Algorithm::ring);
  CHECK(c.protocol == Protocol::simple);
  for (const Candidate& cand : c.candidates()) CHECK(cand.algorithm != Algorithm::nvls);

  Topology pcie = preset("pcie-8gpu:nodes=1");
  CostModel p(pcie);
  CollectiveCost pc = p.collective({first(pcie, 8), Collective::allreduce, big});
  CHECK(pc.algorithm == Algorithm::ring);
  for (const Candidate& cand : pc.candidates()) CHECK(cand.protocol != Protocol::ll128);
}

TEST_CASE("across nodes, large all-reduces take NVLSTree and small ones a tree or LL ring") {
  Topology t = preset("dgx-h100:nodes=4");
  CostModel model(t);
  auto ranks = first(t, 32);
  CollectiveCost large = model.collective({ranks, Collective::allreduce, std::uint64_t{4} << 30});
  CHECK(large.algorithm == Algorithm::nvlstree);
  CHECK(large.islands == 4);
  CollectiveCost small = model.collective({ranks, Collective::allreduce, 4096});
  CHECK(small.protocol == Protocol::ll);
  // NVLS itself stays inside one NVLink domain without SHARP.
  for (const Candidate& cand : large.candidates()) CHECK(cand.algorithm != Algorithm::nvls);
}

TEST_CASE("auto is NCCL's choice by its own estimate and a request restricts the candidates") {
  Topology t = preset("dgx-h100:nodes=2");
  CostModel model(t);
  auto ranks = first(t, 16);
  for (std::uint64_t size : {std::uint64_t{1} << 10, std::uint64_t{1} << 20, std::uint64_t{1} << 30}) {
    CollectiveCost c = model.collective({ranks, Collective::allreduce, size});
    const Candidate* chosen = nullptr;
    for (const Candidate& cand : c.candidates()) {
      CHECK(cand.tuner_us > 0);
      if (cand.algorithm == c.algorithm && cand.protocol == c.protocol) chosen = &cand;
    }
    REQUIRE(chosen);
    CHECK(chosen->time_us == Approx(c.time_us));
    for (const Candidate& cand : c.candidates()) CHECK(chosen->tuner_us <= cand.tuner_us);
    CollectiveCost ring = model.collective({ranks, Collective::allreduce, size, Algorithm::ring});
    CHECK(ring.forced);
    CHECK(ring.algorithm == Algorithm::ring);
    for (const Candidate& cand : ring.candidates()) CHECK(cand.algorithm == Algorithm::ring);
  }
}

TEST_CASE("an allowed set restricts auto as NCCL_ALGO does") {
  Topology t = preset("dgx-h100:nodes=2");
  CostModel model(t);
  auto ranks = first(t, 16);
  CollectiveQuery q{ranks, Collective::allreduce, std::uint64_t{1} << 30};
  CHECK(model.collective(q).algorithm == Algorithm::nvlstree);
  q.allowed = *parse_algorithm_set("^nvls,nvlstree");
  const CollectiveCost c = model.collective(q);
  CHECK((c.algorithm == Algorithm::ring || c.algorithm == Algorithm::tree));
  CHECK_FALSE(c.forced);
  for (const Candidate& cand : c.candidates()) CHECK(cand.algorithm != Algorithm::nvlstree);
  q.allowed = *parse_algorithm_set("p2p");
  CHECK_THROWS_WITH(model.collective(q), Catch::Contains("none of the allowed algorithms"));
  CHECK(parse_algorithm_set("auto") == kAllAlgorithms);
  CHECK(parse_algorithm_set("ring+tree") == (algorithm_bit(Algorithm::ring) | algorithm_bit(Algorithm::tree)));
  CHECK_FALSE(parse_algorithm_set("ring,rung"));
  CHECK_FALSE(parse_algorithm_set("^"));
  CHECK_FALSE(parse_algorithm_set("auto,ring"));
}

TEST_CASE("requests the hardware cannot run are input errors that say why") {
  Topology pcie = preset("pcie-8gpu:nodes=1");
  CostModel p(pcie);
  CHECK(contains(error_of(p, {first(pcie, 8), Collective::allreduce, 1 << 20, Algorithm::nvls}), "no NVSwitch"));

  Topology a100 = parse(kA100Box);
  CostModel a(a100);
  CHECK(contains(error_of(a, {first(a100, 8), Collective::allreduce, 1 << 20, Algorithm::nvls}),
                 "Hopper and Blackwell GPUs have; these ranks are ampere GPUs"));

  Topology h100 = preset("dgx-h100:nodes=2");
  CostModel h(h100);
  CHECK(contains(error_of(h, {first(h100, 16), Collective::allreduce, 1 << 20, Algorithm::nvls}), "SHARP"));
  CHECK(contains(error_of(h, {first(h100, 8), Collective::allreduce, 1 << 20, Algorithm::nvlstree}), "two or more"));
  CHECK(contains(error_of(h, {first(h100, 8), Collective::allgather, 1 << 20, Algorithm::tree}), "allreduce only"));
  CHECK(contains(error_of(h, {first(h100, 8), Collective::allreduce, 1 << 20, Algorithm::p2p}), "alltoall"));
  CHECK(contains(error_of(h, {first(h100, 8), Collective::alltoall, 1 << 20, Algorithm::ring}), "p2p"));
  CHECK(contains(error_of(h, {first(h100, 8), Collective::allreduce, 1 << 20, Algorithm::hierarchical}), "two or more"));

  Topology mi = preset("mi300x:nodes=1");
  CostModel m(mi);
  CHECK(contains(error_of(m, {first(mi, 8), Collective::allreduce, 1 << 20, Algorithm::nvls}), "no NVSwitch"));
}

TEST_CASE("RCCL runs MSCCL's all-pairs all-reduce ahead of its tuner where the XML fits") {
  Topology one = preset("mi300x:nodes=1");
  CostModel m(one);
  auto eight = first(one, 8);
  // 1 MiB: the tuner's candidates would take the ring; MSCCL comes first.
  const CollectiveCost c = m.collective({eight, Collective::allreduce, 1 << 20});
  CHECK(c.algorithm == Algorithm::allpairs);
  CHECK_FALSE(c.forced);
  bool ring_listed = false;
  for (const Candidate& cand : c.candidates()) ring_listed = ring_listed || cand.algorithm == Algorithm::ring;
  CHECK(ring_listed);
  CHECK(c.time_us < m.collective({eight, Collective::allreduce, 1 << 20, Algorithm::ring}).time_us);
  // Outside the XML's sizes and loops, and off its topology, RCCL's own.
  CHECK(m.collective({eight, Collective::allreduce, 8}).algorithm != Algorithm::allpairs);
  CHECK(m.collective({eight, Collective::allreduce, std::uint64_t{32} << 20}).algorithm == Algorithm::ring);
  CHECK(m.collective({first(one, 4), Collective::allreduce, 1 << 20}).algorithm != Algorithm::allpairs);
  CHECK(m.collective({eight, Collective::allgather, 1 << 20}).algorithm != Algorithm::allpairs);
  Topology two = preset("mi300x:nodes=2");
  CostModel m2(two);
  CHECK(m2.collective({first(two, 16), Collective::allreduce, 1 << 20}).algorithm != Algorithm::allpairs);
  // A list without it leaves it out.
  CollectiveQuery q{eight, Collective::allreduce, 1 << 20};
  q.allowed = *parse_algorithm_set("^allpairs");
  CHECK(m.collective(q).algorithm == Algorithm::ring);
  // Requested where RCCL would not run it: an error that says why.
  CHECK(contains(error_of(m, {first(one, 4), Collective::allreduce, 1 << 20, Algorithm::allpairs}),
                 "8 AMD GPUs of one node"));
  CHECK(contains(error_of(m, {eight, Collective::allgather, 1 << 20, Algorithm::allpairs}), "allreduce only"));
  Topology h100 = preset("dgx-h100:nodes=1");
  CostModel h(h100);
  CHECK(contains(error_of(h, {first(h100, 8), Collective::allreduce, 1 << 20, Algorithm::allpairs}), "hopper"));
  CHECK(contains(error_of(m, {eight, Collective::allreduce, std::uint64_t{32} << 20, Algorithm::allpairs}),
                 "up to 16 MiB"));
}

TEST_CASE("bad rank lists are input errors") {
  Topology t = preset("dgx-h100:nodes=1");
  CostModel model(t);
  TopologyIndex index(t);
  std::vector<DeviceId> twice = {*index.find_device("h100-00000/gpu0"), *index.find_device("h100-00000/gpu0")};
  CHECK(contains(error_of(model, {twice, Collective::allreduce, 1024}), "twice"));
  std::vector<DeviceId> nic = {*index.find_device("h100-00000/nic0")};
  CHECK(contains(error_of(model, {nic, Collective::allreduce, 1024}), "not an accelerator"));
  CHECK(contains(error_of(model, {{}, Collective::allreduce, 1024}), "at least one rank"));
  CHECK(contains(error_of(model, {first(t, 8), Collective::allreduce, 0}), "at least one byte"));
}

TEST_CASE("ranks without a path between them are unreachable, an outcome rather than an error") {
  Topology t = parse(R"(
name: nonic
levels: [cluster, node]
blocks:
  node:
    level: node
    hostname: "p{g}"
    devices:
      - {name: "cpu0", kind: cpu, model: Xeon}
      - {name: "gpu[0-1]", kind: gpu, model: L40S}
    links:
      - {from: "gpu*", to: "cpu0", type: pcie4x16}
  cluster:
    level: cluster
    children:
      - {block: node, count: 2, name: "n{g}"}
root: cluster
)");
  CostModel model(t);
  CollectiveCost across = model.collective({first(t, 4), Collective::allreduce, 1 << 20});
  CHECK_FALSE(across.reachable);
  REQUIRE(across.bottleneck != kNone);
  CHECK(across.tiers()[across.bottleneck].tier == Tier::island);
  CHECK(across.busbw_gbps == 0);
  CHECK(model.collective({first(t, 2), Collective::allreduce, 1 << 20}).reachable);
}

TEST_CASE("RCCL chooses by its network latency row, but network steps are timed by NCCL's") {
  Topology t = preset("mi300x:nodes=2");
  CostModel model(t);
  auto ranks = first(t, 16);
  const std::uint64_t size = std::uint64_t{256} << 20;
  CollectiveCost ring = model.collective({ranks, Collective::allreduce, size, Algorithm::ring});
  CHECK(ring.protocol == Protocol::simple);
  // RCCL's NET row charges a ring step 320 us; two of the 30 steps of 16
  // ranks on two nodes cross the network, so RCCL's latency alone is over
  // 640 us. The priced latency takes NCCL's 14 us a network step.
  CHECK(ring.latency_us < 640 * 1.4 / 2);
  const Candidate* priced = nullptr;
  for (const Candidate& cand : ring.candidates())
    if (cand.protocol == Protocol::simple) priced = &cand;
  REQUIRE(priced);
  // RCCL's own estimate keeps the 320 us steps: the choice is RCCL's.
  CHECK(priced->tuner_us - priced->time_us > 500);
  // On one node no step crosses the network: estimate and price share the latency.
  Topology one = preset("mi300x:nodes=1");
  CostModel m1(one);
  CollectiveCost inside = m1.collective({first(one, 8), Collective::allreduce, size, Algorithm::ring});
  CHECK(inside.latency_us < 100);
}

TEST_CASE("LL and LL128 trees forward line by line: no pipeline fill along a 72-GPU chain") {
  // One NVL72 rack is one NCCL node: a tree there is a chain of 72 GPUs,
  // 142 hops up and down. Simple pays a step's store-and-forward at each;
  // LL128 forwards each line as it arrives, so its price stays near NCCL's
  // own estimate (which has no fill) while Simple's is far above it.
  Topology t = preset("gb200-nvl72:racks=1");
  CostModel model(t);
  CollectiveCost c = model.collective({first(t, 72), Collective::allreduce, std::uint64_t{1} << 30});
  const Candidate* ll128 = nullptr;
  const Candidate* simple = nullptr;
  for (const Candidate& cand : c.candidates()) {
    if (cand.algorithm != Algorithm::tree) continue;
    if (cand.protocol == Protocol::ll128) ll128 = &cand;
    if (cand.protocol == Protocol::simple) simple = &cand;
  }
  REQUIRE(ll128);
  REQUIRE(simple);
  CHECK(ll128->time_us < 1.15 * ll128->tuner_us);
  CHECK(simple->time_us > 1.3 * simple->tuner_us);
}
