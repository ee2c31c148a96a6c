! One program, three interfaces (the preprocessor picks one: -DF08 mpi_f08, -DMODULE `use mpi`,
! neither: mpif.h): groups, communicators, datatypes and packing, every blocking, non-blocking and
! persistent collective, the send modes and request calls, probes, one-sided synchronisation and
! the environment queries, each result checked against what the standard says it is.
#if defined(F08)
#define HEAD_USE use mpi_f08
#define HEAD_INCLUDE
#define HANDLE(t) type(t)
#define STATUS type(MPI_Status)
#define STATUSES(n) type(MPI_Status), dimension(n)
#define SOURCE_OF(s) s%MPI_SOURCE
#define TAG_OF(s) s%MPI_TAG
#define TAG_AT(s, i) s(i)%MPI_TAG
#define LABEL 'corpus_f08'
#define ADDRESS_OUT type(c_ptr)
#elif defined(MODULE)
#define HEAD_USE use mpi
#define HEAD_INCLUDE
#define HANDLE(t) integer
#define STATUS integer, dimension(MPI_STATUS_SIZE)
#define STATUSES(n) integer, dimension(MPI_STATUS_SIZE, n)
#define SOURCE_OF(s) s(MPI_SOURCE)
#define TAG_OF(s) s(MPI_TAG)
#define TAG_AT(s, i) s(MPI_TAG, i)
#define LABEL 'corpus_mpi'
#define ADDRESS_OUT integer(kind=MPI_ADDRESS_KIND)
#else
#define HEAD_USE
#define HEAD_INCLUDE include 'mpif.h'
#define HANDLE(t) integer
#define STATUS integer, dimension(MPI_STATUS_SIZE)
#define STATUSES(n) integer, dimension(MPI_STATUS_SIZE, n)
#define SOURCE_OF(s) s(MPI_SOURCE)
#define TAG_OF(s) s(MPI_TAG)
#define TAG_AT(s, i) s(MPI_TAG, i)
#define LABEL 'corpus_mpif'
#define ADDRESS_OUT integer(kind=MPI_ADDRESS_KIND)
#endif
program corpus
  HEAD_USE
  implicit none
  HEAD_INCLUDE
  integer :: me, np, ierr, next, prev

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  next = mod(me + 1, np)
  prev = mod(me + np - 1, np)
  call environment()
  call groups()
  call communicators()
  call datatypes()
  call packing()
  call collectives()
  call nonblocking_collectives()
  call persistent_collectives()
  call send_modes()
  call one_sided()
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (me == 0) print '(2a,i0,a)', LABEL, ': ', np, ' ranks OK'
  call MPI_FINALIZE(ierr)
