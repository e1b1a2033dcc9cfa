// The YAML tree over libyaml (lib/src/io/yaml_tree.hpp): node kinds, nulls,
// positions, aliases, and hostile documents.
#include <catch2/catch.hpp>

#include <string>

#include "../../lib/src/io/yaml_tree.hpp"

using topoplan::yaml::Document;
using topoplan::yaml::Node;

namespace {

Node one(const std::string& text) {
  auto docs = Document::parse(text);
  REQUIRE(docs.size() == 1);
  return docs.front();
}

std::string error_of(const std::string& text) {
  try {
    Document::parse(text);
  } catch (const Document::ParseError& e) {
    return std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + " " + e.message;
  }
  return "";
}

}  // namespace

TEST_CASE("yaml tree: kinds, lookups and iteration") {
  Node doc = one("name: a\nlist: [1, 2, 3]\nmap: {x: 1, y: two}\nempty:\nq: \"null\"\nn: ~\n");
  CHECK(doc.IsMap());
  CHECK(doc.size() == 6);
  CHECK(doc["name"].Scalar() == "a");
  CHECK(doc["list"].IsSequence());
  CHECK(doc["list"].size() == 3);
  CHECK(doc["list"][1].Scalar() == "2");
  CHECK_FALSE(doc["list"][3].IsDefined());
  CHECK(doc["map"]["y"].as<std::string>() == "two");
  CHECK(doc["empty"].IsDefined());
  CHECK(doc["empty"].IsNull());
  CHECK(doc["n"].IsNull());
  CHECK(doc["q"].IsScalar());  // quoted: text, not null
  CHECK(doc["q"].IsQuoted());
  CHECK_FALSE(doc["missing"].IsDefined());
  std::string keys;
  for (const auto& entry : doc) keys += entry.first.Scalar() + ",";
  CHECK(keys == "name,list,map,empty,q,n,");
  std::string items;
  for (const Node& item : doc["list"]) items += item.Scalar();
  CHECK(items == "123");
  auto it = doc["map"].begin();
  CHECK(it->first.Scalar() == "x");
  CHECK(it->second.Scalar() == "1");
}

TEST_CASE("yaml tree: nothing throws on the wrong kind") {
  Node doc = one("a: 1\n");
  CHECK_FALSE(doc["a"]["b"].IsDefined());   // a key of a scalar
  CHECK_FALSE(doc[0].IsDefined());          // an index of a map
  CHECK(doc.Scalar().empty());              // the text of a map
  CHECK(doc["a"].size() == 0);
  CHECK(Node()["x"].size() == 0);
  CHECK(Node().begin() == Node().end());
}

TEST_CASE("yaml tree: positions are where nodes start") {
  Node doc = one("jobs:\n  - name: a\n    gpus: 8\n  - {name: b, gpus: 4}\n");
  CHECK(doc["jobs"][0]["gpus"].Mark().line == 2);
  CHECK(doc["jobs"][0]["gpus"].Mark().column == 10);
  CHECK(doc["jobs"][1].Mark().line == 3);
  CHECK(doc["jobs"][1].Mark().column == 4);
  CHECK(doc["jobs"][1]["name"].Mark().column == 11);
}

TEST_CASE("yaml tree: several documents, and an empty stream") {
  auto docs = Document::parse("a: 1\n---\nb: 2\n");
  REQUIRE(docs.size() == 2);
  CHECK(docs[1]["b"].Scalar() == "2");
  CHECK(Document::parse("").empty());
  CHECK(Document::parse("# only a comment\n").empty());
}

TEST_CASE("yaml tree: aliases share their node, bombs, loops and unknown anchors are refused") {
  Node doc = one("base: &b {x: 1}\nuse: *b\n");
  CHECK(doc["use"]["x"].Scalar() == "1");
  CHECK(doc["use"].is(doc["base"]));

  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'k'; ++c)
    bomb += std::string(1, c) + ": &" + c + " [*" + static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) +
            ", *" + static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) +
            ", *" + static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) +
            ", *" + static_cast<char>(c - 1) + ", *" + static_cast<char>(c - 1) + "]\n";
  CHECK_THAT(error_of(bomb), Catch::Contains("billion-laughs"));
  CHECK_THAT(error_of("a: *nowhere\n"), Catch::Contains("unknown alias '*nowhere'"));
  CHECK_THAT(error_of("a: &x [1, *x]\n"), Catch::Contains("contains it"));
}

TEST_CASE("yaml tree: deep nesting and syntax errors have positions") {
  CHECK_THAT(error_of(std::string(300, '[') + std::string(300, ']')), Catch::Contains("nesting deeper than 256"));
  CHECK(error_of(std::string(200, '[') + std::string(200, ']')).empty());
  CHECK_THAT(error_of("a: [1, 2\nb: 3\n"), Catch::StartsWith("2:"));
  CHECK_THAT(error_of("name: [unclosed"), Catch::StartsWith("1:16 "));
  CHECK_THAT(error_of("a: 1\n  b: 2\n"), Catch::StartsWith("2:"));
}
