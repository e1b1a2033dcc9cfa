// Scenario names: devices, links, domains by path, hostname or unique local
// name, hostlists; unknown names with a did-you-mean; the mask they make.
#include "topoplan/whatif/scenario.hpp"

#include <catch2/catch.hpp>

#include "whatif_fixtures.hpp"

using namespace topoplan;

namespace {

std::vector<std::string> names(const Topology& t, const std::vector<Target>& targets) {
  std::vector<std::string> out;
  for (const Target& target : targets) out.push_back(target_name(t, target));
  return out;
}

std::vector<std::string> errors(const Topology& t, const std::vector<std::string>& args) {
  try {
    resolve_targets(t, args, "--fail");
  } catch (const InputError& e) {
    std::vector<std::string> out;
    for (const Diagnostic& d : e.diagnostics()) out.push_back(d.str());
    return out;
  }
  return {};
}

}  // namespace

TEST_CASE("scenario names: devices, hostnames, paths, local names, links and hostlists") {
  Topology t = test::tiny_cluster();
  std::vector<Target> got =
      resolve_targets(t, {"r0-n1/gpu1", "r2-n0", "su1/r3", "r1", "su0/r0/nvsw1", "r0/nvsw0", "tiny"}, "--fail");
  CHECK(names(t, got) == std::vector<std::string>{"r0-n1/gpu1", "r2-n0", "su1/r3", "su0/r1", "su0/r0/nvsw1",
                                                  "su0/r0/nvsw0", "tiny"});
  CHECK(got[0].kind == TargetKind::device);
  CHECK(got[1].kind == TargetKind::domain);
  CHECK(got[3].kind == TargetKind::domain);
  CHECK(got[6].id == t.root());
  // A link by its two ends, either way round.
  std::vector<Target> link = resolve_targets(t, {"r0-n0/gpu0--su0/r0/nvsw1", "su0/r0/nvsw1--r0-n0/gpu0"}, "--fail");
  REQUIRE(link.size() == 1);  // the same link twice
  CHECK(link[0].kind == TargetKind::link);
  CHECK(target_name(t, link[0]) == "r0-n0/gpu0--su0/r0/nvsw1");
  CHECK(target_text(t, link[0]) == "nvlink5 link r0-n0/gpu0--su0/r0/nvsw1");
  // A hostlist names several.
  CHECK(names(t, resolve_targets(t, {"r3-n[0-1]/nic0"}, "--drain")) ==
        std::vector<std::string>{"r3-n0/nic0", "r3-n1/nic0"});
  CHECK(target_text(t, got[3]) == "rack su0/r1 (4 GPUs)");
  CHECK(target_text(t, got[0]) == "gpu r0-n1/gpu1");
}

TEST_CASE("scenario names that do not resolve are errors with a suggestion") {
  Topology t = test::tiny_cluster();
  CHECK(errors(t, {"r0-n1/gpu7"}) ==
        std::vector<std::string>{"--fail: no device, link or domain named 'r0-n1/gpu7' in tiny; did you mean "
                                 "'r0-n1/gpu0'?"});
  CHECK(errors(t, {"su0/r00"}) ==
        std::vector<std::string>{"--fail: no device, link or domain named 'su0/r00' in tiny; did you mean 'su0/r0'?"});
  // Node local names repeat in every rack.
  CHECK(errors(t, {"n0"}) == std::vector<std::string>{"--fail: 'n0' names 4 domains; give the path, e.g. 'r0-n0'"});
  // Two devices without a link between them: say what the first links to.
  CHECK(errors(t, {"r0-n0/gpu0--r0-n0/gpu1"}) ==
        std::vector<std::string>{"--fail: no link between 'r0-n0/gpu0' and 'r0-n0/gpu1'; 'r0-n0/gpu0' links to "
                                 "r0-n0/cpu0,r0-n0/nic0,su0/r0/nvsw[0-1]"});
  CHECK(errors(t, {"r0-n0/gpu0--nowhere"}).size() == 1);
  // Every bad name is reported, not only the first.
  CHECK(errors(t, {"bad1", "r0", "bad2"}).size() == 2);
  CHECK(errors(t, {"r0-n[0-"}).size() == 1);
}

TEST_CASE("a scenario's mask and the links it takes out") {
  Topology t = test::tiny_cluster();
  TopologyIndex index(t);
  // A rack: its 4 GPUs, and every link of its devices, NVSwitches included.
  ScenarioMask rack = scenario_mask(t, resolve_targets(t, {"r1"}, "--fail"), DeviceState::down);
  std::uint32_t down = 0;
  for (std::uint32_t a = 0; a < t.accelerators().size(); ++a) down += rack.accelerator(a) == DeviceState::down;
  CHECK(down == 4);
  CHECK(effective_state(rack, *index.find_device("su0/r1/nvsw0")) == DeviceState::down);
  CHECK(effective_state(rack, *index.find_device("su0/r0/nvsw0")) == DeviceState::up);
  // Per node: cpu-gpu 2, gpu-nic 2, nic-leaf 2; per rack: 4 GPUs x 2 NVSwitches.
  CHECK(masked_links(rack).size() == 2 * (2 + 2 + 2) + 8);
  // A drained NVSwitch takes its 4 links out but leaves every GPU available.
  ScenarioMask tray = scenario_mask(t, resolve_targets(t, {"su0/r0/nvsw0"}, "--drain"), DeviceState::drain);
  CHECK(masked_links(tray).size() == 4);
  for (std::uint32_t a = 0; a < t.accelerators().size(); ++a) CHECK(tray.accelerator(a) == DeviceState::up);
  CHECK(resolve_level(t, "rack", "--clear") == 2);
  CHECK_THROWS_WITH(resolve_level(t, "rak", "--clear"),
                    "--clear: 'rak' is not a level of tiny; its levels are cluster, su, rack, node; did you mean "
                    "'rack'?");
}
