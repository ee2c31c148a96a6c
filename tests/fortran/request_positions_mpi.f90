! `use mpi`: MPI_WAITANY, MPI_TESTANY, MPI_WAITSOME and MPI_TESTSOME return 1-based positions in the
! Fortran array of requests, MPI_UNDEFINED when none is active. Each rank receives from its partner
! into the element of BUF whose request is active among null ones and reads BUF at the position
! returned.
program request_positions_mpi
  use mpi
  implicit none
  integer :: me, np, partner, pos, outcount, k, got, ierr
  integer :: buf(5), indices(5), reqs(5), status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 5)
  logical :: flag, seen(5)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  partner = ieor(me, 1)
  if (partner >= np) partner = me
  reqs = MPI_REQUEST_NULL

  ! the last of five active: a 0-based answer (4) would read a buffer never received
  call post((/5/))
  call MPI_WAITANY(5, reqs, pos, status, ierr)
  call check(ierr == MPI_SUCCESS .and. pos == 5, 'MPI_WAITANY position of reqs(5)', pos)
  call check(buf(pos) == 100 * me + 5, 'MPI_WAITANY buf(position) received', buf(pos))
  call check(status(MPI_SOURCE) == partner .and. status(MPI_TAG) == 5, 'MPI_WAITANY status', status(MPI_TAG))
  call MPI_WAITANY(5, reqs, pos, status, ierr)
  call check(pos == MPI_UNDEFINED, 'MPI_WAITANY with no active request: MPI_UNDEFINED', pos)

  call post((/1/))
  flag = .false.
  do while (.not. flag)
    call MPI_TESTANY(5, reqs, pos, flag, status, ierr)
  end do
  call check(pos == 1, 'MPI_TESTANY position of reqs(1)', pos)
  call check(buf(pos) == 100 * me + 1, 'MPI_TESTANY buf(position) received', buf(pos))
  call MPI_TESTANY(5, reqs, pos, flag, MPI_STATUS_IGNORE, ierr)
  call check(flag .and. pos == MPI_UNDEFINED, 'MPI_TESTANY with no active request: MPI_UNDEFINED', pos)

  call post((/2, 5/))
  seen = .false.
  got = 0
  do while (got < 2)
    call MPI_WAITSOME(5, reqs, outcount, indices, statuses, ierr)
    call check(outcount >= 1 .and. outcount <= 2 - got, 'MPI_WAITSOME outcount', outcount)
    call positions_received('MPI_WAITSOME', outcount, (/2, 5/))
    got = got + outcount
  end do
  call MPI_WAITSOME(5, reqs, outcount, indices, statuses, ierr)
  call check(outcount == MPI_UNDEFINED, 'MPI_WAITSOME with no active request: MPI_UNDEFINED', outcount)

  call post((/3, 4/))
  seen = .false.
  got = 0
  do while (got < 2)
    call MPI_TESTSOME(5, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
    call check(outcount >= 0 .and. outcount <= 2 - got, 'MPI_TESTSOME outcount', outcount)
    call positions_received('MPI_TESTSOME', outcount, (/3, 4/))
    got = got + outcount
  end do
  call MPI_TESTSOME(5, reqs, outcount, indices, statuses, ierr)
  call check(outcount == MPI_UNDEFINED, 'MPI_TESTSOME with no active request: MPI_UNDEFINED', outcount)

  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (me == 0) print '(a)', 'request_positions_mpi: OK'
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

  subroutine positions_received(call_name, n, active)
    character(len=*), intent(in) :: call_name
    integer, intent(in) :: n, active(:)
    integer :: j, i
    do j = 1, n
      i = indices(j)
      call check(any(active == i), call_name // ' position of an active request', i)
      call check(.not. seen(i), call_name // ' position reported once', i)
      seen(i) = .true.
      call check(reqs(i) == MPI_REQUEST_NULL, call_name // ' freed reqs(position)', i)
      call check(buf(i) == 100 * me + i, call_name // ' buf(position) received', buf(i))
    end do
  end subroutine

  subroutine check(ok, what, value)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer, intent(in) :: value
    if (.not. ok) then
      print '(a,i0,3a,i0)', 'request_positions_mpi: rank ', me, ': FAILED: ', what, ': got ', value
      call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine
end program
