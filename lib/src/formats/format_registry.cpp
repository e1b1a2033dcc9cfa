#include <algorithm>

#include "format_functions.hpp"

namespace topoplan {

namespace {

using namespace formats;

constexpr ImportFormat kImportFormats[] = {
    {"slurm", "Slurm topology.conf (topology/tree or topology/block) or topology.yaml", import_slurm},
    {"k8s-nodes", "kubectl get nodes -o json|yaml, levels from node labels (--levels)", import_k8s_nodes},
    {"nccl-xml", "NCCL/RCCL topology dump (NCCL_TOPO_DUMP_FILE): one node's insides", import_nccl_xml},
    {"nvidia-smi", "nvidia-smi topo -m matrix: one node's insides (lossy)", import_nvidia_smi},
    {"ibnetdiscover", "ibnetdiscover output: InfiniBand switches and hosts", import_ibnetdiscover},
    {"topograph", "NVIDIA Topograph cluster model: switch tree and accelerator domains", import_topograph},
    {"openb-nodes", "Alibaba openb node list (cluster-trace-gpu-v2023): GPU nodes, no fabric", import_openb_nodes},
};

constexpr ExportFormat kExportFormats[] = {
    {"slurm-tree", "Slurm topology.conf for topology/tree (SwitchName lines)", export_slurm_tree},
    {"slurm-block", "Slurm topology.conf for topology/block (BlockName lines, BlockSizes)", export_slurm_block},
    {"slurm-yaml", "Slurm 25.05+ topology.yaml (tree and block topologies)", export_slurm_yaml},
    {"kueue", "Kueue Topology object and the node labels it needs", export_kueue},
    {"volcano", "Volcano HyperNode objects (topology.volcano.sh/v1alpha1)", export_volcano},
    {"native", "topoplan's own format (topoplan-topology(5)), parameters applied: a file to start from", export_native},
};

constexpr PlanExportFormat kPlanExportFormats[] = {
    {"slurm", "sbatch lines pinned to the plan's nodes (--reservations: in reservations)", export_plan_slurm},
    {"kubernetes", "per job a pod template patch: node affinity on kubernetes.io/hostname", export_plan_kubernetes},
    {"kueue", "the same patches: Kueue's topology-aware scheduling keeps to them (v0.15+)", export_plan_kubernetes},
};

template <typename T>
const T* find_by_name(std::span<const T> all, std::string_view name) {
  auto it = std::find_if(all.begin(), all.end(), [&](const T& f) { return f.name == name; });
  return it == all.end() ? nullptr : &*it;
}

}  // namespace

std::span<const ImportFormat> import_formats() { return kImportFormats; }
const ImportFormat* find_import_format(std::string_view name) { return find_by_name(import_formats(), name); }
std::span<const ExportFormat> export_formats() { return kExportFormats; }
const ExportFormat* find_export_format(std::string_view name) { return find_by_name(export_formats(), name); }
std::span<const PlanExportFormat> plan_export_formats() { return kPlanExportFormats; }
const PlanExportFormat* find_plan_export_format(std::string_view name) {
  return find_by_name(plan_export_formats(), name);
}

}  // namespace topoplan
