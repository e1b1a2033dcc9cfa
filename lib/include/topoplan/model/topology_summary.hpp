// The numbers `topoplan topology show` prints: device counts, levels with their
// domains, link types with aggregate bandwidth, switch tiers and bisection.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "topoplan/model/fabric.hpp"
#include "topoplan/model/topology.hpp"

namespace topoplan {

struct ModelCount {
  std::string kind;
  std::string model;
  std::uint64_t count = 0;
  double memory_gib = 0;  // of one device; 0 when the devices differ or have none
  /// What the devices stand for when they are not physical parts (a switch
  /// standing for a rail's leaf group): their `topoplan.io/logical` label,
  /// when all of them carry the same; empty otherwise.
  std::string logical;
};

/// The device label that marks a device as standing for several physical
/// ones; its value says what it stands for (topoplan-topology(5)).
inline constexpr const char* kLogicalLabel = "topoplan.io/logical";

struct LevelSummary {
  std::string name;
  std::uint64_t domains = 0;
  std::uint64_t accelerators_min = 0;  // accelerators per domain
  std::uint64_t accelerators_max = 0;
  Egress egress_min;                   // per category, the weakest domain's egress (GB/s)
  double bisection = -1;               // GB/s; -1 where no balanced cut keeps these domains whole
};

struct LinkTypeSummary {
  std::string type;
  std::string family;
  std::uint64_t links = 0;     // counting parallel links
  double bandwidth = 0;        // GB/s per direction of one link (first seen)
  double aggregate = 0;        // GB/s per direction, all links together
};

struct SwitchTierSummary {
  std::string level;           // the level whose domains own these switches
  std::string model;
  std::uint64_t count = 0;
  double down = 0;             // GB/s per switch (the largest)
  double up = 0;
  double oversubscription = 0; // the worst down/up ratio; 0 for top-tier switches
};

struct TopologySummary {
  std::string name;
  std::string description;
  std::vector<std::pair<std::string, std::string>> nccl;  // the NCCL environment, as written
  std::vector<std::pair<std::string, long long>> parameters;
  std::array<std::uint64_t, kDeviceKindCount> devices{};  // by DeviceKind
  std::uint64_t device_total = 0;
  std::uint64_t accelerators = 0;
  std::uint64_t accelerators_up = 0;
  std::uint64_t accelerators_drain = 0;
  std::uint64_t accelerators_down = 0;
  std::vector<ModelCount> models;             // accelerator and switch models
  std::uint64_t scale_up_islands = 0;
  std::uint64_t island_size_min = 0;
  std::uint64_t island_size_max = 0;
  std::string island_level;                   // finest level holding whole islands
  bool island_level_exact = false;            // each domain there is one island
  std::vector<LevelSummary> levels;
  std::vector<LinkTypeSummary> link_types;    // by aggregate bandwidth, descending
  std::vector<SwitchTierSummary> switch_tiers;
};

TopologySummary summarize(const Topology& topology);

void write_summary_text(std::ostream& out, const TopologySummary& summary);
void write_summary_json(std::ostream& out, const TopologySummary& summary);

}  // namespace topoplan
