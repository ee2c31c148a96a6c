#include "mpi/io/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace gasket::mpi::io {

// ---- hints ----

namespace {

const char* switch_name(Hints::Switch s) {
  return s == Hints::Switch::kEnable ? "enable" : s == Hints::Switch::kDisable ? "disable" : "automatic";
}

bool parse_switch(const std::string& v, Hints::Switch* out) {
  if (v == "enable") *out = Hints::Switch::kEnable;
  else if (v == "disable") *out = Hints::Switch::kDisable;
  else if (v == "automatic") *out = Hints::Switch::kAutomatic;
  else return false;
  return true;
}

bool parse_at_least(const std::string& v, int64_t minimum, int64_t* out) {
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0 || n < minimum) return false;
  *out = n;
  return true;
}

}  // namespace

Error Hints::apply(const InfoPairs& info, const char* call, int rank) {
  struct Number {
    const char* key;
    int64_t* value;
    int64_t minimum;  // 0 where 0 is the default report() gives back (one aggregator per node, no striping)
  };
  int64_t cb_nodes64 = cb_nodes, factor64 = striping_factor;
  const Number numbers[] = {{"cb_nodes", &cb_nodes64, 0},
                            {"cb_buffer_size", &cb_buffer_size, 1},
                            {"ind_rd_buffer_size", &ind_rd_buffer_size, 1},
                            {"ind_wr_buffer_size", &ind_wr_buffer_size, 1},
                            {"striping_factor", &factor64, 0},
                            {"striping_unit", &striping_unit, 0},
                            {"gasket_write_behind", &write_behind, 0}};
  struct Toggle {
    const char* key;
    Switch* value;
  };
  const Toggle toggles[] = {
      {"romio_cb_read", &cb_read}, {"romio_cb_write", &cb_write}, {"romio_ds_read", &ds_read}, {"romio_ds_write", &ds_write}};
  for (const auto& [key, value] : info) {
    for (const Number& n : numbers) {
      if (key == n.key && !parse_at_least(value, n.minimum, n.value)) {
        return error(MPI_ERR_INFO_VALUE, "%s: rank %d: hint %s=\"%s\" is not an integer >= %lld", call, rank,
                     key.c_str(), value.c_str(), static_cast<long long>(n.minimum));
      }
    }
    for (const Toggle& t : toggles) {
      if (key == t.key && !parse_switch(value, t.value)) {
        return error(MPI_ERR_INFO_VALUE, "%s: rank %d: hint %s=\"%s\" is not enable, disable or automatic", call, rank,
                     key.c_str(), value.c_str());
      }
    }
  }
  // Buffers and counts stay within an int (one MPI_Put per piece of a round).
  for (const Number& n : numbers) {
    if (*n.value > (int64_t{1} << 30)) {
      return error(MPI_ERR_INFO_VALUE, "%s: rank %d: hint %s=%lld is larger than 2^30", call, rank, n.key,
                   static_cast<long long>(*n.value));
    }
  }
  cb_nodes = static_cast<int>(cb_nodes64);
  striping_factor = static_cast<int>(factor64);
  return Error::ok();
}

InfoPairs Hints::report() const {
  return {{"cb_nodes", std::to_string(cb_nodes)},
          {"cb_buffer_size", std::to_string(cb_buffer_size)},
          {"romio_cb_read", switch_name(cb_read)},
          {"romio_cb_write", switch_name(cb_write)},
          {"romio_ds_read", switch_name(ds_read)},
          {"romio_ds_write", switch_name(ds_write)},
          {"ind_rd_buffer_size", std::to_string(ind_rd_buffer_size)},
          {"ind_wr_buffer_size", std::to_string(ind_wr_buffer_size)},
          {"striping_factor", std::to_string(striping_factor)},
          {"striping_unit", std::to_string(striping_unit)},
          {"gasket_write_behind", std::to_string(write_behind)}};
}

InfoPairs CollectivePaths::report() const {
  auto name = [](CollectivePath p) {
    return p == CollectivePath::kTwoPhase ? "two-phase" : p == CollectivePath::kIndependent ? "independent" : "none";
  };
  return {{"gasket_cb_read_used", name(read.load())}, {"gasket_cb_write_used", name(write.load())}};
}

// ---- views ----

