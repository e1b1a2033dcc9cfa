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

/// `topology` with per-workload-class speeds (each class's `speed` holds one
/// value per accelerator; names unique), replacing any it had. Jobs that
/// name a class see its speeds; others see the devices' own.
Topology with_speed_classes(Topology topology, std::vector<SpeedClass> classes);

}  // namespace topoplan
