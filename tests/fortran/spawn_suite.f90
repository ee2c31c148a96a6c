! MPI_Comm_spawn and MPI_Comm_spawn_multiple from Fortran, through gasketrun: the program spawns
! copies of itself (CHARACTER arrays of arguments, blank-ended; MPI_ARGV_NULL, MPI_ARGVS_NULL,
! MPI_ERRCODES_IGNORE) from mpi_f08 and from `use mpi`; a missing program gives MPI_ERR_SPAWN.
! Every child reports [its argument count, MPI_APPNUM, its rank, 1 if its arguments were the expected ones] to the
! parents' rank 0, which checks every report. The first wrong value aborts the job.
module spawn_checks
  use mpi_f08
  implicit none
  integer :: me
  character(len=4096) :: self
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'spawn_suite: rank ', me, ': FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine

  character(len=64) function argument(i)
    integer, intent(in) :: i
    call get_command_argument(i, argument)
  end function

  ! A spawned copy: its arguments name what it was given.
  subroutine child(parent)
    type(MPI_Comm), intent(inout) :: parent
    integer :: report(4), appnum
    logical :: flag, ok
    integer(kind=MPI_ADDRESS_KIND) :: value
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, value, flag)
    appnum = -1
    if (flag) appnum = int(value)
    select case (command_argument_count())
    case (0)  ! MPI_ARGV_NULL / MPI_ARGVS_NULL
      ok = .true.
    case (2)  ! ['single', 'two words  ', ' ']: trailing blanks go, inner ones stay
      ok = argument(1) == 'single' .and. argument(2) == 'two words' .and. len_trim(argument(2)) == 9
    case (3)  ! ['multi', '<appnum>', 'x<appnum>']
      ok = argument(1) == 'multi' .and. argument(2) == achar(iachar('0') + appnum) .and. &
           argument(3) == 'x'//achar(iachar('0') + appnum)
    case default
      ok = .false.
    end select
    call MPI_Comm_rank(MPI_COMM_WORLD, report(3))
    report(1) = command_argument_count()
    report(2) = appnum
    report(4) = merge(1, 0, ok)
    call MPI_Send(report, 4, MPI_INTEGER, 0, 5, parent)
    call MPI_Comm_disconnect(parent)
  end subroutine

  ! The parents' rank 0 receives one report from each of `children` children and checks it
  ! against what each was given: arguments(rank + 1), appnums(rank + 1).
  subroutine collect(inter, arguments, appnums, what)
    type(MPI_Comm), intent(inout) :: inter
    integer, intent(in) :: arguments(:), appnums(:)
    character(len=*), intent(in) :: what
    integer :: report(4), remote, i
    type(MPI_Status) :: status
    call MPI_Comm_remote_size(inter, remote)
    call check(remote == size(arguments), what//': the number of children')
    if (me == 0) then
      do i = 1, remote
        call MPI_Recv(report, 4, MPI_INTEGER, MPI_ANY_SOURCE, 5, inter, status)
        call check(report(3) == status%MPI_SOURCE, what//': the report names its sender')
        call check(report(1) == arguments(report(3) + 1), what//': the child''s argument count')
        call check(report(2) == appnums(report(3) + 1), what//': the child''s MPI_APPNUM')
        call check(report(4) == 1, what//': the child''s arguments')
      end do
    end if
    call MPI_Comm_disconnect(inter)
  end subroutine

  subroutine spawn_f08()
    type(MPI_Comm) :: inter
    character(len=12) :: args(3)
    integer :: codes(2), ierror
    args = [character(len=12) :: 'single', 'two words  ', ' ']
    codes = -1
    call MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, codes, ierror)
    call check(ierror == MPI_SUCCESS, 'MPI_Comm_spawn (f08)')
    if (me == 0) call check(all(codes == MPI_SUCCESS), 'MPI_Comm_spawn (f08): every errcode MPI_SUCCESS')
    call collect(inter, [2, 2], [0, 0], 'MPI_Comm_spawn (f08)')
    ! MPI_ARGVS_NULL: children without arguments, one per command
    call MPI_Comm_spawn_multiple(2, [character(len=4096) :: self, self], MPI_ARGVS_NULL, [1, 1], &
                                 [MPI_INFO_NULL, MPI_INFO_NULL], 0, MPI_COMM_WORLD, inter, MPI_ERRCODES_IGNORE)
    call collect(inter, [0, 0], [0, 1], 'MPI_Comm_spawn_multiple with MPI_ARGVS_NULL (f08)')
    ! a program that does not exist (its name blank-padded): MPI_ERR_SPAWN returned and in every errcode
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
    codes = MPI_SUCCESS
    call MPI_Comm_spawn('/nonexistent/gasket-no-such-program   ', MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, &
                        MPI_COMM_WORLD, inter, codes, ierror)
    call MPI_Error_class(ierror, ierror)
    call check(ierror == MPI_ERR_SPAWN .and. inter == MPI_COMM_NULL, 'a missing program: MPI_ERR_SPAWN (f08)')
    if (me == 0) call check(all(codes == MPI_ERR_SPAWN), 'a missing program: every errcode MPI_ERR_SPAWN')
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
  end subroutine
end module

! `use mpi`: MPI_ARGV_NULL with MPI_ERRCODES_IGNORE, and spawn_multiple with a (count, *) argv array.
subroutine spawn_classic()
  use mpi
  use spawn_checks, only : self, check, me, collect
  use mpi_f08, only : MPI_Comm
  integer :: inter, ierror, codes(3)
  character(len=8) :: argvs(2, 4)
  character(len=4096) :: commands(2)
  integer :: infos(2)
  call MPI_COMM_SPAWN(self, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, MPI_ERRCODES_IGNORE, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_COMM_SPAWN with MPI_ARGV_NULL (use mpi)')
  call collect_classic(inter, [0], [0], 'MPI_COMM_SPAWN with MPI_ARGV_NULL (use mpi)')
  ! command 1: ['multi', '0', 'x0', ' '] on 1 process, command 2: ['multi', '1', 'x1', ' '] on 2
  argvs(:, 1) = 'multi'
  argvs(:, 2) = ['0', '1']
  argvs(:, 3) = ['x0', 'x1']
  argvs(:, 4) = ' '
  commands = self
  infos = MPI_INFO_NULL
  codes = -1
  call MPI_COMM_SPAWN_MULTIPLE(2, commands, argvs, [1, 2], infos, 0, MPI_COMM_WORLD, inter, codes, ierror)
  call check(ierror == MPI_SUCCESS, 'MPI_COMM_SPAWN_MULTIPLE (use mpi)')
  if (me == 0) call check(all(codes == MPI_SUCCESS), 'MPI_COMM_SPAWN_MULTIPLE: every errcode MPI_SUCCESS')
  call collect_classic(inter, [3, 3, 3], [0, 1, 1], 'MPI_COMM_SPAWN_MULTIPLE (use mpi)')
contains
  ! the same checks as mpi_f08's: an mpi_f08 handle is the INTEGER handle in a type
  subroutine collect_classic(inter, arguments, appnums, what)
    integer, intent(in) :: inter
    integer, intent(in) :: arguments(:), appnums(:)
    character(len=*), intent(in) :: what
    type(MPI_Comm) :: f08_inter
    f08_inter%MPI_VAL = inter
    call collect(f08_inter, arguments, appnums, what)
  end subroutine
end subroutine

program spawn_suite
  use spawn_checks
  type(MPI_Comm) :: parent
  integer :: np
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call get_command_argument(0, self)
  call MPI_Comm_get_parent(parent)
  if (parent /= MPI_COMM_NULL) then
    call child(parent)
  else
    call spawn_f08()
    call spawn_classic()
    call MPI_Barrier(MPI_COMM_WORLD)
    if (me == 0) print '(a,i0,a)', 'spawn_suite: ', np, ' parents: OK'
  end if
  call MPI_Finalize()
end program
