#include <cmath>
#include "topoplan/placement/placement_check.hpp"
#include "topoplan/placement/plan_io.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "job_reader.hpp"
#include "topoplan/cost/cost_model.hpp"
#include "topoplan/cost/cost_report.hpp"
#include "topoplan/io/hostlist.hpp"
#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/model/node_size.hpp"
#include "topoplan/placement/chain_path.hpp"
#include "topoplan/placement/job_levels.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/service_report.hpp"
#include "topoplan/placement/straggler_model.hpp"
#include "topoplan/support/json_writer.hpp"

namespace topoplan {

namespace {

std::string plural(std::size_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : (word.back() == 's' ? "es" : "s"));
}

// "1 su, 2 racks, 18 nodes": domains spanned per level below the root.
std::string span_text(const Topology& t, const Span& span) {
  std::vector<std::string> parts;
  for (LevelIndex l = 1; l <= t.host_level(); ++l) parts.push_back(plural(span.domains[l].size(), t.levels()[l].name));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string seconds_text(double s) {
  if (s < 0) return "-";
  if (s == 0) return "none";  // nothing to communicate (one rank, or inference without parallelism)
  if (s >= 1) return fmt::format("{:.3f} s", s);
  if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.1f} us", s * 1e6);
}

std::string size_text(const Job& job, const JobPlacement& p) {
  if (job.replicas > 1) return fmt::format("{}x{}", job.replicas, job.per_replica);
  if (job.nodes) return fmt::format("{}n", job.nodes);
  if (p.placed) return fmt::format("{}", p.device_count());
  return fmt::format("{}", job.per_replica);
}

std::vector<std::string> device_names(const Topology& t, const std::vector<DeviceId>& devices) {
  std::vector<std::string> names;
  names.reserve(devices.size());
  for (DeviceId d : devices) names.push_back(t.device_name(d));
  return names;
}

// Pods per pod set and node, for policies that place pods (Kueue's
// assignment): "worker" -> [(host, pods)], the pod group added as "#N" when
// a job has several.
std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::uint32_t>>>> pods_by_set(
    const Topology& t, const JobPlacement& p) {
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::uint32_t>>>> out;
  bool groups = std::any_of(p.pods.begin(), p.pods.end(), [](const JobPlacement::NodePods& n) { return n.group > 0; });
  for (const JobPlacement::NodePods& n : p.pods) {
    std::string key = groups ? fmt::format("{}#{}", n.pod_set, n.group + 1) : n.pod_set;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == key; });
    if (it == out.end()) it = out.insert(out.end(), {key, {}});
    it->second.emplace_back(std::string(t.hostname(n.node)), n.pods);
  }
  return out;
}

// A shaped job's chips in pipeline order, its hops and latency, per replica.
void write_chain_text(std::ostream& out, const Topology& t, const Job& job, const JobPlacement& p,
                      std::size_t width) {
  for (std::size_t r = 0; r < p.replicas.size(); ++r) {
    const ChainPath path = measure_chain(t, p.replicas[r], job.shape);
    fmt::print(out, "{:<{}}  {}{}: {}\n", "", width, chain_shape_name(job.shape),
               p.replicas.size() > 1 ? fmt::format(" {}", r + 1) : "",
               fmt::join(device_names(t, p.replicas[r]), " "));
    fmt::print(out, "{:<{}}  hops: {} local, {} global; {:.3f} us {}; {}\n", "", width, path.local_hops,
               path.global_hops, path.latency_us,
               job.shape == ChainShape::group ? "slowest pair" : job.shape == ChainShape::ring ? "a lap" : "end to end",
               !path.connected ? "broken" : path.uniform ? "uniform" : "not uniform");
  }
  if (!p.spares.empty()) {
    std::vector<std::string> hosts;
    for (DomainId n : p.spares) hosts.emplace_back(t.hostname(n));
    fmt::print(out, "{:<{}}  spare: {}\n", "", width, fmt::join(hosts, " "));
  }
}

// A shaped job's chain as JSON: chips in order, hops, latency, uniformity.
void write_chain_json(JsonWriter& j, const Topology& t, const Job& job, const std::vector<DeviceId>& devices) {
  const ChainPath path = measure_chain(t, devices, job.shape);
  j.key("chain").begin_array();
  for (DeviceId d : devices) j.value(t.device_name(d));
  j.end_array();
  j.key("hops").begin_object().field("local", path.local_hops).field("global", path.global_hops).end_object();
  j.key("path_latency_us").begin_object().field("end_to_end", path.latency_us, 3);
  j.key("per_hop").begin_array();
  for (const ChainHop& h : path.hops) {
    if (h.link == kNone) j.null(); else j.value(h.latency_us, 3);
  }
  j.end_array().end_object();
  j.field("connected", path.connected).field("uniform", path.uniform);
}

// The cost model service reports price KV transfers and communication with;
// null when the plan has no service.
std::unique_ptr<CostModel> service_cost_model(const Topology& t, const Plan& plan) {
  for (const Job& job : plan.jobs)
    if (job.service) return std::make_unique<CostModel>(t);
  return nullptr;
}

// "queue: training, priority class: high", when the manifest named them.
void print_queue(std::ostream& out, const Job& job, std::size_t width) {
  std::vector<std::string> parts;
  if (!job.queue.empty()) parts.push_back(fmt::format("queue: {}", job.queue));
  if (!job.priority_class.empty())
    parts.push_back(fmt::format("priority class: {} ({})", job.priority_class, job.priority));
  if (!parts.empty()) fmt::print(out, "{:<{}}  {}\n", "", width, fmt::join(parts, ", "));
}

}  // namespace

