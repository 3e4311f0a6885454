// LeNet replicas and batches for the trainer's unit tests: the in-code model
// (graph/models.h) at a given batch size, one 1-thread CPU device.
#pragma once

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "cluster/devices.h"
#include "graph/models.h"
#include "graph/shape_inference.h"
#include "graph/training.h"
#include "trainer/replica.h"

namespace trainer::testing {

inline graph::TrainingGraph LenetTraining(int64_t batch,
                                          const std::string& optimizer = "momentum") {
  auto fwd = graph::BuildLeNet({batch, 1});
  EXPECT_TRUE(fwd.ok());
  graph::InferShapes(*fwd);
  graph::TrainingOptions o;
  o.optimizer = optimizer;
  auto t = graph::BuildTrainingGraph(*fwd, o);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(t).value();
}

inline cluster::Cluster OneCpu() {
  auto c = cluster::ParseDevicesYaml("devices:\n  - {name: cpu0, kind: cpu, cores: [0]}\n", "cpu");
  EXPECT_TRUE(c.ok());
  return *c;
}

inline std::unique_ptr<Replica> LenetReplica(int64_t batch,
                                             const std::string& optimizer = "momentum") {
  graph::TrainingGraph t = LenetTraining(batch, optimizer);
  auto r = Replica::Create(t, OneCpu(), std::vector<int>(t.graph.size(), 0));
  EXPECT_TRUE(r.ok()) << r.status().message();
  return std::move(r).value();
}

// Examples [from, from + n) of a fixed random data set of 64 images.
// Ranks are threads: LibTorch's default generator is shared, hence the lock.
inline std::map<std::string, at::Tensor> LenetBatch(int64_t from, int64_t n) {
  static std::mutex mu;
  std::lock_guard<std::mutex> l(mu);
  at::manual_seed(7);
  at::Tensor images = at::rand({64, 28, 28, 1});
  at::Tensor labels = at::randint(0, 10, {64}, at::kInt);
  return {{"images", images.narrow(0, from, n).clone()},
          {"labels", labels.narrow(0, from, n).clone()}};
}

}  // namespace trainer::testing
