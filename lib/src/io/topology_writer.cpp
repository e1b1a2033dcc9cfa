// Writes a Topology back in the native format. Structure sharing is found
// bottom-up: a domain's "shape" is everything the format would say about it
// in a block (its devices, the links it owns, its labels, its hostname rule
// and the shapes and names of its children, in order); domains of equal shape
// share one block, and consecutive children of one block become one child
// rule with a hostlist of names. A link belongs to the lowest domain holding
// both of its ends and is written there with paths relative to it; links that
// share one end and their properties are merged into one rule whose other end
// is a hostlist pattern, so a leaf switch with 32 nodes takes one line.
#include "topoplan/io/topology_writer.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "topoplan/io/hostlist.hpp"

namespace topoplan {

namespace {

// Double-quoted YAML scalar; names and models are plain, but labels and
// descriptions come from other tools' files.
std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
          out += fmt::format("\\x{:02x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        else
          out += c;
    }
  }
  return out + "\"";
}

// Template text (names, hostnames, label values) with its braces escaped.
std::string literal_template(std::string_view s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '{' || c == '}') out += c;
  }
  return out;
}

// The shortest decimal that reads back as the same float.
std::string number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", static_cast<float>(v));
}

std::string labels_text(const Labels& labels, bool templated) {
  std::string out = "{";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (i) out += ", ";
    out += quote(labels[i].first) + ": " + quote(templated ? literal_template(labels[i].second) : labels[i].second);
  }
  return out + "}";
}

// A node's resources, taints and state, as block keys.
std::string node_resources_text(const NodeResources& r) {
  std::string out;
  if (!r.allocatable.empty()) {
    out += "    resources: {";
    bool first = true;
    for (const auto& [name, value] : r.allocatable) {
      out += fmt::format("{}{}: {}", first ? "" : ", ", quote(name), quote(format_quantity(name, value)));
      first = false;
    }
    out += "}\n";
  }
  if (!r.taints.empty()) {
    out += "    taints:\n";
    for (const Taint& t : r.taints) {
      out += fmt::format("      - {{key: {}", quote(t.key));
      if (!t.value.empty()) out += fmt::format(", value: {}", quote(t.value));
      out += fmt::format(", effect: {}}}\n", t.effect);
    }
  }
  if (r.state != DeviceState::up) out += fmt::format("    state: {}\n", state_name(r.state));
  return out;
}

class Writer {
 public:
  explicit Writer(const Topology& t) : t_(t) {}

  std::string write(const TopologyWriteOptions& options);

 private:
  struct LinkLine {
    std::string from, to;  // relative paths from the owning domain
    std::string props;     // type, count, bandwidth, latency as written
  };
  struct Block {
    std::string name;  // given once all are known, in order of first use
    LevelIndex level = 0;
    std::string text;  // the block's YAML body, child blocks as placeholder()
    DomainId first = 0;  // the first domain made from it
  };
  // Bodies are built children first (ids backwards), before the blocks they
  // name are numbered; a placeholder stands for a block's name until then.
  static std::string placeholder(std::size_t block) { return fmt::format("\x01{}\x01", block); }
  std::string named(std::string_view text) const;

  void assign_links();
  std::string relative_path(DomainId owner, DeviceId device) const;
  std::string link_props(const Link& link) const;
  std::string devices_text(DomainId d) const;
  std::string links_text(DomainId d) const;
  std::string generalise(DomainId base, const std::string& pattern) const;
  std::string children_text(DomainId d) const;
  std::size_t block_of(DomainId d);
  std::string hostname_template(DomainId node) const;

  const Topology& t_;
  std::vector<std::vector<DeviceId>> devices_of_;  // per domain, in id order
  std::vector<std::vector<LinkId>> links_of_;      // per owning domain
  std::vector<std::size_t> block_;                 // per domain
  std::vector<Block> blocks_;
  std::unordered_map<std::string, std::size_t> by_shape_;
};

std::string Writer::named(std::string_view text) const {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\x01') {
      out += text[i];
      continue;
    }
    std::size_t end = text.find('\x01', i + 1);
    std::size_t block = 0;
    for (char c : text.substr(i + 1, end - i - 1)) block = block * 10 + static_cast<std::size_t>(c - '0');
    out += blocks_[block].name;
    i = end;
  }
  return out;
}

