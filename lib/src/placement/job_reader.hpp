// Reads one job from a YAML node (private to lib/: used by the job manifest
// and plan readers).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "../io/yaml_support.hpp"
#include "topoplan/placement/job.hpp"
#include "topoplan/cost/byte_size.hpp"
#include "topoplan/placement/jobs_yaml.hpp"
#include "topoplan/placement/service.hpp"

namespace topoplan {

class JobReader {
 public:
  JobReader(const std::string& file, DiagnosticSink& sink) : file_(file), sink_(sink) {}

  /// The job's keys; `extra_keys` are allowed beside them (plan entries).
  /// With `size_optional`, a job without gpus/nodes/replicas is accepted (its
  /// size then comes from the devices of a plan entry). A defined `name`
  /// gives the job's name from outside the node (a plan entry's `job:`).
  std::optional<Job> read(const yaml::Node& node, const std::vector<std::string_view>& extra_keys = {},
                          bool size_optional = false, const yaml::Node& name = {});
  static const std::vector<std::string_view>& keys();
  /// The service keys of a job and of its workload (service_reader.cpp).
  static const std::vector<std::string_view>& service_keys();
  static const std::vector<std::string_view>& service_workload_keys();

 private:
  std::optional<std::uint32_t> count(yaml::MapReader& m, std::string_view key, long long min, long long max) {
    auto v = m.integer(key, min, max);
    if (!v) return std::nullopt;
    return static_cast<std::uint32_t>(*v);
  }
  std::optional<double> bytes(yaml::MapReader& m, std::string_view key) {
    auto text = m.string(key);
    if (!text) return std::nullopt;
    try {
      return static_cast<double>(parse_byte_size(*text, key));
    } catch (const InputError& e) {
      sink_.error(m.where(key), e.diagnostics().front().message);
      return std::nullopt;
    }
  }
  /// A `true` or `false` key; anything else is an error naming the key.
  std::optional<bool> flag(yaml::MapReader& m, std::string_view key) {
    auto text = m.string(key);
    if (!text) return std::nullopt;
    if (*text == "true" || *text == "false") return *text == "true";
    sink_.error(m.where(key), fmt::format("'{}' is true or false, not '{}'", key, *text));
    return std::nullopt;
  }
  void read_parallelism(const yaml::Node& node, Job& job);
  void read_workload(const yaml::Node& node, Job& job);
  void read_shape(yaml::MapReader& m, Job& job);
  /// Roles, slices, pack, availability, slo, isolation, kv_transfer and the
  /// inference workload facts; sets job.service when the job has any.
  void read_service(yaml::MapReader& m, Job& job);
  bool read_role(const yaml::Node& name, const yaml::Node& node, ServiceRole& role);

  const std::string& file_;
  DiagnosticSink& sink_;
};


}  // namespace topoplan
