#include <algorithm>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "import_test_support.hpp"
#include "topoplan/formats/node_type.hpp"

using namespace topoplan;
using namespace topoplan::test;

namespace {

ImportResult nccl(const std::string& file) { return import_data("nccl-xml", "nccl-xml/" + file); }
ImportResult nccl_text(std::string text) { return import_text("nccl-xml", "t.xml", std::move(text)); }

// The link types of the links of device `name` in the one node.
std::vector<std::string> links_of(const Topology& t, std::string_view name) {
  TopologyIndex index(t);
  std::vector<std::string> out;
  DeviceId d = *index.find_device(std::string(t.hostname(t.domains_at(t.host_level()).first)) + "/" + std::string(name));
  for (LinkId l : t.links_of(d))
    out.push_back(fmt::format("{}x{}", t.link_type(t.link(l)).name, t.link(l).count));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("nccl-xml: an NCCL dump of 8 A100 on 6 NVSwitches (SimAI)") {
  ImportResult r = nccl("simai-topo_8A100_4CX6.xml");
  const Topology& t = r.topology;
  REQUIRE(t.levels().size() == 2);
  CHECK(t.name() == "simai-topo_8A100_4CX6");
  CHECK(t.domain_count_at(1) == 1);
  CHECK(t.accelerators().size() == 8);
  CHECK(t.str(t.device(t.accelerators()[0]).model) == "A100");
  CHECK(count_kind(t, DeviceKind::nvswitch) == 6);
  CHECK(count_kind(t, DeviceKind::cpu) == 2);
  CHECK(count_kind(t, DeviceKind::nic) == 5);
  // Each GPU: 6 targets x count 2 = 12 NVLink 3 links (sm 80), one PCIe Gen4 x16 up.
  CHECK(links_of(t, "gpu3") ==
        std::vector<std::string>{"nvlink3x2", "nvlink3x2", "nvlink3x2", "nvlink3x2", "nvlink3x2", "nvlink3x2", "pcie4x16x1"});
  CHECK(count_links(t, "nvlink3") == 48);
  CHECK(count_links(t, "upi") == 1);
  // Chains of single-child bridges are skipped: GPU0 hangs off the first real switch.
  CHECK(count_kind(t, DeviceKind::pcie_switch) == 8);
  CHECK(r.warnings.empty());
}

TEST_CASE("nccl-xml: RCCL's MI300X model with xGMI (system version 2)") {
  ImportResult r = nccl("rccl-topo_8p_940.xml");
  const Topology& t = r.topology;
  CHECK(t.accelerators().size() == 8);
  CHECK(t.str(t.device(t.accelerators()[0]).model) == "MI300X");
  CHECK(count_links(t, "xgmi") == 28);  // every pair once, although listed from both ends
  CHECK(count_kind(t, DeviceKind::nic) == 8);
  CHECK(count_links(t, "pcie5x16") == 8 + 8 + 8);  // GPUs, NICs, switches up to the CPU
  TopologyIndex index(t);
  DeviceId nic = *index.find_device("rccl-topo_8p_940/nic7");
  CHECK(t.str(t.device(nic).model) == "IB-400G");
  CHECK(t.labels(t.device(nic).labels) == Labels{{"net", "mlx5_7"}});
  CHECK(r.warnings.empty());
}

TEST_CASE("nccl-xml: RCCL's model of an HPE Slingshot node imports with its odd NIC speed pointed out") {
  // Its four Cassini NICs (200 Gb/s) say speed="200000000", which NCCL reads
  // as Mb/s: a real file, so it must import; the value is kept as given.
  ImportResult r = nccl("rccl-topo_4p_940.xml");
  const Topology& t = r.topology;
  CHECK(t.accelerators().size() == 4);
  CHECK(count_kind(t, DeviceKind::nic) == 4);
  CHECK(count_links(t, "xgmi") == 6);  // four GPUs, each pair once
  TopologyIndex index(t);
  DeviceId nic = *index.find_device("rccl-topo_4p_940/nic3");
  CHECK(t.str(t.device(nic).model) == "Ethernet-200000G");
  CHECK(t.labels(t.device(nic).labels) == Labels{{"net", "cxi3"}});
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].message ==
        "4 <net> elements give a speed beyond any NIC (up to 200000000 Mb/s = 200000 Gb/s; NCCL reads Mb/s): kept as "
        "given in the NIC model");
}

