! mpif.h (fixed form): MPI_WAITANY, MPI_TESTANY, MPI_WAITSOME and MPI_TESTSOME give 1-based
! positions in the Fortran array of requests, MPI_UNDEFINED when none is active; the buffer at
! the position returned is the one received.
      PROGRAM REQPOS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, ME, NP, PEER, POS, NOUT, K, I
      INTEGER BUF(3), IDX(3), REQS(3), STAT(MPI_STATUS_SIZE)
      INTEGER STATS(MPI_STATUS_SIZE, 3)
      LOGICAL FLAG
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      PEER = IEOR(ME, 1)
      IF (PEER .GE. NP) PEER = ME
      DO I = 1, 3
        REQS(I) = MPI_REQUEST_NULL
        BUF(I) = -1
      END DO
! MPI_WAITANY: REQS(2) active between two null ones
      CALL MPI_IRECV(BUF(2), 1, MPI_INTEGER, PEER, 2, MPI_COMM_WORLD,
     &               REQS(2), IERR)
      CALL MPI_SEND(10 * PEER + 2, 1, MPI_INTEGER, PEER, 2,
     &              MPI_COMM_WORLD, IERR)
      CALL MPI_WAITANY(3, REQS, POS, STAT, IERR)
      CALL CHECK(POS .EQ. 2, 'MPI_WAITANY position', POS, ME)
      CALL CHECK(BUF(POS) .EQ. 10 * ME + 2, 'MPI_WAITANY BUF(POS)',
     &           BUF(POS), ME)
      CALL CHECK(STAT(MPI_TAG) .EQ. 2, 'MPI_WAITANY status', 0, ME)
      CALL MPI_WAITANY(3, REQS, POS, STAT, IERR)
      CALL CHECK(POS .EQ. MPI_UNDEFINED, 'MPI_WAITANY none active',
     &           POS, ME)
! MPI_TESTANY: REQS(3) active
      CALL MPI_IRECV(BUF(3), 1, MPI_INTEGER, PEER, 3, MPI_COMM_WORLD,
     &               REQS(3), IERR)
      CALL MPI_SEND(10 * PEER + 3, 1, MPI_INTEGER, PEER, 3,
     &              MPI_COMM_WORLD, IERR)
      FLAG = .FALSE.
   10 IF (.NOT. FLAG) THEN
        CALL MPI_TESTANY(3, REQS, POS, FLAG, STAT, IERR)
        GO TO 10
      END IF
      CALL CHECK(POS .EQ. 3, 'MPI_TESTANY position', POS, ME)
      CALL CHECK(BUF(POS) .EQ. 10 * ME + 3, 'MPI_TESTANY BUF(POS)',
     &           BUF(POS), ME)
      CALL MPI_TESTANY(3, REQS, POS, FLAG, STAT, IERR)
      CALL CHECK(FLAG .AND. POS .EQ. MPI_UNDEFINED,
     &           'MPI_TESTANY none active', POS, ME)
! MPI_WAITSOME: REQS(1) active; MPI_TESTSOME: REQS(3) active
      CALL MPI_IRECV(BUF(1), 1, MPI_INTEGER, PEER, 1, MPI_COMM_WORLD,
     &               REQS(1), IERR)
      CALL MPI_SEND(10 * PEER + 1, 1, MPI_INTEGER, PEER, 1,
     &              MPI_COMM_WORLD, IERR)
      CALL MPI_WAITSOME(3, REQS, NOUT, IDX, STATS, IERR)
      CALL CHECK(NOUT .EQ. 1, 'MPI_WAITSOME outcount', NOUT, ME)
      CALL CHECK(IDX(1) .EQ. 1, 'MPI_WAITSOME position', IDX(1), ME)
      CALL CHECK(BUF(IDX(1)) .EQ. 10 * ME + 1, 'MPI_WAITSOME BUF',
     &           BUF(IDX(1)), ME)
      CALL MPI_WAITSOME(3, REQS, NOUT, IDX, STATS, IERR)
      CALL CHECK(NOUT .EQ. MPI_UNDEFINED, 'MPI_WAITSOME none active',
     &           NOUT, ME)
      BUF(3) = -1
      CALL MPI_IRECV(BUF(3), 1, MPI_INTEGER, PEER, 3, MPI_COMM_WORLD,
     &               REQS(3), IERR)
      CALL MPI_SEND(10 * PEER + 3, 1, MPI_INTEGER, PEER, 3,
     &              MPI_COMM_WORLD, IERR)
      NOUT = 0
   20 IF (NOUT .EQ. 0) THEN
        CALL MPI_TESTSOME(3, REQS, NOUT, IDX, STATS, IERR)
        GO TO 20
      END IF
      CALL CHECK(NOUT .EQ. 1, 'MPI_TESTSOME outcount', NOUT, ME)
      CALL CHECK(IDX(1) .EQ. 3, 'MPI_TESTSOME position', IDX(1), ME)
      CALL CHECK(BUF(IDX(1)) .EQ. 10 * ME + 3, 'MPI_TESTSOME BUF',
     &           BUF(IDX(1)), ME)
      CALL MPI_TESTSOME(3, REQS, NOUT, IDX, STATS, IERR)
      CALL CHECK(NOUT .EQ. MPI_UNDEFINED, 'MPI_TESTSOME none active',
     &           NOUT, ME)
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      IF (ME .EQ. 0) PRINT '(A)', 'request_positions_mpif: OK'
      CALL MPI_FINALIZE(IERR)
      END

      SUBROUTINE CHECK(OK, WHAT, VALUE, ME)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      LOGICAL OK
      CHARACTER*(*) WHAT
      INTEGER VALUE, ME, IERR
      IF (.NOT. OK) THEN
        PRINT '(A,I0,3A,I0)', 'request_positions_mpif: rank ', ME,
     &        ': FAILED: ', WHAT, ': got ', VALUE
        CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      END
