#include "topoplan/placement/check_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/support/json_writer.hpp"

namespace topoplan {

CheckReport check_report(const Plan& plan, const std::vector<Diagnostic>& rejections) {
  CheckReport r;
  r.jobs = plan.jobs.size();
  r.placed = plan.summary.placed;
  r.rejected = rejections.size();
  r.problems = rejections;
  for (std::size_t j = 0; j < plan.jobs.size() && j < plan.placements.size(); ++j) {
    const Job& job = plan.jobs[j];
    const JobPlacement& p = plan.placements[j];
    if (!p.placed) {
      r.problems.push_back({job.where, fmt::format("job '{}': not placed: {}", job.name, p.reason)});
      continue;
    }
    for (const std::string& problem : p.problems)
      r.problems.push_back({job.where, fmt::format("job '{}': {}", job.name, problem)});
  }
  return r;
}

void write_check_text(std::ostream& out, const CheckReport& r) {
  for (const Diagnostic& d : r.problems) fmt::print(out, "{}\n", d.str());
  std::string rejected = r.rejected == 0 ? "" : fmt::format(" ({} rejected as the scheduler would)", r.rejected);
  fmt::print(out, "{}: {} of {} jobs placed{}, {} problem{}\n", r.ok() ? "ok" : "FAIL", r.placed, r.jobs, rejected,
             r.problems.size(), r.problems.size() == 1 ? "" : "s");
}

void write_check_json(std::ostream& out, const CheckReport& r) {
  JsonWriter j(out);
  j.begin_object().field("ok", r.ok()).field("jobs", r.jobs).field("placed", r.placed);
  if (r.rejected) j.field("rejected", r.rejected);
  j.key("problems").begin_array();
  for (const Diagnostic& d : r.problems)
    j.begin_object()
        .field("file", d.where.file)
        .field("line", d.where.line)
        .field("column", d.where.column)
        .field("message", d.message)
        .end_object();
  j.end_array().end_object();
}

}  // namespace topoplan