void write_plan_text(std::ostream& out, const Topology& t, const Plan& plan) {
  fmt::print(out, "plan for {} with policy {}\n\n", plan.topology, plan.policy);
  const std::unique_ptr<CostModel> service_costs = service_cost_model(t, plan);
  const bool speeds_vary = has_speed_variation(t);
  std::size_t width = 4;
  for (const Job& job : plan.jobs) width = std::max(width, job.name.size());
  width = std::min<std::size_t>(width, 40);
  fmt::print(out, "{:<{}}  {:<9}  {:>7}  {:<6}  {:>12}  {}\n", "job", width, "kind", "accel", "placed", "comm/step",
             "spans");
  for (std::size_t j = 0; j < plan.jobs.size(); ++j) {
    const Job& job = plan.jobs[j];
    const JobPlacement& p = plan.placements[j];
    std::string kind = job.kind == JobKind::training ? "training" : "inference";
    if (!p.placed) {
      fmt::print(out, "{:<{}}  {:<9}  {:>7}  {:<6}  {:>12}  {}\n", job.name, width, kind, size_text(job, p), "no", "-",
                 "-");
      print_queue(out, job, width);
      fmt::print(out, "{:<{}}  reason: {}\n", "", width, p.reason);
      if (!p.suggestion.empty()) fmt::print(out, "{:<{}}  {}\n", "", width, p.suggestion);
      continue;
    }
    fmt::print(out, "{:<{}}  {:<9}  {:>7}  {:<6}  {:>12}  {}\n", job.name, width, kind, size_text(job, p), "yes",
               seconds_text(p.shared_step_seconds), span_text(t, span_of(t, p)));
    print_queue(out, job, width);
    // The step by parallelism (the slowest replica, alone): time and where it runs.
    if (p.breakdown)
      for (std::size_t k = 0; k < kStepKinds; ++k) {
        const StepPart& part = p.breakdown->parts[k];
        if (part.groups == 0) continue;
        fmt::print(out, "{:<{}}  {:<4} {:>10}  {}\n", "", width, step_kind_name(static_cast<StepKind>(k)),
                   seconds_text(part.seconds), step_part_text(t, part));
      }
    if (job.shape != ChainShape::none) write_chain_text(out, t, job, p, width);
    if (speeds_vary) {
      const JobSpeed speed = job_speed(t, job, p);
      fmt::print(out, "{:<{}}  speed: slowest {:.3f}, straggler loss {:+.1f} %\n", "", width, speed.slowest_speed,
                 speed.straggler_loss * 100);
    }
    if (!p.pods.empty()) {
      std::vector<std::string> parts;
      for (const auto& [set, nodes] : pods_by_set(t, p)) {
        std::vector<std::string> counts;
        for (const auto& [host, n] : nodes) counts.push_back(fmt::format("{}={}", host, n));
        parts.push_back(fmt::format("{} {}", set, fmt::join(counts, " ")));
      }
      fmt::print(out, "{:<{}}  pods: {}\n", "", width, fmt::join(parts, "; "));
    }
    if (job.service)
      write_service_text(out, t, *job.service, service_report(t, plan, j, service_costs.get()), width + 2);
    for (const std::string& problem : p.problems) fmt::print(out, "{:<{}}  problem: {}\n", "", width, problem);
  }
  const PlanSummary& s = plan.summary;
  fmt::print(out, "\n{} placed, {} not placed; {} of {} accelerators used", s.placed, s.unplaced, s.accelerators_used,
             s.accelerators);
  if (s.accelerators_occupied) fmt::print(out, ", {} occupied before", s.accelerators_occupied);
  fmt::print(out, ", {} free", s.accelerators_free);
  if (s.accelerators_unavailable) fmt::print(out, ", {} down or draining", s.accelerators_unavailable);
  if (s.jobs_on_down)
    fmt::print(out, "\n{} job{} hold{} {} down accelerator{}", s.jobs_on_down, s.jobs_on_down == 1 ? "" : "s",
               s.jobs_on_down == 1 ? "s" : "", s.accelerators_down_used, s.accelerators_down_used == 1 ? "" : "s");
  fmt::print(out, "\nlargest free island:");
  for (std::size_t l = 1; l < s.levels.size(); ++l)
    fmt::print(out, " {} {}{}", s.levels[l].level, s.levels[l].largest_free, l + 1 < s.levels.size() ? "," : "");
  fmt::print(out, "\n");
}