contains
  subroutine expect(ok, what, value)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer, intent(in) :: value
    if (.not. ok) then
      print '(a,a,i0,3a,i0)', LABEL, ': rank ', me, ': FAILED: ', what, ': got ', value
      call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine

  subroutine environment()
    integer :: version, subversion, length, provided, class
    logical :: flag
    character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: library
    character(len=MPI_MAX_PROCESSOR_NAME) :: host
    character(len=MPI_MAX_ERROR_STRING) :: text
    double precision :: t0, t1
    call MPI_GET_VERSION(version, subversion, ierr)
    call expect(version == MPI_VERSION .and. subversion == MPI_SUBVERSION, 'MPI_GET_VERSION', version)
    call MPI_GET_LIBRARY_VERSION(library, length, ierr)
    call expect(length > 0 .and. len_trim(library) == length, 'MPI_GET_LIBRARY_VERSION length', length)
    call MPI_GET_PROCESSOR_NAME(host, length, ierr)
    call expect(length > 0 .and. len_trim(host) == length, 'MPI_GET_PROCESSOR_NAME length', length)
    call MPI_INITIALIZED(flag, ierr)
    call expect(flag, 'MPI_INITIALIZED', 0)
    call MPI_FINALIZED(flag, ierr)
    call expect(.not. flag, 'MPI_FINALIZED', 0)
    call MPI_QUERY_THREAD(provided, ierr)
    call expect(provided >= MPI_THREAD_SINGLE .and. provided <= MPI_THREAD_MULTIPLE, 'MPI_QUERY_THREAD', provided)
    call MPI_IS_THREAD_MAIN(flag, ierr)
    call expect(flag, 'MPI_IS_THREAD_MAIN', 0)
    call MPI_ERROR_STRING(MPI_ERR_TRUNCATE, text, length, ierr)
    call expect(length > 0 .and. len_trim(text) == length, 'MPI_ERROR_STRING', length)
    call MPI_ERROR_CLASS(MPI_ERR_RANK, class, ierr)
    call expect(class == MPI_ERR_RANK, 'MPI_ERROR_CLASS', class)
    t0 = MPI_WTIME()
    t1 = MPI_WTIME()
    call expect(t1 >= t0 .and. MPI_WTICK() > 0d0, 'MPI_WTIME / MPI_WTICK', 0)
  end subroutine

  subroutine groups()
    HANDLE(MPI_Group) :: world, evens, odds, both, common, rest, first, ranged
    integer :: n, r, result, ranks(1), translated(1), range(3, 1)
    call MPI_COMM_GROUP(MPI_COMM_WORLD, world, ierr)
    call MPI_GROUP_SIZE(world, n, ierr)
    call MPI_GROUP_RANK(world, r, ierr)
    call expect(n == np .and. r == me, 'MPI_GROUP_SIZE / RANK', n)
    range(:, 1) = [0, np - 1, 2]
    call MPI_GROUP_RANGE_INCL(world, 1, range, evens, ierr)
    call MPI_GROUP_RANGE_EXCL(world, 1, range, odds, ierr)
    call MPI_GROUP_SIZE(evens, n, ierr)
    call expect(n == (np + 1) / 2, 'MPI_GROUP_RANGE_INCL size', n)
    call MPI_GROUP_SIZE(odds, n, ierr)
    call expect(n == np / 2, 'MPI_GROUP_RANGE_EXCL size', n)
    call MPI_GROUP_UNION(odds, evens, both, ierr)
    call MPI_GROUP_SIZE(both, n, ierr)
    call expect(n == np, 'MPI_GROUP_UNION size', n)
    call MPI_GROUP_COMPARE(both, world, result, ierr)
    call expect(result == MPI_SIMILAR, 'MPI_GROUP_COMPARE: same members, other order', result)
    call MPI_GROUP_INTERSECTION(evens, world, common, ierr)
    call MPI_GROUP_COMPARE(common, evens, result, ierr)
    call expect(result == MPI_IDENT, 'MPI_GROUP_INTERSECTION', result)
    call MPI_GROUP_DIFFERENCE(world, evens, rest, ierr)
    call MPI_GROUP_COMPARE(rest, odds, result, ierr)
    call expect(result == MPI_IDENT, 'MPI_GROUP_DIFFERENCE', result)
    ranks(1) = np - 1
    call MPI_GROUP_INCL(world, 1, ranks, first, ierr)
    call MPI_GROUP_TRANSLATE_RANKS(first, 1, [0], world, translated, ierr)
    call expect(translated(1) == np - 1, 'MPI_GROUP_TRANSLATE_RANKS', translated(1))
    call MPI_GROUP_EXCL(world, 1, ranks, ranged, ierr)
    call MPI_GROUP_SIZE(ranged, n, ierr)
    call expect(n == np - 1, 'MPI_GROUP_EXCL size', n)
    call MPI_GROUP_FREE(evens, ierr)
    call MPI_GROUP_FREE(odds, ierr)
    call MPI_GROUP_FREE(both, ierr)
    call MPI_GROUP_FREE(common, ierr)
    call MPI_GROUP_FREE(rest, ierr)
    call MPI_GROUP_FREE(first, ierr)
    call MPI_GROUP_FREE(ranged, ierr)
    call MPI_GROUP_FREE(world, ierr)
    call expect(world == MPI_GROUP_NULL, 'MPI_GROUP_FREE sets MPI_GROUP_NULL', 0)
  end subroutine

  subroutine communicators()
    HANDLE(MPI_Comm) :: dup, made, shared, copy
    HANDLE(MPI_Group) :: world
    HANDLE(MPI_Request) :: req
    HANDLE(MPI_Info) :: info
    integer :: result, n, total
    logical :: flag
    call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
    call MPI_COMM_COMPARE(dup, MPI_COMM_WORLD, result, ierr)
    call expect(result == MPI_CONGRUENT, 'MPI_COMM_COMPARE of a duplicate', result)
    call MPI_COMM_TEST_INTER(dup, flag, ierr)
    call expect(.not. flag, 'MPI_COMM_TEST_INTER', 0)
    call MPI_COMM_GROUP(dup, world, ierr)
    call MPI_COMM_CREATE(dup, world, made, ierr)
    call MPI_COMM_SIZE(made, n, ierr)
    call expect(n == np, 'MPI_COMM_CREATE of the whole group', n)
    call MPI_COMM_CREATE_GROUP(dup, world, 7, copy, ierr)
    call MPI_ALLREDUCE(1, total, 1, MPI_INTEGER, MPI_SUM, copy, ierr)
    call expect(total == np, 'MPI_COMM_CREATE_GROUP usable', total)
    call MPI_COMM_FREE(copy, ierr)
    call MPI_GROUP_FREE(world, ierr)
    call MPI_COMM_SPLIT_TYPE(dup, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, shared, ierr)
    call MPI_COMM_SIZE(shared, n, ierr)
    call expect(n >= 1 .and. n <= np, 'MPI_COMM_SPLIT_TYPE(MPI_COMM_TYPE_SHARED)', n)
    call MPI_COMM_IDUP(made, copy, req, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    call MPI_COMM_COMPARE(copy, made, result, ierr)
    call expect(result == MPI_CONGRUENT, 'MPI_COMM_IDUP', result)
    call MPI_INFO_CREATE(info, ierr)
    call MPI_INFO_SET(info, 'mpi_assert_no_any_tag', 'true', ierr)
    call MPI_COMM_SET_INFO(copy, info, ierr)
    call MPI_INFO_FREE(info, ierr)
    call MPI_COMM_GET_INFO(copy, info, ierr)
    call MPI_INFO_GET_NKEYS(info, n, ierr)
    call expect(n >= 0, 'MPI_COMM_GET_INFO', n)
    call MPI_INFO_FREE(info, ierr)
    call MPI_COMM_FREE(copy, ierr)
    call MPI_COMM_FREE(shared, ierr)
    call MPI_COMM_FREE(made, ierr)
    call MPI_COMM_FREE(dup, ierr)
    call expect(dup == MPI_COMM_NULL, 'MPI_COMM_FREE sets MPI_COMM_NULL', 0)
  end subroutine

  subroutine datatypes()
    HANDLE(MPI_Datatype) :: vector, hvector, indexed, blocks, structure, resized, sub
    integer :: size, a(12), b(12), ni, na, nd, combiner
    integer(kind=MPI_ADDRESS_KIND) :: lb, extent, address0, address1
    STATUS :: st
    character(len=MPI_MAX_OBJECT_NAME) :: name
    call MPI_TYPE_VECTOR(3, 2, 4, MPI_INTEGER, vector, ierr)
    call MPI_TYPE_COMMIT(vector, ierr)
    call MPI_TYPE_SIZE(vector, size, ierr)
    call MPI_TYPE_GET_EXTENT(vector, lb, extent, ierr)
    call expect(size == 24 .and. lb == 0 .and. extent == 40, 'MPI_TYPE_VECTOR size / extent', int(extent))
    call MPI_TYPE_GET_TRUE_EXTENT(vector, lb, extent, ierr)
    call expect(extent == 40, 'MPI_TYPE_GET_TRUE_EXTENT', int(extent))
    a = [(me * 100 + nd, nd = 1, 12)]
    b = -1
    call MPI_SENDRECV(a, 1, vector, next, 1, b, 6, MPI_INTEGER, prev, 1, MPI_COMM_WORLD, st, ierr)
    call expect(b(1) == prev * 100 + 1 .and. b(3) == prev * 100 + 5 .and. b(6) == prev * 100 + 10, &
                'a vector sent', b(6))
    call MPI_GET_ELEMENTS(st, MPI_INTEGER, ni, ierr)
    call expect(ni == 6, 'MPI_GET_ELEMENTS', ni)
    call MPI_TYPE_CREATE_HVECTOR(2, 1, 8_MPI_ADDRESS_KIND, MPI_INTEGER, hvector, ierr)
    call MPI_TYPE_INDEXED(2, [1, 2], [0, 5], MPI_INTEGER, indexed, ierr)
    call MPI_TYPE_CREATE_INDEXED_BLOCK(2, 2, [1, 6], MPI_INTEGER, blocks, ierr)
    call MPI_TYPE_COMMIT(indexed, ierr)
    call MPI_TYPE_SIZE(indexed, size, ierr)
    call expect(size == 12, 'MPI_TYPE_INDEXED size', size)
    call MPI_GET_ADDRESS(a(1), address0, ierr)
    call MPI_GET_ADDRESS(a(3), address1, ierr)
    call expect(MPI_AINT_DIFF(address1, address0) == 8, 'MPI_GET_ADDRESS / MPI_AINT_DIFF', 0)
    call expect(MPI_AINT_ADD(address0, 8_MPI_ADDRESS_KIND) == address1, 'MPI_AINT_ADD', 0)
    call MPI_TYPE_CREATE_STRUCT(2, [1, 1], [0_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND], [MPI_INTEGER, MPI_INTEGER], &
                                structure, ierr)
    call MPI_TYPE_CREATE_RESIZED(structure, 0_MPI_ADDRESS_KIND, 16_MPI_ADDRESS_KIND, resized, ierr)
    call MPI_TYPE_GET_EXTENT(resized, lb, extent, ierr)
    call expect(extent == 16, 'MPI_TYPE_CREATE_RESIZED extent', int(extent))
    call MPI_TYPE_GET_ENVELOPE(structure, ni, na, nd, combiner, ierr)
    call expect(combiner == MPI_COMBINER_STRUCT .and. ni == 3 .and. na == 2 .and. nd == 2, &
                'MPI_TYPE_GET_ENVELOPE of a struct', combiner)
    call MPI_TYPE_CREATE_SUBARRAY(2, [4, 3], [2, 2], [1, 1], MPI_ORDER_FORTRAN, MPI_INTEGER, sub, ierr)
    call MPI_TYPE_COMMIT(sub, ierr)
    call MPI_TYPE_SIZE(sub, size, ierr)
    call expect(size == 16, 'MPI_TYPE_CREATE_SUBARRAY size', size)
    call MPI_TYPE_SET_NAME(sub, 'corner', ierr)
    call MPI_TYPE_GET_NAME(sub, name, size, ierr)
    call expect(name == 'corner' .and. size == 6, 'MPI_TYPE_SET_NAME / GET_NAME', size)
    call MPI_TYPE_FREE(sub, ierr)
    call MPI_TYPE_FREE(resized, ierr)
    call MPI_TYPE_FREE(structure, ierr)
    call MPI_TYPE_FREE(blocks, ierr)
    call MPI_TYPE_FREE(indexed, ierr)
    call MPI_TYPE_FREE(hvector, ierr)
    call MPI_TYPE_FREE(vector, ierr)
    call expect(vector == MPI_DATATYPE_NULL, 'MPI_TYPE_FREE sets MPI_DATATYPE_NULL', 0)
  end subroutine

  subroutine packing()
    character(len=1) :: packed(64)
    integer :: position, size, values(3), back(3)
    double precision :: x, y
    values = [me, 2 * me, 3 * me]
    x = 0.5d0 + me
    call MPI_PACK_SIZE(3, MPI_INTEGER, MPI_COMM_WORLD, size, ierr)
    call expect(size >= 12, 'MPI_PACK_SIZE', size)
    position = 0
    call MPI_PACK(values, 3, MPI_INTEGER, packed, 64, position, MPI_COMM_WORLD, ierr)
    call MPI_PACK(x, 1, MPI_DOUBLE_PRECISION, packed, 64, position, MPI_COMM_WORLD, ierr)
    call expect(position == 20, 'MPI_PACK position', position)
    position = 0
    call MPI_UNPACK(packed, 64, position, back, 3, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call MPI_UNPACK(packed, 64, position, y, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    call expect(all(back == values) .and. y == x, 'MPI_UNPACK', back(3))
  end subroutine

  subroutine collectives()
    integer :: i, one, all(np), counts(np), displs(np), got(np), total, mine(2), pair(2)
    logical :: commute
    one = 10 * me
    if (me == 0) one = 77
    call MPI_BCAST(one, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call expect(one == 77, 'MPI_BCAST', one)
    call MPI_GATHER(me, 1, MPI_INTEGER, all, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    if (me == 0) call expect(all(np) == np - 1 .and. all(1) == 0, 'MPI_GATHER', all(np))
    counts = 1
    displs = [(np - i, i = 1, np)]
    call MPI_GATHERV(me, 1, MPI_INTEGER, got, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    if (me == 0) call expect(got(1) == np - 1 .and. got(np) == 0, 'MPI_GATHERV (reversed)', got(1))
    all = [(100 + i, i = 1, np)]
    call MPI_SCATTER(all, 1, MPI_INTEGER, one, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call expect(one == 101 + me, 'MPI_SCATTER', one)
    call MPI_SCATTERV(all, counts, displs, MPI_INTEGER, one, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call expect(one == 100 + np - me, 'MPI_SCATTERV (reversed)', one)
    call MPI_ALLGATHER(me * me, 1, MPI_INTEGER, all, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call expect(all(np) == (np - 1) ** 2, 'MPI_ALLGATHER', all(np))
    call MPI_ALLGATHERV(me, 1, MPI_INTEGER, got, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call expect(got(np) == 0 .and. got(1) == np - 1, 'MPI_ALLGATHERV', got(1))
    all = [(1000 * me + i, i = 1, np)]
    call MPI_ALLTOALL(all, 1, MPI_INTEGER, got, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call expect(got(np) == 1000 * (np - 1) + me + 1, 'MPI_ALLTOALL', got(np))
    displs = [(i - 1, i = 1, np)]
    call MPI_ALLTOALLV(all, counts, displs, MPI_INTEGER, got, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call expect(got(1) == me + 1, 'MPI_ALLTOALLV', got(1))
    call MPI_REDUCE(me + 1, total, 1, MPI_INTEGER, MPI_SUM, np - 1, MPI_COMM_WORLD, ierr)
    if (me == np - 1) call expect(total == np * (np + 1) / 2, 'MPI_REDUCE', total)
    call MPI_SCAN(me + 1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call expect(total == (me + 1) * (me + 2) / 2, 'MPI_SCAN', total)
    call MPI_EXSCAN(me + 1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (me > 0) call expect(total == me * (me + 1) / 2, 'MPI_EXSCAN', total)
    all = 1
    call MPI_REDUCE_SCATTER_BLOCK(all, one, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call expect(one == np, 'MPI_REDUCE_SCATTER_BLOCK', one)
    call MPI_REDUCE_SCATTER(all, one, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call expect(one == np, 'MPI_REDUCE_SCATTER', one)
    mine = [me, 5]
    pair = [1, 2]
    call MPI_REDUCE_LOCAL(mine, pair, 2, MPI_INTEGER, MPI_PROD, ierr)
    call expect(pair(1) == me .and. pair(2) == 10, 'MPI_REDUCE_LOCAL', pair(2))
    call MPI_OP_COMMUTATIVE(MPI_SUM, commute, ierr)
    call expect(commute, 'MPI_OP_COMMUTATIVE', 0)
  end subroutine

  subroutine nonblocking_collectives()
    HANDLE(MPI_Request) :: reqs(8)
    integer, asynchronous :: b, s, g(np), a(np), total, scanned, ex, all(np)  ! non-blocking buffers
    integer :: k
    b = 0
    if (me == 0) b = 55
    all = [(i_of(me, k), k = 1, np)]
    call MPI_IBARRIER(MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_IBCAST(b, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_IALLGATHER(me, 1, MPI_INTEGER, g, 1, MPI_INTEGER, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_IALLREDUCE(me, total, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, reqs(4), ierr)
    call MPI_IALLTOALL(all, 1, MPI_INTEGER, a, 1, MPI_INTEGER, MPI_COMM_WORLD, reqs(5), ierr)
    call MPI_ISCAN(1, scanned, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(6), ierr)
    call MPI_IEXSCAN(1, ex, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(7), ierr)
    call MPI_IREDUCE(1, s, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, reqs(8), ierr)
    call MPI_WAITALL(8, reqs, MPI_STATUSES_IGNORE, ierr)
    call expect(b == 55, 'MPI_IBCAST', b)
    call expect(g(np) == np - 1, 'MPI_IALLGATHER', g(np))
    call expect(total == np - 1, 'MPI_IALLREDUCE', total)
    call expect(a(np) == i_of(np - 1, me + 1), 'MPI_IALLTOALL', a(np))
    call expect(scanned == me + 1, 'MPI_ISCAN', scanned)
    if (me > 0) call expect(ex == me, 'MPI_IEXSCAN', ex)
    if (me == 0) call expect(s == np, 'MPI_IREDUCE', s)
  end subroutine

  integer function i_of(rank, k)
    integer, intent(in) :: rank, k
    i_of = 1000 * rank + k
  end function

  subroutine persistent_collectives()
    HANDLE(MPI_Request) :: reqs(3)
    integer :: round
    integer, asynchronous :: b, total, g(np)  ! read and written by persistent requests
    call MPI_BCAST_INIT(b, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, reqs(1), ierr)
    call MPI_ALLREDUCE_INIT(b, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, reqs(2), ierr)
    call MPI_BARRIER_INIT(MPI_COMM_WORLD, MPI_INFO_NULL, reqs(3), ierr)
    do round = 1, 3
      b = -1
      if (me == 0) b = round
      call MPI_START(reqs(1), ierr)
      call MPI_WAIT(reqs(1), MPI_STATUS_IGNORE, ierr)
      call expect(b == round, 'MPI_BCAST_INIT round', b)
      call MPI_STARTALL(2, reqs(2:3), ierr)
      call MPI_WAITALL(2, reqs(2:3), MPI_STATUSES_IGNORE, ierr)
      call expect(total == np * round, 'MPI_ALLREDUCE_INIT round', total)
    end do
    call MPI_REQUEST_FREE(reqs(1), ierr)
    call MPI_REQUEST_FREE(reqs(2), ierr)
    call MPI_REQUEST_FREE(reqs(3), ierr)
    call MPI_ALLGATHER_INIT(me, 1, MPI_INTEGER, g, 1, MPI_INTEGER, MPI_COMM_WORLD, MPI_INFO_NULL, reqs(1), ierr)
    call MPI_START(reqs(1), ierr)
    call MPI_WAIT(reqs(1), MPI_STATUS_IGNORE, ierr)
    call expect(g(np) == np - 1 .and. g(1) == 0, 'MPI_ALLGATHER_INIT', g(np))
    call MPI_REQUEST_FREE(reqs(1), ierr)
  end subroutine

  subroutine send_modes()
    HANDLE(MPI_Request) :: reqs(4), sreq, rreq, pending(1)
    STATUS :: st
    STATUSES(4) :: sts
    integer, asynchronous :: got(4), v(4)  ! non-blocking and persistent buffers
    integer :: count, x
    logical :: flag
    character(len=1) :: attached(MPI_BSEND_OVERHEAD + 64)
    ADDRESS_OUT :: detached_address
    v = [(10 * me + count, count = 1, 4)]
    got = -1
    call MPI_IRECV(got(1), 1, MPI_INTEGER, prev, 1, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_IRECV(got(2), 1, MPI_INTEGER, prev, 2, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_IRECV(got(3), 1, MPI_INTEGER, prev, 3, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_IRECV(got(4), 1, MPI_INTEGER, prev, 4, MPI_COMM_WORLD, reqs(4), ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)  ! every receive posted: ready sends are valid
    call MPI_SSEND(v(1), 1, MPI_INTEGER, next, 1, MPI_COMM_WORLD, ierr)
    call MPI_RSEND(v(2), 1, MPI_INTEGER, next, 2, MPI_COMM_WORLD, ierr)
    call MPI_ISSEND(v(3), 1, MPI_INTEGER, next, 3, MPI_COMM_WORLD, sreq, ierr)
    call MPI_BUFFER_ATTACH(attached, size(attached), ierr)
    call MPI_BSEND(v(4), 1, MPI_INTEGER, next, 4, MPI_COMM_WORLD, ierr)
    call MPI_WAITALL(4, reqs, sts, ierr)
    call MPI_WAIT(sreq, MPI_STATUS_IGNORE, ierr)
    call MPI_BUFFER_DETACH(detached_address, count, ierr)
    call expect(count == size(attached), 'MPI_BUFFER_DETACH size', count)
    call expect(all(got == [(10 * prev + x, x = 1, 4)]), 'MPI_SSEND / RSEND / ISSEND / BSEND data', got(4))
    call expect(TAG_AT(sts, 4) == 4 .and. TAG_AT(sts, 1) == 1, 'MPI_WAITALL statuses in request order', TAG_AT(sts, 4))
    ! persistent point-to-point, MPI_TESTALL, MPI_REQUEST_GET_STATUS
    call MPI_RECV_INIT(got(1), 1, MPI_INTEGER, prev, 9, MPI_COMM_WORLD, rreq, ierr)
    call MPI_SEND_INIT(v(1), 1, MPI_INTEGER, next, 9, MPI_COMM_WORLD, sreq, ierr)
    do x = 1, 2
      got(1) = -1
      v(1) = 100 * me + x
      call MPI_START(rreq, ierr)
      call MPI_START(sreq, ierr)
      flag = .false.
      do while (.not. flag)
        call MPI_REQUEST_GET_STATUS(rreq, flag, st, ierr)
      end do
      call expect(SOURCE_OF(st) == prev, 'MPI_REQUEST_GET_STATUS source', SOURCE_OF(st))
      flag = .false.
      pending(1) = rreq
      do while (.not. flag)
        call MPI_TESTALL(1, pending, flag, MPI_STATUSES_IGNORE, ierr)
      end do
      call expect(pending(1) == rreq, 'MPI_TESTALL keeps a persistent request', 0)
      call MPI_WAIT(rreq, MPI_STATUS_IGNORE, ierr)
      call MPI_WAIT(sreq, MPI_STATUS_IGNORE, ierr)
      call expect(got(1) == 100 * prev + x, 'MPI_SEND_INIT / MPI_RECV_INIT round', got(1))
    end do
    call MPI_REQUEST_FREE(rreq, ierr)
    call MPI_REQUEST_FREE(sreq, ierr)
    ! probes and MPI_SENDRECV_REPLACE
    call MPI_ISEND(v(2), 1, MPI_INTEGER, next, 11, MPI_COMM_WORLD, sreq, ierr)
    call MPI_PROBE(prev, 11, MPI_COMM_WORLD, st, ierr)
    call MPI_GET_COUNT(st, MPI_INTEGER, count, ierr)
    call expect(count == 1 .and. TAG_OF(st) == 11, 'MPI_PROBE / MPI_GET_COUNT', count)
    flag = .false.
    do while (.not. flag)
      call MPI_IPROBE(prev, 11, MPI_COMM_WORLD, flag, st, ierr)
    end do
    call MPI_RECV(x, 1, MPI_INTEGER, prev, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call expect(x == 10 * prev + 2, 'received after the probes', x)
    call MPI_WAIT(sreq, MPI_STATUS_IGNORE, ierr)
    x = me
    call MPI_SENDRECV_REPLACE(x, 1, MPI_INTEGER, next, 12, prev, 12, MPI_COMM_WORLD, st, ierr)
    call expect(x == prev .and. SOURCE_OF(st) == prev, 'MPI_SENDRECV_REPLACE', x)
  end subroutine

  subroutine one_sided()
    HANDLE(MPI_Win) :: win
    HANDLE(MPI_Group) :: group
    integer :: window(4), result, one, compare, n
    integer(kind=MPI_ADDRESS_KIND), parameter :: four = 4
    window = 0
    call MPI_WIN_CREATE(window, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call MPI_WIN_GET_GROUP(win, group, ierr)
    call MPI_GROUP_SIZE(group, n, ierr)
    call expect(n == np, 'MPI_WIN_GET_GROUP', n)
    call MPI_GROUP_FREE(group, ierr)
    call MPI_WIN_LOCK_ALL(0, win, ierr)
    one = 1
    call MPI_FETCH_AND_OP(one, result, MPI_INTEGER, next, 0_MPI_ADDRESS_KIND, MPI_SUM, win, ierr)
    call MPI_WIN_FLUSH(next, win, ierr)
    compare = 0
    call MPI_COMPARE_AND_SWAP(me + 5, compare, result, MPI_INTEGER, next, 1_MPI_ADDRESS_KIND, win, ierr)
    call MPI_WIN_FLUSH_ALL(win, ierr)
    call MPI_WIN_FLUSH_LOCAL(next, win, ierr)
    call MPI_WIN_FLUSH_LOCAL_ALL(win, ierr)
    call expect(result == 0, 'MPI_COMPARE_AND_SWAP found the initial 0', result)
    call MPI_WIN_UNLOCK_ALL(win, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    call MPI_WIN_SYNC(win, ierr)
    call expect(window(1) == 1 .and. window(2) == prev + 5, 'MPI_FETCH_AND_OP / COMPARE_AND_SWAP landed', window(2))
    call MPI_WIN_FREE(win, ierr)
    call expect(four == 4, 'constants', 0)
  end subroutine
end program
