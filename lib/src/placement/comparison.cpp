#include "topoplan/placement/placement_check.hpp"
#include "topoplan/placement/comparison.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/placement/straggler_model.hpp"
#include "topoplan/support/json_writer.hpp"

namespace topoplan {

Comparison compare_policies(const Topology& topology, const std::vector<Job>& jobs,
                            const std::vector<std::string>& policies, const PlanOptions& options) {
  Comparison c;
  for (const std::string& policy : policies) {
    PlanOptions o = options;
    o.policy = policy;
    c.plans.push_back(plan_jobs(topology, jobs, o));
  }
  return c;
}

namespace {

std::string seconds(double s) {
  if (s < 0) return "-";
  if (s >= 1) return fmt::format("{:.3f}s", s);
  if (s >= 1e-3) return fmt::format("{:.2f}ms", s * 1e3);
  return fmt::format("{:.1f}us", s * 1e6);
}

// Domains spanned at the scale-up island level and at the host level, e.g. "1/18".
std::string spans(const Topology& t, const JobPlacement& p) {
  Span span = span_of(t, p);
  std::vector<std::string> parts;
  for (LevelIndex l = 1; l <= t.host_level(); ++l) parts.push_back(fmt::format("{}", span.domains[l].size()));
  return fmt::format("{}", fmt::join(parts, "/"));
}

// Placed jobs that break a constraint of theirs.
std::size_t violations(const Plan& p) {
  std::size_t n = 0;
  for (const JobPlacement& jp : p.placements)
    if (jp.placed && !jp.problems.empty()) ++n;
  return n;
}

}  // namespace

void write_comparison_text(std::ostream& out, const Topology& t, const Comparison& c) {
  if (c.plans.empty()) return;
  const Plan& first = c.plans.front();
  std::vector<std::string> level_names;
  for (LevelIndex l = 1; l <= t.host_level(); ++l) level_names.push_back(t.levels()[l].name);
  fmt::print(out, "comparison on {} (comm/step with shared links; spans = {})\n\n", first.topology,
             fmt::join(level_names, "/"));
  std::size_t width = 5;
  for (const Job& job : first.jobs) width = std::max(width, job.name.size());
  fmt::print(out, "{:<{}}", "job", width);
  for (const Plan& p : c.plans) fmt::print(out, "  {:>22}", p.policy);
  fmt::print(out, "\n");
  for (std::size_t j = 0; j < first.jobs.size(); ++j) {
    fmt::print(out, "{:<{}}", first.jobs[j].name, width);
    for (const Plan& p : c.plans) {
      const JobPlacement& jp = p.placements[j];
      // A placement that breaks its constraints is marked; the problems follow the table.
      std::string cell = jp.placed ? fmt::format("{} {}{}", seconds(jp.shared_step_seconds), spans(t, jp),
                                                 jp.problems.empty() ? "" : " !")
                                   : "not placed";
      fmt::print(out, "  {:>22}", cell);
    }
    fmt::print(out, "\n");
  }
  // Synchronous jobs wait for their slowest member (straggler_model.hpp):
  // what each policy's choice costs in speed.
  if (has_speed_variation(t)) {
    fmt::print(out, "\nslowest member's speed, straggler loss\n");
    for (std::size_t j = 0; j < first.jobs.size(); ++j) {
      fmt::print(out, "{:<{}}", first.jobs[j].name, width);
      for (const Plan& p : c.plans) {
        const JobPlacement& jp = p.placements[j];
        std::string cell = "-";
        if (jp.placed) {
          const JobSpeed speed = job_speed(t, p.jobs[j], jp);
          cell = fmt::format("{:.3f} {:+.1f}%", speed.slowest_speed, speed.straggler_loss * 100);
        }
        fmt::print(out, "  {:>22}", cell);
      }
      fmt::print(out, "\n");
    }
  }
  auto row = [&](std::string_view label, auto value) {
    fmt::print(out, "{:<{}}", label, width);
    for (const Plan& p : c.plans) fmt::print(out, "  {:>22}", value(p));
    fmt::print(out, "\n");
  };
  fmt::print(out, "\n");
  // The total adds placed jobs only, so it says what it leaves out: a policy
  // that drops a job must not look cheapest.
  row("total comm/step", [](const Plan& p) {
    return p.summary.unplaced == 0 ? seconds(p.summary.step_seconds_total)
                                   : fmt::format("{} +{} unplaced", seconds(p.summary.step_seconds_total),
                                                 p.summary.unplaced);
  });
  row("placed", [](const Plan& p) { return fmt::format("{}/{}", p.summary.placed, p.summary.jobs); });
  row("violations", [](const Plan& p) { return fmt::format("{}", violations(p)); });
  for (LevelIndex l = 1; l <= t.host_level(); ++l)
    row(fmt::format("largest free {}", t.levels()[l].name),
        [l](const Plan& p) { return fmt::format("{}", p.summary.levels[l].largest_free); });
  bool any = false;
  for (const Plan& p : c.plans)
    for (std::size_t j = 0; j < p.placements.size(); ++j)
      for (const std::string& problem : p.placements[j].problems) {
        if (!any) fmt::print(out, "\n! breaks its constraints:\n");
        any = true;
        fmt::print(out, "  {} {}: {}\n", p.policy, p.jobs[j].name, problem);
      }
}

void write_comparison_json(std::ostream& out, const Topology& t, const Comparison& c) {
  const bool speeds_vary = has_speed_variation(t);
  JsonWriter j(out);
  j.begin_object();
  j.field("topology", c.plans.empty() ? t.name() : c.plans.front().topology);
  j.key("policies").begin_array();
  for (const Plan& p : c.plans) {
    j.begin_object().field("policy", p.policy);
    j.key("jobs").begin_array();
    for (std::size_t i = 0; i < p.jobs.size(); ++i) {
      const JobPlacement& jp = p.placements[i];
      Span span = span_of(t, jp);
      j.begin_object().field("name", p.jobs[i].name).field("placed", jp.placed);
      j.key("shared_step_seconds");
      if (jp.shared_step_seconds < 0) j.null(); else j.value(jp.shared_step_seconds, 9);
      if (speeds_vary && jp.placed) {
        const JobSpeed speed = job_speed(t, p.jobs[i], jp);
        j.field("slowest_speed", speed.slowest_speed, 4).field("straggler_loss", speed.straggler_loss, 4);
      }
      j.key("domains_spanned").begin_object();
      for (LevelIndex l = 1; l <= t.host_level(); ++l) j.field(t.levels()[l].name, span.domains[l].size());
      j.end_object();
      if (!jp.placed) j.field("reason", jp.reason);
      if (!jp.problems.empty()) {
        j.key("problems").begin_array();
        for (const std::string& problem : jp.problems) j.value(problem);
        j.end_array();
      }
      j.end_object();
    }
    j.end_array();
    j.field("placed", p.summary.placed).field("unplaced", p.summary.unplaced).field("violations", violations(p));
    j.field("step_seconds_total", p.summary.step_seconds_total, 9);
    j.key("largest_free").begin_object();
    for (std::size_t l = 1; l < p.summary.levels.size(); ++l) j.field(p.summary.levels[l].level, p.summary.levels[l].largest_free);
    j.end_object();
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

}  // namespace topoplan
