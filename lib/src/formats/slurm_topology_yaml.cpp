// topology.yaml (Slurm 25.05+): a list of named topologies, each a `tree`, a
// `block` or `flat` one (topology.yaml(5); 26.05 adds `ring` and `torus3d`,
// which topoplan does not import). Reading and writing.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "../io/yaml_support.hpp"
#include "slurm_topology.hpp"
#include "topoplan/io/hostlist.hpp"
#include "topoplan/support/ascii.hpp"

namespace topoplan::formats::slurm {

namespace {

std::optional<bool> parse_bool(std::string_view given) {
  const std::string text = ascii_lower(given);
  if (text == "true" || text == "yes" || text == "on") return true;
  if (text == "false" || text == "no" || text == "off") return false;
  return std::nullopt;
}

class YamlReader {
 public:
  YamlReader(const ImportSource& source, std::size_t max_hosts)
      : source_(source), file_(source.path), budget_(max_hosts) {}

  std::vector<TopologySpec> read() {
    yaml::Node root = yaml::parse(source_.text, file_, FileKind::slurm_yaml);
    std::vector<TopologySpec> specs;
    if (!root.IsSequence()) {
      // NVIDIA Topograph's models are YAML maps of `switches` and `blocks`.
      bool topograph = root.IsMap() && root["blocks"].IsDefined();
      throw InputError(yaml::where(file_, root),
                       fmt::format("topology.yaml must be a list of topologies (`- topology: NAME` items){}",
                                   topograph ? "; this looks like an NVIDIA Topograph model: use --from topograph" : ""));
    }
    for (const yaml::Node& item : root) {
      specs.push_back(topology(item));
      for (std::size_t i = 0; i + 1 < specs.size(); ++i)
        if (!specs.back().name.empty() && specs[i].name == specs.back().name)
          sink_.error(specs.back().where, fmt::format("topology '{}' is defined twice (first on line {})",
                                                      specs.back().name, specs[i].where.line));
    }
    sink_.throw_if_any();
    if (specs.empty()) throw InputError({file_, 0, 0}, "topology.yaml lists no topology");
    attach_level_comments(specs);
    return specs;
  }

 private:
  TopologySpec topology(const yaml::Node& node) {
    TopologySpec spec;
    spec.where = yaml::where(file_, node);
    if (!node.IsMap()) {
      sink_.error(spec.where, "a topology must be a mapping with `topology: NAME`");
      return spec;
    }
    yaml::MapReader m(node, file_, sink_, "topology");
    m.allow({"topology", "cluster_default", "tree", "block", "flat", "ring", "torus3d"});
    spec.name = m.string("topology", true).value_or("");
    if (m.has("cluster_default")) spec.cluster_default = boolean(m.get("cluster_default"), "cluster_default");
    int kinds = 0;
    for (std::string_view k : {"tree", "block", "flat", "ring", "torus3d"}) kinds += m.has(k) ? 1 : 0;
    if (kinds != 1) {
      sink_.error(spec.where, fmt::format("topology '{}' must have exactly one of tree, block or flat", spec.name));
      return spec;
    }
    for (std::string_view k : {"ring", "torus3d"})
      if (m.has(k))
        sink_.error(m.where(k), fmt::format("topology '{}': {} topologies are not supported by topoplan's import",
                                            spec.name, k));
    if (m.has("tree")) tree(m.get("tree"), spec);
    if (m.has("block")) block(m.get("block"), spec);
    if (m.has("flat")) {
      spec.kind = TopologySpec::Kind::flat;
      // `flat: true`, or a mapping of options (alpha_step_rank).
      if (m.get("flat").IsScalar()) boolean(m.get("flat"), "flat");
    }
    return spec;
  }

  bool boolean(const yaml::Node& node, std::string_view what) {
    std::optional<std::string> text = yaml::scalar(node, file_, sink_, what);
    if (!text) return false;
    std::optional<bool> b = parse_bool(*text);
    if (!b) sink_.error(yaml::where(file_, node), fmt::format("{} must be true or false, not '{}'", what, *text));
    return b.value_or(false);
  }

  // A hostlist string, or (leniently) a list of them.
  NameList names(yaml::MapReader& m, std::string_view key) {
    if (!m.has(key)) return {};
    yaml::Node node = m.get(key);
    if (!node.IsSequence()) {
      std::optional<std::string> text = yaml::scalar(node, file_, sink_, key);
      if (!text) return {};
      return expand_names(*text, yaml::where(file_, node), sink_, key, budget_);
    }
    NameList all;
    all.present = true;
    all.where = yaml::where(file_, node);
    for (const yaml::Node& item : node) {
      std::optional<std::string> text = yaml::scalar(item, file_, sink_, key);
      if (!text) continue;
      NameList part = expand_names(*text, yaml::where(file_, item), sink_, key, budget_);
      all.names.insert(all.names.end(), part.names.begin(), part.names.end());
    }
    return all;
  }

