// topology.conf: reading it as slurmctld does and writing it.
//
// Syntax (src/common/parse_config.c): a `#` not escaped by a backslash starts
// a comment; an odd number of backslashes at the end of a line (before
// trailing blanks) continues it on the next; a remaining backslash escapes
// the character after it. A line is a run of KEY=VALUE pairs (blanks allowed
// around `=`; a value is one word or a "quoted string"); keys are
// case-insensitive. The first key of a line decides what the line is:
// SwitchName (with LinkSpeed, Nodes, Switches) for topology/tree
// (switch_record.c), BlockName (with Nodes) and BlockSizes for topology/block
// (block_record.c).
#include <algorithm>
#include <cctype>
#include <optional>

#include <fmt/format.h>

#include "../io/yaml_support.hpp"
#include "slurm_topology.hpp"
#include "topoplan/io/hostlist.hpp"
#include "topoplan/support/ascii.hpp"

namespace topoplan::formats::slurm {

namespace {

// Longer (continued) lines are refused: every character keeps its position.
constexpr std::size_t kMaxLine = 1'000'000;

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// One logical line (continuations joined, comments and escapes removed) with
// the file position of every character, so diagnostics point into the file.
struct LogicalLine {
  std::string text;
  std::vector<std::pair<int, int>> pos;  // (line, column) per character of text
  int first_line = 0;
};

// Removes a comment: everything from the first `#` preceded by an even number
// of backslashes.
std::string_view strip_comment(std::string_view line) {
  int backslashes = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && backslashes % 2 == 0) return line.substr(0, i);
    backslashes = line[i] == '\\' ? backslashes + 1 : 0;
  }
  return line;
}

// Whether the line ends in an odd run of backslashes (trailing blanks after
// them allowed); if so, `line` is cut before the continuation backslash.
bool strip_continuation(std::string_view& line) {
  std::size_t end = line.size();
  while (end > 0 && is_blank(line[end - 1])) --end;
  std::size_t run = 0;
  while (run < end && line[end - 1 - run] == '\\') ++run;
  if (run % 2 == 0) return false;
  line = line.substr(0, end - 1);
  return true;
}

std::vector<std::string_view> physical_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// `# KEY rest` -> "rest" without surrounding blanks; nullopt when `line` is
// no such comment.
std::optional<std::string_view> comment_value(std::string_view line, std::string_view key) {
  std::size_t i = 0;
  while (i < line.size() && is_blank(line[i])) ++i;
  if (i >= line.size() || line[i] != '#') return std::nullopt;
  ++i;
  while (i < line.size() && is_blank(line[i])) ++i;
  if (line.substr(i, key.size()) != key) return std::nullopt;
  std::string_view rest = line.substr(i + key.size());
  while (!rest.empty() && is_blank(rest.front())) rest.remove_prefix(1);
  while (!rest.empty() && (is_blank(rest.back()) || rest.back() == '\r')) rest.remove_suffix(1);
  return rest;
}

// `# topoplan-levels: a, b, c` -> {a, b, c}; empty when `line` is not one.
std::vector<std::string> levels_comment(std::string_view line) {
  std::optional<std::string_view> value = comment_value(line, kLevelsComment);
  if (!value) return {};
  std::vector<std::string> names;
  std::string_view rest = *value;
  std::size_t start = 0;
  while (start <= rest.size()) {
    std::size_t comma = rest.find(',', start);
    std::string_view item = rest.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    while (!item.empty() && is_blank(item.front())) item.remove_prefix(1);
    while (!item.empty() && is_blank(item.back())) item.remove_suffix(1);
    if (item.empty()) return {};
    names.emplace_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return names;
}

// A commented-out record (`#BlockName=...`), counted for the message about a
// file with nothing left.
bool commented_record(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (is_blank(line[i]) || line[i] == '#')) ++i;
  if (i == 0 || line.find('#') >= i) return false;
  std::string_view rest = line.substr(i);
  for (std::string_view key : {"SwitchName", "BlockName"})
    if (rest.size() > key.size() && ascii_iequals(rest.substr(0, key.size()), key) && rest[key.size()] == '=')
      return true;
  return false;
}

struct Pair {
  std::string key;
  std::string value;
  SourceLocation key_where;
  SourceLocation value_where;
};

class ConfReader {
 public:
  ConfReader(const ImportSource& source, std::size_t max_hosts) : source_(source), budget_(max_hosts) {}

