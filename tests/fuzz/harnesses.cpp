// Every parser topoplan exposes to files anyone can edit, as a fuzz harness.
// Adding one is one line in kHarnesses (and a seed folder, corpus/NAME).
//
// Beyond "no crash", harnesses check what must hold for any input that is
// accepted: a topology an importer builds is written in the native format and
// read back to the same devices and links; a plan read from a file is priced,
// written as YAML and read back to the same jobs.
#include "harnesses.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "formats/slurm_topology.hpp"
#include "manifests/level_map.hpp"
#include "manifests/manifest_readers.hpp"
#include "io/yaml_support.hpp"
#include "topoplan/cost/byte_size.hpp"
#include "topoplan/cost/rank_set.hpp"
#include "topoplan/formats/topology_export.hpp"
#include "topoplan/formats/topology_import.hpp"
#include "topoplan/io/device_perf.hpp"
#include "topoplan/io/hostlist.hpp"
#include "topoplan/io/topology_source.hpp"
#include "topoplan/io/topology_writer.hpp"
#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/model/topology_summary.hpp"
#include "topoplan/model/topology_validation.hpp"
#include "topoplan/placement/jobs_yaml.hpp"
#include "topoplan/placement/plan_io.hpp"
#include "topoplan/placement/placement_check.hpp"
#include "topoplan/placement/planner.hpp"
#include "topoplan/render/render.hpp"
#include "topoplan/simulate/trace.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan::fuzz {