namespace {

// The parallelism printed is the one priced: a job that gives none (a
// `nodes: K` job) is priced as data parallelism over all its accelerators
// (JobPricer::parallelism_of), so that is what a placed job shows, when its
// devices are as many as it asks (`node_size` accelerators per node); a
// hand-written placement of another size keeps what the job says, so that
// the plan reads back.
template <typename Writer>
void write_job_spec(Writer& w, const Job& job, const JobPlacement& placement, std::uint32_t node_size) {
  w.field("kind", job.kind == JobKind::training ? "training" : "inference");
  // A service is written in its own form (topoplan-jobs(5)), which the job
  // reader maps onto the job's fields again.
  const Service* svc = job.service.get();
  if (svc) {
    w.field("slices", svc->slices);
    w.key("roles").begin_object();
    for (const ServiceRole& role : svc->roles) {
      w.key(role.name).begin_object().field("replicas", role.replicas).field("gpus_per_replica", role.per_replica);
      if (role.batch) w.field("batch", role.batch);
      if (role.phase != phase_named(role.name)) w.field("phase", std::string(role_phase_name(role.phase)));
      w.key("parallelism").begin_object();
      w.field("tp", role.parallelism.tp).field("pp", role.parallelism.pp).field("dp", role.parallelism.dp);
      w.field("ep", role.parallelism.ep).end_object();
      w.end_object();
    }
    w.end_object();
  } else if (job.nodes) {
    w.field("nodes", job.nodes);
  } else if (job.replicas > 1) {
    w.field("replicas", job.replicas).field("gpus_per_replica", job.per_replica);
  } else {
    w.field("gpus", job.per_replica);
  }
  if (job.min_replicas && !(svc && svc->availability)) w.field("min_replicas", job.min_replicas);
  const std::size_t ranks = placement.placed && !placement.replicas.empty() ? placement.replicas.front().size() : 0;
  const std::size_t asked = job.nodes ? std::size_t{job.nodes} * node_size : job.per_replica;
  const Parallelism priced =
      ranks > 0 && ranks == asked ? JobPricer::parallelism_of(job, ranks) : job.parallelism;
  if (!svc) {
    w.key("parallelism").begin_object();
    w.field("tp", priced.tp).field("pp", priced.pp).field("dp", priced.dp);
    w.field("ep", priced.ep).end_object();
  }
  if (job.required) w.field(svc ? "pack" : "required", *job.required);
  if (job.preferred) w.field(svc ? "pack_preferred" : "preferred", *job.preferred);
  if (job.spread && !(svc && svc->availability)) w.field("spread", *job.spread);
  if (job.replicas_within) w.field("replicas_within", *job.replicas_within);
  if (job.exclusive_level) w.field("exclusive_level", *job.exclusive_level);
  w.field("priority", static_cast<long long>(job.priority));
  if (!job.priority_class.empty()) w.field("priority_class", job.priority_class);
  if (!job.queue.empty()) w.field("queue", job.queue);
  if (!job.tenant.empty()) w.field("tenant", job.tenant);
  if (!job.accelerator_model.empty()) w.field("model", job.accelerator_model);
  if (job.exclusive && !job.nodes) w.field("exclusive", true);
  if (job.shape != ChainShape::none) w.field("shape", std::string(chain_shape_name(job.shape)));
  if (job.deterministic) w.field("deterministic", true);
  if (job.spare) w.field("spare", *job.spare);
  if (!job.perf_class.empty()) w.field("perf_class", job.perf_class);
  if (svc) {
    if (svc->availability)
      w.key("availability").begin_object().field("level", svc->availability->level)
          .field("survive", svc->availability->survive).field("min_slices", svc->availability->min_slices).end_object();
    if (svc->ttft_ms || svc->tpot_ms) {
      w.key("slo").begin_object();
      if (svc->ttft_ms) w.field("ttft_ms", *svc->ttft_ms);
      if (svc->tpot_ms) w.field("tpot_ms", *svc->tpot_ms);
      w.end_object();
    }
    if (svc->isolation != Isolation::none) w.field("isolation", std::string(isolation_name(svc->isolation)));
    if (svc->kv_level || !svc->kv_same_host) {
      w.key("kv_transfer").begin_object();
      if (svc->kv_level)
        w.field("level", *svc->kv_level).field("enforcement", svc->kv_required ? "required" : "preferred");
      if (!svc->kv_same_host) w.field("same_host", false);
      w.end_object();
    }
  }
  // The workload goes along, so that evaluate, --occupied and cost --plan
  // price a plan's jobs as the manifest described them.
  const JobWorkload& wl = job.workload;
  const JobWorkload defaults;
  bool any = wl.parameters > 0 || wl.bytes_per_parameter != defaults.bytes_per_parameter || wl.gradient_bytes > 0 ||
             wl.sharded || wl.activation_bytes > 0 || wl.layers || wl.micro_batches || wl.expert_bytes > 0 ||
             wl.expert_combine_bytes > 0 || wl.moe_layers || wl.ep_kernel != EpKernel::nccl ||
             wl.ep_message_bytes > 0 || wl.compute_seconds > 0;
  const ServiceWorkload sdefaults;
  const ServiceWorkload& sw = svc ? svc->workload : sdefaults;
  const bool serving = sw.kv_bytes_per_token > 0 || sw.kv_heads || sw.head_dim || sw.kv_latent ||
                       sw.kv_bytes_per_element != sdefaults.kv_bytes_per_element || sw.hidden ||
                       sw.expert_parameters > 0 || sw.experts_per_token || sw.prompt_tokens || sw.output_tokens ||
                       sw.batch != sdefaults.batch || sw.tokens_in_flight > 0 || sw.activation_bytes > 0 ||
                       sw.active_parameters > 0 || sw.prefill_efficiency > 0 || sw.decode_efficiency > 0;
  if (!any && !serving) return;
  auto whole = [](double v) { return static_cast<long long>(std::llround(v)); };
  w.key("workload").begin_object();
  if (wl.parameters > 0) w.field("parameters", whole(wl.parameters));
  if (wl.bytes_per_parameter != defaults.bytes_per_parameter) {
    const char* name = wl.bytes_per_parameter >= 4 ? "fp32" : wl.bytes_per_parameter >= 2 ? "bf16"
                       : wl.bytes_per_parameter >= 1 ? "fp8" : "fp4";
    w.field("precision", name);
  }
  if (wl.gradient_bytes > 0) w.field("gradient_bytes", whole(wl.gradient_bytes));
  if (wl.sharded) w.field("sharded", true);
  if (wl.activation_bytes > 0) w.field("activation_bytes", whole(wl.activation_bytes));
  if (wl.layers) w.field("layers", static_cast<long long>(wl.layers));
  if (wl.micro_batches) w.field("micro_batches", static_cast<long long>(wl.micro_batches));
  if (wl.expert_bytes > 0) w.field("expert_bytes", whole(wl.expert_bytes));
  if (wl.expert_combine_bytes > 0) w.field("expert_combine_bytes", whole(wl.expert_combine_bytes));
  if (wl.moe_layers) w.field("moe_layers", static_cast<long long>(wl.moe_layers));
  if (wl.ep_kernel != EpKernel::nccl) w.field("ep_kernel", std::string(ep_kernel_name(wl.ep_kernel)));
  if (wl.ep_message_bytes > 0) w.field("ep_message_bytes", static_cast<long long>(wl.ep_message_bytes));
  if (wl.compute_seconds > 0) w.field("compute_seconds", wl.compute_seconds);
  if (sw.kv_bytes_per_token > 0) w.field("kv_bytes_per_token", whole(sw.kv_bytes_per_token));
  if (sw.kv_heads) w.field("kv_heads", sw.kv_heads);
  if (sw.head_dim) w.field("head_dim", sw.head_dim);
  if (sw.kv_latent) w.field("kv_latent", sw.kv_latent);
  if (sw.kv_bytes_per_element != sdefaults.kv_bytes_per_element)
    w.field("kv_precision", sw.kv_bytes_per_element >= 4 ? "fp32" : sw.kv_bytes_per_element >= 2 ? "bf16" : "fp8");
  if (sw.hidden) w.field("hidden", sw.hidden);
  if (sw.expert_parameters > 0) w.field("expert_parameters", whole(sw.expert_parameters));
  if (sw.experts_per_token) w.field("experts_per_token", sw.experts_per_token);
  if (sw.prompt_tokens) w.field("prompt_tokens", sw.prompt_tokens);
  if (sw.output_tokens) w.field("output_tokens", sw.output_tokens);
  if (sw.batch != sdefaults.batch) w.field("batch", sw.batch);
  if (sw.tokens_in_flight > 0) w.field("tokens_in_flight", whole(sw.tokens_in_flight));
  if (sw.activation_bytes > 0) w.field("activation_memory", whole(sw.activation_bytes));
  if (sw.active_parameters > 0) w.field("active_parameters", whole(sw.active_parameters));
  if (sw.prefill_efficiency > 0) w.field("prefill_efficiency", sw.prefill_efficiency);
  if (sw.decode_efficiency > 0) w.field("decode_efficiency", sw.decode_efficiency);
  w.end_object();
}

}  // namespace

