#include "xml_reader.hpp"

#include <fmt/format.h>

namespace topoplan::formats {

const XmlAttribute* XmlElement::attribute(std::string_view attribute_name) const {
  for (const XmlAttribute& a : attributes)
    if (a.name == attribute_name) return &a;
  return nullptr;
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'; }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

// What to show of a character in a message: printable ASCII as itself, the
// rest as a code.
std::string shown(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", u);
}

class Reader {
 public:
  Reader(std::string_view text, const std::string& file, const XmlLimits& limits)
      : text_(text), file_(file), limits_(limits) {}

  XmlElement document() {
    if (text_.size() > limits_.max_bytes)
      throw InputError({file_, 0, 0}, fmt::format("the file is larger than {} MiB", limits_.max_bytes >> 20));
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") skip(3);  // UTF-8 byte order mark
    if (text_.substr(pos_, 5) == "<?xml") declaration();
    misc();
    if (at_end()) fail("the file has no XML element");
    if (peek() != '<') fail(fmt::format("expected '<' to open the root element, found {}", shown(peek())));
    XmlElement root = element(1);
    misc();
    if (!at_end()) fail("only comments may follow the root element");
    return root;
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }
  bool looking_at(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }

  // Moves over `n` characters, keeping line and column; refuses control
  // characters, which XML does not allow anywhere.
  void skip(std::size_t n = 1) {
    for (std::size_t k = 0; k < n && !at_end(); ++k) {
      char c = text_[pos_];
      auto u = static_cast<unsigned char>(c);
      if (u < 0x20 && c != '\t' && c != '\n' && c != '\r') fail(fmt::format("control character {} is not allowed", shown(c)));
      ++pos_;
      if (c == '\n') {
        ++line_;
        column_ = 1;
      } else {
        ++column_;
      }
    }
  }

  [[noreturn]] void fail(std::string message) const { throw InputError({file_, line_, column_}, std::move(message)); }
  [[noreturn]] void fail_at(int line, int column, std::string message) const {
    throw InputError({file_, line, column}, std::move(message));
  }

  void spaces() {
    while (!at_end() && is_space(peek())) skip();
  }

  void expect(std::string_view s, std::string_view what) {
    if (!looking_at(s)) {
      if (at_end()) fail(fmt::format("the file ends before {}", what));
      fail(fmt::format("expected {}, found {}", what, shown(peek())));
    }
    skip(s.size());
  }

  // <?xml version="1.0" ...?>: only its presence matters.
  void declaration() {
    std::size_t end = text_.find("?>", pos_);
    if (end == std::string_view::npos) fail("the XML declaration is not closed with '?>'");
    skip(end + 2 - pos_);
  }

  void comment() {
    int line = line_, column = column_;
    std::size_t end = text_.find("-->", pos_ + 4);
    if (end == std::string_view::npos) fail_at(line, column, "comment is not closed with '-->'");
    skip(end + 3 - pos_);
  }

  // Whitespace and comments between elements; anything else of XML's prolog
  // is outside the subset.
  void misc() {
    for (;;) {
      spaces();
      if (looking_at("<!--")) {
        comment();
      } else if (looking_at("<!DOCTYPE") || looking_at("<!ENTITY")) {
        fail("DOCTYPE and ENTITY declarations are not supported (NCCL dumps have none)");
      } else if (looking_at("<![CDATA[")) {
        fail("CDATA sections are not supported (NCCL dumps have none)");
      } else if (looking_at("<?")) {
        fail("processing instructions other than the leading <?xml ...?> declaration are not supported");
      } else {
        return;
      }
    }
  }

  std::string name(std::string_view what) {
    if (at_end() || !is_name_start(peek()))
      fail(at_end() ? fmt::format("the file ends before {}", what)
                    : fmt::format("expected {}, found {}", what, shown(peek())));
    std::size_t start = pos_;
    while (!at_end() && is_name_char(peek())) skip();
    return std::string(text_.substr(start, pos_ - start));
  }

  // &lt; &gt; &amp; &quot; &apos; and &#N; / &#xN; (appended as UTF-8).
  void entity(std::string& out) {
    int line = line_, column = column_;
    // Entities are short; looking further would make a file of '&'s quadratic.
    std::size_t end = text_.substr(0, pos_ + 12).find(';', pos_);
    if (end == std::string_view::npos) fail_at(line, column, "'&' does not start an entity");
    std::string_view ref = text_.substr(pos_ + 1, end - pos_ - 1);
    skip(end + 1 - pos_);
    if (ref == "lt") return out.push_back('<');
    if (ref == "gt") return out.push_back('>');
    if (ref == "amp") return out.push_back('&');
    if (ref == "quot") return out.push_back('"');
    if (ref == "apos") return out.push_back('\'');
    if (ref.size() < 2 || ref[0] != '#')
      fail_at(line, column, fmt::format("unknown entity '&{};' (only the five predefined ones are allowed)", ref));
    bool hex = ref[1] == 'x';
    std::string_view digits = ref.substr(hex ? 2 : 1);
    if (digits.empty()) fail_at(line, column, fmt::format("bad character reference '&{};'", ref));
    unsigned long code = 0;
    for (char c : digits) {
      int d = (c >= '0' && c <= '9') ? c - '0'
              : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
              : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                            : -1;
      if (d < 0) fail_at(line, column, fmt::format("bad character reference '&{};'", ref));
      code = code * (hex ? 16u : 10u) + static_cast<unsigned long>(d);
      if (code > 0x10FFFF) fail_at(line, column, fmt::format("character reference '&{};' is out of range", ref));
    }
    if (code == 0 || (code >= 0xD800 && code <= 0xDFFF) || (code < 0x20 && code != 9 && code != 10 && code != 13))
      fail_at(line, column, fmt::format("character reference '&{};' is not an XML character", ref));
    auto byte = [&](unsigned long v) { out.push_back(static_cast<char>(static_cast<unsigned char>(v))); };
    if (code < 0x80) {
      byte(code);
    } else if (code < 0x800) {
      byte(0xC0 | (code >> 6));
      byte(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      byte(0xE0 | (code >> 12));
      byte(0x80 | ((code >> 6) & 0x3F));
      byte(0x80 | (code & 0x3F));
    } else {
      byte(0xF0 | (code >> 18));
      byte(0x80 | ((code >> 12) & 0x3F));
      byte(0x80 | ((code >> 6) & 0x3F));
      byte(0x80 | (code & 0x3F));
    }
  }

  XmlAttribute attribute(const XmlElement& owner) {
    XmlAttribute a;
    a.line = line_;
    a.column = column_;
    a.name = name("an attribute name");
    if (owner.attribute(a.name))
      fail_at(a.line, a.column, fmt::format("attribute '{}' appears twice in <{}>", a.name, owner.name));
    spaces();
    expect("=", fmt::format("'=' after attribute '{}'", a.name));
    spaces();
    if (at_end() || (peek() != '"' && peek() != '\''))
      fail(fmt::format("the value of attribute '{}' must be quoted", a.name));
    char quote = peek();
    int line = line_, column = column_;
    skip();
    for (;;) {
      if (at_end()) fail_at(line, column, fmt::format("the value of attribute '{}' is not closed", a.name));
      char c = peek();
      if (c == quote) break;
      if (c == '<') fail(fmt::format("'<' is not allowed in the value of attribute '{}'", a.name));
      if (c == '&') {
        entity(a.value);
        continue;
      }
      // XML attribute-value normalisation: whitespace characters become spaces.
      a.value.push_back(is_space(c) ? ' ' : c);
      skip();
    }
    skip();
    return a;
  }

  XmlElement element(int depth) {
    if (depth > limits_.max_depth) fail(fmt::format("elements are nested deeper than {} levels", limits_.max_depth));
    if (++elements_ > limits_.max_elements) fail(fmt::format("the file has more than {} elements", limits_.max_elements));
    XmlElement e;
    e.line = line_;
    e.column = column_;
    skip();  // '<'
    e.name = name("an element name after '<'");
    for (;;) {
      bool had_space = !at_end() && is_space(peek());
      spaces();
      if (at_end()) fail_at(e.line, e.column, fmt::format("<{}> is not closed", e.name));
      if (looking_at("/>")) {
        skip(2);
        return e;
      }
      if (peek() == '>') {
        skip();
        break;
      }
      if (!had_space) fail(fmt::format("expected a space, '>' or '/>' in <{}>, found {}", e.name, shown(peek())));
      if (e.attributes.size() == limits_.max_attributes)
        fail(fmt::format("<{}> has more than {} attributes", e.name, limits_.max_attributes));
      e.attributes.push_back(attribute(e));
    }
    for (;;) {
      spaces();
      if (at_end()) fail_at(e.line, e.column, fmt::format("<{}> is never closed (no </{}>)", e.name, e.name));
      if (looking_at("</")) {
        int line = line_, column = column_;
        skip(2);
        std::string closing = name("an element name after '</'");
        if (closing != e.name)
          fail_at(line, column,
                  fmt::format("</{}> does not match <{}> opened at line {}, column {}", closing, e.name, e.line, e.column));
        spaces();
        expect(">", fmt::format("'>' to end </{}>", closing));
        return e;
      }
      if (looking_at("<!--")) {
        comment();
        continue;
      }
      if (looking_at("<!") || looking_at("<?")) misc();
      if (peek() == '<') {
        e.children.push_back(element(depth + 1));
        continue;
      }
      fail(fmt::format("unexpected text inside <{}>: topology elements carry only attributes", e.name));
    }
  }

  std::string_view text_;
  const std::string& file_;
  const XmlLimits& limits_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
  std::size_t elements_ = 0;
};

}  // namespace

XmlElement read_xml(std::string_view text, const std::string& file, const XmlLimits& limits) {
  return Reader(text, file, limits).document();
}

}  // namespace topoplan::formats
