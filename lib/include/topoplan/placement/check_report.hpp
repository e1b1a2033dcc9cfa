// `check`'s verdict: every job a scheduler would refuse, every job that does
// not place, and every constraint a placement breaks, each at the job's
// place in its file; as text for people and JSON for CI. Built from a plan
// whose problems price_plan has already found, so nothing is checked twice.
#pragma once

#include <ostream>
#include <vector>

#include "topoplan/placement/planner.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

struct CheckReport {
  std::size_t jobs = 0;
  std::size_t placed = 0;
  std::size_t rejected = 0;
  std::vector<Diagnostic> problems;  // rejections first, then per job in plan order
  bool ok() const { return problems.empty(); }
};

/// The verdict on a priced plan and the manifests' rejections.
CheckReport check_report(const Plan& plan, const std::vector<Diagnostic>& rejections = {});

/// One line per problem, then "ok: ..." or "FAIL: ...".
void write_check_text(std::ostream& out, const CheckReport& report);
void write_check_json(std::ostream& out, const CheckReport& report);

}  // namespace topoplan
