! Every kind of Fortran callback, registered from each interface (the preprocessor picks it:
! interface.inc), called by the library, and given Fortran arguments as the standard writes them:
! handles (TYPE(MPI_x) or INTEGER), INTEGER error codes, keyvals, ADDRESS_KIND extra states and
! attribute values, LOGICAL flags, a status, the user op's len and datatype, a data
! representation's datatype, count, position and buffers -- two-argument error handlers, no
! varargs. Each callback records what it got; the caller compares it with what it passed.
#define PROGRAM_NAME 'callback_arguments'
#include "interface.inc"
module seen
  HEAD_USE
  implicit none
  HEAD_INCLUDE
  integer :: me = -1, np = 0, ierr
  ! the last arguments a callback got, and how often each kind was called
  integer :: calls = 0, got_code = 0, got_len = 0, got_keyval = 0, got_count = 0
  integer :: frees = 0, deletes = 0
  logical :: got_complete = .true.
  integer(kind=MPI_ADDRESS_KIND) :: got_extra = 0, got_value = 0
  integer(kind=MPI_OFFSET_KIND) :: got_position = -1
  integer :: got_handle = -1, got_type = -1  ! (VALUE_OF a handle: the object a callback was given)
  integer, parameter :: extra = 4242, shift = 1000
contains
#include "expect.inc"

#if defined(F08)
  subroutine add_checked(invec, inoutvec, len, datatype) bind(C)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
#else
  subroutine add_checked(a, b, len, datatype)
    integer :: len, datatype
    integer :: a(len), b(len)
