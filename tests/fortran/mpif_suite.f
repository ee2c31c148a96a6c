! mpif.h (fixed form, no explicit interfaces) end to end: point-to-point of array sections,
! a user op and an error handler written in Fortran 77 style, an RMA window, a Cartesian
! topology. Every value is checked; the first wrong one aborts the job.
      PROGRAM MPIFSUITE
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      EXTERNAL ISUM3, ONERR, ONDEL
      INTEGER IERR, ME, NP, NEXT, PREV, I, J, OP, WIN, CART, EH
      INTEGER KEYVAL, VALUE, DUP
      INTEGER A(4, 5), B(5), STATUS(MPI_STATUS_SIZE), REQ
      INTEGER DIMS(2), COORDS(2), LO, HI, SEEN, LAST
      INTEGER(KIND=MPI_ADDRESS_KIND) WSIZE
      REAL X(3), XMAX(2, 1), PAIR(2, 1)
      DOUBLE PRECISION T0
      LOGICAL PERIODS(2), OK
      COMMON /ERRSEEN/ SEEN, LAST
      SEEN = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      NEXT = MOD(ME + 1, NP)
      PREV = MOD(ME + NP - 1, NP)
      T0 = MPI_WTIME()
      OK = T0 .GT. 0D0 .AND. MPI_WTICK() .GT. 0D0
      CALL CHECK(OK, 'MPI_WTIME', ME)
! a row of A (stride 4) sent, received into another row
      DO J = 1, 5
        DO I = 1, 4
          A(I, J) = ME * 100 + I * 10 + J
        END DO
      END DO
      CALL MPI_IRECV(B, 5, MPI_INTEGER, PREV, 1, MPI_COMM_WORLD, REQ,
     &               IERR)
      CALL MPI_SEND(A(2, 1:5), 5, MPI_INTEGER, NEXT, 1, MPI_COMM_WORLD,
     &              IERR)
      CALL MPI_WAIT(REQ, STATUS, IERR)
      DO J = 1, 5
        CALL CHECK(B(J) .EQ. PREV * 100 + 20 + J, 'row received', ME)
      END DO
      CALL CHECK(STATUS(MPI_SOURCE) .EQ. PREV, 'MPI_SOURCE', ME)
      CALL MPI_SENDRECV(B, 5, MPI_INTEGER, NEXT, 2, A(4, 1:5), 5,
     &     MPI_INTEGER, PREV, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE,
     &     IERR)
      CALL CHECK(A(4, 3) .EQ. MOD(PREV + NP - 1, NP) * 100 + 23,
     &           'row section written back', ME)
      CALL CHECK(A(3, 3) .EQ. ME * 100 + 33, 'other rows untouched', ME)
! a user op written in Fortran (sum of 3-vectors of integers) and MAXLOC on MPI_2REAL
      CALL MPI_OP_CREATE(ISUM3, .TRUE., OP, IERR)
      B(1) = ME
      B(2) = 1
      B(3) = 2 * ME
      CALL MPI_ALLREDUCE(B, A, 3, MPI_INTEGER, OP, MPI_COMM_WORLD, IERR)
      CALL CHECK(A(1, 1) .EQ. NP * (NP - 1) / 2 .AND. A(2, 1) .EQ. NP
     &     .AND. A(3, 1) .EQ. NP * (NP - 1), 'user op', ME)
      CALL MPI_OP_FREE(OP, IERR)
      PAIR(1, 1) = REAL(MOD(ME, 3))
      PAIR(2, 1) = REAL(ME)
      CALL MPI_ALLREDUCE(PAIR, XMAX, 1, MPI_2REAL, MPI_MAXLOC,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(XMAX(1, 1) .EQ. REAL(MIN(NP - 1, 2)) .AND.
     &     XMAX(2, 1) .EQ. REAL(MIN(NP - 1, 2)), 'MAXLOC on 2REAL', ME)
! RMA: every rank adds into rank 0's window
      X = 0
      WSIZE = 12
      CALL MPI_WIN_CREATE(X, WSIZE, 4, MPI_INFO_NULL, MPI_COMM_WORLD,
     &     WIN, IERR)
      CALL MPI_WIN_FENCE(0, WIN, IERR)
      CALL MPI_ACCUMULATE(REAL(ME + 1), 1, MPI_REAL, 0, 2_8, 1,
     &     MPI_REAL, MPI_SUM, WIN, IERR)
      CALL MPI_WIN_FENCE(0, WIN, IERR)
      IF (ME .EQ. 0) CALL CHECK(X(3) .EQ. REAL(NP * (NP + 1) / 2) .AND.
     &     X(1) .EQ. 0, 'accumulate into the window', ME)
      CALL MPI_WIN_FREE(WIN, IERR)
! a Cartesian topology
      DIMS(1) = 0
      DIMS(2) = 0
      CALL MPI_DIMS_CREATE(NP, 2, DIMS, IERR)
      PERIODS(1) = .TRUE.
      PERIODS(2) = .TRUE.
      CALL MPI_CART_CREATE(MPI_COMM_WORLD, 2, DIMS, PERIODS, .TRUE.,
     &     CART, IERR)
      CALL MPI_CART_COORDS(CART, ME, 2, COORDS, IERR)
      CALL MPI_CART_SHIFT(CART, 1, 1, LO, HI, IERR)
      CALL CHECK(HI .EQ. COORDS(1) * DIMS(2) + MOD(COORDS(2) + 1,
     &     DIMS(2)), 'MPI_CART_SHIFT', ME)
      CALL MPI_COMM_FREE(CART, IERR)
! an error handler written in Fortran
      CALL MPI_COMM_CREATE_ERRHANDLER(ONERR, EH, IERR)
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, EH, IERR)
      CALL MPI_SEND(B, 1, MPI_INTEGER, NP, 0, MPI_COMM_WORLD, IERR)
      CALL CHECK(SEEN .EQ. 1 .AND. LAST .EQ. IERR .AND. IERR .EQ.
     &     MPI_ERR_RANK, 'the error handler ran', ME)
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL,
     &     IERR)
      CALL MPI_ERRHANDLER_FREE(EH, IERR)
