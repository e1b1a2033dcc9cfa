// The catalogue of link technologies: what a link `type:` name in a topology
// file means, and the default bandwidth and latency of one such link.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace topoplan {

/// The technology family of a link; decides which tier of a fabric it belongs to.
enum class LinkFamily : std::uint8_t {
  nvlink,      // GPU <-> GPU or GPU <-> NVSwitch, generations 1-5
  nvlink_c2c,  // Grace <-> Hopper/Blackwell chip-to-chip
  xgmi,        // AMD Infinity Fabric between GPUs
  groq_c2c,    // Groq chip-to-chip (the LPU is endpoint and switch)
  pcie,        // PCIe of a generation and lane count
  cpu_link,    // socket-to-socket (UPI / Infinity Fabric between CPUs)
  infiniband,  // InfiniBand of a line rate
  roce,        // RDMA over Converged Ethernet of a line rate
  ethernet,    // plain Ethernet of a line rate
};

/// Scale-up families join accelerators into one memory-semantic domain
/// (NVLink, xGMI, Groq C2C); everything else is host I/O or scale-out.
/// (Inline: they run once per link in every pass over a fabric.)
inline bool is_scale_up(LinkFamily family) {
  return family == LinkFamily::nvlink || family == LinkFamily::xgmi || family == LinkFamily::groq_c2c;
}
/// Scale-out families run through NICs and network switches.
inline bool is_network(LinkFamily family) {
  return family == LinkFamily::infiniband || family == LinkFamily::roce || family == LinkFamily::ethernet;
}
std::string_view family_name(LinkFamily family);

/// One link technology, e.g. `nvlink5`, `pcie5x16`, `ib-ndr`, `roce-400g`.
struct LinkType {
  std::string name;          // canonical spelling, as shown in output
  LinkFamily family = LinkFamily::pcie;
  int generation = 0;        // NVLink or PCIe generation; 0 when not applicable
  int lanes = 0;             // PCIe lanes; 0 when not applicable
  int line_rate_gbps = 0;    // network line rate in Gb/s; 0 when not applicable
  double bandwidth = 0;      // GB/s per direction for one link (decimal GB)
  double latency_us = 0;     // one-way latency added per traversal of the link
  std::string_view source;   // where the default numbers come from
};

/// Looks up a type name; accepts the aliases documented in topoplan-topology(5)
/// (`ib-ndr` = `ib-400g`, `pcie5` = `pcie5x16`, ...). nullopt when unknown.
std::optional<LinkType> find_link_type(std::string_view name);

/// Every spelling accepted by find_link_type, as patterns for error messages.
std::vector<std::string> link_type_names();

}  // namespace topoplan
