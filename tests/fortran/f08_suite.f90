! The mpi_f08 interface end to end: point-to-point with non-contiguous array sections (blocking and
! non-blocking), collectives with predefined ops on Fortran types and a user op written in
! Fortran, RMA windows, communicators and topologies, error handlers and attribute callbacks
! written in Fortran. Every value is checked; the first wrong one aborts the job.
module f08_checks
  use mpi_f08
  implicit none
  integer :: me, np
  integer :: errors_seen = 0, last_error = 0
  integer :: copies = 0, deletes = 0
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'f08_suite: rank ', me, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine

  subroutine check_ierror(ierror, what)
    integer, intent(in) :: ierror
    character(len=*), intent(in) :: what
    call check(ierror == MPI_SUCCESS, what)
  end subroutine

  ! A user reduction: element-wise  inoutvec = max(|in|, |inout|) * sign of inout (not commutative-safe,
  ! declared commutative anyway: every rank contributes a positive value).
  subroutine absmax(invec, inoutvec, len, datatype) bind(C)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    real(8), pointer :: a(:), b(:)
    integer :: i
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    call check(datatype == MPI_DOUBLE_PRECISION, 'user op got MPI_DOUBLE_PRECISION')
    do i = 1, len
      b(i) = max(abs(a(i)), abs(b(i)))
    end do
  end subroutine

  subroutine count_errors(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    errors_seen = errors_seen + 1
    last_error = code
  end subroutine

  subroutine copy_twice(old, keyval, extra_state, value_in, value_out, flag, ierror)
    type(MPI_Comm) :: old
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, value_in, value_out
    logical :: flag
    copies = copies + 1
    value_out = 2 * value_in + extra_state
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine

  subroutine count_delete(comm, keyval, value, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: value, extra_state
    deletes = deletes + 1
    ierror = MPI_SUCCESS
  end subroutine
end module

program f08_suite
  use mpi_f08
  use f08_checks
  implicit none
  integer :: i, j, ierror, next, prev, n_sub, size_of
  real :: grid(8, 6), column(6), row(8)
  real(8) :: dvals(4), dmax(4)
  real :: pairs(2, 1), minpair(2, 1)
  logical :: flag, all_true
  type(MPI_Request) :: reqs(2)
  type(MPI_Status) :: st, sts(2)
  type(MPI_Op) :: op
  type(MPI_Comm) :: half, cart, dup
  type(MPI_Win) :: win
  type(MPI_Errhandler) :: eh
  integer :: keyval, count, dims(2), coords(2), lo, hi, name_len
  integer(kind=MPI_ADDRESS_KIND) :: value, winsize, extra
  integer, allocatable :: window(:)
  character(len=MPI_MAX_OBJECT_NAME) :: name
  integer :: result(4)
  integer(kind=MPI_COUNT_KIND) :: big
  type(MPI_Datatype) :: strided, twice

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  next = mod(me + 1, np)
  prev = mod(me + np - 1, np)

  ! --- point-to-point with non-contiguous sections: a row of a column-major array (stride 8)
  do j = 1, 6
    do i = 1, 8
      grid(i, j) = real(100 * me + 10 * i + j)
    end do
  end do
  column = -1
  call MPI_Sendrecv(grid(3, :), 6, MPI_REAL, next, 1, column, 6, MPI_REAL, prev, 1, MPI_COMM_WORLD, st, ierror)
  call check_ierror(ierror, 'MPI_Sendrecv of a row section')
  do j = 1, 6
    call check(column(j) == real(100 * prev + 30 + j), 'row section arrived in order')
  end do
  call check(st%MPI_SOURCE == prev .and. st%MPI_TAG == 1, 'status source and tag')
  call MPI_Get_count(st, MPI_REAL, count)
  call check(count == 6, 'MPI_Get_count of the row')
  ! non-blocking: receive into a strided 2-D section (every other row, every other column)
  grid = 0
  row = [(real(me * 1000 + i), i = 1, 8)]
  call MPI_Irecv(grid(1:8:2, 2:6:2), 12, MPI_REAL, prev, 2, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend([(row(i), i = 1, 8), (row(i) + 0.5, i = 1, 4)], 12, MPI_REAL, next, 2, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, sts)
  call check(sts(1)%MPI_SOURCE == prev, 'Waitall status of the receive')
  call check(grid(1, 2) == real(prev * 1000 + 1) .and. grid(7, 2) == real(prev * 1000 + 4), 'first column of the 2-D section')
  call check(grid(1, 4) == real(prev * 1000 + 5) .and. grid(7, 4) == real(prev * 1000 + 8), 'second column of the 2-D section')
  call check(grid(3, 6) == real(prev * 1000 + 2) + 0.5, 'third column of the 2-D section')
  call check(grid(2, 2) == 0 .and. grid(1, 3) == 0 .and. grid(8, 6) == 0, 'elements outside the section untouched')
  ! a count that does not cover the section is refused with MPI_ERR_COUNT (errors returned here)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(grid(1:8:2, 1), 3, MPI_REAL, next, 3, MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_ERR_COUNT, 'a count short of the section is refused')
  ! a section whose datatype has holes is refused with MPI_ERR_BUFFER
  call MPI_Type_vector(2, 1, 2, MPI_REAL, strided)
  call MPI_Type_commit(strided)
  call MPI_Send(grid(1:8:2, 1), 2, strided, next, 3, MPI_COMM_WORLD, ierror)
  call check(ierror == MPI_ERR_BUFFER, 'a section with a datatype with holes is refused')
  call MPI_Type_free(strided)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
  ! the large-count form through the generic name (INTEGER(KIND=MPI_COUNT_KIND) counts)
  big = 4
  column = -1
  row = [(real(100 * me + i), i = 1, 8)]
  call MPI_Sendrecv(row(1:8:2), big, MPI_REAL, next, 4, column, big, MPI_REAL, prev, 4, MPI_COMM_WORLD, st)
  call MPI_Get_count(st, MPI_REAL, big)
  call check(big == 4 .and. column(1) == 100 * prev + 1 .and. column(4) == 100 * prev + 7 .and. column(5) == -1, &
             'MPI_Sendrecv_c of a section and MPI_Get_count_c')
  call MPI_F_sync_reg(column)
  call MPI_Pcontrol(1)
  call MPI_Sizeof(dvals, size_of)
  call check(size_of == 8, 'MPI_Sizeof of REAL(8)')
  call MPI_Sizeof(me, size_of)
  call check(size_of == 4, 'MPI_Sizeof of INTEGER')

  ! --- collectives: predefined ops on Fortran types, a user op written in Fortran
  dvals = [real(8) :: me + 1, -(me + 1), 2 * me, 0.5]
  call MPI_Allreduce(dvals, dmax, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call check(dmax(1) == np * (np + 1) / 2.0d0 .and. dmax(2) == -np * (np + 1) / 2.0d0, 'MPI_SUM on MPI_DOUBLE_PRECISION')
  call MPI_Op_create(absmax, .true., op)
  call MPI_Allreduce(dvals, dmax, 4, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD)
  call check(dmax(1) == np .and. dmax(2) == np .and. dmax(3) == 2 * (np - 1) .and. dmax(4) == 0.5, 'user op absmax')
  call MPI_Op_free(op)
  call check(op == MPI_OP_NULL, 'MPI_Op_free sets MPI_OP_NULL')
  call MPI_Allreduce(me /= np - 1, all_true, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
  call check(.not. all_true, 'MPI_LAND on MPI_LOGICAL')
  call MPI_Allreduce(.true., all_true, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
  call check(all_true, 'MPI_LAND of .true.')
  pairs(:, 1) = [real(mod(me + 1, np)), real(me)]
  call MPI_Allreduce(pairs, minpair, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD)
  call check(minpair(1, 1) == 0 .and. minpair(2, 1) == np - 1, 'MPI_MINLOC on MPI_2REAL')
  result = me
  call MPI_Allreduce(MPI_IN_PLACE, result, 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call check(all(result == np - 1), 'MPI_IN_PLACE with MPI_MAX on MPI_INTEGER')
  call MPI_Bcast(grid(2, :), 6, MPI_REAL, 0, MPI_COMM_WORLD)
  call check(grid(2, 6) == 0, 'MPI_Bcast of a section')

  ! --- RMA: each rank puts its rank into its right neighbour's window, then reads it back
  allocate(window(4))
  window = -1
  winsize = 16
  call MPI_Win_create(window, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  result = [me, me + 1, me + 2, me + 3]
  call MPI_Put(result(1:4:2), 2, MPI_INTEGER, next, 1_MPI_ADDRESS_KIND, 2, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(window(1) == -1 .and. window(2) == prev .and. window(3) == prev + 2 .and. window(4) == -1, 'MPI_Put of a section')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, value, flag)
  call check(flag .and. value == 16, 'MPI_WIN_SIZE read as a value')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, value, flag)
  call check(flag .and. value == 4, 'MPI_WIN_DISP_UNIT read as a value')
  result = 0
  call MPI_Win_lock(MPI_LOCK_SHARED, prev, 0, win)
  call MPI_Get(result, 4, MPI_INTEGER, prev, 0_MPI_ADDRESS_KIND, 4, MPI_INTEGER, win)
  call MPI_Win_unlock(prev, win)
  call check(result(2) == mod(prev + np - 1, np), 'MPI_Get under a lock')
  call MPI_Win_free(win)

  ! --- communicators and topologies
  call MPI_Comm_split(MPI_COMM_WORLD, mod(me, 2), -me, half)
  call MPI_Comm_size(half, n_sub)
  call check(n_sub == (np + 1 - mod(me, 2)) / 2, 'MPI_Comm_split size')
  call MPI_Comm_set_name(half, 'half of the world   ')
  call MPI_Comm_get_name(half, name, name_len)
  call check(name == 'half of the world' .and. name_len == 17, 'communicator name round trip')
  call MPI_Comm_free(half)
  call check(half == MPI_COMM_NULL, 'MPI_Comm_free sets MPI_COMM_NULL')
  dims = 0
  call MPI_Dims_create(np, 2, dims)
  call check(dims(1) * dims(2) == np, 'MPI_Dims_create')
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, [.true., .false.], .false., cart)
  call MPI_Cart_coords(cart, me, 2, coords)
  call MPI_Cart_shift(cart, 0, 1, lo, hi)
  call check(hi == mod(coords(1) + 1, dims(1)) * dims(2) + coords(2), 'MPI_Cart_shift along the periodic dimension')
  call MPI_Cart_shift(cart, 1, 1, lo, hi)
  if (coords(2) == dims(2) - 1) call check(hi == MPI_PROC_NULL, 'MPI_Cart_shift off the open end')
  call MPI_Comm_free(cart)

  ! --- error handlers written in Fortran
  call MPI_Comm_create_errhandler(count_errors, eh)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_set_errhandler(dup, eh)
  call MPI_Send(result, 1, MPI_INTEGER, np + 5, 0, dup, ierror)
  call check(errors_seen == 1 .and. ierror == MPI_ERR_RANK, 'the Fortran handler saw MPI_ERR_RANK')
  call MPI_Error_class(last_error, i)
  call check(i == MPI_ERR_RANK, 'the handler got the error code')
  call MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER)
  call check(errors_seen == 2 .and. last_error == MPI_ERR_OTHER, 'MPI_Comm_call_errhandler')
  call MPI_Errhandler_free(eh)

  ! --- attributes with callbacks written in Fortran, and the predefined MPI_COMM_DUP_FN
  extra = 7
  call MPI_Comm_create_keyval(copy_twice, count_delete, keyval, extra)
  call MPI_Comm_set_attr(dup, keyval, 100_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(dup, half)
  call MPI_Comm_get_attr(half, keyval, value, flag)
  call check(flag .and. value == 207 .and. copies == 1, 'the Fortran copy callback ran')
  call MPI_Comm_free(half)
  call check(deletes == 1, 'the Fortran delete callback ran')
  call MPI_Comm_free_keyval(keyval)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval, extra)
  call MPI_Comm_set_attr(dup, keyval, 42_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(dup, half)
  call MPI_Comm_get_attr(half, keyval, value, flag)
  call check(flag .and. value == 42, 'MPI_COMM_DUP_FN copies the value')
  call MPI_Comm_free(half)
  call MPI_Comm_free(dup)
  call MPI_Comm_free_keyval(keyval)
  ! datatype attributes: MPI_TYPE_DUP_FN copies through MPI_Type_dup, MPI_TYPE_NULL_COPY_FN does not
  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, keyval, extra)
  call MPI_Type_contiguous(2, MPI_INTEGER, strided)
  call MPI_Type_set_attr(strided, keyval, 77_MPI_ADDRESS_KIND)
  call MPI_Type_dup(strided, twice)
  call MPI_Type_get_attr(twice, keyval, value, flag)
  call check(flag .and. value == 77, 'MPI_TYPE_DUP_FN')
  call MPI_Type_free(twice)
  call MPI_Type_free(strided)
  ! a keyval belongs to its object kind: a datatype keyval on a communicator is MPI_ERR_KEYVAL
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, 5_MPI_ADDRESS_KIND, ierror)
  call check(ierror == MPI_ERR_KEYVAL, 'a datatype keyval set on a communicator')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, value, flag, ierror)
  call check(ierror == MPI_ERR_KEYVAL, 'a datatype keyval read on a communicator')
  call MPI_Comm_free_keyval(keyval, ierror)
  call check(ierror == MPI_ERR_KEYVAL .and. keyval /= MPI_KEYVAL_INVALID, 'a datatype keyval freed as a communicator one')
  call MPI_Type_free_keyval(keyval)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, value, flag)
  call check(flag .and. value >= 32767, 'MPI_TAG_UB read as a value')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (me == 0) print '(a,i0,a)', 'f08_suite: ', np, ' ranks OK'
  call MPI_Finalize()
end program
