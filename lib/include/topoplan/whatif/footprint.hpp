// What a placed replica uses besides its accelerators and the domains that
// hold them: the parts of the fabric whose failure stops or slows it. The
// blast radius of a failed NIC, NVSwitch tray, network switch or link, and
// the interruptions the Monte Carlo counts, are read from it.
//
// A replica uses
// - its host: every CPU of its nodes, the PCIe switches its accelerators
//   hang off and their links up to the CPUs;
// - where it has two or more accelerators in one scale-up island (NVLink,
//   xGMI, chip-to-chip), their links to the island's NVSwitches and those
//   switches, and the direct scale-up links between two of its own
//   accelerators; in a node without scale-up links, the node's PCIe tree;
// - where it spans several islands (or nodes without one), the NICs next to
//   its accelerators (directly or under the same PCIe switch), their links,
//   and the network switches its traffic crosses: those reached from its
//   NICs that belong to a domain holding part of it but not all of it inside
//   one child (the leaves of the SU it spans, the spines when it spans SUs),
//   climbing only: from a switch to switches of its own domain or one above
//   (from a spine, not down to other rails' leaves).
// Routes through other jobs' accelerators (a Groq dragonfly) are not
// followed.
#pragma once

#include <span>
#include <vector>

#include "topoplan/model/fabric.hpp"
#include "topoplan/model/topology.hpp"

namespace topoplan {

struct Footprint {
  std::vector<DeviceId> devices;  // devices other than its accelerators, in id order
  std::vector<LinkId> links;      // in id order
};

/// The footprint of one replica (its accelerators, in any order);
/// `islands` is find_scale_up_islands(topology).
Footprint replica_footprint(const Topology& topology, const ScaleUpIslands& islands,
                            std::span<const DeviceId> replica);

}  // namespace topoplan