TEST_CASE("nccl-xml: numbers are bounded by what they feed into, not by today's hardware") {
  auto dump = [](std::string_view net, std::string_view nvlink) {
    return fmt::format(R"(<system version="1"><cpu numaid="70000" familyid="2000000" modelid="2000000">
  <pci busid="0000:01:00.0" class="0x030000" vendor="0x10de" device="0x2330" link_speed="32.0 GT/s PCIe" link_width="16">
    <gpu dev="3000000" sm="1000000" rank="0">{}</gpu></pci>
  <pci busid="0000:02:00.0" class="0x030000" link_speed="32.0 GT/s PCIe" link_width="16"><gpu dev="1" sm="90"/></pci>
  <pci busid="0000:03:00.0" class="0x020700" link_speed="32.0 GT/s PCIe" link_width="16"><nic>{}</nic></pci>
</cpu></system>)",
                       nvlink, net);
  };
  // Far beyond any GPU, CPU or NIC of today, and still nothing dangerous.
  ImportResult r = nccl_text(dump(R"(<net name="x" dev="5000000" speed="-5"/>)",
                                  R"(<nvlink target="0000:02:00.0" count="2000" tclass="0x030000"/>)"));
  TopologyIndex index(r.topology);
  CHECK(index.find_device("t/cpu70000"));
  CHECK(index.find_device("t/gpu3000000"));
  DeviceId nic = *index.find_device("t/nic5000000");
  CHECK(r.topology.str(r.topology.device(nic).model) == "IB-10G");  // NCCL's fallback for speeds of 0 or less
  // Where a value would overflow what holds it, it is refused.
  CHECK_THROWS_WITH(nccl_text(dump(R"(<net name="x" speed="1"/>)",
                                   R"(<nvlink target="0000:02:00.0" count="65536" tclass="0x030000"/>)")),
                    Catch::Contains("'count' of <nvlink> must be an integer from 1 to 65535, not '65536'"));
  CHECK_THROWS_WITH(nccl_text(dump(R"(<net name="x" speed="99999999999999999999"/>)", "")),
                    Catch::Contains("'speed' of <net> must be an integer of at most"));
}

TEST_CASE("nccl-xml: hand-written NCCL_TOPO_FILEs import with what is missing said") {
  ImportResult aws = nccl("aws-p4d-24xl-topo.xml");
  CHECK(aws.topology.accelerators().size() == 8);
  CHECK(count_kind(aws.topology, DeviceKind::nic) == 4);
  CHECK(count_kind(aws.topology, DeviceKind::pcie_switch) == 4);
  CHECK(count_links(aws.topology, "pcie3x16") == 16);  // 8 GT/s x16
  CHECK(any_warning_contains(aws, "8 of 8 GPUs have no <gpu> element"));
  CHECK(any_warning_contains(aws, "4 NICs have no <net> element"));

  ImportResult azure = nccl("azure-ndv4-topo.xml");
  CHECK(azure.topology.accelerators().size() == 8);
  CHECK(count_kind(azure.topology, DeviceKind::cpu) == 4);
  CHECK(count_links(azure.topology, "amd-if") == 6);  // four NUMA nodes joined pairwise
  CHECK(count_links(azure.topology, "pcie4x16") == 20);
  TopologyIndex index(azure.topology);
  CHECK(azure.topology.str(azure.topology.device(*index.find_device("azure-ndv4-topo/nic0")).model) == "IB");
}

TEST_CASE("nccl-xml: a graph dump is refused, saying what it is") {
  std::string e = error_of([] { nccl("azure-ncv4-graph.xml"); });
  CHECK(e.find("nccl-xml/azure-ncv4-graph.xml:1:1: this is an NCCL graph dump") == 0);
}

TEST_CASE("nccl-xml: an import is a node type") {
  ImportResult r = nccl("simai-topo_8A100_4CX6.xml");
  NodeType type = NodeType::copy_of(r.topology);
  CHECK(type.accelerators() == 8);
  ImportOptions options;
  options.name = "my node";
  ImportResult named = import_data("nccl-xml", "nccl-xml/simai-topo_8A100_4CX6.xml", options);
  CHECK(named.topology.name() == "my_node");
}

