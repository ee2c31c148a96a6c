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
  call MPI_Barrier(MPI_COMM_WORLD)
  if (me == 0) print '(a,i0,a)', 'mixed_suite: ', np, ' ranks OK'
  call MPI_Finalize()
contains
  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'mixed_suite: rank ', me, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine
end program