void write_plan_json(std::ostream& out, const Topology& t, const Plan& plan) {
  JsonWriter j(out);
  write_plan_json(j, t, plan);
}

void write_plan_json(JsonWriter& j, const Topology& t, const Plan& plan) {
  const bool speeds_vary = has_speed_variation(t);
  const std::unique_ptr<CostModel> service_costs = service_cost_model(t, plan);
  j.begin_object();
  j.field("topology", plan.topology).field("policy", plan.policy);
  j.key("jobs").begin_array();
  const std::uint32_t node_size = typical_node_accelerators(t);
  for (std::size_t i = 0; i < plan.jobs.size(); ++i) {
    const Job& job = plan.jobs[i];
    const JobPlacement& p = plan.placements[i];
    j.begin_object().field("name", job.name).field("placed", p.placed);
    j.key("job").begin_object();
    write_job_spec(j, job, p, node_size);
    j.end_object();
    Span span = span_of(t, p);
    j.key("devices").begin_array();
    for (const auto& replica : p.replicas)
      for (DeviceId d : replica) j.value(t.device_name(d));
    j.end_array();
    if (p.replicas.size() > 1) {
      j.key("replica_devices").begin_array();
      for (const auto& replica : p.replicas) {
        j.begin_array();
        for (DeviceId d : replica) j.value(t.device_name(d));
        j.end_array();
      }
      j.end_array();
    }
    j.key("nodes").begin_array();
    for (DomainId n : span.nodes) j.value(t.hostname(n));
    j.end_array();
    if (job.shape != ChainShape::none && p.placed) {
      write_chain_json(j, t, job, p.replicas.front());
      if (p.replicas.size() > 1) {
        j.key("replica_chains").begin_array();
        for (const auto& replica : p.replicas) {
          j.begin_object();
          write_chain_json(j, t, job, replica);
          j.end_object();
        }
        j.end_array();
      }
      j.key("spare_nodes").begin_array();
      for (DomainId n : p.spares) j.value(t.hostname(n));
      j.end_array();
    }
    if (!p.pods.empty()) {
      j.key("pods").begin_array();
      for (const JobPlacement::NodePods& n : p.pods)
        j.begin_object().field("pod_set", n.pod_set).field("group", n.group + 1).field("node", std::string(t.hostname(n.node)))
            .field("pods", n.pods).end_object();
      j.end_array();
    }
    j.key("domains").begin_object();
    for (LevelIndex l = 1; l <= t.host_level(); ++l) {
      j.key(t.levels()[l].name).begin_array();
      for (DomainId d : span.domains[l]) j.value(t.domain_name(d));
      j.end_array();
    }
    j.end_object();
    if (speeds_vary && p.placed) {
      const JobSpeed speed = job_speed(t, job, p);
      j.field("slowest_speed", speed.slowest_speed, 4).field("straggler_loss", speed.straggler_loss, 4);
    }
    j.key("cost").begin_object();
    j.key("step_seconds");
    if (p.step_seconds < 0) j.null(); else j.value(p.step_seconds, 9);
    j.key("shared_step_seconds");
    if (p.shared_step_seconds < 0) j.null(); else j.value(p.shared_step_seconds, 9);
    if (p.breakdown) {
      j.field("outside_seconds", p.breakdown->outside_seconds(), 9);
      j.key("breakdown");
      write_step_parts_json(j, t, *p.breakdown);
    }
    j.end_object();
    if (!p.placed) {
      j.field("reason", p.reason);
      if (!p.suggestion.empty()) j.field("suggestion", p.suggestion);
    }
    if (job.service && p.placed) {
      j.key("service").begin_object();
      write_service_json(j, t, *job.service, service_report(t, plan, i, service_costs.get()));
      j.end_object();
    }
    j.key("problems").begin_array();
    for (const std::string& problem : p.problems) j.value(problem);
    j.end_array();
    j.end_object();
  }
  j.end_array();
  const PlanSummary& s = plan.summary;
  j.key("summary").begin_object();
  j.field("jobs", s.jobs).field("placed", s.placed).field("unplaced", s.unplaced);
  j.field("accelerators", s.accelerators).field("accelerators_used", s.accelerators_used);
  j.field("accelerators_occupied", s.accelerators_occupied).field("accelerators_free", s.accelerators_free);
  j.field("accelerators_unavailable", s.accelerators_unavailable);
  j.field("accelerators_down_used", s.accelerators_down_used).field("jobs_on_down", s.jobs_on_down);
  j.field("step_seconds_total", s.step_seconds_total, 9);
  j.key("largest_free").begin_object();
  for (std::size_t l = 1; l < s.levels.size(); ++l) j.field(s.levels[l].level, s.levels[l].largest_free);
  j.end_object();
  j.key("free_domains").begin_object();
  for (std::size_t l = 1; l < s.levels.size(); ++l) j.field(s.levels[l].level, s.levels[l].free_domains);
  j.end_object();
  j.end_object();
  j.end_object();
}