std::string Writer::relative_path(DomainId owner, DeviceId device) const {
  std::string path(t_.str(t_.device(device).name));
  for (DomainId d = t_.device(device).domain; d != owner; d = t_.domain(d).parent)
    path = fmt::format("{}/{}", t_.str(t_.domain(d).name), path);
  return path;
}

std::string Writer::link_props(const Link& link) const {
  const LinkType& type = t_.link_type(link);
  std::string out = "type: " + type.name;
  if (link.count != 1) out += fmt::format(", count: {}", link.count);
  if (static_cast<float>(type.bandwidth) != link.bandwidth) out += ", bandwidth: " + number(static_cast<double>(link.bandwidth));
  if (static_cast<float>(type.latency_us) != link.latency_us) out += ", latency: " + number(static_cast<double>(link.latency_us));
  return out;
}

void Writer::assign_links() {
  devices_of_.assign(t_.domain_count(), {});
  links_of_.assign(t_.domain_count(), {});
  for (DeviceId d = 0; d < t_.device_count(); ++d) devices_of_[t_.device(d).domain].push_back(d);
  for (LinkId l = 0; l < t_.link_count(); ++l) {
    DomainId a = t_.device(t_.link(l).a).domain, b = t_.device(t_.link(l).b).domain;
    while (t_.domain(a).level > t_.domain(b).level) a = t_.domain(a).parent;
    while (t_.domain(b).level > t_.domain(a).level) b = t_.domain(b).parent;
    while (a != b) a = t_.domain(a).parent, b = t_.domain(b).parent;
    links_of_[a].push_back(l);
  }
}

std::string Writer::devices_text(DomainId d) const {
  std::string out;
  const std::vector<DeviceId>& devs = devices_of_[d];
  for (std::size_t i = 0; i < devs.size();) {
    const Device& first = t_.device(devs[i]);
    auto same = [&](const Device& o) {
      return o.kind == first.kind && o.model == first.model && o.memory_gib == first.memory_gib &&
             o.speed == first.speed && o.state == first.state && o.labels == first.labels;
    };
    std::vector<std::string> names;
    std::size_t j = i;
    for (; j < devs.size() && same(t_.device(devs[j])); ++j) names.emplace_back(t_.str(t_.device(devs[j]).name));
    std::string line = fmt::format("      - {{name: {}, kind: {}", quote(compress_hostlist(names)),
                                   kind_name(first.kind) == "network_switch" ? "switch" : kind_name(first.kind));
    if (first.model) line += ", model: " + quote(t_.str(first.model));
    if (first.memory_gib != 0) line += ", memory: " + number(static_cast<double>(first.memory_gib));
    if (first.speed != 1.0f) line += ", speed: " + number(static_cast<double>(first.speed));
    if (first.state != DeviceState::up) line += fmt::format(", state: {}", state_name(first.state));
    if (first.labels) line += ", labels: " + labels_text(t_.labels(first.labels), false);
    out += line + "}\n";
    i = j;
  }
  return out;
}

