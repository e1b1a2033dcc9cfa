#include "topoplan/io/name_template.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

TEST_CASE("templates substitute, pad and offset") {
  TemplateScope scope;
  scope.set("i", 7LL);
  scope.set("rack", std::string("r0003"));
  std::string error;
  CHECK(expand_template("{rack}-n{i:02}", scope, error) == "r0003-n07");
  CHECK(expand_template("n{i+1:03}", scope, error) == "n008");
  CHECK(expand_template("{i*4}-{i-8}", scope, error) == "28--1");
  CHECK(expand_template("{{literal}}", scope, error) == "{literal}");
  CHECK(expand_template("{i/2}-{i%4}", scope, error) == "3-3");
}

TEST_CASE("later variables shadow earlier ones and truncate restores") {
  TemplateScope scope;
  scope.set("i", 1LL);
  std::size_t mark = scope.size();
  scope.set("i", 2LL);
  std::string error;
  CHECK(expand_template("{i}", scope, error) == "2");
  scope.truncate(mark);
  CHECK(expand_template("{i}", scope, error) == "1");
}

TEST_CASE("bad templates explain themselves") {
  TemplateScope scope;
  scope.set("racks", 4LL);
  scope.set("rack", std::string("r1"));
  std::string error;
  CHECK_FALSE(expand_template("{rakcs}", scope, error));
  CHECK(error.find("did you mean 'racks'") != std::string::npos);
  CHECK_FALSE(expand_template("{rack+1}", scope, error));
  CHECK(error.find("not a number") != std::string::npos);
  CHECK_FALSE(expand_template("{racks:99}", scope, error));
  CHECK_FALSE(expand_template("{racks", scope, error));
  CHECK_FALSE(expand_template("racks}", scope, error));
  CHECK_FALSE(expand_template("{racks^2}", scope, error));
  CHECK_FALSE(expand_template("{racks/0}", scope, error));
  CHECK(error.find("divides by zero") != std::string::npos);
}
