#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "import_test_support.hpp"
#include "topoplan/formats/node_type.hpp"

using namespace topoplan;
using namespace topoplan::test;

namespace {

ImportResult smi(const std::string& file) { return import_data("nvidia-smi", "nvidia-smi/" + file); }
ImportResult smi_text(std::string text) { return import_text("nvidia-smi", "t.txt", std::move(text)); }

std::uint16_t link_count_between(const Topology& t, const std::string& a, const std::string& b) {
  TopologyIndex index(t);
  DeviceId x = *index.find_device(a), y = *index.find_device(b);
  for (LinkId l : t.links_of(x))
    if (t.link(l).other(x) == y) return t.link(l).count;
  return 0;
}

}  // namespace

TEST_CASE("nvidia-smi: 8 x H100 with NV18 sit on one NVSwitch, a NIC beside each GPU") {
  ImportResult r = smi("h100-8nic-sglang-30401.txt");
  const Topology& t = r.topology;
  CHECK(t.accelerators().size() == 8);
  CHECK(count_kind(t, DeviceKind::nic) == 8);
  CHECK(count_kind(t, DeviceKind::cpu) == 2);
  CHECK(count_kind(t, DeviceKind::pcie_switch) == 8);
  CHECK(count_kind(t, DeviceKind::nvswitch) == 1);
  CHECK(count_links(t, "nvlink4") == 8);
  CHECK(link_count_between(t, "h100-8nic-sglang-30401/gpu5", "h100-8nic-sglang-30401/nvsw0") == 18);
  CHECK(count_links(t, "pcie5x16") == 24);
  CHECK(count_links(t, "upi") == 1);
  // GPU k and NIC k share switch k; GPUs 0-3 on cpu0 (NUMA 0), 4-7 on cpu1.
  CHECK(link_count_between(t, "h100-8nic-sglang-30401/nic2", "h100-8nic-sglang-30401/psw2") == 1);
  CHECK(link_count_between(t, "h100-8nic-sglang-30401/gpu2", "h100-8nic-sglang-30401/psw2") == 1);
  CHECK(link_count_between(t, "h100-8nic-sglang-30401/psw6", "h100-8nic-sglang-30401/cpu1") == 1);
  TopologyIndex index(t);
  CHECK(t.labels(t.device(*index.find_device("h100-8nic-sglang-30401/nic7")).labels) == Labels{{"net", "mlx5_7"}});
  REQUIRE(!r.warnings.empty());
  CHECK(r.warnings.front().message.find("nvidia-smi topo -m is lossy") == 0);
  CHECK(r.warnings.front().message.find("NVLink 4 and pcie5x16 guessed from 18 NVLinks per GPU") != std::string::npos);
  CHECK(NodeType::copy_of(t).accelerators() == 8);
}

TEST_CASE("nvidia-smi: PXB builds a second switch level (8 x A100)") {
  ImportResult r = smi("a100-pxb-deepep-13.txt");
  const Topology& t = r.topology;
  CHECK(t.accelerators().size() == 8);
  CHECK(count_kind(t, DeviceKind::pcie_switch) == 8);  // 4 NIC pairs at PIX, 4 upper switches at PXB
  CHECK(count_links(t, "nvlink3") == 8);
  CHECK(count_links(t, "pcie4x16") == 24);
  // NIC0 and NIC1 share a switch; GPU0 and GPU1 hang off the switch above it.
  CHECK(link_count_between(t, "a100-pxb-deepep-13/nic0", "a100-pxb-deepep-13/psw0") == 1);
  CHECK(link_count_between(t, "a100-pxb-deepep-13/nic1", "a100-pxb-deepep-13/psw0") == 1);
  CHECK(link_count_between(t, "a100-pxb-deepep-13/psw0", "a100-pxb-deepep-13/psw4") == 1);
  CHECK(link_count_between(t, "a100-pxb-deepep-13/gpu1", "a100-pxb-deepep-13/psw4") == 1);
  CHECK(link_count_between(t, "a100-pxb-deepep-13/psw4", "a100-pxb-deepep-13/cpu0") == 1);
}

