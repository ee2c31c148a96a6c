// MPI-IO on POSIX files (MPI 4.1 chapter 14): an open file, its view, its hints, the mapping of
// the view's data stream onto file bytes, and the POSIX transfers (with data sieving and
// byte-range locks). Nothing here calls MPI: the bindings (io.cc) add the collective parts and the
// pointers. Owned by the MPI context (FileTable); may call mpi/base and mpi/datatype.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "mpi.h"
#include "mpi/base/error.h"
#include "mpi/base/handle.h"
#include "mpi/datatype/datatype.h"
#include "mpi/io/datarep.h"

namespace gasket::mpi::io {

using InfoPairs = std::vector<std::pair<std::string, std::string>>;

// Independent non-contiguous accesses whose pieces average less than this are sieved
// (romio_ds_* automatic).
constexpr int64_t kSievedPieceMean = 64 << 10;

// The hints a file acts on (MPI_File_open / set_info / set_view info), all reported back by
// MPI_File_get_info. Unknown keys are ignored, as the standard allows.
struct Hints {
  enum class Switch { kAutomatic, kEnable, kDisable };
  int cb_nodes = 0;                        // aggregators; 0: one per node
  int64_t cb_buffer_size = 4 << 20;        // bytes each aggregator moves per round
  Switch cb_read = Switch::kAutomatic, cb_write = Switch::kAutomatic;  // romio_cb_read / write
  Switch ds_read = Switch::kAutomatic, ds_write = Switch::kAutomatic;  // romio_ds_read / write
  int64_t ind_rd_buffer_size = 4 << 20;    // data sieving buffer of independent reads
  int64_t ind_wr_buffer_size = 512 << 10;  // and writes
  int striping_factor = 0;                 // accepted and reported (POSIX files have no striping)
  int64_t striping_unit = 0;
  // gasket_write_behind: a write of at least two such pieces goes out piece by piece, each handed
  // to write-back (sync_file_range WRITE) once written, so the device works while the rank still
  // copies and MPI_File_sync has less left; 0 turns it off.
  int64_t write_behind = 4 << 20;

  // Takes the keys it knows from `info`; a malformed value fails naming the call, rank and key.
  Error apply(const InfoPairs& info, const char* call, int rank);
  InfoPairs report() const;
};

// A data representation registered with MPI_Register_datarep (or the predefined ones, which have
// no functions). The int and _c forms of the conversion functions are kept apart.
struct Datarep {
  MPI_Datarep_conversion_function* read = nullptr;
  MPI_Datarep_conversion_function* write = nullptr;
  MPI_Datarep_conversion_function_c* read_c = nullptr;
  MPI_Datarep_conversion_function_c* write_c = nullptr;
  MPI_Datarep_extent_function* extent = nullptr;
  void* extra_state = nullptr;
};

// A file view: the data stream (etypes) is the filetype's data tiled from byte `disp` on, copy k
// at disp + k * extent(filetype). Positions are counted in etypes; the stream in bytes.
struct View {
  int64_t disp = 0;
  int etype = MPI_BYTE, filetype = MPI_BYTE;
  const datatype::Datatype* etype_type = nullptr;
  const datatype::Datatype* filetype_type = nullptr;
  std::string datarep = "native";
  // The representation's file size of a predefined type (null: native and internal, the memory
  // sizes); with it, etype_type and filetype_type point at the types' layouts in the file
  // (held here), and the stream is in file bytes.
  BasicFileSize basic_size;
  std::shared_ptr<const datatype::Datatype> etype_in_file, filetype_in_file;
  std::vector<int64_t> before;  // data bytes of the filetype before each of its blocks