namespace {

// A minimal YAML emitter with the JsonWriter's interface, for write_job_spec.
class YamlMap {
 public:
  YamlMap(std::ostream& out, int indent) : out_(out), indent_(indent) {}
  YamlMap& key(std::string_view k) {
    pending_ = std::string(k);
    return *this;
  }
  template <typename T>
  YamlMap& field(std::string_view k, const T& v) {
    fmt::print(out_, "{:{}}{}: {}\n", "", indent_, k, scalar(v));
    return *this;
  }
  // Objects nest inline: `roles: {prefill: {replicas: 2}}`.
  YamlMap& begin_object() {
    if (first_.empty()) {
      fmt::print(out_, "{:{}}{}: {{", "", indent_, pending_);
    } else {
      fmt::print(out_, "{}{}: {{", first_.back() ? "" : ", ", scalar_key(pending_));
      first_.back() = false;
    }
    first_.push_back(true);
    return *this;
  }
  YamlMap& end_object() {
    first_.pop_back();
    out_ << (first_.empty() ? "}\n" : "}");
    return *this;
  }
  // A role name as a key: plain when it is a simple word, else quoted.
  static std::string scalar_key(std::string_view k) {
    bool plain = !k.empty();
    for (char c : k) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
    return plain ? std::string(k) : quote(k);
  }

  /// A number already formatted, written unquoted.
  struct Number {
    std::string text;
  };
  static std::string scalar(const Number& v) { return v.text; }
  static std::string scalar(bool v) { return v ? "true" : "false"; }
  static std::string scalar(const std::string& v) { return quote(v); }
  static std::string scalar(const char* v) { return quote(v); }
  template <typename T>
  static std::string scalar(const T& v) {
    return fmt::format("{}", v);
  }
  static std::string quote(std::string_view v) {
    std::string out = "\"";
    for (char c : v) {
      if (c == '"' || c == '\\') out += '\\';
      if (static_cast<unsigned char>(c) < 0x20) {
        out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        continue;
      }
      out += c;
    }
    return out + "\"";
  }

 private:
  friend class YamlInline;
  std::ostream& out_;
  int indent_;
  std::string pending_;
  std::vector<bool> first_;  // per open inline object: nothing written in it yet

 public:
  // Inside {...}: fields are written inline.
  template <typename T>
  YamlMap& inline_field(std::string_view k, const T& v) {
    fmt::print(out_, "{}{}: {}", first_.back() ? "" : ", ", scalar_key(k), scalar(v));
    first_.back() = false;
    return *this;
  }
};

// Adapter so write_job_spec can write `parallelism: {tp: .., ...}` inline.
class YamlSpec {
 public:
  explicit YamlSpec(YamlMap& map) : map_(map) {}
  YamlSpec& key(std::string_view k) {
    map_.key(k);
    return *this;
  }
  template <typename T>
  YamlSpec& field(std::string_view k, const T& v) {
    if (depth_ > 0)
      map_.inline_field(k, v);
    else
      map_.field(k, v);
    return *this;
  }
  YamlSpec& begin_object() {
    map_.begin_object();
    ++depth_;
    return *this;
  }
  YamlSpec& end_object() {
    map_.end_object();
    --depth_;
    return *this;
  }

