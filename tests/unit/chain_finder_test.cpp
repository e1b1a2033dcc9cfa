// Shaped jobs: the chain finder against the Groq preset, against a
// brute-force search on small topologies, and through the planner
// (placement, spare nodes, reasons, check).
#include "topoplan/placement/chain_finder.hpp"

#include <algorithm>
#include <functional>
#include <random>
#include <set>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "test_presets.hpp"
#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/placement/chain_path.hpp"
#include "topoplan/placement/jobs_yaml.hpp"
#include "topoplan/placement/placement_check.hpp"
#include "topoplan/placement/planner_state.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

std::vector<std::uint8_t> all_usable(const Topology& t) { return std::vector<std::uint8_t>(t.accelerators().size(), 1); }

std::vector<DeviceId> devices_of(const Topology& t, const std::vector<std::uint32_t>& accels) {
  std::vector<DeviceId> out;
  for (std::uint32_t a : accels) out.push_back(t.accelerators()[a]);
  return out;
}

// Levels between two accelerators' nodes and their common ancestor.
std::uint32_t crossing(const Topology& t, std::uint32_t a, std::uint32_t b) {
  DomainId x = t.device(t.accelerators()[a]).domain, y = t.device(t.accelerators()[b]).domain;
  std::uint32_t n = 0;
  for (; x != y; ++n) {
    x = t.domain(x).parent;
    y = t.domain(y).parent;
  }
  return n;
}

std::uint32_t crossings(const Topology& t, const std::vector<std::uint32_t>& chain, bool ring) {
  std::uint32_t n = 0;
  for (std::size_t i = 0; i + 1 < chain.size(); ++i) n += crossing(t, chain[i], chain[i + 1]);
  if (ring && chain.size() > 2) n += crossing(t, chain.back(), chain.front());
  return n;
}

// Whether two accelerators share a link (any latency).
bool linked(const Topology& t, std::uint32_t a, std::uint32_t b) {
  return direct_link(t, t.accelerators()[a], t.accelerators()[b]) != kNone;
}

// Every simple path (or cycle) of `size` usable chips: the fewest crossings,
// or nullopt when there is none. Exponential; for a dozen chips.
std::optional<std::uint32_t> brute_force(const Topology& t, const std::vector<std::uint8_t>& usable, std::uint32_t size,
                                         bool ring) {
  const auto n = static_cast<std::uint32_t>(usable.size());
  std::optional<std::uint32_t> best;
  std::vector<std::uint32_t> path;
  std::vector<std::uint8_t> on(n, 0);
  std::function<void()> walk = [&]() {
    if (path.size() == size) {
      if (ring && size > 2 && !linked(t, path.back(), path.front())) return;
      std::uint32_t c = crossings(t, path, ring);
      if (!best || c < *best) best = c;
      return;
    }
    for (std::uint32_t b = 0; b < n; ++b) {
      if (!usable[b] || on[b] || (!path.empty() && !linked(t, path.back(), b))) continue;
      on[b] = 1;
      path.push_back(b);
      walk();
      path.pop_back();
      on[b] = 0;
    }
  };
  walk();
  return best;
}

}  // namespace

TEST_CASE("chain finder: whole GroqNodes joined by their global links, fewest hops") {
  Topology t = preset("groq:racks=1");
  for (std::uint32_t size : {8u, 16u, 40u, 72u}) {
    ChainRequest r;
    r.size = size;
    ChainFound found = find_chain(t, all_usable(t), r);
    REQUIRE(found.accelerators.size() == size);
    std::set<std::uint32_t> distinct(found.accelerators.begin(), found.accelerators.end());
    CHECK(distinct.size() == size);
    ChainPath path = measure_chain(t, devices_of(t, found.accelerators), ChainShape::chain);
    CHECK(path.connected);
    CHECK(path.uniform);  // every groq-c2c link has the same latency
    // 8 chips to a node: a chain of N crosses ceil(N / 8) - 1 node borders.
    CHECK(path.global_hops == (size + 7) / 8 - 1);
    CHECK(path.local_hops == size - 1 - path.global_hops);
    CHECK(path.latency_us == Approx(size - 1));  // 1 us per hop (link_type.cpp)
  }
}

