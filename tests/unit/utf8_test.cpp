#include "topoplan/support/utf8.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

TEST_CASE("utf8: sequences of one to four bytes, and what is not UTF-8") {
  CHECK(utf8_sequence_length("a", 0) == 1);
  CHECK(utf8_sequence_length("\xC3\xA9", 0) == 2);          // é
  CHECK(utf8_sequence_length("\xE4\xB8\xAD", 0) == 3);      // 中
  CHECK(utf8_sequence_length("\xF0\x9F\x98\x80", 0) == 4);  // U+1F600
  CHECK(utf8_sequence_length("\xE9", 0) == 0);              // Latin-1 é
  CHECK(utf8_sequence_length("\x80", 0) == 0);              // a stray continuation byte
  CHECK(utf8_sequence_length("\xC3", 0) == 0);              // cut off
  CHECK(utf8_sequence_length("\xC0\xAF", 0) == 0);          // overlong '/'
  CHECK(utf8_sequence_length("\xED\xA0\x80", 0) == 0);      // a surrogate
  CHECK(utf8_sequence_length("\xF4\x90\x80\x80", 0) == 0);  // above U+10FFFF
  CHECK(first_invalid_utf8("ok é 中") == std::string_view::npos);
  CHECK(first_invalid_utf8("caf\xE9!") == 3);
}

TEST_CASE("utf8: repairing replaces each bad byte and keeps the rest") {
  CHECK(repair_utf8("caf\xE9 \xC3\xA9") == "caf\xEF\xBF\xBD \xC3\xA9");
  CHECK(repair_utf8("\xFF\xFE", "_") == "__");
  CHECK(repair_utf8("plain") == "plain");
}