  TopologySpec read() {
    std::vector<std::string_view> lines = physical_lines(source_.text);
    std::size_t i = 0;
    while (i < lines.size()) {
      if (std::vector<std::string> names = levels_comment(lines[i]); !names.empty()) spec_.level_names = names;
      if (auto name = comment_value(lines[i], kNameComment); name && !name->empty())
        spec_.topology_name = std::string(*name);
      if (commented_record(lines[i])) ++spec_.commented_out;
      LogicalLine logical;
      logical.first_line = static_cast<int>(i) + 1;
      bool more = true;
      while (more && i < lines.size()) {
        std::string_view line = strip_comment(lines[i]);
        more = strip_continuation(line);
        append(logical, line, static_cast<int>(i) + 1);
        ++i;
      }
      if (logical.text.size() > kMaxLine) {
        sink_.error({source_.path, logical.first_line, 1},
                    fmt::format("line of {} characters; topoplan reads at most {}", logical.text.size(), kMaxLine));
        continue;
      }
      parse_line(logical);
    }
    if (has_tree_ && has_block_)
      sink_.error(first_block_, "topology/block lines (BlockName, BlockSizes) in a file with SwitchName lines "
                                "(topology/tree); Slurm reads one plugin's keys");
    spec_.kind = has_block_ ? TopologySpec::Kind::block : TopologySpec::Kind::tree;
    if (!has_tree_ && !has_block_ && sink_.empty()) {
      std::string hint = spec_.commented_out > 0
                             ? fmt::format(" ({} are commented out)", spec_.commented_out)
                             : std::string();
      sink_.error({source_.path, 0, 0},
                  fmt::format("no SwitchName (topology/tree) or BlockName (topology/block) lines{}", hint));
    }
    sink_.throw_if_any();
    spec_.where = {source_.path, 0, 0};
    return std::move(spec_);
  }

 private:
  // Appends one physical line, dropping escape backslashes (`\#` -> `#`).
  static void append(LogicalLine& logical, std::string_view line, int number) {
    for (std::size_t c = 0; c < line.size(); ++c) {
      if (line[c] == '\\' && c + 1 < line.size()) ++c;
      else if (line[c] == '\\') continue;
      logical.text += line[c];
      logical.pos.emplace_back(number, static_cast<int>(c) + 1);
    }
  }

  SourceLocation at(const LogicalLine& l, std::size_t index) const {
    if (l.pos.empty()) return {source_.path, l.first_line, 1};
    auto [line, column] = l.pos[std::min(index, l.pos.size() - 1)];
    if (index >= l.pos.size()) ++column;
    return {source_.path, line, column};
  }

  // Splits a logical line into KEY=VALUE pairs as parse_config.c's regex does.
  std::vector<Pair> pairs(const LogicalLine& l) {
    std::vector<Pair> out;
    const std::string& t = l.text;
    std::size_t i = 0;
    auto key_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
    while (true) {
      while (i < t.size() && is_blank(t[i])) ++i;
      if (i >= t.size()) break;
      std::size_t key_start = i;
      while (i < t.size() && key_char(t[i])) ++i;
      std::size_t key_end = i;
      while (i < t.size() && is_blank(t[i])) ++i;
      bool op = i + 1 < t.size() && std::string_view("+-*/").find(t[i]) != std::string_view::npos && t[i + 1] == '=';
      if (key_end > key_start && op) {
        sink_.error(at(l, i), fmt::format("operator '{}=' is not valid in topology.conf", t[i]));
        return {};
      }
      if (key_end == key_start || i >= t.size() || t[i] != '=') {
        std::size_t word_end = key_start;
        while (word_end < t.size() && !is_blank(t[word_end])) ++word_end;
        sink_.error(at(l, key_start),
                    fmt::format("expected KEY=VALUE, found '{}'", t.substr(key_start, word_end - key_start)));
        return {};
      }
      ++i;
      while (i < t.size() && is_blank(t[i])) ++i;
      Pair p;
      p.key = t.substr(key_start, key_end - key_start);
      p.key_where = at(l, key_start);
      if (i < t.size() && t[i] == '"') {
        std::size_t close = t.find('"', i + 1);
        if (close == std::string::npos) {
          sink_.error(at(l, i), "unterminated quoted value");
          return {};
        }
        p.value = t.substr(i + 1, close - i - 1);
        p.value_where = at(l, i + 1);
        i = close + 1;
      } else {
        std::size_t start = i;
        while (i < t.size() && !is_blank(t[i])) ++i;
        p.value = t.substr(start, i - start);
        p.value_where = at(l, start);
      }
      out.push_back(std::move(p));
    }
    return out;
  }