  void set_types(const datatype::Datatype* etype_t, const datatype::Datatype* filetype_t);
  int64_t etype_size() const { return etype_type->size; }
  // The file byte of stream byte `stream` (MPI_File_get_byte_offset).
  int64_t file_byte(int64_t stream) const;
  // The stream bytes that lie before file byte `file_offset` (seek from the end).
  int64_t stream_before(int64_t file_offset) const;
  // Calls f(file_offset, length, stream_offset_from_start) for each contiguous file extent of the
  // `bytes` stream bytes from stream byte `start`, in stream order; stops when f returns false.
  void for_each_extent(int64_t start, int64_t bytes,
                       const std::function<bool(int64_t, int64_t, int64_t)>& f) const;
};

// What a transfer needs of a file (copied into non-blocking jobs).
struct Access {
  int fd = -1;
  std::shared_ptr<const View> view;
  Hints hints;
  bool atomic = false;
};

// A contiguous range of the file holding `length` bytes of an access's stream from stream byte
// `stream` on (a piece of a rank's access).
struct Extent {
  int64_t offset, length, stream;
};

// The file extents of `bytes` stream bytes from stream byte `start` in view `v`, in stream order;
// a read's (end_of_file >= 0) stop at the end of the file. *moved: the stream bytes they hold.
std::vector<Extent> extents_of(const View& v, int64_t start, int64_t bytes, int64_t end_of_file, int64_t* moved);

// Moves `bytes` packed stream bytes from stream byte `start` between `data` and the file. Reads
// stop at end of file (*moved < bytes). Non-contiguous accesses are sieved (read the covering
// range, copy, write back under a lock) when the hints allow; atomic mode locks the range.
// Errors name `call`, the rank and the errno text.
Error transfer(const Access& a, bool write, int64_t start, char* data, int64_t bytes, int64_t* moved,
               const char* call, int rank);

// transfer() over extents already found (extents_of; `total`: the stream bytes they hold).
Error transfer_extents(const Access& a, bool write, const std::vector<Extent>& extents, char* data, int64_t total,
                       int64_t* moved, const char* call, int rank);

// pread/pwrite of `length` bytes at `offset` (retrying short transfers; *done: the bytes moved);
// a read stops at end of file. Errors name `call`, the rank and the errno text.
Error posix_io(int fd, bool write, char* p, int64_t length, int64_t offset, int64_t* done, const char* call, int rank);

// pwrite of `length` bytes at `offset`, in pieces of `piece` bytes each started towards the device
// (sync_file_range WRITE) once written when the write is at least two pieces (Hints::write_behind).
Error write_behind(int fd, const char* p, int64_t length, int64_t offset, int64_t piece, const char* call, int rank);

// The MPI error class of a failed file system call's errno.
int error_class_of_errno(int err);

// The path a collective access took, decided alike on every rank.
enum class CollectivePath { kNone, kTwoPhase, kIndependent };
struct CollectivePaths {
  std::atomic<CollectivePath> read{CollectivePath::kNone}, write{CollectivePath::kNone};
  InfoPairs report() const;
};

// One MPI_File.
struct File {
  int fd = -1;
  std::string path;
  dev_t device = 0;
  ino_t inode = 0;
  int amode = 0;
  MPI_Comm comm = MPI_COMM_NULL;  // a private duplicate of the communicator given to open
  int rank = 0, size = 1;
  Hints hints;
  std::shared_ptr<const View> view = std::make_shared<View>();
  int64_t pointer = 0;  // the individual file pointer, in etypes
  bool atomic = false;
  MPI_Errhandler errhandler = MPI_ERRORS_RETURN;
  MPI_Win shared_pointer = MPI_WIN_NULL;  // one MPI_Offset on rank 0 (the shared file pointer)
  MPI_Request split = MPI_REQUEST_NULL;   // the split collective in progress
  MPI_Win cb_window = MPI_WIN_NULL;       // collective buffering: each aggregator's buffer
  char* cb_buffer = nullptr;
  int64_t cb_window_size = 0;
  std::vector<int> aggregators;           // ranks, chosen at open (cb_nodes, one per node)
  int nodes = 1;                          // shared-memory groups (MPI_COMM_TYPE_SHARED) of comm
  // How the last collective read / write moved its data (MPI_File_get_info's gasket_cb_*_used);
  // shared with the non-blocking collectives, which decide later.
  std::shared_ptr<CollectivePaths> paths_used = std::make_shared<CollectivePaths>();
  // Non-blocking transfers queued or running on the I/O thread (MPI_File_close waits for them).
  std::shared_ptr<std::atomic<int>> in_flight = std::make_shared<std::atomic<int>>(0);

  Access access() const { return Access{fd, view, hints, atomic}; }
  std::string label() const { return "file " + path; }
};

// A job of the I/O thread: a transfer (non-blocking calls), done while the caller computes; or,
// with `work` set, that instead (an aggregator's runs of a non-blocking collective).
struct IoJob {
  std::function<Error(int64_t* moved)> work;
  Access access;
  bool write = false;
  int64_t start = 0;
  // The access's packed stream bytes: the caller's own memory when they need no packing or
  // conversion (a contiguous datatype, native representation: MPI leaves the buffer to the access
  // until it completes), else `staged`.
  char* data = nullptr;
  int64_t bytes = 0;
  std::vector<char> staged;
  int64_t moved = 0;
  Error error;
  int rank = 0;
  const char* call = "";
  std::shared_ptr<std::atomic<int>> in_flight;  // the file's count, decremented when finished
  std::atomic<bool> finished{false};
};

// One thread per process serving the non-blocking file accesses in order; started at the first.
class IoThread {
 public:
  ~IoThread();
  void submit(std::shared_ptr<IoJob> job);

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<IoJob>> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

class FileTable {
 public:
  // The one pair converting handles and table indices, over the shared handle layout
  // (mpi/base/handle.h): index i is the file kind's slot i + 1, so that 0 stays MPI_FILE_NULL; a
  // value of another kind gives an index past any table.
  static MPI_File handle_of(size_t slot) { return mpi::handle_of(HandleKind::kFile, slot + 1); }
  static size_t slot_of(MPI_File handle) { return mpi::slot_of(HandleKind::kFile, handle) - 1; }

  MPI_File add(std::unique_ptr<File> file);
  // The open file behind `handle`, or null.
  File* find(MPI_File handle);
  void remove(MPI_File handle);
  // Whether this process has the file (device, inode) open.
  bool is_open(dev_t device, ino_t inode) const;

  // Runs the error handler of file `handle` (MPI_FILE_NULL's when not open) for `e` and returns
  // the code to return: set by mpi/io's bindings, called by Context::report for the requests of
  // non-blocking file accesses (their errors reach the file's handler at MPI_Wait/Test).
  int (*report)(MPI_File handle, const Error& e) = nullptr;
  // MPI_FILE_NULL's error handler: the one of MPI_File_open and MPI_File_delete.
  MPI_Errhandler null_errhandler = MPI_ERRORS_RETURN;
  // Registered data representations (MPI_Register_datarep), by name.
  std::map<std::string, Datarep> datareps;
  IoThread& io_thread() { return io_thread_; }

 private:
  std::vector<std::unique_ptr<File>> files_;
  IoThread io_thread_;
};

}  // namespace gasket::mpi::io
