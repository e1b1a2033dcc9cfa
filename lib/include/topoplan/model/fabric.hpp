// What the link graph says about a topology's fabric: its scale-up islands,
// how much bandwidth leaves each domain, and how oversubscribed its switches
// are. The summary, the renderer, the cost model and the planner all read it.
#pragma once

#include <cstdint>
#include <vector>

#include "topoplan/model/topology.hpp"

namespace topoplan {

/// Accelerators joined by scale-up links (NVLink, xGMI, Groq C2C), directly or
/// through NVSwitches: each island is one memory-semantic fabric.
struct ScaleUpIslands {
  std::vector<std::uint32_t> island_of;  // per accelerator index; kNone if it has no scale-up link
  std::vector<std::uint32_t> size;       // accelerators per island
  /// The finest level whose every domain holds whole islands (kNone when an
  /// island spans two domains of level 1, i.e. only the root holds it).
  LevelIndex level = 0;
  /// True when, at `level`, every domain is exactly one island.
  bool level_is_island = false;
};

ScaleUpIslands find_scale_up_islands(const Topology& topology);

/// Bandwidth leaving one domain (GB/s per direction), split by tier.
struct Egress {
  double scale_up = 0;   // NVLink, xGMI, Groq C2C, NVLink-C2C
  double network = 0;    // InfiniBand, RoCE, Ethernet
  double other = 0;      // PCIe, CPU links
  double total() const { return scale_up + network + other; }
};

/// Egress of every domain, indexed by DomainId. A link leaves a domain when
/// one end lies inside it and the other does not.
std::vector<Egress> domain_egress(const Topology& topology);

/// Down- and uplink bandwidth of one switch. Downlinks go to devices owned by
/// finer levels than the switch's own domain, uplinks to the same or coarser.
struct SwitchLoad {
  DeviceId device = kNone;
  double down = 0;
  double up = 0;
  /// down / up; 0 when the switch has no uplinks (a top-tier switch).
  double oversubscription() const { return up > 0 ? down / up : 0; }
};

/// Every network switch (not NVSwitches: they have no uplinks by design).
std::vector<SwitchLoad> switch_loads(const Topology& topology);

}  // namespace topoplan
