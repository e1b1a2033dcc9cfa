// In-network reduction (SHARP): declared per switch by a label, usable only
// when every switch above the ranks' NICs declares it, and priced as NCCL's
// NVLS across NVLink domains (NVLS + SHARP).
#include <catch2/catch.hpp>

#include <string>

#include "cost_test_topologies.hpp"
#include "topoplan/cost/cost_model.hpp"
#include "topoplan/cost/fabric_profile.hpp"

using namespace topoplan;
using namespace cost_test;

namespace {

// `yaml` with the label added to the switch device named `name`.
std::string with_sharp(std::string yaml, const std::string& device) {
  const std::string from = "{name: \"" + device + "\", kind: switch}";
  const std::string to = "{name: \"" + device + "\", kind: switch, labels: {topoplan.io/in-network-reduction: sharp}}";
  const auto at = yaml.find(from);
  REQUIRE(at != std::string::npos);
  yaml.replace(at, from.size(), to);
  return yaml;
}

}  // namespace

TEST_CASE("in-network reduction needs the label on every switch above the NICs") {
  const Topology plain = parse(kBoxes, {{"nodes", "2"}});
  for (std::uint32_t i = 0; i < 16; ++i) CHECK_FALSE(FabricProfile(plain).accelerator(i).in_network_reduction);

  const std::string boxes = with_sharp(kBoxes, "leaf");
  const Topology sharp = parse(boxes.c_str(), {{"nodes", "2"}});
  const FabricProfile fabric(sharp);
  for (std::uint32_t i = 0; i < 16; ++i) CHECK(fabric.accelerator(i).in_network_reduction);

  // Leaves that reduce under a spine that does not: no aggregation tree.
  const std::string leaves_only = with_sharp(kLeaves, "sw");
  const Topology half = parse(leaves_only.c_str());
  CHECK_FALSE(FabricProfile(half).accelerator(0).in_network_reduction);
  const std::string both = with_sharp(leaves_only, "spine");
  const Topology full = parse(both.c_str());
  CHECK(FabricProfile(full).accelerator(0).in_network_reduction);
  CHECK(FabricProfile(full).accelerator(255).in_network_reduction);

  // Another value is not a declaration.
  std::string other = kBoxes;
  other.replace(other.find("{name: \"leaf\", kind: switch}"), 28,
                "{name: \"leaf\", kind: switch, labels: {topoplan.io/in-network-reduction: none}}");
  const Topology none = parse(other.c_str(), {{"nodes", "2"}});
  CHECK_FALSE(FabricProfile(none).accelerator(0).in_network_reduction);
}

TEST_CASE("with SHARP a large all-reduce across NVLink domains runs NVLS through the switches") {
  const std::string boxes = with_sharp(kBoxes, "leaf");
  const Topology t = parse(boxes.c_str(), {{"nodes", "4"}});
  CostModel model(t, CostModelOptions{.size_efficiency = false, .nccl_version = {}});
  const CollectiveCost c = model.collective({first(t, 32), Collective::allreduce, kGiB});
  REQUIRE(c.algorithm == Algorithm::nvls);
  CHECK(c.islands == 4);
  // By hand: each box's 8 NVLS heads drive their own NIC at 48.0 GB/s (the
  // PCIe Gen5 x16 path, 63.0 x 0.762, below the NIC's 50), 384 GB/s a box;
  // NCCL charges them busBw = 2 (n - 1) / n x S = 1.9375 S. The NVLS side,
  // 9/8 S at min(18 x 25 x 0.824 x 0.85, 16 x 20) = 315.2 GB/s, is faster.
  const double network_us = 1.9375 * static_cast<double>(kGiB) / (8 * 63.0 * 0.762 * 1e3);
  CHECK(c.time_us - c.latency_us == Approx(network_us).epsilon(0.005));
  REQUIRE(c.bottleneck != kNone);
  CHECK(c.tiers()[c.bottleneck].tier == Tier::island);
  // One network traversal: NVLS's 25 us, NCCL's 18 us network latency of
  // NVLS and the route twice (Simple's flush), no tree levels.
  CHECK(c.latency_us == Approx(25 + 18 + 2 * model.fabric().route_latency_us(0)));

  // The same boxes without SHARP: from four domains on NVLSTree sends twice
  // the buffer out of its inner domains, through NCCL's per-channel cap, and
  // takes 2 log2(4) network latencies: slower.
  const Topology plain = parse(kBoxes, {{"nodes", "4"}});
  CostModel without(plain, CostModelOptions{.size_efficiency = false, .nccl_version = {}});
  const CollectiveCost tree = without.collective({first(plain, 32), Collective::allreduce, kGiB});
  CHECK(tree.algorithm == Algorithm::nvlstree);
  CHECK(c.time_us < tree.time_us);
  CHECK(c.latency_us < tree.latency_us);

  // Two domains: NVLSTree's trees send the buffer once out of each, against
  // NVLS's 1.875 S; NCCL's tuner picks NVLSTree there, SHARP or not.
  const Topology two = parse(boxes.c_str(), {{"nodes", "2"}});
  CostModel pair(two);
  CHECK(pair.collective({first(two, 16), Collective::allreduce, kGiB}).algorithm == Algorithm::nvlstree);
}

TEST_CASE("SHARP changes nothing inside one NVLink domain and is refused where it cannot run") {
  const std::string boxes = with_sharp(kBoxes, "leaf");
  const Topology t = parse(boxes.c_str(), {{"nodes", "2"}});
  const Topology plain = parse(kBoxes, {{"nodes", "2"}});
  CostModel model(t);
  CostModel without(plain);
  for (std::uint64_t size : {std::uint64_t{4096}, kGiB}) {
    const CollectiveCost a = model.collective({first(t, 8), Collective::allreduce, size});
    const CollectiveCost b = without.collective({first(plain, 8), Collective::allreduce, size});
    CHECK(a.time_us == b.time_us);
    CHECK(a.algorithm == b.algorithm);
  }
  CHECK_THAT(error_of(model, {first(t, 16), Collective::allgather, kGiB, Algorithm::nvls}),
             Catch::Contains("allreduce only"));
  CHECK_THAT(error_of(without, {first(plain, 16), Collective::allreduce, kGiB, Algorithm::nvls}),
             Catch::Contains("topoplan.io/in-network-reduction=sharp"));
  // Small all-reduces still take NCCL's low-latency choice.
  CHECK(model.collective({first(t, 16), Collective::allreduce, 4096}).protocol == Protocol::ll);
}
