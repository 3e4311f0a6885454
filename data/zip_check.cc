#include "data/zip_check.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace data {
namespace {

constexpr size_t kPiece = size_t{1} << 20;
constexpr uint64_t kMaxDirectoryBytes = uint64_t{1} << 28;  // 256 MiB of entry headers
constexpr uint32_t kAll32 = 0xffffffffu;

// Little-endian unsigned integer of `n` bytes at `at` of `s` (the caller checked the bounds).
uint64_t Le(const std::string& s, size_t at, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(s[at + i]);
  return v;
}

struct Entry {
  std::string name;
  int method = 0;
  uint32_t crc = 0;
  uint64_t packed = 0;    // bytes in the archive
  uint64_t unpacked = 0;  // bytes once inflated
  uint64_t local = 0;     // offset of its local header
};

class Archive {
 public:
  explicit Archive(const std::string& path) : path_(path), in_(path, std::ios::binary) {}

  graph::Status Check() {
    if (!in_) return graph::IoError(path_ + ": cannot open");
    in_.seekg(0, std::ios::end);
    size_ = static_cast<uint64_t>(in_.tellg());
    std::vector<Entry> entries;
    GRAPH_RETURN_IF_ERROR(ReadDirectory(&entries));
    for (const Entry& e : entries) GRAPH_RETURN_IF_ERROR(CheckEntry(e));
    return graph::Status::Ok();
  }

 private:
  graph::Status NotZip(const std::string& why) const {
    return graph::InvalidArgument(path_ + ": not a zip archive (" + why + ")");
  }

  bool ReadAt(uint64_t at, uint64_t n, std::string* out) {
    if (at > size_ || n > size_ - at) return false;
    out->resize(n);
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(at));
    return static_cast<bool>(in_.read(out->data(), static_cast<std::streamsize>(n)));
  }

  // The end-of-central-directory record: the last "PK\5\6" whose comment ends the file.
  graph::Status ReadDirectory(std::vector<Entry>* entries) {
    const uint64_t tail_size = std::min<uint64_t>(size_, 22 + 65535);
    std::string tail;
    if (!ReadAt(size_ - tail_size, tail_size, &tail)) return NotZip("cannot read its end");
    size_t eocd = std::string::npos;
    for (size_t at = tail.rfind("PK\x05\x06"); at != std::string::npos && eocd == std::string::npos;
         at = at == 0 ? std::string::npos : tail.rfind("PK\x05\x06", at - 1)) {
      if (at + 22 <= tail.size() && at + 22 + Le(tail, at + 20, 2) == tail.size()) eocd = at;
    }
    if (eocd == std::string::npos) return NotZip("no end of central directory");
    uint64_t count = Le(tail, eocd + 10, 2), bytes = Le(tail, eocd + 12, 4),
             offset = Le(tail, eocd + 16, 4);
    if (count == 0xffff || bytes == kAll32 || offset == kAll32) {
      GRAPH_RETURN_IF_ERROR(ReadZip64End(size_ - tail_size + eocd, &count, &bytes, &offset));
    }
    if (bytes > kMaxDirectoryBytes)
      return NotZip("a central directory of " + std::to_string(bytes) + " bytes");
    std::string dir;
    if (!ReadAt(offset, bytes, &dir)) return NotZip("its central directory lies past its end");
    size_t at = 0;
    for (uint64_t i = 0; i < count; ++i) {
      Entry e;
      GRAPH_RETURN_IF_ERROR(ParseEntry(dir, &at, &e));
      entries->push_back(std::move(e));
    }
    return graph::Status::Ok();
  }

  graph::Status ReadZip64End(uint64_t eocd, uint64_t* count, uint64_t* bytes, uint64_t* offset) {
    std::string locator, end;
    if (eocd < 20 || !ReadAt(eocd - 20, 20, &locator) || locator.compare(0, 4, "PK\x06\x07") != 0) {
      return NotZip("no zip64 end locator");
    }
    if (!ReadAt(Le(locator, 8, 8), 56, &end) || end.compare(0, 4, "PK\x06\x06") != 0) {
      return NotZip("no zip64 end of central directory");
    }
    *count = Le(end, 32, 8);
    *bytes = Le(end, 40, 8);
    *offset = Le(end, 48, 8);
    return graph::Status::Ok();
  }

  // One central directory header at `*at`, which moves past it.
  graph::Status ParseEntry(const std::string& dir, size_t* at, Entry* e) const {
    const size_t h = *at;
    if (h + 46 > dir.size() || dir.compare(h, 4, "PK\x01\x02") != 0) {
      return NotZip("a damaged central directory");
    }
    const size_t name_len = Le(dir, h + 28, 2), extra_len = Le(dir, h + 30, 2),
                 comment_len = Le(dir, h + 32, 2);
    if (h + 46 + name_len + extra_len + comment_len > dir.size()) {
      return NotZip("a damaged central directory");
    }
    e->name = dir.substr(h + 46, name_len);
    e->method = static_cast<int>(Le(dir, h + 10, 2));
    e->crc = static_cast<uint32_t>(Le(dir, h + 16, 4));
    e->packed = Le(dir, h + 20, 4);
    e->unpacked = Le(dir, h + 24, 4);
    e->local = Le(dir, h + 42, 4);
    ReadZip64Extra(dir, h + 46 + name_len, extra_len, e);
    *at = h + 46 + name_len + extra_len + comment_len;
    return graph::Status::Ok();
  }

