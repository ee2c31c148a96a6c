! `use mpi`: MPI_DISPLACEMENT_CURRENT passes as INTEGER(KIND=MPI_OFFSET_KIND); MPI_ALLOC_MEM's
! TYPE(C_PTR) form (and MPI_WIN_ALLOCATE's) next to the address-sized integer one; MPI_BUFFER_ATTACH
! takes any buffer; info strings follow the Fortran string rules; MPI_MPROBE / MPI_MRECV leave
! the status's MPI_ERROR alone; TYPE(MPI_Status) and MPI_STATUS_F2F08 / F082F.
program conversions_mpi
  use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer, c_associated
  use mpi
  implicit none
  integer :: me, np, ierr

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  call displacement_current()
  call memory_forms()
  call info_strings()
  call matched_probe_status()
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (me == 0) print '(a,i0,a)', 'conversions_mpi: ', np, ' ranks OK'
  call MPI_FINALIZE(ierr)
contains
  subroutine displacement_current()
    integer :: fh, etype, filetype, got(2 * np), i, length, status
    integer(kind=MPI_OFFSET_KIND) :: disp
    character(len=MPI_MAX_DATAREP_STRING) :: datarep
    character(len=4096) :: dir
    call get_environment_variable('TEST_TMPDIR', dir, length, status)
    if (status /= 0) dir = '/tmp'
    call MPI_FILE_OPEN(MPI_COMM_WORLD, trim(dir) // '/conversions_mpi.sequential', &
                       ior(MPI_MODE_CREATE, ior(MPI_MODE_WRONLY, MPI_MODE_SEQUENTIAL)), MPI_INFO_NULL, fh, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_FILE_OPEN MPI_MODE_SEQUENTIAL', ierr)
    call MPI_FILE_WRITE_ORDERED(fh, 100 + me, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_FILE_SET_VIEW(fh, MPI_DISPLACEMENT_CURRENT, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_FILE_SET_VIEW(MPI_DISPLACEMENT_CURRENT)', ierr)
    call MPI_FILE_GET_VIEW(fh, disp, etype, filetype, datarep, ierr)
    call expect(disp == 4_MPI_OFFSET_KIND * np, 'the view starts at the shared pointer', int(disp))
    call MPI_FILE_WRITE_ORDERED(fh, 200 + me, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_FILE_CLOSE(fh, ierr)
    call MPI_FILE_OPEN(MPI_COMM_WORLD, trim(dir) // '/conversions_mpi.sequential', MPI_MODE_RDONLY, &
                       MPI_INFO_NULL, fh, ierr)
    got = -1
    call MPI_FILE_READ_AT_ALL(fh, 0_MPI_OFFSET_KIND, got, 2 * np, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    do i = 1, np
      call expect(got(i) == 99 + i .and. got(np + i) == 199 + i, 'the file: both writes in rank order', got(i))
    end do
    call MPI_FILE_CLOSE(fh, ierr)
  end subroutine

  subroutine memory_forms()
    type(c_ptr) :: p
    integer(kind=MPI_ADDRESS_KIND) :: address
    integer, pointer :: a(:)
    integer :: win, nbytes
    character(len=1), allocatable :: attached(:)
    call MPI_ALLOC_MEM(64_MPI_ADDRESS_KIND, MPI_INFO_NULL, p, ierr)
    call expect(ierr == MPI_SUCCESS .and. c_associated(p), 'MPI_ALLOC_MEM into a TYPE(C_PTR)', ierr)
    call c_f_pointer(p, a, [16])
    a = 7
    call expect(sum(a) == 112, 'the memory is usable through C_F_POINTER', sum(a))
    call MPI_FREE_MEM(a, ierr)
    call MPI_ALLOC_MEM(64_MPI_ADDRESS_KIND, MPI_INFO_NULL, address, ierr)
    call expect(ierr == MPI_SUCCESS .and. address /= 0, 'MPI_ALLOC_MEM into an address-sized integer', ierr)
    call MPI_WIN_ALLOCATE(16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, p, win, ierr)
    call c_f_pointer(p, a, [4])
    a = me
    call MPI_WIN_FENCE(0, win, ierr)
    call MPI_PUT([me + 1000], 1, MPI_INTEGER, mod(me + 1, np), 2_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
    call MPI_WIN_FENCE(0, win, ierr)
    call expect(a(3) == mod(me + np - 1, np) + 1000 .and. a(1) == me, 'MPI_WIN_ALLOCATE''s TYPE(C_PTR) memory', a(3))
    call MPI_WIN_FREE(win, ierr)
    ! a choice buffer: CHARACTER here
    allocate(attached(MPI_BSEND_OVERHEAD + 64))
    call MPI_BUFFER_ATTACH(attached, size(attached), ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_BUFFER_ATTACH of a CHARACTER array', ierr)
    call MPI_BSEND(me, 1, MPI_INTEGER, 0, 3, MPI_COMM_SELF, ierr)
    call MPI_RECV(nbytes, 1, MPI_INTEGER, 0, 3, MPI_COMM_SELF, MPI_STATUS_IGNORE, ierr)
    call expect(nbytes == me, 'a buffered send through it', nbytes)
    call MPI_BUFFER_DETACH(address, nbytes, ierr)
    call expect(nbytes == MPI_BSEND_OVERHEAD + 64, 'MPI_BUFFER_DETACH gives its size back', nbytes)
  end subroutine

  subroutine info_strings()
    integer :: info, valuelen, buflen
    character(len=8) :: short
    character(len=40) :: long
    logical :: flag
    call MPI_INFO_CREATE(info, ierr)
    call MPI_INFO_SET(info, ' mode ', '  fast and safe   ', ierr)
    call MPI_INFO_GET_VALUELEN(info, 'mode', valuelen, flag, ierr)
    call expect(flag .and. valuelen == 13, 'MPI_INFO_GET_VALUELEN: the value without its blanks', valuelen)
    short = 'xxxxxxxx'
    call MPI_INFO_GET(info, 'mode ', 8, short, flag, ierr)
    call expect(flag .and. short == 'fast and', 'MPI_INFO_GET: truncated to valuelen', 0)
    buflen = len(long)
    call MPI_INFO_GET_STRING(info, '  mode', buflen, long, flag, ierr)
    call expect(flag .and. long == 'fast and safe' .and. buflen == 13, 'MPI_INFO_GET_STRING: value and length', buflen)
    buflen = 4
    short = 'xxxxxxxx'
    call MPI_INFO_GET_STRING(info, 'mode', buflen, short, flag, ierr)
    call expect(short == 'fast' .and. buflen == 13, 'MPI_INFO_GET_STRING: four characters, the whole length', buflen)
    long = 'unchanged'
    call MPI_INFO_GET(info, 'absent', 40, long, flag, ierr)
    call expect(.not. flag .and. long == 'unchanged', 'MPI_INFO_GET of an absent key leaves value', 0)
    call MPI_INFO_FREE(info, ierr)
  end subroutine

  subroutine matched_probe_status()
    integer :: st(MPI_STATUS_SIZE), back(MPI_STATUS_SIZE), msg, req, got
    type(MPI_Status) :: typed
    call MPI_ISEND(30 + me, 1, MPI_INTEGER, mod(me + 1, np), 4, MPI_COMM_WORLD, req, ierr)
    st(MPI_ERROR) = 99
    call MPI_MPROBE(mod(me + np - 1, np), 4, MPI_COMM_WORLD, msg, st, ierr)
    call expect(st(MPI_ERROR) == 99 .and. st(MPI_TAG) == 4, 'MPI_MPROBE leaves MPI_ERROR', st(MPI_ERROR))
    st(MPI_ERROR) = 98
    call MPI_MRECV(got, 1, MPI_INTEGER, msg, st, ierr)
    call expect(st(MPI_ERROR) == 98 .and. got == 30 + mod(me + np - 1, np), 'MPI_MRECV leaves MPI_ERROR', st(MPI_ERROR))
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    ! `mpi` has TYPE(MPI_Status) and the conversions to and from it
    call MPI_MPROBE(MPI_PROC_NULL, 4, MPI_COMM_WORLD, msg, st, ierr)
    call MPI_MRECV(got, 0, MPI_INTEGER, msg, st, ierr)
    call MPI_STATUS_F2F08(st, typed, ierr)
    call expect(ierr == MPI_SUCCESS .and. typed%MPI_SOURCE == MPI_PROC_NULL .and. typed%MPI_TAG == MPI_ANY_TAG, &
                'MPI_STATUS_F2F08', typed%MPI_SOURCE)
    call MPI_STATUS_F082F(typed, back, ierr)
    call expect(all(back == st), 'MPI_STATUS_F082F gives the same status back', back(MPI_SOURCE))
  end subroutine

  subroutine expect(ok, what, value)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer, intent(in) :: value
    if (.not. ok) then
      print '(a,i0,3a,i0)', 'conversions_mpi: rank ', me, ': FAILED: ', what, ': got ', value
      call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine
end program
