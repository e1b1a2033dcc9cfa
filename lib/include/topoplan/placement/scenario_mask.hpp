// A scenario as a mask over an unchanged topology: devices, links and domains
// that are down (failed: the jobs on them are hit) or drained (planned
// maintenance: running jobs stay, nothing new is placed), on top of the states
// the topology file gives. What-if and simulation change the mask of a
// PlannerState instead of rebuilding the topology.
//
// Placement sees an accelerator as unavailable when it, or any domain that
// contains it, is down or drained. Down or drained links and other devices
// (NICs, NVSwitch trays, network switches) do not stop placement; they are
// for pricing and for telling which running jobs they degrade.
#pragma once

#include <cstdint>
#include <map>

#include "topoplan/model/topology.hpp"

namespace topoplan {

class ScenarioMask {
 public:
  /// The topology's own states, nothing masked.
  explicit ScenarioMask(const Topology& topology) : topology_(&topology) {}

  const Topology& topology() const { return *topology_; }

  /// Sets the state of a device, link or domain. Setting the topology's own
  /// state (up for links and domains) removes the entry, so a mask can also
  /// bring back a device the topology marks down.
  void set_device(DeviceId device, DeviceState state);
  void set_link(LinkId link, DeviceState state);
  void set_domain(DomainId domain, DeviceState state);

  /// A device's state: the mask's, else the topology's.
  DeviceState device(DeviceId device) const;
  DeviceState link(LinkId link) const;
  DeviceState domain(DomainId domain) const;
  /// An accelerator (index into Topology::accelerators()) as placement sees
  /// it: down when it or a domain holding it is down, else drain when it or
  /// such a domain is drained, else up.
  DeviceState accelerator(std::uint32_t accel) const;
  /// Whether a link, or a device at either end of it, is down or drained.
  DeviceState link_path(LinkId link) const;

  /// What the mask sets, in id order.
  const std::map<DeviceId, DeviceState>& devices() const { return devices_; }
  const std::map<LinkId, DeviceState>& links() const { return links_; }
  const std::map<DomainId, DeviceState>& domains() const { return domains_; }
  bool empty() const { return devices_.empty() && links_.empty() && domains_.empty(); }

 private:
  const Topology* topology_;
  std::map<DeviceId, DeviceState> devices_;
  std::map<LinkId, DeviceState> links_;
  std::map<DomainId, DeviceState> domains_;
};

/// The worse of two states: down over drain over up.
DeviceState worse(DeviceState a, DeviceState b);

}  // namespace topoplan
