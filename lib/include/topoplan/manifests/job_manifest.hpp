// Job manifests as users already have them: topoplan's own format
// (topoplan-jobs(5)), Kubernetes workloads (Job, JobSet, LeaderWorkerSet,
// Kubeflow and Volcano jobs, with Kueue, Volcano and KAI topology requests)
// and Slurm batch scripts, told apart by their content
// (topoplan-formats(5), JOB MANIFESTS).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/job.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

/// `--level-label LABEL=LEVEL`: Kubernetes node label LABEL names the
/// topology's level LEVEL.
struct LevelLabel {
  std::string label;
  std::string level;
};

/// Parses `LABEL=LEVEL`; throws InputError naming `option` when malformed.
LevelLabel parse_level_label(std::string_view text, std::string_view option = "--level-label");

struct ManifestOptions {
  std::vector<LevelLabel> level_labels;  // before the built-in label rules
};

enum class ManifestFormat : std::uint8_t { native, kubernetes, slurm };

/// The format of a manifest by its content: a Slurm script starts with `#!`
/// or has `#SBATCH` lines before its first command; Kubernetes documents have
/// `apiVersion` or `kind`; anything else is read as topoplan's own format.
ManifestFormat detect_manifest_format(std::string_view text);

/// One input: its text and the name diagnostics use (a path, or `-`).
struct ManifestInput {
  std::string text;
  std::string file;
};

/// The jobs of several manifests, in input and document order.
struct ManifestJobs {
  std::vector<Job> jobs;
  /// What topoplan ignores, assumes or cannot honour; the jobs are kept.
  std::vector<Diagnostic> warnings;
  /// What the scheduler itself would refuse (Kueue's or Volcano's validation,
  /// sbatch); those jobs are left out, and `check` counts each as a problem.
  std::vector<Diagnostic> rejections;
};

/// The levels (node labels, coarsest first) of the first Kueue Topology
/// object among the inputs, or none: how a Kubernetes node list given as the
/// topology is read into levels. Inputs that are not YAML are skipped.
std::vector<std::string> kueue_topology_levels(const std::vector<ManifestInput>& inputs);

/// Manifests read as far as they can be without a topology: their YAML
/// documents, topoplan's own jobs, priority classes and Kueue objects. This
/// part needs no topology, so it can run while the topology loads. What went
/// wrong is held and reported by read_job_manifests, in the order it would
/// report it had it read everything itself.
class ParsedManifests {
 public:
  explicit ParsedManifests(std::vector<ManifestInput> inputs);
  ParsedManifests(ParsedManifests&&) noexcept;
  ParsedManifests& operator=(ParsedManifests&&) noexcept;
  ~ParsedManifests();

  const std::vector<ManifestInput>& inputs() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  friend ManifestJobs read_job_manifests(ParsedManifests parsed, const Topology& topology,
                                         const ManifestOptions& options);
};

/// Reads every input against `topology` (levels, node size and scale-up
/// islands give meaning to labels, tiers and whole-node requests). Throws
/// InputError with every problem of every input (malformed files, unknown
/// kinds, labels that name no level) at its file, line and column.
ManifestJobs read_job_manifests(ParsedManifests parsed, const Topology& topology,
                                const ManifestOptions& options = {});
/// The same, parsing `inputs` first.
ManifestJobs read_job_manifests(const std::vector<ManifestInput>& inputs, const Topology& topology,
                                const ManifestOptions& options = {});

}  // namespace topoplan
