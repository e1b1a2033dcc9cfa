// The sniffer behind `TOPO` node lists and `--occupied` pod lists
// (lib/src/io/kubernetes_list.hpp): one rule for every kind.
#include <catch2/catch.hpp>

#include "../../lib/src/io/kubernetes_list.hpp"
#include "topoplan/formats/topology_import.hpp"
#include "topoplan/manifests/pod_list.hpp"

using topoplan::yaml::is_object_list;

TEST_CASE("kubernetes lists: objects of the kind, alone or in a List or typed list") {
  CHECK(is_object_list("kind: Pod\nmetadata: {name: p}\n", "Pod"));
  CHECK(is_object_list("kind: Pod\n---\n---\nkind: Pod\n", "Pod"));
  CHECK(is_object_list(R"({"kind": "List", "items": [{"kind": "Pod"}, {"kind": "Pod"}]})", "Pod"));
  // Only a typed list may leave the items' kind out (kubectl's PodList).
  CHECK(is_object_list("kind: PodList\nitems:\n- metadata: {name: p}\n", "Pod"));
  CHECK_FALSE(is_object_list("kind: List\nitems:\n- metadata: {name: p}\n", "Pod"));
}

TEST_CASE("kubernetes lists: anything else is not one") {
  // An item of another kind, in a typed list too (the pod sniffer took a
  // PodList of Deployments before the two sniffers became one).
  CHECK_FALSE(is_object_list("kind: PodList\nitems:\n- kind: Deployment\n", "Pod"));
  CHECK_FALSE(is_object_list("kind: List\nitems:\n- kind: Pod\n- kind: Node\n", "Pod"));
  CHECK_FALSE(is_object_list("kind: List\nitems:\n- kind: Pod\n- [a]\n", "Pod"));
  CHECK_FALSE(is_object_list("kind: List\nitems:\n- kind: [Pod]\n", "Pod"));
  CHECK_FALSE(is_object_list("kind: NodeList\nitems:\n- metadata: {name: a}\n", "Pod"));
  CHECK_FALSE(is_object_list("kind: Pod\n---\nkind: Service\n", "Pod"));
  CHECK_FALSE(is_object_list("kind: List\nitems: {}\n", "Pod"));
  CHECK_FALSE(is_object_list("kind: List\nitems: []\n", "Pod"));
  CHECK_FALSE(is_object_list("- kind: Pod\n", "Pod"));
  CHECK_FALSE(is_object_list("name: c\nlevels: [cluster, node]\n", "Pod"));
  CHECK_FALSE(is_object_list("kind: [Pod\n", "Pod"));  // not YAML
  CHECK_FALSE(is_object_list("", "Pod"));
  CHECK_FALSE(is_object_list("---\n---\n", "Pod"));
}

TEST_CASE("kubernetes lists: pod and node sniffers are the one rule") {
  const char* pods = "kind: PodList\nitems:\n- metadata: {name: p}\n";
  const char* nodes = "kind: NodeList\nitems:\n- metadata: {name: n}\n";
  CHECK(topoplan::is_pod_list(pods));
  CHECK_FALSE(topoplan::is_pod_list(nodes));
  CHECK(topoplan::is_k8s_node_list(nodes));
  CHECK_FALSE(topoplan::is_k8s_node_list(pods));
  CHECK_FALSE(topoplan::is_pod_list("kind: PodList\nitems:\n- kind: Deployment\n"));
}
