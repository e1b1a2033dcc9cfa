// import --from openb-nodes: Alibaba's openb node list as a topology, on a
// hand-written list and on the real one (tests/data/traces, 1,213 GPU nodes).
#include <catch2/catch.hpp>

#include <map>

#include "import_test_support.hpp"

using namespace topoplan;
using namespace topoplan::test;

namespace {

std::string messages(const InputError& e) {
  std::string out;
  for (const Diagnostic& d : e.diagnostics()) out += d.where.str() + ": " + d.message + "\n";
  return out;
}

std::string import_error(const std::string& text) {
  try {
    import_text("openb-nodes", "nodes.csv", text);
  } catch (const InputError& e) {
    return messages(e);
  }
  return "";
}

}  // namespace

TEST_CASE("openb-nodes: one node a row, its GPUs of its model, one switch") {
  ImportResult r = import_text("openb-nodes", "nodes.csv",
                               "sn,cpu_milli,memory_mib,gpu,model\r\n"
                               "openb-node-0227,32000,262144,0,nan\r\n"
                               "openb-node-0228,128000,786432,8,G3\r\n"
                               "openb-node-0229,96000,786432,2,V100M32\r\n");
  const Topology& t = r.topology;
  REQUIRE(t.levels().size() == 2);
  CHECK(t.levels()[0].name == "cluster");
  CHECK(t.levels()[1].name == "node");
  REQUIRE(t.accelerators().size() == 10);
  std::map<std::string, int> per_model;
  std::map<std::string, int> per_host;
  for (DeviceId g : t.accelerators()) {
    const Device& d = t.device(g);
    ++per_model[std::string(t.str(d.model))];
    ++per_host[std::string(t.hostname(d.domain))];
  }
  CHECK(per_model == std::map<std::string, int>{{"G3", 8}, {"V100M32", 2}});
  CHECK(per_host == std::map<std::string, int>{{"openb-node-0228", 8}, {"openb-node-0229", 2}});
  CHECK(count_kind(t, DeviceKind::network_switch) == 1);
  CHECK(count_links(t, "ib-ndr") == 10);  // one NIC per GPU, each to the switch
  // cpu_milli and memory_mib as allocatable millicores and bytes; pods as
  // the kubelet's default.
  const DomainId host = t.device(t.accelerators().front()).domain;
  CHECK(t.node_resources(host).allocatable.value("cpu") == 128000);
  CHECK(t.node_resources(host).allocatable.value("memory") == 786432LL * 1024 * 1024);
  CHECK(t.node_resources(host).allocatable.value("pods") == 110);  // the kubelet's default maxPods
  // The GPU-less row is left out, and said so.
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].message == "1 node without GPUs left out");
}

TEST_CASE("openb-nodes: the published node list has 1,213 nodes and 6,212 GPUs") {
  ImportResult r = import_data("openb-nodes", "traces/openb_node_list_gpu_node.csv");
  const Topology& t = r.topology;
  CHECK(r.warnings.empty());
  // Counted from the CSV with awk (sum of column gpu, by model); FGD
  // (ATC'23, section 6.1) describes the cluster as 1,213 GPU nodes with
  // 6,212 GPUs.
  CHECK(t.accelerators().size() == 6212);
  std::map<std::string, int> per_model;
  for (DeviceId g : t.accelerators()) ++per_model[std::string(t.str(t.device(g).model))];
  CHECK(per_model == std::map<std::string, int>{{"A10", 2},      {"G2", 4392},     {"G3", 312}, {"P100", 265},
                                                {"T4", 842},     {"V100M16", 195}, {"V100M32", 204}});
  CHECK(t.domain_count_at(t.host_level()) == 1213);
}

TEST_CASE("openb-nodes: every bad row reported at its cell") {
  CHECK(import_error("sn,gpu,model\nn1,x,T4\nn2,2\nn3,-1,T4\n,1,T4\n") ==
        "nodes.csv:2:4: gpu is 'x'; it must be a whole number from 0 to 1024\n"
        "nodes.csv:3:1: 2 fields, but the header has 3\n"
        "nodes.csv:4:4: gpu is '-1'; it must be a whole number from 0 to 1024\n"
        "nodes.csv:5:1: sn (the node's name) is empty\n");
  CHECK(import_error("sn,gpu,model\nn1,1,T4\nn1,2,T4\n") == "nodes.csv:3:1: node 'n1' is listed twice (first on line 2)\n");
  CHECK(import_error("sn,gpu,model\nn1,0,\n") == "nodes.csv: the list holds no node with GPUs\n");
  CHECK(import_error("name,gpus\nn1,1\n") ==
        "nodes.csv:1:1: an openb node list starts with a header naming the columns sn, gpu, model (and cpu_milli, "
        "memory_mib)\n");
}

TEST_CASE("openb-nodes: recognised by its header") {
  CHECK(is_openb_node_list("sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0000,64000,262144,2,P100\n"));
  CHECK(is_openb_node_list("\xEF\xBB\xBFsn,gpu,model\r\n"));
  CHECK_FALSE(is_openb_node_list("name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"));  // a pod list
  CHECK_FALSE(is_openb_node_list("kind: List\nitems: []\n"));
  CHECK_FALSE(is_openb_node_list(""));
}
