! MPI ping-pong latency through the mpi_f08 binding, measured as bench/mpi/pingpong.c measures the
! C one (half the round trip, median of 5 repetitions, the same iteration counts), 0 B .. --max
! bytes (default 64 KiB), so the two tables show what the Fortran binding adds. The binding's own
! cost is printed first: nanoseconds per MPI_Send of 8 bytes to MPI_PROC_NULL from Fortran and
! from C (pingpong_f08_c.c) in this process. With BENCH_RESULTS=1 also prints RESULT lines for
! bench/compare: "mpi pingpong latency" (the C program's figure: the plan names this program's
! implementation gasket-f08/PATH, so its column sits beside C's) and "mpi_f08 send to MPI_PROC_NULL".
! Run on exactly 2 ranks:  mpiexec -n 2 pingpong_f08 [--max BYTES]
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
  character(len=8) :: results
  character(len=1), allocatable :: buf(:)
  real(8) :: lat

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  max_bytes = 65536
  do i = 1, command_argument_count() - 1
    call get_command_argument(i, arg)
    if (arg == '--max') then
      call get_command_argument(i + 1, arg)
      read (arg, *) max_bytes
    end if
  end do
  if (size /= 2) then
    if (rank == 0) print '(a,i0,a)', 'pingpong_f08: run on exactly 2 ranks (got ', size, ')'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if
  call get_environment_variable('BENCH_RESULTS', results)
  allocate(buf(max(max_bytes, 1)))
  buf = 'x'
  if (rank == 0) then
    lat = f08_proc_null_send_ns(200000)
    print '(a,f8.1,a,f8.1,a)', '# MPI_Send to MPI_PROC_NULL: mpi_f08 ', lat, ' ns, C ', &
      c_proc_null_send_ns(buf, 200000), ' ns per call'
    if (results == '1') print '(a,g0.6,a)', 'RESULT' // achar(9) // 'mpi_f08 send to MPI_PROC_NULL' // achar(9) // &
      '8' // achar(9), lat, achar(9) // 'ns'
  end if
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
  call MPI_Finalize()
contains
  real(8) function f08_proc_null_send_ns(iters)
    integer, intent(in) :: iters
    integer :: rep, it
    real(8) :: t0
    f08_proc_null_send_ns = 1d30
    do rep = 1, 5
      t0 = MPI_Wtime()
      do it = 1, iters
        call MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD)
      end do
      f08_proc_null_send_ns = min(f08_proc_null_send_ns, (MPI_Wtime() - t0) / iters * 1d9)
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
      do it = 1, iters
        if (rank == 0) then
          call MPI_Send(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD)
          call MPI_Recv(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        else
          call MPI_Recv(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
          call MPI_Send(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD)
        end if
      end do
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
