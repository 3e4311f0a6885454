// The softmax-like problem of the `--gradients heavy` tests, as files (refine_test.cc's
// SoftmaxProblem), and the search's "best found" figure: shared by the tests of
// `planner search` in process and on a fleet.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <utility>

#include "graph/file_util.h"

namespace planner::testing {

// x -> MatMul(w0) -> MatMul(w1, 1024 x 8192) on two modelled GPUs: the second
// MatMul's two gradients, as long as it each, queue on its GPU unless one runs
// apart (refine_test.cc's SoftmaxProblem, as files): `prefix` + a file name.
inline std::pair<std::string, std::string> SoftmaxFiles(const std::string& prefix) {
  auto matrix = [](const std::string& name, int cols) {
    return "node { name: '" + name +
           "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' "
           "value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1024 } dim { size: " +
           std::to_string(cols) + " } } float_val: 0.5 } } } }\n";
  };
  auto matmul = [](const std::string& name, const std::string& a, const std::string& b) {
    return "node { name: '" + name + "' op: 'MatMul' input: '" + a + "' input: '" + b +
           "' attr { key: 'T' value { type: DT_FLOAT } } }\n";
  };
  const std::string model = prefix + "softmax.pbtxt", devices = prefix + "two-gpus.yaml";
  EXPECT_TRUE(graph::WriteFileAtomic(
                  model,
                  "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT "
                  "} } attr { key: 'shape' value { shape { dim { size: 1024 } dim { size: 1024 } "
                  "} } } }\n" +
                      matrix("w0", 1024) + matrix("w1", 8192) + matmul("enc/m", "x", "w0") +
                      matmul("soft/m", "enc/m", "w1"))
                  .ok());
  EXPECT_TRUE(graph::WriteFileAtomic(devices,
                                     "devices:\n"
                                     "  - {name: gpu0, kind: sim, simulates: gpu, peak_flops: 4T, "
                                     "memory_bandwidth: 288GB/s}\n"
                                     "  - {name: gpu1, kind: sim, simulates: gpu, peak_flops: 4T, "
                                     "memory_bandwidth: 288GB/s}\n"
                                     "default_link: {bandwidth: 16GB/s, latency: 10us}\n")
                  .ok());
  return {model, devices};
}

// "  best found     metis+refine     12.553 ms, ..." -> 12.553
inline double BestFoundMs(const std::string& out) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(out, m, std::regex("best found +\\S+ +([0-9.,]+) ms"))) << out;
  std::string digits = m.size() > 1 ? m[1].str() : "0";
  digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
  return std::stod(digits);
}

}  // namespace planner::testing
