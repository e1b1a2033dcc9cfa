#include "import_support.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "topoplan/support/utf8.hpp"

namespace topoplan::formats {

std::string safe_name(std::string_view text) {
  // Bytes that are not UTF-8 become '_' too, and the cut at 253 bytes never
  // splits a character.
  std::string valid = repair_utf8(text, "_");
  std::size_t end = std::min<std::size_t>(valid.size(), 253);
  while (end < valid.size() && end > 0 && (static_cast<unsigned char>(valid[end]) & 0xC0) == 0x80) --end;
  std::string out;
  for (char c : std::string_view(valid).substr(0, end)) {
    auto u = static_cast<unsigned char>(c);
    bool reserved = u <= 0x20 || u == 0x7f || c == '/' || c == '*' || c == '?' || c == '[' || c == ']' ||
                    c == ',' || c == '{' || c == '}' || c == '"' || c == '\'' || c == '\\' || c == ':' || c == '=';
    out.push_back(reserved ? '_' : c);
  }
  return out.empty() ? "_" : out;
}

std::string topology_name(std::span<const ImportSource> sources, const ImportOptions& options) {
  if (!options.name.empty()) return safe_name(options.name);
  if (sources.empty() || sources.front().path == "<stdin>") return "imported";
  std::string_view path = sources.front().path;
  if (auto slash = path.rfind('/'); slash != std::string_view::npos) path.remove_prefix(slash + 1);
  if (auto dot = path.rfind('.'); dot != std::string_view::npos && dot > 0) path = path.substr(0, dot);
  return safe_name(path);
}

const ImportSource& single_source(std::span<const ImportSource> sources, std::string_view format) {
  if (sources.size() != 1)
    throw InputError({sources.size() > 1 ? sources[1].path : std::string(), 0, 0},
                     fmt::format("--from {} reads exactly one file ({} given)", format, sources.size()));
  return sources.front();
}

SingleNode single_node(const std::string& name) {
  SingleNode s{TopologyBuilder(name, {"cluster", "node"}), 0};
  s.node = s.builder.add_domain(s.builder.root(), name);
  s.builder.set_hostname(s.node, name);
  return s;
}

DomainId common_ancestor(const TopologyBuilder& builder, DomainId x, DomainId y) {
  while (builder.level_of(x) > builder.level_of(y)) x = builder.parent(x);
  while (builder.level_of(y) > builder.level_of(x)) y = builder.parent(y);
  while (x != y) {
    x = builder.parent(x);
    y = builder.parent(y);
  }
  return x;
}

void add_nvlink_partition(TopologyBuilder& builder, DomainId owner, const std::string& name,
                          const std::vector<DeviceId>& gpus, std::uint32_t origin) {
  constexpr int kLinksPerGpu = 18;  // NVLink 5, hardware.md 5.1
  static const LinkType nvlink = *find_link_type("nvlink5");
  DeviceProperties p;
  p.model = "NVLink-partition";
  DeviceId sw = builder.add_device(owner, DeviceKind::nvswitch, name, p, origin);
  for (DeviceId g : gpus) builder.add_link(g, sw, nvlink, kLinksPerGpu);
}

}  // namespace topoplan::formats
