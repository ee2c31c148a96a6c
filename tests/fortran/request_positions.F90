! MPI_WAITANY, MPI_TESTANY, MPI_WAITSOME and MPI_TESTSOME return 1-based positions in the Fortran
! array of requests, MPI_UNDEFINED when none is active, in each interface (interface.inc). Each
! rank receives from its partner into the elements of BUF whose requests are active among null
! ones, and reads BUF at the positions returned.
#define PROGRAM_NAME 'request_positions'
#include "interface.inc"
program request_positions
  HEAD_USE
  implicit none
  HEAD_INCLUDE
  integer :: me, np, partner, pos, outcount, got, ierr
  integer, asynchronous :: buf(5)
  integer :: indices(5)
  HANDLE(MPI_Request) :: reqs(5)
  STATUS :: status
  STATUSES(5) :: statuses
  logical :: flag, seen(5)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  partner = ieor(me, 1)
  if (partner >= np) partner = me
  reqs = MPI_REQUEST_NULL

  ! the last of five active: a 0-based answer (4) would read a buffer never received
  call post([5])
  call MPI_WAITANY(5, reqs, pos, status, ierr)
  call expect(ierr == MPI_SUCCESS .and. pos == 5, 'MPI_WAITANY position of reqs(5)', pos)
  call expect(buf(pos) == 100 * me + 5, 'MPI_WAITANY buf(position) received', buf(pos))
  call expect(SOURCE_OF(status) == partner .and. TAG_OF(status) == 5, 'MPI_WAITANY status', TAG_OF(status))
  call expect(reqs(5) == MPI_REQUEST_NULL, 'MPI_WAITANY freed reqs(position)', 0)
  call MPI_WAITANY(5, reqs, pos, status, ierr)
  call expect(pos == MPI_UNDEFINED, 'MPI_WAITANY with no active request: MPI_UNDEFINED', pos)

  call post([1])
  flag = .false.
  do while (.not. flag)
    call MPI_TESTANY(5, reqs, pos, flag, status, ierr)
  end do
  call expect(pos == 1, 'MPI_TESTANY position of reqs(1)', pos)
  call expect(buf(pos) == 100 * me + 1, 'MPI_TESTANY buf(position) received', buf(pos))
  call MPI_TESTANY(5, reqs, pos, flag, MPI_STATUS_IGNORE, ierr)
  call expect(flag .and. pos == MPI_UNDEFINED, 'MPI_TESTANY with no active request: MPI_UNDEFINED', pos)

  call post([2, 5])
  seen = .false.
  got = 0
  do while (got < 2)
    call MPI_WAITSOME(5, reqs, outcount, indices, statuses, ierr)
    call expect(outcount >= 1 .and. outcount <= 2 - got, 'MPI_WAITSOME outcount', outcount)
    call positions_received('MPI_WAITSOME', outcount, [2, 5])
    got = got + outcount
  end do
  call MPI_WAITSOME(5, reqs, outcount, indices, statuses, ierr)
  call expect(outcount == MPI_UNDEFINED, 'MPI_WAITSOME with no active request: MPI_UNDEFINED', outcount)

  call post([3, 4])
  seen = .false.
  got = 0
  do while (got < 2)
    call MPI_TESTSOME(5, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
    call expect(outcount >= 0 .and. outcount <= 2 - got, 'MPI_TESTSOME outcount', outcount)
    call positions_received('MPI_TESTSOME', outcount, [3, 4])
    got = got + outcount
  end do
  call MPI_TESTSOME(5, reqs, outcount, indices, statuses, ierr)
  call expect(outcount == MPI_UNDEFINED, 'MPI_TESTSOME with no active request: MPI_UNDEFINED', outcount)

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (me == 0) print '(2a)', LABEL, ': OK'
  call MPI_FINALIZE(ierr)
contains
  ! receives into buf(i) for each i of active (tag i), the partner's sends in reverse order
  subroutine post(active)
    integer, intent(in) :: active(:)
    integer :: j
    buf = -1
    do j = 1, size(active)
      call MPI_IRECV(buf(active(j)), 1, MPI_INTEGER, partner, active(j), MPI_COMM_WORLD, reqs(active(j)), ierr)
    end do
    do j = size(active), 1, -1
      call MPI_SEND(100 * partner + active(j), 1, MPI_INTEGER, partner, active(j), MPI_COMM_WORLD, ierr)
    end do
  end subroutine

  ! the first n positions of indices: each an active request's, once, its buffer received (and,
  ! for MPI_WAITSOME, statuses(k) is indices(k)'s)
  subroutine positions_received(call_name, n, active)
    character(len=*), intent(in) :: call_name
    integer, intent(in) :: n, active(:)
    integer :: k, i
    do k = 1, n
      i = indices(k)
      call expect(any(active == i), call_name // ' position of an active request', i)
      call expect(.not. seen(i), call_name // ' position reported once', i)
      seen(i) = .true.
      call expect(reqs(i) == MPI_REQUEST_NULL, call_name // ' freed reqs(position)', i)
      call expect(buf(i) == 100 * me + i, call_name // ' buf(position) received', buf(i))
      if (call_name == 'MPI_WAITSOME') call expect(TAG_AT(statuses, k) == i, 'MPI_WAITSOME statuses(k)', i)
    end do
  end subroutine

#include "expect.inc"
end program
