// .npz: a ZIP archive of .npy members. The ZIP reader trusts only the
// central directory (sizes, offsets, CRC), reads each local header for the
// position of the data, and checks every offset and size against the bytes
// that exist before touching them. See PKWARE's APPNOTE for the records.
#include "tenferro/io/npz.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <set>

#include "detail.hpp"

namespace tenferro::io {
namespace detail {
namespace {

constexpr std::uint32_t kLocalSig = 0x04034b50;
constexpr std::uint32_t kCentralSig = 0x02014b50;
constexpr std::uint32_t kEndSig = 0x06054b50;
constexpr std::uint32_t kZip64EndSig = 0x06064b50;
constexpr std::uint32_t kZip64LocatorSig = 0x07064b50;
constexpr std::size_t kLocalSize = 30, kCentralSize = 46, kEndSize = 22;
constexpr std::size_t kZip64EndSize = 56, kZip64LocatorSize = 20;
constexpr std::uint32_t k32 = 0xffffffffu;
constexpr std::uint16_t k16 = 0xffffu;
constexpr std::uint16_t kMethodStored = 0, kMethodDeflate = 8;
constexpr std::uint16_t kAlignExtraId = 0xd935;  // zipalign's: u16 alignment, then padding
// Deflate cannot expand data by more than this factor (258-byte matches
// coded in about 2 bits): a larger declared size is a lie.
constexpr std::uint64_t kMaxDeflateRatio = 1032;

std::uint32_t crc32_of(const std::byte* p, std::size_t n, std::uint32_t crc = 0) {
  if (n == 0) return crc;  // zlib's crc32 of a null buffer is 0, whatever `crc` was
  return static_cast<std::uint32_t>(
      ::crc32_z(crc, reinterpret_cast<const Bytef*>(p), static_cast<z_size_t>(n)));
}

struct ZipEntry {
  std::string name;
  std::uint16_t flags = 0, method = 0;
  std::uint32_t crc = 0;
  std::uint64_t csize = 0, usize = 0, offset = 0;
};

/// Reads the ZIP64 extra field of a central-directory entry: the fields
/// that are 0xffffffff in the fixed part follow in this order.
void read_zip64_extra(const std::byte* extra, std::size_t len, ZipEntry& e, bool need_u, bool need_c,
                      bool need_o, const Context& ctx) {
  std::size_t i = 0;
  while (i + 4 <= len) {
    std::uint16_t id = le16(extra + i), size = le16(extra + i + 2);
    if (size > len - i - 4) fail(ctx, "an extra field of the central directory runs past its end");
    if (id == 0x0001) {
      std::size_t j = i + 4, end = i + 4 + size;
      auto next = [&](std::uint64_t& out, const char* what) {
        if (j + 8 > end) fail(ctx, "the ZIP64 extra field lacks the ", what);
        out = le64(extra + j);
        j += 8;
      };
      if (need_u) next(e.usize, "uncompressed size");
      if (need_c) next(e.csize, "compressed size");
      if (need_o) next(e.offset, "local header offset");
      return;
    }
    i += 4 + size;
  }
  fail(ctx, "sizes or offset are 0xffffffff but there is no ZIP64 extra field");
}

Bytes inflate_member(const Bytes& in, std::uint64_t usize, const Context& ctx) {
  if (usize > in.size * kMaxDeflateRatio + 64)
    fail(ctx, "declares ", usize, " uncompressed bytes for ", in.size,
         " compressed bytes, more than deflate can produce");
  std::shared_ptr<Storage> out;
  try {
    out = Storage::allocate_host(static_cast<std::size_t>(usize), ctx.op);
  } catch (MemoryError& e) {  // keeps its type; says which file and member
    e.prepend_context(tenferro::detail::str("'", ctx.file, "': ", ctx.member, ": inflating: "));
    throw;
  }
  z_stream zs{};
  if (::inflateInit2(&zs, -15) != Z_OK) fail(ctx, "zlib inflateInit2 failed");
  struct End {
    z_stream* zs;
    ~End() { ::inflateEnd(zs); }
  } end{&zs};
  const std::size_t chunk = std::size_t{1} << 30;  // zlib counts in 32 bits
  std::size_t in_done = 0;
  auto* dst = static_cast<Bytef*>(out->data());
  Bytef spare[1];  // room for one byte beyond the declared size, to detect it
  for (;;) {
    if (zs.avail_in == 0 && in_done < in.size) {
      std::size_t n = std::min(chunk, in.size - in_done);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data + in_done));
      zs.avail_in = static_cast<uInt>(n);
      in_done += n;
    }
    if (zs.avail_out == 0) {
      const std::uint64_t produced = zs.total_out;
      if (produced > usize) fail(ctx, "inflates to more than the declared ", usize, " bytes");
      if (produced < usize) {
        zs.next_out = dst + produced;
        zs.avail_out = static_cast<uInt>(std::min<std::uint64_t>(chunk, usize - produced));
      } else {
        zs.next_out = spare;
        zs.avail_out = 1;
      }
    }
    const int rc = ::inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) break;
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_done == in.size)
      fail(ctx, "the deflate stream is truncated");
    if (rc == Z_BUF_ERROR && (zs.avail_in == 0 || zs.avail_out == 0)) continue;
    fail(ctx, "the deflate stream is corrupt", zs.msg ? std::string(" (") + zs.msg + ")" : "");
  }
  if (zs.total_out != usize)
    fail(ctx, "inflates to ", zs.total_out, " bytes, not the declared ", usize);
  const std::size_t left = zs.avail_in + (in.size - in_done);
  if (left != 0) fail(ctx, "has ", left, " bytes after the end of its deflate stream");
  return {static_cast<const std::byte*>(out->data()), static_cast<std::size_t>(usize), out};
}

