// The fleet's messages on the wire: one wire::pb::Envelope per ZeroMQ message
// (wire/proto/fleet.proto), versioned and size-limited.
//
// Contract: Decode never trusts its input. Bytes over the limit, bytes that do
// not parse, an envelope of another protocol version and one without a body
// are errors whose one-line message says which (the caller adds the peer).
// Thread safety: free functions, no shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "graph/status.h"
#include "wire/proto/fleet.pb.h"

namespace wire {

// Bumped on any change a peer of the previous version would misread (2: Model.apart,
// the gradient ops placed apart, which a version-1 worker would not place).
constexpr uint32_t kProtocolVersion = 2;

// Default limit on one message (a model crosses the wire in one).
constexpr size_t kDefaultMaxMessageBytes = size_t{256} << 20;

// The envelope's bytes, with `version` set to kProtocolVersion.
std::string Encode(pb::Envelope envelope);

graph::Result<pb::Envelope> Decode(const std::string& bytes,
                                   size_t max_bytes = kDefaultMaxMessageBytes);

// The body's name ("hello", "result", ...), for logs.
const char* BodyName(const pb::Envelope& envelope);

}  // namespace wire
