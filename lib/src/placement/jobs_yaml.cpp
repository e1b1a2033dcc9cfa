#include "topoplan/placement/jobs_yaml.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "job_reader.hpp"
#include "topoplan/cost/ep_kernel.hpp"
#include "topoplan/io/file_kind.hpp"

namespace topoplan {

namespace {

struct Suffix {
  std::string_view text;
  double factor;
};

std::optional<double> parse_with_suffix(std::string_view text, std::initializer_list<Suffix> suffixes) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.' ||
                               text[end] == 'e' || text[end] == 'E' || text[end] == '+' || text[end] == '-')) {
    // An 'e' followed by a letter starts a suffix, not an exponent.
    if ((text[end] == 'e' || text[end] == 'E') &&
        (end + 1 >= text.size() || !(std::isdigit(static_cast<unsigned char>(text[end + 1])) ||
                                     text[end + 1] == '-' || text[end + 1] == '+')))
      break;
    ++end;
  }
  auto number = yaml::parse_number(text.substr(0, end));
  if (!number || *number < 0) return std::nullopt;
  std::string_view unit = text.substr(end);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (unit.empty()) return number;
  for (const Suffix& s : suffixes)
    if (unit == s.text) {
      double v = *number * s.factor;
      if (!std::isfinite(v)) return std::nullopt;
      return v;
    }
  return std::nullopt;
}

}  // namespace