std::vector<NamedTensor> parse_npz_bytes(const Bytes& src, Context ctx) {
  const std::byte* base = src.data;
  const std::size_t size = src.size;
  if (size < kEndSize) fail(ctx, "truncated: ", size, " bytes is too short for a ZIP archive");
  // The end-of-central-directory record: the last one, within the 64 KiB
  // a comment may take, whose comment ends inside the file.
  std::size_t eocd = SIZE_MAX;
  const std::size_t lowest = size - kEndSize > 65535 ? size - kEndSize - 65535 : 0;
  for (std::size_t p = size - kEndSize + 1; p-- > lowest;) {
    if (le32(base + p) == kEndSig && p + kEndSize + le16(base + p + 20) <= size) {
      eocd = p;
      break;
    }
  }
  if (eocd == SIZE_MAX) {
    if (size >= 4 && le32(base) == kLocalSig)
      fail(ctx, "truncated ZIP archive: no end-of-central-directory record");
    fail(ctx, "not a ZIP archive (no end-of-central-directory record)");
  }
  std::uint64_t disk = le16(base + eocd + 4), cd_disk = le16(base + eocd + 6);
  std::uint64_t count_disk = le16(base + eocd + 8), count = le16(base + eocd + 10);
  std::uint64_t cd_size = le32(base + eocd + 12), cd_offset = le32(base + eocd + 16);
  std::uint64_t limit = eocd;  // the central directory ends before this
  if (eocd >= kZip64LocatorSize && le32(base + eocd - kZip64LocatorSize) == kZip64LocatorSig) {
    const std::byte* loc = base + eocd - kZip64LocatorSize;
    std::uint64_t rec = le64(loc + 8);
    if (le32(loc + 4) != 0 || le32(loc + 16) > 1) unsupported(ctx, "split (multi-disk) ZIP archives are not supported");
    if (rec > eocd - kZip64LocatorSize || eocd - kZip64LocatorSize - rec < kZip64EndSize)
      fail(ctx, "the ZIP64 end record offset ", rec, " lies outside the archive");
    const std::byte* r = base + rec;
    if (le32(r) != kZip64EndSig) fail(ctx, "no ZIP64 end record at offset ", rec);
    disk = le32(r + 16);
    cd_disk = le32(r + 20);
    count_disk = le64(r + 24);
    count = le64(r + 32);
    cd_size = le64(r + 40);
    cd_offset = le64(r + 48);
    limit = rec;
  } else if (count == k16 || cd_size == k32 || cd_offset == k32) {
    fail(ctx, "the end record points to ZIP64 records that are missing");
  }
  if (disk != 0 || cd_disk != 0 || count_disk != count)
    unsupported(ctx, "split (multi-disk) ZIP archives are not supported");
  if (cd_offset > limit || cd_size > limit - cd_offset)
    fail(ctx, "the central directory (offset ", cd_offset, ", ", cd_size,
         " bytes) lies outside the archive of ", size, " bytes");
  if (count > cd_size / kCentralSize)
    fail(ctx, "the end record declares ", count, " members, more than a ", cd_size,
         "-byte central directory holds");

  std::vector<ZipEntry> entries;
  entries.reserve(static_cast<std::size_t>(count));
  std::size_t p = static_cast<std::size_t>(cd_offset);
  const std::size_t cd_end = static_cast<std::size_t>(cd_offset + cd_size);
  for (std::uint64_t k = 0; k < count; ++k) {
    if (cd_end - p < kCentralSize || le32(base + p) != kCentralSig)
      fail(ctx, "central directory entry ", k, " at offset ", p, " is damaged");
    const std::byte* c = base + p;
    ZipEntry e;
    e.flags = le16(c + 8);
    e.method = le16(c + 10);
    e.crc = le32(c + 16);
    e.csize = le32(c + 20);
    e.usize = le32(c + 24);
    const std::size_t nlen = le16(c + 28), elen = le16(c + 30), clen = le16(c + 32);
    const std::uint16_t start_disk = le16(c + 34);
    e.offset = le32(c + 42);
    if (cd_end - p - kCentralSize < nlen + elen + clen)
      fail(ctx, "central directory entry ", k, " runs past the directory's end");
    e.name.assign(reinterpret_cast<const char*>(c + kCentralSize), nlen);
    if (e.usize == k32 || e.csize == k32 || e.offset == k32)
      read_zip64_extra(c + kCentralSize + nlen, elen, e, e.usize == k32, e.csize == k32,
                       e.offset == k32, ctx);
    if (start_disk != 0 && start_disk != k16)
      unsupported(ctx, "split (multi-disk) ZIP archives are not supported");
    entries.push_back(std::move(e));
    p += kCentralSize + nlen + elen + clen;
  }

  std::vector<NamedTensor> out;
  std::set<std::string> seen;
  for (const ZipEntry& e : entries) {
    ctx.member = "member '" + e.name + "'";
    if (e.flags & 0x1) unsupported(ctx, "encrypted members are not supported");
    if (e.method != kMethodStored && e.method != kMethodDeflate)
      unsupported(ctx, "compression method ", e.method, " is not supported (stored and deflate are)");
    if (e.offset > cd_offset || cd_offset - e.offset < kLocalSize)
      fail(ctx, "local header offset ", e.offset, " lies outside the archive's data");
    const std::byte* l = base + e.offset;
    if (le32(l) != kLocalSig) fail(ctx, "no local header at offset ", e.offset);
    const std::uint64_t nlen = le16(l + 26), elen = le16(l + 28);
    const std::uint64_t data = e.offset + kLocalSize + nlen + elen;
    if (data > cd_offset || e.csize > cd_offset - data)
      fail(ctx, "data (", e.csize, " bytes at offset ", data,
           ") runs into the central directory at offset ", cd_offset);
    if (std::string_view(reinterpret_cast<const char*>(l + kLocalSize), nlen) != e.name)
      fail(ctx, "the local header names the member differently");
    Bytes stored = src.sub(static_cast<std::size_t>(data), static_cast<std::size_t>(e.csize));
    Bytes member;
    if (e.method == kMethodStored) {
      if (e.csize != e.usize)
        fail(ctx, "a stored member of ", e.csize, " bytes declares ", e.usize, " uncompressed bytes");
      member = stored;
    } else {
      member = inflate_member(stored, e.usize, ctx);
    }
    std::uint32_t crc = crc32_of(member.data, member.size);
    if (crc != e.crc) fail(ctx, "CRC-32 mismatch (the archive says ", e.crc, ", the data has ", crc, ")");
    if (e.name.size() < 4 || e.name.compare(e.name.size() - 4, 4, ".npy") != 0)
      unsupported(ctx, "not a .npy member (only .npy members are read)");
    std::string name = e.name.substr(0, e.name.size() - 4);
    if (!seen.insert(name).second) fail(ctx, "the archive holds '", e.name, "' twice");
    out.push_back({std::move(name), parse_npy_bytes(member, ctx)});
  }
  return out;
}

