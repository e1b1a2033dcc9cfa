#include "topoplan/support/name_list.hpp"

#include <catch2/catch.hpp>

#include <array>

using namespace topoplan;

namespace {

constexpr std::array<std::string_view, 3> kNames = {"ll", "ll128", "simple"};

std::optional<NameList> parse(std::string_view text, std::string& problem, std::string_view separators = ",") {
  return parse_name_list(text, kNames, separators, problem);
}

}  // namespace

TEST_CASE("name list: names without case, in NCCL's syntax") {
  std::string problem;
  auto list = parse("Simple,LL", problem);
  REQUIRE(list);
  CHECK(list->named == 0b101u);
  CHECK_FALSE(list->excluded);
  CHECK(list->selected(0b111u) == 0b101u);
  CHECK(list->selected(0b011u) == 0b001u);  // only within `all`

  list = parse("^LL128", problem);
  REQUIRE(list);
  CHECK(list->excluded);
  CHECK(list->named == 0b010u);
  CHECK(list->selected(0b111u) == 0b101u);

  list = parse("ll+simple", problem, ",+");  // the calibration CSV's '+'
  REQUIRE(list);
  CHECK(list->named == 0b101u);
}

TEST_CASE("name list: unknown and empty names are refused with the reason") {
  std::string problem;
  CHECK_FALSE(parse("Simple,LL256", problem));
  CHECK(problem == "unknown name 'LL256'; NCCL's names are ll, ll128, simple");
  CHECK_FALSE(parse("", problem));
  CHECK(problem == "an empty name in the list");
  CHECK_FALSE(parse("^", problem));
  CHECK_FALSE(parse("ll,", problem));
  CHECK_FALSE(parse("ll+simple", problem));  // '+' is not a separator unless given
  CHECK(problem.find("'ll+simple'") != std::string::npos);
}
