// Sizes with units, as --size and --sweep take them.
#include "topoplan/cost/byte_size.hpp"

#include <catch2/catch.hpp>

#include "topoplan/support/error.hpp"

using namespace topoplan;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_byte_size(text, "--size");
  } catch (const InputError& e) {
    return e.diagnostics().front().message;
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("sizes: bytes, nccl-tests' binary K/M/G, explicit binary and decimal units") {
  CHECK(parse_byte_size("1048576", "--size") == 1048576);
  CHECK(parse_byte_size("512B", "--size") == 512);
  CHECK(parse_byte_size("8G", "--size") == 8ull * 1024 * 1024 * 1024);
  CHECK(parse_byte_size("4k", "--size") == 4096);
  CHECK(parse_byte_size("256MiB", "--size") == 256ull * 1024 * 1024);
  CHECK(parse_byte_size("1GiB", "--size") == 1ull << 30);
  CHECK(parse_byte_size("1GB", "--size") == 1'000'000'000);
  CHECK(parse_byte_size("2mb", "--size") == 2'000'000);
  CHECK(parse_byte_size("1.5G", "--size") == 1610612736);
  CHECK(parse_byte_size("1T", "--size") == 1ull << 40);
  CHECK(parse_byte_size("1024T", "--size") == kMaxByteSize);
}

TEST_CASE("sizes that are not sizes are input errors naming the option") {
  CHECK(contains(error_of("-1"), "--size '-1': must be a positive number"));
  CHECK(contains(error_of("12Q"), "unknown unit 'Q'"));
  CHECK(contains(error_of(""), "is not a size"));
  CHECK(contains(error_of("G"), "is not a size"));
  CHECK(contains(error_of("0"), "at least one byte"));
  CHECK(contains(error_of("1.3"), "whole number of bytes"));
  CHECK(contains(error_of("1025T"), "larger than 1 PiB"));
  CHECK(contains(error_of("99999999999999999999999"), "larger than 1 PiB"));
}

TEST_CASE("size ranges and size names") {
  SizeRange r = parse_size_range("1K:16G", "--sweep");
  CHECK(r.from == 1024);
  CHECK(r.to == 16ull << 30);
  CHECK_THROWS_WITH(parse_size_range("16G:1K", "--sweep"), Catch::Contains("ends below its start"));
  CHECK_THROWS_WITH(parse_size_range("1K", "--sweep"), Catch::Contains("FROM:TO"));
  CHECK_THROWS_AS(parse_size_range("1K:2Q", "--sweep"), InputError);
  CHECK(format_byte_size(256ull << 20) == "256 MiB");
  CHECK(format_byte_size(1536) == "1.5 KiB");
  CHECK(format_byte_size(1000) == "1000 B");
  CHECK(format_byte_size(1000000) == "1000000 B");
}