// ---- writing ------------------------------------------------------------------

struct Written {
  std::string name;
  std::uint32_t crc;
  std::uint64_t csize, usize, offset;
  bool zip64;
  std::uint16_t method;
};

bool ascii(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

/// Deflates `pieces` (header, data) into one buffer.
std::vector<std::byte> deflate_all(std::initializer_list<std::pair<const void*, std::size_t>> pieces,
                                   int level, const char* op) {
  z_stream zs{};
  TF_CHECK(::deflateInit2(&zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK, BackendError,
           op, "zlib deflateInit2 failed");
  std::vector<std::byte> out;
  const std::size_t chunk = std::size_t{1} << 30;
  std::size_t k = 0;
  for (auto [ptr, n] : pieces) {
    const bool last_piece = ++k == pieces.size();
    std::size_t done = 0;
    for (;;) {
      std::size_t take = std::min(chunk, n - done);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<void*>(ptr)) + done;
      zs.avail_in = static_cast<uInt>(take);
      done += take;
      const int flush = last_piece && done == n ? Z_FINISH : Z_NO_FLUSH;
      int rc;
      do {
        std::size_t old = out.size();
        std::size_t room = ::deflateBound(&zs, zs.avail_in) + 64;
        out.resize(old + room);
        zs.next_out = reinterpret_cast<Bytef*>(out.data() + old);
        zs.avail_out = static_cast<uInt>(room);
        rc = ::deflate(&zs, flush);
        out.resize(old + room - zs.avail_out);
      } while (rc == Z_OK && (zs.avail_in > 0 || flush == Z_FINISH || zs.avail_out == 0));
      if (flush == Z_FINISH && rc != Z_STREAM_END) {
        ::deflateEnd(&zs);
        TF_THROW(BackendError, op, "zlib deflate failed (", rc, ")");
      }
      if (done == n) break;
    }
  }
  ::deflateEnd(&zs);
  return out;
}

void write_npz(Sink& sink, const std::vector<NamedTensor>& tensors, const NpzOptions& opt,
               const char* op) {
  TF_CHECK(opt.level >= 1 && opt.level <= 9, ValueError, op, "deflate level ", opt.level,
           " is outside 1..9");
  std::set<std::string> names;
  std::vector<NpyPayload> payloads;
  for (const NamedTensor& t : tensors) {
    TF_CHECK(!t.name.empty(), ValueError, op, "a tensor has an empty name");
    TF_CHECK(t.name.find('\0') == std::string::npos, ValueError, op, "the name of tensor '",
             t.name, "' holds a NUL byte");
    TF_CHECK(t.name.size() + 4 <= 65535, ValueError, op, "the name of a tensor is ",
             t.name.size(), " bytes long; ZIP allows 65531 plus '.npy'");
    TF_CHECK(names.insert(t.name).second, ValueError, op, "two tensors are named '", t.name, "'");
    payloads.push_back(npy_payload(op, t.tensor, "tensor '" + t.name + "'"));
  }
  std::vector<Written> written;
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const NpyPayload& pl = payloads[k];
    Written w;
    w.name = tensors[k].name + ".npy";
    w.offset = sink.position();
    w.usize = pl.header.size() + pl.nbytes();
    w.crc = crc32_of(reinterpret_cast<const std::byte*>(pl.header.data()), pl.header.size());
    w.crc = crc32_of(static_cast<const std::byte*>(pl.ptr()), pl.nbytes(), w.crc);
    std::vector<std::byte> packed;
    if (opt.compression == Compression::deflate) {
      packed = deflate_all({{pl.header.data(), pl.header.size()}, {pl.ptr(), pl.nbytes()}},
                           opt.level, op);
      w.csize = packed.size();
      w.method = kMethodDeflate;
    } else {
      w.csize = w.usize;
      w.method = kMethodStored;
    }
    w.zip64 = opt.force_zip64 || w.usize >= k32 || w.csize >= k32 || w.offset >= k32;
    const std::uint16_t flags = ascii(w.name) ? 0 : 0x800;  // bit 11: UTF-8 name
    // Stored members start at a multiple of 64 bytes (padding in an extra
    // field, as Android's zipalign does), so that a mapped archive can be
    // viewed in place: the .npy header is a multiple of 64 bytes too.
    const std::uint64_t zip64_len = w.zip64 ? 20 : 0;
    std::uint64_t pad = 0;
    bool align = w.method == kMethodStored;
    if (align) {
      const std::uint64_t start = w.offset + kLocalSize + w.name.size() + zip64_len + 6;
      pad = (64 - start % 64) % 64;
    }
    sink.put32(kLocalSig);
    sink.put16(w.zip64 ? 45 : 20);
    sink.put16(flags);
    sink.put16(w.method);
    sink.put16(0);       // time 00:00:00
    sink.put16(0x21);    // date 1980-01-01 (fixed: the same tensors give the same bytes)
    sink.put32(w.crc);
    sink.put32(w.zip64 ? k32 : static_cast<std::uint32_t>(w.csize));
    sink.put32(w.zip64 ? k32 : static_cast<std::uint32_t>(w.usize));
    sink.put16(static_cast<std::uint16_t>(w.name.size()));
    sink.put16(static_cast<std::uint16_t>(zip64_len + (align ? 6 + pad : 0)));
    sink.write(w.name.data(), w.name.size());
    if (w.zip64) {
      sink.put16(0x0001);
      sink.put16(16);
      sink.put64(w.usize);
      sink.put64(w.csize);
    }
    if (align) {
      static const char zeros[64] = {};
      sink.put16(kAlignExtraId);
      sink.put16(static_cast<std::uint16_t>(2 + pad));
      sink.put16(64);
      sink.write(zeros, static_cast<std::size_t>(pad));
    }
    if (opt.compression == Compression::deflate) {
      sink.write(packed.data(), packed.size());
    } else {
      sink.write(pl.header.data(), pl.header.size());
      sink.write(pl.ptr(), pl.nbytes());
    }
    written.push_back(std::move(w));
  }
  const std::uint64_t cd_offset = sink.position();
  for (const Written& w : written) {
    sink.put32(kCentralSig);
    sink.put16(w.zip64 ? 45 : 20);  // made by (MS-DOS attributes)
    sink.put16(w.zip64 ? 45 : 20);  // needed
    sink.put16(ascii(w.name) ? 0 : 0x800);
    sink.put16(w.method);
    sink.put16(0);
    sink.put16(0x21);
    sink.put32(w.crc);
    sink.put32(w.zip64 ? k32 : static_cast<std::uint32_t>(w.csize));
    sink.put32(w.zip64 ? k32 : static_cast<std::uint32_t>(w.usize));
    sink.put16(static_cast<std::uint16_t>(w.name.size()));
    sink.put16(w.zip64 ? 28 : 0);
    sink.put16(0);  // comment
    sink.put16(0);  // disk
    sink.put16(0);  // internal attributes
    sink.put32(0);  // external attributes
    sink.put32(w.zip64 ? k32 : static_cast<std::uint32_t>(w.offset));
    sink.write(w.name.data(), w.name.size());
    if (w.zip64) {
      sink.put16(0x0001);
      sink.put16(24);
      sink.put64(w.usize);
      sink.put64(w.csize);
      sink.put64(w.offset);
    }
  }
  const std::uint64_t cd_end = sink.position();
  const std::uint64_t cd_size = cd_end - cd_offset;
  const std::uint64_t n = written.size();
  const bool zip64_end = opt.force_zip64 || n >= k16 || cd_offset >= k32 || cd_size >= k32;
  if (zip64_end) {
    sink.put32(kZip64EndSig);
    sink.put64(kZip64EndSize - 12);
    sink.put16(45);
    sink.put16(45);
    sink.put32(0);
    sink.put32(0);
    sink.put64(n);
    sink.put64(n);
    sink.put64(cd_size);
    sink.put64(cd_offset);
    sink.put32(kZip64LocatorSig);
    sink.put32(0);
    sink.put64(cd_end);
    sink.put32(1);
  }
  sink.put32(kEndSig);
  sink.put16(0);
  sink.put16(0);
  sink.put16(zip64_end ? k16 : static_cast<std::uint16_t>(n));
  sink.put16(zip64_end ? k16 : static_cast<std::uint16_t>(n));
  sink.put32(zip64_end ? k32 : static_cast<std::uint32_t>(cd_size));
  sink.put32(zip64_end ? k32 : static_cast<std::uint32_t>(cd_offset));
  sink.put16(0);
}

}  // namespace
}  // namespace detail

std::vector<NamedTensor> load_npz(const std::filesystem::path& path, const LoadOptions& options) {
  detail::Context ctx{"io.load_npz", path.string(), ""};
  return detail::parse_npz_bytes(detail::read_file(path, options.map, ctx), ctx);
}

std::vector<NamedTensor> parse_npz(std::span<const std::byte> bytes, std::string_view name) {
  detail::Context ctx{"io.parse_npz", std::string(name), ""};
  return detail::parse_npz_bytes({bytes.data(), bytes.size(), nullptr}, ctx);
}

void save_npz(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors,
              const NpzOptions& options) {
  detail::FileSink sink(path, "io.save_npz");
  detail::write_npz(sink, tensors, options, "io.save_npz");
  sink.commit();
}

std::vector<std::byte> to_npz(const std::vector<NamedTensor>& tensors, const NpzOptions& options) {
  detail::VectorSink sink;
  detail::write_npz(sink, tensors, options, "io.to_npz");
  return std::move(sink.bytes);
}

}  // namespace tenferro::io
