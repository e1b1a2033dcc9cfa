// Runs fuzz harnesses over saved inputs, without libFuzzer, so that seed
// corpora and every crasher found stay regression tests in every build:
//   topoplan_fuzz_replay NAME FILE_OR_DIR...   runs harness NAME on each file
//   topoplan_fuzz_replay --check DIR           every harness has DIR/NAME, and
//                                              every DIR/NAME is a harness
// An input may be refused (InputError); any other exception or a crash fails.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "harnesses.hpp"
#include "topoplan/support/error.hpp"

namespace fs = std::filesystem;
using topoplan::fuzz::Harness;
using topoplan::fuzz::harnesses;

namespace {

int check_corpus(const fs::path& dir) {
  int status = 0;
  std::vector<std::string> names;
  for (const Harness& h : harnesses()) {
    names.emplace_back(h.name);
    if (!fs::is_directory(dir / std::string(h.name))) {
      std::cerr << "harness " << h.name << " has no seed corpus " << (dir / std::string(h.name)).string() << "\n";
      status = 1;
    }
  }
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    if (std::find(names.begin(), names.end(), e.path().filename().string()) == names.end()) {
      std::cerr << e.path().string() << " is the corpus of no harness\n";
      status = 1;
    }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--check") return check_corpus(argv[2]);
  if (argc < 3) {
    std::cerr << "usage: topoplan_fuzz_replay NAME FILE_OR_DIR... | --check DIR\n";
    return 2;
  }
  const Harness* harness = nullptr;
  for (const Harness& h : harnesses())
    if (h.name == argv[1]) harness = &h;
  if (!harness) {
    std::cerr << "no harness '" << argv[1] << "'\n";
    return 2;
  }
  std::vector<fs::path> files;
  for (int i = 2; i < argc; ++i) {
    fs::path p = argv[i];
    if (fs::is_directory(p)) {
      for (const fs::directory_entry& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (fs::exists(p)) {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  std::size_t refused = 0;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    std::cerr << "running " << file.string() << "\n";
    try {
      harness->run(text.str());
    } catch (const topoplan::InputError& e) {
      ++refused;
      std::cerr << "  refused: " << e.what() << "\n";
    }
  }
  std::cout << harness->name << ": " << files.size() << " inputs, " << refused << " refused with a diagnostic\n";
  return 0;
}