void View::set_types(const datatype::Datatype* etype_t, const datatype::Datatype* filetype_t) {
  etype_type = etype_t;
  filetype_type = filetype_t;
  before.clear();
  int64_t sum = 0;
  for (const datatype::Block& b : filetype_t->blocks) {
    before.push_back(sum);
    sum += b.length;
  }
}

int64_t View::file_byte(int64_t stream) const {
  const datatype::Datatype& ft = *filetype_type;
  if (ft.contiguous()) return disp + ft.true_lb + stream;
  int64_t k = stream / ft.size, r = stream % ft.size;
  size_t j = static_cast<size_t>(std::upper_bound(before.begin(), before.end(), r) - before.begin()) - 1;
  return disp + k * ft.extent() + ft.blocks[j].offset + (r - before[j]);
}

int64_t View::stream_before(int64_t file_offset) const {
  const datatype::Datatype& ft = *filetype_type;
  int64_t rel = file_offset - disp;
  if (ft.contiguous()) return std::max<int64_t>(0, rel - ft.true_lb);
  if (rel <= 0) return 0;
  int64_t k = rel / ft.extent(), within = rel - k * ft.extent();
  int64_t n = k * ft.size;
  for (const datatype::Block& b : ft.blocks) {
    if (b.offset >= within) break;
    n += std::min(b.length, within - b.offset);
  }
  return n;
}

void View::for_each_extent(int64_t start, int64_t bytes,
                           const std::function<bool(int64_t, int64_t, int64_t)>& f) const {
  if (bytes <= 0) return;
  const datatype::Datatype& ft = *filetype_type;
  if (ft.contiguous()) {
    f(file_byte(start), bytes, 0);
    return;
  }
  // Adjacent pieces (a block ending where the next copy's first begins) merge into one extent.
  int64_t run_off = -1, run_len = 0, run_stream = 0;
  int64_t pos = start, end = start + bytes;
  while (pos < end) {
    int64_t k = pos / ft.size, r = pos % ft.size;
    size_t j = static_cast<size_t>(std::upper_bound(before.begin(), before.end(), r) - before.begin()) - 1;
    int64_t within = r - before[j];
    int64_t len = std::min(ft.blocks[j].length - within, end - pos);
    int64_t off = disp + k * ft.extent() + ft.blocks[j].offset + within;
    if (run_off >= 0 && run_off + run_len == off) {
      run_len += len;
    } else {
      if (run_off >= 0 && !f(run_off, run_len, run_stream)) return;
      run_off = off, run_len = len, run_stream = pos - start;
    }
    pos += len;
  }
  f(run_off, run_len, run_stream);
}

// ---- POSIX transfers ----

int error_class_of_errno(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return MPI_ERR_NO_SUCH_FILE;
    case EACCES:
    case EPERM:
      return MPI_ERR_ACCESS;
    case EEXIST:
      return MPI_ERR_FILE_EXISTS;
    case EROFS:
      return MPI_ERR_READ_ONLY;
    case ENOSPC:
    case EFBIG:
      return MPI_ERR_NO_SPACE;
    case EDQUOT:
      return MPI_ERR_QUOTA;
    case ETXTBSY:
    case EBUSY:
      return MPI_ERR_FILE_IN_USE;
    case EISDIR:
    case ENAMETOOLONG:
    case ELOOP:
    case EINVAL:
      return MPI_ERR_BAD_FILE;
    default:
      return MPI_ERR_IO;
  }
}

namespace {

Error system_error(const char* call, int rank, const char* what, int64_t offset, int64_t length) {
  int err = errno;
  return error(error_class_of_errno(err), "%s: rank %d: %s of %lld bytes at file offset %lld failed: %s", call, rank,
               what, static_cast<long long>(length), static_cast<long long>(offset), std::strerror(err));
}

}  // namespace

