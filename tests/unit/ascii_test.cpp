#include "topoplan/support/ascii.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

TEST_CASE("ascii_lower maps A-Z only") {
  CHECK(ascii_lower("NCCL_Algo=Ring,TREE") == "nccl_algo=ring,tree");
  CHECK(ascii_lower("") == "");
  CHECK(ascii_lower("@[`{") == "@[`{");  // the bytes around A-Z stay
  CHECK(ascii_lower("GRÜN") == "grÜn");  // UTF-8 passes through unchanged
  CHECK(ascii_lower('Z') == 'z');
  CHECK(ascii_lower('a') == 'a');
}

TEST_CASE("ascii_iequals compares without ASCII case") {
  CHECK(ascii_iequals("SwitchName", "switchname"));
  CHECK(ascii_iequals("", ""));
  CHECK_FALSE(ascii_iequals("SwitchName", "SwitchNames"));
  CHECK_FALSE(ascii_iequals("Nodes", "Nodez"));
  CHECK_FALSE(ascii_iequals("[", "{"));  // '[' + 32 is '{', yet neither is a letter
}
