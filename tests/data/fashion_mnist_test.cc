#include "data/fashion_mnist.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>

#include "tests/data/test_util.h"

namespace data {
namespace {

using testing::FailsWith;
using testing::Gzip;
using testing::Idx;
using testing::ScratchDir;
using testing::Write;

constexpr int kPixels = 28 * 28;

// Skips the calling test when the Debian package's files are not installed.
#define SKIP_WITHOUT_PACKAGE()                                                                \
  do {                                                                                        \
    struct stat st;                                                                           \
    if (::stat((DefaultFashionMnistDir() + "/train-images-idx3-ubyte.gz").c_str(), &st) != 0) \
      GTEST_SKIP() << "dataset-fashion-mnist is not installed";                               \
  } while (0)

TEST(FashionMnist, LoadsTheInstalledTrainingSet) {
  SKIP_WITHOUT_PACKAGE();
  auto d = LoadFashionMnist(DefaultFashionMnistDir(), /*train=*/true);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->count, 60000);
  EXPECT_EQ(d->rows, 28);
  EXPECT_EQ(d->cols, 28);
  EXPECT_EQ(d->images.size(), 60000u * kPixels);
  ASSERT_EQ(d->labels.size(), 60000u);
  // The published split is balanced: 6,000 examples of each class.
  std::array<int, kFashionMnistClasses> per_class{};
  for (uint8_t l : d->labels) ++per_class[l];
  for (int n : per_class) EXPECT_EQ(n, 6000);
  // Pixels are the raw 0..255 bytes, not rescaled.
  EXPECT_EQ(*std::max_element(d->images.begin(), d->images.begin() + kPixels), 255);
}

TEST(FashionMnist, LoadsTheInstalledTestSet) {
  SKIP_WITHOUT_PACKAGE();
  auto d = LoadFashionMnist(DefaultFashionMnistDir(), /*train=*/false);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->count, 10000);
  std::array<int, kFashionMnistClasses> per_class{};
  for (uint8_t l : d->labels) ++per_class[l];
  for (int n : per_class) EXPECT_EQ(n, 1000);
}

TEST(FashionMnist, FillBatchScalesPixelsAndCopiesLabels) {
  SKIP_WITHOUT_PACKAGE();
  auto d = LoadFashionMnist(DefaultFashionMnistDir(), /*train=*/false);
  ASSERT_TRUE(d.ok()) << d.status().message();
  std::vector<int64_t> idx = {9999, 0, 17};
  std::vector<float> images;
  std::vector<int32_t> labels;
  ASSERT_TRUE(FillBatch(*d, idx, &images, &labels).ok());
  ASSERT_EQ(images.size(), 3u * kPixels);
  ASSERT_EQ(labels.size(), 3u);
  for (size_t b = 0; b < idx.size(); ++b) {
    EXPECT_EQ(labels[b], d->labels[idx[b]]);
    for (int p = 0; p < kPixels; ++p) {
      ASSERT_FLOAT_EQ(images[b * kPixels + p], d->images[idx[b] * kPixels + p] / 255.0f);
    }
  }
  EXPECT_GE(*std::min_element(images.begin(), images.end()), 0.0f);
  EXPECT_LE(*std::max_element(images.begin(), images.end()), 1.0f);
}

// A scratch copy of the layout the package installs, with `n` images of size
// side x side whose pixels are their own index, and the given labels.
struct FakeSplit {
  std::string dir = ScratchDir();
  std::string images, labels;
  FakeSplit(uint32_t n, const std::string& label_bytes, uint32_t side = 28, bool gz = true) {
    std::string pixels;
    for (uint32_t i = 0; i < n * side * side; ++i) pixels.push_back(static_cast<char>(i % 256));
    std::string img = Idx({n, side, side}, pixels);
    std::string lab = Idx({static_cast<uint32_t>(label_bytes.size())}, label_bytes);
    images = Write(dir, gz ? "train-images-idx3-ubyte.gz" : "train-images-idx3-ubyte",
                   gz ? Gzip(img) : img);
    labels = Write(dir, gz ? "train-labels-idx1-ubyte.gz" : "train-labels-idx1-ubyte",
                   gz ? Gzip(lab) : lab);
  }
};