std::optional<double> parse_count(std::string_view text) {
  return parse_with_suffix(text, {{"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"G", 1e9}, {"T", 1e12}});
}

void JobReader::read_parallelism(const yaml::Node& node, Job& job) {
  yaml::MapReader m(node, file_, sink_, "'parallelism'");
  m.allow({"tp", "pp", "dp", "ep"});
  if (!m.ok()) return;
  job.parallelism.tp = count(m, "tp", 1, 1'000'000).value_or(1);
  job.parallelism.pp = count(m, "pp", 1, 1'000'000).value_or(1);
  job.parallelism.dp = count(m, "dp", 1, 1'000'000).value_or(1);
  job.parallelism.ep = count(m, "ep", 1, 1'000'000).value_or(1);
  if (job.parallelism.dp % job.parallelism.ep != 0)
    sink_.error(m.where("ep"), fmt::format("ep {} must divide dp {}: expert-parallel groups are runs of data-parallel "
                                           "ranks",
                                           job.parallelism.ep, job.parallelism.dp));
}

void JobReader::read_workload(const yaml::Node& node, Job& job) {
  yaml::MapReader m(node, file_, sink_, "'workload'");
  std::vector<std::string_view> allowed = {"parameters",           "precision",  "gradient_bytes", "sharded",
                                           "activation_bytes",     "layers",     "micro_batches",  "expert_bytes",
                                           "expert_combine_bytes", "moe_layers", "ep_kernel",      "ep_message_bytes",
                                           "compute_seconds"};
  allowed.insert(allowed.end(), service_workload_keys().begin(), service_workload_keys().end());
  m.allow(allowed);
  if (!m.ok()) return;
  JobWorkload& w = job.workload;
  if (auto text = m.string("parameters")) {
    auto v = parse_count(*text);
    if (!v || *v > 1e16)
      sink_.error(m.where("parameters"), fmt::format("'parameters' must be a count like 70B or 8e9, not '{}'", *text));
    else
      w.parameters = *v;
  }
  if (auto p = m.string("precision")) {
    static const std::pair<std::string_view, double> kPrecisions[] = {
        {"fp32", 4}, {"tf32", 4}, {"bf16", 2}, {"fp16", 2}, {"fp8", 1}, {"int8", 1}, {"fp4", 0.5}};
    bool found = false;
    std::vector<std::string> names;
    for (auto [name, size] : kPrecisions) {
      names.emplace_back(name);
      if (*p == name) {
        w.bytes_per_parameter = size;
        found = true;
      }
    }
    if (!found) {
      std::string hint = did_you_mean(*p, names);
      sink_.error(m.where("precision"), fmt::format("unknown precision '{}'; use {}{}{}", *p, fmt::join(names, ", "),
                                                    hint.empty() ? "" : "; ", hint));
    }
  }
  w.gradient_bytes = bytes(m, "gradient_bytes").value_or(0);
  if (auto sharded = flag(m, "sharded")) w.sharded = *sharded;
  w.layers = count(m, "layers", 1, 100'000).value_or(0);
  w.moe_layers = count(m, "moe_layers", 1, 100'000).value_or(0);
  w.activation_bytes = bytes(m, "activation_bytes").value_or(0);
  w.expert_bytes = bytes(m, "expert_bytes").value_or(0);
  w.expert_combine_bytes = bytes(m, "expert_combine_bytes").value_or(0);
  if (w.expert_combine_bytes > 0 && w.expert_bytes <= 0)
    sink_.error(m.where("expert_combine_bytes"),
                "'expert_combine_bytes' is the combine of an MoE dispatch: give 'expert_bytes' too");
  if (auto k = m.string("ep_kernel")) {
    if (auto kernel = parse_ep_kernel(*k)) {
      w.ep_kernel = *kernel;
    } else {
      std::string hint = did_you_mean(*k, {"nccl", "pplx", "deepep", "deepep-ll"});
      sink_.error(m.where("ep_kernel"), fmt::format("unknown ep_kernel '{}'; use {}{}{}", *k, ep_kernel_names(),
                                                    hint.empty() ? "" : "; ", hint));
    }
  }
  w.ep_message_bytes = static_cast<std::uint64_t>(bytes(m, "ep_message_bytes").value_or(0));
  if (ep_kernel_uses_message(w.ep_kernel) && w.ep_message_bytes == 0 && m.has("ep_kernel"))
    sink_.error(m.where("ep_kernel"), fmt::format("ep_kernel {} is priced by its puts: give ep_message_bytes, the "
                                                  "bytes of one token's hidden state (7168 for DeepSeek-V3 in FP8)",
                                                  ep_kernel_name(w.ep_kernel)));
  if (w.ep_message_bytes > 0 && !ep_kernel_uses_message(w.ep_kernel))
    sink_.error(m.where("ep_message_bytes"), fmt::format("'ep_message_bytes' is the put size of ep_kernel pplx; "
                                                         "ep_kernel {} does not use it",
                                                         ep_kernel_name(w.ep_kernel)));
  w.micro_batches = count(m, "micro_batches", 1, 1'000'000).value_or(0);
  w.compute_seconds = m.number("compute_seconds", 1e-9, 1e9).value_or(0);
}

void JobReader::read_shape(yaml::MapReader& m, Job& job) {
  if (auto shape = m.string("shape")) {
    static const std::pair<std::string_view, ChainShape> kShapes[] = {
        {"chain", ChainShape::chain}, {"ring", ChainShape::ring}, {"group", ChainShape::group}};
    bool found = false;
    for (auto [name, value] : kShapes)
      if (*shape == name) {
        job.shape = value;
        found = true;
      }
    if (!found) {
      std::string hint = did_you_mean(*shape, {"chain", "ring", "group"});
      sink_.error(m.where("shape"), fmt::format("unknown shape '{}'; shapes are chain, ring, group{}{}", *shape,
                                                hint.empty() ? "" : "; ", hint));
    }
  }
  if (m.has("deterministic")) {
    if (auto d = flag(m, "deterministic")) job.deterministic = *d;
    if (job.deterministic && !m.has("shape"))
      sink_.error(m.where("deterministic"), "'deterministic' asks for uniform hops of a shape; give 'shape: chain', "
                                            "'ring' or 'group'");
  }
  job.spare = m.string("spare");
  if (job.spare && !m.has("shape"))
    sink_.error(m.where("spare"), "'spare' keeps a whole node free beside a shaped job; give 'shape: chain', 'ring' "
                                  "or 'group'");
}

const std::vector<std::string_view>& JobReader::keys() {
  static const std::vector<std::string_view> kKeys = {
      "name",     "kind",     "gpus",     "lpus",     "accelerators", "nodes",    "replicas", "min_replicas",
      "gpus_per_replica", "lpus_per_replica", "parallelism", "workload", "required", "preferred", "spread",
      "replicas_within", "exclusive_level", "priority", "tenant", "model", "exclusive", "queue", "priority_class", "shape",
      "deterministic", "spare", "perf_class"};
  static const std::vector<std::string_view> kAll = [] {
    std::vector<std::string_view> all = kKeys;
    all.insert(all.end(), service_keys().begin(), service_keys().end());
    return all;
  }();
  return kAll;
}

std::optional<Job> JobReader::read(const yaml::Node& node, const std::vector<std::string_view>& extra_keys,
                                   bool size_optional, const yaml::Node& name_node) {
  yaml::MapReader m(node, file_, sink_, "a job");
  std::vector<std::string_view> allowed = keys();
  allowed.insert(allowed.end(), extra_keys.begin(), extra_keys.end());
  m.allow(allowed);
  if (!m.ok()) return std::nullopt;
  Job job;
  job.where = m.where();
  std::size_t before = sink_.size();
  if (name_node.IsDefined()) {
    if (auto name = yaml::scalar(name_node, file_, sink_, "'name'")) job.name = *name;
  } else if (auto name = m.string("name", true)) {
    job.name = *name;
  }
  if (job.name.empty() && sink_.size() == before)
    sink_.error(name_node.IsDefined() ? yaml::where(file_, name_node) : m.where("name"), "a job needs a non-empty name");
  if (auto kind = m.string("kind")) {
    if (*kind == "training")
      job.kind = JobKind::training;
    else if (*kind == "inference")
      job.kind = JobKind::inference;
    else
      sink_.error(m.where("kind"), fmt::format("unknown kind '{}'; kinds are training, inference{}", *kind,
                                               did_you_mean(*kind, {"training", "inference"}).empty()
                                                   ? ""
                                                   : "; " + did_you_mean(*kind, {"training", "inference"})));
  } else if (m.has("replicas")) {
    job.kind = JobKind::inference;
  }

  constexpr long long kMaxAccelerators = 100'000'000;
  std::vector<std::string> sizes;
  for (std::string_view key : {"gpus", "lpus", "accelerators", "nodes", "gpus_per_replica", "lpus_per_replica"})
    if (m.has(key)) sizes.emplace_back(key);
  auto total = std::optional<std::uint32_t>();
  for (std::string_view key : {"gpus", "lpus", "accelerators"})
    if (m.has(key)) total = count(m, key, 1, kMaxAccelerators);
  if (m.has("nodes")) {
    auto text = m.string("nodes");
    if (text && !yaml::parse_integer(*text))
      sink_.error(m.where("nodes"), fmt::format("'nodes' is a number of whole nodes, not '{}'; name nodes of a plan "
                                                "entry with 'hosts'",
                                                *text));
    else
      job.nodes = count(m, "nodes", 1, kMaxAccelerators).value_or(0);
  }
  std::optional<std::uint32_t> per;
  for (std::string_view key : {"gpus_per_replica", "lpus_per_replica"})
    if (m.has(key)) per = count(m, key, 1, kMaxAccelerators);
  job.replicas = count(m, "replicas", 1, 1'000'000).value_or(1);
  job.min_replicas = count(m, "min_replicas", 1, 1'000'000).value_or(0);
  if (job.min_replicas > job.replicas)
    sink_.error(m.where("min_replicas"), fmt::format("job '{}' needs {} replicas (min_replicas) but has {}", job.name,
                                                     job.min_replicas, job.replicas));

  std::size_t whole = (m.has("gpus") ? 1u : 0u) + (m.has("lpus") ? 1u : 0u) + (m.has("accelerators") ? 1u : 0u) +
                      (m.has("nodes") ? 1u : 0u);
  if (whole + (per ? 1u : 0u) == 0 && sink_.size() == before && !size_optional && !m.has("roles"))
    sink_.error(m.where(), fmt::format("job '{}' needs a size: gpus, lpus, nodes, or replicas and gpus_per_replica",
                                       job.name));
  else if (whole > 1 || (whole == 1 && per && job.nodes))
    sink_.error(m.where(), fmt::format("job '{}' gives its size twice ({}); give one", job.name, fmt::join(sizes, ", ")));
  if (per) {
    job.per_replica = *per;
    if (total && *total != *per * job.replicas)
      sink_.error(m.where(), fmt::format("job '{}': {} replicas x {} = {}, not {}", job.name, job.replicas, *per,
                                         *per * job.replicas, *total));
  } else if (total) {
    if (*total % job.replicas != 0)
      sink_.error(m.where(), fmt::format("job '{}': {} accelerators do not split into {} equal replicas", job.name,
                                         *total, job.replicas));
    job.per_replica = *total / job.replicas;
  }
  if (job.nodes && job.replicas > 1)
    sink_.error(m.where("nodes"), "whole-node requests ('nodes') are for training jobs; give services "
                                  "gpus_per_replica");

  if (m.has("parallelism")) {
    read_parallelism(m.get("parallelism"), job);
    std::uint32_t ranks = job.parallelism.ranks();
    if (job.per_replica && ranks != job.per_replica)
      sink_.error(m.where("parallelism"),
                  fmt::format("parallelism tp {} x pp {} x dp {} = {} ranks, but job '{}' asks for {} accelerators{}",
                              job.parallelism.tp, job.parallelism.pp, job.parallelism.dp, ranks, job.name,
                              job.per_replica, job.replicas > 1 ? " per replica" : ""));
  } else if (job.per_replica) {
    job.parallelism.dp = job.per_replica;
  }
  if (m.has("workload")) read_workload(m.get("workload"), job);
  job.required = m.string("required");
  job.preferred = m.string("preferred");
  job.spread = m.string("spread");
  job.level_where = {m.where("required"), m.where("preferred"), m.where("spread"), m.where("replicas_within"),
                     m.where("exclusive_level"), m.where("spare")};
  if (job.spread && job.replicas < 2 && job.kind == JobKind::training)
    sink_.error(m.where("spread"), "'spread' places replicas apart; this job has one replica");
  job.replicas_within = m.string("replicas_within");
  job.exclusive_level = m.string("exclusive_level");
  if (auto p = m.integer("priority", -1'000'000'000, 1'000'000'000)) job.priority = *p;
  job.tenant = m.string("tenant").value_or("");
  job.accelerator_model = m.string("model").value_or("");
  if (auto e = m.string("exclusive")) {
    if (*e == "true" || *e == "node")
      job.exclusive = true;
    else if (*e != "false")
      sink_.error(m.where("exclusive"), fmt::format("'exclusive' is true or false, not '{}'", *e));
  }
  if (job.nodes) job.exclusive = true;
  read_shape(m, job);
  job.queue = m.string("queue").value_or("");
  job.priority_class = m.string("priority_class").value_or("");
  if (auto c = m.string("perf_class")) {
    if (c->empty())
      sink_.error(m.where("perf_class"), "'perf_class' names a workload class of --device-perf; give a name");
    job.perf_class = *c;
    job.perf_class_where = m.where("perf_class");
  }
  read_service(m, job);  // also after other errors: every problem of the job at once
  if (sink_.size() != before) return std::nullopt;
  return job;
}

namespace {

// A document without 'jobs' (and without a key close to it) is another kind
// of file: say so once, and what it seems to be, instead of listing every key
// as unknown.
void check_is_manifest(const yaml::Node& root, std::string_view text, const std::string& file) {
  std::vector<std::string> keys;
  if (root.IsSequence()) return;  // a bare list of jobs
  if (root.IsMap())
    for (const auto& entry : root) {
      if (!entry.first.IsScalar()) return;
      if (entry.first.Scalar() == "jobs" || !did_you_mean(entry.first.Scalar(), {"jobs"}).empty()) return;
      keys.push_back(entry.first.Scalar());
    }
  if (keys.size() > 5) {
    keys.resize(5);
    keys.back() = "...";
  }
  std::string hint = file_kind_hint(text, FileKind::jobs);
  if (hint.empty())
    hint = "JOBS are topoplan's manifests (topoplan-jobs(5)), Kubernetes workloads (apiVersion, kind) or sbatch "
           "scripts";
  SourceLocation at = yaml::where(file, root);
  if (at.line <= 0) at = {file, 1, 1};
  if (root.IsNull()) throw InputError({file, 1, 1}, "no jobs: the file is empty; a job manifest is a 'jobs:' list");
  if (root.IsScalar()) throw InputError(at, "not a job manifest: a single value where a 'jobs:' list belongs; " + hint);
  throw InputError(at, fmt::format("not a job manifest: no 'jobs:' list (the keys are {}); {}", fmt::join(keys, ", "),
                                   hint));
}

}  // namespace

std::vector<Job> parse_jobs_yaml(std::string_view text, const std::string& file) {
  yaml::Node root = yaml::parse(text, file, FileKind::jobs);
  check_is_manifest(root, text, file);
  DiagnosticSink sink;
  std::vector<Job> jobs;
  yaml::Node list = root;
  if (root.IsMap()) {
    yaml::MapReader m(root, file, sink, "a job manifest");
    m.allow({"jobs"});
    list.reset(m.get("jobs"));  // operator= would write into the document
    if (!list.IsDefined()) sink.error(m.where(), "a job manifest needs 'jobs:', a list of jobs");
  }
  if (list.IsDefined() && !list.IsSequence()) {
    sink.error(yaml::where(file, list), "'jobs' must be a list of jobs");
  } else if (list.IsDefined()) {
    JobReader reader(file, sink);
    std::map<std::string, SourceLocation> names;
    for (const yaml::Node& item : list) {
      auto job = reader.read(item);
      if (!job) continue;
      if (auto [it, fresh] = names.emplace(job->name, job->where); !fresh) {
        sink.error(job->where, fmt::format("job name '{}' is used twice; the first is at {}", job->name,
                                           it->second.str()));
        continue;
      }
      jobs.push_back(std::move(*job));
    }
  }
  if (list.IsDefined() && list.IsSequence() && list.size() == 0) sink.error(yaml::where(file, list), "no jobs");
  sink.throw_if_any();
  return jobs;
}

}  // namespace topoplan
