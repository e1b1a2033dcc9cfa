// Reads JOBS arguments of any supported format: detection by content, then
// the native reader, the Kubernetes reader or the sbatch reader.
#include "topoplan/manifests/job_manifest.hpp"

#include <map>

#include <fmt/format.h>

#include "../io/yaml_support.hpp"
#include "level_map.hpp"
#include "manifest_readers.hpp"
#include "topoplan/placement/job_levels.hpp"
#include "topoplan/placement/jobs_yaml.hpp"

namespace topoplan {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Whether a YAML stream's documents are Kubernetes objects: a top-level
// mapping with apiVersion or kind (a line starting with either key).
bool looks_like_kubernetes(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (starts_with(line, "apiVersion:") || starts_with(line, "kind:")) return true;
    if (starts_with(line, "jobs:")) return false;
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return false;
}

}  // namespace

ManifestFormat detect_manifest_format(std::string_view text) {
  if (starts_with(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  if (starts_with(text, "#!")) return ManifestFormat::slurm;
  // #SBATCH directives before anything that is not a comment.
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    std::size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string_view::npos) {
      if (line[first] != '#') break;
      if (starts_with(line, "#SBATCH")) return ManifestFormat::slurm;
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return looks_like_kubernetes(text) ? ManifestFormat::kubernetes : ManifestFormat::native;
}

ManifestJobs read_job_manifests(const std::vector<ManifestInput>& inputs, const Topology& topology,
                                const ManifestOptions& options) {
  LevelMap levels(topology, options.level_labels);
  ManifestJobs out;
  DiagnosticSink sink;
  // Parse everything first: priority classes may be defined in any input.
  std::vector<std::vector<yaml::Node>> documents(inputs.size());
  std::vector<ManifestFormat> formats(inputs.size());
  PriorityClasses classes;
  KueueConfig kueue;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    formats[i] = detect_manifest_format(inputs[i].text);
    if (formats[i] != ManifestFormat::kubernetes) continue;
    try {
      documents[i] = yaml::parse_all(inputs[i].text, inputs[i].file, FileKind::k8s_workload);
      collect_priority_classes(documents[i], inputs[i].file, classes, sink);
      collect_kueue_config(documents[i], inputs[i].file, kueue, sink);
    } catch (const InputError& e) {
      for (const Diagnostic& d : e.diagnostics()) sink.error(d.where, d.message);
      formats[i] = ManifestFormat::native;
      documents[i].clear();
      documents[i].push_back(yaml::Node());
    }
  }
  resolve_kueue_config(kueue, levels, out, sink);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const ManifestInput& in = inputs[i];
    try {
      switch (formats[i]) {
        case ManifestFormat::native:
          if (!documents[i].empty()) break;  // unreadable YAML, already reported
          for (Job& job : parse_jobs_yaml(in.text, in.file)) out.jobs.push_back(std::move(job));
          break;
        case ManifestFormat::kubernetes:
          read_kubernetes_documents(documents[i], in.file, levels, classes, kueue, out, sink);
          break;
        case ManifestFormat::slurm:
          read_sbatch_script(in.text, in.file, levels, out, sink);
          break;
      }
    } catch (const InputError& e) {
      for (const Diagnostic& d : e.diagnostics()) sink.error(d.where, d.message);
    }
  }
  for (const Job& job : out.jobs) check_job_levels(topology, job, sink);
  // Plans, `cost --job` and `compare` name jobs: a name is unique across all
  // inputs, as it is within one manifest.
  std::map<std::string_view, const Job*> first;
  for (const Job& job : out.jobs)
    if (auto [it, fresh] = first.emplace(job.name, &job); !fresh)
      sink.error(job.where, fmt::format("job name '{}' is used twice; the first is at {}", job.name,
                                        it->second->where.str()));
  sink.throw_if_any();
  return out;
}

}  // namespace topoplan
