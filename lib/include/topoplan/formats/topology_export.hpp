// Exporters: a topology written in the files other systems read (Slurm
// topology.conf / topology.yaml, Kueue Topology + node labels, Volcano
// HyperNodes). Each format lives in its own file under lib/src/formats/ and
// registers one entry in export_formats().
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "topoplan/model/topology.hpp"

namespace topoplan {

struct ExportOptions {
  /// The level that becomes Slurm blocks / leaf switches; empty: the format's
  /// choice (the scale-up island level for blocks, the level above hosts for
  /// leaves).
  std::string level;
  /// kueue: `yaml` (Topology object and labelled Node patches) or `kubectl`
  /// (`kubectl label` lines).
  std::string style;
};

/// Throws InputError when the topology cannot be expressed in the format.
using Exporter = std::string (*)(const Topology& topology, const ExportOptions& options);

struct ExportFormat {
  std::string_view name;     // as given to --to
  std::string_view summary;  // one line for --help
  Exporter run;
};

std::span<const ExportFormat> export_formats();
const ExportFormat* find_export_format(std::string_view name);

}  // namespace topoplan
