// Fashion-MNIST (Xiao et al. 2017): 28x28 grayscale images of clothing in 10
// classes, 60,000 for training and 10,000 for testing, as IDX files; and the
// conversion of examples into the float batches the models in graph/models.h read.
//
// Ownership: a Dataset owns its bytes; batches are written into caller-owned
// vectors. Thread safety: loading is a pure function of the files; a const Dataset
// may be read from many threads at once (e.g. one batch filler per worker).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/status.h"

namespace data {

constexpr int kFashionMnistClasses = 10;

struct Dataset {
  int64_t count = 0;
  int rows = 0, cols = 0;
  std::vector<uint8_t> images;  // count x rows x cols pixels, row-major, 0 = background
  std::vector<uint8_t> labels;  // count class indices, each < kFashionMnistClasses
};

// Where Debian's dataset-fashion-mnist package installs the (gzipped) files.
std::string DefaultFashionMnistDir();

// Loads the training (60,000) or test (10,000) split from `dir`, which holds
// {train,t10k}-{images-idx3,labels-idx1}-ubyte, each gzipped (".gz") or not.
// Errors name the offending file: missing, bad magic, truncated, image and label
// counts that disagree, or a label outside [0, 10).
graph::Result<Dataset> LoadFashionMnist(const std::string& dir, bool train);

// Writes the examples at `indices` as a float NHWC batch [B, rows, cols, 1] with
// pixels scaled to [0, 1], and their labels as int32 [B]; B = indices.size().
// The vectors are resized, so reusing them across steps does not reallocate.
// Fails, naming the index, if one is outside [0, d.count).
graph::Status FillBatch(const Dataset& d, const std::vector<int64_t>& indices,
                        std::vector<float>* images, std::vector<int32_t>* labels);

}  // namespace data
