! The Fortran profiling interface (MPI 4.1 section 15.2 with 19.1.5): a tool written in Fortran
! defines MPI_SEND and MPI_ALLREDUCE, counts the calls and bytes, and reaches the library through
! PMPI_SEND / PMPI_ALLREDUCE; it is linked statically with a program that uses the `mpi` module.
! The program checks the tool saw exactly its calls and that the data still arrived.
module tool_counts
  integer :: sends = 0, send_bytes = 0, allreduces = 0
end module

subroutine MPI_SEND(buf, count, datatype, dest, tag, comm, ierror)
  use tool_counts
  implicit none
  integer :: buf(*), count, datatype, dest, tag, comm, ierror, size
  sends = sends + 1
  call PMPI_TYPE_SIZE(datatype, size, ierror)
  send_bytes = send_bytes + count * size
  call PMPI_SEND(buf, count, datatype, dest, tag, comm, ierror)
end subroutine

subroutine MPI_ALLREDUCE(sendbuf, recvbuf, count, datatype, op, comm, ierror)
  use tool_counts
  implicit none
  integer :: sendbuf(*), recvbuf(*), count, datatype, op, comm, ierror
  allreduces = allreduces + 1
  call PMPI_ALLREDUCE(sendbuf, recvbuf, count, datatype, op, comm, ierror)
end subroutine

program profiling_tool
  use mpi
  use tool_counts
  implicit none
  integer :: me, np, ierror, i, got(5), total
  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierror)
  if (me == 0) then
    do i = 1, np - 1
      call MPI_Send([(i * 10 + 1), (i * 10 + 2), 3, 4, 5], 5, MPI_INTEGER, i, 7, MPI_COMM_WORLD, ierror)
    end do
  else
    call MPI_Recv(got, 5, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierror)
    if (got(1) /= me * 10 + 1 .or. got(5) /= 5) call fail('the data through the tool')
  end if
  call MPI_Allreduce(1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
  if (total /= np) call fail('MPI_Allreduce through the tool')
  ! rank 0 made np-1 sends of 20 bytes; the library's internal sends are not seen
  if (me == 0 .and. (sends /= np - 1 .or. send_bytes /= 20 * (np - 1))) call fail('the tool counted rank 0''s sends')
  if (me /= 0 .and. sends /= 0) call fail('no sends on the other ranks')
  if (allreduces /= 1) call fail('one MPI_ALLREDUCE')
  call MPI_Barrier(MPI_COMM_WORLD, ierror)
  if (me == 0) print '(a,i0,a)', 'profiling_tool: ', np, ' ranks OK'
  call MPI_Finalize(ierror)
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a,i0,2a)', 'profiling_tool: rank ', me, ': FAILED: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, ierror)
  end subroutine
end program
