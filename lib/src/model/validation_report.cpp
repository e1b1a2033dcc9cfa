#include "topoplan/model/validation_report.hpp"

#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/model/topology_validation.hpp"
#include "topoplan/support/json_writer.hpp"

namespace topoplan {

ValidationResult validation_result(std::string name, const Topology& topology) {
  ValidationResult r;
  r.topology = std::move(name);
  r.loaded = true;
  r.accelerators = topology.accelerators().size();
  r.problems = validate_topology(topology);
  return r;
}

ValidationResult load_failure(std::string name, const InputError& error) {
  ValidationResult r;
  r.topology = std::move(name);
  r.problems = error.diagnostics();
  return r;
}

int validation_status(const std::vector<ValidationResult>& results) {
  int status = 0;
  for (const ValidationResult& r : results) {
    if (!r.loaded) return 2;
    if (!r.problems.empty()) status = 1;
  }
  return status;
}

void write_validation_text(std::ostream& out, std::ostream& err, const std::vector<ValidationResult>& results) {
  for (const ValidationResult& r : results) {
    if (!r.loaded) {
      write_diagnostics(err, "error", r.problems);
      continue;
    }
    for (const Diagnostic& d : r.problems) fmt::print(out, "{}\n", d.str());
    if (r.problems.empty())
      fmt::print(out, "{}: valid ({} accelerators)\n", r.topology, r.accelerators);
    else
      fmt::print(out, "{}: {} problem{}\n", r.topology, r.problems.size(), r.problems.size() == 1 ? "" : "s");
  }
}

void write_validation_json(std::ostream& out, const std::vector<ValidationResult>& results) {
  JsonWriter json(out);
  json.begin_array();
  for (const ValidationResult& r : results) {
    json.begin_object().field("topology", r.topology).field("loaded", r.loaded).field("valid", r.problems.empty());
    json.key("problems").begin_array();
    for (const Diagnostic& d : r.problems) {
      json.begin_object().field("file", d.where.file).field("line", d.where.line);
      json.field("column", d.where.column).field("message", d.message).end_object();
    }
    json.end_array().end_object();
  }
  json.end_array();
}

}  // namespace topoplan
