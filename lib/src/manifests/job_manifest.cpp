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

struct ParsedManifests::State {
  std::vector<ManifestInput> inputs;
  std::vector<ManifestFormat> formats;
  std::vector<std::vector<yaml::Node>> documents;  // Kubernetes inputs
  PriorityClasses classes;
  KueueConfig kueue;
  GroveTopologies grove;
  DiagnosticSink sink;  // what parsing the Kubernetes inputs found
  // topoplan's own inputs: their jobs, or what was wrong with them.
  std::vector<std::vector<Job>> native_jobs;
  std::vector<std::vector<Diagnostic>> native_errors;
};

ParsedManifests::ParsedManifests(std::vector<ManifestInput> inputs) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.inputs = std::move(inputs);
  const std::size_t n = s.inputs.size();
  s.documents.resize(n);
  s.formats.resize(n);
  s.native_jobs.resize(n);
  s.native_errors.resize(n);
  // Priority classes and Kueue objects may be defined in any input.
  for (std::size_t i = 0; i < n; ++i) {
    const ManifestInput& in = s.inputs[i];
    s.formats[i] = detect_manifest_format(in.text);
    if (s.formats[i] != ManifestFormat::kubernetes) continue;
    try {
      s.documents[i] = yaml::parse_all(in.text, in.file, FileKind::k8s_workload);
      collect_priority_classes(s.documents[i], in.file, s.classes, s.sink);
      collect_kueue_config(s.documents[i], in.file, s.kueue, s.sink);
      collect_grove_topologies(s.documents[i], in.file, s.grove, s.sink);
    } catch (const InputError& e) {
      for (const Diagnostic& d : e.diagnostics()) s.sink.error(d.where, d.message);
      s.formats[i] = ManifestFormat::native;
      s.documents[i].clear();
      s.documents[i].push_back(yaml::Node());  // unreadable YAML, already reported
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (s.formats[i] != ManifestFormat::native || !s.documents[i].empty()) continue;
    try {
      s.native_jobs[i] = parse_jobs_yaml(s.inputs[i].text, s.inputs[i].file);
    } catch (const InputError& e) {
      s.native_errors[i] = e.diagnostics();
    }
  }
}

ParsedManifests::ParsedManifests(ParsedManifests&&) noexcept = default;
ParsedManifests& ParsedManifests::operator=(ParsedManifests&&) noexcept = default;
ParsedManifests::~ParsedManifests() = default;

const std::vector<ManifestInput>& ParsedManifests::inputs() const { return state_->inputs; }

ManifestJobs read_job_manifests(ParsedManifests parsed, const Topology& topology, const ManifestOptions& options) {
  LevelMap levels(topology, options.level_labels);
  ParsedManifests::State& s = *parsed.state_;
  ManifestJobs out;
  DiagnosticSink& sink = s.sink;
  KueueConfig& kueue = s.kueue;
  resolve_kueue_config(kueue, levels, out, sink);
  for (std::size_t i = 0; i < s.inputs.size(); ++i) {
    const ManifestInput& in = s.inputs[i];
    try {
      switch (s.formats[i]) {
        case ManifestFormat::native:
          for (const Diagnostic& d : s.native_errors[i]) sink.error(d.where, d.message);
          for (Job& job : s.native_jobs[i]) out.jobs.push_back(std::move(job));
          break;
        case ManifestFormat::kubernetes:
          read_kubernetes_documents(s.documents[i], in.file, levels, s.classes, kueue, s.grove, out, sink);
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

ManifestJobs read_job_manifests(const std::vector<ManifestInput>& inputs, const Topology& topology,
                                const ManifestOptions& options) {
  return read_job_manifests(ParsedManifests(inputs), topology, options);
}

}  // namespace topoplan