namespace {

// A property that must hold was broken: report and crash, so the fuzzer
// keeps the input.
[[noreturn]] void broken(const std::string& what) {
  std::fprintf(stderr, "fuzz harness: %s\n", what.c_str());
  std::abort();
}

// The cluster manifests and plans are read against: two GB200 NVL72 racks
// (levels cluster > su > rack > node, hostnames gb200-r0000-n00 ...).
const Topology& cluster() {
  static const Topology topology = load_topology("gb200-nvl72:racks=2", [](const std::string&) {
    return std::optional<std::string>();
  });
  return topology;
}

// What an importer or the native reader accepted must survive the native
// writer: the text reads back to the same devices and links.
void reread(const Topology& topology) {
  std::string text = write_topology_yaml(topology);
  try {
    Topology back = parse_topology_yaml(text, "written.yaml");
    if (back.device_count() != topology.device_count() || back.link_count() != topology.link_count() ||
        back.domain_count() != topology.domain_count())
      broken("the written topology reads back with other counts:\n" + text);
  } catch (const InputError& e) {
    broken(std::string("the written topology does not read back: ") + e.what() + "\n" + text);
  }
}

// Hosts an import may name here: the default (200,000 hosts, 1.6M GPUs)
// takes the writer and reader of reread() minutes under ASan, which libFuzzer
// reports as a timeout; the limit's own error path is reached either way.
ImportOptions fuzz_import_options() {
  ImportOptions options;
  options.max_hosts = 2'000;
  return options;
}

void import_with(std::string_view format, std::string_view data, const std::string& path) {
  std::vector<ImportSource> sources{{path, std::string(data)}};
  ImportResult result = find_import_format(format)->run(sources, fuzz_import_options());
  reread(result.topology);
}

void topology_yaml(std::string_view data) { reread(parse_topology_yaml(data, "fuzz.yaml")); }

// What every writer does with a topology the native reader accepted.
void topology_writers(std::string_view data) {
  Topology topology = parse_topology_yaml(data, "fuzz.yaml");
  std::ostringstream out;
  write_summary_text(out, summarize(topology));
  write_summary_json(out, summarize(topology));
  validate_topology(topology);
  for (const ExportFormat& format : export_formats()) {
    try {
      format.run(topology, {});
    } catch (const InputError&) {
      // Not every topology can be said in every format.
    }
  }
  for (RenderFormat f : {RenderFormat::dot, RenderFormat::json}) {
    RenderOptions options;
    options.format = f;
    render(topology, options);
  }
}

void jobs_yaml(std::string_view data) { parse_jobs_yaml(data, "fuzz.yaml"); }

// A performance file's overrides must make a topology the builder accepts.
void device_perf(std::string_view data) {
  with_device_overrides(cluster(), read_device_perf(data, "fuzz.csv", cluster()));
}

void kubernetes_manifests(std::string_view data) {
  const std::string file = "fuzz.yaml";
  std::vector<yaml::Node> documents = yaml::parse_all(data, file);
  LevelMap levels(cluster(), {});
  DiagnosticSink sink;
  PriorityClasses classes;
  ManifestJobs out;
  KueueConfig kueue;
  GroveTopologies grove;
  collect_priority_classes(documents, file, classes, sink);
  collect_kueue_config(documents, file, kueue, sink);
  collect_grove_topologies(documents, file, grove, sink);
  resolve_kueue_config(kueue, levels, out, sink);
  read_kubernetes_documents(documents, file, levels, classes, kueue, grove, out, sink);
  sink.throw_if_any();
}

void sbatch_script(std::string_view data) {
  LevelMap levels(cluster(), {});
  DiagnosticSink sink;
  ManifestJobs out;
  read_sbatch_script(data, "fuzz.sbatch", levels, out, sink);
  sink.throw_if_any();
}

void slurm_topology_conf(std::string_view data) {
  const ImportOptions options = fuzz_import_options();
  formats::slurm::TopologySpec spec =
      formats::slurm::read_topology_conf({"topology.conf", std::string(data)}, options.max_hosts);
  std::vector<ImportWarning> warnings;
  reread(formats::slurm::build_topology(spec, "fuzz", options, warnings));
}

void slurm_topology_yaml(std::string_view data) {
  const ImportOptions options = fuzz_import_options();
  std::vector<formats::slurm::TopologySpec> specs =
      formats::slurm::read_topology_yaml({"topology.yaml", std::string(data)}, options.max_hosts);
  for (const formats::slurm::TopologySpec& spec : specs) {
    std::vector<ImportWarning> warnings;
    reread(formats::slurm::build_topology(spec, "fuzz", options, warnings));
  }
}

void k8s_nodes(std::string_view data) { import_with("k8s-nodes", data, "nodes.json"); }
void nccl_xml(std::string_view data) { import_with("nccl-xml", data, "topo.xml"); }
void nvidia_smi(std::string_view data) { import_with("nvidia-smi", data, "topo.txt"); }
void ibnetdiscover(std::string_view data) { import_with("ibnetdiscover", data, "ibnetdiscover.out"); }
void topograph(std::string_view data) { import_with("topograph", data, "model.yaml"); }

// A plan as `evaluate` and `cost --plan` read it: parsed, priced, checked,
// written, and the written YAML read back to the same jobs.
void plan_yaml(std::string_view data) {
  Plan plan = parse_plan_yaml(data, "plan.yaml", cluster());
  price_plan(cluster(), plan, nullptr);
  for (std::size_t j = 0; j < plan.jobs.size(); ++j) check_placement(cluster(), plan, j);
  std::ostringstream text, json, yaml;
  write_plan_text(text, cluster(), plan);
  write_plan_json(json, cluster(), plan);
  write_plan_yaml(yaml, cluster(), plan);
  try {
    Plan back = parse_plan_yaml(yaml.str(), "written.yaml", cluster());
    if (back.jobs.size() != plan.jobs.size()) broken("the written plan reads back with other jobs:\n" + yaml.str());
  } catch (const InputError& e) {
    broken(std::string("the written plan does not read back: ") + e.what() + "\n" + yaml.str());
  }
}

void byte_size(std::string_view data) {
  if (data.find(':') != std::string_view::npos) {
    parse_size_range(data, "--sweep");
    return;
  }
  std::uint64_t bytes = parse_byte_size(data, "--size");
  // Formatted for people ("1.5 GiB"); without the space it is a size again.
  std::string text = format_byte_size(bytes);
  text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
  try {
    if (parse_byte_size(text, "formatted") != bytes) broken("a size does not survive formatting: " + text);
  } catch (const InputError& e) {
    broken(std::string("a formatted size does not read back: ") + e.what());
  }
}

// The first line is a hostlist, the second a pattern matched against it.
void hostlist(std::string_view data) {
  std::string_view list = data.substr(0, data.find('\n'));
  std::string_view rest = list.size() < data.size() ? data.substr(list.size() + 1) : std::string_view();
  HostlistExpansion expansion = expand_hostlist(list, 100'000);
  if (expansion.ok()) {
    std::string compressed = compress_hostlist(expansion.names);
    HostlistExpansion again = expand_hostlist(compressed, 100'000);
    if (!again.ok() || again.names != expansion.names) broken("compress_hostlist does not expand back: " + compressed);
  }
  NamePattern pattern;
  std::string error;
  if (pattern.parse(rest.substr(0, rest.find('\n')), error))
    for (const std::string& name : expansion.names) pattern.matches(name);
}

// `--devices` of `cost` against the cluster.
void rank_selection(std::string_view data) {
  RankSelection selection;
  selection.devices = std::string(data);
  select_ranks(cluster(), selection);
}

// A TOPO argument naming a preset with settings (`dgx-h100:nodes=4`).
void topology_argument(std::string_view data) {
  load_topology(data, [](const std::string&) { return std::optional<std::string>(); });
}

// A TRACE of `simulate`: any of the formats read_trace tells apart. A first
// line `#settings key=value,...` gives the argument's settings (acme's
// cluster and jobs, openb's sharing), which the file then does not hold.
void traces(std::string_view data) {
  TraceOptions options;
  options.accelerators = cluster().accelerators().size();
  constexpr std::string_view kSettings = "#settings ";
  if (data.substr(0, kSettings.size()) == kSettings) {
    std::string_view line = data.substr(0, data.find('\n'));
    options.settings = parse_trace_argument("trace.csv:" + std::string(line.substr(kSettings.size()))).second;
    data.remove_prefix(std::min(data.size(), line.size() + 1));
    // A synthetic trace as long as asked is slow, not wrong: keep runs short.
    for (auto& [key, value] : options.settings.values)
      if (key == "jobs" && !(std::strtod(value.c_str(), nullptr) <= 1000)) value = "1000";
  }
  Trace trace = read_trace(data, "trace.csv", options);
  if (trace.jobs.empty() || trace.jobs.size() > TraceLimits::max_jobs)
    broken("a trace of " + std::to_string(trace.jobs.size()) + " jobs");
  for (const TraceJob& job : trace.jobs) {
    if (job.gpus == 0 || job.gpus > TraceLimits::max_gpus)
      broken("job '" + job.id + "' has " + std::to_string(job.gpus) + " gpus");
    if (!(job.submit_s >= 0 && job.submit_s <= TraceLimits::max_seconds) ||
        !(job.duration_s >= 0 && job.duration_s <= TraceLimits::max_seconds))
      broken("job '" + job.id + "' has a time out of bounds");
    if (job.comm_fraction && !(*job.comm_fraction >= 0 && *job.comm_fraction <= 1))
      broken("job '" + job.id + "' has a communication share out of [0, 1]");
    if (job.parallelism && std::uint64_t{job.parallelism->tp} * job.parallelism->pp * job.parallelism->dp != job.gpus)
      broken("job '" + job.id + "': tp x pp x dp is not its gpus");
  }
}

constexpr Harness kHarnesses[] = {
    {"byte_size", byte_size},
    {"device_perf", device_perf},
    {"hostlist", hostlist},
    {"ibnetdiscover", ibnetdiscover},
    {"jobs_yaml", jobs_yaml},
    {"k8s_nodes", k8s_nodes},
    {"kubernetes_manifests", kubernetes_manifests},
    {"nccl_xml", nccl_xml},
    {"nvidia_smi", nvidia_smi},
    {"plan_yaml", plan_yaml},
    {"rank_selection", rank_selection},
    {"sbatch_script", sbatch_script},
    {"slurm_topology_conf", slurm_topology_conf},
    {"slurm_topology_yaml", slurm_topology_yaml},
    {"topograph", topograph},
    {"topology_argument", topology_argument},
    {"topology_writers", topology_writers},
    {"topology_yaml", topology_yaml},
    {"traces", traces},
};

}  // namespace

std::span<const Harness> harnesses() { return kHarnesses; }

}  // namespace topoplan::fuzz
