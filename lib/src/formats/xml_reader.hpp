// A strict reader for the subset of XML that NCCL and RCCL topology dumps
// use: one root element, nested elements with attributes, comments, an
// optional <?xml ...?> declaration and the five predefined entities plus
// numeric character references. Anything else (DOCTYPE, CDATA, processing
// instructions, text between elements) is refused with its line and column,
// so a hostile file cannot expand entities or hide content. Depth, element
// count and attribute count are bounded before anything is allocated for them.
//
// No XML library is among topoplan's dependencies; NCCL itself parses these
// files with a small hand-written reader (src/graph/xml.cc), and the subset is
// small enough that a bounded reader is easier to trust than a new dependency.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/support/error.hpp"

namespace topoplan::formats {

struct XmlAttribute {
  std::string name;
  std::string value;  // entities already replaced
  int line = 0;
  int column = 0;
};

struct XmlElement {
  std::string name;
  int line = 0;  // of the '<' that opens it
  int column = 0;
  std::vector<XmlAttribute> attributes;  // in document order, names unique
  std::vector<XmlElement> children;      // in document order

  /// The attribute called `name`, or nullptr.
  const XmlAttribute* attribute(std::string_view name) const;
};

struct XmlLimits {
  std::size_t max_bytes = 64u << 20;
  int max_depth = 32;
  std::size_t max_elements = 1'000'000;
  std::size_t max_attributes = 64;  // per element
};

/// The root element of `text`. Throws InputError naming `file`, line and
/// column for anything outside the subset or beyond `limits`.
XmlElement read_xml(std::string_view text, const std::string& file, const XmlLimits& limits = {});

}  // namespace topoplan::formats