  bool check_name(const std::string& name, const SourceLocation& where, std::string_view what) {
    std::string problem = name_problem(name);
    if (!problem.empty()) sink_.error(where, fmt::format("{} '{}' {}", what, name, problem));
    return problem.empty();
  }


  void tree(const yaml::Node& node, TopologySpec& spec) {
    spec.kind = TopologySpec::Kind::tree;
    if (!node.IsMap()) {
      sink_.error(yaml::where(file_, node), "tree must be a mapping with `switches:`");
      return;
    }
    yaml::MapReader m(node, file_, sink_, "tree");
    m.allow({"switches"});
    yaml::Node list = m.get("switches");
    if (!list.IsDefined() || !list.IsSequence()) {
      sink_.error(m.where(), "tree needs a `switches:` list");
      return;
    }
    for (const yaml::Node& item : list) {
      if (!item.IsMap()) {
        sink_.error(yaml::where(file_, item), "a switch must be a mapping with `switch: NAME`");
        continue;
      }
      yaml::MapReader s(item, file_, sink_, "switch");
      s.allow({"switch", "children", "nodes"});
      Switch sw;
      sw.name = s.string("switch", true).value_or("");
      sw.where = s.has("switch") ? s.where("switch") : s.where();
      sw.switches = names(s, "children");
      sw.nodes = names(s, "nodes");
      if (!s.has("switch")) continue;
      if (!check_name(sw.name, sw.where, "switch")) continue;
      if (sw.name.size() > kMaxSwitchName) {
        sink_.error(sw.where, fmt::format("switch '{}' is longer than Slurm's limit of {} characters", sw.name,
                                          kMaxSwitchName));
        continue;
      }
      spec.switches.push_back(std::move(sw));
    }
  }