TEST_CASE("chain finder: rings close, groups are fully connected, spares stay free") {
  Topology t = preset("groq:racks=1");
  ChainRequest ring;
  ring.size = 24;
  ring.shape = ChainShape::ring;
  ChainFound r = find_chain(t, all_usable(t), ring);
  REQUIRE(r.accelerators.size() == 24);
  ChainPath path = measure_chain(t, devices_of(t, r.accelerators), ChainShape::ring);
  CHECK(path.connected);
  CHECK(path.hops.size() == 24);
  CHECK(path.global_hops == 3);  // 3 nodes, and back to the first

  ChainRequest group;
  group.size = 8;
  group.shape = ChainShape::group;
  ChainFound g = find_chain(t, all_usable(t), group);
  REQUIRE(g.accelerators.size() == 8);
  CHECK(measure_chain(t, devices_of(t, g.accelerators), ChainShape::group).connected);
  group.size = 9;  // no 9 chips of a rack are all linked to each other
  ChainFound g9 = find_chain(t, all_usable(t), group);
  CHECK(g9.accelerators.empty());
  CHECK(g9.longest == 8);

  ChainRequest spare;
  spare.size = 72;
  spare.spare = t.find_level("rack");
  ChainFound s72 = find_chain(t, all_usable(t), spare);
  CHECK(s72.accelerators.empty());
  spare.size = 64;
  ChainFound s64 = find_chain(t, all_usable(t), spare);
  REQUIRE(s64.accelerators.size() == 64);
  REQUIRE(s64.spares.size() == 1);
  const Domain& node = t.domain(s64.spares.front());
  for (std::uint32_t a : s64.accelerators) CHECK((a < node.accel_begin || a >= node.accel_end));
}

TEST_CASE("chain finder: deterministic jobs get one hop latency or nothing") {
  // Two nodes of 4; the nodes are joined by a slow link (2 us) and, in the
  // second topology, also by one at the nodes' own latency (1 us).
  auto topology = [](bool fast_too) {
    std::string text = std::string(R"(name: two
levels: [cluster, node]
blocks:
  node:
    level: node
    devices: [{name: "lpu[0-3]", kind: lpu}]
    links: [{from: "lpu*", type: groq-c2c, mode: mesh}]
  c:
    level: cluster
    children: [{block: node, count: 2, name: "n{j}"}]
    links:
      - {from: "n0/lpu3", to: "n1/lpu0", type: groq-c2c, latency: 2}
)") + (fast_too ? "      - {from: \"n0/lpu2\", to: \"n1/lpu1\", type: groq-c2c}\n" : "");
    return parse_topology_yaml(text, "two.yaml");
  };
  Topology slow = topology(false);
  ChainRequest r;
  r.size = 8;
  ChainFound any = find_chain(slow, all_usable(slow), r);
  REQUIRE(any.accelerators.size() == 8);
  ChainPath mixed = measure_chain(slow, devices_of(slow, any.accelerators), ChainShape::chain);
  CHECK(mixed.connected);
  CHECK_FALSE(mixed.uniform);
  CHECK(mixed.latency_us == Approx(6 + 2));
  CHECK(chain_problem(slow, mixed, ChainShape::chain, true).find("not uniform") != std::string::npos);
  CHECK(chain_problem(slow, mixed, ChainShape::chain, false).empty());
  r.deterministic = true;
  CHECK(find_chain(slow, all_usable(slow), r).accelerators.empty());
  r.size = 4;  // one node: every hop local
  CHECK(find_chain(slow, all_usable(slow), r).accelerators.size() == 4);

  Topology both = topology(true);
  r.size = 8;
  ChainFound uniform = find_chain(both, all_usable(both), r);
  REQUIRE(uniform.accelerators.size() == 8);
  ChainPath path = measure_chain(both, devices_of(both, uniform.accelerators), ChainShape::chain);
  CHECK(path.uniform);
  CHECK(path.latency_us == Approx(7));
}

