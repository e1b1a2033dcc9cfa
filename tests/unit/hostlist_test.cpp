#include "topoplan/io/hostlist.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

TEST_CASE("hostlists expand like Slurm's") {
  using V = std::vector<std::string>;
  CHECK(expand_hostlist("n[001-003]").names == V{"n001", "n002", "n003"});
  CHECK(expand_hostlist("n[9-11]").names == V{"n9", "n10", "n11"});
  CHECK(expand_hostlist("n[1-2,5],m7").names == V{"n1", "n2", "n5", "m7"});
  CHECK(expand_hostlist("gpu-[1-2]-[01-02]").names == V{"gpu-1-01", "gpu-1-02", "gpu-2-01", "gpu-2-02"});
  CHECK(expand_hostlist("plain").names == V{"plain"});
}

TEST_CASE("malformed hostlists are refused with a reason") {
  CHECK_FALSE(expand_hostlist("n[1-").ok());
  CHECK_FALSE(expand_hostlist("n1-2]").ok());
  CHECK_FALSE(expand_hostlist("n[3-1]").ok());
  CHECK_FALSE(expand_hostlist("n[a-b]").ok());
  CHECK_FALSE(expand_hostlist("n[[1]]").ok());
  CHECK_FALSE(expand_hostlist("a,,b").ok());
  CHECK(expand_hostlist("n[3-1]").error.find("backwards") != std::string::npos);
}

TEST_CASE("hostlist expansion refuses to explode") {
  HostlistExpansion e = expand_hostlist("n[0-999999]-[0-999999]", 1000000);
  CHECK_FALSE(e.ok());
  CHECK(e.names.empty());
}

TEST_CASE("compression round-trips and finds ranges") {
  std::vector<std::string> names{"n001", "n002", "n003", "n005", "m1", "x"};
  std::string compressed = compress_hostlist(names);
  CHECK(compressed == "n[001-003,005],m1,x");
  CHECK(expand_hostlist(compressed).names == names);
  std::vector<std::string> unpadded{"n9", "n10", "n11", "n012"};
  CHECK(expand_hostlist(compress_hostlist(unpadded)).names == unpadded);
}

TEST_CASE("name patterns glob with hostlist brackets") {
  NamePattern p;
  std::string error;
  REQUIRE(p.parse("gpu[0-3]", error));
  CHECK(p.matches("gpu2"));
  CHECK_FALSE(p.matches("gpu4"));
  REQUIRE(p.parse("*/nic*", error));
  CHECK(p.matches("n01/nic3"));
  REQUIRE(p.parse("n?1", error));
  CHECK(p.matches("n01"));
  CHECK_FALSE(p.matches("n001"));
  CHECK_FALSE(p.parse("gpu[", error));
}
