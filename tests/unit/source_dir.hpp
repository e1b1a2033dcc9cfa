// Where the checkout is, for tests that read its files (samples, shared
// inputs, golden data). Only source_dir.cpp is compiled with the path: every
// other test object compiles the same in any clone, so a clean clone (CI)
// reuses the objects ccache holds instead of recompiling every test.
#pragma once

#include <string>

namespace topoplan::test {

/// The checkout's root, absolute.
const char* source_dir();

/// The whole text of a checkout file, `relative` to the root. Throws
/// std::runtime_error (failing the test) when it cannot be opened, so a test
/// never passes on data that went missing.
std::string source_file(const std::string& relative);

}  // namespace topoplan::test

#define TOPOPLAN_SOURCE_DIR (::topoplan::test::source_dir())