  void unknown_key(const Pair& p, std::string_view where, std::vector<std::string> known) {
    std::string hint = did_you_mean(p.key, known);
    sink_.error(p.key_where, fmt::format("unknown key '{}' {}{}; known: {}", p.key, where,
                                         hint.empty() ? "" : " (" + hint + ")", fmt::join(known, ", ")));
  }

  void parse_line(const LogicalLine& l) {
    std::vector<Pair> ps = pairs(l);
    std::size_t i = 0;
    while (i < ps.size()) {
      const Pair& p = ps[i];
      if (ascii_iequals(p.key, "SwitchName")) {
        i = parse_switch(ps, i);
      } else if (ascii_iequals(p.key, "BlockName")) {
        i = parse_block(ps, i);
      } else if (ascii_iequals(p.key, "BlockSizes")) {
        parse_block_sizes(p);
        ++i;
      } else if (ascii_iequals(p.key, "RingName")) {
        sink_.error(p.key_where, "topology/ring (RingName) is not supported by topoplan's import");
        return;
      } else if (ascii_iequals(p.key, "Include")) {
        sink_.error(p.key_where, "Include is not followed; import the included file on its own");
        return;
      } else if (ascii_iequals(p.key, "Nodes") || ascii_iequals(p.key, "Switches") ||
                 ascii_iequals(p.key, "LinkSpeed")) {
        sink_.error(p.key_where, fmt::format("{}= belongs on the line of a SwitchName= or BlockName=", p.key));
        return;
      } else {
        unknown_key(p, "at the start of a line", {"SwitchName", "BlockName", "BlockSizes"});
        return;
      }
    }
  }

  // A record's name: non-empty, no '/' (topoplan's path separator).
  bool check_name(const Pair& p, std::string_view what) {
    std::string problem = name_problem(p.value);
    if (!problem.empty()) sink_.error(p.value_where, fmt::format("{} '{}' {}", what, p.value, problem));
    return problem.empty();
  }


  std::size_t parse_switch(const std::vector<Pair>& ps, std::size_t i) {
    has_tree_ = true;
    Switch s;
    s.name = ps[i].value;
    s.where = ps[i].value_where;
    bool ok = check_name(ps[i], "SwitchName");
    if (ok && s.name.size() > kMaxSwitchName) {
      sink_.error(s.where, fmt::format("SwitchName '{}' is longer than Slurm's limit of {} characters", s.name,
                                       kMaxSwitchName));
      ok = false;
    }
    bool link_speed = false;
    for (++i; i < ps.size(); ++i) {
      const Pair& p = ps[i];
      if (ascii_iequals(p.key, "Nodes") || ascii_iequals(p.key, "Switches")) {
        bool nodes = ascii_iequals(p.key, "Nodes");
        NameList& list = nodes ? s.nodes : s.switches;
        if (list.present) {
          sink_.error(p.key_where, fmt::format("{}= given twice for switch '{}'", nodes ? "Nodes" : "Switches", s.name));
          continue;
        }
        list = expand_names(p.value, p.value_where, sink_, nodes ? "Nodes" : "Switches", budget_);
      } else if (ascii_iequals(p.key, "LinkSpeed")) {
        // "units arbitrary ... currently not used" (topology.conf(5)); Slurm
        // still insists on a number.
        if (link_speed) sink_.error(p.key_where, fmt::format("LinkSpeed= given twice for switch '{}'", s.name));
        link_speed = true;
        std::optional<long long> v = yaml::parse_integer(p.value);
        if (!v || *v < 0 || *v > 0xffffffffLL)
          sink_.error(p.value_where, fmt::format("LinkSpeed '{}' is not a number", p.value));
      } else if (ascii_iequals(p.key, "SwitchName") || ascii_iequals(p.key, "BlockName") ||
                 ascii_iequals(p.key, "BlockSizes")) {
        sink_.error(p.key_where, fmt::format("{} must start a new line", p.key));
      } else {
        unknown_key(p, fmt::format("on the line of switch '{}'", s.name), {"Switches", "Nodes", "LinkSpeed"});
      }
    }
    if (ok) spec_.switches.push_back(std::move(s));
    return i;
  }

