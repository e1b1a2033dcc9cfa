// without_links: a topology minus some links keeps every device and domain
// id, name and property, so plans made for the original hold for the copy.
#include "topoplan/model/without_links.hpp"

#include <algorithm>

#include <catch2/catch.hpp>

#include "test_presets.hpp"
#include "topoplan/model/fabric.hpp"
#include "whatif_fixtures.hpp"

using namespace topoplan;

namespace {

void check_same_except_links(const Topology& a, const Topology& b) {
  REQUIRE(a.device_count() == b.device_count());
  REQUIRE(a.domain_count() == b.domain_count());
  CHECK(a.name() == b.name());
  CHECK(a.levels().size() == b.levels().size());
  for (DeviceId d = 0; d < a.device_count(); ++d) {
    CHECK(a.device_name(d) == b.device_name(d));
    CHECK(a.device(d).kind == b.device(d).kind);
    CHECK(a.device(d).state == b.device(d).state);
    CHECK(a.device(d).domain == b.device(d).domain);
    CHECK(a.str(a.device(d).model) == b.str(b.device(d).model));
    CHECK(a.device(d).memory_gib == b.device(d).memory_gib);
    CHECK(a.accelerator_index(d) == b.accelerator_index(d));
  }
  for (DomainId d = 0; d < a.domain_count(); ++d) {
    CHECK(a.domain_name(d) == b.domain_name(d));
    CHECK(a.domain(d).parent == b.domain(d).parent);
    CHECK(a.domain(d).level == b.domain(d).level);
    CHECK(a.domain(d).accel_begin == b.domain(d).accel_begin);
    CHECK(a.domain(d).accel_end == b.domain(d).accel_end);
  }
  CHECK(std::equal(a.accelerators().begin(), a.accelerators().end(), b.accelerators().begin(), b.accelerators().end()));
}

}  // namespace

TEST_CASE("without_links keeps device and domain ids and drops exactly the links given") {
  Topology t = test::tiny_cluster();
  TopologyIndex index(t);
  const DeviceId nvsw = *index.find_device("su0/r0/nvsw0");
  std::vector<LinkId> removed(t.links_of(nvsw).begin(), t.links_of(nvsw).end());
  REQUIRE(removed.size() == 4);  // 4 GPUs of rack r0, one 2-link bundle each
  Topology cut = without_links(t, removed);
  check_same_except_links(t, cut);
  CHECK(cut.link_count() == t.link_count() - 4);
  CHECK(cut.links_of(nvsw).empty());
  // The other tray still joins the rack's GPUs: the island is whole.
  ScaleUpIslands before = find_scale_up_islands(t), after = find_scale_up_islands(cut);
  CHECK(after.size == before.size);
  // The remaining links keep their order, ends, type, count and numbers.
  LinkId k = 0;
  for (LinkId l = 0; l < t.link_count(); ++l) {
    if (std::find(removed.begin(), removed.end(), l) != removed.end()) continue;
    const Link &o = t.link(l), &c = cut.link(k++);
    CHECK(o.a == c.a);
    CHECK(o.b == c.b);
    CHECK(o.count == c.count);
    CHECK(o.bandwidth == c.bandwidth);
    CHECK(o.latency_us == c.latency_us);
    CHECK(t.link_type(o).name == cut.link_type(c).name);
  }
  CHECK(k == cut.link_count());
}

TEST_CASE("without_links on a preset with states and labels, nothing removed is a copy") {
  Topology t = test::preset("dgx-h100:nodes=4");
  Topology same = without_links(t, {});
  check_same_except_links(t, same);
  CHECK(same.link_count() == t.link_count());
  // All NVLinks of one node gone: its GPUs fall apart into single islands.
  TopologyIndex index(t);
  std::vector<LinkId> nvlinks;
  for (int s = 0; s < 4; ++s)
    for (LinkId l : t.links_of(*index.find_device("h100-00000/nvsw" + std::to_string(s)))) nvlinks.push_back(l);
  Topology cut = without_links(t, nvlinks);
  check_same_except_links(t, cut);
  ScaleUpIslands islands = find_scale_up_islands(cut);
  CHECK(islands.island_of[0] == kNone);  // gpu0 of the first node has no scale-up link left
  CHECK(islands.island_of[8] != kNone);  // the second node is untouched
}

TEST_CASE("without_links marks the domains owning a removed link's ends as altered, and only those") {
  Topology t = test::tiny_cluster();
  TopologyIndex index(t);
  for (DomainId d = 0; d < t.domain_count(); ++d) CHECK_FALSE(t.altered(d));
  const DeviceId nvsw = *index.find_device("su0/r0/nvsw0");
  const std::vector<LinkId> removed(t.links_of(nvsw).begin(), t.links_of(nvsw).end());
  Topology cut = without_links(t, removed);
  std::vector<DomainId> expected;
  for (LinkId l : removed)
    for (DeviceId end : {t.link(l).a, t.link(l).b}) expected.push_back(t.device(end).domain);
  for (DomainId d = 0; d < t.domain_count(); ++d) {
    INFO(t.domain_name(d));
    CHECK(cut.altered(d) == (std::find(expected.begin(), expected.end(), d) != expected.end()));
  }
  CHECK(cut.altered(t.device(nvsw).domain));  // the switch's rack
  // A second rebuild keeps the marks of the first.
  Topology again = without_links(cut, {});
  for (DomainId d = 0; d < t.domain_count(); ++d) CHECK(again.altered(d) == cut.altered(d));
}
