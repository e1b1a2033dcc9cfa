// export --to volcano: one HyperNode per domain above the hosts, tiers from
// the hosts upwards, valid and unique names.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include <yaml-cpp/yaml.h>

#include "topoplan/formats/topology_export.hpp"
#include "topoplan/io/topology_source.hpp"
#include "topoplan/model/topology_builder.hpp"

using namespace topoplan;

namespace {

std::string volcano(const Topology& t) { return find_export_format("volcano")->run(t, {}); }

struct HyperNode {
  int tier = 0;
  std::string tier_name;
  std::string type;
  std::vector<std::string> members;
};

std::map<std::string, HyperNode> hypernodes(const std::string& text) {
  std::map<std::string, HyperNode> out;
  for (const YAML::Node& doc : YAML::LoadAll(text)) {
    REQUIRE(doc["apiVersion"].as<std::string>() == "topology.volcano.sh/v1alpha1");
    REQUIRE(doc["kind"].as<std::string>() == "HyperNode");
    HyperNode h;
    h.tier = doc["spec"]["tier"].as<int>();
    h.tier_name = doc["spec"]["tierName"].as<std::string>();
    for (const YAML::Node& m : doc["spec"]["members"]) {
      h.type = m["type"].as<std::string>();
      h.members.push_back(m["selector"]["exactMatch"]["name"].as<std::string>());
    }
    std::string name = doc["metadata"]["name"].as<std::string>();
    REQUIRE(out.count(name) == 0);
    out[name] = h;
  }
  return out;
}

}  // namespace

TEST_CASE("volcano: racks are tier 1, scalable units tier 2, the cluster tier 3") {
  Topology t = load_topology("gb200-nvl72:racks=9", [](const std::string&) { return std::optional<std::string>(); });
  std::string text = volcano(t);
  CHECK(text == volcano(t));
  auto h = hypernodes(text);
  REQUIRE(h.size() == 9 + 2 + 1);
  CHECK(h.at("su000-r0000").tier == 1);
  CHECK(h.at("su000-r0000").tier_name == "rack");
  CHECK(h.at("su000-r0000").type == "Node");
  REQUIRE(h.at("su000-r0000").members.size() == 18);
  CHECK(h.at("su000-r0000").members.front() == "r0000-n00");
  CHECK(h.at("su001-r0008").members.back() == "r0008-n17");
  CHECK(h.at("su000").tier == 2);
  CHECK(h.at("su000").type == "HyperNode");
  CHECK(h.at("su000").members.size() == 8);
  CHECK(h.at("su001").members == std::vector<std::string>{"su001-r0008"});
  CHECK(h.at("gb200-nvl72").tier == 3);
  CHECK(h.at("gb200-nvl72").tier_name == "cluster");
  CHECK(h.at("gb200-nvl72").members == std::vector<std::string>{"su000", "su001"});
  // Lowest tier first, so members exist before the HyperNodes that list them.
  CHECK(text.find("name: \"su000-r0000\"") < text.find("name: \"su000\""));
}

TEST_CASE("volcano: names are DNS-1123 labels, unique, and empty domains are left out") {
  TopologyBuilder b("Big_Cluster", {"cluster", "row", "rack", "node"});
  DomainId row = b.add_domain(b.root(), "Row_A");
  DomainId r1 = b.add_domain(row, std::string(70, 'R'));
  DomainId r2 = b.add_domain(row, std::string(70, 'r'));
  DomainId r3 = b.add_domain(row, "empty");  // a rack without nodes
  (void)r3;
  DomainId other = b.add_domain(b.root(), "row.a");  // "row-a" after sanitising, like Row_A
  DomainId r4 = b.add_domain(other, "r");
  int n = 0;
  for (DomainId rack : {r1, r2, r4}) {
    DomainId host = b.add_domain(rack, "n" + std::to_string(n));
    b.set_hostname(host, "host-" + std::to_string(n++));
    b.add_device(host, DeviceKind::gpu, "gpu0", {});
  }
  DiagnosticSink sink;
  Topology t = b.finish(sink);
  auto h = hypernodes(volcano(t));
  CHECK(h.size() == 1 + 2 + 3);
  // A DNS-1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 characters.
  // (No <regex>: GCC 12 warns falsely inside it under the sanitizers.)
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (const auto& [name, node] : h) {
    CHECK(!name.empty());
    CHECK(name.size() <= 63);
    CHECK(alnum(name.front()));
    CHECK(alnum(name.back()));
    CHECK(std::all_of(name.begin(), name.end(), [&](char c) { return alnum(c) || c == '-'; }));
  }
  CHECK(h.count("big-cluster"));
  CHECK(h.count("row-a"));
  CHECK(h.at("row-a").members.size() == 2);  // the empty rack is no member
  CHECK(h.at("big-cluster").members.size() == 2);
}

TEST_CASE("volcano: options it does not take and hostnames it cannot use are errors") {
  Topology t = load_topology("dgx-h100", [](const std::string&) { return std::optional<std::string>(); });
  ExportOptions o;
  o.style = "kubectl";
  CHECK_THROWS_WITH(find_export_format("volcano")->run(t, o),
                    "--style: --style kubectl is for --to kueue; HyperNodes are objects to apply");
  TopologyBuilder b("one", {"cluster", "node"});
  DomainId host = b.add_domain(b.root(), "n");
  b.set_hostname(host, "UPPER");
  b.add_device(host, DeviceKind::gpu, "gpu0", {});
  DiagnosticSink sink;
  CHECK_THROWS_WITH(volcano(b.finish(sink)),
                    "hostname 'UPPER' is not a Kubernetes node name (a lower-case DNS subdomain), so a HyperNode "
                    "cannot refer to it");
}
