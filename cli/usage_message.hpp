// CLI11's parse errors in topoplan's words: lower-case, saying what to do
// ("--size is given 2 times; give it once"), instead of CLI11's own wording
// ("--size: At Most 1 required but received 2").
#pragma once

#include <string>

namespace topoplan::cli {

/// The message for a CLI11 parse error text (`CLI::Error::what()`); text it
/// does not know is returned lower-cased.
std::string usage_message(const std::string& cli11_text);

}  // namespace topoplan::cli
