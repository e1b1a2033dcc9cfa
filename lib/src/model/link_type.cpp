#include "topoplan/model/link_type.hpp"

#include <array>
#include <charconv>

#include <fmt/format.h>

namespace topoplan {

std::string_view family_name(LinkFamily family) {
  switch (family) {
    case LinkFamily::nvlink: return "nvlink";
    case LinkFamily::nvlink_c2c: return "nvlink-c2c";
    case LinkFamily::xgmi: return "xgmi";
    case LinkFamily::groq_c2c: return "groq-c2c";
    case LinkFamily::pcie: return "pcie";
    case LinkFamily::cpu_link: return "cpu";
    case LinkFamily::infiniband: return "infiniband";
    case LinkFamily::roce: return "roce";
    case LinkFamily::ethernet: return "ethernet";
  }
  return "?";
}

namespace {

// NVLink bandwidth per link and direction, by generation. Each is the
// per-GPU bidirectional figure NVIDIA publishes divided by 2 and by the link
// count of that generation's GPU:
//   1: P100, 4 links, 160 GB/s bidirectional (Tesla P100 whitepaper)
//   2: V100, 6 links, 300 GB/s (Tesla V100 whitepaper)
//   3: A100, 12 links, 600 GB/s (A100 datasheet)
//   4: H100, 18 links, 900 GB/s (shared/reference/hardware.md 5.2; NV18)
//   5: B200/GB200, 18 links, 1.8 TB/s (hardware.md 5.1)
constexpr std::array<double, 6> kNvlinkPerLink = {0, 20.0, 25.0, 25.0, 25.0, 50.0};

constexpr std::string_view kNvlinkSource =
    "per-GPU NVLink bandwidth / link count (NVIDIA P100/V100 whitepapers, A100 datasheet, "
    "hardware.md 5.1-5.2)";

// PCIe per-lane, per-direction payload rate in GB/s: transfer rate x line
// coding / 8. Gen1-2 use 8b/10b, Gen3-5 128b/130b (PCI-SIG base specs 3.0-5.0);
// Gen6 runs 64 GT/s with 256-byte FLITs carrying 236 bytes of TLP (PCI-SIG 6.0).
double pcie_lane_rate(int generation) {
  switch (generation) {
    case 1: return 2.5 * 0.8 / 8;
    case 2: return 5.0 * 0.8 / 8;
    case 3: return 8.0 * 128.0 / 130.0 / 8;
    case 4: return 16.0 * 128.0 / 130.0 / 8;
    case 5: return 32.0 * 128.0 / 130.0 / 8;
    case 6: return 64.0 * 236.0 / 256.0 / 8;
    default: return 0;
  }
}

struct NetworkAlias {
  std::string_view name;
  int gbps;
};
// InfiniBand data-rate names (IBTA): EDR 100, HDR 200, NDR 400, XDR 800 Gb/s.
constexpr std::array<NetworkAlias, 4> kIbAliases = {{{"edr", 100}, {"hdr", 200}, {"ndr", 400}, {"xdr", 800}}};

// Quantum-2 (NDR) switch ASIC: "port-to-port latency of under 150 nanoseconds"
// (router-switch.com QM9700 vs SN5400 article; secondary source). Used as the
// one-way cost of one InfiniBand hop. No comparable public figure was found
// for RoCE/Ethernet switches or NVLink hops; their per-hop latency is 0 and
// the cost model's protocol latencies (NCCL's constants) carry them.
constexpr double kIbHopLatency = 0.15;

std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::optional<LinkType> network_type(std::string_view prefix, LinkFamily family, std::string_view rest) {
  int gbps = 0;
  if (family == LinkFamily::infiniband) {
    for (const NetworkAlias& alias : kIbAliases)
      if (rest == alias.name) gbps = alias.gbps;
  }
  if (gbps == 0) {
    if (rest.empty() || rest.back() != 'g') return std::nullopt;
    auto value = parse_int(rest.substr(0, rest.size() - 1));
    if (!value || *value > 100000) return std::nullopt;
    gbps = *value;
  }
  LinkType t;
  t.family = family;
  t.line_rate_gbps = gbps;
  t.name = fmt::format("{}-{}g", prefix, gbps);
  if (family == LinkFamily::infiniband)
    for (const NetworkAlias& alias : kIbAliases)
      if (alias.gbps == gbps) t.name = fmt::format("ib-{}", alias.name);
  t.bandwidth = gbps / 8.0;
  t.latency_us = family == LinkFamily::infiniband ? kIbHopLatency : 0.0;
  t.source = family == LinkFamily::infiniband
                 ? "line rate / 8; hop latency: Quantum-2 <150 ns port-to-port (secondary)"
                 : "line rate / 8";
  return t;
}

}  // namespace

std::optional<LinkType> find_link_type(std::string_view name) {
  LinkType t;
  if (starts_with(name, "nvlink") && name.size() == 7) {
    int gen = name[6] - '0';
    if (gen < 1 || gen > 5) return std::nullopt;
    t.name = std::string(name);
    t.family = LinkFamily::nvlink;
    t.generation = gen;
    t.bandwidth = kNvlinkPerLink[static_cast<std::size_t>(gen)];
    t.source = kNvlinkSource;
    return t;
  }
  if (name == "nvlink-c2c" || name == "c2c") {
    // Grace <-> GPU NVLink-C2C: 900 GB/s bidirectional (hardware.md 5.1, setloop.io).
    t.name = "nvlink-c2c";
    t.family = LinkFamily::nvlink_c2c;
    t.bandwidth = 450.0;
    t.source = "NVLink-C2C 900 GB/s bidirectional (hardware.md 5.1)";
    return t;
  }
  if (name == "xgmi") {
    // MI300X Infinity Fabric link: x16 at 32 Gb/s per lane = 128 GB/s
    // bidirectional, 64 GB/s per direction (hardware.md 5.5, Wheeler's Network).
    t.name = "xgmi";
    t.family = LinkFamily::xgmi;
    t.bandwidth = 64.0;
    t.source = "MI300X xGMI x16 @ 32 Gb/s/lane (hardware.md 5.5)";
    return t;
  }
  if (name == "groq-c2c") {
    // 4 lanes x 28 Gb/s cabled = 14 GB/s per link per direction (Linley Group,
    // Nov 2020; hardware.md 5.4). Latency: the ISCA'22 paper reaches any of
    // 10,440 TSPs "in less than 3 microseconds" over a Dragonfly whose minimal
    // route is at most 3 hops, so 1 us per hop is an upper bound [derived].
    t.name = "groq-c2c";
    t.family = LinkFamily::groq_c2c;
    t.bandwidth = 14.0;
    t.latency_us = 1.0;
    t.source = "Groq C2C 4x28 Gb/s (Linley 2020); <3 us over <=3 hops (ISCA'22) [derived]";
    return t;
  }
  if (starts_with(name, "pcie")) {
    std::string_view rest = name.substr(4);
    std::size_t x = rest.find('x');
    auto gen = parse_int(rest.substr(0, x));
    std::optional<int> lanes = 16;
    if (x != std::string_view::npos) lanes = parse_int(rest.substr(x + 1));
    if (!gen || !lanes || pcie_lane_rate(*gen) == 0) return std::nullopt;
    if (*lanes != 1 && *lanes != 2 && *lanes != 4 && *lanes != 8 && *lanes != 16) return std::nullopt;
    t.name = fmt::format("pcie{}x{}", *gen, *lanes);
    t.family = LinkFamily::pcie;
    t.generation = *gen;
    t.lanes = *lanes;
    t.bandwidth = pcie_lane_rate(*gen) * *lanes;
    t.source = "PCI-SIG base specifications: transfer rate x line coding x lanes";
    return t;
  }
  if (name == "upi" || name == "amd-if") {
    // NCCL's inter-socket bandwidths (src/graph/topo.h): SRP_QPI 22 GB/s for
    // Sapphire Rapids UPI, AMD_BW 16 GB/s (hardware.md 1.2).
    t.name = std::string(name);
    t.family = LinkFamily::cpu_link;
    t.bandwidth = name == "upi" ? 22.0 : 16.0;
    t.source = "NCCL topo.h inter-CPU bandwidth (hardware.md 1.2)";
    return t;
  }
  if (starts_with(name, "ib-")) return network_type("ib", LinkFamily::infiniband, name.substr(3));
  if (starts_with(name, "roce-")) return network_type("roce", LinkFamily::roce, name.substr(5));
  if (starts_with(name, "eth-")) return network_type("eth", LinkFamily::ethernet, name.substr(4));
  return std::nullopt;
}

std::vector<std::string> link_type_names() {
  return {"nvlink1", "nvlink2", "nvlink3", "nvlink4", "nvlink5", "nvlink-c2c", "xgmi", "groq-c2c",
          "pcie<gen>x<lanes>", "upi", "amd-if", "ib-edr", "ib-hdr", "ib-ndr", "ib-xdr", "ib-<N>g",
          "roce-<N>g", "eth-<N>g"};
}

}  // namespace topoplan
