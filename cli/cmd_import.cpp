// topoplan import --from FORMAT FILE... [-o topo.yaml]
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "cli_support.hpp"
#include "command.hpp"
#include "topoplan/formats/topology_import.hpp"
#include "topoplan/io/topology_writer.hpp"

namespace topoplan::cli {

namespace {

constexpr const char* kImportFooter = R"(Examples:
  topoplan import --from slurm topology.conf --node-type dgx-h100 -o cluster.yaml
  kubectl get nodes -o json | topoplan import --from k8s-nodes - \
      --levels cloud.google.com/gce-topology-block,cloud.google.com/gce-topology-subblock
  topoplan import --from nccl-xml node-topo.xml -o node.yaml
  topoplan import --from topograph nvl72.yaml --node-type gb200-nvl72 -o cluster.yaml

The result is a topology in topoplan's format (topoplan-topology(5)) on stdout
or in FILE; warnings about what the input could not say go to stderr.)";

struct ImportCommandOptions {
  std::string from;
  std::vector<std::string> files;
  std::string output;
  std::string name;
  std::vector<std::string> levels;
  std::string node_type;
  int gpus_per_node = 0;
  bool cpu_nodes = false;
  std::string gpu_model;
  std::string fabric_link = "ib-ndr";
  std::string slurm_topology;
};

int run_import(const ImportCommandOptions& o) {
  const ImportFormat* format = find_import_format(o.from);  // CLI11 checked the name
  std::vector<ImportSource> sources;
  for (const std::string& file : o.files) sources.push_back({file == "-" ? "<stdin>" : file, read_input(file)});
  std::optional<Topology> node_type;
  ImportOptions options;
  options.name = o.name;
  options.level_labels = o.levels;
  options.gpus_per_node = o.gpus_per_node;
  options.cpu_nodes = o.cpu_nodes;
  options.gpu_model = o.gpu_model;
  options.fabric_link = o.fabric_link;
  options.slurm_topology = o.slurm_topology;
  if (!o.node_type.empty()) {
    node_type = load_topology_argument(o.node_type);
    options.node_type = &*node_type;
  }
  ImportResult result = format->run(sources, options);
  print_warnings(result.warnings);

  TopologyWriteOptions write;
  std::string inputs;
  for (const ImportSource& s : sources) inputs += (inputs.empty() ? "" : ", ") + s.path;
  write.comments.push_back(fmt::format("Imported by topoplan from {} ({}).", inputs, format->name));
  std::string text = write_topology_yaml(result.topology, write);
  write_output(o.output, text);
  return kSuccess;
}

}  // namespace

Action setup_import(CLI::App& command) {
  auto o = std::make_shared<ImportCommandOptions>();
  std::vector<std::string> names;
  std::string formats_help = "input format:";
  for (const ImportFormat& f : import_formats()) {
    names.emplace_back(f.name);
    formats_help += fmt::format("\n  {:<14} {}", f.name, f.summary);
  }
  command.add_option("--from", o->from, formats_help)->required()->check(CLI::IsMember(names))->option_text("FORMAT");
  command.add_option("FILE", o->files, "input files ('-' reads stdin)")->required();
  command.add_option("-o,--output", o->output, "write the topology to FILE instead of stdout")->option_text("FILE");
  command.add_option("--name", o->name, "name of the topology (default: from the first file's name)")
      ->option_text("NAME");
  command.add_option("--levels", o->levels, "k8s-nodes: node label keys that form the levels, coarsest first")
      ->delimiter(',')
      ->option_text("LABEL,...");
  command.add_option("--node-type", o->node_type,
                     "fill every host with the first node of TOPO (e.g. dgx-h100) instead of a generic node")
      ->option_text("TOPO");
  command.add_option("--gpus-per-node", o->gpus_per_node, "GPUs of a generic node (default: from the input, else 8)")
      ->check(CLI::Range(1, 1024))
      ->option_text("N");
  command.add_flag("--cpu-nodes", o->cpu_nodes,
                   "k8s-nodes: also import the nodes without GPUs of a GPU cluster (for Kueue plans of CPU pods)");
  command.add_option("--gpu-model", o->gpu_model,
                     "GPU model of a generic node; nvidia-smi: of the matrix's GPUs, which sets NVLink and PCIe "
                     "generations (e.g. B200)")
      ->option_text("MODEL");
  command.add_option("--fabric-link", o->fabric_link, "link type between hosts and switches (default: ib-ndr)")
      ->option_text("TYPE");
  command.add_option("--slurm-topology", o->slurm_topology,
                     "slurm: the topology of a topology.yaml to import (default: the cluster default, else the first)")
      ->option_text("NAME");
  command.footer(kImportFooter);
  return [o]() { return run_import(*o); };
}

}  // namespace topoplan::cli
