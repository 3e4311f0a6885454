#include "wire/codec.h"

#include <google/protobuf/stubs/logging.h>

namespace wire {

std::string Encode(pb::Envelope envelope) {
  envelope.set_version(kProtocolVersion);
  return envelope.SerializeAsString();
}

graph::Result<pb::Envelope> Decode(const std::string& bytes, size_t max_bytes) {
  if (bytes.size() > max_bytes) {
    return graph::InvalidArgument("message of " + std::to_string(bytes.size()) +
                                  " bytes is over the limit of " + std::to_string(max_bytes));
  }
  pb::Envelope e;
  const google::protobuf::LogSilencer quiet;  // a peer's bytes never reach our stderr raw
  if (!e.ParseFromString(bytes)) {
    return graph::InvalidArgument("message of " + std::to_string(bytes.size()) +
                                  " bytes is not a fleet envelope");
  }
  // Every envelope we send has a version (Encode); none at all is bytes that
  // happened to parse (an empty frame does), not a peer of another version.
  if (e.version() == 0) {
    return graph::InvalidArgument("message of " + std::to_string(bytes.size()) +
                                  " bytes is not a fleet envelope (it has no protocol version)");
  }
  if (e.version() != kProtocolVersion) {
    return graph::InvalidArgument("message speaks protocol version " + std::to_string(e.version()) +
                                  ", this build speaks " + std::to_string(kProtocolVersion));
  }
  if (e.body_case() == pb::Envelope::BODY_NOT_SET) {
    return graph::InvalidArgument("message has no body (an unknown kind?)");
  }
  return e;
}

const char* BodyName(const pb::Envelope& e) {
  switch (e.body_case()) {
    case pb::Envelope::kHello:
      return "hello";
    case pb::Envelope::kWelcome:
      return "welcome";
    case pb::Envelope::kRefuse:
      return "refuse";
    case pb::Envelope::kReregister:
      return "reregister";
    case pb::Envelope::kHeartbeat:
      return "heartbeat";
    case pb::Envelope::kEvaluate:
      return "evaluate";
    case pb::Envelope::kResult:
      return "result";
    case pb::Envelope::kNeedModel:
      return "need_model";
    case pb::Envelope::kBye:
      return "bye";
    case pb::Envelope::kJoin:
      return "join";
    case pb::Envelope::kPush:
      return "push";
    case pb::Envelope::kPull:
      return "pull";
    case pb::Envelope::kParameters:
      return "parameters";
    case pb::Envelope::BODY_NOT_SET:
      break;
  }
  return "empty";
}

}  // namespace wire
