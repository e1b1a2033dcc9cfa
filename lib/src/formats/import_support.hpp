// Small helpers the importers share: names that the native format accepts,
// the default topology name, and one-node topologies.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "topoplan/formats/topology_import.hpp"
#include "topoplan/model/topology_builder.hpp"

namespace topoplan::formats {

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

}  // namespace topoplan::formats