Error posix_io(int fd, bool write, char* p, int64_t length, int64_t offset, int64_t* done, const char* call, int rank) {
  *done = 0;
  while (*done < length) {
    ssize_t n = write ? ::pwrite(fd, p + *done, static_cast<size_t>(length - *done), offset + *done)
                      : ::pread(fd, p + *done, static_cast<size_t>(length - *done), offset + *done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return system_error(call, rank, write ? "pwrite" : "pread", offset, length);
    if (n == 0) {
      if (!write) break;
      errno = ENOSPC;
      return system_error(call, rank, "pwrite", offset, length);
    }
    *done += n;
  }
  return Error::ok();
}

Error write_behind(int fd, const char* p, int64_t length, int64_t offset, int64_t piece, const char* call, int rank) {
  int64_t done = 0;
  if (piece <= 0 || length < 2 * piece) return posix_io(fd, true, const_cast<char*>(p), length, offset, &done, call, rank);
  for (int64_t at = 0; at < length; at += piece) {
    int64_t n = std::min(piece, length - at);
    Error e = posix_io(fd, true, const_cast<char*>(p + at), n, offset + at, &done, call, rank);
    if (!e.is_ok()) return e;
    // Only a hint: a file system without it (EINVAL, ESPIPE) is left to MPI_File_sync's fsync,
    // which also reports any write-back error (the kernel keeps it for the file).
    ::sync_file_range(fd, offset + at, n, SYNC_FILE_RANGE_WRITE);
  }
  return Error::ok();
}

namespace {

// A POSIX byte-range lock (fcntl) held while it lives; length 0 means no lock.
class RangeLock {
 public:
  RangeLock(int fd, bool write, int64_t offset, int64_t length) : fd_(fd), offset_(offset), length_(length) {
    if (length_ > 0) set(write ? F_WRLCK : F_RDLCK);
  }
  ~RangeLock() {
    if (length_ > 0) set(F_UNLCK);
  }
  RangeLock(const RangeLock&) = delete;
  RangeLock& operator=(const RangeLock&) = delete;

 private:
  void set(short type) {
    struct flock l{};
    l.l_type = type;
    l.l_whence = SEEK_SET;
    l.l_start = offset_;
    l.l_len = length_;
    while (::fcntl(fd_, F_SETLKW, &l) != 0 && errno == EINTR) {
    }
  }
  int fd_;
  int64_t offset_, length_;
};

bool use_sieving(Hints::Switch s, const std::vector<Extent>& extents, int64_t bytes) {
  if (extents.size() < 2 || s == Hints::Switch::kDisable) return false;
  return s == Hints::Switch::kEnable || bytes / static_cast<int64_t>(extents.size()) < kSievedPieceMean;
}

// Data sieving: the range the extents cover moves in windows of `window` bytes, one read (and,
// for writes, one write) per window; the extents' bytes are copied in or out of it.
Error sieve(const Access& a, bool write, const std::vector<Extent>& extents, char* data, int64_t window,
            const char* call, int rank) {
  int64_t lo = extents.front().offset, hi = 0;
  for (const Extent& e : extents) hi = std::max(hi, e.offset + e.length);
  std::vector<char> buffer(static_cast<size_t>(std::min(window, hi - lo)));
  size_t first = 0;  // the first extent not wholly before the window
  for (int64_t w = lo; w < hi; w += static_cast<int64_t>(buffer.size())) {
    int64_t wlen = std::min<int64_t>(static_cast<int64_t>(buffer.size()), hi - w), got = 0;
    Error e = posix_io(a.fd, false, buffer.data(), wlen, w, &got, call, rank);
    if (!e.is_ok()) return e;
    std::memset(buffer.data() + got, 0, static_cast<size_t>(wlen - got));
    while (first < extents.size() && extents[first].offset + extents[first].length <= w) ++first;
    int64_t last_end = w;  // written back up to the last byte an extent covers
    for (size_t i = first; i < extents.size() && extents[i].offset < w + wlen; ++i) {
      const Extent& x = extents[i];
      int64_t from = std::max(x.offset, w), to = std::min(x.offset + x.length, w + wlen);
      if (from >= to) continue;
      char* file_side = buffer.data() + (from - w);
      char* data_side = data + x.stream + (from - x.offset);
      if (write) std::memcpy(file_side, data_side, static_cast<size_t>(to - from));
      else std::memcpy(data_side, file_side, static_cast<size_t>(to - from));
      last_end = std::max(last_end, to);
    }
    if (write && last_end > w) {
      int64_t put = 0;
      e = posix_io(a.fd, true, buffer.data(), last_end - w, w, &put, call, rank);
      if (!e.is_ok()) return e;
    }
  }
  return Error::ok();
}

}  // namespace

std::vector<Extent> extents_of(const View& v, int64_t start, int64_t bytes, int64_t end_of_file, int64_t* moved) {
  std::vector<Extent> extents;
  int64_t limit = end_of_file < 0 ? INT64_MAX : end_of_file;
  *moved = 0;
  v.for_each_extent(start, bytes, [&](int64_t off, int64_t len, int64_t stream) {
    if (off >= limit) return false;
    len = std::min(len, limit - off);
    extents.push_back({off, len, stream});
    *moved = stream + len;
    return off + len < limit;
  });
  if (end_of_file < 0) *moved = bytes;
  return extents;
}

Error transfer(const Access& a, bool write, int64_t start, char* data, int64_t bytes, int64_t* moved,
               const char* call, int rank) {
  int64_t end_of_file = -1, total = 0;
  *moved = 0;
  if (!write) {  // a read ends at end of file
    struct stat st{};
    if (::fstat(a.fd, &st) != 0) return system_error(call, rank, "fstat", 0, 0);
    end_of_file = st.st_size;
  }
  std::vector<Extent> extents = extents_of(*a.view, start, bytes, end_of_file, &total);
  return transfer_extents(a, write, extents, data, total, moved, call, rank);
}

Error transfer_extents(const Access& a, bool write, const std::vector<Extent>& extents, char* data, int64_t total,
                       int64_t* moved, const char* call, int rank) {
  *moved = 0;
  if (extents.empty()) return Error::ok();
  int64_t lo = extents.front().offset, hi = 0;
  for (const Extent& x : extents) hi = std::max(hi, x.offset + x.length);
  bool sieving = use_sieving(write ? a.hints.ds_write : a.hints.ds_read, extents, total);
  // Atomic mode locks the whole range; a sieved write locks it too (it rewrites the holes).
  RangeLock lock(a.fd, write || sieving, lo, a.atomic || (write && sieving) ? hi - lo : 0);
  if (sieving) {
    Error e = sieve(a, write, extents, data, write ? a.hints.ind_wr_buffer_size : a.hints.ind_rd_buffer_size, call,
                    rank);
    if (!e.is_ok()) return e;
    *moved = total;
    return Error::ok();
  }
  for (const Extent& x : extents) {
    int64_t done = 0;
    Error e = write ? write_behind(a.fd, data + x.stream, x.length, x.offset, a.hints.write_behind, call, rank)
                    : posix_io(a.fd, false, data + x.stream, x.length, x.offset, &done, call, rank);
    if (!e.is_ok()) return e;
    if (!write && done < x.length) {  // a read that met the end of file (a write moves all or fails)
      *moved = x.stream + done;
      return Error::ok();
    }
  }
  *moved = total;
  return Error::ok();
}

// ---- the I/O thread ----

IoThread::~IoThread() {
  {
    std::lock_guard<std::mutex> l(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void IoThread::submit(std::shared_ptr<IoJob> job) {
  {
    std::lock_guard<std::mutex> l(mutex_);
    queue_.push_back(std::move(job));
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  wake_.notify_one();
}

void IoThread::run() {
  for (;;) {
    std::shared_ptr<IoJob> job;
    {
      std::unique_lock<std::mutex> l(mutex_);
      wake_.wait(l, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job->error = job->work ? job->work(&job->moved)
                           : transfer(job->access, job->write, job->start, job->data, job->bytes, &job->moved,
                                      job->call, job->rank);
    job->finished.store(true, std::memory_order_release);
    if (job->in_flight) job->in_flight->fetch_sub(1, std::memory_order_release);
  }
}

// ---- the table ----

MPI_File FileTable::add(std::unique_ptr<File> file) {
  for (size_t i = 0; i < files_.size(); ++i) {
    if (!files_[i]) {
      files_[i] = std::move(file);
      return handle_of(i);
    }
  }
  files_.push_back(std::move(file));
  return handle_of(files_.size() - 1);
}

File* FileTable::find(MPI_File handle) {
  if (handle <= 0) return nullptr;
  size_t slot = slot_of(handle);
  return slot < files_.size() ? files_[slot].get() : nullptr;
}

void FileTable::remove(MPI_File handle) { files_[slot_of(handle)].reset(); }

bool FileTable::is_open(dev_t device, ino_t inode) const {
  for (const auto& f : files_) {
    if (f && f->device == device && f->inode == inode) return true;
  }
  return false;
}

}  // namespace gasket::mpi::io