 private:
  YamlMap& map_;
  int depth_ = 0;
};

void yaml_list(std::ostream& out, int indent, std::string_view key, const std::vector<std::string>& items) {
  fmt::print(out, "{:{}}{}: [", "", indent, key);
  for (std::size_t i = 0; i < items.size(); ++i) fmt::print(out, "{}{}", i ? ", " : "", YamlMap::quote(items[i]));
  fmt::print(out, "]\n");
}

}  // namespace

void write_plan_yaml(std::ostream& out, const Topology& t, const Plan& plan) {
  write_plan_yaml_header(out, plan);
  write_plan_yaml_entries(out, t, plan, 0, plan.jobs.size());
}

void write_plan_yaml_header(std::ostream& out, const Plan& plan) {
  fmt::print(out, "# topoplan plan: read back with 'topoplan evaluate TOPO PLAN' or '--occupied PLAN'\n");
  fmt::print(out, "topology: {}\npolicy: {}\njobs:\n", YamlMap::quote(plan.topology), YamlMap::quote(plan.policy));
}

void write_plan_yaml_entries(std::ostream& out, const Topology& t, const Plan& plan, std::size_t first,
                             std::size_t last) {
  const std::uint32_t node_size = typical_node_accelerators(t);
  for (std::size_t i = first; i < std::min(last, plan.jobs.size()); ++i) {
    const Job& job = plan.jobs[i];
    const JobPlacement& p = plan.placements[i];
    fmt::print(out, "  - name: {}\n", YamlMap::quote(job.name));
    YamlMap map(out, 4);
    YamlSpec spec(map);
    write_job_spec(spec, job, p, node_size);
    map.field("placed", p.placed);
    if (p.replicas.size() > 1) {
      fmt::print(out, "    replica_devices:\n");
      for (const auto& replica : p.replicas) {
        // A shaped job's chips stay in pipeline order.
        if (job.shape != ChainShape::none) {
          fmt::print(out, "      - [");
          std::vector<std::string> names = device_names(t, replica);
          for (std::size_t k = 0; k < names.size(); ++k) fmt::print(out, "{}{}", k ? ", " : "", YamlMap::quote(names[k]));
          fmt::print(out, "]\n");
        } else {
          fmt::print(out, "      - {}\n", YamlMap::quote(compress_hostlist(device_names(t, replica))));
        }
      }
    } else if (p.placed && job.shape != ChainShape::none) {
      yaml_list(out, 4, "devices", device_names(t, p.replicas.front()));
    } else if (p.placed) {
      map.field("devices", compress_hostlist(device_names(t, p.replicas.front())));
    }
    if (p.placed) {
      Span span = span_of(t, p);
      std::vector<std::string> nodes;
      for (DomainId n : span.nodes) nodes.emplace_back(t.hostname(n));
      yaml_list(out, 4, "hosts", {compress_hostlist(nodes)});
      if (!p.spares.empty()) {
        std::vector<std::string> spares;
        for (DomainId n : p.spares) spares.emplace_back(t.hostname(n));
        yaml_list(out, 4, "spare_nodes", spares);
      }
      if (!p.pods.empty()) {
        fmt::print(out, "    pods:\n");
        for (const auto& [set, on] : pods_by_set(t, p)) {
          std::vector<std::string> counts;
          for (const auto& [host, n] : on) counts.push_back(fmt::format("{}: {}", YamlMap::quote(host), n));
          fmt::print(out, "      {}: {{{}}}\n", YamlMap::quote(set), fmt::join(counts, ", "));
        }
      }
      if (p.shared_step_seconds >= 0)
        map.field("step_seconds", YamlMap::Number{format_number(p.shared_step_seconds, 9)});
    } else {
      map.field("reason", p.reason);
      if (!p.suggestion.empty()) map.field("suggestion", p.suggestion);
    }
  }
}

// ---------------------------------------------------------------------------

namespace {

// Keys of a plan entry besides the job's own. With the job under `job:`
// (topoplan's JSON), `nodes` lists hostnames as well; inline, `nodes` is the
// job's whole-node count and hostnames go under `hosts`. `pods` (what a
// policy that places pods assigned) is for the reader's eyes: the devices
// say what a plan takes.
const std::vector<std::string_view> kPlanEntryKeys = {
    "job", "placed", "devices", "hosts", "replica_devices", "pods", "reason", "suggestion", "cost", "step_seconds",
    "domains", "problems", "service",
    // What plans report about shapes and speeds, for the reader's eyes too:
    // the devices' order is the chain, the topology holds the speeds.
    "chain", "hops", "path_latency_us", "connected", "uniform", "replica_chains", "spare_nodes", "slowest_speed",
    "straggler_loss"};

class PlanReader {
 public:
  PlanReader(const std::string& file, DiagnosticSink& sink, const Topology& t)
      : file_(file), sink_(sink), t_(t), index_(t) {}

  void read(const yaml::Node& root, Plan& plan);

