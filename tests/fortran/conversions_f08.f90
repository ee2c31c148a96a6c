! mpi_f08: the bindings' conversions as the standard spells them. MPI_DISPLACEMENT_CURRENT is an
! INTEGER(KIND=MPI_OFFSET_KIND) (a view set with it starts at the shared file pointer); info keys
! and values lose leading and trailing blanks, MPI_INFO_GET / _GET_STRING / _GET_VALUELEN follow
! the Fortran string rules (blank padding, truncation, lengths without a terminator, values left
! unchanged when the key is absent); MPI_MPROBE / MPI_IMPROBE / MPI_MRECV leave the status's
! MPI_ERROR alone; name-service errors go to MPI_COMM_SELF's error handler, as in C.
program conversions_f08
  use mpi_f08
  implicit none
  integer :: me, np, self_errors = 0, self_last = 0
  type(MPI_Errhandler) :: count_self

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call displacement_current()
  call info_strings()
  call matched_probe_status()
  call name_service()
  call MPI_Barrier(MPI_COMM_WORLD)
  if (me == 0) print '(a,i0,a)', 'conversions_f08: ', np, ' ranks OK'
  call MPI_Finalize()
contains
  subroutine displacement_current()
    type(MPI_File) :: fh
    integer(kind=MPI_OFFSET_KIND) :: disp
    type(MPI_Datatype) :: etype, filetype
    character(len=MPI_MAX_DATAREP_STRING) :: datarep
    character(len=4096) :: dir
    integer :: length, status, got(2 * np), i, ierror
    call get_environment_variable('TEST_TMPDIR', dir, length, status)
    if (status /= 0) dir = '/tmp'
    call MPI_File_open(MPI_COMM_WORLD, trim(dir) // '/conversions_f08.sequential', &
                       ior(MPI_MODE_CREATE, ior(MPI_MODE_WRONLY, MPI_MODE_SEQUENTIAL)), MPI_INFO_NULL, fh, ierror)
    call expect(ierror == MPI_SUCCESS, 'MPI_File_open MPI_MODE_SEQUENTIAL', ierror)
    call MPI_File_write_ordered(fh, [100 + me], 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
    call expect(ierror == MPI_SUCCESS, 'MPI_File_write_ordered', ierror)
    ! the view starts where the shared pointer is: after np integers
    call MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierror)
    call expect(ierror == MPI_SUCCESS, 'MPI_File_set_view(MPI_DISPLACEMENT_CURRENT)', ierror)
    call MPI_File_get_view(fh, disp, etype, filetype, datarep)
    call expect(disp == 4_MPI_OFFSET_KIND * np, 'MPI_DISPLACEMENT_CURRENT: the view at the shared pointer', int(disp))
    call MPI_File_write_ordered(fh, [200 + me], 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
    call expect(ierror == MPI_SUCCESS, 'MPI_File_write_ordered in the new view', ierror)
    call MPI_File_close(fh)
    call MPI_File_open(MPI_COMM_WORLD, trim(dir) // '/conversions_f08.sequential', MPI_MODE_RDONLY, &
                       MPI_INFO_NULL, fh, ierror)
    got = -1
    call MPI_File_read_at_all(fh, 0_MPI_OFFSET_KIND, got, 2 * np, MPI_INTEGER, MPI_STATUS_IGNORE, ierror)
    call expect(ierror == MPI_SUCCESS, 'MPI_File_read_at_all', ierror)
    do i = 1, np
      call expect(got(i) == 99 + i .and. got(np + i) == 199 + i, 'the file: both writes in rank order', got(i))
    end do
    call MPI_File_close(fh)
  end subroutine

  subroutine info_strings()
    type(MPI_Info) :: info
    character(len=8) :: short
    character(len=40) :: long
    integer :: valuelen, buflen, nkeys
    logical :: flag
    call MPI_Info_create(info)
    call MPI_Info_set(info, '  gasket_key  ', '  a b c  ')  ! stored as 'gasket_key' = 'a b c'
    call MPI_Info_get_nkeys(info, nkeys)
    call MPI_Info_get_nthkey(info, 0, long)
    call expect(nkeys == 1 .and. long == 'gasket_key', 'MPI_Info_set strips the key''s blanks', nkeys)
    call MPI_Info_get_valuelen(info, 'gasket_key   ', valuelen, flag)
    call expect(flag .and. valuelen == 5, 'MPI_Info_get_valuelen: value without its blanks', valuelen)
    long = 'unchanged'
    call MPI_Info_get(info, 'gasket_key', 40, long, flag)
    call expect(flag .and. long == 'a b c' .and. long(6:) == ' ', 'MPI_Info_get: the value, blank-padded', 0)
    short = 'xxxxxxxx'
    call MPI_Info_get(info, 'gasket_key', 3, short, flag)
    call expect(flag .and. short == 'a b', 'MPI_Info_get truncates to valuelen characters', 0)
    long = 'unchanged'
    call MPI_Info_get(info, 'no_such_key', 40, long, flag)
    call expect(.not. flag .and. long == 'unchanged', 'MPI_Info_get of an absent key leaves value', 0)
    long = 'zzz'
    buflen = 40
    call MPI_Info_get_string(info, 'gasket_key', buflen, long, flag)
    call expect(flag .and. long == 'a b c', 'MPI_Info_get_string: the value, blank-padded', 0)
    call expect(buflen == 5, 'MPI_Info_get_string: buflen is the length without a terminator', buflen)
    short = 'xxxxxxxx'
    buflen = 4
    call MPI_Info_get_string(info, 'gasket_key', buflen, short, flag)
    call expect(flag .and. short == 'a b', 'MPI_Info_get_string truncates to buflen characters', 0)
    call expect(buflen == 5, 'MPI_Info_get_string: buflen the whole length when truncated', buflen)
    short = 'kept'
    buflen = 0
    call MPI_Info_get_string(info, 'gasket_key', buflen, short, flag)
    call expect(flag .and. buflen == 5 .and. short == 'kept', 'MPI_Info_get_string with buflen 0: length only', buflen)
    long = 'unchanged'
    buflen = 40
    call MPI_Info_get_string(info, 'no_such_key', buflen, long, flag)
    call expect(.not. flag .and. long == 'unchanged', 'MPI_Info_get_string of an absent key leaves value', 0)
    call MPI_Info_delete(info, ' gasket_key')
    call MPI_Info_get_nkeys(info, nkeys)
    call expect(nkeys == 0, 'MPI_Info_delete strips the key''s blanks', nkeys)
    call MPI_Info_free(info)
  end subroutine

  subroutine matched_probe_status()
    type(MPI_Status) :: st
    type(MPI_Message) :: msg
    type(MPI_Request) :: req
    integer :: got, prev, next
    logical :: flag
    next = mod(me + 1, np)
    prev = mod(me + np - 1, np)
    call MPI_Isend(10 + me, 1, MPI_INTEGER, next, 5, MPI_COMM_WORLD, req)
    st%MPI_ERROR = 4711
    call MPI_Mprobe(prev, 5, MPI_COMM_WORLD, msg, st)
    call expect(st%MPI_ERROR == 4711 .and. st%MPI_SOURCE == prev, 'MPI_Mprobe leaves MPI_ERROR', st%MPI_ERROR)
    st%MPI_ERROR = 4712
    call MPI_Mrecv(got, 1, MPI_INTEGER, msg, st)
    call expect(st%MPI_ERROR == 4712 .and. got == 10 + prev, 'MPI_Mrecv leaves MPI_ERROR', st%MPI_ERROR)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call MPI_Isend(20 + me, 1, MPI_INTEGER, next, 6, MPI_COMM_WORLD, req)
    flag = .false.
    st%MPI_ERROR = 4713
    do while (.not. flag)
      call MPI_Improbe(prev, 6, MPI_COMM_WORLD, flag, msg, st)
    end do
    call expect(st%MPI_ERROR == 4713 .and. st%MPI_TAG == 6, 'MPI_Improbe leaves MPI_ERROR', st%MPI_ERROR)
    call MPI_Mrecv(got, 1, MPI_INTEGER, msg, MPI_STATUS_IGNORE)
    call expect(got == 20 + prev, 'MPI_Improbe + MPI_Mrecv data', got)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
  end subroutine

  subroutine on_self_error(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    call expect(comm == MPI_COMM_SELF, 'the name-service error raised on MPI_COMM_SELF', comm%MPI_VAL)
    self_errors = self_errors + 1
    self_last = code
  end subroutine

  subroutine name_service()
    character(len=MPI_MAX_PORT_NAME) :: port, found
    character(len=32) :: service
    integer :: ierror, class
    write (service, '(a,i0)') 'gasket-conversions-f08-', me
    call MPI_Comm_create_errhandler(on_self_error, count_self)
    call MPI_Comm_set_errhandler(MPI_COMM_SELF, count_self)
    call MPI_Open_port(MPI_INFO_NULL, port)
    call MPI_Publish_name(service, MPI_INFO_NULL, port)
    found = ''
    call MPI_Lookup_name(service, MPI_INFO_NULL, found, ierror)
    call expect(ierror == MPI_SUCCESS .and. found == port, 'MPI_Lookup_name finds the port published', ierror)
    call MPI_Unpublish_name(service, MPI_INFO_NULL, port)
    call MPI_Lookup_name(service, MPI_INFO_NULL, found, ierror)
    call MPI_Error_class(ierror, class)
    call expect(class == MPI_ERR_NAME, 'MPI_Lookup_name of an unpublished name: MPI_ERR_NAME', class)
    call expect(self_errors == 1 .and. self_last == ierror, 'MPI_COMM_SELF''s handler called with the code', &
                self_errors)
    call MPI_Unpublish_name(service, MPI_INFO_NULL, port, ierror)
    call MPI_Error_class(ierror, class)
    call expect(class == MPI_ERR_SERVICE .and. self_errors == 2, 'MPI_Unpublish_name of an unknown name', class)
    call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)
    call MPI_Lookup_name(service, MPI_INFO_NULL, found, ierror)
    call MPI_Error_class(ierror, class)
    call expect(class == MPI_ERR_NAME .and. self_errors == 2, 'MPI_ERRORS_RETURN on MPI_COMM_SELF: the code', class)
    call MPI_Close_port(port)
    call MPI_Errhandler_free(count_self)
    call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL)
  end subroutine

  subroutine expect(ok, what, value)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer, intent(in) :: value
    if (.not. ok) then
      print '(a,i0,3a,i0)', 'conversions_f08: rank ', me, ': FAILED: ', what, ': got ', value
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine
end program
