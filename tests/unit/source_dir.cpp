#include "source_dir.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

const char* topoplan::test::source_dir() { return TOPOPLAN_CHECKOUT; }

std::string topoplan::test::source_file(const std::string& relative) {
  const std::string path = std::string(source_dir()) + "/" + relative;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
