#include "usage_message.hpp"

#include <cctype>
#include <regex>
#include <string>

#include <fmt/format.h>

#include "topoplan/support/ascii.hpp"

namespace topoplan::cli {

namespace {

// "{a,b,c}" from CLI11's IsMember -> "a, b, c".
std::string set_list(std::string set) {
  if (set.size() >= 2 && set.front() == '{' && set.back() == '}') set = set.substr(1, set.size() - 2);
  std::string out;
  for (char c : set) out += c == ',' ? std::string(", ") : std::string(1, c);
  return out;
}

std::string times(const std::string& n) { return n == "1" ? "once" : n + " times"; }

}  // namespace

std::string usage_message(const std::string& text) {
  // The texts of CLI11 2.1 (CLI/Error.hpp and CLI/Validators.hpp).
  static const std::regex at_most(R"((\S+): At Most (\d+) required but received (\d+))");
  static const std::regex at_least(R"((\S+): At least (\d+) required but received (\d+))");
  static const std::regex missing(R"((\S+): (\d+) required \S+ missing)");
  static const std::regex exactly(R"(Expected exactly (\d+) arguments to (\S+), got (\d+))");
  static const std::regex not_in_set(R"((\S+): (.*) not in (\{.*\}))");
  static const std::regex not_in_range(R"((\S+): Value (.*) not in range (\S+) to (\S+))");
  static const std::regex convert(R"(Could not convert: (\S+) = (.*))");
  static const std::regex not_allowed(R"(The value (.*) is not an allowed value for (\S+))");
  static const std::regex excludes(R"((\S+) excludes (\S+))");
  static const std::regex requires_(R"((\S+) requires (\S+))");
  static const std::regex extra(R"(The following arguments? (?:was|were) not expected: (.*))");
  static const std::regex required(R"((.+) is required)");
  std::smatch m;
  if (std::regex_match(text, m, at_most))
    return fmt::format("{} is given {}; give it {}", m[1].str(), times(m[3]), times(m[2]));
  if (std::regex_match(text, m, at_least))
    return fmt::format("{} needs at least {} value{}", m[1].str(), m[2].str(), m[2] == "1" ? "" : "s");
  if (std::regex_match(text, m, missing)) return fmt::format("{} needs a value", m[1].str());
  if (std::regex_match(text, m, exactly))
    return fmt::format("{} takes {} value{}, not {}", m[2].str(), m[1].str(), m[1] == "1" ? "" : "s", m[3].str());
  if (std::regex_match(text, m, not_in_range))
    return fmt::format("{} is {}; it must be from {} to {}", m[1].str(), m[2].str(), m[3].str(), m[4].str());
  if (std::regex_match(text, m, not_in_set))
    return fmt::format("{}: '{}' is not one of {}", m[1].str(), m[2].str(), set_list(m[3].str()));
  if (std::regex_match(text, m, convert))
    return fmt::format("{} takes a whole number, not '{}'", m[1].str(), m[2].str());
  if (std::regex_match(text, m, not_allowed))
    return fmt::format("{} does not take '{}'", m[2].str(), m[1].str());
  if (std::regex_match(text, m, excludes))
    return fmt::format("{} and {} cannot be given together", m[1].str(), m[2].str());
  if (std::regex_match(text, m, requires_)) return fmt::format("{} needs {} too", m[1].str(), m[2].str());
  if (std::regex_match(text, m, extra)) return fmt::format("unexpected argument{} {}",
                                                           m[1].str().find(' ') == std::string::npos ? "" : "s",
                                                           m[1].str());
  if (std::regex_match(text, m, required)) {
    std::string what = m[1].str();
    return what == "A subcommand" ? "a command is required" : fmt::format("{} is required", what);
  }
  std::string out = text;
  // CLI11 capitalises its messages; ours are lower-case (but keep acronyms
  // and argument names like TOPO as they are).
  if (out.size() > 1 && !std::isupper(static_cast<unsigned char>(out[1]))) out[0] = ascii_lower(out[0]);
  return out;
}

}  // namespace topoplan::cli
