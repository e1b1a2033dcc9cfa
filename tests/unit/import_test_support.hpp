// Shared by the importer tests: run an import format on a file of
// tests/data or on text, and count what the result holds.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "source_dir.hpp"
#include "topoplan/formats/topology_import.hpp"
#include "topoplan/model/topology.hpp"

namespace topoplan::test {

inline std::string data_file(const std::string& relative) {
  std::ifstream in(std::string(TOPOPLAN_SOURCE_DIR) + "/tests/data/" + relative, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline ImportResult import_text(std::string_view format, std::string path, std::string text,
                                const ImportOptions& options = {}) {
  const ImportFormat* f = find_import_format(format);
  ImportSource source{std::move(path), std::move(text)};
  return f->run({&source, 1}, options);
}

inline ImportResult import_data(std::string_view format, const std::string& relative, const ImportOptions& options = {}) {
  return import_text(format, relative, data_file(relative), options);
}

inline std::size_t count_kind(const Topology& t, DeviceKind kind) {
  std::size_t n = 0;
  for (const Device& d : t.devices()) n += d.kind == kind ? 1u : 0u;
  return n;
}

/// Links whose type is `type` (by canonical name), summing nothing: one per Link.
inline std::size_t count_links(const Topology& t, std::string_view type) {
  std::size_t n = 0;
  for (const Link& l : t.links()) n += t.link_type(l).name == type ? 1u : 0u;
  return n;
}

/// The first diagnostic of the InputError `f` throws, as `file:line:col: message`.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.diagnostics().front().str();
  }
  return "(no error)";
}

inline std::vector<std::string> level_names(const Topology& t) {
  std::vector<std::string> out;
  for (const Level& l : t.levels()) out.push_back(l.name);
  return out;
}

/// Hostnames in domain order.
inline std::vector<std::string> hostnames(const Topology& t) {
  std::vector<std::string> out;
  auto [first, last] = t.domains_at(t.host_level());
  for (DomainId d = first; d < last; ++d) out.emplace_back(t.hostname(d));
  return out;
}

inline bool any_warning_contains(const ImportResult& r, std::string_view text) {
  for (const ImportWarning& w : r.warnings)
    if (w.str().find(text) != std::string::npos) return true;
  return false;
}

}  // namespace topoplan::test
