// The fuzz harnesses: one entry per parser, each taking arbitrary bytes.
// A harness returns normally or throws InputError for input it refuses;
// anything else (another exception, a crash, a sanitizer report, a hang) is a
// bug. tests/fuzz/README.md says how to run them.
#pragma once

#include <span>
#include <string_view>

namespace topoplan::fuzz {

struct Harness {
  std::string_view name;  // also the folder of its seed corpus: tests/fuzz/corpus/NAME
  void (*run)(std::string_view data);
};

/// Every harness, sorted by name.
std::span<const Harness> harnesses();

}  // namespace topoplan::fuzz