TEST_CASE("nvidia-smi: a PCIe-only box keeps its GPUs on their NUMA nodes") {
  ImportResult r = smi("rtx6000ada-pcie-stelline.txt");
  const Topology& t = r.topology;
  CHECK(t.accelerators().size() == 4);
  CHECK(count_kind(t, DeviceKind::nvswitch) == 0);
  CHECK(count_kind(t, DeviceKind::pcie_switch) == 2);
  CHECK(count_links(t, "pcie4x16") == 10);
  CHECK(link_count_between(t, "rtx6000ada-pcie-stelline/gpu1", "rtx6000ada-pcie-stelline/cpu0") == 1);
  CHECK(link_count_between(t, "rtx6000ada-pcie-stelline/gpu2", "rtx6000ada-pcie-stelline/cpu1") == 1);
  CHECK(r.warnings.front().message.find("pcie4x16 assumed") != std::string::npos);
}

TEST_CASE("nvidia-smi: tab-separated older output with NIC names as columns") {
  ImportResult r = smi("v100-power9-tabs-jdh4.txt");
  const Topology& t = r.topology;
  CHECK(t.accelerators().size() == 4);
  CHECK(count_kind(t, DeviceKind::cpu) == 2);
  CHECK(count_kind(t, DeviceKind::nvswitch) == 0);
  CHECK(link_count_between(t, "v100-power9-tabs-jdh4/gpu0", "v100-power9-tabs-jdh4/gpu1") == 3);
  CHECK(link_count_between(t, "v100-power9-tabs-jdh4/gpu2", "v100-power9-tabs-jdh4/gpu3") == 3);
  CHECK(count_links(t, "nvlink2") == 2);
  CHECK(count_links(t, "pcie3x16") == 10);
  TopologyIndex index(t);
  CHECK(t.labels(t.device(*index.find_device("v100-power9-tabs-jdh4/nic2")).labels) == Labels{{"net", "mlx5_2"}});
  CHECK(link_count_between(t, "v100-power9-tabs-jdh4/gpu3", "v100-power9-tabs-jdh4/cpu1") == 1);
}

TEST_CASE("nvidia-smi: malformed matrices are refused at their line and column") {
  CHECK(error_of([] { smi_text("hello\nworld\n"); }) ==
        "t.txt:1:1: no `nvidia-smi topo -m` matrix found: no header line beginning with GPU0");
  CHECK(error_of([] { smi_text("\tGPU0\tGPU1\nGPU0\t X \tNV2\nGPU1\tNVX\t X \n"); }) ==
        "t.txt:3:6: 'NVX' is not NV followed by a link count");
  CHECK(error_of([] { smi_text("GPU0 GPU1\nGPU0 X\nGPU1 SYS X\n"); }) ==
        "t.txt:2:6: row GPU0 has 1 cells; the header names 2 devices");
  CHECK(error_of([] { smi_text("GPU0 GPU1\nGPU0 SYS SYS\nGPU1 SYS X\n"); }) ==
        "t.txt:2:6: the diagonal cell of GPU0 must be X, not 'SYS'");
  CHECK(error_of([] { smi_text("GPU0 GPU1\nGPU0 X FOO\nGPU1 SYS X\n"); }) ==
        "t.txt:2:8: unknown cell 'FOO' (expected X, NV#, PIX, PXB, PHB, NODE or SYS)");
  CHECK(error_of([] { smi_text("GPU0 GPU1\nGPU0 X SYS\n"); }) == "t.txt:1:6: GPU1 has no row in the matrix");
  CHECK(error_of([] { smi_text("GPU0 NIC0\nGPU0 X NV4\nNIC0 NV4 X\n"); }) ==
        "t.txt:2:8: NVLink between GPU0 and NIC0, which are not both GPUs");
}

TEST_CASE("nvidia-smi: a matrix of bad cells reports the first 20 problems") {
  std::string header = "\t";
  std::string row = "GPU0\t";
  for (int i = 0; i < 50; ++i) {
    header += fmt::format("GPU{}\t", i);
    row += "BAD\t";
  }
  try {
    smi_text(header + "\n" + row + "\n");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.diagnostics().size() == 20);
  }
}
