#include "topoplan/io/hostlist.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

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

TEST_CASE("compression merges every number position and keeps the order") {
  std::vector<std::string> names;
  for (int r = 4; r <= 6; ++r)
    for (int n = 0; n < 18; ++n)
      for (int g = 0; g < 4; ++g) names.push_back(fmt::format("r{:04}-n{:02}/gpu{}", r, n, g));
  CHECK(compress_hostlist(names) == "r[0004-0006]-n[00-17]/gpu[0-3]");
  CHECK(expand_hostlist(compress_hostlist(names)).names == names);
  // A hole or a reordering must not be papered over.
  std::vector<std::string> holey = names;
  holey.erase(holey.begin() + 5);
  CHECK(expand_hostlist(compress_hostlist(holey)).names == holey);
  std::vector<std::string> shuffled{"a1-b2", "a1-b1", "a0-b2", "a0-b1", "a0-b1", "c", "a7"};
  CHECK(expand_hostlist(compress_hostlist(shuffled)).names == shuffled);
  CHECK(compress_hostlist({"gpu0", "gpu1", "nic0", "nic1"}) == "gpu[0-1],nic[0-1]");
  CHECK(compress_hostlist({}) == "");
}

TEST_CASE("compression round-trips arbitrary name lists") {
  // Deterministic pseudo-random lists over a small alphabet, so that merges,
  // padding and duplicates all occur.
  std::uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff; };
  const char* parts[] = {"n", "0", "01", "9", "10", "-", "/gpu", "x", "007"};
  for (int round = 0; round < 500; ++round) {
    std::vector<std::string> names;
    std::size_t count = next() % 12;
    for (std::size_t i = 0; i < count; ++i) {
      std::string name;
      std::size_t len = 1 + next() % 5;
      for (std::size_t p = 0; p < len; ++p) name += parts[next() % 9];
      names.push_back(name);
    }
    std::string c = compress_hostlist(names);
    INFO(c);
    CHECK(expand_hostlist(c).names == names);
  }
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

TEST_CASE("name patterns of many alternatives match as the alternatives one by one would") {
  // Past a few alternatives the pattern indexes them by their literal start;
  // every shape (literal, prefix, glob, any) must still be found.
  NamePattern p;
  std::string error;
  REQUIRE(p.parse("r[0000-1819]-n*/gpu?,spare[1-20],x*[0-9]y,c[0-9]", error));
  CHECK(p.matches("r0000-n00/gpu3"));
  CHECK(p.matches("r1819-n17/gpu0"));
  CHECK_FALSE(p.matches("r1820-n00/gpu0"));
  CHECK_FALSE(p.matches("r0000-n00/gpu10"));
  CHECK(p.matches("spare7"));
  CHECK_FALSE(p.matches("spare21"));
  CHECK(p.matches("xabc5y"));
  CHECK_FALSE(p.matches("xabc5z"));
  CHECK(p.matches("c9"));
  CHECK_FALSE(p.matches("c10"));
  REQUIRE(p.parse("n[0-20],*", error));
  CHECK(p.matches("anything"));
  REQUIRE(p.parse("n[0-20],m*", error));
  CHECK(p.matches("m"));
  CHECK(p.matches("n20"));
  CHECK_FALSE(p.matches("n21"));
  CHECK_FALSE(p.matches(""));
}

TEST_CASE("name patterns of many alternatives sharing their start are indexed by what differs") {
  // The oracle: each alternative alone, which a pattern of one scans.
  const char* patterns[] = {
      "n*n[0-40]",         // differ at the end
      "n*x[0-40]*",        // in the middle
      "n*x[0-40]?y",       // in the middle, then one character
      "r[00-12]-n*/gpu?",  // at the start
      "?[0-40]",           // after a '?'
      "a*b*c[0-20],*z,[1-9]",
      "x[0-20],?*?",     // one without any literal run
      "n[0-20]*n[0-2]",  // two runs that each differ
  };
  std::vector<std::string> names = {"", "n", "nn", "y", "z", "abc3", "a-b-c20", "r12-n4/gpu1", "r13-n4/gpu1", "zz"};
  for (int i = 0; i <= 45; ++i) {
    const std::string n = std::to_string(i);
    for (const std::string& name : {"n" + n, "nn" + n, "nqn" + n, "nx" + n, "nyx" + n + "w", "nx" + n + "ay",
                                    "nx" + n + "y", "q" + n, "x" + n, "n" + n + "n1", "n" + n + "pn" + n})
      names.push_back(name);
  }
  for (const char* text : patterns) {
    NamePattern pattern;
    std::string error;
    REQUIRE(pattern.parse(text, error));
    std::vector<NamePattern> alone;
    for (const std::string& alternative : expand_hostlist(text).names) {
      REQUIRE(alone.emplace_back().parse(alternative, error));
    }
    REQUIRE(alone.size() > 8);  // past the scanned size, so the index is what answers
    std::size_t hits = 0;
    for (const std::string& name : names) {
      INFO(text << " against '" << name << "'");
      const bool expected =
          std::any_of(alone.begin(), alone.end(), [&](const NamePattern& p) { return p.matches(name); });
      CHECK(pattern.matches(name) == expected);
      hits += expected ? 1 : 0;
    }
    INFO(text);
    CHECK(hits > 0);  // the names exercise both answers
    CHECK(hits < names.size());
  }
}
