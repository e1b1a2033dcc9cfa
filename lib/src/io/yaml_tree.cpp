#include "yaml_tree.hpp"

#include <algorithm>
#include <unordered_map>

#include <yaml.h>

namespace topoplan::yaml {

namespace {

struct Parser {
  yaml_parser_t parser;
  explicit Parser(std::string_view text) {
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  }
  ~Parser() { yaml_parser_delete(&parser); }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;
};

struct Event {
  yaml_event_t event;
  bool held = false;
  ~Event() {
    if (held) yaml_event_delete(&event);
  }
};

Position position_of(const yaml_mark_t& m) { return {static_cast<int>(m.line), static_cast<int>(m.column)}; }

bool is_null_text(std::string_view s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

}  // namespace

std::vector<Node> Document::parse(std::string_view text) {
  auto doc = std::make_shared<Document>();
  Document& d = *doc;
  struct Open {
    std::uint32_t node;
    std::vector<std::uint32_t> items;
  };
  std::vector<Open> stack;
  std::vector<std::uint32_t> roots;
  std::vector<std::uint64_t> expanded;  // per node: nodes it stands for, aliases expanded
  std::vector<std::uint8_t> complete;   // per node: closed (an alias to an open one is recursive)
  std::unordered_map<std::string, std::uint32_t> anchors;
  Parser p(text);

  auto fail = [](std::string message, Position where) { throw ParseError{std::move(message), where}; };
  auto add = [&](Entry e, const yaml_char_t* anchor) {
    const auto index = static_cast<std::uint32_t>(d.nodes_.size());
    d.nodes_.push_back(std::move(e));
    expanded.push_back(1);
    complete.push_back(0);
    if (anchor) anchors[reinterpret_cast<const char*>(anchor)] = index;
    return index;
  };
  auto attach = [&](std::uint32_t index, Position where) {
    if (stack.empty()) {
      roots.push_back(index);
    } else {
      stack.back().items.push_back(index);
      std::uint64_t& total = expanded[stack.back().node];
      total += expanded[index];
      if (total > kMaxExpandedNodes)
        fail("aliases expand to more than 10,000,000 nodes (a billion-laughs document?)", where);
    }
  };

  for (;;) {
    Event ev;
    if (!yaml_parser_parse(&p.parser, &ev.event)) {
      std::string message = p.parser.problem ? p.parser.problem : "invalid YAML";
      if (p.parser.context) message = std::string(p.parser.context) + ": " + message;
      // Past the end (an unclosed flow collection): point at the end of the
      // last line rather than at a line the file does not have.
      Position at = position_of(p.parser.problem_mark);
      const std::size_t last = text.find_last_not_of(" \t\r\n");
      if (p.parser.problem_mark.index >= text.size() && last != std::string_view::npos) {
        const std::size_t line_start = text.rfind('\n', last) == std::string_view::npos ? 0 : text.rfind('\n', last) + 1;
        at.line = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(line_start), '\n'));
        at.column = static_cast<int>(last - line_start + 1);
      }
      fail(message, at);
    }
    ev.held = true;
    const yaml_event_t& e = ev.event;
    const Position where = position_of(e.start_mark);
    switch (e.type) {
      case YAML_STREAM_END_EVENT:
        goto done;
      case YAML_SCALAR_EVENT: {
        Entry entry;
        entry.mark = where;
        entry.text.assign(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
        entry.quoted = e.data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                       e.data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ||
                       e.data.scalar.style == YAML_LITERAL_SCALAR_STYLE ||
                       e.data.scalar.style == YAML_FOLDED_SCALAR_STYLE;
        entry.kind = !entry.quoted && is_null_text(entry.text) ? Kind::null : Kind::scalar;
        std::uint32_t index = add(std::move(entry), e.data.scalar.anchor);
        complete[index] = 1;
        attach(index, where);
        break;
      }
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT: {
        if (stack.size() >= kMaxDepth) fail("nesting deeper than 256 levels", where);
        Entry entry;
        entry.mark = where;
        entry.kind = e.type == YAML_SEQUENCE_START_EVENT ? Kind::sequence : Kind::map;
        const yaml_char_t* anchor =
            e.type == YAML_SEQUENCE_START_EVENT ? e.data.sequence_start.anchor : e.data.mapping_start.anchor;
        stack.push_back({add(std::move(entry), anchor), {}});
        break;
      }
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT: {
        Open open = std::move(stack.back());
        stack.pop_back();
        Entry& entry = d.nodes_[open.node];
        entry.first = static_cast<std::uint32_t>(d.children_.size());
        entry.count = static_cast<std::uint32_t>(open.items.size());
        d.children_.insert(d.children_.end(), open.items.begin(), open.items.end());
        complete[open.node] = 1;
        attach(open.node, entry.mark);
        break;
      }
      case YAML_ALIAS_EVENT: {
        std::string name(reinterpret_cast<const char*>(e.data.alias.anchor));
        auto it = anchors.find(name);
        if (it == anchors.end()) fail("unknown alias '*" + name + "'", where);
        if (!complete[it->second]) fail("alias '*" + name + "' refers to a node that contains it", where);
        attach(it->second, where);
        break;
      }
      case YAML_DOCUMENT_START_EVENT:
        anchors.clear();
        break;
      default:
        break;
    }
  }
done:
  std::vector<Node> out;
  for (std::uint32_t r : roots) out.push_back(Node(doc, r));
  return out;
}

bool Node::IsNull() const { return doc_ && doc_->nodes_[index_].kind == Document::Kind::null; }
bool Node::IsScalar() const { return doc_ && doc_->nodes_[index_].kind == Document::Kind::scalar; }
bool Node::IsSequence() const { return doc_ && doc_->nodes_[index_].kind == Document::Kind::sequence; }
bool Node::IsMap() const { return doc_ && doc_->nodes_[index_].kind == Document::Kind::map; }
bool Node::IsQuoted() const { return doc_ && doc_->nodes_[index_].quoted; }

const std::string& Node::Scalar() const {
  static const std::string empty;
  return IsScalar() ? doc_->nodes_[index_].text : empty;
}

Position Node::Mark() const { return doc_ ? doc_->nodes_[index_].mark : Position{}; }

std::size_t Node::size() const {
  if (!doc_) return 0;
  const Document::Entry& e = doc_->nodes_[index_];
  if (e.kind == Document::Kind::sequence) return e.count;
  if (e.kind == Document::Kind::map) return e.count / 2;
  return 0;
}

Node Node::operator[](std::string_view key) const {
  if (!IsMap()) return {};
  const Document::Entry& e = doc_->nodes_[index_];
  for (std::uint32_t i = 0; i + 1 < e.count; i += 2) {
    const Document::Entry& k = doc_->nodes_[doc_->children_[e.first + i]];
    if (k.kind == Document::Kind::scalar && k.text == key) return Node(doc_, doc_->children_[e.first + i + 1]);
  }
  return {};
}

Node Node::operator[](std::size_t index) const {
  if (!IsSequence() || index >= doc_->nodes_[index_].count) return {};
  return Node(doc_, doc_->children_[doc_->nodes_[index_].first + index]);
}

Node::iterator Node::begin() const {
  if (!doc_) return {};
  return iterator(doc_, index_, 0);
}

Node::iterator Node::end() const {
  if (!doc_) return {};
  return iterator(doc_, index_, static_cast<std::uint32_t>(size()));
}

IteratorValue Node::iterator::operator*() const {
  const Document::Entry& e = doc_->nodes_[node_];
  if (e.kind == Document::Kind::map) {
    Node key(doc_, doc_->children_[e.first + 2 * position_]);
    Node value(doc_, doc_->children_[e.first + 2 * position_ + 1]);
    return IteratorValue(Node(), key, value);
  }
  return IteratorValue(Node(doc_, doc_->children_[e.first + position_]), Node(), Node());
}

}  // namespace topoplan::yaml