TEST_CASE("nccl-xml: malformed XML is refused at its line and column") {
  CHECK(error_of([] { nccl_text(""); }) == "t.xml:1:1: the file has no XML element");
  CHECK(error_of([] { nccl_text("<system>\n  <cpu numaid=\"0\">\n</system>"); }) ==
        "t.xml:3:1: </system> does not match <cpu> opened at line 2, column 3");
  CHECK(error_of([] { nccl_text("<system>\n<cpu numaid=\"0\"/>"); }) ==
        "t.xml:1:1: <system> is never closed (no </system>)");
  CHECK(error_of([] { nccl_text("<!DOCTYPE x [<!ENTITY a \"aaaa\">]><system/>"); }).find("t.xml:1:1: DOCTYPE") == 0);
  CHECK(error_of([] { nccl_text("<system a=\"1\" a=\"2\"/>"); }) == "t.xml:1:15: attribute 'a' appears twice in <system>");
  CHECK(error_of([] { nccl_text("<system a=\"&bogus;\"/>"); }).find("t.xml:1:12: unknown entity '&bogus;'") == 0);
  CHECK(error_of([] { nccl_text("<system>text</system>"); }).find("t.xml:1:9: unexpected text inside <system>") == 0);
  CHECK(error_of([] { nccl_text("<system a=1/>"); }) == "t.xml:1:11: the value of attribute 'a' must be quoted");
  CHECK(error_of([] { nccl_text("<system/><system/>"); }) == "t.xml:1:10: only comments may follow the root element");
  CHECK(error_of([] { nccl_text(std::string("<system a=\"\x01\"/>")); }) ==
        "t.xml:1:12: control character byte 0x01 is not allowed");
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<pci>";
  CHECK(error_of([&] { nccl_text(deep); }).find("nested deeper than 32 levels") != std::string::npos);
}

TEST_CASE("nccl-xml: bad values are refused with their position") {
  std::string doc =
      "<?xml version=\"1.0\"?>\n"
      "<!-- a comment -->\n"
      "<system version=\"1\">\n"
      "  <cpu numaid=\"0\" vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"143\">\n"
      "    <pci busid=\"0000:01:00.0\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
      "      <gpu dev=\"0\" sm=\"ninety\" rank=\"0\"/>\n"
      "    </pci>\n"
      "  </cpu>\n"
      "</system>\n";
  CHECK(error_of([&] { nccl_text(doc); }) == "t.xml:6:20: 'sm' of <gpu> must be an integer from 1 to 2147483647, not 'ninety'");
  std::string fixed = doc;
  fixed.replace(fixed.find("ninety"), 6, "90");
  ImportResult r = nccl_text(fixed);
  CHECK(r.topology.str(r.topology.device(r.topology.accelerators()[0]).model) == "H100");
  CHECK(count_links(r.topology, "pcie5x16") == 1);
  TopologyIndex index(r.topology);
  CHECK(r.topology.str(r.topology.device(*index.find_device("t/cpu0")).model) == "Intel-Sapphire-Rapids");
  CHECK(error_of([] { nccl_text("<system><gpu/></system>"); }) == "t.xml:1:1: <system> has no <cpu>: there is no topology to import");
  CHECK(any_warning_contains(nccl_text("<system><cpu numaid=\"0\"/></system>"), "no GPU"));
}

TEST_CASE("nccl-xml: Grace C2C, NICs without PCI path and NVLinks to the CPU") {
  ImportResult r = nccl_text(
      "<system version=\"1\">\n"
      "  <cpu numaid=\"0\" arch=\"arm64\">\n"
      "    <pci busid=\"0009:01:00.0\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" link_width=\"0\">\n"
      "      <gpu dev=\"0\" sm=\"90\" rank=\"0\">\n"
      "        <c2c bw=\"45000\" count=\"10\"/>\n"
      "        <nvlink target=\"0009:00:00.0\" count=\"4\" tclass=\"0x068001\"/>\n"
      "      </gpu>\n"
      "    </pci>\n"
      "    <nic><net name=\"eth0\" dev=\"3\" speed=\"-1\"/></nic>\n"
      "  </cpu>\n"
      "</system>\n");
  const Topology& t = r.topology;
  CHECK(count_links(t, "nvlink-c2c") == 1);
  CHECK(count_links(t, "pcie5x16") == 1);  // width 0 reads as x16, as in NCCL
  CHECK(count_links(t, "pcie3x16") == 1);  // the NIC under <cpu>
  for (const Link& l : t.links())
    if (t.link_type(l).name == "nvlink-c2c") CHECK(l.total_bandwidth() == Approx(450.0));
  TopologyIndex index(t);
  CHECK(t.str(t.device(*index.find_device("t/nic3")).model) == "Ethernet-10G");  // speed -1: NCCL's 10 Gb/s
  CHECK(t.str(t.device(*index.find_device("t/cpu0")).model) == "arm64");
  CHECK(any_warning_contains(r, "1 NVLink/xGMI entries lead to no GPU of this dump"));
}

