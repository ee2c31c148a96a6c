! The procedures whose Fortran binding adapts callbacks or the command line: generalized requests
! completed from Fortran (query/free/cancel written in Fortran, mpi_f08 and `use mpi`), a user data
! representation whose Fortran conversion is seen in the file's bytes (mpi_f08, and `use mpi` with
! MPI_CONVERSION_FN_NULL) and MPI_Info_create_env (both). Run with the arguments `alpha beta`.
! Every value is checked; the first wrong one aborts the job.
module callback_checks
  use mpi_f08
  implicit none
  integer :: me, np
  ! what the generalized request callbacks saw, indexed by their extra_state
  integer :: queries(2) = 0, frees(2) = 0, cancels(2) = 0
  logical :: cancel_complete(2) = .true.
  integer :: conversions_in = 0, conversions_out = 0
  integer, parameter :: shift = 1000
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'callbacks_suite: rank ', me, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine

  subroutine greq_query(extra_state, status, ierror) bind(C)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
    queries(extra_state) = queries(extra_state) + 1
    status%MPI_SOURCE = 40 + int(extra_state)
    status%MPI_TAG = 77
    status%MPI_ERROR = MPI_SUCCESS
    call MPI_Status_set_elements(status, MPI_INTEGER, 5 * int(extra_state))
    call MPI_Status_set_cancelled(status, cancels(extra_state) > 0)
    ierror = MPI_SUCCESS
  end subroutine

  subroutine greq_free(extra_state, ierror) bind(C)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    frees(extra_state) = frees(extra_state) + 1
    ierror = MPI_SUCCESS
  end subroutine

  subroutine greq_cancel(extra_state, complete, ierror) bind(C)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    cancels(extra_state) = cancels(extra_state) + 1
    cancel_complete(extra_state) = complete
    ierror = MPI_SUCCESS
  end subroutine

  ! "gasket_f_plus": an INTEGER is stored in the file plus extra_state.
  subroutine plus_write(userbuf, datatype, count, filebuf, position, extra_state, ierror) bind(C)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call check(datatype == MPI_INTEGER, 'write conversion gets MPI_INTEGER')
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    f = u(position + 1:position + count) + int(extra_state)
    conversions_out = conversions_out + count
    ierror = MPI_SUCCESS
  end subroutine

  subroutine plus_read(userbuf, datatype, count, filebuf, position, extra_state, ierror) bind(C)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call check(datatype == MPI_INTEGER, 'read conversion gets MPI_INTEGER')
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    u(position + 1:position + count) = f - int(extra_state)
    conversions_in = conversions_in + count
    ierror = MPI_SUCCESS
  end subroutine

  subroutine four_bytes(datatype, extent, extra_state, ierror) bind(C)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror
    call check(extra_state == shift, 'the extent function gets extra_state')
    extent = 4
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER) ierror = MPI_ERR_TYPE
  end subroutine

  character(len=4096) function info_value(info, key)
    type(MPI_Info), intent(in) :: info
    character(len=*), intent(in) :: key
    integer :: length
    logical :: flag
    length = len(info_value)
    call MPI_Info_get_string(info, key, length, info_value, flag)
    call check(flag, 'MPI_INFO_ENV-like info has key '//key)
  end function
end module

! mpi_f08: one request completed then waited for, one cancelled first.
subroutine grequests_f08()
  use callback_checks
  type(MPI_Request) :: request
  type(MPI_Status) :: status
  logical :: flag
  integer :: n, ierror
  call MPI_Grequest_start(greq_query, greq_free, greq_cancel, 1_MPI_ADDRESS_KIND, request, ierror)
  call check(ierror == MPI_SUCCESS .and. request /= MPI_REQUEST_NULL, 'MPI_Grequest_start (f08)')
  call MPI_Test(request, flag, status)
  call check(.not. flag .and. queries(1) == 0, 'a generalized request is pending until completed')
  call MPI_Grequest_complete(request)
  call MPI_Wait(request, status)
  call check(request == MPI_REQUEST_NULL, 'MPI_Wait frees the generalized request')
  call check(queries(1) == 1 .and. frees(1) == 1 .and. cancels(1) == 0, 'query and free called once each')
  call check(status%MPI_SOURCE == 41 .and. status%MPI_TAG == 77, 'the status query_fn filled')
  call MPI_Get_count(status, MPI_INTEGER, n)
  call check(n == 5, 'MPI_Get_count of the status query_fn set')
  call MPI_Test_cancelled(status, flag)
  call check(.not. flag, 'not cancelled')

  call MPI_Grequest_start(greq_query, greq_free, greq_cancel, 2_MPI_ADDRESS_KIND, request)
  call MPI_Cancel(request)
  call check(cancels(2) == 1 .and. .not. cancel_complete(2), 'cancel_fn called with complete = .FALSE.')
  call MPI_Grequest_complete(request)
  call MPI_Wait(request, status)
  call MPI_Test_cancelled(status, flag)
  call check(flag .and. queries(2) == 1 .and. frees(2) == 1, 'cancelled request: query and free once')
  call MPI_Get_count(status, MPI_INTEGER, n)
  call check(n == 10, 'the second status')
end subroutine

! `use mpi`: the same callbacks' old form (INTEGER status array, EXTERNAL procedures).
module classic_callbacks
  use mpi
  implicit none
  integer :: classic_frees = 0
contains
  subroutine classic_query(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: status(MPI_STATUS_SIZE), ierror
    status(MPI_SOURCE) = int(extra_state)
    status(MPI_TAG) = 5
    call MPI_STATUS_SET_ELEMENTS(status, MPI_BYTE, 3, ierror)
    call MPI_STATUS_SET_CANCELLED(status, .false., ierror)
  end subroutine
  subroutine classic_free(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    classic_frees = classic_frees + int(extra_state)
    ierror = MPI_SUCCESS
  end subroutine
  subroutine classic_cancel(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    ierror = MPI_SUCCESS  ! (never called: the request completes first)
  end subroutine
end module

subroutine grequest_classic()
  use classic_callbacks
  integer :: request, status(MPI_STATUS_SIZE), n, ierror
  logical :: flag
  call MPI_GREQUEST_START(classic_query, classic_free, classic_cancel, 123_MPI_ADDRESS_KIND, request, ierror)
  call MPI_GREQUEST_COMPLETE(request, ierror)
  call MPI_TEST(request, flag, status, ierror)
  if (.not. flag .or. request /= MPI_REQUEST_NULL .or. status(MPI_SOURCE) /= 123 .or. status(MPI_TAG) /= 5 &
      .or. classic_frees /= 123) then
    print *, 'callbacks_suite: FAILED: MPI_GREQUEST_START (use mpi)', flag, status(MPI_SOURCE), classic_frees
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierror)
  end if
  call MPI_GET_COUNT(status, MPI_BYTE, n, ierror)
  if (n /= 3) call MPI_ABORT(MPI_COMM_WORLD, 1, ierror)
end subroutine

! Each rank writes 4 INTEGERs through "gasket_f_plus"; the file's bytes (read back as "native")
! hold them plus the shift; read through the representation they come back as written.
subroutine datarep_f08(path)
  use callback_checks
  character(len=*), intent(in) :: path
  type(MPI_File) :: fh
  integer :: mine(4), back(4), i, ierror
  integer, allocatable :: raw(:)
  integer(kind=MPI_OFFSET_KIND) :: at
  call MPI_Register_datarep('gasket_f_plus', plus_read, plus_write, four_bytes, int(shift, MPI_ADDRESS_KIND), ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_Register_datarep (f08)')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Register_datarep('gasket_f_plus', plus_read, plus_write, four_bytes, 0_MPI_ADDRESS_KIND, ierror)
  call MPI_Error_class(ierror, i)
  call check(i == MPI_ERR_DUP_DATAREP, 'a second registration is MPI_ERR_DUP_DATAREP')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
  mine = [(me * 10 + i, i = 1, 4)]
  call MPI_File_open(MPI_COMM_WORLD, path, ior(MPI_MODE_CREATE, MPI_MODE_RDWR), MPI_INFO_NULL, fh)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'gasket_f_plus', MPI_INFO_NULL)
  at = 4 * me
  call MPI_File_write_at_all(fh, at, mine, 4, MPI_INTEGER, MPI_STATUS_IGNORE)
  call check(conversions_out == 4, 'the write conversion converted 4 INTEGERs')
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_sync(fh)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL)
  allocate(raw(4 * np))
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, raw, 4 * np, MPI_INTEGER, MPI_STATUS_IGNORE)
  do i = 1, 4 * np
    call check(raw(i) == ((i - 1) / 4) * 10 + mod(i - 1, 4) + 1 + shift, 'file bytes hold the converted INTEGERs')
  end do
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'gasket_f_plus', MPI_INFO_NULL)
  call MPI_File_read_at(fh, at, back, 4, MPI_INTEGER, MPI_STATUS_IGNORE)
  call check(all(back == mine) .and. conversions_in == 4, 'read through the representation: the values written')
  call MPI_File_close(fh)
