// Kubernetes' naming rules (k8s.io/apimachinery/pkg/util/validation) as the
// node-list importer, the exporters and the Grove and DisaggregatedSet
// readers apply them, and the names topoplan makes valid.
#include "../../lib/src/io/kubernetes_names.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/support/error.hpp"

using namespace topoplan;

namespace {

struct NameCase {
  std::string name;
  bool valid;
};

}  // namespace

TEST_CASE("DNS-1123 labels: lower-case alphanumerics and '-', alphanumeric ends, at most 63") {
  const NameCase cases[] = {
      {"prefill", true},
      {"r0-n1", true},
      {"7", true},
      {std::string(63, 'a'), true},
      {std::string(64, 'a'), false},
      {"", false},
      {"Prefill", false},
      {"-a", false},
      {"a-", false},
      {"a.b", false},
      {"a_b", false},
  };
  for (const NameCase& c : cases) {
    INFO("'" << c.name << "'");
    CHECK(is_dns1123_label(c.name) == c.valid);
  }
}

TEST_CASE("DNS-1123 subdomains: labels joined by dots, 253 in all, each label without its own limit") {
  const NameCase cases[] = {
      {"gpu-a1.example.com", true},
      {std::string(100, 'a'), true},
      {std::string(253, 'a'), true},
      {std::string(254, 'a'), false},
      {"a..b", false},
      {".a", false},
      {"a.-b", false},
      {"A.b", false},
  };
  for (const NameCase& c : cases) {
    INFO("'" << c.name << "'");
    CHECK(is_dns1123_subdomain(c.name) == c.valid);
  }
}

TEST_CASE("label values and keys") {
  const NameCase values[] = {
      {"", true}, {"H100_80GB.v2", true}, {"-x", false}, {"a b", false}, {std::string(64, 'a'), false},
  };
  for (const NameCase& c : values) {
    INFO("value '" << c.name << "'");
    CHECK(is_label_value(c.name) == c.valid);
  }
  CHECK(label_key_problem("example.com/rack").empty());
  CHECK(label_key_problem("rack").empty());
  CHECK(label_key_problem("") == "a label key must not be empty");
  CHECK_THAT(label_key_problem("Example.com/rack"), Catch::Contains("prefix 'Example.com'"));
  CHECK_THAT(label_key_problem("example.com/-rack"), Catch::Contains("the name '-rack'"));
}

TEST_CASE("names made valid: replaced characters collapse, ends trimmed, long names cut and hashed") {
  CHECK(to_dns1123_label("SU000/Rack_3") == "su000-rack-3");
  CHECK(to_label_value("SU000/Rack_3") == "SU000-Rack_3");
  CHECK(to_dns1123_label("--") == "x");
  const std::string a = to_dns1123_label(std::string(70, 'a') + "1");
  const std::string b = to_dns1123_label(std::string(70, 'a') + "2");
  CHECK(a.size() == 63);
  CHECK(b.size() == 63);
  CHECK(a != b);
  CHECK(is_dns1123_label(a));
  CHECK(to_dns1123_label(std::string(70, 'a') + "1") == a);  // deterministic
}

TEST_CASE("unique names: the wanted one when free, else a suffix from the seed, else a counter") {
  UniqueNames names;
  CHECK(names.claim("rack", "su0/rack") == "rack");
  const std::string second = names.claim("rack", "su1/rack");
  CHECK(second != "rack");
  CHECK_THAT(second, Catch::StartsWith("rack-"));
  CHECK(names.claim("rack", "su1/rack") == "rack-2");  // same seed again: the counter
  UniqueNames again;
  again.claim("rack", "su0/rack");
  CHECK(again.claim("rack", "su1/rack") == second);
  const std::string long_name(63, 'a');
  UniqueNames full;
  full.claim(long_name, "x");
  CHECK(full.claim(long_name, "y").size() == 63);
}

TEST_CASE("node names: every hostname that is not a DNS subdomain is named") {
  const Topology t = parse_topology_yaml(R"(name: hosts
levels: [cluster, node]
blocks:
  node:
    level: node
    hostname: "Host_{g}"
    devices:
      - {name: "gpu0", kind: gpu, model: H100}
  cluster:
    level: cluster
    children:
      - {block: node, count: 2, name: "n{g}"}
root: cluster
)",
                                         "hosts.yaml");
  try {
    check_node_names(t, "Kueue");
    FAIL("the hostnames were accepted");
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 2);
    CHECK_THAT(e.diagnostics()[0].message, Catch::StartsWith("hostname 'Host_0' is not a Kubernetes node name"));
    CHECK_THAT(e.diagnostics()[1].message, Catch::Contains("so Kueue cannot refer to it"));
  }
}
