#include "data/fashion_mnist.h"

#include <sys/stat.h>

#include "data/idx.h"

namespace data {

namespace {

constexpr int kSide = 28;

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// The Debian package ships "name.gz"; a user may have unpacked it to "name".
graph::Result<std::string> Locate(const std::string& dir, const std::string& name) {
  std::string plain = dir + "/" + name;
  if (Exists(plain + ".gz")) return plain + ".gz";
  if (Exists(plain)) return plain;
  return graph::NotFound(plain + ".gz: no such file (nor " + plain + ")");
}

}  // namespace

std::string DefaultFashionMnistDir() { return "/usr/share/datasets/fashion-mnist"; }

graph::Result<Dataset> LoadFashionMnist(const std::string& dir, bool train) {
  const std::string split = train ? "train" : "t10k";
  GRAPH_ASSIGN_OR_RETURN(std::string images_path, Locate(dir, split + "-images-idx3-ubyte"));
  GRAPH_ASSIGN_OR_RETURN(std::string labels_path, Locate(dir, split + "-labels-idx1-ubyte"));
  GRAPH_ASSIGN_OR_RETURN(IdxArray images, ReadIdx(images_path, 3));
  GRAPH_ASSIGN_OR_RETURN(IdxArray labels, ReadIdx(labels_path, 1));
  if (images.dims[1] != kSide || images.dims[2] != kSide) {
    return graph::InvalidArgument(images_path + ": images are " + std::to_string(images.dims[1]) +
                                  "x" + std::to_string(images.dims[2]) +
                                  ", Fashion-MNIST's are 28x28");
  }
  if (images.dims[0] == 0) return graph::InvalidArgument(images_path + ": has no images");
  if (labels.dims[0] != images.dims[0]) {
    return graph::InvalidArgument(labels_path + ": " + std::to_string(labels.dims[0]) +
                                  " labels for " + std::to_string(images.dims[0]) + " images in " +
                                  images_path);
  }
  for (size_t i = 0; i < labels.values.size(); ++i) {
    if (labels.values[i] >= kFashionMnistClasses) {
      return graph::InvalidArgument(labels_path + ": label " + std::to_string(labels.values[i]) +
                                    " of example " + std::to_string(i) + " is outside [0, 10)");
    }
  }
  Dataset d;
  d.count = images.dims[0];
  d.rows = kSide;
  d.cols = kSide;
  d.images = std::move(images.values);
  d.labels = std::move(labels.values);
  return d;
}

graph::Status FillBatch(const Dataset& d, const std::vector<int64_t>& indices,
                        std::vector<float>* images, std::vector<int32_t>* labels) {
  const size_t pixels = static_cast<size_t>(d.rows) * static_cast<size_t>(d.cols);
  images->resize(indices.size() * pixels);
  labels->resize(indices.size());
  for (size_t b = 0; b < indices.size(); ++b) {
    int64_t i = indices[b];
    if (i < 0 || i >= d.count) {
      return graph::InvalidArgument("Fashion-MNIST batch: index " + std::to_string(i) +
                                    " is outside [0, " + std::to_string(d.count) + ")");
    }
    const uint8_t* src = d.images.data() + static_cast<size_t>(i) * pixels;
    float* dst = images->data() + b * pixels;
    // One channel, so NHWC is the image's own row-major order.
    for (size_t p = 0; p < pixels; ++p) dst[p] = src[p] * (1.0f / 255.0f);
    (*labels)[b] = d.labels[static_cast<size_t>(i)];
  }
  return graph::Status::Ok();
}

}  // namespace data
