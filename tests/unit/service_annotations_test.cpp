// Dynamo's SLA planner targets from its command line: flags, an inline JSON
// config, its defaults, and a planner that does not scale to targets.
#include "../../lib/src/manifests/service_annotations.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

TEST_CASE("planner targets: --ttft and --itl, an inline --config, the defaults, and scaling turned off") {
  auto targets = [](const std::vector<std::string>& args) { return planner_targets(args); };
  // Flags, with '=' or as the next word, and inside a shell line.
  auto flags = targets({"--environment=kubernetes", "--ttft=200", "--itl", "10"});
  REQUIRE(flags);
  CHECK(flags->ttft_ms == Approx(200));
  CHECK(flags->itl_ms == Approx(10));
  CHECK(flags->given);
  auto shell = targets({"python3 -m planner_sla --backend vllm --itl 20"});
  REQUIRE(shell);
  CHECK(shell->ttft_ms == Approx(500));  // SLAPlannerDefaults.ttft
  CHECK(shell->itl_ms == Approx(20));
  // The newer planner takes one JSON config (its keys mirror the flags).
  auto config = targets({"--config", R"({"environment": "kubernetes", "ttft": 300, "itl": 15.5})"});
  REQUIRE(config);
  CHECK(config->ttft_ms == Approx(300));
  CHECK(config->itl_ms == Approx(15.5));
  auto inline_eq = targets({R"(--config={"ttft": 250})"});
  REQUIRE(inline_eq);
  CHECK(inline_eq->ttft_ms == Approx(250));
  CHECK(inline_eq->itl_ms == Approx(50));  // SLAPlannerDefaults.itl
  // Nothing given: the planner's defaults, and said so.
  auto none = targets({});
  REQUIRE(none);
  CHECK(none->ttft_ms == Approx(500));
  CHECK(none->itl_ms == Approx(50));
  CHECK_FALSE(none->given);
  // Values that are not times, and a config that is not JSON, leave the defaults.
  auto junk = targets({"--ttft", "fast", "--itl=-3", "--config", "{not json"});
  REQUIRE(junk);
  CHECK(junk->ttft_ms == Approx(500));
  CHECK(junk->itl_ms == Approx(50));
  CHECK_FALSE(junk->given);
  // Throughput (SLA) scaling off: no targets.
  CHECK_FALSE(targets({"--ttft=200", "--disable-throughput-scaling"}));
  CHECK_FALSE(targets({"--config", R"({"enable_throughput_scaling": false, "enable_loadbased_scaling": true})"}));
}
