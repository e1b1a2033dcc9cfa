// What a what-if scenario names and the mask it makes. Names are those
// `topology show`, `plan` and `render` print: a device (`r0003-n00/gpu1`,
// `su000/r0003/nvsw4`), a node by hostname, any domain by its path
// (`su000/r0003`) or, when no other domain shares it, its local name
// (`r0003`), the topology's name for the whole cluster, and a link as
// `A--B` between two devices. Hostlists name several (`r0003-n[00-03]`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/scenario_mask.hpp"

namespace topoplan {

enum class TargetKind : std::uint8_t { device, link, domain };

/// One thing a scenario fails or drains.
struct Target {
  TargetKind kind = TargetKind::device;
  std::uint32_t id = 0;  // DeviceId, LinkId or DomainId
};

/// Resolves scenario names in the order given, duplicates dropped. `option`
/// names the option for errors (`--fail`). Throws InputError listing every
/// unknown name with a did-you-mean, and links between devices that have
/// none (with the devices they do link to).
std::vector<Target> resolve_targets(const Topology& topology, const std::vector<std::string>& names,
                                    const std::string& option);

/// A level by name; throws InputError located at `option`, with the levels
/// there are and a did-you-mean, for an unknown one.
LevelIndex resolve_level(const Topology& topology, const std::string& name, const std::string& option);

/// The topology's own states with every target set to `state`.
ScenarioMask scenario_mask(const Topology& topology, const std::vector<Target>& targets, DeviceState state);

/// A device as the mask leaves it: its own state, made worse by the domains
/// that hold it.
DeviceState effective_state(const ScenarioMask& mask, DeviceId device);

/// The links a mask takes out of the fabric, in id order: links it masks,
/// and links with an end on a device that is down or drained, directly or
/// through a domain.
std::vector<LinkId> masked_links(const ScenarioMask& mask);

/// How a target reads in a report: "rack su000/r0003 (72 GPUs)",
/// "nvswitch su000/r0003/nvsw4", "link r0000-n00/gpu0--su000/r0000/nvsw0".
std::string target_text(const Topology& topology, const Target& target);

/// The name of a target as resolve_targets reads it back.
std::string target_name(const Topology& topology, const Target& target);

}  // namespace topoplan