  std::size_t parse_block(const std::vector<Pair>& ps, std::size_t i) {
    note_block(ps[i].key_where);
    Block b;
    b.name = ps[i].value;
    b.where = ps[i].value_where;
    bool ok = check_name(ps[i], "BlockName");
    for (++i; i < ps.size(); ++i) {
      const Pair& p = ps[i];
      if (ascii_iequals(p.key, "Nodes")) {
        if (b.nodes.present) {
          sink_.error(p.key_where, fmt::format("Nodes= given twice for block '{}'", b.name));
          continue;
        }
        b.nodes = expand_names(p.value, p.value_where, sink_, "Nodes", budget_);
      } else if (ascii_iequals(p.key, "SwitchName") || ascii_iequals(p.key, "BlockName") ||
                 ascii_iequals(p.key, "BlockSizes")) {
        sink_.error(p.key_where, fmt::format("{} must start a new line", p.key));
      } else {
        unknown_key(p, fmt::format("on the line of block '{}'", b.name), {"Nodes"});
      }
    }
    if (ok) spec_.blocks.push_back(std::move(b));
    return i;
  }

  void parse_block_sizes(const Pair& p) {
    note_block(p.key_where);
    if (!spec_.block_sizes.empty() || sizes_seen_) {
      sink_.error(p.key_where, "BlockSizes given twice");
      return;
    }
    sizes_seen_ = true;
    spec_.block_sizes_where = p.key_where;
    std::size_t start = 0;
    while (start <= p.value.size()) {
      std::size_t comma = p.value.find(',', start);
      std::string item = p.value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      SourceLocation where = p.value_where;
      where.column += static_cast<int>(start);
      std::optional<long long> v = yaml::parse_integer(item);
      if (!v || *v <= 0 || *v > 0xffffffffLL)
        sink_.error(where, fmt::format("BlockSizes entry '{}' is not a positive node count", item));
      else
        spec_.block_sizes.push_back({*v, where});
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }

  void note_block(const SourceLocation& where) {
    if (!has_block_) first_block_ = where;
    has_block_ = true;
  }

  const ImportSource& source_;
  DiagnosticSink sink_;
  TopologySpec spec_;
  bool has_tree_ = false;
  bool has_block_ = false;
  bool sizes_seen_ = false;
  SourceLocation first_block_;
  NameBudget budget_;
};

void comment_lines(std::string& out, const std::string& text) {
  if (text.empty()) return;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    std::string_view line = std::string_view(text).substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    out += line.empty() ? "#\n" : fmt::format("# {}\n", line);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
}

// Items of a hostlist: split at commas outside brackets.
std::vector<std::string> hostlist_items(const std::string& list) {
  std::vector<std::string> items;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= list.size(); ++i) {
    if (i == list.size() || (list[i] == ',' && depth == 0)) {
      items.push_back(list.substr(start, i - start));
      start = i + 1;
    } else if (list[i] == '[') {
      ++depth;
    } else if (list[i] == ']') {
      --depth;
    }
  }
  return items;
}

// Runs of names that differ only in one trailing number: `prefix[a-b,c]`.
std::string trailing_number_list(const std::vector<std::string>& names) {
  struct Parsed {
    std::string_view prefix, digits;
    unsigned long long value = 0;
  };
  std::vector<Parsed> parsed;
  for (const std::string& name : names) {
    std::size_t end = name.size();
    while (end > 0 && std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
    Parsed p{std::string_view(name).substr(0, end), std::string_view(name).substr(end)};
    if (p.digits.empty() || p.digits.size() > 18) p.digits = {};
    for (char c : p.digits) p.value = p.value * 10 + static_cast<unsigned>(c - '0');
    parsed.push_back(p);
  }
  auto padded = [](std::string_view d) { return d.size() > 1 && d[0] == '0'; };
  std::string out;
  std::size_t i = 0;
  while (i < names.size()) {
    if (!out.empty()) out += ',';
    if (parsed[i].digits.empty()) {
      out += names[i++];
      continue;
    }
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    std::size_t j = i;
    while (j < names.size() && !parsed[j].digits.empty() && parsed[j].prefix == parsed[i].prefix) {
      if (!ranges.empty()) {
        const Parsed& start = parsed[ranges.back().first];
        const Parsed& last = parsed[ranges.back().second];
        bool fits = padded(start.digits) ? parsed[j].digits.size() == start.digits.size() : !padded(parsed[j].digits);
        if (parsed[j].value == last.value + 1 && fits) {
          ranges.back().second = j++;
          continue;
        }
      }
      ranges.emplace_back(j, j);
      ++j;
    }
    if (j - i == 1) {
      out += names[i];
    } else {
      out += fmt::format("{}[", parsed[i].prefix);
      for (std::size_t r = 0; r < ranges.size(); ++r) {
        if (r) out += ',';
        out += parsed[ranges[r].first].digits;
        if (ranges[r].second != ranges[r].first) out += fmt::format("-{}", parsed[ranges[r].second].digits);
      }
      out += ']';
    }
    i = j;
  }
  return out;
}

}  // namespace

