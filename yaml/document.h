// The one adapter to yaml-cpp: parses YAML text into Nodes that know where in
// their file they are, reads them with our errors, and writes YAML. Nothing
// here throws, and no yaml-cpp type appears in this header.
//
// Errors name the place: "<source>:<line>: <problem>" (the line 1-based, left
// out where yaml-cpp does not know it).
//
// Ownership and thread safety: a Node shares the parsed document; copies are
// cheap and keep it alive. Nodes of one document are read-only but yaml-cpp's
// reads are not safe from several threads at once: use a document from one
// thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/status.h"

namespace yaml {

struct Entry;

class Node {
 public:
  Node();  // nothing: an absent key, an empty document

  bool IsNull() const;  // nothing, or YAML's null ("~", or a key with no value)
  bool IsScalar() const;
  bool IsSequence() const;
  bool IsMap() const;
  // "a value", "a list", "a map" or "nothing", for error messages.
  const char* KindName() const;

  // "<source>:<line>" where the node starts, or "<source>" where unknown.
  std::string Where() const;
  // The 1-based line, or 0 where unknown.
  int Line() const;
  // The error "<Where()>: <problem>" (kInvalidArgument).
  graph::Status Error(const std::string& problem) const;

  // A scalar's text; empty for any other node.
  std::string Scalar() const;
  // A scalar as a whole decimal number ("010" is 10; "0x10" is none), or
  // nothing (not a scalar, not a number, out of int64's range).
  std::optional<int64_t> AsInt() const;
  // A scalar as a finite number (1.5, 1e-3), or nothing (.inf and .nan too).
  std::optional<double> AsNumber() const;

  // The elements of a list (none for any other node).
  std::vector<Node> Items() const;
  // The entries of a map in file order, each key a distinct scalar: else the
  // error "<where>: <context>: keys must be plain names" or
  // "...: <context>: duplicate key 'K'". A node that is not a map has none.
  graph::Result<std::vector<Entry>> Entries(const std::string& context) const;
  // The entries of a map in file order as they are: keys may repeat, and a key
  // that is not a scalar has empty text (for a caller with its own wording).
  std::vector<Entry> Pairs() const;
  // The value of `key` in a map; nothing (whose Where() is empty) when absent
  // or not a map.
  Node Get(const std::string& key) const;
  size_t size() const;  // elements of a list, entries of a map, else 0

 private:
  struct Impl;
  explicit Node(std::shared_ptr<const Impl> impl);
  friend graph::Result<Node> Parse(const std::string& text, const std::string& source);
  std::shared_ptr<const Impl> impl_;
};

struct Entry {
  std::string key;
  Node key_node;  // where the key is: a value's errors point here when the value is empty
  Node value;
};

// Parses a file's text holding at most one YAML document (none: a null node).
// Syntax errors read "<source>:<line>: invalid YAML: <yaml-cpp's message>".
graph::Result<Node> Parse(const std::string& text, const std::string& source);

// Writes a YAML document of nested maps of scalars in the order given, as
// yaml-cpp's emitter formats them. Unbalanced calls (a map closed that was
// never opened) are programmer errors: yaml-cpp asserts.
class Writer {
 public:
  Writer();
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void Comment(const std::string& text);
  void BeginMap();
  void EndMap();
  void Key(const std::string& key);
  void Value(const std::string& value);
  void Value(double value);
  // Significant digits of the doubles written from here on.
  void DoublePrecision(int digits);
  // "key: value" inside the current map.
  template <typename T>
  void Pair(const std::string& key, const T& value) {
    Key(key);
    Value(value);
  }
  // The document, with a final newline; kInternal when yaml-cpp could not
  // encode it.
  graph::Result<std::string> Text() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace yaml
