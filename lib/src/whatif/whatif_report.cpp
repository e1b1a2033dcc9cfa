#include "topoplan/whatif/whatif_report.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/io/hostlist.hpp"
#include "topoplan/placement/chain_path.hpp"
#include "topoplan/placement/placement_check.hpp"
#include "topoplan/placement/plan_io.hpp"
#include "topoplan/support/json_writer.hpp"

namespace topoplan {

namespace {

// --- shared pieces ---------------------------------------------------------

std::string accel_noun(const Topology& t, std::uint64_t n) {
  bool lpu = !t.accelerators().empty() && t.device(t.accelerators()[0]).kind == DeviceKind::lpu;
  return fmt::format("{}{}", lpu ? "LPU" : "GPU", n == 1 ? "" : "s");
}

std::string accels(const Topology& t, std::uint64_t n) { return fmt::format("{} {}", n, accel_noun(t, n)); }

std::string seconds_text(double s) {
  if (s < 0 || !std::isfinite(s)) return "-";
  if (s >= 1) return fmt::format("{:.3f} s", s);
  if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.1f} us", s * 1e6);
}

std::string change_text(double before, double after) {
  std::string text = fmt::format("{} -> {}", seconds_text(before), seconds_text(after));
  if (before > 0 && after >= 0 && std::isfinite(after)) {
    double pct = (after / before - 1) * 100;
    if (pct >= 0.05 || pct <= -0.05) text += fmt::format(" ({:+.1f}%)", pct);
  }
  return text;
}

// "su 576, rack 72, node 72" for the levels below the root.
template <typename T>
std::string per_level(const Topology& t, const std::vector<T>& values) {
  std::vector<std::string> parts;
  for (LevelIndex l = 1; l < values.size() && l <= t.host_level(); ++l)
    parts.push_back(fmt::format("{} {}", t.levels()[l].name, values[l]));
  return fmt::format("{}", fmt::join(parts, ", "));
}

template <typename T>
void per_level_json(JsonWriter& j, const Topology& t, std::string_view key, const std::vector<T>& values) {
  j.key(key).begin_object();
  for (LevelIndex l = 1; l < values.size() && l <= t.host_level(); ++l) j.field(t.levels()[l].name, values[l]);
  j.end_object();
}

std::string hosts_of(const Topology& t, const std::vector<DeviceId>& devices) {
  std::vector<std::string> hosts;
  for (DeviceId d : devices) {
    std::string h(t.hostname(t.device(d).domain));
    if (hosts.empty() || hosts.back() != h) hosts.push_back(std::move(h));
  }
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  return compress_hostlist(hosts);
}

std::string names_of(const Topology& t, const std::vector<DeviceId>& devices) {
  std::vector<std::string> names;
  for (DeviceId d : devices) names.push_back(t.device_name(d));
  return compress_hostlist(names);
}

std::string job_line(const Topology& t, const Job& job, const JobPlacement* p) {
  std::string size;
  if (job.replicas > 1)
    size = fmt::format("{} x {}", job.replicas, accels(t, job.per_replica));
  else if (job.nodes)
    size = fmt::format("{} whole node{}", job.nodes, job.nodes == 1 ? "" : "s");
  else
    size = accels(t, p && p->placed ? p->device_count() : job.per_replica);
  std::string out = fmt::format("{}, {}", job.kind == JobKind::training ? "training" : "inference", size);
  if (job.replicas > 1) out += fmt::format(", needs {}", job.needed_replicas());
  return out + fmt::format(", priority {}", job.priority);
}

void summary_lines(std::ostream& out, const Topology& t, const Plan& plan) {
  const PlanSummary& s = plan.summary;
  fmt::print(out, "{} of {} jobs placed; {} of {} used, {} free", s.placed, s.jobs, s.accelerators_used,
             accels(t, s.accelerators), s.accelerators_free);
  if (s.accelerators_unavailable) fmt::print(out, ", {} down or draining", s.accelerators_unavailable);
  std::vector<std::uint32_t> largest;
  for (const LevelFree& lf : s.levels) largest.push_back(lf.largest_free);
  fmt::print(out, "\nlargest free island: {}\n", per_level(t, largest));
}

void job_spec_json(JsonWriter& j, const Topology& t, const Job& job) {
  j.key("job").begin_object();
  j.field("name", job.name).field("kind", job.kind == JobKind::training ? "training" : "inference");
  if (job.nodes) j.field("nodes", job.nodes);
  j.field("replicas", job.replicas).field("per_replica", job.per_replica);
  if (job.replicas > 1) j.field("min_replicas", job.needed_replicas());
  if (job.required) j.field("required", *job.required);
  if (job.spread) j.field("spread", *job.spread);
  j.field("priority", static_cast<long long>(job.priority));
  (void)t;
  j.end_object();
}

// --- fail and drain ----------------------------------------------------------

const char* verb(ScenarioKind kind) { return kind == ScenarioKind::fail ? "fail" : "drain"; }
const char* state_word(ScenarioKind kind) { return kind == ScenarioKind::fail ? "down" : "drained"; }

// "replica 2: 8 GPUs down (r0003-n[00-01]); nvswitch su000/r0003/nvsw4 down; 36 links out"
std::string impact_text(const Topology& t, const Job& job, const ReplicaImpact& r, ScenarioKind kind) {
  std::vector<std::string> parts;
  if (!r.lost.empty()) parts.push_back(fmt::format("{} {} ({})", accels(t, r.lost.size()), state_word(kind), hosts_of(t, r.lost)));
  std::map<DeviceKind, std::vector<DeviceId>> by_kind;
  for (DeviceId d : r.devices) by_kind[t.device(d).kind].push_back(d);
  for (const auto& [k, devices] : by_kind) parts.push_back(fmt::format("{} {} {}", kind_name(k), names_of(t, devices), state_word(kind)));
  if (!r.links.empty()) parts.push_back(fmt::format("{} link{} out", r.links.size(), r.links.size() == 1 ? "" : "s"));
  if (r.broken && job.shape != ChainShape::none)
    parts.push_back(fmt::format("its {} is cut", chain_shape_name(job.shape)));
  else if (r.broken)
    parts.push_back(fmt::format("its {} no longer reach each other", accel_noun(t, 2)));
  std::string text = fmt::format("{}", fmt::join(parts, "; "));
  return job.replicas > 1 || r.replica > 0 ? fmt::format("replica {}: {}", r.replica, text) : text;
}

std::string replica_indices(const std::vector<std::uint32_t>& rs) {
  std::vector<std::string> parts;
  for (std::uint32_t r : rs) parts.push_back(std::to_string(r));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

void write_scenario_text(std::ostream& out, const Topology& t, const ScenarioResult& r) {
  std::vector<std::string> targets;
  for (const Target& target : r.targets) targets.push_back(target_text(t, target));
  fmt::print(out, "what if: {} {}\n", verb(r.kind), fmt::join(targets, ", "));
  fmt::print(out, "re-planned with policy {}{}\n\n", r.policy,
             r.fabric_changed ? ", priced on what is left of the fabric" : "");
  const BlastRadius& b = r.radius;
  std::size_t moving = 0, degraded = 0;
  for (const JobImpact& j : b.jobs) (j.must_move() ? moving : degraded) += 1;
  fmt::print(out, "blast radius\n");
  fmt::print(out, "  {:<22}{}\n", fmt::format("{} {}", accel_noun(t, 2), state_word(r.kind)), b.accelerators_lost);
  fmt::print(out, "  {:<22}{} (in domains no longer whole)\n", "capacity lost", per_level(t, b.capacity_lost));
  fmt::print(out, "  {:<22}{} (once the jobs hit stop)\n", "largest free island", per_level(t, b.largest_free));
  fmt::print(out, "  {:<22}{} ({} must move, {} degraded)\n", "jobs hit", b.jobs.size(), moving, degraded);
  std::vector<std::string> below;
  for (const JobImpact& j : b.jobs)
    if (r.before.jobs[j.job].kind == JobKind::inference && j.guarantee_broken())
      below.push_back(fmt::format("{} ({} of {} replicas left, needs {})", r.before.jobs[j.job].name, j.replicas_left,
                                  r.before.placements[j.job].replicas.size(), j.replicas_needed));
  if (!below.empty()) fmt::print(out, "  {:<22}{}\n", "guarantee broken", fmt::join(below, ", "));

  for (std::size_t i = 0; i < b.jobs.size(); ++i) {
    const JobImpact& impact = b.jobs[i];
    const JobChange& change = r.changes[i];
    const std::size_t j = impact.job;
    const Job& job = r.before.jobs[j];
    const JobPlacement& before = r.before.placements[j];
    const JobPlacement& after = r.after.placements[j];
    fmt::print(out, "\n{}  {}\n", job.name, job_line(t, job, &before));
    for (const ReplicaImpact& hit : impact.replicas) fmt::print(out, "  hit: {}\n", impact_text(t, job, hit, r.kind));
    if (job.shape != ChainShape::none && impact.must_move())
      fmt::print(out, "  its {} no longer holds: recompile and re-place\n", chain_shape_name(job.shape));
    if (impact.degraded()) {
      fmt::print(out, "  keeps running degraded\n");
    } else if (job.replicas > 1 || before.replicas.size() > 1) {
      for (std::size_t k = 0; k < change.moved.size(); ++k)
        fmt::print(out, "  moved: replica {} now on {}\n", change.moved[k], hosts_of(t, change.moved_to[k]));
      if (!change.stopped.empty())
        fmt::print(out, "  stopped: replica{} {}: {}\n", change.stopped.size() == 1 ? "" : "s",
                   replica_indices(change.stopped), change.reason);
      if (!change.waiting.empty())
        fmt::print(out, "  cannot move yet: replica{} {}: {}; the drain waits for {}\n",
                   change.waiting.size() == 1 ? "" : "s", replica_indices(change.waiting), change.reason,
                   change.waiting.size() == 1 ? "it" : "them");
      if (job.kind == JobKind::inference) {
        const std::uint32_t running = after.placed ? static_cast<std::uint32_t>(after.replicas.size()) : 0;
        const bool kept = running >= impact.replicas_needed;
        if (impact.guarantee_broken() || !kept)
          fmt::print(out, "  guarantee: {}; {} after the re-plan ({} of {} replicas)\n",
                     impact.guarantee_broken() ? fmt::format("broken at the {}", r.kind == ScenarioKind::fail ? "failure" : "drain") : "held",
                     kept ? "kept" : "still broken", running, before.replicas.size());
      }
    } else if (!change.moved.empty()) {
      fmt::print(out, "  moved: now on {} ({} moved)\n", hosts_of(t, change.moved_to.front()),
                 accels(t, change.accelerators_moved));
    } else {
      fmt::print(out, "  stopped: {}\n", change.reason);
    }
    if (after.placed) fmt::print(out, "  comm/step: {}\n", change_text(before.shared_step_seconds, after.shared_step_seconds));
  }
  std::uint64_t moved = 0;
  for (const JobChange& c : r.changes) moved += c.accelerators_moved;
  fmt::print(out, "\nafter the {}: ", r.kind == ScenarioKind::fail ? "re-plan" : "moves");
  summary_lines(out, t, r.after);
  fmt::print(out, "comm/step total: {}; {} moved\n",
             change_text(r.before.summary.step_seconds_total, r.after.summary.step_seconds_total), accels(t, moved));
}

void write_scenario_json(std::ostream& os, const Topology& t, const ScenarioResult& r) {
  JsonWriter j(os);
  j.begin_object();
  j.key("scenario").begin_object().field("kind", verb(r.kind));
  j.key("targets").begin_array();
  for (const Target& target : r.targets) {
    j.begin_object().field("name", target_name(t, target));
    switch (target.kind) {
      case TargetKind::device: j.field("what", kind_name(t.device(target.id).kind)); break;
      case TargetKind::link: j.field("what", "link"); break;
      case TargetKind::domain:
        j.field("what", t.levels()[t.domain(target.id).level].name)
            .field("accelerators", t.domain(target.id).accelerator_count());
        break;
    }
    j.end_object();
  }
  j.end_array().end_object();
  j.field("policy", r.policy);
  const BlastRadius& b = r.radius;
  j.field("accelerators_lost", b.accelerators_lost);
  per_level_json(j, t, "capacity_lost", b.capacity_lost);
  per_level_json(j, t, "largest_free", b.largest_free);
  j.key("affected_jobs").begin_array();
  for (const JobImpact& impact : b.jobs) j.value(r.before.jobs[impact.job].name);
  j.end_array();
  j.key("degraded_jobs").begin_array();
  for (const JobImpact& impact : b.jobs)
    if (impact.degraded()) j.value(r.before.jobs[impact.job].name);
  j.end_array();
  j.key("services_below_guarantee").begin_array();
  for (const JobImpact& impact : b.jobs)
    if (r.before.jobs[impact.job].kind == JobKind::inference && impact.guarantee_broken())
      j.value(r.before.jobs[impact.job].name);
  j.end_array();
  j.key("jobs").begin_array();
  std::uint64_t moved = 0;
  for (std::size_t i = 0; i < b.jobs.size(); ++i) {
    const JobImpact& impact = b.jobs[i];
    const JobChange& change = r.changes[i];
    const JobPlacement& before = r.before.placements[impact.job];
    const JobPlacement& after = r.after.placements[impact.job];
    moved += change.accelerators_moved;
    j.begin_object().field("name", r.before.jobs[impact.job].name);
    j.field("must_move", impact.must_move()).field("degraded", impact.degraded());
    // A shaped job's compiled schedule does not survive a move: it is recompiled.
    if (r.before.jobs[impact.job].shape != ChainShape::none) j.field("recompile", impact.must_move());
    j.key("replicas_hit").begin_array();
    for (const ReplicaImpact& hit : impact.replicas) {
      j.begin_object().field("replica", hit.replica);
      j.key("lost").begin_array();
      for (DeviceId d : hit.lost) j.value(t.device_name(d));
      j.end_array().key("devices").begin_array();
      for (DeviceId d : hit.devices) j.value(t.device_name(d));
      j.end_array().key("links").begin_array();
      for (LinkId l : hit.links) j.value(target_name(t, {TargetKind::link, l}));
      j.end_array().field("broken", hit.broken).end_object();
    }
    j.end_array();
    j.field("replicas", before.replicas.size()).field("replicas_left", impact.replicas_left);
    j.field("replicas_needed", impact.replicas_needed).field("guarantee_broken", impact.guarantee_broken());
    auto list = [&](std::string_view key, const std::vector<std::uint32_t>& rs) {
      j.key(key).begin_array();
      for (std::uint32_t x : rs) j.value(x);
      j.end_array();
    };
    list("moved", change.moved);
    list("stopped", change.stopped);
    list("waiting", change.waiting);
    if (!change.reason.empty()) j.field("reason", change.reason);
    j.field("accelerators_moved", change.accelerators_moved);
    j.field("running_after", after.placed);
    j.key("step_seconds_before");
    if (before.shared_step_seconds < 0) j.null(); else j.value(before.shared_step_seconds, 9);
    j.key("step_seconds_after");
    if (!after.placed || after.shared_step_seconds < 0) j.null(); else j.value(after.shared_step_seconds, 9);
    j.end_object();
  }
  j.end_array();
  j.key("cost").begin_object();
  j.field("step_seconds_total_before", r.before.summary.step_seconds_total, 9);
  j.field("step_seconds_total_after", r.after.summary.step_seconds_total, 9);
  j.field("accelerators_moved", moved);
  j.end_object();
  j.key("replan");
  write_plan_json(j, t, r.after);
  j.end_object();
}

// --- growth --------------------------------------------------------------------

void write_growth_text(std::ostream& out, const Topology& t, const std::string& spec, const Plan& plan,
                       const GrowthResult& r) {
  fmt::print(out, "what if: add {} ({} -> {})\n", spec, plan.topology, r.topology);
  std::vector<std::string> levels;
  for (LevelIndex l = 1; l < r.domains_after.size(); ++l)
    levels.push_back(fmt::format("{} {} -> {}", t.levels()[l].name, l < r.domains_before.size() ? r.domains_before[l] : 0,
                                 r.domains_after[l]));
  fmt::print(out, "  {} -> {}; {}\n", accels(t, r.accelerators_before), accels(t, r.accelerators_after),
             fmt::join(levels, ", "));
  fmt::print(out, "placed with policy {}\n\n", r.policy);
  if (r.now_fit.empty() && r.still_unplaced.empty()) fmt::print(out, "every job of the plan was placed already\n");
  for (std::size_t j : r.now_fit) {
    const JobPlacement& p = r.after.placements[j];
    std::vector<DeviceId> all;
    for (const auto& replica : p.replicas) all.insert(all.end(), replica.begin(), replica.end());
    fmt::print(out, "now fits: {}  {}\n  on {}; comm/step {}\n", plan.jobs[j].name, job_line(t, plan.jobs[j], &p),
               hosts_of(t, all), seconds_text(p.shared_step_seconds));
  }
  for (std::size_t j : r.still_unplaced)
    fmt::print(out, "still does not fit: {}  {}\n  reason: {}\n", plan.jobs[j].name, job_line(t, plan.jobs[j], nullptr),
               r.after.placements[j].reason);
  fmt::print(out, "\nafter: ");
  summary_lines(out, t, r.after);
}

void write_growth_json(std::ostream& os, const Topology& t, const std::string& spec, const Plan& plan,
                       const GrowthResult& r) {
  JsonWriter j(os);
  j.begin_object();
  j.key("scenario").begin_object().field("kind", "add").field("add", spec).field("topology_before", plan.topology);
  j.field("topology_after", r.topology).end_object();
  j.field("policy", r.policy);
  j.field("accelerators_before", r.accelerators_before).field("accelerators_after", r.accelerators_after);
  j.key("domains_added").begin_object();
  for (LevelIndex l = 1; l < r.domains_after.size(); ++l)
    j.field(t.levels()[l].name, r.domains_after[l] - (l < r.domains_before.size() ? r.domains_before[l] : 0));
  j.end_object();
  j.key("now_fit").begin_array();
  for (std::size_t k : r.now_fit) j.value(plan.jobs[k].name);
  j.end_array();
  j.key("still_unplaced").begin_array();
  for (std::size_t k : r.still_unplaced)
    j.begin_object().field("name", plan.jobs[k].name).field("reason", r.after.placements[k].reason).end_object();
  j.end_array();
  j.key("replan");
  write_plan_json(j, t, r.after);
  j.end_object();
}

// --- capacity ----------------------------------------------------------------

void write_capacity_text(std::ostream& out, const Topology& t, const Job& probe, const CapacityCount& c) {
  fmt::print(out, "what if: more of {}  ({})\n", probe.name, job_line(t, probe, nullptr));
  fmt::print(out, "  fits now     {}", c.fits_now);
  if (c.fits_now) fmt::print(out, " ({} taking {})", c.fits_now == 1 ? "one" : "each", accels(t, c.accelerators_each));
  fmt::print(out, "\n  {:<11}  {}\n", "", c.reason_now.empty() ? "" : "then: " + c.reason_now);
  fmt::print(out, "  fits empty   {}\n", c.fits_empty);
  if (!c.reason_empty.empty()) fmt::print(out, "  {:<11}  then: {}\n", "", c.reason_empty);
}

void write_capacity_json(std::ostream& os, const Topology& t, const Job& probe, const CapacityCount& c) {
  JsonWriter j(os);
  j.begin_object();
  j.key("scenario").begin_object().field("kind", "capacity").end_object();
  job_spec_json(j, t, probe);
  j.field("accelerators_each", c.accelerators_each);
  j.field("fits_now", c.fits_now).field("fits_empty", c.fits_empty);
  j.field("reason_now", c.reason_now).field("reason_empty", c.reason_empty);
  j.end_object();
}

// --- preemption ---------------------------------------------------------------

void write_preemption_text(std::ostream& out, const Topology& t, const PreemptionReport& r) {
  const Plan& plan = *r.plan;
  const PreemptionChoice& c = r.choice;
  const std::string& level = t.levels()[r.level].name;
  fmt::print(out, "what if: clear a {} for {}  ({})\n", level, r.job.name,
             job_line(t, r.job, r.self != kNone ? &plan.placements[r.self] : nullptr));
  if (!c.found) {
    fmt::print(out, "  no {} can take it: {}\n", level, c.reason);
    return;
  }
  if (c.preempt.empty()) {
    fmt::print(out, "  no preemption needed: it fits in {} {}\n", level, t.domain_name(c.domain));
  } else {
    fmt::print(out, "  preempt {} job{}, {} (highest priority {}) in {} {}:\n", c.preempt.size(),
               c.preempt.size() == 1 ? "" : "s", accels(t, c.accelerators_preempted), c.highest_priority, level,
               t.domain_name(c.domain));
    for (std::size_t k : c.preempt)
      fmt::print(out, "    {}  {}\n", plan.jobs[k].name, job_line(t, plan.jobs[k], &plan.placements[k]));
  }
  std::vector<DeviceId> all;
  for (const auto& replica : c.placement.replicas) all.insert(all.end(), replica.begin(), replica.end());
  const std::size_t index = r.self != kNone ? r.self : r.after.jobs.size() - 1;
  fmt::print(out, "  {} then runs on {}; comm/step {}\n", r.job.name, hosts_of(t, all),
             seconds_text(r.after.placements[index].shared_step_seconds));
  if (!c.exhaustive)
    fmt::print(out, "  (the search stopped after {} placement attempts: a cheaper set may exist)\n", c.attempts);
  fmt::print(out, "\nafter: ");
  summary_lines(out, t, r.after);
}

void write_preemption_json(std::ostream& os, const Topology& t, const PreemptionReport& r) {
  const Plan& plan = *r.plan;
  const PreemptionChoice& c = r.choice;
  JsonWriter j(os);
  j.begin_object();
  j.key("scenario").begin_object().field("kind", "clear").field("level", t.levels()[r.level].name).end_object();
  job_spec_json(j, t, r.job);
  j.field("found", c.found);
  j.key("domain");
  if (c.found) j.value(t.domain_name(c.domain)); else j.null();
  j.key("preempt").begin_array();
  for (std::size_t k : c.preempt) j.value(plan.jobs[k].name);
  j.end_array();
  j.field("accelerators_preempted", c.accelerators_preempted);
  j.key("highest_priority");
  if (c.preempt.empty()) j.null(); else j.value(static_cast<long long>(c.highest_priority));
  j.field("exhaustive", c.exhaustive).field("attempts", c.attempts);
  if (!c.found) j.field("reason", c.reason);
  j.key("replan");
  write_plan_json(j, t, r.after);
  j.end_object();
}

// --- resilience -----------------------------------------------------------------

void write_resilience_text(std::ostream& out, const Topology& t, const Plan& plan,
                           const std::vector<JobResilience>& jobs) {
  fmt::print(out, "what if: failures at each level, where the plan put every job\n");
  fmt::print(out, "S (R/N): survives S failures of the level, whichever fail; the worst single one\n"
                  "leaves R of its N replicas\n\n");
  std::size_t width = 4;
  for (const JobResilience& jr : jobs) width = std::max(width, plan.jobs[jr.job].name.size());
  width = std::min<std::size_t>(width, 40);
  fmt::print(out, "{:<{}}  {:<9}  {:>5}", "job", width, "kind", "needs");
  for (LevelIndex l = 1; l <= t.host_level(); ++l) fmt::print(out, "  {:>11}", t.levels()[l].name);
  fmt::print(out, "\n");
  for (const JobResilience& jr : jobs) {
    const Job& job = plan.jobs[jr.job];
    fmt::print(out, "{:<{}}  {:<9}  {:>5}", job.name, width, job.kind == JobKind::training ? "training" : "inference",
               fmt::format("{}/{}", jr.replicas_needed, jr.replicas));
    for (const LevelResilience& lr : jr.levels)
      fmt::print(out, "  {:>11}", fmt::format("{} ({}/{})", lr.survives, lr.replicas_after_one, jr.replicas));
    fmt::print(out, "\n");
  }
}

void write_resilience_json(std::ostream& os, const Topology& t, const Plan& plan,
                           const std::vector<JobResilience>& jobs) {
  JsonWriter j(os);
  j.begin_object();
  j.key("scenario").begin_object().field("kind", "resilience").end_object();
  j.key("jobs").begin_array();
  for (const JobResilience& jr : jobs) {
    const Job& job = plan.jobs[jr.job];
    j.begin_object().field("name", job.name).field("kind", job.kind == JobKind::training ? "training" : "inference");
    j.field("replicas", jr.replicas).field("replicas_needed", jr.replicas_needed);
    j.key("survives").begin_object();
    for (const LevelResilience& lr : jr.levels) j.field(t.levels()[lr.level].name, lr.survives);
    j.end_object();
    j.key("after_worst_failure").begin_object();
    for (const LevelResilience& lr : jr.levels)
      j.key(t.levels()[lr.level].name)
          .begin_object()
          .field("replicas", lr.replicas_after_one)
          .field("accelerators", lr.accelerators_after_one)
          .end_object();
    j.end_object();
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

// --- Monte Carlo -------------------------------------------------------------------

void write_monte_carlo_text(std::ostream& out, const Topology& t, const Plan& plan, const std::string& file,
                            const FailureRates& rates, const MonteCarloResult& r) {
  fmt::print(out, "what if: components fail at the rates of {}\n", file);
  if (!rates.source.empty()) fmt::print(out, "  source: {}\n", rates.source);
  fmt::print(out, "  {} trials of {} days, seed {}; {} failures a day in this cluster\n\n", r.options.trials,
             format_number(r.options.days, 3), r.options.seed, format_number(r.failures_per_day, 4));
  std::size_t width = 4;
  for (const JobReliability& jr : r.jobs) width = std::max(width, plan.jobs[jr.job].name.size());
  width = std::min<std::size_t>(width, 40);
  fmt::print(out, "{:<{}}  {:>20}  {:>11}  {}\n", "job", width, "interruptions/day", "closed form",
             fmt::format("keeps its guarantee {} days", format_number(r.options.days, 3)));
  for (const JobReliability& jr : r.jobs)
    fmt::print(out, "{:<{}}  {:>20}  {:>11}  {:.1f}%\n", plan.jobs[jr.job].name, width,
               fmt::format("{:.4f} ± {:.4f}", jr.interruptions_per_day, jr.interruptions_stderr),
               fmt::format("{:.4f}", jr.expected_per_day), jr.guarantee_probability * 100);
  fmt::print(out, "\nexpected capacity lost a day: {:.3f} {} fail, {:.2f} {}-hours out of service, "
                  "{:.2f} {} of jobs interrupted\n",
             r.accelerators_failed_per_day, accel_noun(t, 2), r.accelerator_hours_down_per_day, accel_noun(t, 1),
             r.accelerators_interrupted_per_day, accel_noun(t, 2));
}

void write_monte_carlo_json(std::ostream& os, const Topology& t, const Plan& plan, const std::string& file,
                            const FailureRates& rates, const MonteCarloResult& r) {
  (void)t;
  JsonWriter j(os);
  j.begin_object();
  j.key("scenario").begin_object().field("kind", "mtbf").field("file", file).field("source", rates.source);
  j.field("seed", static_cast<unsigned long long>(r.options.seed)).field("days", r.options.days, 6);
  j.field("trials", r.options.trials).end_object();
  j.field("failures_per_day", r.failures_per_day, 9);
  j.key("jobs").begin_array();
  for (const JobReliability& jr : r.jobs) {
    j.begin_object().field("name", plan.jobs[jr.job].name);
    j.field("interruptions_per_day", jr.interruptions_per_day, 9);
    j.field("interruptions_stderr", jr.interruptions_stderr, 9);
    j.field("expected_per_day", jr.expected_per_day, 9);
    j.field("guarantee_probability", jr.guarantee_probability, 6);
    j.end_object();
  }
  j.end_array();
  j.key("expected_capacity_lost").begin_object();
  j.field("accelerators_failed_per_day", r.accelerators_failed_per_day, 9);
  j.field("accelerator_hours_down_per_day", r.accelerator_hours_down_per_day, 9);
  j.field("accelerators_interrupted_per_day", r.accelerators_interrupted_per_day, 9);
  j.end_object();
  j.end_object();
}

}  // namespace topoplan