 private:
  // Devices a list or hostlist names: device names, or hostnames meaning all
  // of the node's accelerators.
  std::vector<DeviceId> devices(const yaml::Node& node, bool nodes_only);
  void entry(const yaml::Node& node, Plan& plan);

  const std::string& file_;
  DiagnosticSink& sink_;
  const Topology& t_;
  TopologyIndex index_;
  std::set<DeviceId> listed_;  // the accelerators of the entry being read, for repeats
};

std::vector<DeviceId> PlanReader::devices(const yaml::Node& node, bool nodes_only) {
  // Each name with the list item it came from (its text and position).
  struct Name {
    std::string name;
    std::size_t item;
  };
  std::vector<Name> names;
  std::vector<std::pair<std::string, SourceLocation>> items;
  auto add_list = [&](const yaml::Node& item) {
    auto text = yaml::scalar(item, file_, sink_, "a device list");
    if (!text) return;
    HostlistExpansion e = expand_hostlist(*text, TopologyLimits::max_devices);  // no topology has more
    if (!e.ok()) {
      sink_.error(yaml::where(file_, item), fmt::format("in '{}': {}", *text, e.error));
      return;
    }
    items.emplace_back(*text, yaml::where(file_, item));
    for (std::string& n : e.names) names.push_back({std::move(n), items.size() - 1});
  };
  if (node.IsSequence())
    for (const yaml::Node& item : node) add_list(item);
  else
    add_list(node);
  std::vector<DeviceId> out;
  // Unknown names and repeats per item: the first is reported, with how
  // many more. A rank list names each accelerator once: a repeat is reported
  // here, where it was written, rather than by the pricing of the plan.
  std::vector<std::pair<std::string, std::size_t>> unknown(items.size());
  std::vector<std::pair<std::string, std::size_t>> repeated(items.size());
  auto add = [&](DeviceId d, std::size_t item) {
    if (!listed_.insert(d).second) {
      if (repeated[item].second++ == 0) repeated[item].first = t_.device_name(d);
      return;
    }
    out.push_back(d);
  };
  for (const auto& [name, item] : names) {
    const SourceLocation& where = items[item].second;
    if (!nodes_only) {
      if (auto d = index_.find_device(name)) {
        if (!is_accelerator(t_.device(*d).kind))
          sink_.error(where, fmt::format("'{}' is a {}, not an accelerator", name, kind_name(t_.device(*d).kind)));
        else
          add(*d, item);
        continue;
      }
    }
    auto domain = index_.find_domain(name);
    if (domain && t_.domain(*domain).level == t_.host_level()) {
      const Domain& n = t_.domain(*domain);
      for (std::uint32_t a = n.accel_begin; a < n.accel_end; ++a) add(t_.accelerators()[a], item);
      continue;
    }
    if (unknown[item].second++ == 0) unknown[item].first = name;
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (auto [first, count] = unknown[i]; count > 0) {
      std::string more = count == 1 ? "" : fmt::format(" (and {} more of '{}')", count - 1, items[i].first);
      sink_.error(items[i].second, fmt::format("'{}' is not {} of topology '{}'{}", first,
                                               nodes_only ? "a node" : "an accelerator or node", t_.name(), more));
    }
    if (auto [first, count] = repeated[i]; count > 0) {
      std::string more = count == 1 ? "" : fmt::format(" (and {} more)", count - 1);
      sink_.error(items[i].second, fmt::format("'{}' in '{}' is listed twice in this entry's devices{}", first,
                                               items[i].first, more));
    }
  }
  return out;
}

void PlanReader::entry(const yaml::Node& node, Plan& plan) {
  if (!node.IsMap()) {
    sink_.error(yaml::where(file_, node), "a plan entry must be a mapping with 'name' and 'devices' or 'nodes'");
    return;
  }
  JobReader reader(file_, sink_);
  std::size_t before = sink_.size();
  // The job's keys may sit beside the placement or under `job:`.
  std::optional<Job> job;
  if (node["job"].IsDefined()) {
    yaml::Node spec = node["job"];
    yaml::MapReader outer(node, file_, sink_, "a plan entry");
    std::vector<std::string_view> keys = kPlanEntryKeys;
    keys.push_back("name");
    keys.push_back("nodes");
    outer.allow(keys);
    job = reader.read(spec, {}, true, node["name"]);
    // The job is where its entry is.
    if (job) job->where = yaml::where(file_, node);
  } else {
    job = reader.read(node, kPlanEntryKeys, true);
  }
  if (!job || sink_.size() != before) return;

  JobPlacement p;
  listed_.clear();
  bool placed = true;
  if (node["placed"].IsDefined()) {
    auto text = yaml::scalar(node["placed"], file_, sink_, "'placed'");
    if (text && *text != "true" && *text != "false")
      sink_.error(yaml::where(file_, node["placed"]), fmt::format("'placed' is true or false, not '{}'", *text));
    placed = text && *text == "true";
  }
  // topoplan's own plans list devices and, for reading, their hosts; the
  // most precise of replica_devices, devices, hosts wins.
  const char* hosts_key = !node["hosts"].IsDefined() && node["job"].IsDefined() ? "nodes" : "hosts";
  const yaml::Node hosts = node[hosts_key];
  bool given = node["devices"].IsDefined() || hosts.IsDefined() || node["replica_devices"].IsDefined();
  if (placed && !given) {
    sink_.error(yaml::where(file_, node),
                fmt::format("plan entry '{}' needs 'devices', 'hosts' or 'replica_devices'", job->name));
    return;
  }
  if (node["replica_devices"].IsDefined()) {
    if (!node["replica_devices"].IsSequence()) {
      sink_.error(yaml::where(file_, node["replica_devices"]), "'replica_devices' must be a list of device lists");
      return;
    }
    for (const yaml::Node& r : node["replica_devices"]) p.replicas.push_back(devices(r, false));
  } else if (node["devices"].IsDefined()) {
    p.replicas.push_back(devices(node["devices"], false));
  } else if (hosts.IsDefined()) {
    p.replicas.push_back(devices(hosts, true));
  }
  if (sink_.size() != before) return;
  // (An entry that is not placed may list no devices, as topoplan's JSON does.)
  for (const std::vector<DeviceId>& replica : p.replicas)
    if (placed && replica.empty()) {
      sink_.error(yaml::where(file_, node), fmt::format("plan entry '{}' lists no accelerator", job->name));
      return;
    }
  p.placed = placed && !p.replicas.empty();
  if (!p.placed) p.replicas.clear();
  // Only devices can size an entry that does not give its size; one that is
  // not placed has none, and would be written back as a job of 0 GPUs.
  if (!p.placed && job->per_replica == 0 && !job->nodes && !job->service) {
    sink_.error(yaml::where(file_, node),
                fmt::format("plan entry '{}' is not placed and gives no size: give gpus, nodes, or replicas and "
                            "gpus_per_replica",
                            job->name));
    return;
  }
  // A shaped job's spare nodes stay its own (--occupied keeps them free).
  if (p.placed && node["spare_nodes"].IsDefined()) {
    for (DeviceId d : devices(node["spare_nodes"], true)) {
      const DomainId host = t_.device(d).domain;
      if (std::find(p.spares.begin(), p.spares.end(), host) == p.spares.end()) p.spares.push_back(host);
    }
    if (sink_.size() != before) return;
  }
  // A const node's missing key is invalid: IsScalar() on it would throw.
  const yaml::Node reason = node["reason"];
  if (!p.placed) p.reason = reason.IsDefined() && reason.IsScalar() ? reason.Scalar() : "not placed in this plan";
  // Sizes follow the devices where the entry does not give them.
  if (p.placed) {
    job->replicas = static_cast<std::uint32_t>(p.replicas.size());
    auto per = static_cast<std::uint32_t>(p.replicas.front().size());
    if (job->per_replica == 0 && !job->nodes) {
      job->per_replica = per;
      if (job->parallelism.ranks() == 1) job->parallelism.dp = per;
    }
    if (job->nodes) job->per_replica = per;
  }
  plan.jobs.push_back(std::move(*job));
  plan.placements.push_back(std::move(p));
}

void PlanReader::read(const yaml::Node& root, Plan& plan) {
  yaml::MapReader m(root, file_, sink_, "a plan");
  m.allow({"topology", "policy", "jobs", "summary"});
  if (!m.ok()) return;
  plan.topology = m.string("topology").value_or("");
  plan.policy = m.string("policy").value_or("given");
  yaml::Node jobs = m.get("jobs");
  if (!jobs.IsDefined() || !jobs.IsSequence()) {
    sink_.error(jobs.IsDefined() ? yaml::where(file_, jobs) : m.where(), "a plan needs 'jobs:', a list of entries");
    return;
  }
  std::set<std::string> names;
  for (const yaml::Node& item : jobs) {
    std::size_t before = plan.jobs.size();
    entry(item, plan);
    if (plan.jobs.size() > before && !names.insert(plan.jobs.back().name).second)
      sink_.error(yaml::where(file_, item), fmt::format("job name '{}' is used twice", plan.jobs.back().name));
  }
}

}  // namespace

