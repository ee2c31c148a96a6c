! C and Fortran in one program: mpi_f08 handles pass to C as integers (MPI_VAL) and come back from
! MPI_*_c2f; Fortran's constants equal mpi.h's (the generated values cannot drift); a Fortran
! status converts to C's.
program mixed_suite
  use, intrinsic :: iso_c_binding, only : c_int
  use mpi_f08
  implicit none
  interface
    integer(c_int) function c_check_constants(values, n) bind(C)
      import :: c_int
      integer(c_int), intent(in) :: values(*)
      integer(c_int), value :: n
    end function
    integer(c_int) function c_make_handles(comm, dup, datatype, status) bind(C)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int) :: dup, datatype, status(*)
    end function
    integer(c_int) function c_attribute_points_to(comm, keyval, expected) bind(C)
      import :: c_int, MPI_ADDRESS_KIND
      integer(c_int), value :: comm, keyval
      integer(kind=MPI_ADDRESS_KIND), value :: expected
    end function
    integer(kind=MPI_ADDRESS_KIND) function c_attribute_set_pointer(comm, keyval) bind(C)
      import :: c_int, MPI_ADDRESS_KIND
      integer(c_int), value :: comm, keyval
    end function
  end interface
  integer :: me, np, values(23), f_dup, f_type, f_status(MPI_STATUS_SIZE), got(4), n_sub, name_len
  type(MPI_Comm) :: dup
  type(MPI_Datatype) :: pair
  type(MPI_Status) :: st
  character(len=MPI_MAX_OBJECT_NAME) :: name

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  values = [MPI_COMM_WORLD%MPI_VAL, MPI_COMM_SELF%MPI_VAL, MPI_COMM_NULL%MPI_VAL, MPI_INTEGER%MPI_VAL, &
            MPI_REAL%MPI_VAL, MPI_DOUBLE_PRECISION%MPI_VAL, MPI_LOGICAL%MPI_VAL, MPI_2REAL%MPI_VAL, &
            MPI_INTEGER8%MPI_VAL, MPI_SUM%MPI_VAL, MPI_MAXLOC%MPI_VAL, MPI_ERRORS_RETURN%MPI_VAL, &
            MPI_INFO_NULL%MPI_VAL, MPI_REQUEST_NULL%MPI_VAL, MPI_GROUP_EMPTY%MPI_VAL, MPI_ANY_SOURCE, &
            MPI_ANY_TAG, MPI_PROC_NULL, MPI_UNDEFINED, MPI_ERR_TRUNCATE, MPI_STATUS_SIZE, MPI_TAG_UB, &
            MPI_MAX_OBJECT_NAME]
  call expect(c_check_constants(values, size(values)) == 0, 'Fortran constants equal C''s')

  call MPI_Sendrecv([me, me + 1], 2, MPI_INTEGER, mod(me + 1, np), 9, got, 4, MPI_INTEGER, &
                    mod(me + np - 1, np), 9, MPI_COMM_WORLD, st)
  call MPI_Status_f082f(st, f_status)
  call expect(f_status(MPI_TAG) == 9 .and. f_status(MPI_SOURCE) == mod(me + np - 1, np), 'MPI_Status_f082f')
  call expect(c_make_handles(MPI_COMM_WORLD%MPI_VAL, f_dup, f_type, f_status) == 0, 'the C side')
  dup%MPI_VAL = f_dup
  pair%MPI_VAL = f_type
  call MPI_Comm_get_name(dup, name, name_len)
  call expect(name == 'made in C', 'a communicator made in C, named in C, read in Fortran')
  call MPI_Comm_size(dup, n_sub)
  call expect(n_sub == np, 'its size')
  got = -1
  call MPI_Sendrecv([10 * me, 10 * me + 1], 1, pair, mod(me + 1, np), 1, got, 1, pair, &
                    mod(me + np - 1, np), 1, dup, st)
  call expect(got(1) == 10 * mod(me + np - 1, np) .and. got(2) == got(1) + 1 .and. got(3) == -1, &
              'a datatype made in C used from Fortran')
  call MPI_Type_free(pair)
  call MPI_Comm_free(dup)
  call attributes_across_languages()
  call MPI_Barrier(MPI_COMM_WORLD)
  if (me == 0) print '(a,i0,a)', 'mixed_suite: ', np, ' ranks OK'
  call MPI_Finalize()
contains
  ! MPI 4.1 section 19.3.7: Fortran's values read in C as pointers to them, C's pointers read in
  ! Fortran as addresses, MPI_ATTR_PUT's INTEGER sign-extended; a Fortran copy callback's value too
  subroutine attributes_across_languages()
    integer :: keyval, ierr, old_value
    integer(kind=MPI_ADDRESS_KIND) :: value, address
    logical :: flag
    type(MPI_Comm) :: comm, copy
    call MPI_Comm_dup(MPI_COMM_WORLD, comm)
    call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval, 0_MPI_ADDRESS_KIND)
    call MPI_Comm_set_attr(comm, keyval, 1234567890123_MPI_ADDRESS_KIND + me)
    call expect(c_attribute_points_to(comm%MPI_VAL, keyval, 1234567890123_MPI_ADDRESS_KIND + me) == 0, &
                'MPI_COMM_SET_ATTR from Fortran: C gets a pointer to the value')
    call MPI_Comm_get_attr(comm, keyval, value, flag)
    call expect(flag .and. value == 1234567890123_MPI_ADDRESS_KIND + me, 'and Fortran the value')
    call MPI_Comm_dup(comm, copy)
    call expect(c_attribute_points_to(copy%MPI_VAL, keyval, 1234567890123_MPI_ADDRESS_KIND + me) == 0, &
                'MPI_COMM_DUP_FN copied it: C gets a pointer to the value on the copy')
    call MPI_Comm_free(copy)
    ! the deprecated INTEGER forms (mpif.h's and mpi's; called here without an interface)
    call MPI_ATTR_PUT(comm%MPI_VAL, keyval, -7 - me, ierr)
    call expect(ierr == MPI_SUCCESS, 'MPI_ATTR_PUT')
    call expect(c_attribute_points_to(comm%MPI_VAL, keyval, int(-7 - me, MPI_ADDRESS_KIND)) == 0, &
                'MPI_ATTR_PUT from Fortran: C gets a pointer to the value sign-extended')
    call MPI_ATTR_GET(comm%MPI_VAL, keyval, old_value, flag, ierr)
    call expect(flag .and. old_value == -7 - me, 'MPI_ATTR_GET gets the INTEGER back')
    call MPI_Comm_get_attr(comm, keyval, value, flag)
    call expect(flag .and. value == -7 - me, 'MPI_COMM_GET_ATTR gets it sign-extended')
    address = c_attribute_set_pointer(comm%MPI_VAL, keyval)
    call expect(address /= 0, 'C set a pointer')
    call MPI_Comm_get_attr(comm, keyval, value, flag)
    call expect(flag .and. value == address, 'a pointer set in C reads in Fortran as its address')
    call MPI_Comm_free(comm)
    call MPI_Comm_free_keyval(keyval)
  end subroutine

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'mixed_suite: rank ', me, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine
end program
