// Plans on paper: a text table for people, JSON and YAML for machines, and a
// reader for plans written by topoplan, by hand, or converted from another
// scheduler (`evaluate`, `--occupied`). Documented in topoplan-jobs(5).
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/planner.hpp"

namespace topoplan {

class JsonWriter;

void write_plan_text(std::ostream& out, const Topology& topology, const Plan& plan);
void write_plan_json(std::ostream& out, const Topology& topology, const Plan& plan);
/// The plan as one JSON value inside a larger document.
void write_plan_json(JsonWriter& json, const Topology& topology, const Plan& plan);
void write_plan_yaml(std::ostream& out, const Topology& topology, const Plan& plan);
/// write_plan_yaml in parts that may be rendered apart (on other cores) and
/// joined in order: the header, then the entries of jobs [first, last) for
/// consecutive ranges that cover the plan's jobs.
void write_plan_yaml_header(std::ostream& out, const Plan& plan);
void write_plan_yaml_entries(std::ostream& out, const Topology& topology, const Plan& plan, std::size_t first,
                             std::size_t last);

/// Reads a plan (YAML or JSON). Each entry names its devices (a list or a
/// hostlist of device names), whole nodes (`nodes`), or replicas (a list of
/// such lists); the job's own keys (gpus, parallelism, required, ...) may sit
/// beside them or under `job:`. Unknown devices, nodes and keys are errors
/// with line and column.
Plan parse_plan_yaml(std::string_view text, const std::string& file, const Topology& topology);

/// A plan file's YAML parsed without a topology, so that it can be parsed
/// while the topology loads; what is wrong with it is held and thrown by
/// parse_plan_yaml, after the topology's own errors.
class PlanDocument {
 public:
  PlanDocument(std::string_view text, std::string file);
  PlanDocument(PlanDocument&&) noexcept;
  PlanDocument& operator=(PlanDocument&&) noexcept;
  ~PlanDocument();

 private:
  struct State;
  std::unique_ptr<State> state_;
  friend Plan parse_plan_yaml(const PlanDocument& document, const Topology& topology);
};

Plan parse_plan_yaml(const PlanDocument& document, const Topology& topology);

/// Whether a YAML or JSON text is a plan rather than a job manifest: an
/// entry of its `jobs` says where it is (devices, hosts, replica_devices or
/// placed). False for text that does not parse.
bool is_plan_yaml(std::string_view text);

}  // namespace topoplan