// A pair of strings as a hash key (the writer's groupings only look up; the
// order they print in is kept apart, so hashing leaves the output as it is).
struct PairHash {
  std::size_t operator()(const std::pair<std::string, std::string>& p) const {
    const std::size_t a = std::hash<std::string>()(p.first);
    return a ^ (std::hash<std::string>()(p.second) + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
  }
};
template <typename V>
using PairMap = std::unordered_map<std::pair<std::string, std::string>, V, PairHash>;

// Paths (`r0000/n00/nic0`) merged into as few patterns as a product of
// hostlists per segment allows (`r[0000-0001]/n[00-17]/nic0`): from the last
// segment to the first, paths equal except in that segment merge. Every
// pattern expands to exactly the paths it replaces.
std::vector<std::string> merge_paths(const std::vector<std::string>& paths) {
  std::vector<std::vector<std::string>> items;
  std::size_t max_depth = 0;
  for (const std::string& p : paths) {
    std::vector<std::string> segments;
    for (std::size_t start = 0;;) {
      std::size_t slash = p.find('/', start);
      segments.push_back(p.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    max_depth = std::max(max_depth, segments.size());
    items.push_back(std::move(segments));
  }
  for (std::size_t k = max_depth; k-- > 0;) {
    std::unordered_map<std::string, std::size_t> group_of;  // the other segments -> merged item
    std::vector<std::vector<std::string>> merged;
    std::vector<std::vector<std::string>> values;
    for (std::vector<std::string>& item : items) {
      if (item.size() <= k) {
        merged.push_back(std::move(item));
        values.emplace_back();
        continue;
      }
      std::string key = fmt::format("{}", item.size());
      for (std::size_t i = 0; i < item.size(); ++i)
        if (i != k) key += "/" + item[i];
      auto [it, fresh] = group_of.try_emplace(key, merged.size());
      if (fresh) {
        merged.push_back(item);
        values.emplace_back();
      }
      values[it->second].push_back(std::move(item[k]));
    }
    for (std::size_t i = 0; i < merged.size(); ++i)
      if (!values[i].empty()) merged[i][k] = compress_hostlist(values[i]);
    items = std::move(merged);
  }
  std::vector<std::string> out;
  for (const std::vector<std::string>& item : items) {
    std::string p;
    for (const std::string& seg : item) p += (p.empty() ? "" : "/") + seg;
    out.push_back(std::move(p));
  }
  return out;
}

// `*` for every domain segment of a pattern that lists all children of the
// domains it descends from, so that blocks differing only in their
// children's names (SUs of different racks) stay one block.
std::string Writer::generalise(DomainId base, const std::string& pattern) const {
  std::vector<DomainId> current{base};
  std::string out;
  std::size_t start = 0;
  for (std::size_t slash; (slash = pattern.find('/', start)) != std::string::npos; start = slash + 1) {
    std::string seg = pattern.substr(start, slash - start);
    HostlistExpansion e = expand_hostlist(seg);
    std::set<std::string_view> wanted(e.names.begin(), e.names.end());
    std::vector<DomainId> next;
    bool all = e.ok();
    for (DomainId p : current) {
      const Domain& dom = t_.domain(p);
      std::size_t matched = 0;
      for (DomainId c = dom.first_child; c < dom.first_child + dom.child_count; ++c)
        if (wanted.count(t_.str(t_.domain(c).name))) {
          next.push_back(c);
          ++matched;
        }
      all = all && matched == dom.child_count;
    }
    out += (all ? std::string("*") : seg) + "/";
    current = std::move(next);
  }
  return out + pattern.substr(start);
}

std::string Writer::links_text(DomainId d) const {
  // Group by (one end, properties); the other ends merge into patterns. Each
  // link is oriented so that the end nearer the owner (fewer path segments,
  // then the smaller path) comes first, which puts switches on the left. A
  // pair joined by two separate links (rather than one with a count) keeps
  // its second link as a rule of its own, since a pattern matches once.
  PairMap<std::vector<std::string>> groups;
  PairMap<std::unordered_set<std::string>> seen;
  std::vector<std::pair<std::string, std::string>> order;
  std::string twins;
  for (LinkId l : links_of_[d]) {
    const Link& link = t_.link(l);
    std::string a = relative_path(d, link.a), b = relative_path(d, link.b);
    auto depth = [](const std::string& p) { return std::count(p.begin(), p.end(), '/'); };
    if (std::pair(depth(b), b) < std::pair(depth(a), a)) std::swap(a, b);
    std::pair key{a, link_props(link)};
    if (!seen[key].insert(b).second) {
      twins += fmt::format("      - {{from: {}, to: {}, {}}}\n", quote(a), quote(b), key.second);
      continue;
    }
    auto [it, fresh] = groups.try_emplace(key);
    if (fresh) order.push_back(key);
    it->second.push_back(std::move(b));
  }
  // Then rules with the same other end and properties merge their first
  // ends, e.g. gpu[0-7] -> nvsw[0,3].
  PairMap<std::vector<std::string>> by_to;
  std::vector<std::pair<std::string, std::string>> to_order;
  for (const auto& key : order)
    for (std::string& to : merge_paths(groups[key])) {
      std::pair k2{to, key.second};
      auto [it, fresh] = by_to.try_emplace(k2);
      if (fresh) to_order.push_back(k2);
      it->second.push_back(key.first);
    }
  std::string out;
  for (const auto& k2 : to_order)
    for (const std::string& from : merge_paths(by_to[k2]))
      out += fmt::format("      - {{from: {}, to: {}, {}}}\n", quote(generalise(d, from)),
                         quote(generalise(d, k2.first)), k2.second);
  return out + twins;
}

// "prefix{VAR+K:0W}suffix" for a name whose last number is `index` plus K
// (VAR is g, the global index at the level, or i, the index in the child
// rule); "" when the name has no number.
std::string index_template(std::string_view name, long long index, std::string_view var = "g") {
  std::size_t end = name.find_last_of("0123456789");
  if (end == std::string_view::npos) return "";
  ++end;
  std::size_t begin = end;
  while (begin > 0 && name[begin - 1] >= '0' && name[begin - 1] <= '9') --begin;
  if (end - begin > 15) return "";
  long long value = std::stoll(std::string(name.substr(begin, end - begin)));
  long long offset = value - index;
  std::string expr = offset == 0 ? std::string(var) : fmt::format("{}{:+}", var, offset);
  std::string width = end - begin > 1 && name[begin] == '0' ? fmt::format(":0{}", end - begin) : "";
  return literal_template(name.substr(0, begin)) + "{" + expr + width + "}" + literal_template(name.substr(end));
}

std::string Writer::children_text(DomainId d) const {
  // A run of children of one block whose names count along with their
  // global index becomes `count` + `name` template, which keeps parents with
  // different children (the racks of SU 3 and of SU 4) one block.
  std::string out;
  const Domain& dom = t_.domain(d);
  std::uint32_t n = dom.child_count;
  for (std::uint32_t i = 0; i < n;) {
    DomainId c = dom.first_child + i;
    long long first_g = c - t_.domains_at(t_.domain(c).level).first;
    // Names that restart in every parent ({i}) keep parents alike; global
    // numbering ({g}) is the fallback.
    std::string by_i = index_template(t_.str(t_.domain(c).name), 0, "i");
    std::string by_g = index_template(t_.str(t_.domain(c).name), first_g);
    std::vector<std::string> names;
    std::uint32_t j = i;
    for (; j < n && block_[dom.first_child + j] == block_[c]; ++j) {
      DomainId cj = dom.first_child + j;
      names.emplace_back(t_.str(t_.domain(cj).name));
      if (!by_i.empty() && index_template(names.back(), cj - c, "i") != by_i) by_i.clear();
      if (!by_g.empty() && index_template(names.back(), first_g + (cj - c)) != by_g) by_g.clear();
    }
    // Names that start at 0 or 1 in their parent restart per parent; others
    // (r0008 as the first of its SU) count globally.
    bool restarts = false;
    for (std::string_view start : {"{i}", "{i:", "{i+1}", "{i+1:"})
      restarts = restarts || by_i.find(start) != std::string::npos;
    const std::string& name_template = restarts || by_g.empty() ? by_i : by_g;
    if (!name_template.empty() && j - i > 1)
      out += fmt::format("      - {{block: {}, count: {}, name: {}}}\n", placeholder(block_[c]), j - i,
                         quote(name_template));
    else
      out += fmt::format("      - {{block: {}, names: {}}}\n", placeholder(block_[c]),
                         quote(compress_hostlist(names)));
    i = j;
  }
  return out;
}

// A template that gives the node's hostname and, with luck, the same text
// for its siblings, so they share a block: the names of the node and its
// ancestors become {LEVEL} variables ("r0003-n07" -> "{rack}-{node}"); if
// digits remain, the last number is written against the node's global index
// ("h100-00042" -> "h100-{g+1:05}"). Either way it expands to the hostname.
std::string Writer::hostname_template(DomainId node) const {
  std::string_view h = t_.hostname(node);
  std::vector<std::pair<std::string_view, std::string_view>> names;  // name, level
  for (DomainId d = node; d != t_.root(); d = t_.domain(d).parent)
    names.emplace_back(t_.str(t_.domain(d).name), t_.levels()[t_.domain(d).level].name);
  std::stable_sort(names.begin(), names.end(), [](auto& a, auto& b) { return a.first.size() > b.first.size(); });
  std::string by_name;
  bool digits_left = false;
  for (std::size_t i = 0; i < h.size();) {
    auto it = std::find_if(names.begin(), names.end(),
                           [&](auto& n) { return !n.first.empty() && h.substr(i).starts_with(n.first); });
    if (it != names.end()) {
      by_name += fmt::format("{{{}}}", it->second);
      i += it->first.size();
      continue;
    }
    digits_left = digits_left || (h[i] >= '0' && h[i] <= '9');
    by_name += literal_template(h.substr(i, 1));
    ++i;
  }
  if (!digits_left) return by_name;
  std::string by_index = index_template(h, node - t_.domains_at(t_.domain(node).level).first);
  return by_index.empty() ? literal_template(h) : by_index;
}

std::size_t Writer::block_of(DomainId d) {
  const Domain& dom = t_.domain(d);
  bool host = dom.level == t_.host_level();
  std::string body = fmt::format("    level: {}\n", t_.levels()[dom.level].name);
  if (host && d != t_.root()) {
    std::string_view hostname = t_.hostname(d);
    std::string default_hostname = t_.domain_path(d);
    std::replace(default_hostname.begin(), default_hostname.end(), '/', '-');
    if (hostname != default_hostname) body += fmt::format("    hostname: {}\n", quote(hostname_template(d)));
  }
  if (dom.labels) body += "    labels: " + labels_text(t_.labels(dom.labels), true) + "\n";
  if (host && dom.resources) body += node_resources_text(t_.node_resources(d));
  if (std::string devices = devices_text(d); !devices.empty()) body += "    devices:\n" + devices;
  if (std::string children = children_text(d); !children.empty()) body += "    children:\n" + children;
  if (std::string links = links_text(d); !links.empty()) body += "    links:\n" + links;
  auto [it, fresh] = by_shape_.try_emplace(body, blocks_.size());
  if (fresh) blocks_.push_back({"", dom.level, std::move(body), d});
  blocks_[it->second].first = d;  // ids are walked backwards: the last seen is the first
  return it->second;
}

std::string Writer::write(const TopologyWriteOptions& options) {
  assign_links();
  block_.assign(t_.domain_count(), 0);
  // Children have larger ids than their parents, so walking ids backwards
  // sees every child before its parent.
  for (DomainId d = static_cast<DomainId>(t_.domain_count()); d-- > 0;) block_[d] = block_of(d);
  // Names per level in the order the topology uses the blocks (rack, rack-2, ...).
  std::vector<std::size_t> by_use(blocks_.size());
  for (std::size_t i = 0; i < by_use.size(); ++i) by_use[i] = i;
  std::sort(by_use.begin(), by_use.end(), [&](std::size_t a, std::size_t b) { return blocks_[a].first < blocks_[b].first; });
  std::vector<int> per_level(t_.levels().size(), 0);
  for (std::size_t i : by_use) {
    const std::string& level = t_.levels()[blocks_[i].level].name;
    int k = per_level[blocks_[i].level]++;
    blocks_[i].name = k == 0 ? level : fmt::format("{}-{}", level, k + 1);
  }

  std::string out;
  // A comment stays a comment whatever it quotes (a file name may hold a
  // line break): each of its lines gets its own '#', other control
  // characters are written as escapes.
  for (const std::string& c : options.comments) {
    out += "#";
    if (!c.empty()) out += ' ';
    for (char ch : c) {
      auto u = static_cast<unsigned char>(ch);
      if (ch == '\n')
        out += "\n# ";
      else if (u < 0x20 || u == 0x7f)
        out += fmt::format("\\x{:02x}", u);
      else
        out += ch;
    }
    out += "\n";
  }
  out += "name: " + quote(t_.name()) + "\n";
  if (!t_.description().empty()) out += "description: " + quote(t_.description()) + "\n";
  out += "levels: [";
  for (std::size_t i = 0; i < t_.levels().size(); ++i) out += (i ? ", " : "") + t_.levels()[i].name;
  out += "]\n";
  if (!t_.nccl_environment().empty()) {
    out += "nccl:\n";
    for (const NcclSetting& setting : t_.nccl_environment().settings)
      out += "  " + setting.name + ": " + quote(setting.value) + "\n";
  }
  out += "\nblocks:\n";
  // Finest level first, as a reader builds a picture: nodes, then what holds them.
  std::vector<std::size_t> order = by_use;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return blocks_[a].level > blocks_[b].level; });
  for (std::size_t i : order) out += fmt::format("  {}:\n{}\n", blocks_[i].name, named(blocks_[i].text));
  out += "root: " + blocks_[block_[t_.root()]].name + "\n";
  return out;
}

}  // namespace

std::string write_topology_yaml(const Topology& topology, const TopologyWriteOptions& options) {
  return Writer(topology).write(options);
}

}  // namespace topoplan
