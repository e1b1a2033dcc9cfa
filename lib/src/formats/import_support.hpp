// Small helpers the importers share: names that the native format accepts,
// the default topology name, and one-node topologies.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "topoplan/formats/topology_import.hpp"
#include "topoplan/model/topology_builder.hpp"

namespace topoplan::formats {

/// How many problems one import reports before it stops.
inline constexpr std::size_t kMaxImportErrors = 20;

/// `text` made into a valid device, domain or host name of the native format
/// (topoplan-topology(5)): characters it reserves (space, / * ? [ ] , { } " '
/// \ : =, control characters) become '_', and it is cut to 253 characters.
/// Empty input gives "_".
std::string safe_name(std::string_view text);

/// options.name, else the first file's base name without its extension
/// ("<stdin>" gives "imported"), made safe.
std::string topology_name(std::span<const ImportSource> sources, const ImportOptions& options);

/// Exactly one source, or InputError saying that `format` reads one file.
const ImportSource& single_source(std::span<const ImportSource> sources, std::string_view format);

/// A topology builder with levels [cluster, node] and its one node, whose
/// local name and hostname are `name`: the shape of every node-internal import,
/// so that `--node-type` and NodeType::copy_of take it as it is.
struct SingleNode {
  TopologyBuilder builder;
  DomainId node;
};
SingleNode single_node(const std::string& name);

/// The smallest domain holding both `x` and `y`.
DomainId common_ancestor(const TopologyBuilder& builder, DomainId x, DomainId y);

/// GPUs of several nodes that share one NVLink partition without the
/// partition's switch trays being known (a Kubernetes gpu.clique, a Topograph
/// accelerator domain): one logical NVLink switch named `name` in `owner`,
/// with 18 NVLink 5 links from each GPU, the per-GPU links of GB200 and
/// GB300 NVL72 (shared/reference/hardware.md 5.1), so that the cost model and
/// the planner see one scale-up island.
void add_nvlink_partition(TopologyBuilder& builder, DomainId owner, const std::string& name,
                          const std::vector<DeviceId>& gpus, std::uint32_t origin);

}  // namespace topoplan::formats
