! mpi_f08: the positions MPI_WAITANY, MPI_TESTANY, MPI_WAITSOME and MPI_TESTSOME return are 1-based
! indices into the Fortran array of requests (MPI_UNDEFINED when no request is active). Each rank
! waits on arrays mixing MPI_REQUEST_NULL and receives from its partner, reads the buffer at the
! position returned and checks the data, the position and the status.
program request_positions_f08
  use mpi_f08
  implicit none
  integer :: me, np, partner, index, outcount, i, k, done
  integer :: buf(4), indices(4)
  type(MPI_Request) :: reqs(4)
  type(MPI_Status) :: status, statuses(4)
  logical :: flag, seen(4)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  partner = ieor(me, 1)
  if (partner >= np) partner = me

  ! MPI_Waitany: only reqs(3) active; then none
  buf = -1
  reqs = MPI_REQUEST_NULL
  call MPI_Irecv(buf(3), 1, MPI_INTEGER, partner, 3, MPI_COMM_WORLD, reqs(3))
  call MPI_Send(1000 * partner + 3, 1, MPI_INTEGER, partner, 3, MPI_COMM_WORLD)
  call MPI_Waitany(4, reqs, index, status)
  call check(index == 3, 'MPI_Waitany index of the one active request', index)
  call check(buf(index) == 1000 * me + 3, 'MPI_Waitany: buf(index) received', buf(index))
  call check(status%MPI_SOURCE == partner .and. status%MPI_TAG == 3, 'MPI_Waitany status', status%MPI_TAG)
  call check(reqs(3) == MPI_REQUEST_NULL, 'MPI_Waitany freed reqs(index)', 0)
  call MPI_Waitany(4, reqs, index, status)
  call check(index == MPI_UNDEFINED, 'MPI_Waitany on null requests gives MPI_UNDEFINED', index)

  ! MPI_Testany: only reqs(2) active, tested until complete; then none active
  buf = -1
  call MPI_Irecv(buf(2), 1, MPI_INTEGER, partner, 2, MPI_COMM_WORLD, reqs(2))
  call MPI_Send(1000 * partner + 2, 1, MPI_INTEGER, partner, 2, MPI_COMM_WORLD)
  flag = .false.
  do while (.not. flag)
    call MPI_Testany(4, reqs, index, flag, status)
  end do
  call check(index == 2, 'MPI_Testany index of the one active request', index)
  call check(buf(index) == 1000 * me + 2, 'MPI_Testany: buf(index) received', buf(index))
  call check(status%MPI_TAG == 2, 'MPI_Testany status', status%MPI_TAG)
  call MPI_Testany(4, reqs, index, flag, status)
  call check(flag .and. index == MPI_UNDEFINED, 'MPI_Testany on null requests: flag, MPI_UNDEFINED', index)

  ! MPI_Waitsome: reqs(1) and reqs(4) active, reqs(2:3) null
  buf = -1
  call MPI_Irecv(buf(1), 1, MPI_INTEGER, partner, 1, MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(buf(4), 1, MPI_INTEGER, partner, 4, MPI_COMM_WORLD, reqs(4))
  call MPI_Send(1000 * partner + 4, 1, MPI_INTEGER, partner, 4, MPI_COMM_WORLD)
  call MPI_Send(1000 * partner + 1, 1, MPI_INTEGER, partner, 1, MPI_COMM_WORLD)
  seen = .false.
  done = 0
  do while (done < 2)
    call MPI_Waitsome(4, reqs, outcount, indices, statuses)
    call check(outcount >= 1 .and. outcount <= 2 - done, 'MPI_Waitsome outcount', outcount)
    do k = 1, outcount
      i = indices(k)
      call check(i == 1 .or. i == 4, 'MPI_Waitsome index of an active request', i)
      call check(.not. seen(i), 'MPI_Waitsome index reported once', i)
      seen(i) = .true.
      call check(buf(i) == 1000 * me + i, 'MPI_Waitsome: buf(index) received', buf(i))
      call check(statuses(k)%MPI_TAG == i, 'MPI_Waitsome status(k) matches indices(k)', statuses(k)%MPI_TAG)
    end do
    done = done + outcount
  end do
  call MPI_Waitsome(4, reqs, outcount, indices, statuses)
  call check(outcount == MPI_UNDEFINED, 'MPI_Waitsome on null requests gives MPI_UNDEFINED', outcount)

  ! MPI_Testsome: reqs(2) and reqs(3) active
  buf = -1
  call MPI_Irecv(buf(2), 1, MPI_INTEGER, partner, 2, MPI_COMM_WORLD, reqs(2))
  call MPI_Irecv(buf(3), 1, MPI_INTEGER, partner, 3, MPI_COMM_WORLD, reqs(3))
  call MPI_Send(1000 * partner + 3, 1, MPI_INTEGER, partner, 3, MPI_COMM_WORLD)
  call MPI_Send(1000 * partner + 2, 1, MPI_INTEGER, partner, 2, MPI_COMM_WORLD)
  seen = .false.
  done = 0
  do while (done < 2)
    call MPI_Testsome(4, reqs, outcount, indices, statuses)
    call check(outcount >= 0 .and. outcount <= 2 - done, 'MPI_Testsome outcount', outcount)
    do k = 1, outcount
      i = indices(k)
      call check(i == 2 .or. i == 3, 'MPI_Testsome index of an active request', i)
      call check(.not. seen(i), 'MPI_Testsome index reported once', i)
      seen(i) = .true.
      call check(buf(i) == 1000 * me + i, 'MPI_Testsome: buf(index) received', buf(i))
    end do
    done = done + outcount
  end do
  call MPI_Testsome(4, reqs, outcount, indices, statuses)
  call check(outcount == MPI_UNDEFINED, 'MPI_Testsome on null requests gives MPI_UNDEFINED', outcount)

  call MPI_Barrier(MPI_COMM_WORLD)
  if (me == 0) print '(a)', 'request_positions_f08: OK'
  call MPI_Finalize()
contains
  subroutine check(ok, what, value)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer, intent(in) :: value
    if (.not. ok) then
      print '(a,i0,3a,i0)', 'request_positions_f08: rank ', me, ': FAILED: ', what, ': got ', value
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine
end program
