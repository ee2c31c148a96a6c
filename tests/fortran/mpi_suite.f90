! The `mpi` module end to end: point-to-point with non-contiguous array sections, collectives
! with a user op written in Fortran, RMA windows, communicators and topologies, error handlers and
! attribute callbacks written in Fortran. Every value is checked; the first wrong one aborts.
module mpi_checks
  use mpi
  implicit none
  integer :: me, np
  integer :: errors_seen = 0, last_error = 0, deletes = 0
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: ierror
    if (.not. ok) then
      print '(a,i0,2a)', 'mpi_suite: rank ', me, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, ierror)
    end if
  end subroutine
end module

! A user reduction in the MPI-1 style, associative but not commutative: decimal concatenation on
! (value, 10**digits) pairs, so the result spells the ranks in rank order.
subroutine digits(invec, inoutvec, len, datatype)
  use mpi_checks
  implicit none
  integer :: len, datatype
  integer :: invec(2, len), inoutvec(2, len)
  call check(datatype == MPI_2INTEGER, 'user op got MPI_2INTEGER')
  inoutvec(1, :) = invec(1, :) * inoutvec(2, :) + inoutvec(1, :)
  inoutvec(2, :) = invec(2, :) * inoutvec(2, :)
end subroutine

subroutine count_errors(comm, code)
  use mpi_checks
  implicit none
  integer :: comm, code
  errors_seen = errors_seen + 1
  last_error = code
end subroutine

subroutine count_delete(comm, keyval, value, extra_state, ierror)
  use mpi_checks
  implicit none
  integer :: comm, keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: value, extra_state
  deletes = deletes + int(value + extra_state)
  ierror = MPI_SUCCESS
end subroutine

