! MPI ping-pong latency through the mpi_f08 binding (or, with --interface mpi, the `mpi` module's),
! measured as bench/mpi/pingpong.c measures the C one (half the round trip, median of 5
! repetitions, the same iteration counts), 0 B .. --max bytes (default 64 KiB), so the tables show
! what the Fortran binding adds. The binding's own cost is printed last: nanoseconds per MPI_Send
! of 8 bytes to MPI_PROC_NULL from the interface measured and from C (pingpong_f08_c.c) in this
! process. With BENCH_RESULTS=1 also prints RESULT lines for bench/compare: "mpi pingpong latency"
! (the C program's figure: the plan names this program's implementation gasket-f08/PATH or
! gasket-fmpi/PATH, so its column sits beside C's) and "<interface> send to MPI_PROC_NULL".
! Run on exactly 2 ranks:  mpiexec -n 2 pingpong_f08 [--max BYTES] [--interface mpi_f08|mpi]
program pingpong_f08
  use mpi_f08
  use, intrinsic :: iso_c_binding, only : c_double, c_int
  implicit none
  interface
    real(c_double) function c_proc_null_send_ns(buf, iters) bind(C)
      import :: c_double, c_int
      character(len=1), intent(in) :: buf(*)
      integer(c_int), value :: iters
    end function
  end interface
  integer :: rank, size, bytes, max_bytes, i
  character(len=32) :: arg
  character(len=8) :: results, binding
  character(len=1), allocatable :: buf(:)
  real(8) :: lat

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  max_bytes = 65536
  binding = 'mpi_f08'
  do i = 1, command_argument_count() - 1
    call get_command_argument(i, arg)
    if (arg == '--max') then
      call get_command_argument(i + 1, arg)
      read (arg, *) max_bytes
    else if (arg == '--interface') then
      call get_command_argument(i + 1, binding)
    end if
  end do
  if (binding /= 'mpi_f08' .and. binding /= 'mpi') then
    if (rank == 0) print '(3a)', 'pingpong_f08: --interface mpi_f08 or mpi (got ', trim(binding), ')'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if
  if (size /= 2) then
    if (rank == 0) print '(a,i0,a)', 'pingpong_f08: run on exactly 2 ranks (got ', size, ')'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if
  call get_environment_variable('BENCH_RESULTS', results)
  allocate(buf(max(max_bytes, 1)))
  buf = 'x'
  if (rank == 0) print '(a10,a15)', 'bytes', 'latency (us)'
  bytes = 0
  do while (bytes <= max_bytes)
    lat = latency(bytes)
    if (rank == 0) then
      print '(i10,f15.3)', bytes, lat
      if (results == '1') print '(a,a,i0,a,g0.6,a)', 'RESULT', achar(9) // 'mpi pingpong latency' // achar(9), &
        bytes, achar(9), lat, achar(9) // 'us'
    end if
    bytes = merge(1, 2 * bytes, bytes == 0)
  end do
  ! (after the ping-pong: a second of one rank's calls while the other waits would leave both
  ! ranks behind the machine's other processes in the scheduler's queue for the latency runs)
  if (rank == 0) then
    lat = proc_null_send_ns(200000)
    print '(3a,f8.1,a,f8.1,a)', '# MPI_Send to MPI_PROC_NULL: ', trim(binding), ' ', lat, ' ns, C ', &
      c_proc_null_send_ns(buf, 200000), ' ns per call'
    if (results == '1') print '(a,g0.6,a)', 'RESULT' // achar(9) // trim(binding) // ' send to MPI_PROC_NULL' // &
      achar(9) // '8' // achar(9), lat, achar(9) // 'ns'
  end if
  call MPI_Finalize()
contains
  real(8) function proc_null_send_ns(iters)
    integer, intent(in) :: iters
    integer :: rep, it
    real(8) :: t0
    proc_null_send_ns = 1d30
    do rep = 1, 5
      t0 = MPI_Wtime()
      if (binding == 'mpi') then
        call mpi_module_sends(buf, 8, MPI_PROC_NULL, iters)
      else
        do it = 1, iters
          call MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD)
        end do
      end if
      proc_null_send_ns = min(proc_null_send_ns, (MPI_Wtime() - t0) / iters * 1d9)
    end do
  end function

  real(8) function latency(n)
    integer, intent(in) :: n
    real(8) :: best(5), t0, swap
    integer :: iters, rep, it, j, k
    iters = 20000
    if (n > 1024) iters = max(20, min(20000, int(20000 * 1024d0 / n * 8)))
    do rep = 1, 5
      call MPI_Barrier(MPI_COMM_WORLD)
      t0 = MPI_Wtime()
      if (binding == 'mpi') then
        call mpi_module_round_trips(buf, n, 1 - rank, rank == 0, iters)
      else
        do it = 1, iters
          if (rank == 0) then
            call MPI_Send(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD)
            call MPI_Recv(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
          else
            call MPI_Recv(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
            call MPI_Send(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD)
          end if
        end do
      end if
      best(rep) = (MPI_Wtime() - t0) / iters / 2 * 1d6
    end do
    do j = 1, 5
      do k = j + 1, 5
        if (best(k) < best(j)) then
          swap = best(j); best(j) = best(k); best(k) = swap
        end if
      end do
    end do
    latency = best(3)
  end function
end program

! The same loops through the `mpi` module (its explicit interfaces, INTEGER handles).
subroutine mpi_module_round_trips(buf, n, peer, first, iters)
  use mpi
  implicit none
  character(len=1) :: buf(*)
  integer, intent(in) :: n, peer, iters
  logical, intent(in) :: first
  integer :: it, ierror
  do it = 1, iters
    if (first) then
      call MPI_Send(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, ierror)
      call MPI_Recv(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierror)
    else
      call MPI_Recv(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierror)
      call MPI_Send(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, ierror)
    end if
  end do
end subroutine

subroutine mpi_module_sends(buf, n, dest, iters)
  use mpi
  implicit none
  character(len=1) :: buf(*)
  integer, intent(in) :: n, dest, iters
  integer :: it, ierror
  do it = 1, iters
    call MPI_Send(buf, n, MPI_BYTE, dest, 1, MPI_COMM_WORLD, ierror)
  end do
end subroutine
