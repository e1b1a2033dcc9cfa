// Importers: topology files of other tools (Slurm, Kubernetes node lists, NCCL
// topology dumps, nvidia-smi, ibnetdiscover) turned into a Topology, which
// write_topology_yaml() then writes in topoplan's native format.
//
// Each format lives in its own file under lib/src/formats/ and registers one
// entry in import_formats(). Importers never touch the file system: the
// driver reads the files and passes their text.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

/// One input file: its name (for diagnostics) and contents.
struct ImportSource {
  std::string path;
  std::string text;
};

struct ImportOptions {
  /// Name of the topology written; empty: derived from the first file's name.
  std::string name;
  /// k8s-nodes: node label keys that form the levels, coarsest first
  /// (Kueue Topology style); the hostname level is implied last.
  std::vector<std::string> level_labels;
  /// What every host found in a fabric-only format (Slurm, ibnetdiscover,
  /// k8s-nodes) holds: the first node of this topology is copied to each host.
  /// Null: a generic node of `gpus_per_node` GPUs, one NIC each.
  const Topology* node_type = nullptr;
  /// GPUs of a generic node; 0 means the format's own count or 8.
  int gpus_per_node = 0;
  /// k8s-nodes: also import nodes without accelerators from a list that has
  /// GPU nodes (a list without any GPU node imports all of them anyway).
  bool cpu_nodes = false;
  /// GPU model of a generic node, and of the GPUs of an nvidia-smi matrix
  /// (whose NVLink and PCIe generations then follow from it); empty: the
  /// format's own model, else "GPU".
  std::string gpu_model;
  /// Link type between hosts and the switches the format describes.
  std::string fabric_link = "ib-ndr";
  /// slurm: which topology of a topology.yaml to import; empty: the
  /// cluster_default one, else the first.
  std::string slurm_topology;
  /// Hosts one import may name, every hostlist expanded (Slurm, Topograph):
  /// far above any real cluster (1.6M GPUs of generic 8-GPU hosts), low
  /// enough that a hostile hostlist cannot exhaust memory once every host
  /// gets its devices. A service importing untrusted files, or a fuzzer,
  /// sets it lower.
  std::size_t max_hosts = 200'000;
};

/// A warning about an input that still imported (a lossy format, a partial dump).
using ImportWarning = Diagnostic;

struct ImportResult {
  Topology topology;
  std::vector<ImportWarning> warnings;
};

using Importer = ImportResult (*)(std::span<const ImportSource> sources, const ImportOptions& options);

struct ImportFormat {
  std::string_view name;     // as given to --from
  std::string_view summary;  // one line for --help
  Importer run;
};

/// Whether `text` is a Kubernetes node list (`kubectl get nodes -o json|yaml`:
/// a List or NodeList of Nodes, or Node documents), which commands taking a
/// TOPO read through the k8s-nodes importer.
bool is_k8s_node_list(std::string_view text);

/// Whether `text` is an Alibaba openb node list (a CSV whose header names
/// sn, gpu and model), which commands taking a TOPO read through the
/// openb-nodes importer.
bool is_openb_node_list(std::string_view text);

/// Every import format, in the order --help lists them.
std::span<const ImportFormat> import_formats();
const ImportFormat* find_import_format(std::string_view name);

}  // namespace topoplan
