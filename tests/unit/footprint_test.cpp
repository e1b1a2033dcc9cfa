// What a replica uses: host, scale-up switches when it has two accelerators
// in one island, NICs and the switch tiers it crosses when it spans islands.
// Every expectation is read off the fixtures' wiring by hand.
#include "topoplan/whatif/footprint.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"
#include "whatif_fixtures.hpp"

using namespace topoplan;

namespace {

struct Used {
  std::vector<std::string> devices;
  std::vector<std::string> links;
};

Used used(const Topology& t, const std::vector<std::string>& accelerators) {
  TopologyIndex index(t);
  std::vector<DeviceId> replica;
  for (const std::string& name : accelerators) replica.push_back(*index.find_device(name));
  Footprint f = replica_footprint(t, find_scale_up_islands(t), replica);
  Used out;
  for (DeviceId d : f.devices) out.devices.push_back(t.device_name(d));
  for (LinkId l : f.links) out.links.push_back(t.device_name(t.link(l).a) + "--" + t.device_name(t.link(l).b));
  std::sort(out.devices.begin(), out.devices.end());
  std::sort(out.links.begin(), out.links.end());
  return out;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("footprint: one GPU uses its host only") {
  Topology t = test::tiny_cluster();
  Used u = used(t, {"r0-n0/gpu0"});
  CHECK(u.devices == Names{"r0-n0/cpu0"});
  CHECK(u.links == Names{"r0-n0/cpu0--r0-n0/gpu0"});
}

TEST_CASE("footprint: two GPUs in one NVLink island use its NVSwitch trays, not the network") {
  Topology t = test::tiny_cluster();
  Used u = used(t, {"r0-n0/gpu0", "r0-n1/gpu1"});
  CHECK(u.devices == Names{"r0-n0/cpu0", "r0-n1/cpu0", "su0/r0/nvsw0", "su0/r0/nvsw1"});
  CHECK(u.links == Names{"r0-n0/cpu0--r0-n0/gpu0", "r0-n0/gpu0--su0/r0/nvsw0", "r0-n0/gpu0--su0/r0/nvsw1",
                         "r0-n1/cpu0--r0-n1/gpu1", "r0-n1/gpu1--su0/r0/nvsw0", "r0-n1/gpu1--su0/r0/nvsw1"});
}

TEST_CASE("footprint: racks of one SU talk through their NICs and the SU's rail leaf") {
  Topology t = test::tiny_cluster();
  Used u = used(t, {"r0-n0/gpu0", "r1-n0/gpu0"});
  CHECK(u.devices == Names{"r0-n0/cpu0", "r0-n0/nic0", "r1-n0/cpu0", "r1-n0/nic0", "su0/leaf0"});
  CHECK(u.links == Names{"r0-n0/cpu0--r0-n0/gpu0", "r0-n0/gpu0--r0-n0/nic0", "r0-n0/nic0--su0/leaf0",
                         "r1-n0/cpu0--r1-n0/gpu0", "r1-n0/gpu0--r1-n0/nic0", "r1-n0/nic0--su0/leaf0"});
}

TEST_CASE("footprint: across SUs the spines join the leaves") {
  Topology t = test::tiny_cluster();
  Used u = used(t, {"r0-n0/gpu1", "r2-n0/gpu1"});
  CHECK(u.devices == Names{"r0-n0/cpu0", "r0-n0/nic1", "r2-n0/cpu0", "r2-n0/nic1", "spine0", "spine1", "su0/leaf1",
                           "su1/leaf1"});
  CHECK(u.links == Names{"r0-n0/cpu0--r0-n0/gpu1", "r0-n0/gpu1--r0-n0/nic1", "r0-n0/nic1--su0/leaf1",
                         "r2-n0/cpu0--r2-n0/gpu1", "r2-n0/gpu1--r2-n0/nic1", "r2-n0/nic1--su1/leaf1",
                         "su0/leaf1--spine0", "su0/leaf1--spine1", "su1/leaf1--spine0", "su1/leaf1--spine1"});
}

TEST_CASE("footprint: a DGX GPU reaches its CPU and NICs through its PCIe switch") {
  Topology t = test::preset("dgx-h100:nodes=2");
  Used u = used(t, {"h100-00000/gpu0", "h100-00001/gpu0"});
  auto has = [&](const std::string& name) { return std::find(u.devices.begin(), u.devices.end(), name) != u.devices.end(); };
  // The PCIe switch it hangs off, the NICs under it, both sockets.
  CHECK(has("h100-00000/psw0"));
  CHECK(has("h100-00000/nic0"));
  CHECK(has("h100-00000/nic1"));
  CHECK(has("h100-00000/cpu0"));
  CHECK(has("h100-00000/cpu1"));
  // Not the PCIe switches and NICs of other GPUs, nor the NVSwitches (one GPU per node).
  CHECK_FALSE(has("h100-00000/psw1"));
  CHECK_FALSE(has("h100-00000/nic2"));
  CHECK_FALSE(has("h100-00000/nvsw0"));
  CHECK(has("su000/leaf0"));
  CHECK_FALSE(has("spine0"));  // both nodes in one SU
}
