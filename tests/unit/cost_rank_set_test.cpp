// Choosing ranks the way users name them: --first N, or names, hostnames and
// domains with hostlist brackets, in the order given.
#include "topoplan/cost/rank_set.hpp"

#include <catch2/catch.hpp>

#include "topoplan/io/topology_source.hpp"

using namespace topoplan;

namespace {

Topology nvl72() {
  return load_topology("gb200-nvl72:racks=2", [](const std::string&) { return std::optional<std::string>(); });
}

std::vector<std::string> names(const Topology& t, const std::vector<DeviceId>& ranks) {
  std::vector<std::string> out;
  for (DeviceId d : ranks) out.push_back(t.device_name(d));
  return out;
}

std::string error_of(const Topology& t, const RankSelection& s) {
  try {
    select_ranks(t, s);
  } catch (const InputError& e) {
    return e.diagnostics().front().str();
  }
  return "";
}

RankSelection devices(std::string list) {
  RankSelection s;
  s.devices = std::move(list);
  return s;
}

RankSelection first(std::uint64_t n) {
  RankSelection s;
  s.first = n;
  return s;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("first N takes accelerators in topology order, nothing means all") {
  Topology t = nvl72();
  CHECK(names(t, select_ranks(t, first(4))) ==
        std::vector<std::string>{"r0000-n00/gpu0", "r0000-n00/gpu1", "r0000-n00/gpu2", "r0000-n00/gpu3"});
  CHECK(select_ranks(t, first(144)).size() == 144);
  CHECK(select_ranks(t, RankSelection{}).size() == 144);
}

TEST_CASE("device lists keep the given order and expand hosts and domains") {
  Topology t = nvl72();
  CHECK(names(t, select_ranks(t, devices("r0001-n00/gpu3,r0000-n00/gpu[1,0]"))) ==
        std::vector<std::string>{"r0001-n00/gpu3", "r0000-n00/gpu1", "r0000-n00/gpu0"});
  auto host = select_ranks(t, devices("r0001-n17"));
  CHECK(names(t, host) ==
        std::vector<std::string>{"r0001-n17/gpu0", "r0001-n17/gpu1", "r0001-n17/gpu2", "r0001-n17/gpu3"});
  CHECK(select_ranks(t, devices("su000/r0001")).size() == 72);
  CHECK(select_ranks(t, devices("r0000-n[00-15]")).size() == 64);
}

TEST_CASE("bad rank selections are located input errors") {
  Topology t = nvl72();
  CHECK(contains(error_of(t, devices("r0000-n00/gpu0,r0000-n00")), "--devices: 'r0000-n00/gpu0' is listed twice"));
  CHECK(contains(error_of(t, devices("r0000-n00/gpu0,r0000-n00/gpu0")), "listed twice"));
  std::string unknown = error_of(t, devices("r0000-n00/gpu9"));
  CHECK(contains(unknown, "no accelerator, host or domain named 'r0000-n00/gpu9'"));
  CHECK(contains(unknown, "did you mean"));
  CHECK(contains(error_of(t, devices("r0000-n00/nic0")), "is a nic, not an accelerator"));
  CHECK(contains(error_of(t, devices("r0000-n[00-")), "--devices: "));
  CHECK(contains(error_of(t, first(0)), "--first: must be at least 1"));
  CHECK(contains(error_of(t, first(145)), "145 ranks requested but gb200-nvl72 has only 144"));
  RankSelection both = first(4);
  both.devices = "r0000-n00";
  CHECK(contains(error_of(t, both), "give one"));
}
