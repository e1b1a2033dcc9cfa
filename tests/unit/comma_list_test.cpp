#include "topoplan/support/comma_list.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace topoplan;
using Items = std::vector<std::string>;

TEST_CASE("comma list: items in order, without empty ones or the spaces around them") {
  struct Case {
    const char* list;
    Items items;
  };
  const Case cases[] = {
      {"topo,kueue,slurm", {"topo", "kueue", "slurm"}},
      {"topo", {"topo"}},
      {"", {}},
      {",", {}},
      {"topo,", {"topo"}},  // a trailing comma
      {",topo", {"topo"}},  // a leading one
      {"topo,,kueue", {"topo", "kueue"}},
      {"topo, kueue", {"topo", "kueue"}},  // a space after the comma, as people type
      {" topo ,\tkueue\t", {"topo", "kueue"}},
      {" , ,", {}},  // items of spaces only are empty
      {"0.25,0.5,1", {"0.25", "0.5", "1"}},
      {"a b,c", {"a b", "c"}},              // spaces inside an item stay
      {"kueue,kueue", {"kueue", "kueue"}},  // duplicates are the caller's to refuse
  };
  for (const Case& c : cases) {
    INFO("list '" << c.list << "'");
    CHECK(split_comma_list(c.list) == c.items);
  }
}
