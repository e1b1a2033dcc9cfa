// Name lists and name patterns in the syntax the field uses: Slurm hostlists
// (`n[001-016,019]`, `gpu-[1-3]-[01-18]`) and shell-style globs (`gpu*`).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace topoplan {

/// The result of expanding a hostlist: the names, or an error message.
struct HostlistExpansion {
  std::vector<std::string> names;
  std::string error;  // empty on success

  bool ok() const { return error.empty(); }
};

/// Expands a Slurm-style hostlist: comma-separated items, each with any number
/// of bracket groups of comma-separated numbers and ranges; a range keeps the
/// zero padding of its first bound (`[01-10]` -> 01..10). Fails when the result
/// would hold more than `limit` names.
HostlistExpansion expand_hostlist(std::string_view list, std::size_t limit = 10'000'000);

/// Compresses names into the shortest hostlist this simple scheme finds: runs
/// of names that differ only in one trailing number become `prefix[a-b,c]`.
/// Order is kept; expand_hostlist(compress_hostlist(x)) == x.
std::string compress_hostlist(const std::vector<std::string>& names);

/// A glob over names: `*` matches any run of characters, `?` one character, and
/// bracket groups as in hostlists (`nic[0-3]`, `gpu[0,2]`).
class NamePattern {
 public:
  /// Returns false and sets `error` when the pattern is malformed.
  bool parse(std::string_view pattern, std::string& error);
  bool matches(std::string_view name) const;
  /// True when the pattern has no wildcard and names exactly one string.
  bool is_literal() const;
  const std::string& text() const { return text_; }

 private:
  // How an alternative matches, so that the common shapes skip the glob.
  enum class Shape : unsigned char { any, literal, prefix, glob };
  // Where in a matching name an alternative's key (one of its literal runs)
  // must be: at the start, at the end, or anywhere.
  enum class Anchor : unsigned char { start, end, inside };
  // Alternatives by their key, for one anchor.
  struct KeyIndex {
    std::vector<std::pair<std::string, std::size_t>> keys;  // (key, alternative), sorted
    std::vector<std::size_t> lengths;                       // the distinct key lengths, ascending
  };
  // Patterns of at most this many alternatives are scanned, not indexed.
  static constexpr std::size_t kScannedAlternatives = 8;
  void build_index();
  bool matches_alternative(std::size_t i, std::string_view name) const;
  std::string text_;
  std::vector<std::string> alternatives_;  // bracket groups expanded
  std::vector<Shape> shapes_;
  // Past kScannedAlternatives, each alternative is indexed by the literal run
  // (the text between wildcards) that the fewest others share, so a name is
  // tried only against the alternatives whose key it holds where the key
  // must be: matching many names against many alternatives stays near linear
  // whether they differ at the start (r[0000-1819]-n*), at the end
  // (n*n[0-20034]) or in the middle (n*x[0-20034]*).
  std::vector<KeyIndex> index_;       // by Anchor; empty when scanned
  std::vector<std::size_t> unkeyed_;  // alternatives without a literal run (*, ?*)
};

}  // namespace topoplan
