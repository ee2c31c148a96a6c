! The procedures whose Fortran binding adapts predefined callbacks or the command line: a data
! representation registered with MPI_CONVERSION_FN_NULL (`use mpi`: the bytes stay native, the
! extent function is Fortran's) and MPI_Info_create_env (mpi_f08 and `use mpi`). Run with the
! arguments `alpha beta`. Every value is checked; the first wrong one aborts the job. (Conversions
! and generalized requests written in Fortran: callback_arguments.F90, in all three interfaces.)
module callback_checks
  use mpi_f08
  implicit none
  integer :: me, np
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'callbacks_suite: rank ', me, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
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
  call get_environment_variable('TEST_TMPDIR', dir, length, status)
  if (status /= 0) dir = '/tmp'
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
