#include "yaml/document.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <set>
#include <sstream>

namespace yaml {

struct Node::Impl {
  YAML::Node node;
  std::shared_ptr<const std::string> source;
};

Node::Node() = default;
Node::Node(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

bool Node::IsNull() const { return !impl_ || !impl_->node.IsDefined() || impl_->node.IsNull(); }
bool Node::IsScalar() const { return impl_ && impl_->node.IsScalar(); }
bool Node::IsSequence() const { return impl_ && impl_->node.IsSequence(); }
bool Node::IsMap() const { return impl_ && impl_->node.IsMap(); }

const char* Node::KindName() const {
  if (IsScalar()) return "a value";
  if (IsSequence()) return "a list";
  if (IsMap()) return "a map";
  return "nothing";
}

int Node::Line() const {
  if (!impl_ || !impl_->node.IsDefined()) return 0;
  const YAML::Mark mark = impl_->node.Mark();
  return mark.is_null() ? 0 : mark.line + 1;
}

std::string Node::Where() const {
  if (!impl_) return "";
  const int line = Line();
  return line == 0 ? *impl_->source : *impl_->source + ":" + std::to_string(line);
}

graph::Status Node::Error(const std::string& problem) const {
  const std::string where = Where();
  return graph::InvalidArgument(where.empty() ? problem : where + ": " + problem);
}

std::string Node::Scalar() const { return IsScalar() ? impl_->node.Scalar() : std::string(); }

std::optional<int64_t> Node::AsInt() const {
  // Decimal only: yaml-cpp's own conversion reads "010" as 8 and "0x100" as
  // 256, where every other reader of the same file reads 10.
  if (!IsScalar()) return std::nullopt;
  const std::string& text = impl_->node.Scalar();
  const char* begin = text.data() + (text.size() > 1 && text[0] == '+' ? 1 : 0);
  const char* end = text.data() + text.size();
  int64_t v = 0;
  auto [p, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || p != end) return std::nullopt;
  return v;
}

std::optional<double> Node::AsNumber() const {
  double v = 0;
  if (!IsScalar() || !YAML::convert<double>::decode(impl_->node, v) || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

std::vector<Node> Node::Items() const {
  std::vector<Node> items;
  if (!IsSequence()) return items;
  for (const YAML::Node& item : impl_->node) {
    items.push_back(Node(std::make_shared<const Impl>(Impl{item, impl_->source})));
  }
  return items;
}

graph::Result<std::vector<Entry>> Node::Entries(const std::string& context) const {
  std::vector<Entry> entries = Pairs();
  // yaml-cpp keeps both copies of a repeated key, which would let a later
  // value silently shadow an earlier one: refused here, for every file.
  std::set<std::string> seen;
  for (const Entry& e : entries) {
    if (!e.key_node.IsScalar()) return e.key_node.Error(context + ": keys must be plain names");
    if (!seen.insert(e.key).second) {
      return e.key_node.Error(context + ": duplicate key '" + e.key + "'");
    }
  }
  return entries;
}

std::vector<Entry> Node::Pairs() const {
  std::vector<Entry> entries;
  if (!IsMap()) return entries;
  for (const auto& kv : impl_->node) {
    entries.push_back(Entry{kv.first.IsScalar() ? kv.first.Scalar() : std::string(),
                            Node(std::make_shared<const Impl>(Impl{kv.first, impl_->source})),
                            Node(std::make_shared<const Impl>(Impl{kv.second, impl_->source}))});
  }
  return entries;
}

Node Node::Get(const std::string& key) const {
  if (!IsMap()) return Node();
  for (const auto& kv : impl_->node) {
    if (kv.first.IsScalar() && kv.first.Scalar() == key) {
      return Node(std::make_shared<const Impl>(Impl{kv.second, impl_->source}));
    }
  }
  return Node();
}

size_t Node::size() const { return IsSequence() || IsMap() ? impl_->node.size() : 0; }

namespace {

// Whether a document held anything: a node other than the null that stands
// for an empty one.
class ContentSeen : public YAML::EventHandler {
 public:
  bool content = false;
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { content = true; }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {
    content = true;
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    content = true;
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    content = true;
  }
  void OnMapEnd() override {}
};

// How many documents `text` holds, counting on to the first empty one after
// the first. Not YAML::LoadAll: yaml-cpp 0.7's (Debian bookworm's) loops
// forever on some invalid input, a file holding only "," among them, adding
// an empty document each time until memory runs out (jbeder/yaml-cpp#1040,
// fixed upstream in 2024 by stopping at the first empty document, as here).
int CountDocuments(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  int documents = 0;
  for (;;) {
    ContentSeen seen;
    if (!parser.HandleNextDocument(seen) || (documents > 0 && !seen.content)) break;
    ++documents;
  }
  return documents;
}

// "FILE:LINE" where yaml-cpp knows the line, else "FILE".
std::string Where(const std::string& source, const YAML::Exception& e) {
  return e.mark.is_null() ? source : source + ":" + std::to_string(e.mark.line + 1);
}
}  // namespace

graph::Result<Node> Parse(const std::string& text, const std::string& source) {
  auto name = std::make_shared<const std::string>(source);
  try {
    const int documents = CountDocuments(text);
    if (documents > 1) {
      return graph::InvalidArgument(source + ": holds " + std::to_string(documents) +
                                    " YAML documents; expected one");
    }
    return Node(std::make_shared<const Node::Impl>(Node::Impl{YAML::Load(text), name}));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's message for it is "bad file", which reads as an unreadable file.
    return graph::InvalidArgument(Where(source, e) +
                                  ": invalid YAML: nested too deeply (the parser stops at depth " +
                                  std::to_string(e.depth()) + ")");
  } catch (const YAML::Exception& e) {
    return graph::InvalidArgument(Where(source, e) + ": invalid YAML: " + e.msg);
  }
}

struct Writer::Impl {
  YAML::Emitter emitter;
};

Writer::Writer() : impl_(std::make_unique<Impl>()) {}
Writer::~Writer() = default;

void Writer::Comment(const std::string& text) { impl_->emitter << YAML::Comment(text); }
void Writer::BeginMap() { impl_->emitter << YAML::BeginMap; }
void Writer::EndMap() { impl_->emitter << YAML::EndMap; }
namespace {

// Whether a YAML 1.1 reader (PyYAML's safe_load, which the scripts beside a
// placement use) would read the plain scalar `s` as other than a string: a
// boolean ("yes", "on"), a null ("~"), or a number ("1.5", "0x1F", "007",
// ".nan", "1_000"). yaml-cpp writes those plain, and reads them back as
// strings itself; they are written double-quoted. Anything that starts like a
// number is quoted, which can only quote more than needed.
bool ReadsAsNonString(const std::string& s) {
  static const std::set<std::string> kWords = {
      "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
      "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~", "",
      // YAML 1.1's value and merge keys: PyYAML's safe_load refuses either
      // plain (an ONNX node may be named anything).
      "=", "<<"};
  if (kWords.count(s)) return true;
  const char c = s[0];
  return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

void Scalar(YAML::Emitter& e, const std::string& s) {
  if (ReadsAsNonString(s)) e << YAML::DoubleQuoted;
  e << s;
}

}  // namespace

void Writer::Key(const std::string& key) {
  impl_->emitter << YAML::Key;
  Scalar(impl_->emitter, key);
}
void Writer::Value(const std::string& value) {
  impl_->emitter << YAML::Value;
  Scalar(impl_->emitter, value);
}
void Writer::Value(double value) { impl_->emitter << YAML::Value << value; }
void Writer::DoublePrecision(int digits) { impl_->emitter.SetDoublePrecision(digits); }

graph::Result<std::string> Writer::Text() const {
  if (!impl_->emitter.good()) {
    return graph::Internal("cannot write YAML: " + impl_->emitter.GetLastError());
  }
  return std::string(impl_->emitter.c_str()) + "\n";
}

}  // namespace yaml
