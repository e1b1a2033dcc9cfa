#include "source_dir.hpp"

const char* topoplan::test::source_dir() { return TOPOPLAN_CHECKOUT; }
