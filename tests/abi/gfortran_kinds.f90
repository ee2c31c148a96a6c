! gfortran's own answers, printed as a C header (gfortran_kinds.h) for fortran_info.c: the sizes
! in bytes of default INTEGER, REAL, DOUBLE PRECISION and LOGICAL, whether each optional type of
! MPI (INTEGERn, REALn, COMPLEXn, LOGICALn: n bytes) has a kind, and the bytes of .TRUE. and
! .FALSE. of every LOGICAL kind.
program gfortran_kinds
  use, intrinsic :: iso_fortran_env, only: integer_kinds, real_kinds, logical_kinds, int8
  implicit none
  integer, parameter :: bytes(5) = [1, 2, 4, 8, 16]
  integer :: i

  print '(a, i0)', '#define GFORTRAN_INTEGER_SIZE ', storage_size(0) / 8
  print '(a, i0)', '#define GFORTRAN_REAL_SIZE ', storage_size(0.0) / 8
  print '(a, i0)', '#define GFORTRAN_DOUBLE_PRECISION_SIZE ', storage_size(0.0d0) / 8
  print '(a, i0)', '#define GFORTRAN_LOGICAL_SIZE ', storage_size(.true.) / 8
  print '(a)', 'static const struct { const char* key; int supported; } kGfortranOptional[] = {'
  do i = 1, size(bytes)
    call optional('logical', bytes(i), any(logical_kinds == bytes(i)))
    call optional('integer', bytes(i), any(integer_kinds == bytes(i)))
  end do
  do i = 2, size(bytes)
    call optional('real', bytes(i), any(real_kinds == bytes(i)))
  end do
  do i = 3, size(bytes)  ! COMPLEXn: two REAL(n/2)
    call optional('complex', bytes(i), any(real_kinds == bytes(i) / 2))
  end do
  call optional('complex', 32, any(real_kinds == 16))
  print '(a)', '};'
  print '(a)', 'static const struct { int size; unsigned char true_bytes[16], false_bytes[16]; } kGfortranLogicals[] = {'
  call logical_values(1, transfer(.true._1, [0_int8]), transfer(.false._1, [0_int8]))
  call logical_values(2, transfer(.true._2, [0_int8]), transfer(.false._2, [0_int8]))
  call logical_values(4, transfer(.true._4, [0_int8]), transfer(.false._4, [0_int8]))
  call logical_values(8, transfer(.true._8, [0_int8]), transfer(.false._8, [0_int8]))
  call logical_values(16, transfer(.true._16, [0_int8]), transfer(.false._16, [0_int8]))
  print '(a)', '};'

contains

  subroutine optional(type, n, supported)
    character(*), intent(in) :: type
    integer, intent(in) :: n
    logical, intent(in) :: supported
    print '(a, a, i0, a, i0, a)', '    {"mpi_', type, n, '_supported", ', merge(1, 0, supported), '},'
  end subroutine

  subroutine logical_values(n, t, f)
    integer, intent(in) :: n
    integer(int8), intent(in) :: t(:), f(:)
    print '(a, i0, a, *(i0, :, ", "))', '    {', n, ', {', iand(int(t), 255)
    print '(a, *(i0, :, ", "))', '     }, {', iand(int(f), 255)
    print '(a)', '     }},'
  end subroutine

end program
