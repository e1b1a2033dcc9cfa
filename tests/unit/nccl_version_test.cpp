// NCCL releases as runs and platforms state them.
#include "topoplan/model/nccl_version.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

namespace {

std::optional<NcclVersion> parse(const std::string& text) {
  std::string problem;
  return parse_nccl_version(text, problem);
}

std::string problem_of(const std::string& text) {
  std::string problem;
  CHECK_FALSE(parse_nccl_version(text, problem));
  return problem;
}

}  // namespace

TEST_CASE("NCCL versions parse as NCCL, its tags and its packages spell them") {
  CHECK(parse("2.26.2") == NcclVersion{2, 26, 2});
  CHECK(parse("v2.26.2-1") == NcclVersion{2, 26, 2});         // a git tag
  CHECK(parse("2.26.2+cuda12.8") == NcclVersion{2, 26, 2});  // a package
  CHECK(parse("2.29") == NcclVersion{2, 29, 0});
  CHECK(parse("2.29")->str() == "2.29.0");
  // Compared part by part, not as text.
  CHECK(*parse("2.9.9") < *parse("2.10.0"));
  CHECK(*parse("2.27.3") > *parse("2.27"));
}

TEST_CASE("bad NCCL versions say what is wrong and how to write one") {
  CHECK_THAT(problem_of("2.x"), Catch::Contains("'2.x'") && Catch::Contains("e.g. 2.26.2"));
  CHECK_THAT(problem_of(""), Catch::Contains("MAJOR.MINOR"));
  CHECK_THAT(problem_of("2"), Catch::Contains("MAJOR.MINOR"));
  CHECK_THAT(problem_of("2.26."), Catch::Contains("MAJOR.MINOR"));
  CHECK_THAT(problem_of("2.26.2.1"), Catch::Contains("more than three parts"));
  CHECK_THAT(problem_of("1.3.4"), Catch::Contains("older than NCCL 2"));
  CHECK_THAT(problem_of("2.99999"), Catch::Contains("out of range"));
}
