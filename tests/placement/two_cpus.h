// The devices the placement tests place on: two one-core CPUs, as "two.yaml".
#pragma once

#include <gtest/gtest.h>

#include "cluster/devices.h"

namespace placement {

inline cluster::Cluster Devices() {
  auto c = cluster::ParseDevicesYaml(
      "devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n  - {name: cpu1, kind: cpu, cores: "
      "[1]}\n",
      "two.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return std::move(c).value();
}

}  // namespace placement