  void block(const yaml::Node& node, TopologySpec& spec) {
    spec.kind = TopologySpec::Kind::block;
    if (!node.IsMap()) {
      sink_.error(yaml::where(file_, node), "block must be a mapping with `blocks:`");
      return;
    }
    yaml::MapReader m(node, file_, sink_, "block");
    m.allow({"block_sizes", "blocks"});
    if (m.has("block_sizes")) {
      yaml::Node sizes = m.get("block_sizes");
      spec.block_sizes_where = m.where("block_sizes");
      std::vector<std::pair<std::string, SourceLocation>> items;
      if (sizes.IsSequence()) {
        for (const yaml::Node& s : sizes)
          if (std::optional<std::string> t = yaml::scalar(s, file_, sink_, "block_sizes entry"))
            items.emplace_back(*t, yaml::where(file_, s));
      } else if (std::optional<std::string> t = yaml::scalar(sizes, file_, sink_, "block_sizes")) {
        // Also accepted: the topology.conf spelling "8,16".
        SourceLocation where = yaml::where(file_, sizes);
        std::size_t start = 0;
        while (start <= t->size()) {
          std::size_t comma = t->find(',', start);
          SourceLocation at = where;
          at.column += static_cast<int>(start);
          items.emplace_back(t->substr(start, comma == std::string::npos ? std::string::npos : comma - start), at);
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
      }
      for (auto& [text, where] : items) {
        std::optional<long long> v = yaml::parse_integer(text);
        if (!v || *v <= 0 || *v > 0xffffffffLL)
          sink_.error(where, fmt::format("block_sizes entry '{}' is not a positive node count", text));
        else
          spec.block_sizes.push_back({*v, where});
      }
    }
    yaml::Node list = m.get("blocks");
    if (!list.IsDefined() || !list.IsSequence()) {
      sink_.error(m.where(), "block needs a `blocks:` list");
      return;
    }
    for (const yaml::Node& item : list) {
      if (!item.IsMap()) {
        sink_.error(yaml::where(file_, item), "a block must be a mapping with `block: NAME`");
        continue;
      }
      yaml::MapReader b(item, file_, sink_, "block");
      b.allow({"block", "nodes"});
      Block bl;
      bl.name = b.string("block", true).value_or("");
      bl.where = b.has("block") ? b.where("block") : b.where();
      bl.nodes = names(b, "nodes");
      if (!b.has("block") || !check_name(bl.name, bl.where, "block")) continue;
      spec.blocks.push_back(std::move(bl));
    }
  }

  // `# topoplan-levels: ...` comments (yaml-cpp drops comments, so the text is
  // scanned): each belongs to the first topology that starts after it.
  void attach_level_comments(std::vector<TopologySpec>& specs) {
    int line = 0;
    std::size_t start = 0;
    std::size_t next = 0;
    std::string_view text = source_.text;
    while (start < text.size()) {
      ++line;
      std::size_t nl = text.find('\n', start);
      std::string_view l = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
      start = nl == std::string_view::npos ? text.size() : nl + 1;
      while (next < specs.size() && specs[next].where.line <= line) ++next;
      if (next >= specs.size()) break;
      std::size_t hash = l.find_first_not_of(" \t");
      if (hash == std::string_view::npos || l[hash] != '#') continue;
      std::string_view rest = l.substr(hash + 1);
      rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
      if (rest.substr(0, kLevelsComment.size()) != kLevelsComment) continue;
      std::vector<std::string> names;
      std::string_view list = rest.substr(kLevelsComment.size());
      std::size_t s = 0;
      bool ok = true;
      while (s <= list.size()) {
        std::size_t comma = list.find(',', s);
        std::string_view item = list.substr(s, comma == std::string_view::npos ? std::string_view::npos : comma - s);
        std::size_t a = item.find_first_not_of(" \t\r"), b = item.find_last_not_of(" \t\r");
        if (a == std::string_view::npos) ok = false;
        else names.emplace_back(item.substr(a, b - a + 1));
        if (comma == std::string_view::npos) break;
        s = comma + 1;
      }
      if (ok) specs[next].level_names = names;
    }
  }

  const ImportSource& source_;
  const std::string& file_;
  DiagnosticSink sink_;
  NameBudget budget_;
};

// A YAML scalar that reads back as the same string: plain when that is safe,
// else double-quoted.
std::string scalar_text(const std::string& s) {
  static const char* const kReserved[] = {"true", "false", "yes", "no", "on", "off", "null", "~"};
  bool plain = !s.empty() && (std::isalnum(static_cast<unsigned char>(s[0])) || s[0] == '_');
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string_view("_.-[],").find(c) == std::string_view::npos)
      plain = false;
  const std::string lower = ascii_lower(s);
  for (const char* r : kReserved)
    if (lower == r) plain = false;
  if (plain && yaml::parse_number(s)) plain = false;
  if (plain) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

void comment(std::string& out, const std::string& text, std::string_view indent) {
  std::size_t start = 0;
  while (!text.empty() && start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    out += fmt::format("{}# {}\n", indent, std::string_view(text).substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
}

}  // namespace

std::vector<TopologySpec> read_topology_yaml(const ImportSource& source, std::size_t max_hosts) {
  return YamlReader(source, max_hosts).read();
}

std::string write_topology_yaml(const std::vector<TopologySpec>& specs, const std::vector<std::string>& header) {
  std::string out;
  for (const std::string& line : header) comment(out, line, "");
  for (const TopologySpec& spec : specs) {
    for (const std::string& line : spec.header) comment(out, line, "");
    if (!spec.level_names.empty()) out += fmt::format("# {} {}\n", kLevelsComment, fmt::join(spec.level_names, ", "));
    out += fmt::format("- topology: {}\n", scalar_text(spec.name));
    out += fmt::format("  cluster_default: {}\n", spec.cluster_default ? "true" : "false");
    if (spec.kind == TopologySpec::Kind::tree) {
      out += "  tree:\n    switches:\n";
      for (const Switch& s : spec.switches) {
        comment(out, s.comment, "      ");
        out += fmt::format("      - switch: {}\n", scalar_text(s.name));
        if (!s.switches.names.empty())
          out += fmt::format("        children: {}\n", scalar_text(slurm_hostlist(s.switches.names)));
        if (!s.nodes.names.empty())
          out += fmt::format("        nodes: {}\n", scalar_text(slurm_hostlist(s.nodes.names)));
      }
    } else if (spec.kind == TopologySpec::Kind::block) {
      out += "  block:\n";
      if (!spec.block_sizes.empty()) {
        std::vector<long long> sizes;
        for (const BlockSize& s : spec.block_sizes) sizes.push_back(s.nodes);
        out += fmt::format("    block_sizes: [{}]\n", fmt::join(sizes, ", "));
      }
      out += "    blocks:\n";
      for (const Block& b : spec.blocks) {
        comment(out, b.comment, "      ");
        out += fmt::format("      - block: {}\n", scalar_text(b.name));
        out += fmt::format("        nodes: {}\n", scalar_text(slurm_hostlist(b.nodes.names)));
      }
    } else {
      out += "  flat: true\n";
    }
  }
  return out;
}

}  // namespace topoplan::formats::slurm
