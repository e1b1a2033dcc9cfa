// Name templates of topology files: `r{g:04}`, `{rack}-n{j+1:02}`, `{racks}`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace topoplan {

/// The variables a template can name: integers (indices, parameters) and
/// strings (names of enclosing domains). Later definitions shadow earlier ones.
class TemplateScope {
 public:
  void set(std::string name, long long value);
  void set(std::string name, std::string value);
  /// Names of every variable, for "did you mean" suggestions.
  std::vector<std::string> names() const;

  struct Value {
    bool is_number = false;
    long long number = 0;
    std::string text;
  };
  const Value* find(std::string_view name) const;

  /// For nested scopes: remember size(), add variables, then truncate back.
  std::size_t size() const { return values_.size(); }
  void truncate(std::size_t size) { values_.resize(size); }

 private:
  std::vector<std::pair<std::string, Value>> values_;
};

/// Expands `{name}`, `{name+K}`, `{name-K}`, `{name*K}`, `{name/K}` (integer
/// division), `{name%K}` and a zero-padded width
/// `{name:04}`; `{{` and `}}` stand for literal braces. Arithmetic and widths
/// apply to integers only. Returns nullopt and sets `error` on a bad template.
std::optional<std::string> expand_template(std::string_view pattern, const TemplateScope& scope,
                                           std::string& error);

}  // namespace topoplan
