#include "topoplan/simulate/simulation_report.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/support/json_writer.hpp"

namespace topoplan {

std::string human_duration(double s) {
  if (!std::isfinite(s)) return "-";
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  if (s < 172800) return fmt::format("{:.1f} h", s / 3600);
  return fmt::format("{:.1f} d", s / 86400);
}

namespace {

std::string percent(double share) { return fmt::format("{:.1f} %", 100 * share); }

std::string model_line(const SimulationReport& r) {
  std::string comm = r.comm_fraction ? fmt::format("{:g} for jobs without comm_fraction", *r.comm_fraction)
                                     : std::string("by job size where the trace gives none (0 / 0.1 / 0.2 / 0.3)");
  return fmt::format("slowdown (our model, topoplan(1) SIMULATION): 1 + {:g} x comm_fraction x (step on the "
                     "placement / step on an ideal one - 1); comm_fraction {}",
                     r.slowdown_scale, comm);
}

}  // namespace

void write_simulation_text(std::ostream& out, const SimulationReport& r) {
  const std::size_t jobs = r.job_ids.size();
  fmt::print(out, "simulate: {} jobs ({} trace {}) on {} ({} {})\n", jobs, r.trace_format, r.trace, r.topology,
             r.accelerators, r.accelerator_noun);
  fmt::print(out, "queue: priority, then arrival; EASY backfill; the same for every policy\n\n");
  fmt::print(out, "{:<12} {:>7} {:>6} {:>10} {:>10} {:>10} {:>10} {:>7} {:>9} {:>8} {:>7} {:>8}\n", "policy",
             "done", "never", "jct mean", "jct p95", "wait mean", "wait p95", "util", "slowdown", "sd p95",
             "slowed", "blocked");
  for (const PolicyMetrics& m : r.metrics)
    fmt::print(out, "{:<12} {:>7} {:>6} {:>10} {:>10} {:>10} {:>10} {:>7} {:>9.3f} {:>8.3f} {:>7} {:>8}\n",
               m.policy, m.completed, m.never_started, human_duration(m.jct.mean), human_duration(m.jct.p95),
               human_duration(m.wait.mean), human_duration(m.wait.p95), percent(m.utilisation), m.slowdown.mean,
               m.slowdown.p95, percent(m.slowed_share), m.blocked_by_placement);
  fmt::print(out, "\nlargest free island per level, mean over time ({}):\n{:<12}", r.accelerator_noun, "policy");
  for (const std::string& l : r.levels) fmt::print(out, " {:>9}", l);
  fmt::print(out, "\n");
  for (const PolicyMetrics& m : r.metrics) {
    fmt::print(out, "{:<12}", m.policy);
    for (double v : m.mean_largest_free) fmt::print(out, " {:>9.1f}", v);
    fmt::print(out, "\n");
  }
  if (!r.failures_source.empty()) {
    fmt::print(out, "\nfailures ({}, seed {}; checkpoints every {}):\n{:<12} {:>9} {:>9} {:>13}\n",
               r.failures_source, r.seed, human_duration(r.checkpoint_interval_s), "policy", "failures",
               "restarts", "lost GPU-h");
    for (const PolicyMetrics& m : r.metrics)
      fmt::print(out, "{:<12} {:>9} {:>9} {:>13.1f}\n", m.policy, m.failures, m.restarts, m.lost_accelerator_hours);
  }
  fmt::print(out, "\ndone: completed jobs; never: jobs that never started; jct: submit to end; wait: submit to\n"
                  "first start; util: busy {} over all from the first arrival to the end; slowdown:\n"
                  "run-time factor of completed jobs (slowed: above 1.01); blocked: jobs that waited although\n"
                  "enough {} were free in total\n",
             r.accelerator_noun, r.accelerator_noun);
  fmt::print(out, "{}\n", model_line(r));
  for (const std::string& a : r.assumptions) fmt::print(out, "{}\n", a);
}

void write_simulation_json(std::ostream& out, const SimulationReport& r) {
  JsonWriter j(out);
  j.begin_object();
  j.field("topology", r.topology).field("trace", r.trace).field("trace_format", r.trace_format);
  j.field("jobs", r.job_ids.size()).field("accelerators", r.accelerators);
  j.key("levels").begin_array();
  for (const std::string& l : r.levels) j.value(l);
  j.end_array();
  j.key("model").begin_object();
  j.field("backfill", "easy").field("slowdown_scale", r.slowdown_scale, 6);
  if (r.comm_fraction) j.field("comm_fraction", *r.comm_fraction, 6);
  else j.field("comm_fraction", "by-size");
  j.field("checkpoint_interval_s", r.checkpoint_interval_s, 3);
  j.end_object();
  j.key("failures");
  if (r.failures_source.empty()) j.null();
  else j.begin_object().field("source", r.failures_source).field("seed", static_cast<unsigned long long>(r.seed)).end_object();
  j.key("assumptions").begin_array();
  for (const std::string& a : r.assumptions) j.value(a);
  j.end_array();
  j.key("policies").begin_array();
  for (std::size_t p = 0; p < r.runs.size(); ++p) {
    const PolicyRun& run = r.runs[p];
    const PolicyMetrics& m = r.metrics[p];
    j.begin_object();
    j.field("policy", m.policy);
    j.field("jct_mean_s", m.jct.mean, 3).field("jct_p95_s", m.jct.p95, 3);
    j.field("wait_mean_s", m.wait.mean, 3).field("wait_p95_s", m.wait.p95, 3);
    j.field("utilisation", m.utilisation, 6);
    j.field("completed", m.completed).field("never_started", m.never_started);
    j.field("makespan_s", m.makespan_s, 3);
    j.key("slowdown").begin_object();
    j.field("mean", m.slowdown.mean, 6).field("p50", m.slowdown.p50, 6).field("p95", m.slowdown.p95, 6);
    j.field("max", m.slowdown.max, 6).field("slowed_share", m.slowed_share, 6);
    j.end_object();
    j.field("blocked_by_placement", m.blocked_by_placement);
    j.key("mean_largest_free").begin_object();
    for (std::size_t l = 0; l < m.mean_largest_free.size() && l < r.levels.size(); ++l)
      j.field(r.levels[l], m.mean_largest_free[l], 3);
    j.end_object();
    j.field("failures", static_cast<unsigned long long>(m.failures));
    j.field("restarts", static_cast<unsigned long long>(m.restarts));
    j.field("lost_gpu_hours", m.lost_accelerator_hours, 3);
    j.key("timeline").begin_array();
    for (const TimelinePoint& t : run.timeline) {
      j.begin_object().field("t", t.time_s, 3).field("utilisation", t.utilisation, 6);
      j.field("running", t.running).field("waiting", t.waiting);
      j.key("largest_free").begin_array();
      for (std::uint32_t v : t.largest_free) j.value(v);
      j.end_array().end_object();
    }
    j.end_array();
    j.key("jobs").begin_array();
    for (std::size_t i = 0; i < run.jobs.size(); ++i) {
      const JobOutcome& o = run.jobs[i];
      j.begin_object().field("id", r.job_ids[i]).field("submit_s", o.submit_s, 3);
      j.key("start_s");
      if (o.start_s < 0) j.null(); else j.value(o.start_s, 3);
      j.key("end_s");
      if (o.end_s < 0) j.null(); else j.value(o.end_s, 3);
      j.field("slowdown", o.slowdown, 6);
      if (o.restarts) j.field("restarts", o.restarts);
      if (!o.reason.empty()) j.field("reason", o.reason);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

}  // namespace topoplan