program mpi_suite
  use mpi_checks
  implicit none
  external :: digits, count_errors, count_delete
  integer :: ierror, i, next, prev, op, win, half, cart, dup, eh, keyval, n_sub, name_len, size_of
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), reqs(2), dims(1), coords(1), lo, hi
  integer :: a(3, 4), got(4), spelled(2), window(2)
  double complex :: z(2), zsum(2)
  integer(kind=MPI_ADDRESS_KIND) :: value, extra
  logical :: flag, periods(1)
  character(len=MPI_MAX_OBJECT_NAME) :: name

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierror)
  next = mod(me + 1, np)
  prev = mod(me + np - 1, np)

  ! --- a row of a 3x4 array (stride 3) both ways; the compiler passes a contiguous copy
  do i = 1, 4
    a(:, i) = [me * 100 + i, me * 100 + 10 + i, me * 100 + 20 + i]
  end do
  call MPI_Irecv(got, 4, MPI_INTEGER, prev, 5, MPI_COMM_WORLD, reqs(1), ierror)
  call MPI_Send(a(2, :), 4, MPI_INTEGER, next, 5, MPI_COMM_WORLD, ierror)
  call MPI_Wait(reqs(1), status, ierror)
  call check(all(got == [(prev * 100 + 10 + i, i = 1, 4)]), 'row section received')
  call check(status(MPI_SOURCE) == prev .and. status(MPI_TAG) == 5, 'status(MPI_SOURCE), status(MPI_TAG)')
  call MPI_Sendrecv(got, 4, MPI_INTEGER, next, 6, a(3, :), 4, MPI_INTEGER, prev, 6, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierror)
  call check(a(3, 1) == mod(prev + np - 1, np) * 100 + 11 .and. a(2, 4) == me * 100 + 14, 'row section written back')
  call MPI_Isend(a, 12, MPI_INTEGER, next, 7, MPI_COMM_WORLD, reqs(1), ierror)
  call MPI_Irecv(a, 0, MPI_INTEGER, prev, 8, MPI_COMM_WORLD, reqs(2), ierror)
  call MPI_Send(a, 0, MPI_INTEGER, next, 8, MPI_COMM_WORLD, ierror)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierror)
  call MPI_Recv(got, 4, MPI_INTEGER, prev, 7, MPI_COMM_WORLD, status, ierror)
  call MPI_Error_class(ierror, i, ierror)
  call check(i == MPI_ERR_TRUNCATE, '12 integers into 4 is MPI_ERR_TRUNCATE')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierror)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Waitall with MPI_STATUSES_IGNORE')
  call MPI_Sizeof(z, size_of, ierror)
  call check(size_of == 16, 'MPI_Sizeof of DOUBLE COMPLEX')

  ! --- collectives: a non-commutative user op, SUM on DOUBLE COMPLEX, MPI_IN_PLACE
  call MPI_Op_create(digits, .false., op, ierror)
  call MPI_Reduce([me, 10], spelled, 1, MPI_2INTEGER, op, 0, MPI_COMM_WORLD, ierror)
  if (me == 0) then
    value = 0
    do i = 0, np - 1
      value = value * 10 + i
    end do
    call check(spelled(1) == value, 'non-commutative user op in rank order')
  end if
  call MPI_Op_free(op, ierror)
  z = [dcmplx(me, 1), dcmplx(1, -me)]
  call MPI_Allreduce(z, zsum, 2, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierror)
  call check(zsum(1) == dcmplx(np * (np - 1) / 2, np) .and. zsum(2) == dcmplx(np, -np * (np - 1) / 2), &
             'MPI_SUM on MPI_DOUBLE_COMPLEX')
  got = me
  call MPI_Allreduce(MPI_IN_PLACE, got, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
  call check(all(got == np * (np - 1) / 2), 'MPI_IN_PLACE')
  call MPI_Allgather(me, 1, MPI_INTEGER, a, 1, MPI_INTEGER, MPI_COMM_WORLD, ierror)
  call check(a(min(np, 3), 1) == min(np, 3) - 1, 'MPI_Allgather')

  ! --- RMA with MPI_Alloc_mem-free window of two integers; accumulate with MPI_SUM
  window = 0
  call MPI_Win_create(window, int(8, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierror)
  call MPI_Win_fence(0, win, ierror)
  call MPI_Accumulate([1, me], 2, MPI_INTEGER, 0, 0_MPI_ADDRESS_KIND, 2, MPI_INTEGER, MPI_SUM, win, ierror)
  call MPI_Win_fence(0, win, ierror)
  if (me == 0) call check(window(1) == np .and. window(2) == np * (np - 1) / 2, 'MPI_Accumulate with MPI_SUM')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, value, flag, ierror)
  call check(flag .and. value == 4, 'MPI_WIN_DISP_UNIT')
  call MPI_Win_create_errhandler(count_errors, eh, ierror)
  call MPI_Win_set_errhandler(win, eh, ierror)
  call MPI_Win_call_errhandler(win, MPI_ERR_RMA_SYNC, ierror)
  call check(errors_seen == 1 .and. last_error == MPI_ERR_RMA_SYNC, 'a window error handler written in Fortran')
  errors_seen = 0
  call MPI_Errhandler_free(eh, ierror)
  call MPI_Win_free(win, ierror)
  call check(win == MPI_WIN_NULL, 'MPI_Win_free')

  ! --- communicators and a ring topology
  call MPI_Comm_split(MPI_COMM_WORLD, me / 2, me, half, ierror)
  call MPI_Comm_size(half, n_sub, ierror)
  call check(n_sub == min(2, np - 2 * (me / 2)), 'MPI_Comm_split')
  call MPI_Comm_set_name(half, 'pairs', ierror)
  call MPI_Comm_get_name(half, name, name_len, ierror)
  call check(name == 'pairs' .and. name_len == 5, 'communicator name')
  call MPI_Comm_free(half, ierror)
  dims = np
  periods = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierror)
  call MPI_Cart_shift(cart, 0, 1, lo, hi, ierror)
  call check(lo == prev .and. hi == next, 'ring neighbours')
  call MPI_Cart_coords(cart, me, 1, coords, ierror)
  call check(coords(1) == me, 'MPI_Cart_coords')
  call MPI_Comm_free(cart, ierror)

  ! --- an error handler written in Fortran; an attribute delete callback
  call MPI_Comm_create_errhandler(count_errors, eh, ierror)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierror)
  call MPI_Comm_set_errhandler(dup, eh, ierror)
  call MPI_Send(got, 1, MPI_INTEGER, 0, -5, dup, ierror)
  call check(errors_seen == 1 .and. ierror == MPI_ERR_TAG .and. last_error == ierror, 'handler saw MPI_ERR_TAG')
  call MPI_Errhandler_free(eh, ierror)
  extra = 1000
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, keyval, extra, ierror)
  call MPI_Comm_set_attr(dup, keyval, 5_MPI_ADDRESS_KIND, ierror)
  call MPI_Comm_dup(dup, half, ierror)
  call MPI_Comm_get_attr(half, keyval, value, flag, ierror)
  call check(.not. flag, 'MPI_COMM_NULL_COPY_FN does not copy')
  call MPI_Comm_free(half, ierror)
  call MPI_Comm_delete_attr(dup, keyval, ierror)
  call check(deletes == 1005, 'the delete callback got value and extra_state')
  call MPI_Comm_free_keyval(keyval, ierror)
  call MPI_Comm_free(dup, ierror)

  call MPI_Barrier(MPI_COMM_WORLD, ierror)
  if (me == 0) print '(a,i0,a)', 'mpi_suite: ', np, ' ranks OK'
  call MPI_Finalize(ierror)
end program
