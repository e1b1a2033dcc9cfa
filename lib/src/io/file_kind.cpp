#include "topoplan/io/file_kind.hpp"

#include <algorithm>

namespace topoplan {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

// Whether a line of `text` starts with `prefix` (at its first column).
bool has_line(std::string_view text, std::string_view prefix) {
  for (std::size_t start = 0; start < text.size();) {
    if (starts_with(text.substr(start), prefix)) return true;
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return false;
}

bool binary(std::string_view text) {
  if (contains(text, std::string_view("\0", 1))) return true;
  auto control = static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u < 0x20 && c != '\n' && c != '\r' && c != '\t';
  }));
  return control * 20 > text.size();
}

}  // namespace

FileKind guess_file_kind(std::string_view text) {
  text = text.substr(0, std::size_t{64} << 10);
  if (starts_with(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  if (starts_with(text, "\xFF\xFE") || starts_with(text, "\xFE\xFF")) return FileKind::utf16;
  if (binary(text)) return FileKind::binary;
  std::string_view start = text.substr(std::min(text.find_first_not_of(" \t\r\n"), text.size()));
  if (starts_with(start, "<")) {
    if (contains(text, "<graphs")) return FileKind::nccl_graph;
    return contains(text, "<system") ? FileKind::nccl_xml : FileKind::xml;
  }
  if (has_line(text, "#SBATCH") || starts_with(start, "#!")) return FileKind::sbatch;
  if (has_line(text, "SwitchName=") || has_line(text, "BlockName=")) return FileKind::slurm_conf;
  if (has_line(text, "Switch\t") || has_line(text, "Ca\t") || has_line(text, "vendid=")) return FileKind::ibnetdiscover;
  if (contains(text, "CPU Affinity") && contains(text, "GPU0")) return FileKind::nvidia_smi;
  if (contains(text, "\"kind\": \"Node") || contains(text, "\"kind\":\"Node") || has_line(text, "kind: Node") ||
      contains(text, "- apiVersion: v1\n  kind: Node"))
    return FileKind::k8s_nodes;
  if (has_line(text, "apiVersion:") || has_line(text, "kind:")) return FileKind::k8s_workload;
  if ((has_line(text, "topology:") || has_line(text, "- topology:")) &&
      (contains(text, "cluster_default") || contains(text, "  tree:") || contains(text, "  block:")))
    return FileKind::slurm_yaml;
  if (has_line(text, "levels:") && has_line(text, "blocks:")) return FileKind::topology;
  // Plans name devices: topoplan's own have `placed:`, others `devices:`,
  // `replica_devices:` or `hosts:` entries.
  if (has_line(text, "jobs:"))
    return contains(text, "placed:") || contains(text, "devices:") || contains(text, "hosts:") ? FileKind::plan
                                                                                              : FileKind::jobs;
  if (has_line(text, "switches:") || (has_line(text, "blocks:") && contains(text, "switch:")))
    return FileKind::topograph;
  return FileKind::unknown;
}

std::string file_kind_hint(std::string_view text, FileKind expected) {
  FileKind kind = guess_file_kind(text);
  if (kind == expected) return "";
  const std::string import = "import it with 'topoplan import --from ";
  switch (kind) {
    case FileKind::unknown: return "";
    case FileKind::topology: return "it looks like a topology (topoplan-topology(5)), which is TOPO";
    case FileKind::jobs: return "it looks like a job manifest (topoplan-jobs(5)), which is JOBS";
    case FileKind::plan: return "it looks like a plan (from 'topoplan plan -o'), which evaluate and --occupied read";
    case FileKind::k8s_workload: return "it looks like a Kubernetes object; workloads are JOBS";
    case FileKind::k8s_nodes: return "it looks like a Kubernetes node list: " + import + "k8s-nodes'";
    case FileKind::sbatch: return "it looks like an sbatch script, which is JOBS";
    case FileKind::slurm_conf: return "it looks like Slurm's topology.conf: " + import + "slurm'";
    case FileKind::slurm_yaml: return "it looks like Slurm's topology.yaml: " + import + "slurm'";
    case FileKind::nccl_xml: return "it looks like an NCCL/RCCL topology dump: " + import + "nccl-xml'";
    case FileKind::nccl_graph: return "it looks like an NCCL graph file (NCCL_GRAPH_FILE): rings and trees, not a topology";
    case FileKind::xml: return "it is XML";
    case FileKind::nvidia_smi: return "it looks like an nvidia-smi topo -m matrix: " + import + "nvidia-smi'";
    case FileKind::ibnetdiscover: return "it looks like ibnetdiscover output: " + import + "ibnetdiscover'";
    case FileKind::topograph: return "it looks like a Topograph model: " + import + "topograph'";
    case FileKind::binary: return "it is binary data, not text";
    case FileKind::utf16: return "it is UTF-16 text; topoplan reads UTF-8";
  }
  return "";
}

}  // namespace topoplan
