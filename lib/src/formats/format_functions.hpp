// The entry point of every format, one per file under lib/src/formats/,
// gathered here for the registry in format_registry.cpp.
#pragma once

#include <span>
#include <string>

#include "io/yaml_tree.hpp"
#include "topoplan/formats/plan_export.hpp"
#include "topoplan/formats/topology_export.hpp"
#include "topoplan/formats/topology_import.hpp"

namespace topoplan::formats {

ImportResult import_slurm(std::span<const ImportSource> sources, const ImportOptions& options);
ImportResult import_k8s_nodes(std::span<const ImportSource> sources, const ImportOptions& options);
/// import_k8s_nodes of one file already parsed (its `documents`), for a
/// reader that parsed it to tell what it is.
ImportResult import_k8s_node_documents(std::span<const yaml::Node> documents, const std::string& path,
                                       const ImportOptions& options);
ImportResult import_nccl_xml(std::span<const ImportSource> sources, const ImportOptions& options);
ImportResult import_nvidia_smi(std::span<const ImportSource> sources, const ImportOptions& options);
ImportResult import_topograph(std::span<const ImportSource> sources, const ImportOptions& options);
ImportResult import_ibnetdiscover(std::span<const ImportSource> sources, const ImportOptions& options);
ImportResult import_openb_nodes(std::span<const ImportSource> sources, const ImportOptions& options);

std::string export_slurm_tree(const Topology& topology, const ExportOptions& options);
std::string export_slurm_block(const Topology& topology, const ExportOptions& options);
std::string export_slurm_yaml(const Topology& topology, const ExportOptions& options);
std::string export_kueue(const Topology& topology, const ExportOptions& options);
std::string export_volcano(const Topology& topology, const ExportOptions& options);
std::string export_native(const Topology& topology, const ExportOptions& options);

PlanExport export_plan_slurm(const Topology& topology, const Plan& plan, const PlanExportOptions& options);
PlanExport export_plan_kubernetes(const Topology& topology, const Plan& plan, const PlanExportOptions& options);

}  // namespace topoplan::formats