#endif
    calls = calls + 1
    got_len = len
    got_type = VALUE_OF(datatype)
    b = a + b
  end subroutine

  ! what every error handler does: records the object and the code
  subroutine raised(handle, code)
    integer :: handle, code
    calls = calls + 1
    got_handle = handle
    got_code = code
  end subroutine

  subroutine on_comm_error(comm, code)
    HANDLE(MPI_Comm) :: comm
    integer :: code
    call raised(VALUE_OF(comm), code)
  end subroutine

  subroutine on_win_error(win, code)
    HANDLE(MPI_Win) :: win
    integer :: code
    call raised(VALUE_OF(win), code)
  end subroutine

  subroutine on_file_error(file, code)
    HANDLE(MPI_File) :: file
    integer :: code
    call raised(VALUE_OF(file), code)
  end subroutine

  subroutine on_session_error(session, code)
    HANDLE(MPI_Session) :: session
    integer :: code
    call raised(VALUE_OF(session), code)
  end subroutine

  subroutine copy_comm(old, keyval, extra_state, value_in, value_out, flag, ierror)
    HANDLE(MPI_Comm) :: old
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, value_in, value_out
    logical :: flag
    got_handle = VALUE_OF(old)
    call copied(keyval, extra_state, value_in, value_out, flag, ierror)
  end subroutine

  subroutine copy_type(old, keyval, extra_state, value_in, value_out, flag, ierror)
    HANDLE(MPI_Datatype) :: old
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, value_in, value_out
    logical :: flag
    got_handle = VALUE_OF(old)
    call copied(keyval, extra_state, value_in, value_out, flag, ierror)
  end subroutine

  subroutine copy_win(old, keyval, extra_state, value_in, value_out, flag, ierror)
    HANDLE(MPI_Win) :: old
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, value_in, value_out
    logical :: flag
    got_handle = VALUE_OF(old)
    call copied(keyval, extra_state, value_in, value_out, flag, ierror)
  end subroutine

  ! what every copy function does: records its arguments, copies value + 1
  subroutine copied(keyval, extra_state, value_in, value_out, flag, ierror)
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, value_in, value_out
    logical :: flag
    calls = calls + 1
    got_keyval = keyval
    got_extra = extra_state
    got_value = value_in
    value_out = value_in + 1
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine

  subroutine delete_comm(comm, keyval, value, extra_state, ierror)
    HANDLE(MPI_Comm) :: comm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: value, extra_state
    got_handle = VALUE_OF(comm)
    call deleted(keyval, value, extra_state, ierror)
  end subroutine

  subroutine delete_type(datatype, keyval, value, extra_state, ierror)
    HANDLE(MPI_Datatype) :: datatype
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: value, extra_state
    got_handle = VALUE_OF(datatype)
    call deleted(keyval, value, extra_state, ierror)
  end subroutine

  subroutine delete_win(win, keyval, value, extra_state, ierror)
    HANDLE(MPI_Win) :: win
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: value, extra_state
    got_handle = VALUE_OF(win)
    call deleted(keyval, value, extra_state, ierror)
  end subroutine

  subroutine deleted(keyval, value, extra_state, ierror)
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: value, extra_state
    deletes = deletes + 1
    got_keyval = keyval
    got_value = value
    got_extra = extra_state
    ierror = MPI_SUCCESS
  end subroutine

  subroutine query(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    STATUS :: status
    integer :: ierror
    calls = calls + 1
    got_extra = extra_state
    call MPI_STATUS_SET_SOURCE(status, int(extra_state) + 1, ierror)
    call MPI_STATUS_SET_TAG(status, 77, ierror)
    call MPI_STATUS_SET_ERROR(status, MPI_SUCCESS, ierror)
    call MPI_STATUS_SET_ELEMENTS(status, MPI_INTEGER, 6, ierror)
    call MPI_STATUS_SET_CANCELLED(status, .not. got_complete, ierror)
    ierror = MPI_SUCCESS
  end subroutine

  subroutine free_state(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    frees = frees + 1
    got_extra = extra_state
    ierror = MPI_SUCCESS
  end subroutine

  subroutine cancel_state(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    calls = calls + 1
    got_extra = extra_state
    got_complete = complete
    ierror = MPI_SUCCESS
  end subroutine

  ! A data representation storing each INTEGER plus extra_state.
#if defined(F08)
  subroutine plus_write(userbuf, datatype, count, filebuf, position, extra_state, ierror) bind(C)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
#else
  subroutine plus_write(u, datatype, count, f, position, extra_state, ierror)
    integer :: u(*), f(*), datatype, count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
#endif
    call converting(datatype, count, position, extra_state)
    f(1:count) = u(position + 1:position + count) + int(extra_state)
    ierror = MPI_SUCCESS
  end subroutine

#if defined(F08)
  subroutine plus_read(userbuf, datatype, count, filebuf, position, extra_state, ierror) bind(C)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
#else
  subroutine plus_read(u, datatype, count, f, position, extra_state, ierror)
    integer :: u(*), f(*), datatype, count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
#endif
    call converting(datatype, count, position, extra_state)
    u(position + 1:position + count) = f(1:count) - int(extra_state)
    ierror = MPI_SUCCESS
  end subroutine

#if defined(F08)
  ! The large-count form's conversions (MPI_Register_datarep_c): the count is MPI_COUNT_KIND.
  subroutine plus_write_c(userbuf, datatype, count, filebuf, position, extra_state, ierror) bind(C)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer :: ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    call converting(datatype, int(count), position, extra_state)
    f(1:count) = u(position + 1:position + count) + int(extra_state)
    ierror = MPI_SUCCESS
  end subroutine

  subroutine plus_read_c(userbuf, datatype, count, filebuf, position, extra_state, ierror) bind(C)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer :: ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    call converting(datatype, int(count), position, extra_state)
    u(position + 1:position + count) = f(1:count) - int(extra_state)
    ierror = MPI_SUCCESS
  end subroutine
#endif

  subroutine converting(datatype, count, position, extra_state)
    HANDLE(MPI_Datatype) :: datatype
    integer :: count
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    calls = calls + 1
    got_type = VALUE_OF(datatype)
    got_count = count
    got_position = position
    got_extra = extra_state
  end subroutine

  subroutine four_bytes(datatype, extent, extra_state, ierror)
    HANDLE(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror
    calls = calls + 1
    got_type = VALUE_OF(datatype)
    got_extra = extra_state
    extent = 4
    ierror = MPI_SUCCESS
  end subroutine
end module

program callback_arguments
  use seen
  implicit none
  integer :: provided
  call MPI_INIT_THREAD(MPI_THREAD_FUNNELED, provided, ierr)
  call expect(ierr == MPI_SUCCESS .and. provided >= MPI_THREAD_SINGLE .and. provided <= MPI_THREAD_MULTIPLE, &
              'MPI_INIT_THREAD', provided)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  call user_op()
  call comm_errors()
  call win_errors()
  call file_errors()
  call session_errors()
  call comm_attributes()
  call type_attributes()
  call win_attributes()
  call generalized_requests()
  call data_representations()
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  if (me == 0) print '(2a,i0,a)', LABEL, ': ', np, ' ranks OK'
  call MPI_FINALIZE(ierr)
contains

  subroutine user_op()
    HANDLE(MPI_Op) :: op
    integer :: a(3), b(3), total(3)
    call MPI_OP_CREATE(add_checked, .true., op, ierr)
    a = [1, me, -me]
    b = [10, 20, 30]
    calls = 0
    call MPI_REDUCE_LOCAL(a, b, 3, MPI_INTEGER, op, ierr)
    call expect(ierr == MPI_SUCCESS .and. calls >= 1, 'MPI_REDUCE_LOCAL calls the user op', calls)
    call expect(got_len == 3, 'the user op gets len = count', got_len)
    call expect(got_type == VALUE_OF(MPI_INTEGER), 'the user op gets datatype MPI_INTEGER', 0)
    call expect(all(b == [11, 20 + me, 30 - me]), 'the user op combined in into inout', b(2))
    call MPI_ALLREDUCE(a, total, 3, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
    call expect(all(total == [np, np * (np - 1) / 2, -np * (np - 1) / 2]), 'MPI_ALLREDUCE with the user op', total(2))
    call MPI_OP_FREE(op, ierr)
  end subroutine

  subroutine comm_errors()
    HANDLE(MPI_Comm) :: dup
    HANDLE(MPI_Errhandler) :: eh
    integer :: class, x
    call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
    call MPI_COMM_CREATE_ERRHANDLER(on_comm_error, eh, ierr)
    call MPI_COMM_SET_ERRHANDLER(dup, eh, ierr)
    calls = 0
    call MPI_COMM_CALL_ERRHANDLER(dup, MPI_ERR_OTHER, ierr)
    call expect(calls == 1 .and. got_handle == VALUE_OF(dup), 'the comm handler gets the communicator', calls)
    call expect(got_code == MPI_ERR_OTHER, 'the comm handler gets the code raised', got_code)
    ! an error the library detects: the handler gets the code the call returns
    call MPI_SEND(x, 1, MPI_INTEGER, np + 3, 0, dup, ierr)
    call MPI_ERROR_CLASS(ierr, class, x)
    call expect(calls == 2 .and. got_handle == VALUE_OF(dup) .and. got_code == ierr, &
                'the comm handler gets the call''s code', got_code)
    call expect(class == MPI_ERR_RANK, 'an invalid rank is MPI_ERR_RANK', class)
    call MPI_ERRHANDLER_FREE(eh, ierr)
    call MPI_COMM_FREE(dup, ierr)
  end subroutine

  subroutine win_errors()
    HANDLE(MPI_Win) :: win
    HANDLE(MPI_Errhandler) :: eh
    integer :: cells(4), class, x
    call MPI_WIN_CREATE(cells, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call MPI_WIN_CREATE_ERRHANDLER(on_win_error, eh, ierr)
    call MPI_WIN_SET_ERRHANDLER(win, eh, ierr)
    calls = 0
    call MPI_WIN_CALL_ERRHANDLER(win, MPI_ERR_OTHER, ierr)
    call expect(calls == 1 .and. got_handle == VALUE_OF(win) .and. got_code == MPI_ERR_OTHER, &
                'the window handler''s arguments', got_code)
    call MPI_WIN_FENCE(0, win, ierr)
    call MPI_PUT(x, 1, MPI_INTEGER, np + 3, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
    call MPI_ERROR_CLASS(ierr, class, x)
    call expect(calls == 2 .and. got_handle == VALUE_OF(win) .and. got_code == ierr, &
                'the window handler gets the call''s code', got_code)
    call expect(class == MPI_ERR_RANK, 'MPI_PUT to no rank is MPI_ERR_RANK', class)
    call MPI_WIN_FENCE(0, win, ierr)
    call MPI_ERRHANDLER_FREE(eh, ierr)
    call MPI_WIN_FREE(win, ierr)
  end subroutine

  subroutine file_errors()
    HANDLE(MPI_File) :: fh
    HANDLE(MPI_Errhandler) :: eh
    integer :: class, x
    call MPI_FILE_CREATE_ERRHANDLER(on_file_error, eh, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_FILE_CREATE_ERRHANDLER', ierr)
    call MPI_FILE_OPEN(MPI_COMM_SELF, scratch('err'), ior(MPI_MODE_CREATE, MPI_MODE_WRONLY), MPI_INFO_NULL, fh, ierr)
    call MPI_FILE_SET_ERRHANDLER(fh, eh, ierr)
    calls = 0
    call MPI_FILE_CALL_ERRHANDLER(fh, MPI_ERR_OTHER, ierr)
    call expect(calls == 1 .and. got_handle == VALUE_OF(fh) .and. got_code == MPI_ERR_OTHER, &
                'the file handler''s arguments', got_code)
    ! reading a file opened write-only: MPI_ERR_ACCESS, through the file's handler
    call MPI_FILE_READ(fh, x, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_ERROR_CLASS(ierr, class, x)
    call expect(calls == 2 .and. got_handle == VALUE_OF(fh) .and. got_code == ierr, &
                'the file handler gets the call''s code', got_code)
    call expect(class == MPI_ERR_ACCESS, 'reading a write-only file is MPI_ERR_ACCESS', class)
    call MPI_FILE_CLOSE(fh, ierr)
    call MPI_FILE_DELETE(scratch('err'), MPI_INFO_NULL, ierr)
    ! MPI_FILE_OPEN's errors go to MPI_FILE_NULL's handler, with MPI_FILE_NULL
    call MPI_FILE_SET_ERRHANDLER(MPI_FILE_NULL, eh, ierr)
    call MPI_FILE_OPEN(MPI_COMM_SELF, scratch('absent'), MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
    call MPI_ERROR_CLASS(ierr, class, x)
    call expect(calls == 3 .and. got_handle == VALUE_OF(MPI_FILE_NULL) .and. got_code == ierr, &
                'MPI_FILE_NULL''s handler', calls)
    call expect(class == MPI_ERR_NO_SUCH_FILE, 'opening an absent file is MPI_ERR_NO_SUCH_FILE', class)
    call MPI_FILE_SET_ERRHANDLER(MPI_FILE_NULL, MPI_ERRORS_RETURN, ierr)
    call MPI_ERRHANDLER_FREE(eh, ierr)
  end subroutine

  subroutine session_errors()
    HANDLE(MPI_Session) :: session
    HANDLE(MPI_Errhandler) :: eh
    integer :: length
    character(len=64) :: name
    call MPI_SESSION_CREATE_ERRHANDLER(on_session_error, eh, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_SESSION_CREATE_ERRHANDLER', ierr)
    call MPI_SESSION_INIT(MPI_INFO_NULL, eh, session, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_SESSION_INIT with a Fortran handler', ierr)
    calls = 0
    call MPI_SESSION_CALL_ERRHANDLER(session, MPI_ERR_OTHER, ierr)
    call expect(calls == 1 .and. got_handle == VALUE_OF(session), 'the session handler gets the session', calls)
    call expect(got_code == MPI_ERR_OTHER, 'the session handler gets the code raised', got_code)
    ! a process set that does not exist: the session's handler, with the code the call returns
    length = len(name)
    call MPI_SESSION_GET_NTH_PSET(session, MPI_INFO_NULL, 1000000, length, name, ierr)
    call expect(ierr /= MPI_SUCCESS .and. calls == 2 .and. got_code == ierr, &
                'the session handler gets the call''s code', ierr)
    call expect(got_handle == VALUE_OF(session), 'and the session', calls)
    call MPI_SESSION_FINALIZE(session, ierr)
    call MPI_ERRHANDLER_FREE(eh, ierr)
  end subroutine

  subroutine comm_attributes()
    HANDLE(MPI_Comm) :: dup, copy
    integer :: keyval
    integer(kind=MPI_ADDRESS_KIND) :: value
    logical :: flag
    call MPI_COMM_CREATE_KEYVAL(copy_comm, delete_comm, keyval, int(extra, MPI_ADDRESS_KIND), ierr)
    call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
    call MPI_COMM_SET_ATTR(dup, keyval, 100_MPI_ADDRESS_KIND + me, ierr)
    calls = 0
    call MPI_COMM_DUP(dup, copy, ierr)
    call expect(calls == 1 .and. got_handle == VALUE_OF(dup) .and. got_keyval == keyval, &
                'the comm copy function''s handle, keyval', calls)
    call expect(got_extra == extra .and. got_value == 100 + me, &
                'the comm copy function''s extra_state, value', int(got_value))
    call MPI_COMM_GET_ATTR(copy, keyval, value, flag, ierr)
    call expect(flag .and. value == 101 + me, 'the copy holds attribute_val_out', int(value))
    deletes = 0
    call MPI_COMM_FREE(copy, ierr)
    call expect(deletes == 1 .and. got_keyval == keyval, 'the comm delete function''s keyval', deletes)
    call expect(got_value == 101 + me .and. got_extra == extra, &
                'the comm delete function''s value, extra_state', int(got_value))
    call MPI_COMM_DELETE_ATTR(dup, keyval, ierr)
    call expect(deletes == 2 .and. got_handle == VALUE_OF(dup) .and. got_value == 100 + me, 'MPI_COMM_DELETE_ATTR', deletes)
    call MPI_COMM_FREE_KEYVAL(keyval, ierr)
    call MPI_COMM_FREE(dup, ierr)
  end subroutine

  subroutine type_attributes()
    HANDLE(MPI_Datatype) :: pair, copy
    integer :: keyval
    integer(kind=MPI_ADDRESS_KIND) :: value
    logical :: flag
    call MPI_TYPE_CREATE_KEYVAL(copy_type, delete_type, keyval, int(extra, MPI_ADDRESS_KIND), ierr)
    call MPI_TYPE_CONTIGUOUS(2, MPI_INTEGER, pair, ierr)
    call MPI_TYPE_SET_ATTR(pair, keyval, 7_MPI_ADDRESS_KIND, ierr)
    calls = 0
    call MPI_TYPE_DUP(pair, copy, ierr)
    call expect(calls == 1 .and. got_handle == VALUE_OF(pair) .and. got_keyval == keyval, &
                'the type copy function''s handle, keyval', calls)
    call expect(got_extra == extra .and. got_value == 7, 'the type copy function''s extra_state, value', int(got_value))
    call MPI_TYPE_GET_ATTR(copy, keyval, value, flag, ierr)
    call expect(flag .and. value == 8, 'the duplicate holds attribute_val_out', int(value))
    deletes = 0
    call MPI_TYPE_DELETE_ATTR(copy, keyval, ierr)
    call expect(deletes == 1 .and. got_handle == VALUE_OF(copy) .and. got_value == 8, &
                'the type delete function''s arguments', deletes)
    call expect(got_extra == extra .and. got_keyval == keyval, 'the type delete function''s extra_state', int(got_extra))
    call MPI_TYPE_FREE(copy, ierr)
    call MPI_TYPE_FREE(pair, ierr)
    call expect(deletes == 2 .and. got_value == 7, 'freeing the type deletes its attribute', deletes)
    call MPI_TYPE_FREE_KEYVAL(keyval, ierr)
  end subroutine

  subroutine win_attributes()
    HANDLE(MPI_Win) :: win
    integer :: keyval, cells(2)
    call MPI_WIN_CREATE_KEYVAL(copy_win, delete_win, keyval, int(extra, MPI_ADDRESS_KIND), ierr)
    call MPI_WIN_CREATE(cells, 8_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call MPI_WIN_SET_ATTR(win, keyval, -5_MPI_ADDRESS_KIND, ierr)
    deletes = 0
    call MPI_WIN_DELETE_ATTR(win, keyval, ierr)
    call expect(deletes == 1 .and. got_handle == VALUE_OF(win) .and. got_keyval == keyval, &
                'the window delete function''s handle', deletes)
    call expect(got_value == -5 .and. got_extra == extra, 'the window delete function''s value, extra_state', int(got_value))
    call MPI_WIN_SET_ATTR(win, keyval, 9_MPI_ADDRESS_KIND, ierr)
    call MPI_WIN_FREE(win, ierr)
    call expect(deletes == 2 .and. got_value == 9, 'freeing the window deletes its attribute', deletes)
    call MPI_WIN_FREE_KEYVAL(keyval, ierr)
  end subroutine

  subroutine generalized_requests()
    HANDLE(MPI_Request) :: request
    STATUS :: status
    integer :: n, source
    logical :: flag
    calls = 0
    frees = 0
    call MPI_GREQUEST_START(query, free_state, cancel_state, 30_MPI_ADDRESS_KIND + me, request, ierr)
    call MPI_TEST(request, flag, status, ierr)
    call expect(.not. flag .and. calls == 0, 'a generalized request waits for MPI_GREQUEST_COMPLETE', calls)
    call MPI_CANCEL(request, ierr)
    call expect(calls == 1 .and. .not. got_complete .and. got_extra == 30 + me, &
                'cancel_fn: complete false, extra_state', calls)
    call MPI_GREQUEST_COMPLETE(request, ierr)
    call MPI_WAIT(request, status, ierr)
    call expect(calls == 2 .and. frees == 1 .and. got_extra == 30 + me, 'query_fn and free_fn once, with extra_state', frees)
    call MPI_STATUS_GET_SOURCE(status, source, ierr)
    call expect(source == 31 + me .and. SOURCE_OF(status) == source .and. TAG_OF(status) == 77, &
                'the status query_fn set', source)
    call MPI_GET_COUNT(status, MPI_INTEGER, n, ierr)
    call expect(n == 6, 'the count query_fn set', n)
    call MPI_TEST_CANCELLED(status, flag, ierr)
    call expect(flag, 'query_fn marked the request cancelled', 0)
    ! one not cancelled: completed first, then tested
    got_complete = .true.
    call MPI_GREQUEST_START(query, free_state, cancel_state, 50_MPI_ADDRESS_KIND, request, ierr)
    call MPI_GREQUEST_COMPLETE(request, ierr)
    call MPI_TEST(request, flag, status, ierr)
    call expect(flag .and. request == MPI_REQUEST_NULL .and. frees == 2, 'MPI_TEST completes it, free_fn called', frees)
    call expect(calls == 3 .and. got_extra == 50 .and. SOURCE_OF(status) == 51, 'query_fn of the second request', calls)
    call MPI_TEST_CANCELLED(status, flag, ierr)
    call expect(.not. flag, 'not cancelled', 0)
  end subroutine

  ! Through a representation whose conversions are Fortran's: the file's bytes (read back as
  ! "native") hold the values plus extra_state, reading through it gives them back.
  subroutine data_representations()
    integer :: class, code
    call MPI_REGISTER_DATAREP('gasket_plus', plus_read, plus_write, four_bytes, int(shift, MPI_ADDRESS_KIND), ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_REGISTER_DATAREP', ierr)
    call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    call MPI_REGISTER_DATAREP('gasket_plus', plus_read, plus_write, four_bytes, 0_MPI_ADDRESS_KIND, code)
    call MPI_ERROR_CLASS(code, class, ierr)
    call expect(class == MPI_ERR_DUP_DATAREP, 'a second registration is MPI_ERR_DUP_DATAREP', class)
    call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
    call data_representation('gasket_plus')
#if defined(F08)
    call MPI_Register_datarep_c('gasket_plus_c', plus_read_c, plus_write_c, four_bytes, int(shift, MPI_ADDRESS_KIND), ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_Register_datarep_c', ierr)
    call data_representation('gasket_plus_c')
#endif
  end subroutine

  subroutine data_representation(datarep)
    character(len=*), intent(in) :: datarep
    HANDLE(MPI_File) :: fh
    integer :: mine(5), back(5), raw(5), i
    mine = [(100 * me + i, i = 1, 5)]
    call MPI_FILE_OPEN(MPI_COMM_SELF, scratch('datarep'), ior(MPI_MODE_CREATE, MPI_MODE_RDWR), MPI_INFO_NULL, fh, ierr)
    calls = 0
    call MPI_FILE_SET_VIEW(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, datarep, MPI_INFO_NULL, ierr)
    call expect(ierr == MPI_SUCCESS .and. calls >= 1, 'MPI_FILE_SET_VIEW asks the extent function', calls)
    call expect(got_type == VALUE_OF(MPI_INTEGER) .and. got_extra == shift, &
                'the extent function''s datatype, extra_state', int(got_extra))
    calls = 0
    call MPI_FILE_WRITE_AT(fh, 0_MPI_OFFSET_KIND, mine, 5, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call expect(ierr == MPI_SUCCESS .and. calls >= 1, 'the write conversion is called', calls)
    call expect(got_type == VALUE_OF(MPI_INTEGER) .and. got_extra == shift, &
                'the write conversion''s datatype, extra_state', calls)
    call expect(got_position + got_count == 5, 'the write conversion''s position and count end at 5', got_count)
    call MPI_FILE_SET_VIEW(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
    call MPI_FILE_READ_AT(fh, 0_MPI_OFFSET_KIND, raw, 5, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call expect(all(raw == mine + shift), 'the file holds the converted values', raw(1))
    call MPI_FILE_SET_VIEW(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, datarep, MPI_INFO_NULL, ierr)
    calls = 0
    call MPI_FILE_READ_AT(fh, 0_MPI_OFFSET_KIND, back, 5, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call expect(calls >= 1 .and. got_position + got_count == 5, 'the read conversion is called', calls)
    call expect(all(back == mine), 'read through the representation: the values written', back(1))
    call MPI_FILE_CLOSE(fh, ierr)
    call MPI_FILE_DELETE(scratch('datarep'), MPI_INFO_NULL, ierr)
  end subroutine

  ! A file of this rank's own in the test's scratch directory.
  character(len=512) function scratch(what)
    character(len=*), intent(in) :: what
    character(len=400) :: dir
    integer :: length, status
    call get_environment_variable('TEST_TMPDIR', dir, length, status)
    if (status /= 0) dir = '/tmp'
    write (scratch, '(5a,i0,a,i0)') trim(dir), '/', LABEL, '.', what, getpid(), '.', me
  end function
end program
