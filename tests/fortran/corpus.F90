! One program, three interfaces (the preprocessor picks one: -DF08 mpi_f08, -DMODULE `use mpi`,
! neither: mpif.h): groups, communicators, datatypes and packing, every blocking, non-blocking and
! persistent collective, the send modes and request calls, probes, one-sided synchronisation and
! the environment queries, each result checked against what the standard says it is.
#define PROGRAM_NAME 'corpus'
#include "interface.inc"
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
  call files()
  call topologies()
  call windows()
  call error_classes()
  call intercommunicators()
  call more_types()
  call more_nonblocking()
  call attached_buffers()
  call status_queries()
  call library_queries()
  call collective_forms()
  call neighbour_forms()
  call send_forms()
  call partitioned()
  call file_forms()
  call window_forms()
  call session_forms()
  call type_and_info_forms()
  call ports_and_names()
  call leftovers()
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (me == 0) print '(2a,i0,a)', LABEL, ': ', np, ' ranks OK'
  call MPI_FINALIZE(ierr)
contains
#include "expect.inc"

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
    ! MPI_WIN_SYNC belongs inside an epoch (outside one it is MPI_ERR_RMA_SYNC)
    call MPI_WIN_LOCK(MPI_LOCK_SHARED, me, 0, win, ierr)
    call MPI_WIN_SYNC(win, ierr)
    call MPI_WIN_UNLOCK(me, win, ierr)
    call expect(window(1) == 1 .and. window(2) == prev + 5, 'MPI_FETCH_AND_OP / COMPARE_AND_SWAP landed', window(2))
    call MPI_WIN_FREE(win, ierr)
    call expect(four == 4, 'constants', 0)
  end subroutine
  subroutine files()
    HANDLE(MPI_File) :: fh
    HANDLE(MPI_Group) :: group
    HANDLE(MPI_Info) :: info
    HANDLE(MPI_Request) :: req
    HANDLE(MPI_Errhandler) :: eh
    integer(kind=MPI_OFFSET_KIND) :: size, position, byte
    integer(kind=MPI_ADDRESS_KIND) :: extent
    integer :: amode, n, got(4), length, status, v(2), class
    integer, asynchronous :: pending(2)
    logical :: atomic
    character(len=4096) :: dir
    character(len=:), allocatable :: path
    call get_environment_variable('TEST_TMPDIR', dir, length, status)
    if (status /= 0) dir = '/tmp'
    path = trim(dir) // '/' // LABEL // '.data'
    call MPI_FILE_OPEN(MPI_COMM_WORLD, path, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_FILE_OPEN', ierr)
    call MPI_FILE_SET_ERRHANDLER(fh, MPI_ERRORS_RETURN, ierr)
    call MPI_FILE_GET_ERRHANDLER(fh, eh, ierr)
    call expect(eh == MPI_ERRORS_RETURN, 'MPI_FILE_GET_ERRHANDLER', 0)
    call MPI_FILE_GET_AMODE(fh, amode, ierr)
    call expect(amode == MPI_MODE_CREATE + MPI_MODE_RDWR, 'MPI_FILE_GET_AMODE', amode)
    call MPI_FILE_GET_GROUP(fh, group, ierr)
    call MPI_GROUP_SIZE(group, n, ierr)
    call expect(n == np, 'MPI_FILE_GET_GROUP', n)
    call MPI_GROUP_FREE(group, ierr)
    call MPI_FILE_SET_SIZE(fh, 0_MPI_OFFSET_KIND, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_FILE_SET_SIZE', ierr)
    call MPI_FILE_PREALLOCATE(fh, 16_MPI_OFFSET_KIND * np, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_FILE_PREALLOCATE', ierr)
    call MPI_FILE_GET_SIZE(fh, size, ierr)
    call expect(size >= 16 * np, 'MPI_FILE_PREALLOCATE / GET_SIZE', int(size))
    call MPI_FILE_SET_ATOMICITY(fh, .true., ierr)
    call MPI_FILE_GET_ATOMICITY(fh, atomic, ierr)
    call expect(atomic, 'MPI_FILE_GET_ATOMICITY', 0)
    call MPI_FILE_SET_ATOMICITY(fh, .false., ierr)
    call MPI_FILE_GET_TYPE_EXTENT(fh, MPI_INTEGER, extent, ierr)
    call expect(extent == 4, 'MPI_FILE_GET_TYPE_EXTENT', int(extent))
    ! each rank owns 4 integers at 16 * rank: explicit offsets, individual pointer, non-blocking
    v = [me, 10 + me]
    call MPI_FILE_WRITE_AT(fh, 16_MPI_OFFSET_KIND * me, v, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_FILE_WRITE_AT', ierr)
    call MPI_FILE_SEEK(fh, 16_MPI_OFFSET_KIND * me + 8, MPI_SEEK_SET, ierr)
    call MPI_FILE_GET_POSITION(fh, position, ierr)
    call MPI_FILE_GET_BYTE_OFFSET(fh, position, byte, ierr)
    call expect(byte == 16 * me + 8, 'MPI_FILE_SEEK / GET_POSITION / GET_BYTE_OFFSET', int(byte))
    pending = [20 + me, 30 + me]
    call MPI_FILE_IWRITE(fh, pending, 2, MPI_INTEGER, req, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_FILE_IWRITE', ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    call MPI_FILE_SYNC(fh, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    call MPI_FILE_SYNC(fh, ierr)
    got = -1
    call MPI_FILE_READ_AT_ALL(fh, 16_MPI_OFFSET_KIND * prev, got, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call expect(all(got == [prev, 10 + prev, 20 + prev, 30 + prev]), 'the neighbour''s 4 integers', got(4))
    got = -1
    call MPI_FILE_IREAD_AT(fh, 16_MPI_OFFSET_KIND * prev + 4, pending, 2, MPI_INTEGER, req, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_FILE_IREAD_AT', ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    call expect(pending(1) == 10 + prev .and. pending(2) == 20 + prev, 'MPI_FILE_IREAD_AT', pending(2))
    call MPI_FILE_SEEK(fh, 16_MPI_OFFSET_KIND * next, MPI_SEEK_SET, ierr)
    call MPI_FILE_READ(fh, got, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call expect(got(1) == next, 'MPI_FILE_READ at the individual pointer', got(1))
    call MPI_FILE_SEEK(fh, 16_MPI_OFFSET_KIND * me, MPI_SEEK_SET, ierr)
    call MPI_FILE_READ_ALL(fh, got, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call expect(got(2) == 10 + me, 'MPI_FILE_READ_ALL', got(2))
    call MPI_FILE_GET_INFO(fh, info, ierr)
    call MPI_INFO_GET_NKEYS(info, n, ierr)
    call expect(n >= 0, 'MPI_FILE_GET_INFO', n)
    call MPI_INFO_FREE(info, ierr)
    ! the shared pointer: ordered writes after everything else
    call MPI_FILE_SEEK_SHARED(fh, 16_MPI_OFFSET_KIND * np, MPI_SEEK_SET, ierr)
    call MPI_FILE_WRITE_ORDERED(fh, [100 + me], 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_FILE_GET_POSITION_SHARED(fh, position, ierr)
    call expect(position == 16 * np + 4 * np, 'MPI_FILE_GET_POSITION_SHARED after ordered writes', int(position))
    call MPI_FILE_SEEK_SHARED(fh, 16_MPI_OFFSET_KIND * np, MPI_SEEK_SET, ierr)
    call MPI_FILE_READ_ORDERED(fh, got, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call expect(got(1) == 100 + me, 'MPI_FILE_READ_ORDERED', got(1))
    call MPI_FILE_CLOSE(fh, ierr)
    call expect(fh == MPI_FILE_NULL, 'MPI_FILE_CLOSE sets MPI_FILE_NULL', 0)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    if (me == 0) call MPI_FILE_DELETE(path, MPI_INFO_NULL, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    call MPI_FILE_OPEN(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
    call MPI_ERROR_CLASS(ierr, class, ierr)
    call expect(class == MPI_ERR_NO_SUCH_FILE, 'MPI_FILE_DELETE removed it', class)
  end subroutine

  subroutine topologies()
    HANDLE(MPI_Comm) :: cart, row, graph, dist
    integer :: dims(2), coords(2), ndims, rank, n, nodes, edges, status, neighbours(2), got(4)
    integer :: index(np), links(2 * np), indeg, outdeg, sources(2), dests(2), i
    logical :: periods(2), weighted, keep(2)
    dims = 0
    call MPI_DIMS_CREATE(np, 2, dims, ierr)
    call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, [.true., .false.], .false., cart, ierr)
    call MPI_CARTDIM_GET(cart, ndims, ierr)
    call expect(ndims == 2, 'MPI_CARTDIM_GET', ndims)
    call MPI_CART_GET(cart, 2, dims, periods, coords, ierr)
    call expect(periods(1) .and. .not. periods(2), 'MPI_CART_GET periods', 0)
    call MPI_CART_RANK(cart, coords, rank, ierr)
    call expect(rank == me, 'MPI_CART_RANK of my coordinates', rank)
    call MPI_CART_MAP(MPI_COMM_WORLD, 2, dims, [.true., .false.], rank, ierr)
    call expect(rank == me, 'MPI_CART_MAP keeps the ranks', rank)
    call MPI_TOPO_TEST(cart, status, ierr)
    call expect(status == MPI_CART, 'MPI_TOPO_TEST', status)
    keep = [.false., .true.]
    call MPI_CART_SUB(cart, keep, row, ierr)
    call MPI_COMM_SIZE(row, n, ierr)
    call expect(n == dims(2), 'MPI_CART_SUB size', n)
    call MPI_COMM_FREE(row, ierr)
    call MPI_COMM_FREE(cart, ierr)
    ! a ring as a graph: node i's neighbours are i-1 and i+1
    do i = 1, np
      index(i) = 2 * i
      links(2 * i - 1) = mod(i - 2 + np, np)
      links(2 * i) = mod(i, np)
    end do
    call MPI_GRAPH_CREATE(MPI_COMM_WORLD, np, index, links, .false., graph, ierr)
    call MPI_GRAPHDIMS_GET(graph, nodes, edges, ierr)
    call expect(nodes == np .and. edges == 2 * np, 'MPI_GRAPHDIMS_GET', edges)
    call MPI_GRAPH_GET(graph, np, 2 * np, index, links, ierr)
    call expect(index(1) == 2 .and. index(np) == 2 * np, 'MPI_GRAPH_GET index: cumulative degrees', index(np))
    call MPI_GRAPH_NEIGHBORS_COUNT(graph, me, n, ierr)
    call MPI_GRAPH_NEIGHBORS(graph, me, 2, neighbours, ierr)
    call expect(n == 2 .and. neighbours(1) == prev .and. neighbours(2) == next, 'MPI_GRAPH_NEIGHBORS', neighbours(1))
    call MPI_GRAPH_MAP(MPI_COMM_WORLD, np, index, links, rank, ierr)
    call expect(rank == me, 'MPI_GRAPH_MAP', rank)
    call MPI_COMM_FREE(graph, ierr)
    ! the same ring, distributed: neighbourhood collectives
    sources = [prev, next]
    dests = [prev, next]
    call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 2, sources, MPI_UNWEIGHTED, 2, dests, MPI_UNWEIGHTED, &
                                        MPI_INFO_NULL, .false., dist, ierr)
    call MPI_DIST_GRAPH_NEIGHBORS_COUNT(dist, indeg, outdeg, weighted, ierr)
    call expect(indeg == 2 .and. outdeg == 2 .and. .not. weighted, 'MPI_DIST_GRAPH_NEIGHBORS_COUNT', indeg)
    call MPI_DIST_GRAPH_NEIGHBORS(dist, 2, sources, MPI_UNWEIGHTED, 2, dests, MPI_UNWEIGHTED, ierr)
    call expect(sources(1) == prev .and. dests(2) == next, 'MPI_DIST_GRAPH_NEIGHBORS', sources(1))
    got = -1
    call MPI_NEIGHBOR_ALLGATHER(me, 1, MPI_INTEGER, got, 1, MPI_INTEGER, dist, ierr)
    call expect(got(1) == prev .and. got(2) == next, 'MPI_NEIGHBOR_ALLGATHER', got(1))
    call MPI_NEIGHBOR_ALLTOALL([10 * me + 1, 10 * me + 2], 1, MPI_INTEGER, got, 1, MPI_INTEGER, dist, ierr)
    ! from prev: what prev sent to its second neighbour (me when np > 2)
    if (np > 2) call expect(got(1) == 10 * prev + 2 .and. got(2) == 10 * next + 1, 'MPI_NEIGHBOR_ALLTOALL', got(1))
    call MPI_COMM_FREE(dist, ierr)
    call MPI_DIST_GRAPH_CREATE(MPI_COMM_WORLD, 1, [me], [1], [next], MPI_UNWEIGHTED, MPI_INFO_NULL, .false., &
                               dist, ierr)
    call MPI_DIST_GRAPH_NEIGHBORS_COUNT(dist, indeg, outdeg, weighted, ierr)
    call expect(indeg == 1 .and. outdeg == 1, 'MPI_DIST_GRAPH_CREATE: one edge in, one out', indeg)
    call MPI_COMM_FREE(dist, ierr)
  end subroutine

  subroutine windows()
    HANDLE(MPI_Win) :: win
    HANDLE(MPI_Group) :: world, peers
    HANDLE(MPI_Request) :: req
    HANDLE(MPI_Errhandler) :: eh
    HANDLE(MPI_Info) :: info
    integer, asynchronous :: window(4), fetched
    integer :: n, length
    logical :: flag
    character(len=MPI_MAX_OBJECT_NAME) :: name
    window = 0
    call MPI_WIN_CREATE(window, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call MPI_WIN_SET_NAME(win, 'corpus window', ierr)
    call MPI_WIN_GET_NAME(win, name, length, ierr)
    call expect(name == 'corpus window' .and. length == 13, 'MPI_WIN_SET_NAME / GET_NAME', length)
    call MPI_WIN_SET_ERRHANDLER(win, MPI_ERRORS_RETURN, ierr)
    call MPI_WIN_GET_ERRHANDLER(win, eh, ierr)
    call expect(eh == MPI_ERRORS_RETURN, 'MPI_WIN_GET_ERRHANDLER', 0)
    call MPI_WIN_GET_INFO(win, info, ierr)
    call MPI_INFO_GET_NKEYS(info, n, ierr)
    call expect(n >= 0, 'MPI_WIN_GET_INFO', n)
    call MPI_WIN_SET_INFO(win, info, ierr)
    call MPI_INFO_FREE(info, ierr)
    ! general active target: each rank exposes to prev and accesses next
    call MPI_COMM_GROUP(MPI_COMM_WORLD, world, ierr)
    call MPI_GROUP_INCL(world, 1, [prev], peers, ierr)
    call MPI_WIN_POST(peers, 0, win, ierr)
    call MPI_GROUP_FREE(peers, ierr)
    call MPI_GROUP_INCL(world, 1, [next], peers, ierr)
    call MPI_WIN_START(peers, 0, win, ierr)
    call MPI_ACCUMULATE([5], 1, MPI_INTEGER, next, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, MPI_SUM, win, ierr)
    call MPI_PUT([me], 1, MPI_INTEGER, next, 1_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
    call MPI_WIN_COMPLETE(win, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_WIN_TEST(win, flag, ierr)
    end do
    call expect(window(1) == 5 .and. window(2) == prev, 'MPI_WIN_POST/START/COMPLETE/TEST epoch', window(2))
    call MPI_GROUP_FREE(peers, ierr)
    call MPI_GROUP_FREE(world, ierr)
    call MPI_WIN_FENCE(0, win, ierr)
    call MPI_GET_ACCUMULATE([1], 1, MPI_INTEGER, fetched, 1, MPI_INTEGER, next, 0_MPI_ADDRESS_KIND, 1, &
                            MPI_INTEGER, MPI_SUM, win, ierr)
    call MPI_WIN_FENCE(0, win, ierr)
    call expect(fetched == 5 .and. window(1) == 6, 'MPI_GET_ACCUMULATE', fetched)
    call MPI_WIN_LOCK(MPI_LOCK_EXCLUSIVE, next, 0, win, ierr)
    call MPI_RPUT([100 + me], 1, MPI_INTEGER, next, 2_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, req, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_RPUT under a lock', ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    call MPI_WIN_FLUSH(next, win, ierr)
    call MPI_RGET(fetched, 1, MPI_INTEGER, next, 1_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, req, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_RGET under a lock', ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    call MPI_WIN_UNLOCK(next, win, ierr)
    call expect(fetched == me, 'MPI_RGET under a lock', fetched)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    call MPI_WIN_LOCK(MPI_LOCK_SHARED, me, 0, win, ierr)
    call expect(window(3) == 100 + prev, 'MPI_RPUT landed', window(3))
    call MPI_WIN_UNLOCK(me, win, ierr)
    call MPI_WIN_FREE(win, ierr)
  end subroutine

  subroutine error_classes()
    integer :: class, code, got, length
    character(len=MPI_MAX_ERROR_STRING) :: text
    call MPI_ADD_ERROR_CLASS(class, ierr)
    call MPI_ADD_ERROR_CODE(class, code, ierr)
    call MPI_ADD_ERROR_STRING(code, 'corpus: a code of its own', ierr)
    call MPI_ERROR_CLASS(code, got, ierr)
    call expect(got == class, 'MPI_ADD_ERROR_CODE''s class', got)
    call MPI_ERROR_STRING(code, text, length, ierr)
    call expect(text == 'corpus: a code of its own' .and. length == 25, 'MPI_ADD_ERROR_STRING', length)
    call MPI_COMM_SET_ERRHANDLER(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
    call MPI_COMM_CALL_ERRHANDLER(MPI_COMM_SELF, code, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_COMM_CALL_ERRHANDLER with MPI_ERRORS_RETURN', ierr)
    call MPI_COMM_SET_ERRHANDLER(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL, ierr)
  end subroutine

  subroutine intercommunicators()
    HANDLE(MPI_Comm) :: half, inter, merged
    HANDLE(MPI_Group) :: remote
    integer :: color, n, rank
    logical :: flag
    if (np < 2) return
    color = mod(me, 2)
    call MPI_COMM_SPLIT(MPI_COMM_WORLD, color, me, half, ierr)
    call MPI_INTERCOMM_CREATE(half, 0, MPI_COMM_WORLD, 1 - color, 21, inter, ierr)
    call MPI_COMM_TEST_INTER(inter, flag, ierr)
    call expect(flag, 'MPI_INTERCOMM_CREATE gives an intercommunicator', 0)
    call MPI_COMM_REMOTE_SIZE(inter, n, ierr)
    call expect(n == merge(np / 2, (np + 1) / 2, color == 0), 'MPI_COMM_REMOTE_SIZE', n)
    call MPI_COMM_REMOTE_GROUP(inter, remote, ierr)
    call MPI_GROUP_SIZE(remote, rank, ierr)
    call expect(rank == n, 'MPI_COMM_REMOTE_GROUP', rank)
    call MPI_GROUP_FREE(remote, ierr)
    call MPI_INTERCOMM_MERGE(inter, color == 1, merged, ierr)
    call MPI_COMM_SIZE(merged, n, ierr)
    call MPI_COMM_RANK(merged, rank, ierr)
    call expect(n == np .and. (color == 1 .eqv. rank >= (np + 1) / 2), 'MPI_INTERCOMM_MERGE (odds high)', rank)
    call MPI_COMM_FREE(merged, ierr)
    call MPI_COMM_FREE(inter, ierr)
    call MPI_COMM_FREE(half, ierr)
  end subroutine

  subroutine more_types()
    HANDLE(MPI_Datatype) :: t, r8, i8, darray, hindexed
    integer :: size, values(4), pair(2)
    integer(kind=MPI_COUNT_KIND) :: count, lb, extent
    STATUS :: st
    call MPI_TYPE_MATCH_SIZE(MPI_TYPECLASS_REAL, 8, t, ierr)
    call MPI_TYPE_SIZE(t, size, ierr)
    call expect(size == 8, 'MPI_TYPE_MATCH_SIZE(REAL, 8)', size)
    call MPI_TYPE_CREATE_F90_REAL(15, 300, r8, ierr)
    call MPI_TYPE_SIZE(r8, size, ierr)
    call expect(size == 8, 'MPI_TYPE_CREATE_F90_REAL(15, 300)', size)
    call MPI_TYPE_CREATE_F90_INTEGER(18, i8, ierr)
    call MPI_TYPE_SIZE_X(i8, count, ierr)
    call expect(count == 8, 'MPI_TYPE_CREATE_F90_INTEGER(18) / MPI_TYPE_SIZE_X', int(count))
    call MPI_TYPE_CREATE_F90_COMPLEX(6, 30, t, ierr)
    call MPI_TYPE_SIZE(t, size, ierr)
    call expect(size == 8, 'MPI_TYPE_CREATE_F90_COMPLEX(6, 30)', size)
    call MPI_TYPE_CREATE_DARRAY(np, me, 1, [4 * np], [MPI_DISTRIBUTE_BLOCK], [MPI_DISTRIBUTE_DFLT_DARG], [np], &
                                MPI_ORDER_FORTRAN, MPI_INTEGER, darray, ierr)
    call MPI_TYPE_SIZE(darray, size, ierr)
    call expect(size == 16, 'MPI_TYPE_CREATE_DARRAY: a block of 4 integers', size)
    call MPI_TYPE_GET_EXTENT_X(darray, lb, extent, ierr)
    call expect(extent == 16 * np, 'MPI_TYPE_GET_EXTENT_X of the darray', int(extent))
    call MPI_TYPE_GET_TRUE_EXTENT_X(darray, lb, extent, ierr)
    call expect(lb == 16 * me .and. extent == 16, 'MPI_TYPE_GET_TRUE_EXTENT_X', int(lb))
    call MPI_TYPE_FREE(darray, ierr)
    call MPI_TYPE_CREATE_HINDEXED(2, [1, 1], [0_MPI_ADDRESS_KIND, 12_MPI_ADDRESS_KIND], MPI_INTEGER, hindexed, ierr)
    call MPI_TYPE_COMMIT(hindexed, ierr)
    values = [(10 * me + size, size = 1, 4)]
    call MPI_SENDRECV(values, 1, hindexed, next, 3, pair, 2, MPI_INTEGER, prev, 3, MPI_COMM_WORLD, st, ierr)
    call expect(pair(1) == 10 * prev + 1 .and. pair(2) == 10 * prev + 4, 'MPI_TYPE_CREATE_HINDEXED', pair(1))
    call MPI_GET_ELEMENTS_X(st, MPI_INTEGER, count, ierr)
    call expect(count == 2, 'MPI_GET_ELEMENTS_X', int(count))
    call MPI_TYPE_FREE(hindexed, ierr)
  end subroutine

  subroutine more_nonblocking()
    HANDLE(MPI_Request) :: reqs(6)
    integer, asynchronous :: root_all(np), one, g(np), counts(np), displs(np), sc, rs, rsb, gathered(np), exchanged(np)
    integer :: i
    root_all = [(7 * i, i = 1, np)]
    counts = 1
    displs = [(i - 1, i = 1, np)]
    call MPI_IGATHER(me, 1, MPI_INTEGER, g, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_ISCATTER(root_all, 1, MPI_INTEGER, one, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
    if (me == 0) call expect(g(np) == np - 1, 'MPI_IGATHER', g(np))
    call expect(one == 7 * (me + 1), 'MPI_ISCATTER', one)
    call MPI_IGATHERV(me, 1, MPI_INTEGER, g, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_ISCATTERV(root_all, counts, displs, MPI_INTEGER, sc, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_IALLGATHERV(me, 1, MPI_INTEGER, gathered, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_IREDUCE_SCATTER_BLOCK(counts, rsb, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(4), ierr)
    call MPI_IREDUCE_SCATTER(displs, rs, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(5), ierr)
    call MPI_IALLTOALLV(displs, counts, displs, MPI_INTEGER, exchanged, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, &
                        reqs(6), ierr)
    call MPI_WAITALL(6, reqs, MPI_STATUSES_IGNORE, ierr)
    call expect(sc == 7 * (me + 1), 'MPI_ISCATTERV', sc)
    call expect(gathered(np) == np - 1, 'MPI_IALLGATHERV', gathered(np))
    call expect(rsb == np, 'MPI_IREDUCE_SCATTER_BLOCK', rsb)
    call expect(rs == np * me, 'MPI_IREDUCE_SCATTER', rs)
    call expect(exchanged(np) == me, 'MPI_IALLTOALLV', exchanged(np))
    if (me == 0) call expect(g(np) == np - 1, 'MPI_IGATHERV', g(np))
  end subroutine

  ! MPI 4.1's buffers per communicator and session, and the process's: attach, bsend, flush,
  ! iflush, detach (the size attached comes back).
  subroutine attached_buffers()
    character(len=1) :: space(MPI_BSEND_OVERHEAD + 64), more(MPI_BSEND_OVERHEAD + 32)
    ADDRESS_OUT :: address
    HANDLE(MPI_Request) :: request
    HANDLE(MPI_Comm) :: dup
    HANDLE(MPI_Session) :: session
    integer :: count, x, sizes(2)
    call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
    call MPI_COMM_ATTACH_BUFFER(dup, space, size(space), ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_COMM_ATTACH_BUFFER', ierr)
    call MPI_BSEND(me, 1, MPI_INTEGER, next, 21, dup, ierr)
    call MPI_RECV(x, 1, MPI_INTEGER, prev, 21, dup, MPI_STATUS_IGNORE, ierr)
    call expect(x == prev, 'MPI_BSEND through the communicator''s buffer', x)
    call MPI_COMM_FLUSH_BUFFER(dup, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_COMM_FLUSH_BUFFER', ierr)
    call MPI_BSEND(me + 1, 1, MPI_INTEGER, next, 22, dup, ierr)
    call MPI_COMM_IFLUSH_BUFFER(dup, request, ierr)
    call MPI_RECV(x, 1, MPI_INTEGER, prev, 22, dup, MPI_STATUS_IGNORE, ierr)
    call MPI_WAIT(request, MPI_STATUS_IGNORE, ierr)
    call expect(x == prev + 1 .and. request == MPI_REQUEST_NULL, 'MPI_COMM_IFLUSH_BUFFER completes', x)
    call MPI_COMM_DETACH_BUFFER(dup, address, count, ierr)
    call expect(count == size(space), 'MPI_COMM_DETACH_BUFFER size', count)
    call MPI_COMM_FREE(dup, ierr)
    ! the process's buffer
    call MPI_BUFFER_ATTACH(more, size(more), ierr)
    call MPI_BSEND(me + 2, 1, MPI_INTEGER, next, 23, MPI_COMM_WORLD, ierr)
    call MPI_BUFFER_IFLUSH(request, ierr)
    call MPI_RECV(x, 1, MPI_INTEGER, prev, 23, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_WAIT(request, MPI_STATUS_IGNORE, ierr)
    call MPI_BUFFER_FLUSH(ierr)
    call expect(ierr == MPI_SUCCESS .and. x == prev + 2, 'MPI_BUFFER_IFLUSH / MPI_BUFFER_FLUSH', x)
    call MPI_BUFFER_DETACH(address, count, ierr)
    sizes(1) = count
    ! a session's buffer
    call MPI_SESSION_INIT(MPI_INFO_NULL, MPI_ERRORS_RETURN, session, ierr)
    call MPI_SESSION_ATTACH_BUFFER(session, space, size(space), ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_SESSION_ATTACH_BUFFER', ierr)
    call MPI_SESSION_FLUSH_BUFFER(session, ierr)
    call MPI_SESSION_IFLUSH_BUFFER(session, request, ierr)
    call MPI_WAIT(request, MPI_STATUS_IGNORE, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_SESSION_FLUSH_BUFFER / IFLUSH', ierr)
    call MPI_SESSION_DETACH_BUFFER(session, address, count, ierr)
    sizes(2) = count
    call expect(all(sizes == [size(more), size(space)]), 'MPI_BUFFER_DETACH / MPI_SESSION_DETACH_BUFFER size', count)
    call MPI_SESSION_FINALIZE(session, ierr)
  end subroutine

  ! MPI_REQUEST_GET_STATUS_ALL/ANY/SOME leave the requests as they are; ANY and SOME give
  ! 1-based positions (MPI_UNDEFINED when no request is active); the status accessors.
  subroutine status_queries()
    HANDLE(MPI_Request) :: reqs(3), nulls(2), sreq
    STATUS :: st
    STATUSES(3) :: sts
    integer, asynchronous :: got, outbound
    integer :: position, outcount, positions(3), value, n
    logical :: flag
    reqs = MPI_REQUEST_NULL
    nulls = MPI_REQUEST_NULL
    call MPI_IRECV(got, 1, MPI_INTEGER, prev, 31, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_REQUEST_GET_STATUS_ANY(2, nulls, position, flag, st, ierr)
    call expect(flag .and. position == MPI_UNDEFINED, 'MPI_REQUEST_GET_STATUS_ANY: none active', position)
    call MPI_REQUEST_GET_STATUS_SOME(2, nulls, outcount, positions, sts, ierr)
    call expect(outcount == MPI_UNDEFINED, 'MPI_REQUEST_GET_STATUS_SOME: none active', outcount)
    outbound = me * 3
    call MPI_ISEND(outbound, 1, MPI_INTEGER, next, 31, MPI_COMM_WORLD, sreq, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_REQUEST_GET_STATUS_ANY(3, reqs, position, flag, st, ierr)
    end do
    call expect(position == 2 .and. SOURCE_OF(st) == prev .and. TAG_OF(st) == 31, 'MPI_REQUEST_GET_STATUS_ANY', position)
    call expect(reqs(2) /= MPI_REQUEST_NULL, 'MPI_REQUEST_GET_STATUS_ANY leaves the request', 0)
    call MPI_REQUEST_GET_STATUS_SOME(3, reqs, outcount, positions, sts, ierr)
    call expect(outcount == 1 .and. positions(1) == 2 .and. TAG_AT(sts, 1) == 31, 'MPI_REQUEST_GET_STATUS_SOME', positions(1))
    call MPI_REQUEST_GET_STATUS_ALL(3, reqs, flag, sts, ierr)
    call expect(flag .and. TAG_AT(sts, 2) == 31, 'MPI_REQUEST_GET_STATUS_ALL', TAG_AT(sts, 2))
    call MPI_WAIT(reqs(2), MPI_STATUS_IGNORE, ierr)
    call MPI_WAIT(sreq, MPI_STATUS_IGNORE, ierr)
    call expect(got == prev * 3, 'the receive the queries saw', got)
    call MPI_STATUS_SET_SOURCE(st, 5, ierr)
    call MPI_STATUS_SET_TAG(st, 6, ierr)
    call MPI_STATUS_SET_ERROR(st, MPI_ERR_TAG, ierr)
    call expect(SOURCE_OF(st) == 5 .and. TAG_OF(st) == 6, 'MPI_STATUS_SET_SOURCE / TAG', SOURCE_OF(st))
    call MPI_STATUS_GET_SOURCE(st, value, ierr)
    call expect(value == 5, 'MPI_STATUS_GET_SOURCE', value)
    call MPI_STATUS_GET_TAG(st, value, ierr)
    call expect(value == 6, 'MPI_STATUS_GET_TAG', value)
    call MPI_STATUS_GET_ERROR(st, value, ierr)
    call expect(value == MPI_ERR_TAG, 'MPI_STATUS_GET_ERROR', value)
    call MPI_STATUS_SET_ELEMENTS(st, MPI_INTEGER, 7, ierr)
    call MPI_GET_ELEMENTS(st, MPI_INTEGER, n, ierr)
    call expect(n == 7, 'MPI_STATUS_SET_ELEMENTS', n)
    call MPI_STATUS_SET_ELEMENTS_X(st, MPI_INTEGER, 9_MPI_COUNT_KIND, ierr)
    call MPI_GET_COUNT(st, MPI_INTEGER, n, ierr)
    call expect(n == 9, 'MPI_STATUS_SET_ELEMENTS_X', n)
  end subroutine

  ! MPI_TYPE_GET_VALUE_INDEX, MPI_GET_HW_RESOURCE_INFO, the ABI queries of the native library,
  ! user error classes removed.
  subroutine library_queries()
    HANDLE(MPI_Datatype) :: pair
    HANDLE(MPI_Info) :: info
    integer :: major, minor, nkeys, class, code, length
    logical :: flag
    character(len=16) :: value
    call MPI_TYPE_GET_VALUE_INDEX(MPI_REAL, MPI_REAL, pair, ierr)
    call expect(pair == MPI_2REAL, 'MPI_TYPE_GET_VALUE_INDEX(MPI_REAL, MPI_REAL)', 0)
    call MPI_TYPE_GET_VALUE_INDEX(MPI_INTEGER, MPI_INTEGER, pair, ierr)
    call expect(pair == MPI_2INTEGER, 'MPI_TYPE_GET_VALUE_INDEX(MPI_INTEGER, MPI_INTEGER)', 0)
    call MPI_TYPE_GET_VALUE_INDEX(MPI_REAL, MPI_CHARACTER, pair, ierr)
    call expect(ierr == MPI_SUCCESS .and. pair == MPI_DATATYPE_NULL, 'MPI_TYPE_GET_VALUE_INDEX: no such pair', 0)
    call MPI_GET_HW_RESOURCE_INFO(info, ierr)
    call MPI_INFO_GET_NKEYS(info, nkeys, ierr)
    call expect(ierr == MPI_SUCCESS .and. nkeys >= 0, 'MPI_GET_HW_RESOURCE_INFO', nkeys)
    call MPI_INFO_FREE(info, ierr)
    call MPI_ABI_GET_VERSION(major, minor, ierr)
    call expect(major == -1 .and. minor == -1, 'MPI_ABI_GET_VERSION of the native library', major)
    call MPI_ABI_GET_INFO(info, ierr)
    call MPI_INFO_GET_NKEYS(info, nkeys, ierr)
    call expect(nkeys >= 1, 'MPI_ABI_GET_INFO', nkeys)
    call MPI_INFO_FREE(info, ierr)
    call MPI_ABI_GET_FORTRAN_INFO(info, ierr)
    length = len(value)
    call MPI_INFO_GET_STRING(info, 'mpi_integer_size', length, value, flag, ierr)
    call expect(flag .and. value == '4', 'MPI_ABI_GET_FORTRAN_INFO: mpi_integer_size', length)
    call MPI_INFO_FREE(info, ierr)
    call MPI_ADD_ERROR_CLASS(class, ierr)
    call MPI_ADD_ERROR_CODE(class, code, ierr)
    call MPI_ADD_ERROR_STRING(code, 'removed next', ierr)
    call MPI_REMOVE_ERROR_STRING(code, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_REMOVE_ERROR_STRING', ierr)
    call MPI_REMOVE_ERROR_CODE(code, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_REMOVE_ERROR_CODE', ierr)
    call MPI_REMOVE_ERROR_CLASS(class, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_REMOVE_ERROR_CLASS', ierr)
  end subroutine

  ! Starts a persistent request once, waits for it and frees it.
  subroutine run_once(req)
    HANDLE(MPI_Request), intent(inout) :: req
    call MPI_START(req, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    call MPI_REQUEST_FREE(req, ierr)
  end subroutine

  ! The persistent forms of the rooted, all-to-all and reduction collectives, MPI_ALLTOALLW's
  ! three forms: each result against what the collective defines.
  subroutine collective_forms()
    HANDLE(MPI_Request) :: req
    HANDLE(MPI_Datatype) :: types(np)
    integer, asynchronous :: g(np), s(np), r(np), x, total, ones(np)
    integer :: counts(np), displs(np), bytes(np), i, expected(np)
    counts = 1
    displs = [(i - 1, i = 1, np)]
    bytes = 4 * displs
    types = MPI_INTEGER
    expected = [(100 * (i - 1) + me, i = 1, np)]  ! what rank i-1 sends me in the all-to-alls
    g = -1
    call MPI_GATHER_INIT(me, 1, MPI_INTEGER, g, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    call run_once(req)
    if (me == 0) call expect(all(g == displs), 'MPI_GATHER_INIT', g(np))
    g = -1
    call MPI_GATHERV_INIT(me, 1, MPI_INTEGER, g, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    call run_once(req)
    if (me == 0) call expect(all(g == displs), 'MPI_GATHERV_INIT', g(np))
    s = [(10 * i, i = 1, np)]
    call MPI_SCATTER_INIT(s, 1, MPI_INTEGER, x, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    call run_once(req)
    call expect(x == 10 * (me + 1), 'MPI_SCATTER_INIT', x)
    x = -1
    call MPI_SCATTERV_INIT(s, counts, displs, MPI_INTEGER, x, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    call run_once(req)
    call expect(x == 10 * (me + 1), 'MPI_SCATTERV_INIT', x)
    g = -1
    call MPI_ALLGATHERV_INIT(me, 1, MPI_INTEGER, g, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    call run_once(req)
    call expect(all(g == displs), 'MPI_ALLGATHERV_INIT', g(np))
    s = [(100 * me + i - 1, i = 1, np)]
    r = -1
    call MPI_ALLTOALL_INIT(s, 1, MPI_INTEGER, r, 1, MPI_INTEGER, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    call run_once(req)
    call expect(all(r == expected), 'MPI_ALLTOALL_INIT', r(np))
    r = -1
    call MPI_ALLTOALLV_INIT(s, counts, displs, MPI_INTEGER, r, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, &
                            MPI_INFO_NULL, req, ierr)
    call run_once(req)
    call expect(all(r == expected), 'MPI_ALLTOALLV_INIT', r(np))
    r = -1
    call MPI_ALLTOALLW(s, counts, bytes, types, r, counts, bytes, types, MPI_COMM_WORLD, ierr)
    call expect(all(r == expected), 'MPI_ALLTOALLW', r(np))
    r = -1
    call MPI_IALLTOALLW(s, counts, bytes, types, r, counts, bytes, types, MPI_COMM_WORLD, req, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    call expect(all(r == expected), 'MPI_IALLTOALLW', r(np))
    r = -1
    call MPI_ALLTOALLW_INIT(s, counts, bytes, types, r, counts, bytes, types, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    call run_once(req)
    call expect(all(r == expected), 'MPI_ALLTOALLW_INIT', r(np))
    total = -1
    call MPI_REDUCE_INIT(me, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    call run_once(req)
    if (me == 0) call expect(total == np * (np - 1) / 2, 'MPI_REDUCE_INIT', total)
    ones = [(i, i = 1, np)]
    x = -1
    call MPI_REDUCE_SCATTER_INIT(ones, x, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    call run_once(req)
    call expect(x == np * (me + 1), 'MPI_REDUCE_SCATTER_INIT', x)
    x = -1
    call MPI_REDUCE_SCATTER_BLOCK_INIT(ones, x, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    call run_once(req)
    call expect(x == np * (me + 1), 'MPI_REDUCE_SCATTER_BLOCK_INIT', x)
    call MPI_SCAN_INIT(1, x, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    call run_once(req)
    call expect(x == me + 1, 'MPI_SCAN_INIT', x)
    x = -1
    call MPI_EXSCAN_INIT(1, x, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    call run_once(req)
    if (me > 0) call expect(x == me, 'MPI_EXSCAN_INIT', x)
  end subroutine

  ! The neighbourhood collectives' v and w forms, non-blocking and persistent, on a ring:
  ! neighbours (prev, next) in and out.
  subroutine neighbour_forms()
    HANDLE(MPI_Comm) :: ring
    HANDLE(MPI_Request) :: req
    HANDLE(MPI_Datatype) :: types(2)
    integer, asynchronous :: got(2), out(2)
    integer :: counts(2), displs(2), round
    integer(kind=MPI_ADDRESS_KIND) :: bytes(2)
    logical :: both
    call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 2, [prev, next], MPI_UNWEIGHTED, 2, [prev, next], &
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, .false., ring, ierr)
    counts = 1
    displs = [0, 1]
    bytes = [0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND]
    types = MPI_INTEGER
    out = [10 * me + 1, 10 * me + 2]
    both = np > 2  ! with 2 ranks prev is next: which edge a message took is not told apart
    do round = 1, 3
      got = -1
      select case (round)
      case (1)
        call MPI_INEIGHBOR_ALLGATHER(me, 1, MPI_INTEGER, got, 1, MPI_INTEGER, ring, req, ierr)
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
      case (2)
        call MPI_NEIGHBOR_ALLGATHER_INIT(me, 1, MPI_INTEGER, got, 1, MPI_INTEGER, ring, MPI_INFO_NULL, req, ierr)
        call run_once(req)
      case (3)
        call MPI_NEIGHBOR_ALLGATHERV(me, 1, MPI_INTEGER, got, counts, displs, MPI_INTEGER, ring, ierr)
      end select
      call expect(got(1) == prev .and. got(2) == next, 'MPI_NEIGHBOR_ALLGATHER forms', round)
    end do
    got = -1
    call MPI_INEIGHBOR_ALLGATHERV(me, 1, MPI_INTEGER, got, counts, displs, MPI_INTEGER, ring, req, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    call expect(got(1) == prev .and. got(2) == next, 'MPI_INEIGHBOR_ALLGATHERV', got(1))
    got = -1
    call MPI_NEIGHBOR_ALLGATHERV_INIT(me, 1, MPI_INTEGER, got, counts, displs, MPI_INTEGER, ring, MPI_INFO_NULL, req, ierr)
    call run_once(req)
    call expect(got(1) == prev .and. got(2) == next, 'MPI_NEIGHBOR_ALLGATHERV_INIT', got(1))
    do round = 1, 8
      got = -1
      select case (round)
      case (1)
        call MPI_INEIGHBOR_ALLTOALL(out, 1, MPI_INTEGER, got, 1, MPI_INTEGER, ring, req, ierr)
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
      case (2)
        call MPI_NEIGHBOR_ALLTOALL_INIT(out, 1, MPI_INTEGER, got, 1, MPI_INTEGER, ring, MPI_INFO_NULL, req, ierr)
        call run_once(req)
      case (3)
        call MPI_NEIGHBOR_ALLTOALLV(out, counts, displs, MPI_INTEGER, got, counts, displs, MPI_INTEGER, ring, ierr)
      case (4)
        call MPI_INEIGHBOR_ALLTOALLV(out, counts, displs, MPI_INTEGER, got, counts, displs, MPI_INTEGER, ring, req, ierr)
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
      case (5)
        call MPI_NEIGHBOR_ALLTOALLV_INIT(out, counts, displs, MPI_INTEGER, got, counts, displs, MPI_INTEGER, ring, &
                                         MPI_INFO_NULL, req, ierr)
        call run_once(req)
      case (6)
        call MPI_NEIGHBOR_ALLTOALLW(out, counts, bytes, types, got, counts, bytes, types, ring, ierr)
      case (7)
        call MPI_INEIGHBOR_ALLTOALLW(out, counts, bytes, types, got, counts, bytes, types, ring, req, ierr)
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
      case (8)
        call MPI_NEIGHBOR_ALLTOALLW_INIT(out, counts, bytes, types, got, counts, bytes, types, ring, MPI_INFO_NULL, &
                                         req, ierr)
        call run_once(req)
      end select
      ! from prev what it sent its second neighbour (me), from next what it sent its first
      if (both) call expect(got(1) == 10 * prev + 2 .and. got(2) == 10 * next + 1, 'MPI_NEIGHBOR_ALLTOALL forms', round)
      if (.not. both) call expect(got(1) > 0 .and. got(2) > 0 .and. got(1) + got(2) == 20 * prev + 3, &
                                  'MPI_NEIGHBOR_ALLTOALL forms, 2 ranks', round)
    end do
    call MPI_COMM_FREE(ring, ierr)
  end subroutine

  ! The send modes' persistent and non-blocking forms, MPI_ISENDRECV(_REPLACE), MPI_IMRECV,
  ! MPI_IMPROBE.
  subroutine send_forms()
    HANDLE(MPI_Request) :: reqs(4), sends(4)
    HANDLE(MPI_Message) :: message
    STATUS :: st
    integer, asynchronous :: got(4), v(4), x, y
    integer :: k
    logical :: flag
    character(len=1) :: attached(4 * MPI_BSEND_OVERHEAD + 64)
    ADDRESS_OUT :: address
    call MPI_BUFFER_ATTACH(attached, size(attached), ierr)
    v = [(1000 * me + k, k = 1, 4)]
    got = -1
    do k = 1, 4
      call MPI_IRECV(got(k), 1, MPI_INTEGER, prev, 40 + k, MPI_COMM_WORLD, reqs(k), ierr)
    end do
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)  ! the receives are posted: ready sends are valid
    call MPI_BSEND_INIT(v(1), 1, MPI_INTEGER, next, 41, MPI_COMM_WORLD, sends(1), ierr)
    call MPI_SSEND_INIT(v(2), 1, MPI_INTEGER, next, 42, MPI_COMM_WORLD, sends(2), ierr)
    call MPI_RSEND_INIT(v(3), 1, MPI_INTEGER, next, 43, MPI_COMM_WORLD, sends(3), ierr)
    call MPI_STARTALL(3, sends, ierr)
    call MPI_IRSEND(v(4), 1, MPI_INTEGER, next, 44, MPI_COMM_WORLD, sends(4), ierr)
    call MPI_WAITALL(4, reqs, MPI_STATUSES_IGNORE, ierr)
    call MPI_WAITALL(4, sends, MPI_STATUSES_IGNORE, ierr)
    call expect(all(got == [(1000 * prev + k, k = 1, 4)]), 'MPI_BSEND/SSEND/RSEND_INIT, MPI_IRSEND', got(1))
    do k = 1, 3
      call MPI_REQUEST_FREE(sends(k), ierr)
    end do
    call MPI_IBSEND(v(1), 1, MPI_INTEGER, next, 45, MPI_COMM_WORLD, sends(1), ierr)
    call MPI_RECV(x, 1, MPI_INTEGER, prev, 45, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_WAIT(sends(1), MPI_STATUS_IGNORE, ierr)
    call expect(x == 1000 * prev + 1, 'MPI_IBSEND', x)
    call MPI_BUFFER_DETACH(address, k, ierr)
    call MPI_ISENDRECV(me, 1, MPI_INTEGER, next, 46, x, 1, MPI_INTEGER, prev, 46, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_WAIT(reqs(1), st, ierr)
    call expect(x == prev .and. SOURCE_OF(st) == prev, 'MPI_ISENDRECV', x)
    y = 7 * me
    call MPI_ISENDRECV_REPLACE(y, 1, MPI_INTEGER, next, 47, prev, 47, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_WAIT(reqs(1), st, ierr)
    call expect(y == 7 * prev .and. TAG_OF(st) == 47, 'MPI_ISENDRECV_REPLACE', y)
    call MPI_ISEND(v(2), 1, MPI_INTEGER, next, 48, MPI_COMM_WORLD, sends(1), ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_IMPROBE(prev, 48, MPI_COMM_WORLD, flag, message, st, ierr)
    end do
    call expect(SOURCE_OF(st) == prev, 'MPI_IMPROBE source', SOURCE_OF(st))
    x = -1
    call MPI_IMRECV(x, 1, MPI_INTEGER, message, reqs(1), ierr)
    call MPI_WAIT(reqs(1), MPI_STATUS_IGNORE, ierr)
    call MPI_WAIT(sends(1), MPI_STATUS_IGNORE, ierr)
    call expect(x == 1000 * prev + 2 .and. message == MPI_MESSAGE_NULL, 'MPI_IMRECV', x)
  end subroutine

  ! Partitioned communication to the next rank: two partitions, marked ready by MPI_PREADY,
  ! MPI_PREADY_RANGE and MPI_PREADY_LIST over three rounds, MPI_PARRIVED polled.
  subroutine partitioned()
    HANDLE(MPI_Request) :: sreq, rreq
    integer, asynchronous :: out(2), got(2)
    integer :: round
    logical :: arrived
    call MPI_PSEND_INIT(out, 2, 1, MPI_INTEGER, next, 50, MPI_COMM_WORLD, MPI_INFO_NULL, sreq, ierr)
    call MPI_PRECV_INIT(got, 2, 1, MPI_INTEGER, prev, 50, MPI_COMM_WORLD, MPI_INFO_NULL, rreq, ierr)
    do round = 1, 3
      got = -1
      out = [100 * me + round, 100 * me + 10 + round]
      call MPI_START(rreq, ierr)
      call MPI_START(sreq, ierr)
      select case (round)
      case (1)
        call MPI_PREADY(1, sreq, ierr)
        call MPI_PREADY(0, sreq, ierr)
      case (2)
        call MPI_PREADY_RANGE(0, 1, sreq, ierr)
      case (3)
        call MPI_PREADY_LIST(2, [1, 0], sreq, ierr)
      end select
      arrived = .false.
      do while (.not. arrived)
        call MPI_PARRIVED(rreq, 1, arrived, ierr)
      end do
      call MPI_WAIT(rreq, MPI_STATUS_IGNORE, ierr)
      call MPI_WAIT(sreq, MPI_STATUS_IGNORE, ierr)
      call expect(got(1) == 100 * prev + round .and. got(2) == 100 * prev + 10 + round, 'partitioned round', got(1))
    end do
    call MPI_REQUEST_FREE(sreq, ierr)
    call MPI_REQUEST_FREE(rreq, ierr)
  end subroutine

  ! Each rank's own file: the individual and shared pointers' blocking, non-blocking and split
  ! collective forms, each read back and compared.
  subroutine file_forms()
    HANDLE(MPI_File) :: fh
    HANDLE(MPI_Info) :: info
    HANDLE(MPI_Request) :: req
    STATUS :: st
    integer, asynchronous :: w(2), r(2)
    integer :: n, k, length, status
    integer(kind=MPI_OFFSET_KIND) :: at
    character(len=512) :: dir, path
    call get_environment_variable('TEST_TMPDIR', dir, length, status)
    if (status /= 0) dir = '/tmp'
    write (path, '(4a,i0)') trim(dir), '/', LABEL, '.forms.', me
    call MPI_FILE_OPEN(MPI_COMM_SELF, path, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
    call MPI_INFO_CREATE(info, ierr)
    call MPI_INFO_SET(info, 'access_style', 'read_mostly', ierr)
    call MPI_FILE_SET_INFO(fh, info, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_FILE_SET_INFO', ierr)
    call MPI_INFO_FREE(info, ierr)
    ! 16 writes of 2 INTEGERs, one form each, at integer offsets 2 * (k - 1)
    do k = 1, 16
      w = [100 * me + k, -k]
      at = 8 * (k - 1)
      select case (k)
      case (1)
        call MPI_FILE_WRITE(fh, w, 2, MPI_INTEGER, st, ierr)
        call MPI_GET_COUNT(st, MPI_INTEGER, n, ierr)
        call expect(n == 2, 'MPI_FILE_WRITE count', n)
      case (2)
        call MPI_FILE_WRITE_ALL(fh, w, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
      case (3)
        call MPI_FILE_IWRITE_AT(fh, at, w, 2, MPI_INTEGER, req, ierr)
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
      case (4)
        call MPI_FILE_IWRITE_ALL(fh, w, 2, MPI_INTEGER, req, ierr)
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
      case (5)
        call MPI_FILE_IWRITE_AT_ALL(fh, at, w, 2, MPI_INTEGER, req, ierr)
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
      case (6)
        call MPI_FILE_WRITE_AT_ALL(fh, at, w, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
      case (7)
        call MPI_FILE_WRITE_ALL_BEGIN(fh, w, 2, MPI_INTEGER, ierr)
        call MPI_FILE_WRITE_ALL_END(fh, w, MPI_STATUS_IGNORE, ierr)
      case (8)
        call MPI_FILE_WRITE_AT_ALL_BEGIN(fh, at, w, 2, MPI_INTEGER, ierr)
        call MPI_FILE_WRITE_AT_ALL_END(fh, w, MPI_STATUS_IGNORE, ierr)
      case (9)
        call MPI_FILE_SEEK_SHARED(fh, at, MPI_SEEK_SET, ierr)
        call MPI_FILE_WRITE_SHARED(fh, w, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
      case (10)
        call MPI_FILE_IWRITE_SHARED(fh, w, 2, MPI_INTEGER, req, ierr)
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
      case (11)
        call MPI_FILE_WRITE_ORDERED_BEGIN(fh, w, 2, MPI_INTEGER, ierr)
        call MPI_FILE_WRITE_ORDERED_END(fh, w, MPI_STATUS_IGNORE, ierr)
      case default
        call MPI_FILE_WRITE_AT(fh, at, w, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
      end select
      call expect(ierr == MPI_SUCCESS, 'a write form', k)
      if (k < 9) call MPI_FILE_SEEK(fh, at + 8, MPI_SEEK_SET, ierr)  ! the explicit-offset forms leave it
    end do
    call MPI_FILE_SYNC(fh, ierr)
    call MPI_FILE_SEEK(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
    call MPI_FILE_SEEK_SHARED(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
    do k = 1, 9
      r = 0
      at = 8 * (k - 1)
      select case (k)
      case (1)
        call MPI_FILE_IREAD(fh, r, 2, MPI_INTEGER, req, ierr)
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
      case (2)
        call MPI_FILE_IREAD_ALL(fh, r, 2, MPI_INTEGER, req, ierr)
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
      case (3)
        call MPI_FILE_IREAD_AT_ALL(fh, at, r, 2, MPI_INTEGER, req, ierr)
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
      case (4)
        call MPI_FILE_READ_ALL_BEGIN(fh, r, 2, MPI_INTEGER, ierr)
        call MPI_FILE_READ_ALL_END(fh, r, MPI_STATUS_IGNORE, ierr)
      case (5)
        call MPI_FILE_READ_AT_ALL_BEGIN(fh, at, r, 2, MPI_INTEGER, ierr)
        call MPI_FILE_READ_AT_ALL_END(fh, r, MPI_STATUS_IGNORE, ierr)
      case (6)
        call MPI_FILE_SEEK_SHARED(fh, at, MPI_SEEK_SET, ierr)
        call MPI_FILE_READ_SHARED(fh, r, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
      case (7)
        call MPI_FILE_IREAD_SHARED(fh, r, 2, MPI_INTEGER, req, ierr)
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
      case (8)
        call MPI_FILE_READ_ORDERED_BEGIN(fh, r, 2, MPI_INTEGER, ierr)
        call MPI_FILE_READ_ORDERED_END(fh, r, MPI_STATUS_IGNORE, ierr)
      case (9)
        call MPI_FILE_READ_AT(fh, 8_MPI_OFFSET_KIND * 15, r, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
      end select
      n = k
      if (k == 9) n = 16
      call expect(r(1) == 100 * me + n .and. r(2) == -n, 'a read form reads its write', k)
      if (k < 6) call MPI_FILE_SEEK(fh, at + 8, MPI_SEEK_SET, ierr)
    end do
    call MPI_FILE_CLOSE(fh, ierr)
    call MPI_FILE_DELETE(path, MPI_INFO_NULL, ierr)
  end subroutine

  ! Windows the library allocates (each rank's value put into the next rank's, read with
  ! MPI_GET), shared-memory windows, dynamic windows, request-based accumulates, MPI_WIN_WAIT.
  subroutine window_forms()
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr) :: memory
    integer, pointer :: allocated(:)
    HANDLE(MPI_Win) :: win
    HANDLE(MPI_Group) :: world, peers
    HANDLE(MPI_Request) :: req
    HANDLE(MPI_Comm) :: node
    ADDRESS_OUT :: base
    integer(kind=MPI_ADDRESS_KIND) :: bytes, address, addresses(np)
    integer :: unit, x, y
    integer, asynchronous :: dynamic(2)
    ! MPI_FREE_MEM takes the memory itself (a choice buffer), reached here through a C pointer
    call MPI_ALLOC_MEM(64_MPI_ADDRESS_KIND, MPI_INFO_NULL, base, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_ALLOC_MEM', ierr)
    call c_f_pointer(transfer(base, memory), allocated, [16])
    allocated = [(x, x = 1, 16)]
    call expect(sum(allocated) == 136, 'MPI_ALLOC_MEM: 64 bytes to use', sum(allocated))
    call MPI_FREE_MEM(allocated, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_FREE_MEM', ierr)
    call MPI_WIN_ALLOCATE(8_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, base, win, ierr)
    call MPI_WIN_FENCE(0, win, ierr)
    call MPI_PUT(me, 1, MPI_INTEGER, next, 1_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
    call MPI_WIN_FENCE(0, win, ierr)
    x = -1
    call MPI_GET(x, 1, MPI_INTEGER, me, 1_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
    call MPI_WIN_FENCE(0, win, ierr)
    call expect(x == prev, 'MPI_WIN_ALLOCATE: put by prev, read with MPI_GET', x)
    ! request-based accumulates under a lock
    call MPI_WIN_LOCK_ALL(0, win, ierr)
    call MPI_RACCUMULATE(1, 1, MPI_INTEGER, next, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, MPI_REPLACE, win, req, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    call MPI_WIN_FLUSH_ALL(win, ierr)
    call MPI_WIN_UNLOCK_ALL(win, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    call MPI_WIN_LOCK(MPI_LOCK_EXCLUSIVE, next, 0, win, ierr)
    y = -1
    call MPI_RGET_ACCUMULATE(5, 1, MPI_INTEGER, y, 1, MPI_INTEGER, next, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, &
                             MPI_SUM, win, req, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    call MPI_WIN_UNLOCK(next, win, ierr)
    call expect(y == 1, 'MPI_RACCUMULATE replaced, MPI_RGET_ACCUMULATE fetched', y)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    ! MPI_WIN_POST / START / COMPLETE / WAIT: next exposes, I access it
    call MPI_WIN_GET_GROUP(win, world, ierr)
    call MPI_GROUP_INCL(world, 1, [prev], peers, ierr)
    call MPI_WIN_POST(peers, 0, win, ierr)
    call MPI_GROUP_FREE(peers, ierr)
    call MPI_GROUP_INCL(world, 1, [next], peers, ierr)
    call MPI_WIN_START(peers, 0, win, ierr)
    call MPI_PUT(10 * me, 1, MPI_INTEGER, next, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
    call MPI_WIN_COMPLETE(win, ierr)
    call MPI_WIN_WAIT(win, ierr)
    call MPI_GROUP_FREE(peers, ierr)
    call MPI_GROUP_FREE(world, ierr)
    call MPI_WIN_LOCK(MPI_LOCK_SHARED, me, 0, win, ierr)
    call MPI_GET(x, 1, MPI_INTEGER, me, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
    call MPI_WIN_UNLOCK(me, win, ierr)
    call expect(x == 10 * prev, 'MPI_WIN_WAIT: the put of the access epoch arrived', x)
    call MPI_WIN_FREE(win, ierr)
    ! shared memory among the ranks of a node
    call MPI_COMM_SPLIT_TYPE(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node, ierr)
    call MPI_WIN_ALLOCATE_SHARED(12_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, node, base, win, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_WIN_ALLOCATE_SHARED', ierr)
    call MPI_WIN_SHARED_QUERY(win, 0, bytes, unit, base, ierr)
    call expect(bytes == 12 .and. unit == 4, 'MPI_WIN_SHARED_QUERY size and unit', int(bytes))
    call MPI_WIN_FREE(win, ierr)
    call MPI_COMM_FREE(node, ierr)
    ! a dynamic window: each rank attaches two INTEGERs, prev puts into them at their address
    call MPI_WIN_CREATE_DYNAMIC(MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    dynamic = -1
    call MPI_WIN_ATTACH(win, dynamic, 8_MPI_ADDRESS_KIND, ierr)
    call MPI_GET_ADDRESS(dynamic(2), address, ierr)
    call MPI_ALLGATHER(address, 1, MPI_AINT, addresses, 1, MPI_AINT, MPI_COMM_WORLD, ierr)
    call MPI_WIN_FENCE(0, win, ierr)
    call MPI_PUT(me + 50, 1, MPI_INTEGER, next, addresses(next + 1), 1, MPI_INTEGER, win, ierr)
    call MPI_WIN_FENCE(0, win, ierr)
    call expect(dynamic(2) == prev + 50 .and. dynamic(1) == -1, 'MPI_WIN_ATTACH: put at the address', dynamic(2))
    call MPI_WIN_DETACH(win, dynamic, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_WIN_DETACH', ierr)
    call MPI_WIN_FREE(win, ierr)
  end subroutine

  ! Sessions' process sets, groups and communicators made from them, communicators with info,
  ! and their error handlers.
  subroutine session_forms()
    HANDLE(MPI_Session) :: session
    HANDLE(MPI_Group) :: group, world, evens, odds
    HANDLE(MPI_Comm) :: comm, dup, inter
    HANDLE(MPI_Info) :: info
    HANDLE(MPI_Errhandler) :: eh
    HANDLE(MPI_Request) :: req
    integer :: n, rank, length, i
    logical :: flag
    character(len=32) :: value
    call MPI_SESSION_INIT(MPI_INFO_NULL, MPI_ERRORS_RETURN, session, ierr)
    call MPI_SESSION_GET_NUM_PSETS(session, MPI_INFO_NULL, n, ierr)
    call expect(n >= 2, 'MPI_SESSION_GET_NUM_PSETS: mpi://WORLD and mpi://SELF', n)
    call MPI_SESSION_GET_PSET_INFO(session, 'mpi://WORLD', info, ierr)
    length = len(value)
    call MPI_INFO_GET_STRING(info, 'mpi_size', length, value, flag, ierr)
    call expect(flag .and. value == trim(itoa(np)), 'MPI_SESSION_GET_PSET_INFO mpi_size', length)
    call MPI_INFO_FREE(info, ierr)
    call MPI_SESSION_GET_INFO(session, info, ierr)
    call expect(ierr == MPI_SUCCESS .and. info /= MPI_INFO_NULL, 'MPI_SESSION_GET_INFO', ierr)
    call MPI_INFO_FREE(info, ierr)
    call MPI_SESSION_SET_ERRHANDLER(session, MPI_ERRORS_ARE_FATAL, ierr)
    call MPI_SESSION_GET_ERRHANDLER(session, eh, ierr)
    call expect(eh == MPI_ERRORS_ARE_FATAL, 'MPI_SESSION_GET_ERRHANDLER', 0)
    call MPI_GROUP_FROM_SESSION_PSET(session, 'mpi://WORLD', group, ierr)
    call MPI_GROUP_SIZE(group, n, ierr)
    call expect(n == np, 'MPI_GROUP_FROM_SESSION_PSET size', n)
    call MPI_COMM_CREATE_FROM_GROUP(group, 'gasket.corpus', MPI_INFO_NULL, MPI_ERRORS_RETURN, comm, ierr)
    call MPI_COMM_RANK(comm, rank, ierr)
    call expect(rank == me, 'MPI_COMM_CREATE_FROM_GROUP rank', rank)
    call MPI_COMM_FREE(comm, ierr)
    ! the even and the odd ranks of the set, joined by an intercommunicator
    call MPI_GROUP_INCL(group, (np + 1) / 2, [(2 * i, i = 0, (np - 1) / 2)], evens, ierr)
    call MPI_GROUP_INCL(group, np / 2, [(2 * i + 1, i = 0, np / 2 - 1)], odds, ierr)
    if (mod(me, 2) == 0) then
      call MPI_INTERCOMM_CREATE_FROM_GROUPS(evens, 0, odds, 0, 'gasket.pairs', MPI_INFO_NULL, MPI_ERRORS_RETURN, &
                                            inter, ierr)
    else
      call MPI_INTERCOMM_CREATE_FROM_GROUPS(odds, 0, evens, 0, 'gasket.pairs', MPI_INFO_NULL, MPI_ERRORS_RETURN, &
                                            inter, ierr)
    end if
    call MPI_COMM_REMOTE_SIZE(inter, n, ierr)
    call expect(n == merge(np / 2, (np + 1) / 2, mod(me, 2) == 0), 'MPI_INTERCOMM_CREATE_FROM_GROUPS remote size', n)
    call MPI_COMM_FREE(inter, ierr)
    call MPI_GROUP_FREE(evens, ierr)
    call MPI_GROUP_FREE(odds, ierr)
    call MPI_GROUP_FREE(group, ierr)
    call MPI_SESSION_FINALIZE(session, ierr)
    ! communicators duplicated with info
    call MPI_INFO_CREATE(info, ierr)
    call MPI_INFO_SET(info, 'mpi_assert_no_any_tag', 'true', ierr)
    call MPI_COMM_DUP_WITH_INFO(MPI_COMM_WORLD, info, dup, ierr)
    call MPI_COMM_SET_ERRHANDLER(dup, MPI_ERRORS_RETURN, ierr)
    call MPI_COMM_GET_ERRHANDLER(dup, eh, ierr)
    call expect(eh == MPI_ERRORS_RETURN, 'MPI_COMM_GET_ERRHANDLER', 0)
    call MPI_COMM_IDUP_WITH_INFO(dup, info, comm, req, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    call MPI_COMM_GET_INFO(comm, info, ierr)
    length = len(value)
    call MPI_INFO_GET_STRING(info, 'mpi_assert_no_any_tag', length, value, flag, ierr)
    call expect(flag .and. value == 'true', 'MPI_COMM_IDUP_WITH_INFO keeps the hint', length)
    call MPI_COMM_COMPARE(comm, MPI_COMM_WORLD, n, ierr)
    call expect(n == MPI_CONGRUENT, 'MPI_COMM_IDUP_WITH_INFO is congruent', n)
    call MPI_INFO_FREE(info, ierr)
    call MPI_COMM_FREE(comm, ierr)
    call MPI_COMM_FREE(dup, ierr)
    call MPI_COMM_GROUP(MPI_COMM_WORLD, world, ierr)
    call MPI_GROUP_FREE(world, ierr)
  end subroutine

  character(len=16) function itoa(n)
    integer, intent(in) :: n
    write (itoa, '(i0)') n
  end function

  ! MPI_TYPE_CREATE_HINDEXED_BLOCK, MPI_TYPE_GET_CONTENTS, "external32" packing (big-endian
  ! INTEGERs), MPI_INFO_DUP / DELETE / GET_NTHKEY, names, window attributes.
  subroutine type_and_info_forms()
    HANDLE(MPI_Datatype) :: t, inner(1)
    HANDLE(MPI_Info) :: info, copy
    HANDLE(MPI_Comm) :: dup
    HANDLE(MPI_Win) :: win
    integer :: size, ints(3), nints, naddrs, ntypes, nlarge, combiner, n, length, cells(1)
    integer(kind=MPI_ADDRESS_KIND) :: lb, extent, addrs(1), packed, position, value
    integer :: back(3)
    logical :: flag
    character(len=12) :: buffer
    character(len=MPI_MAX_OBJECT_NAME) :: name
    character(len=MPI_MAX_INFO_KEY) :: key
    call MPI_TYPE_CREATE_HINDEXED_BLOCK(2, 1, [0_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND], MPI_INTEGER, t, ierr)
    call MPI_TYPE_SIZE(t, size, ierr)
    call MPI_TYPE_GET_EXTENT(t, lb, extent, ierr)
    call expect(size == 8 .and. extent == 12, 'MPI_TYPE_CREATE_HINDEXED_BLOCK size, extent', int(extent))
    call MPI_TYPE_FREE(t, ierr)
    call MPI_TYPE_VECTOR(3, 2, 5, MPI_INTEGER, t, ierr)
    call MPI_TYPE_GET_ENVELOPE(t, nints, naddrs, ntypes, combiner, ierr)
    call MPI_TYPE_GET_CONTENTS(t, 3, 0, 1, ints, addrs, inner, ierr)
    call expect(all(ints == [3, 2, 5]) .and. inner(1) == MPI_INTEGER, 'MPI_TYPE_GET_CONTENTS', ints(3))
    call MPI_TYPE_FREE(t, ierr)
    call MPI_PACK_EXTERNAL_SIZE('external32', 3, MPI_INTEGER, packed, ierr)
    call expect(packed == 12, 'MPI_PACK_EXTERNAL_SIZE', int(packed))
    position = 0
    call MPI_PACK_EXTERNAL('external32', [1, 2, 258], 3, MPI_INTEGER, buffer, 12_MPI_ADDRESS_KIND, position, ierr)
    call expect(position == 12 .and. ichar(buffer(4:4)) == 1 .and. ichar(buffer(1:1)) == 0 .and. &
                ichar(buffer(11:11)) == 1 .and. ichar(buffer(12:12)) == 2, 'MPI_PACK_EXTERNAL: big-endian', int(position))
    position = 0
    call MPI_UNPACK_EXTERNAL('external32', buffer, 12_MPI_ADDRESS_KIND, position, back, 3, MPI_INTEGER, ierr)
    call expect(all(back == [1, 2, 258]), 'MPI_UNPACK_EXTERNAL', back(3))
    call MPI_INFO_CREATE(info, ierr)
    call MPI_INFO_SET(info, 'alpha', 'one', ierr)
    call MPI_INFO_SET(info, 'beta', 'two', ierr)
    call MPI_INFO_DUP(info, copy, ierr)
    call MPI_INFO_DELETE(copy, 'alpha', ierr)
    call MPI_INFO_GET_NKEYS(copy, n, ierr)
    call MPI_INFO_GET_NTHKEY(copy, 0, key, ierr)
    call expect(n == 1 .and. key == 'beta', 'MPI_INFO_DUP / DELETE / GET_NTHKEY', n)
    call MPI_INFO_GET_NKEYS(info, n, ierr)
    call expect(n == 2, 'MPI_INFO_DELETE leaves the original', n)
    call MPI_INFO_FREE(copy, ierr)
    call MPI_INFO_FREE(info, ierr)
    call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
    call MPI_COMM_SET_NAME(dup, 'corpus dup', ierr)
    call MPI_COMM_GET_NAME(dup, name, length, ierr)
    call expect(name == 'corpus dup' .and. length == 10, 'MPI_COMM_SET_NAME / GET_NAME', length)
    call MPI_COMM_FREE(dup, ierr)
    call MPI_WIN_CREATE(cells, 4_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call MPI_WIN_GET_ATTR(win, MPI_WIN_DISP_UNIT, value, flag, ierr)
    call expect(flag .and. value == 4, 'MPI_WIN_GET_ATTR MPI_WIN_DISP_UNIT', int(value))
    call MPI_WIN_GET_ATTR(win, MPI_WIN_SIZE, value, flag, ierr)
    call expect(flag .and. value == 4, 'MPI_WIN_GET_ATTR MPI_WIN_SIZE', int(value))
    call MPI_WIN_FREE(win, ierr)
  end subroutine

  ! The two halves of the job meet at a port rank 0 opens: accept and connect, the port also
  ! published under a service name and looked up; MPI_INFO_CREATE_ENV, MPI_PCONTROL,
  ! MPI_F_SYNC_REG.
  subroutine ports_and_names()
    HANDLE(MPI_Comm) :: half, inter
    HANDLE(MPI_Info) :: info
    character(len=MPI_MAX_PORT_NAME) :: port, found
    character(len=64) :: service
    integer :: n, length
    integer, asynchronous :: cell
    logical :: flag
    character(len=512) :: value
    service = 'gasket-corpus-' // LABEL
    if (me == 0) then
      call MPI_OPEN_PORT(MPI_INFO_NULL, port, ierr)
      call expect(ierr == MPI_SUCCESS .and. len_trim(port) > 0, 'MPI_OPEN_PORT', len_trim(port))
      call MPI_PUBLISH_NAME(service, MPI_INFO_NULL, port, ierr)
      call expect(ierr == MPI_SUCCESS, 'MPI_PUBLISH_NAME', ierr)
    end if
    call MPI_BCAST(port, MPI_MAX_PORT_NAME, MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
    if (me == np - 1) then
      call MPI_LOOKUP_NAME(service, MPI_INFO_NULL, found, ierr)
      call expect(found == port, 'MPI_LOOKUP_NAME gives the published port', len_trim(found))
    end if
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    if (me == 0) call MPI_UNPUBLISH_NAME(service, MPI_INFO_NULL, port, ierr)
    call MPI_COMM_SPLIT(MPI_COMM_WORLD, merge(0, 1, me < (np + 1) / 2), me, half, ierr)
    if (me < (np + 1) / 2) then
      call MPI_COMM_ACCEPT(port, MPI_INFO_NULL, 0, half, inter, ierr)
    else
      call MPI_COMM_CONNECT(port, MPI_INFO_NULL, 0, half, inter, ierr)
    end if
    call MPI_COMM_REMOTE_SIZE(inter, n, ierr)
    call expect(n == merge(np / 2, (np + 1) / 2, me < (np + 1) / 2), 'MPI_COMM_ACCEPT / CONNECT remote size', n)
    call MPI_COMM_DISCONNECT(inter, ierr)
    call expect(inter == MPI_COMM_NULL, 'MPI_COMM_DISCONNECT', 0)
    call MPI_COMM_FREE(half, ierr)
    if (me == 0) call MPI_CLOSE_PORT(port, ierr)
    call MPI_INFO_CREATE_ENV(info, ierr)
    length = len(value)
    call MPI_INFO_GET_STRING(info, 'command', length, value, flag, ierr)
    call expect(flag .and. index(value, 'corpus') > 0, 'MPI_INFO_CREATE_ENV: command', length)
    call MPI_INFO_FREE(info, ierr)
    call MPI_PCONTROL(1)
    cell = me
    call MPI_F_SYNC_REG(cell)
    call expect(cell == me, 'MPI_F_SYNC_REG leaves the variable', cell)
  end subroutine

  ! MPI_COMM_GET_PARENT of a job nobody spawned; the status conversions between the `mpi` and
  ! mpi_f08 forms; the MPI-1 attribute calls mpif.h and `mpi` keep (not in mpi_f08).
  subroutine leftovers()
    HANDLE(MPI_Comm) :: parent, dup
    integer :: keyval, value
    logical :: flag
#if defined(F08) || defined(MODULE)
    integer :: classic(MPI_STATUS_SIZE)
    type(MPI_Status) :: modern
    classic = 0
    classic(MPI_SOURCE) = 3
    classic(MPI_TAG) = 4
    call MPI_STATUS_F2F08(classic, modern, ierr)
    call expect(modern%MPI_SOURCE == 3 .and. modern%MPI_TAG == 4, 'MPI_STATUS_F2F08', modern%MPI_TAG)
    modern%MPI_ERROR = MPI_ERR_TAG
    call MPI_STATUS_F082F(modern, classic, ierr)
    call expect(classic(MPI_ERROR) == MPI_ERR_TAG .and. classic(MPI_SOURCE) == 3, 'MPI_STATUS_F082F', classic(MPI_ERROR))
#endif
    call MPI_COMM_GET_PARENT(parent, ierr)
    call expect(parent == MPI_COMM_NULL, 'MPI_COMM_GET_PARENT: not spawned', 0)
#if !defined(F08)
    call MPI_KEYVAL_CREATE(MPI_DUP_FN, MPI_NULL_DELETE_FN, keyval, 0, ierr)
    call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
    call MPI_ATTR_PUT(dup, keyval, 40 + me, ierr)
    call MPI_ATTR_GET(dup, keyval, value, flag, ierr)
    call expect(flag .and. value == 40 + me, 'MPI_ATTR_PUT / MPI_ATTR_GET', value)
    call MPI_ATTR_DELETE(dup, keyval, ierr)
    call MPI_ATTR_GET(dup, keyval, value, flag, ierr)
    call expect(.not. flag, 'MPI_ATTR_DELETE', value)
    call MPI_KEYVAL_FREE(keyval, ierr)
    call expect(keyval == MPI_KEYVAL_INVALID, 'MPI_KEYVAL_FREE', keyval)
    call MPI_COMM_FREE(dup, ierr)
#endif
  end subroutine
end program
