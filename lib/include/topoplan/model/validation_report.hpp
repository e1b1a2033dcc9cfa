// What `topology validate` reports for each topology it was given: whether
// it loaded, its accelerators, and every problem validate_topology found (or
// the errors that kept it from loading), in text or JSON.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

struct ValidationResult {
  std::string topology;  // as named on the command line
  bool loaded = false;
  std::size_t accelerators = 0;
  std::vector<Diagnostic> problems;  // validation problems, or load errors when !loaded
};

/// The result for a loaded topology.
ValidationResult validation_result(std::string name, const Topology& topology);
/// The result for one that failed to load with `error`.
ValidationResult load_failure(std::string name, const InputError& error);

/// 0 when every topology loaded and is valid, 1 when one has problems, 2 when
/// one did not load (the CLI's exit status).
int validation_status(const std::vector<ValidationResult>& results);

/// Problems on `out`, one per line, then "NAME: valid (N accelerators)" or
/// "NAME: K problems"; load errors go to `err` as `topoplan: error:` lines.
void write_validation_text(std::ostream& out, std::ostream& err, const std::vector<ValidationResult>& results);
/// A JSON array with one object per topology: topology, loaded, valid, problems.
void write_validation_json(std::ostream& out, const std::vector<ValidationResult>& results);

}  // namespace topoplan