bool is_plan_yaml(std::string_view text) {
  try {
    std::vector<yaml::Node> documents = yaml::Document::parse(text);
    if (documents.size() != 1) return false;
    yaml::Node jobs = documents.front()["jobs"];
    for (const yaml::Node& entry : jobs)
      for (const char* key : {"devices", "hosts", "replica_devices", "placed"})
        if (entry[key].IsDefined()) return true;
  } catch (const yaml::Document::ParseError&) {
  }
  return false;
}

struct PlanDocument::State {
  std::string file;
  yaml::Node root;
  std::exception_ptr error;  // the YAML did not parse
};

PlanDocument::PlanDocument(std::string_view text, std::string file) : state_(std::make_unique<State>()) {
  state_->file = std::move(file);
  try {
    state_->root = yaml::parse(text, state_->file, FileKind::plan);
  } catch (const InputError&) {
    state_->error = std::current_exception();
  }
}

PlanDocument::PlanDocument(PlanDocument&&) noexcept = default;
PlanDocument& PlanDocument::operator=(PlanDocument&&) noexcept = default;
PlanDocument::~PlanDocument() = default;

Plan parse_plan_yaml(const PlanDocument& document, const Topology& topology) {
  const PlanDocument::State& s = *document.state_;
  if (s.error) std::rethrow_exception(s.error);
  DiagnosticSink sink;
  Plan plan;
  PlanReader(s.file, sink, topology).read(s.root, plan);
  for (const Job& job : plan.jobs) check_job_levels(topology, job, sink);
  sink.throw_if_any();
  return plan;
}

Plan parse_plan_yaml(std::string_view text, const std::string& file, const Topology& topology) {
  return parse_plan_yaml(PlanDocument(text, file), topology);
}

}  // namespace topoplan
