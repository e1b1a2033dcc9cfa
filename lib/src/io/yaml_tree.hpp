// A read-only YAML document tree, parsed with libyaml (the reference C
// parser): nodes are small handles into one Document, every node keeps the
// line and column it starts at, and no accessor throws — asking a scalar for
// a key or a map for its text gives an undefined node or "" — so a reader
// checks types where it cares and no input can reach an exception by
// shape alone.
//
// The interface follows the part of yaml-cpp's Node the readers used
// (IsMap, operator[], Scalar, Mark, iteration with first/second), so readers
// read the same; it is about 20 times faster on large manifests (10,000
// jobs: 0.05 s against 1.3 s, bench/topoplan_scale_bench).
//
// Private to lib/: no public header includes it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace topoplan::yaml {

struct Position {
  int line = -1;    // 0-based, -1 when unknown
  int column = -1;  // 0-based
};

class Document;

class Node {
 public:
  class iterator;
  Node() = default;

  bool IsDefined() const { return doc_ != nullptr; }
  bool IsNull() const;
  bool IsScalar() const;
  bool IsSequence() const;
  bool IsMap() const;
  /// The text of a scalar ("" for anything else).
  const std::string& Scalar() const;
  /// The scalar's text, as yaml-cpp's as<std::string>() gave it.
  template <typename T>
  T as() const;
  /// Whether a scalar was written in quotes (so `"true"` is text).
  bool IsQuoted() const;
  /// Where the node starts.
  Position Mark() const;
  /// Entries of a map or sequence; 0 otherwise.
  std::size_t size() const;
  /// A map's value for `key` (the first when a key repeats), or an
  /// undefined node.
  Node operator[](std::string_view key) const;
  Node operator[](const std::string& key) const { return (*this)[std::string_view(key)]; }
  Node operator[](const char* key) const { return (*this)[std::string_view(key)]; }
  /// A sequence's element, or an undefined node.
  Node operator[](std::size_t index) const;
  Node operator[](int index) const { return index < 0 ? Node() : (*this)[static_cast<std::size_t>(index)]; }

  iterator begin() const;
  iterator end() const;

  /// Rebinds this handle to `other` (yaml-cpp's spelling of assignment).
  void reset(const Node& other) { *this = other; }
  /// Same node of the same document.
  bool is(const Node& other) const { return doc_ == other.doc_ && index_ == other.index_; }

 private:
  friend class Document;
  friend class iterator;
  Node(std::shared_ptr<const Document> doc, std::uint32_t index) : doc_(std::move(doc)), index_(index) {}
  std::shared_ptr<const Document> doc_;  // keeps the document alive
  std::uint32_t index_ = 0;
};

/// What iterating a node gives: for a sequence, the element (the value
/// itself is the node); for a map, `first` (key) and `second` (value).
class IteratorValue : public Node {
 public:
  IteratorValue() = default;
  IteratorValue(Node value, Node key, Node mapped) : Node(value), first(key), second(mapped) {}
  Node first;
  Node second;
};

class Node::iterator {
 public:
  using value_type = IteratorValue;
  using difference_type = std::ptrdiff_t;
  using reference = IteratorValue;
  iterator() = default;
  IteratorValue operator*() const;
  struct Arrow {
    IteratorValue value;
    const IteratorValue* operator->() const { return &value; }
  };
  Arrow operator->() const { return {**this}; }
  iterator& operator++() {
    ++position_;
    return *this;
  }
  iterator operator++(int) {
    iterator old = *this;
    ++position_;
    return old;
  }
  bool operator==(const iterator& o) const { return position_ == o.position_; }
  bool operator!=(const iterator& o) const { return position_ != o.position_; }

 private:
  friend class Node;
  iterator(std::shared_ptr<const Document> doc, std::uint32_t node, std::uint32_t position)
      : doc_(std::move(doc)), node_(node), position_(position) {}
  std::shared_ptr<const Document> doc_;
  std::uint32_t node_ = 0;
  std::uint32_t position_ = 0;
};

/// A parsed YAML stream's documents; nodes share its ownership.
class Document {
 public:
  enum class Kind : std::uint8_t { null, scalar, sequence, map };

  struct ParseError {
    std::string message;
    Position mark;
  };

  /// Parses `text` (every `---` document) and returns the root of each.
  /// Throws ParseError for a syntax error, nesting deeper than kMaxDepth, or
  /// aliases that would expand past kMaxExpandedNodes (a "billion laughs").
  static std::vector<Node> parse(std::string_view text);

  static constexpr std::size_t kMaxDepth = 256;
  static constexpr std::uint64_t kMaxExpandedNodes = 10'000'000;

 private:
  friend class Node;
  friend class Node::iterator;
  struct Entry {
    Kind kind = Kind::null;
    bool quoted = false;
    Position mark;
    std::string text;            // scalars
    std::uint32_t first = 0;     // children: [first, first + count) in children_
    std::uint32_t count = 0;     // sequence elements, or map keys and values interleaved
  };
  std::vector<Entry> nodes_;
  std::vector<std::uint32_t> children_;
  std::string empty_;
};

template <>
inline std::string Node::as<std::string>() const {
  return Scalar();
}

}  // namespace topoplan::yaml
