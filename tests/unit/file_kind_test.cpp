// What a file given in the wrong place seems to be, for the error message.
#include "topoplan/io/file_kind.hpp"

#include <catch2/catch.hpp>

#include "source_dir.hpp"

using namespace topoplan;

namespace {

std::string file(const std::string& relative) {
  std::string text = topoplan::test::source_file(relative);
  REQUIRE(!text.empty());
  return text;
}

}  // namespace

TEST_CASE("file kind: the project's real files of each kind are recognised") {
  CHECK(guess_file_kind(file("topologies/dgx-h100.yaml")) == FileKind::topology);
  CHECK(guess_file_kind(file("samples/jobs-nvl72.yaml")) == FileKind::jobs);
  CHECK(guess_file_kind(file("tests/cli/inputs/plan-exclusive.yaml")) == FileKind::plan);
  CHECK(guess_file_kind(file("samples/k8s-gb200-workloads.yaml")) == FileKind::k8s_workload);
  CHECK(guess_file_kind(file("tests/data/k8s/gke-a4x-nodes.json")) == FileKind::k8s_nodes);
  CHECK(guess_file_kind(file("tests/data/k8s/eks-p5-nodes.yaml")) == FileKind::k8s_nodes);
  CHECK(guess_file_kind(file("samples/nvl72-segments.sbatch")) == FileKind::sbatch);
  CHECK(guess_file_kind(file("tests/data/slurm/uneven-tree.conf")) == FileKind::slurm_conf);
  CHECK(guess_file_kind(file("tests/data/slurm/multi.yaml")) == FileKind::slurm_yaml);
  CHECK(guess_file_kind(file("tests/data/nccl-xml/azure-ndv4-topo.xml")) == FileKind::nccl_xml);
  CHECK(guess_file_kind(file("tests/data/nccl-xml/azure-ncv4-graph.xml")) == FileKind::nccl_graph);
  CHECK(guess_file_kind(file("tests/data/nvidia-smi/h100-8nic-sglang-30401.txt")) == FileKind::nvidia_smi);
  CHECK(guess_file_kind(file("tests/data/ibnetdiscover/topograph-example.out")) == FileKind::ibnetdiscover);
  CHECK(guess_file_kind(file("tests/data/topograph/small-tree.yaml")) == FileKind::topograph);
}

TEST_CASE("file kind: hints only for another kind than expected") {
  std::string dump = file("tests/data/nccl-xml/azure-ndv4-topo.xml");
  CHECK(file_kind_hint(dump, FileKind::topology) ==
        "it looks like an NCCL/RCCL topology dump: import it with 'topoplan import --from nccl-xml'");
  CHECK(file_kind_hint(dump, FileKind::nccl_xml).empty());
  CHECK(file_kind_hint("a: 1\nb: 2\n", FileKind::jobs).empty());
  CHECK(file_kind_hint(std::string("\x01\x02\0\x03", 4), FileKind::jobs) == "it is binary data, not text");
}
