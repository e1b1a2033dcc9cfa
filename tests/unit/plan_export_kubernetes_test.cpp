// export-plan --to kubernetes|kueue: one PodTemplate per job (and per
// replica) whose template requires the job's nodes by kubernetes.io/hostname;
// names made valid; warnings for what a pod template cannot pin. (An
// independent parser checks the node selection in
// tests/scripts/plan_export_kubernetes.sh.)
#include <catch2/catch.hpp>

#include "test_presets.hpp"

#include <yaml-cpp/yaml.h>

#include "topoplan/formats/plan_export.hpp"
#include "topoplan/model/topology_builder.hpp"
#include "topoplan/placement/plan_io.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

PlanExport kubernetes(const Topology& t, const std::string& plan_text, const std::string& format = "kubernetes") {
  Plan plan = parse_plan_yaml(plan_text, "plan.yaml", t);
  return find_plan_export_format(format)->run(t, plan, PlanExportOptions{});
}

std::vector<YAML::Node> documents(const PlanExport& e) {
  std::vector<YAML::Node> out;
  for (const YAML::Node& d : YAML::LoadAll(e.text))
    if (d.IsDefined() && !d.IsNull()) out.push_back(d);
  return out;
}

// The hostnames a pod template requires, with the structure checked on the way.
std::vector<std::string> required_hosts(const YAML::Node& doc) {
  REQUIRE(doc["apiVersion"].as<std::string>() == "v1");
  REQUIRE(doc["kind"].as<std::string>() == "PodTemplate");
  YAML::Node terms = doc["template"]["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                        ["nodeSelectorTerms"];
  REQUIRE(terms.IsSequence());
  REQUIRE(terms.size() == 1);
  YAML::Node expressions = terms[0]["matchExpressions"];
  REQUIRE(expressions.size() == 1);
  CHECK(expressions[0]["key"].as<std::string>() == "kubernetes.io/hostname");
  CHECK(expressions[0]["operator"].as<std::string>() == "In");
  return expressions[0]["values"].as<std::vector<std::string>>();
}

std::vector<std::string> messages(const PlanExport& e) {
  std::vector<std::string> out;
  for (const Diagnostic& d : e.warnings) out.push_back(d.message);
  return out;
}

bool any_contains(const std::vector<std::string>& all, const std::string& part) {
  for (const std::string& s : all)
    if (s.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("kubernetes plan export: a PodTemplate per job that requires exactly its nodes") {
  Topology t = preset("gb200-nvl72:racks=2");
  PlanExport e = kubernetes(t,
                            "jobs:\n"
                            "  - {name: pretrain, nodes: 3, hosts: \"r0001-n00,r0000-n[05-06]\"}\n"
                            "  - {name: finetune, gpus: 8, devices: \"r0001-n1[0-1]/gpu[0-3]\"}\n");
  std::vector<YAML::Node> docs = documents(e);
  REQUIRE(docs.size() == 2);
  CHECK(docs[0]["metadata"]["name"].as<std::string>() == "pretrain");
  CHECK(docs[0]["metadata"]["annotations"]["topoplan.io/job"].as<std::string>() == "pretrain");
  CHECK_FALSE(docs[0]["metadata"]["annotations"]["topoplan.io/replica"].IsDefined());
  CHECK(required_hosts(docs[0]) == std::vector<std::string>{"r0000-n05", "r0000-n06", "r0001-n00"});
  CHECK(required_hosts(docs[1]) == std::vector<std::string>{"r0001-n10", "r0001-n11"});
  // Listed rack 1 first, pretrain's ranks step back to rack 0: the only warning.
  REQUIRE(e.warnings.size() == 1);
  CHECK(e.warnings[0].message.find("job 'pretrain': pods take their nodes in Kueue's order") == 0);
  // kueue is the same format under the name Kueue users look for.
  CHECK(kubernetes(t, "jobs:\n  - {name: pretrain, nodes: 3, hosts: \"r0001-n00,r0000-n[05-06]\"}\n", "kueue").text ==
        kubernetes(t, "jobs:\n  - {name: pretrain, nodes: 3, hosts: \"r0001-n00,r0000-n[05-06]\"}\n").text);
}

TEST_CASE("kubernetes plan export: replicas get a template each besides the job's") {
  Topology t = preset("dgx-h100:nodes=8");
  PlanExport e = kubernetes(t,
                            "jobs:\n"
                            "  - {name: serve, kind: inference, replica_devices: [\"h100-0000[3-4]/gpu[0-7]\", "
                            "\"h100-00000/gpu[0-7],h100-00007/gpu[0-7]\"]}\n");
  std::vector<YAML::Node> docs = documents(e);
  REQUIRE(docs.size() == 3);
  CHECK(required_hosts(docs[0]) ==
        std::vector<std::string>{"h100-00000", "h100-00003", "h100-00004", "h100-00007"});
  CHECK(docs[1]["metadata"]["name"].as<std::string>() == "serve-replica-0");
  CHECK(docs[1]["metadata"]["annotations"]["topoplan.io/replica"].as<std::string>() == "0");
  CHECK(docs[1]["metadata"]["annotations"]["topoplan.io/job"].as<std::string>() == "serve");
  CHECK(required_hosts(docs[1]) == std::vector<std::string>{"h100-00003", "h100-00004"});
  CHECK(required_hosts(docs[2]) == std::vector<std::string>{"h100-00000", "h100-00007"});
  CHECK(any_contains(messages(e), "job 'serve': its 2 replicas share one pod template"));
}

TEST_CASE("kubernetes plan export: warnings for shared nodes, rank order and unplaced jobs") {
  Topology t = preset("gb200-nvl72:racks=1");
  PlanExport e = kubernetes(t,
                            "jobs:\n"
                            "  - {name: part, gpus: 2, devices: \"r0000-n00/gpu[1-2]\"}\n"
                            "  - {name: order, devices: [\"r0000-n02/gpu[0-3]\", \"r0000-n01/gpu[0-3]\"]}\n"
                            "  - {name: later, gpus: 4, placed: false, reason: no room}\n");
  std::vector<YAML::Node> docs = documents(e);
  REQUIRE(docs.size() == 2);
  std::vector<std::string> w = messages(e);
  CHECK(any_contains(w, "job 'part': node affinity chooses nodes, not accelerators: on r0000-n00 the device plugin "
                        "picks which 2 of 4"));
  CHECK(any_contains(w, "job 'order': pods take their nodes in Kueue's order"));
  CHECK(any_contains(w, "rank 4 (r0000-n01/gpu0) comes after r0000-n02/gpu3"));
  CHECK(any_contains(w, "job 'later': not placed in the plan, so it has no patch"));
  CHECK(e.text.find("# job later: not placed (no room), no patch") != std::string::npos);
}

TEST_CASE("kubernetes plan export: object names are valid and distinct, hostnames must be node names") {
  Topology t = preset("dgx-h100:nodes=2");
  PlanExport e = kubernetes(t,
                            "jobs:\n"
                            "  - {name: Pre_Train, nodes: 1, hosts: h100-00000}\n"
                            "  - {name: pre-train, nodes: 1, hosts: h100-00001}\n");
  std::vector<YAML::Node> docs = documents(e);
  REQUIRE(docs.size() == 2);
  std::string a = docs[0]["metadata"]["name"].as<std::string>();
  std::string b = docs[1]["metadata"]["name"].as<std::string>();
  CHECK(a == "pre-train");
  CHECK(b != a);
  CHECK(b.rfind("pre-train-", 0) == 0);
  CHECK(docs[0]["metadata"]["annotations"]["topoplan.io/job"].as<std::string>() == "Pre_Train");

  TopologyBuilder builder("odd", {"cluster", "node"});
  DomainId n = builder.add_domain(builder.root(), "n1");
  builder.set_hostname(n, "Node_1");
  builder.add_device(n, DeviceKind::gpu, "gpu0", {});
  DiagnosticSink sink;
  Topology odd = builder.finish(sink);
  CHECK_THROWS_WITH(kubernetes(odd, "jobs:\n  - {name: j, devices: Node_1/gpu0}\n"),
                    Catch::Contains("hostname 'Node_1' is not a Kubernetes node name"));
}
