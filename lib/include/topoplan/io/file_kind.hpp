// What a file looks like, for errors about a file given where another kind
// belongs (an NCCL dump as TOPO, a topology as JOBS): the reader that fails
// says what the file seems to be and which command reads it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace topoplan {

enum class FileKind : std::uint8_t {
  unknown,
  topology,       // topoplan-topology(5)
  jobs,           // topoplan-jobs(5)
  plan,           // topoplan plan -o
  k8s_workload,   // Kubernetes objects other than nodes
  k8s_nodes,      // kubectl get nodes
  sbatch,
  slurm_conf,     // topology.conf
  slurm_yaml,     // topology.yaml
  nccl_xml,
  nccl_graph,     // NCCL_GRAPH_FILE
  xml,            // other XML
  nvidia_smi,
  ibnetdiscover,
  topograph,
  binary,
  utf16,
};

/// The kind `text` seems to be, from its first 64 KiB; unknown when unsure.
FileKind guess_file_kind(std::string_view text);

/// "it looks like an NCCL/RCCL topology dump: import it with 'topoplan import
/// --from nccl-xml'" for a file that seems to be another kind than
/// `expected`; "" when it seems to be `expected` or nothing in particular.
std::string file_kind_hint(std::string_view text, FileKind expected);

}  // namespace topoplan