TEST(FashionMnist, LoadsGzippedAndPlainFiles) {
  for (bool gz : {true, false}) {
    FakeSplit f(3, std::string("\x00\x09\x04", 3), 28, gz);
    auto d = LoadFashionMnist(f.dir, /*train=*/true);
    ASSERT_TRUE(d.ok()) << d.status().message();
    EXPECT_EQ(d->count, 3);
    EXPECT_EQ(d->labels, (std::vector<uint8_t>{0, 9, 4}));
    EXPECT_EQ(d->images[kPixels + 1], (kPixels + 1) % 256);
  }
}

TEST(FashionMnist, MissingFilesNameThePath) {
  std::string dir = ScratchDir();
  auto d = LoadFashionMnist(dir, /*train=*/false);
  EXPECT_EQ(d.status().code(), graph::StatusCode::kNotFound);
  EXPECT_TRUE(FailsWith(d.status(), dir + "/t10k-images-idx3-ubyte.gz: no such file"));
}

TEST(FashionMnist, RejectsCountMismatch) {
  FakeSplit f(3, std::string("\x01\x02", 2));
  EXPECT_TRUE(FailsWith(LoadFashionMnist(f.dir, true).status(),
                        f.labels + ": 2 labels for 3 images in " + f.images));
}

TEST(FashionMnist, RejectsLabelOutOfRange) {
  FakeSplit f(3, std::string("\x01\x02\x0a", 3));
  EXPECT_TRUE(FailsWith(LoadFashionMnist(f.dir, true).status(),
                        f.labels + ": label 10 of example 2 is outside [0, 10)"));
}

TEST(FashionMnist, RejectsWrongMagic) {
  FakeSplit f(1, std::string("\x01", 1));
  // Labels where the images belong.
  Write(f.dir, "train-images-idx3-ubyte.gz", Gzip(Idx({1}, "\x01")));
  EXPECT_TRUE(FailsWith(LoadFashionMnist(f.dir, true).status(),
                        f.images + ": IDX magic is 0x00000801, expected 0x00000803"));
}

TEST(FashionMnist, RejectsTruncatedImages) {
  FakeSplit f(2, std::string("\x01\x02", 2));
  Write(f.dir, "train-images-idx3-ubyte.gz",
        Gzip(Idx({2, 28, 28}, std::string(2 * kPixels - 1, '\0'))));
  EXPECT_TRUE(
      FailsWith(LoadFashionMnist(f.dir, true).status(),
                f.images + ": IDX dimensions [2,28,28] need 1568 data bytes, file has 1567"));
}

TEST(FashionMnist, RejectsWrongImageSizeAndEmptySet) {
  FakeSplit small(2, std::string("\x01\x02", 2), /*side=*/32);
  EXPECT_TRUE(FailsWith(LoadFashionMnist(small.dir, true).status(),
                        small.images + ": images are 32x32, Fashion-MNIST's are 28x28"));
  FakeSplit empty(0, "");
  EXPECT_TRUE(
      FailsWith(LoadFashionMnist(empty.dir, true).status(), empty.images + ": has no images"));
}

TEST(FashionMnist, RejectsCorruptGzip) {
  FakeSplit f(2, std::string("\x01\x02", 2));
  std::string gz = Gzip(Idx({2}, std::string("\x01\x02", 2)));
  gz[gz.size() - 5] ^= 0x40;  // in the trailer: the CRC-32 no longer matches
  Write(f.dir, "train-labels-idx1-ubyte.gz", gz);
  EXPECT_TRUE(FailsWith(LoadFashionMnist(f.dir, true).status(), f.labels + ": corrupt gzip data"));
}

TEST(FashionMnist, FillBatchRejectsIndexOutOfRange) {
  FakeSplit f(2, std::string("\x01\x02", 2));
  auto d = LoadFashionMnist(f.dir, true);
  ASSERT_TRUE(d.ok()) << d.status().message();
  std::vector<float> images;
  std::vector<int32_t> labels;
  ASSERT_TRUE(FillBatch(*d, {1, 0}, &images, &labels).ok());
  EXPECT_EQ(labels, (std::vector<int32_t>{2, 1}));
  EXPECT_TRUE(FailsWith(FillBatch(*d, {0, 2}, &images, &labels),
                        "Fashion-MNIST batch: index 2 is outside [0, 2)"));
  EXPECT_TRUE(FailsWith(FillBatch(*d, {-1}, &images, &labels), "index -1 is outside"));
}

}  // namespace
}  // namespace data