TEST_CASE("nccl-xml: the PCI device ID names parts that share a compute capability") {
  auto model = [](const std::string& device, int sm = 90) {
    ImportResult r = nccl_text(fmt::format(
        "<system version=\"1\"><cpu numaid=\"0\" arch=\"x86_64\">"
        "<pci busid=\"0000:1b:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"{}\" link_speed=\"32.0 GT/s PCIe\" "
        "link_width=\"16\"><gpu dev=\"0\" sm=\"{}\" rank=\"0\"/></pci></cpu></system>",
        device, sm));
    const Topology& t = r.topology;
    return std::string(t.str(t.device(t.accelerators()[0]).model)) +
           (any_warning_contains(r, "a PCI device ID topoplan does not know") ? " (warned)" : "");
  };
  // H100 SXM5, H200 SXM, H800, GH200 all report sm 90 (pci.ids; gpu-admin-tools).
  CHECK(model("0x2330") == "H100");
  CHECK(model("0x2335") == "H200");
  CHECK(model("0x2324") == "H800");
  CHECK(model("0x2342") == "GH200");
  CHECK(model("0x20f3", 80) == "A800");
  // An unknown device keeps the sm's name, and says so; sm 100 is unambiguous.
  CHECK(model("0x23ff") == "H100 (warned)");
  CHECK(model("0x2901", 100) == "B200");
}

TEST_CASE("nccl-xml: a net's reported latency becomes the topology's net_latency") {
  auto dump = [](const std::string& latency0, const std::string& latency1) {
    return "<system version=\"1\">\n"
           "  <cpu numaid=\"0\" arch=\"x86_64\" vendor=\"GenuineIntel\">\n"
           "    <pci busid=\"0000:10:00.0\" class=\"0x030200\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\">\n"
           "      <gpu dev=\"0\" sm=\"80\" rank=\"0\"/>\n"
           "    </pci>\n"
           "    <nic><net name=\"efa0\" dev=\"0\" speed=\"100000\" latency=\"" +
           latency0 + "\"/><net name=\"efa1\" dev=\"1\" speed=\"100000\" latency=\"" + latency1 +
           "\"/></nic>\n"
           "  </cpu>\n"
           "</system>\n";
  };
  // aws-ofi-nccl on p4d reports 75 us; the largest of the nets' is kept.
  ImportResult ofi = nccl_text(dump("75.000000", "12.5"));
  REQUIRE(ofi.topology.nccl_environment().net_latency_us);
  CHECK(*ofi.topology.nccl_environment().net_latency_us == 75.0);
  CHECK(ofi.topology.nccl_environment().describe() == "net latency 75 us");
  ImportResult half = nccl_text(dump("0.5", "0"));
  CHECK(half.topology.nccl_environment().describe() == "net latency 0.5 us");
  // NCCL's InfiniBand transport reports 0: no setting at all.
  ImportResult ib = nccl_text(dump("0.000000", "0.000000"));
  CHECK(ib.topology.nccl_environment().empty());
  // The SimAI dump's ConnectX-6 nets report 0 too.
  CHECK(nccl("simai-topo_8A100_4CX6.xml").topology.nccl_environment().empty());
  // A latency the model refuses is an error at its attribute, whichever net holds it.
  for (const auto& [a, b] : {std::pair<std::string, std::string>{"75", "20000"}, {"slow", "0"}, {"75", "-1"}}) {
    const std::string text = dump(a, b);
    const std::size_t line6 = text.find("    <nic>");
    const std::size_t at = text.find("latency=", a == "75" ? text.find("efa1") : line6);
    const std::string e = error_of([&] { nccl_text(text); });
    CAPTURE(a, b, e);
    CHECK(e.find(fmt::format("t.xml:6:{}: 'latency' of <net>: net_latency '{}' must be", at - line6 + 1,
                             a == "75" ? b : a)) == 0);
  }
}
