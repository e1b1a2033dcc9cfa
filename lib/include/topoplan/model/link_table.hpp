// The link graph as a table, one row per link: its ends, type, parallel
// count, bandwidth and latency. `topoplan topology links` prints it, so users
// and tests can check which chips are directly linked (a chain's hops).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "topoplan/model/topology.hpp"

namespace topoplan {

struct LinkRow {
  std::string from;          // device names (Topology::device_name)
  std::string to;
  std::string type;          // link type name
  std::uint32_t count = 1;   // parallel links
  double bandwidth = 0;      // GB/s per direction of one of them
  double latency_us = 0;     // one-way, one traversal
};

struct LinkTableOptions {
  std::string type;            // only links of this type name; "" = every type
  bool accelerators = false;   // only links between two accelerators
};

/// The links of `topology` in link id order (the order the file defines them).
std::vector<LinkRow> link_table(const Topology& topology, const LinkTableOptions& options = {});

/// Aligned columns with a header: FROM TO TYPE COUNT GB/S LATENCY_US.
void write_link_table_text(std::ostream& out, const std::vector<LinkRow>& rows);
/// {"links": [{"from", "to", "type", "count", "gbps", "latency_us"}]}.
void write_link_table_json(std::ostream& out, const Topology& topology, const std::vector<LinkRow>& rows);

}  // namespace topoplan
