// A topology with some devices' state and speed changed: what a per-device
// performance file (io/device_perf.hpp) says about accelerators the topology
// file describes as nominal and up.
#pragma once

#include <span>

#include "topoplan/model/topology.hpp"

namespace topoplan {

struct DeviceOverride {
  DeviceId device = kNone;
  float speed = 1.0f;                    // relative, 1.0 = nominal
  DeviceState state = DeviceState::up;
};

/// A copy of `topology` with each override's state and speed set on its
/// device (later overrides of a device win). Ids, names, links and the
/// accelerators' order are unchanged, so plans made for one hold for the
/// other.
Topology with_device_overrides(const Topology& topology, std::span<const DeviceOverride> overrides);

}  // namespace topoplan