! the MPI-1 attribute calls: INTEGER values, MPI_DUP_FN, a delete
! function written in Fortran
      CALL MPI_ATTR_GET(MPI_COMM_WORLD, MPI_TAG_UB, VALUE, OK, IERR)
      CALL CHECK(OK .AND. VALUE .GE. 32767, 'MPI_TAG_UB', ME)
      CALL MPI_KEYVAL_CREATE(MPI_DUP_FN, ONDEL, KEYVAL, 5, IERR)
      CALL MPI_ATTR_PUT(MPI_COMM_WORLD, KEYVAL, 42, IERR)
      CALL MPI_COMM_DUP(MPI_COMM_WORLD, DUP, IERR)
      CALL MPI_ATTR_GET(DUP, KEYVAL, VALUE, OK, IERR)
      CALL CHECK(OK .AND. VALUE .EQ. 42, 'MPI_DUP_FN copied', ME)
      SEEN = 0
      CALL MPI_COMM_FREE(DUP, IERR)
      CALL CHECK(SEEN .EQ. 1 .AND. LAST .EQ. 47, 'the delete fn', ME)
      CALL MPI_ATTR_DELETE(MPI_COMM_WORLD, KEYVAL, IERR)
      CALL MPI_KEYVAL_FREE(KEYVAL, IERR)
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      IF (ME .EQ. 0) PRINT '(A,I0,A)', 'mpif_suite: ', NP, ' ranks OK'
      CALL MPI_FINALIZE(IERR)
      END

      SUBROUTINE CHECK(OK, WHAT, ME)
      LOGICAL OK
      CHARACTER*(*) WHAT
      INTEGER ME, IERR
      INCLUDE 'mpif.h'
      IF (.NOT. OK) THEN
        PRINT '(A,I0,2A)', 'mpif_suite: rank ', ME, ': FAILED: ', WHAT
        CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      END

      SUBROUTINE ISUM3(IN, INOUT, LEN, TYPE)
      INTEGER LEN, TYPE, I
      INTEGER IN(LEN), INOUT(LEN)
      DO I = 1, LEN
        INOUT(I) = INOUT(I) + IN(I)
      END DO
      END

      SUBROUTINE ONERR(COMM, CODE)
      INTEGER COMM, CODE, SEEN, LAST
      COMMON /ERRSEEN/ SEEN, LAST
      SEEN = SEEN + 1
      LAST = CODE
      END

! an MPI-1 attribute delete function: records value + extra_state
      SUBROUTINE ONDEL(COMM, KEYVAL, VALUE, EXTRA, IERR)
      INTEGER COMM, KEYVAL, VALUE, EXTRA, IERR, SEEN, LAST
      COMMON /ERRSEEN/ SEEN, LAST
      SEEN = SEEN + 1
      LAST = VALUE + EXTRA
      IERR = 0
      END
