// A named walk over devices: a placed job's chips in pipeline order (a Groq
// chain or ring) or just the devices it holds. Placement makes them from a
// plan (placement/plan_paths.hpp); render draws them on the topology, so
// neither module needs the other.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/model/topology.hpp"

namespace topoplan {

enum class PathShape : std::uint8_t {
  chain,  // devices in order, each linked to the next
  ring,   // a chain whose last device is also linked to the first
  set,    // devices without an order (a fully connected group, a job without a shape)
};

/// "chain", "ring", "set".
std::string_view path_shape_name(PathShape shape);

struct DevicePath {
  std::string name;  // what it is: a job, or "job[r]" for replica r of several
  PathShape shape = PathShape::set;
  std::vector<DeviceId> devices;  // in order for a chain or a ring
};

}  // namespace topoplan
