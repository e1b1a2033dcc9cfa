#include "topoplan/placement/job_spec.hpp"

#include <map>
#include <vector>

#include <fmt/format.h>

#include "job_reader.hpp"

namespace topoplan {

namespace {

// A scalar as YAML reads it back unchanged.
std::string yaml_scalar(std::string_view v) {
  bool plain = !v.empty() && v.find_first_of(":#{}[],&*!|>'\"%@`") == std::string_view::npos &&
               v.front() != ' ' && v.back() != ' ' && v.front() != '-' && v.front() != '?';
  if (plain) return std::string(v);
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

bool looks_like_job_spec(std::string_view text) { return text.find('=') != std::string_view::npos; }

Job parse_job_spec(std::string_view spec, const std::string& option) {
  const SourceLocation where{option, 0, 0};
  std::vector<std::pair<std::string, std::string>> top;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> nested;
  bool named = false;
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t comma = spec.find(',', start);
    std::string_view item = spec.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    start = comma == std::string_view::npos ? spec.size() + 1 : comma + 1;
    if (item.empty()) continue;
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
      throw InputError(where, fmt::format("'{}' is not a field; write KEY=VALUE,KEY=VALUE (e.g. gpus=72,required=rack)",
                                          item));
    std::string key(item.substr(0, eq));
    std::string value(item.substr(eq + 1));
    if (key == "tp" || key == "pp" || key == "dp" || key == "ep") {
      nested["parallelism"].emplace_back(key, value);
    } else if (auto dot = key.find('.'); dot != std::string::npos) {
      nested[key.substr(0, dot)].emplace_back(key.substr(dot + 1), value);
    } else {
      named = named || key == "name";
      top.emplace_back(key, value);
    }
  }
  std::string text;
  if (!named) text += fmt::format("name: {}\n", yaml_scalar(spec));
  for (const auto& [key, value] : top) text += fmt::format("{}: {}\n", key, yaml_scalar(value));
  for (const auto& [key, fields] : nested) {
    text += key + ": {";
    for (std::size_t i = 0; i < fields.size(); ++i)
      text += fmt::format("{}{}: {}", i ? ", " : "", fields[i].first, yaml_scalar(fields[i].second));
    text += "}\n";
  }
  DiagnosticSink sink;
  std::optional<Job> job;
  try {
    yaml::Node root = yaml::parse(text, option);
    JobReader reader(option, sink);
    job = reader.read(root);
  } catch (const InputError& e) {
    for (const Diagnostic& d : e.diagnostics()) sink.error(where, d.message);
  }
  if (!sink.empty()) {
    // Lines and columns are those of the text made here: leave them out.
    std::vector<Diagnostic> located;
    for (const Diagnostic& d : sink.diagnostics()) located.push_back({where, d.message});
    throw InputError(std::move(located));
  }
  if (!job) throw InputError(where, fmt::format("'{}' is not a job", spec));
  // Every location a later check may report is the option, like the errors above.
  job->where = where;
  if (!job->perf_class.empty()) job->perf_class_where = where;
  for (SourceLocation* l : {&job->level_where.required, &job->level_where.preferred, &job->level_where.spread,
                            &job->level_where.replicas_within, &job->level_where.exclusive_level,
                            &job->level_where.spare})
    if (!l->file.empty()) *l = where;
  return *job;
}

}  // namespace topoplan