std::string name_problem(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.find('/') != std::string_view::npos) return "contains '/', which topoplan uses between domain names";
  if (name.find_first_of("[],") != std::string_view::npos) return "contains a hostlist character ('[', ']' or ',')";
  return {};
}

bool slurm_safe(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name)
    if (c <= ' ' || std::string_view(",[]#=\"\\'").find(c) != std::string_view::npos) return false;
  return true;
}

std::string slurm_hostlist(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& item : hostlist_items(compress_hostlist(names))) {
    if (!out.empty()) out += ',';
    std::size_t close = item.rfind(']');
    if (close == std::string::npos || close + 1 == item.size())
      out += item;
    else
      out += trailing_number_list(expand_hostlist(item).names);
  }
  return out;
}

NameList expand_names(std::string_view value, SourceLocation where, DiagnosticSink& sink, std::string_view what,
                      NameBudget& budget) {
  NameList list;
  list.where = where;
  list.present = true;
  if (value.empty()) return list;
  HostlistExpansion e = expand_hostlist(value, budget.limit);
  if (!e.ok()) {
    sink.error(where, fmt::format("{} '{}': {}", what, value, e.error));
    return list;
  }
  if (e.names.size() > budget.left) {
    if (!budget.reported)
      sink.error(where, fmt::format("the file names more than {} nodes and switches; topoplan imports at most that "
                                    "many",
                                    budget.limit));
    budget.reported = true;
    budget.left = 0;
    return list;
  }
  budget.left -= e.names.size();
  list.names = std::move(e.names);
  return list;
}

bool looks_like_topology_yaml(std::string_view text) {
  for (std::string_view line : physical_lines(text)) {
    std::size_t i = 0;
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i == line.size() || line[i] == '#') continue;
    // A topology.conf line starts with KEY=; topology.yaml is a sequence
    // (`- topology: ...`, possibly after a document marker, or in flow
    // style), and a YAML mapping (`topology: ...`) is a mistaken one.
    if (line[i] == '-' || line[i] == '[') return true;
    std::size_t end = line.find_first_of("=:", i);
    return end != std::string_view::npos && line[end] == ':';
  }
  return false;
}

TopologySpec read_topology_conf(const ImportSource& source, std::size_t max_hosts) {
  return ConfReader(source, max_hosts).read();
}

std::string write_topology_conf(const TopologySpec& spec) {
  std::string out;
  for (const std::string& line : spec.header) comment_lines(out, line);
  if (!spec.level_names.empty()) out += fmt::format("# {} {}\n", kLevelsComment, fmt::join(spec.level_names, ", "));
  if (!spec.topology_name.empty()) out += fmt::format("# {} {}\n", kNameComment, spec.topology_name);
  for (const Switch& s : spec.switches) {
    comment_lines(out, s.comment);
    out += "SwitchName=" + s.name;
    if (!s.switches.names.empty()) out += " Switches=" + slurm_hostlist(s.switches.names);
    if (!s.nodes.names.empty()) out += " Nodes=" + slurm_hostlist(s.nodes.names);
    out += '\n';
  }
  for (const Block& b : spec.blocks) {
    comment_lines(out, b.comment);
    out += fmt::format("BlockName={} Nodes={}\n", b.name, slurm_hostlist(b.nodes.names));
  }
  if (!spec.block_sizes.empty()) {
    std::vector<long long> sizes;
    for (const BlockSize& s : spec.block_sizes) sizes.push_back(s.nodes);
    out += fmt::format("BlockSizes={}\n", fmt::join(sizes, ","));
  }
  return out;
}

}  // namespace topoplan::formats::slurm
