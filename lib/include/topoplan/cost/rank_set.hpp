// Which accelerators a cost query runs on, in rank order, from the ways a
// user names them: the first N accelerators of the topology, or a list of
// device names (hostlist syntax), hostnames and domain paths. A plan's job
// (the planner's output) will be one more source of a rank list; the cost
// model only ever sees the resulting vector of DeviceIds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topoplan/model/topology.hpp"

namespace topoplan {

struct RankSelection {
  /// Comma-separated names with hostlist brackets (`h100-00000/gpu[0-3]`): an
  /// accelerator as Topology::device_name prints it, or a hostname or domain
  /// path meaning all its accelerators in topology order. Empty: not given.
  std::string devices;
  /// The first N accelerators in Topology::accelerators() order.
  std::optional<std::uint64_t> first;
};

/// The ranks a selection names, in the order given; all accelerators when it
/// names nothing. Throws InputError (located at "--devices" or "--first") for
/// unknown names, devices that are not accelerators, repeats, N = 0 or more
/// than the topology has, and for a selection that uses both ways.
std::vector<DeviceId> select_ranks(const Topology& topology, const RankSelection& selection);

}  // namespace topoplan