  // Zip64's extra field (id 1) holds, in order, the sizes and offset that read all ones.
  static void ReadZip64Extra(const std::string& dir, size_t from, size_t len, Entry* e) {
    for (size_t x = from; x + 4 <= from + len;) {
      const uint64_t id = Le(dir, x, 2), n = Le(dir, x + 2, 2);
      size_t field = x + 4;
      const size_t end = std::min<size_t>(field + n, from + len);
      if (id == 1) {
        for (uint64_t* v : {&e->unpacked, &e->packed, &e->local}) {
          if (*v == kAll32 && field + 8 <= end) {
            *v = Le(dir, field, 8);
            field += 8;
          }
        }
      }
      x += 4 + n;
    }
  }

  graph::Status CheckEntry(const Entry& e) {
    const std::string where = path_ + ": entry '" + e.name + "'";
    std::string local;
    if (!ReadAt(e.local, 30, &local) || local.compare(0, 4, "PK\x03\x04") != 0) {
      return graph::InvalidArgument(where + " has no local header where the directory says");
    }
    const uint64_t data = e.local + 30 + Le(local, 26, 2) + Le(local, 28, 2);
    if (data > size_ || e.packed > size_ - data) {
      return graph::InvalidArgument(where + " is cut off (the file ends inside it)");
    }
    uint32_t crc = 0;
    uint64_t unpacked = 0;
    if (e.method == 0) {
      GRAPH_RETURN_IF_ERROR(SumStored(e, data, &crc));
      unpacked = e.packed;
    } else if (e.method == 8) {
      GRAPH_RETURN_IF_ERROR(SumDeflated(e, data, where, &crc, &unpacked));
    } else {
      return graph::InvalidArgument(where + " uses compression method " + std::to_string(e.method) +
                                    ", which is not read here");
    }
    if (unpacked != e.unpacked || crc != e.crc) {
      return graph::InvalidArgument(where + " does not match its CRC-32 (changed on disk)");
    }
    return graph::Status::Ok();
  }

  graph::Status SumStored(const Entry& e, uint64_t data, uint32_t* crc) {
    uLong sum = crc32(0L, Z_NULL, 0);
    std::string piece;
    for (uint64_t done = 0; done < e.packed;) {
      const uint64_t n = std::min<uint64_t>(kPiece, e.packed - done);
      if (!ReadAt(data + done, n, &piece)) return graph::IoError(path_ + ": cannot read");
      sum = crc32(sum, reinterpret_cast<const Bytef*>(piece.data()), static_cast<uInt>(n));
      done += n;
    }
    *crc = static_cast<uint32_t>(sum);
    return graph::Status::Ok();
  }

  graph::Status SumDeflated(const Entry& e, uint64_t data, const std::string& where, uint32_t* crc,
                            uint64_t* unpacked) {
    z_stream zs{};
    if (inflateInit2(&zs, -15) != Z_OK) return graph::Internal(path_ + ": zlib init failed");
    uLong sum = crc32(0L, Z_NULL, 0);
    std::string piece, out(kPiece, '\0');
    int rc = Z_OK;
    for (uint64_t done = 0; rc == Z_OK && done < e.packed;) {
      const uint64_t n = std::min<uint64_t>(kPiece, e.packed - done);
      if (!ReadAt(data + done, n, &piece)) {
        inflateEnd(&zs);
        return graph::IoError(path_ + ": cannot read");
      }
      done += n;
      zs.next_in = reinterpret_cast<Bytef*>(piece.data());
      zs.avail_in = static_cast<uInt>(n);
      do {
        zs.next_out = reinterpret_cast<Bytef*>(out.data());
        zs.avail_out = static_cast<uInt>(out.size());
        rc = inflate(&zs, Z_NO_FLUSH);
        if (rc == Z_BUF_ERROR) rc = Z_OK;  // no progress: the piece is used up, read the next
        const size_t made = out.size() - zs.avail_out;
        sum = crc32(sum, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(made));
        *unpacked += made;
      } while (rc == Z_OK && zs.avail_out == 0);
    }
    inflateEnd(&zs);
    if (rc != Z_STREAM_END) {
      return graph::InvalidArgument(where + " does not inflate (changed on disk or cut off)");
    }
    *crc = static_cast<uint32_t>(sum);
    return graph::Status::Ok();
  }

  std::string path_;
  std::ifstream in_;
  uint64_t size_ = 0;
};

}  // namespace

graph::Status CheckZipArchive(const std::string& path) { return Archive(path).Check(); }

}  // namespace data
