! The halo-exchange example in Fortran (mpi_f08): 2-D heat diffusion on an nx x ny plate, split
! into blocks of rows over a 1-D process grid (MPI_Cart_create). Each step a rank swaps its first
! and last rows with its neighbours: a row of a column-major array is a strided section, passed
! as it is (u(1, :)) and moved through a derived datatype by the binding. At the end every rank
! checks its block against the same computation done serially, and MPI_Allreduce sums the heat.
!   mpiexec -n 4 halo_stencil_f [nx] [ny] [steps]
program halo_stencil_f
  use mpi_f08
  implicit none
  integer :: nx = 240, ny = 64, steps = 100
  integer :: me, np, up, down, first, rows, i, step
  real(8), allocatable :: u(:, :), next(:, :), whole(:, :)
  real(8) :: heat, total, err
  type(MPI_Comm) :: line
  character(len=32) :: arg

  call MPI_Init()
  if (command_argument_count() >= 3) then
    call get_command_argument(1, arg); read (arg, *) nx
    call get_command_argument(2, arg); read (arg, *) ny
    call get_command_argument(3, arg); read (arg, *) steps
  end if
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call MPI_Cart_create(MPI_COMM_WORLD, 1, [np], [.false.], .true., line)
  call MPI_Comm_rank(line, me)
  call MPI_Cart_shift(line, 0, 1, up, down)  ! MPI_PROC_NULL beyond the plate's edges

  ! rows first..first+rows-1 of the plate, plus a halo row above (0) and below (rows+1)
  rows = nx / np + merge(1, 0, me < mod(nx, np))
  first = me * (nx / np) + min(me, mod(nx, np)) + 1
  allocate(u(0:rows + 1, 0:ny + 1), next(0:rows + 1, 0:ny + 1))
  u = 0
  do i = 1, rows
    u(i, 1:ny) = initial(first + i - 1)
  end do
  next = u

  do step = 1, steps
    ! my first row goes up, the row below me arrives into the bottom halo; then the other way
    call MPI_Sendrecv(u(1, 1:ny), ny, MPI_DOUBLE_PRECISION, up, 1, &
                      u(rows + 1, 1:ny), ny, MPI_DOUBLE_PRECISION, down, 1, line, MPI_STATUS_IGNORE)
    call MPI_Sendrecv(u(rows, 1:ny), ny, MPI_DOUBLE_PRECISION, down, 2, &
                      u(0, 1:ny), ny, MPI_DOUBLE_PRECISION, up, 2, line, MPI_STATUS_IGNORE)
    next(1:rows, 1:ny) = u(1:rows, 1:ny) + 0.2d0 * (u(0:rows - 1, 1:ny) + u(2:rows + 1, 1:ny) + &
                         u(1:rows, 0:ny - 1) + u(1:rows, 2:ny + 1) - 4 * u(1:rows, 1:ny))
    u(1:rows, 1:ny) = next(1:rows, 1:ny)
  end do

  heat = sum(u(1:rows, 1:ny))
  call MPI_Allreduce(heat, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, line)

  ! the same steps on the whole plate, in one process
  allocate(whole(0:nx + 1, 0:ny + 1))
  whole = 0
  do i = 1, nx
    whole(i, 1:ny) = initial(i)
  end do
  do step = 1, steps
    whole(1:nx, 1:ny) = whole(1:nx, 1:ny) + 0.2d0 * (whole(0:nx - 1, 1:ny) + whole(2:nx + 1, 1:ny) + &
                        whole(1:nx, 0:ny - 1) + whole(1:nx, 2:ny + 1) - 4 * whole(1:nx, 1:ny))
  end do
  err = maxval(abs(u(1:rows, 1:ny) - whole(first:first + rows - 1, 1:ny)))
  if (err > 1d-9 .or. abs(total - sum(whole(1:nx, 1:ny))) > 1d-6 * abs(total)) then
    print '(a,i0,a,es10.3,a,2es14.6)', 'halo_stencil_f: rank ', me, ': WRONG: max error ', err, &
      ', heat ', total, sum(whole(1:nx, 1:ny))
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  if (me == 0) print '(a,i0,a,i0,a,i0,a,i0,a,f12.4,a)', 'halo_stencil_f: ', nx, ' x ', ny, ' plate, ', &
    steps, ' steps on ', np, ' ranks: heat ', total, ', matches the serial run'
  call MPI_Comm_free(line)
  call MPI_Finalize()
contains
  ! a hot band across the middle third of the rows
  elemental real(8) function initial(row)
    integer, intent(in) :: row
    initial = merge(100d0, 0d0, row > nx / 3 .and. row <= 2 * nx / 3)
  end function
end program