end subroutine

! `use mpi`: MPI_CONVERSION_FN_NULL both ways keeps the bytes native; the extent function is Fortran's.
subroutine datarep_classic(path)
  use mpi
  character(len=*), intent(in) :: path
  integer :: fh, ierror, me, raw(2)
  external :: classic_extent
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierror)
  call MPI_REGISTER_DATAREP('gasket_f_same', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, classic_extent, &
                            7_MPI_ADDRESS_KIND, ierror)
  if (ierror /= MPI_SUCCESS) call MPI_ABORT(MPI_COMM_WORLD, 1, ierror)
  call MPI_FILE_OPEN(MPI_COMM_SELF, path, ior(MPI_MODE_CREATE, MPI_MODE_RDWR), MPI_INFO_NULL, fh, ierror)
  call MPI_FILE_SET_VIEW(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'gasket_f_same', MPI_INFO_NULL, ierror)
  call MPI_FILE_WRITE_AT(fh, 0_MPI_OFFSET_KIND, [me, -me], 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
  call MPI_FILE_SET_VIEW(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierror)
  call MPI_FILE_READ_AT(fh, 0_MPI_OFFSET_KIND, raw, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
  if (raw(1) /= me .or. raw(2) /= -me) then
    print *, 'callbacks_suite: FAILED: MPI_CONVERSION_FN_NULL changed the bytes', raw
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierror)
  end if
  call MPI_FILE_CLOSE(fh, ierror)
end subroutine

subroutine classic_extent(datatype, extent, extra_state, ierror)
  use mpi
  integer :: datatype, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
  ierror = MPI_SUCCESS
  extent = 4
  if (datatype /= MPI_INTEGER .or. extra_state /= 7) ierror = MPI_ERR_TYPE
end subroutine

subroutine info_env_f08()
  use callback_checks
  type(MPI_Info) :: info
  character(len=4096) :: command
  call MPI_Info_create_env(info)
  call get_command_argument(0, command)
  call check(info_value(info, 'command') == command, 'MPI_Info_create_env: command is argv(0)')
  call check(info_value(info, 'argv') == 'alpha beta', 'MPI_Info_create_env: argv is "alpha beta"')
  call MPI_Info_free(info)
end subroutine

subroutine info_env_classic()
  use mpi
  integer :: info, ierror, length
  character(len=64) :: value
  logical :: flag
  call MPI_INFO_CREATE_ENV(info, ierror)
  length = len(value)
  call MPI_INFO_GET_STRING(info, 'argv', length, value, flag, ierror)
  if (ierror /= MPI_SUCCESS .or. .not. flag .or. value /= 'alpha beta') then
    print *, 'callbacks_suite: FAILED: MPI_INFO_CREATE_ENV (use mpi): ', trim(value)
    call MPI_ABORT(MPI_COMM_WORLD, 1, ierror)
  end if
  call MPI_INFO_FREE(info, ierror)
end subroutine

program callbacks_suite
  use callback_checks
  character(len=4096) :: dir
  character(len=32) :: job
  integer :: length, status
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call grequests_f08()
  call grequest_classic()
  call get_environment_variable('TEST_TMPDIR', dir, length, status)
  if (status /= 0) dir = '/tmp'
  write (job, '(i0)') getpid_of_rank0()
  call datarep_f08(trim(dir)//'/callbacks_suite.plus.'//trim(job))
  write (job, '(i0,a,i0)') getpid_of_rank0(), '.', me
  call datarep_classic(trim(dir)//'/callbacks_suite.same.'//trim(job))
  call info_env_f08()
  call info_env_classic()
  call MPI_Barrier(MPI_COMM_WORLD)
  if (me == 0) print '(a,i0,a)', 'callbacks_suite: ', np, ' ranks: OK'
  call MPI_Finalize()
contains
  ! One number for the whole job (the file names of this run).
  integer function getpid_of_rank0()
    integer :: pid
    pid = getpid()
    call MPI_Bcast(pid, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
    getpid_of_rank0 = pid
  end function
end program