TEST_CASE("chain finder: finds a shape exactly when one exists, with the fewest crossings (brute force)") {
  // Three nodes of three fully linked LPUs (two in rack r0, one in r1) and
  // random links between nodes; random chips taken.
  std::mt19937 rng(14);  // fixed: the same instances every run
  int instances = 0, found = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::string links;
    const char* hosts[] = {"r0/n0", "r0/n1", "r1/n0"};
    for (int k = 0; k < 4; ++k) {
      // One draw per statement: the same instances with every compiler.
      const std::size_t x = rng() % 3;
      const std::size_t y = (x + 1 + rng() % 2) % 3;
      const auto from = static_cast<unsigned>(rng() % 3);
      const auto to = static_cast<unsigned>(rng() % 3);
      links += fmt::format("      - {{from: \"{}/lpu{}\", to: \"{}/lpu{}\", type: groq-c2c}}\n", hosts[x], from,
                           hosts[y], to);
    }
    std::string text = R"(name: small
levels: [cluster, rack, node]
blocks:
  node:
    level: node
    devices: [{name: "lpu[0-2]", kind: lpu}]
    links: [{from: "lpu*", type: groq-c2c, mode: mesh}]
  r0:
    level: rack
    children: [{block: node, count: 2, name: "n{j}"}]
  r1:
    level: rack
    children: [{block: node, count: 1, name: "n{j}"}]
  c:
    level: cluster
    children: [{block: r0, name: r0}, {block: r1, name: r1}]
    links:
)" + links;
    Topology t = parse_topology_yaml(text, "small.yaml");
    std::vector<std::uint8_t> usable(t.accelerators().size());
    for (auto& u : usable) u = rng() % 5 != 0 ? 1 : 0;
    for (bool ring : {false, true})
      for (std::uint32_t size = 2; size <= 9; ++size) {
        ChainRequest r;
        r.size = size;
        r.shape = ring ? ChainShape::ring : ChainShape::chain;
        ChainFound f = find_chain(t, usable, r);
        std::optional<std::uint32_t> best = brute_force(t, usable, size, ring);
        ++instances;
        INFO(text << "usable " << fmt::format("{}", fmt::join(usable, "")) << " size " << size << " ring " << ring);
        REQUIRE(f.accelerators.empty() == !best.has_value());
        if (!best) continue;
        ++found;
        for (std::uint32_t a : f.accelerators) CHECK(usable[a]);
        CHECK(measure_chain(t, devices_of(t, f.accelerators), r.shape).connected);
        CHECK(crossings(t, f.accelerators, ring) == *best);
      }
  }
  CHECK(instances == 60 * 2 * 8);
  CHECK(found > 100);  // the instances are not all hopeless
  CHECK(found < instances);
}

TEST_CASE("chain finder: refuses without searching when the free chips are too few or too far apart") {
  // Four racks with random chips free: the finder's `joined` is the largest
  // set of free chips joined by links (counted here by a plain walk over
  // the links), and the search runs exactly when a set is large enough.
  Topology t = preset("groq:racks=4");
  const auto n = static_cast<std::uint32_t>(t.accelerators().size());
  std::mt19937 rng(1414);  // fixed: the same instances every run
  for (int trial = 0; trial < 12; ++trial) {
    std::vector<std::uint8_t> usable(n);
    const std::uint32_t per_mille = 60 + 40 * static_cast<std::uint32_t>(trial);  // 6 % to 50 % of the chips free
    for (auto& u : usable) u = rng() % 1000 < per_mille ? 1 : 0;
    std::uint32_t largest = 0, free = 0;
    std::vector<std::uint8_t> seen(n, 0);
    for (std::uint32_t s = 0; s < n; ++s) {
      free += usable[s];
      if (!usable[s] || seen[s]) continue;
      std::vector<std::uint32_t> stack{s};
      seen[s] = 1;
      std::uint32_t size = 0;
      while (!stack.empty()) {
        std::uint32_t a = stack.back();
        stack.pop_back();
        ++size;
        for (std::uint32_t b = 0; b < n; ++b)
          if (usable[b] && !seen[b] && linked(t, a, b)) {
            seen[b] = 1;
            stack.push_back(b);
          }
      }
      largest = std::max(largest, size);
    }
    for (std::uint32_t size : {9u, 16u, 40u}) {
      ChainRequest r;
      r.size = size;
      ChainFound f = find_chain(t, usable, r);
      INFO("trial " << trial << " size " << size << " free " << free << " largest set " << largest);
      CHECK(f.usable == free);
      if (free < size) {
        CHECK_FALSE(f.searched);
      } else {
        CHECK(f.joined == largest);
        CHECK(f.searched == (largest >= size));
      }
      if (!f.searched) CHECK(f.accelerators.empty());
      if (!f.accelerators.empty()) CHECK(measure_chain(t, devices_of(t, f.accelerators), ChainShape::chain).connected);
    }
  }
  // A whole free rack still finds its chain of 72, through every node.
  std::vector<std::uint8_t> rack(n, 0);
  for (std::uint32_t a = 0; a < 72; ++a) rack[a] = 1;
  ChainRequest r;
  r.size = 72;
  ChainFound f = find_chain(t, rack, r);
  CHECK(f.searched);
  CHECK(f.accelerators.size() == 72);
}
