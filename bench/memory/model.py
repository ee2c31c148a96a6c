#!/usr/bin/env python3
"""Memory per PE as a job grows, from the sizes of the structures the code allocates per peer
(README.md, "The model", names each one and where it lives), checked against bench/memory's
measured slopes and extrapolated to 1,000 and 10,000 PEs on nodes of 16 PEs.
   model.py [MEMORY_FILE]      (MEMORY_FILE: run.sh's output, for the check against measurement)"""
import sys

KiB, MiB, GiB = 1024, 1024 ** 2, 1024 ** 3

# Defaults of the knobs involved (core/config/knobs.def).
AM_SLOTS, AM_SLOT_BYTES, AM_GET_BOUNCE, AM_ZONES = 32, 256, 64 * KiB, 4
MEMREG_BOUNCE = 64 * KiB
MPI_SHM_EAGER_LIMIT, MPI_SHM_SLOTS, MPI_RNDV_BOUNCE, MPI_RNDV_ZONES = 32 * KiB, 16, 256 * KiB, 4
MPI_HEADER, MPI_RTS_BODY = 24, 48  # sizeof(mpi::p2p::Header), sizeof(RtsBody) (mpi/p2p/wire.h)


def round_up(x, to):
    return (x + to - 1) // to * to


# Per peer, in this PE's own shared-memory files (sparse: resident only where written).
INTERNAL_PER_PEER = 64 + AM_SLOTS * AM_SLOT_BYTES                      # MailboxLayout: credit line, ring
INTERNAL_ZONES = 2 * AM_ZONES * AM_GET_BOUNCE                           # the pools of get and scatter zones (per PE)
INTERNAL_PER_PEER_BEFORE = INTERNAL_PER_PEER + 2 * AM_GET_BOUNCE        # was: a get and a scatter zone per PE of the job
BOUNCE_PER_PEER = 256 + 4 * MEMREG_BOUNCE                               # memreg::UserMemory channel: header + 4 stages
FILES_PER_PEER = INTERNAL_PER_PEER + BOUNCE_PER_PEER
FILES_PER_PEER_BEFORE = INTERNAL_PER_PEER_BEFORE + BOUNCE_PER_PEER
# MPI's symmetric-heap blocks (mpi/p2p/engine.cc): a ring per PE of the node; the rendezvous
# bounce zones, a pool of MPI_RNDV_ZONES (at most the other PEs) shared by all senders; a pid slot
# per PE of the job.
MPI_MAX_PACKET = round_up(MPI_HEADER + MPI_RTS_BODY + MPI_SHM_EAGER_LIMIT, 64)
MPI_RING = 64 + MPI_SHM_SLOTS * MPI_MAX_PACKET                          # credit line + ring (ShmRings::region_bytes)
MPI_PID = 4


def mpi_heap(n, node, before):
    """MPI's symmetric heap per PE (bytes): rings (4 KiB pages), zones, pid table (64 B lines)."""
    rings = round_up(MPI_RING * (n if before else node), 4096)
    zones = (n if before else max(1, min(MPI_RNDV_ZONES, n - 1))) * MPI_RNDV_BOUNCE  # before: one per PE of the job
    return rings + zones + round_up(n * MPI_PID, 64)
# Tables indexed by PE in private memory: paths, node map, segment peer bases, mailbox counters,
# MPI peer tables, ucx peers and keys, the bootstrap's cached records. Now: the largest heap slope
# after MPI_Init of the single-node paths (ucx-shm, 2..32 PEs; malloc's exact count), since the
# peers' file records and names, the doorbell addresses and the same-host UCX endpoints made at
# init are gone. Before: pciddc-tcp-nodes' private slope after init (2..64 PEs).
TABLES_PER_PEER = 0.72 * KiB
TABLES_PER_PEER_BEFORE = 2.5 * KiB


def per_pe(n, node, before, ucx, contacted, endpoint_cost):
    """Bytes per PE: (virtual files, MPI heap, resident)."""
    files = n * FILES_PER_PEER_BEFORE if before else n * FILES_PER_PEER + INTERNAL_ZONES
    heap = mpi_heap(n, node, before)
    if before:  # rings and zones for every PE of the job, all zeroed where the heap keeps its pages (ucx)
        resident = heap if ucx else 0
    else:  # rings for the node's PEs only, not written to clear them (the heap's calloc leaves
        # memory no block has covered alone); the pool's zones untouched until a rendezvous lands
        resident = 0
    resident += n * (TABLES_PER_PEER_BEFORE if before else TABLES_PER_PEER) + contacted * endpoint_cost
    return files, heap, resident


def fmt(b):
    return "%.1f GiB" % (b / GiB) if b >= GiB else "%.1f MiB" % (b / MiB) if b >= MiB else "%.1f KiB" % (b / KiB)


def measured_slopes(path):
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    import fit
    rows = fit.parse(path)
    out = {}
    for (impl, phase), pts in rows.items():
        for f in ("registered", "shm_rss", "private", "endpoints", "sym_heap", "heap"):
            p = [(n, v.get(f, -1)) for n, v in pts.items()]
            if len(p) > 1 and all(y >= 0 for _, y in p):
                out[(impl, phase, f)] = fit.slope(p)
    return out, rows


def model_heap_slope(rows, impl, before):
    """The least-squares slope (KiB per PE) of mpi_heap over the PE counts `impl` was measured at:
    the same fit as the measured one (the pool's zones, 1..4, grow below 5 PEs)."""
    import fit
    node_of = (lambda n: min(n, 2)) if impl.endswith("-nodes") else (lambda n: n)
    counts = sorted(rows.get((impl, "init"), {}))
    return fit.slope([(n, mpi_heap(n, node_of(n), before) / KiB) for n in counts]) if len(counts) > 1 else None


def main():
    print("structure sizes per peer: core files %s (internal %s, was %s with a get and a scatter zone per peer, now "
          "%d of each per PE; + memreg bounce %s); MPI ring %s per node PE, rendezvous zones %d x %s per PE (was one "
          "per peer), pid %d B per peer; tables %s (was %s)"
          % (fmt(FILES_PER_PEER), fmt(INTERNAL_PER_PEER), fmt(INTERNAL_PER_PEER_BEFORE), AM_ZONES,
             fmt(BOUNCE_PER_PEER), fmt(MPI_RING), MPI_RNDV_ZONES, fmt(MPI_RNDV_BOUNCE), MPI_PID,
             fmt(TABLES_PER_PEER), fmt(TABLES_PER_PEER_BEFORE)))
    endpoint_cost = 0.0
    if len(sys.argv) > 1:
        m, rows = measured_slopes(sys.argv[1])
        print("\ncheck against %s (KiB per added PE: model / measured)" % sys.argv[1])
        checks = [
            ("registered (core files, any backend path)", FILES_PER_PEER, ("pciddc-tcp", "init", "registered")),
            # every PE on one node: a ring per PE, in heap memory no block covered before, not written
            ("ucx-tcp, shm resident after init: none", 0, ("ucx-tcp", "init", "shm_rss")),
            ("ucx-tcp-nodes, shm resident after init: none", 0, ("ucx-tcp-nodes", "init", "shm_rss")),
        ]
        # the tables indexed by PE: malloc's bytes after init (at most the model's figure)
        for impl in ("local", "pciddc-shm", "pciddc-tcp", "ucx-shm", "ucx-tcp"):
            checks.append(("%s, heap after init (tables, at most)" % impl, TABLES_PER_PEER, (impl, "init", "heap")))
        # MPI's symmetric heap (the rest of the heap in use does not change with the PE count)
        for impl in ("local", "ucx-tcp-nodes"):
            checks.append(("%s, MPI symmetric heap after init" % impl, (model_heap_slope(rows, impl, False) or 0) * KiB,
                           (impl, "init", "sym_heap")))
        for label, model, key in checks:
            got = m.get(key)
            print("  %-52s %8.2f / %s" % (label, model / KiB, "-" if got is None else "%.2f" % got))
        a, i = m.get(("ucx-tcp-nodes", "alltoall", "private")), m.get(("ucx-tcp-nodes", "init", "private"))
        if a is not None and i is not None:
            endpoint_cost = max(0.0, (a - i)) * KiB
            print("  ucx endpoint (tcp) per contacted peer, measured: %.2f KiB" % (endpoint_cost / KiB))
    node = 16
    print("\nper PE on nodes of %d PEs (virtual file size / MPI heap taken / resident; ucx path)" % node)
    print("%-8s %-40s %-40s" % ("PEs", "before: eager per-peer state", "now, nobody contacted | everybody contacted"))
    for n in (64, 1000, 10000):
        fb, hb, rb = per_pe(n, node, True, True, n - node, endpoint_cost)
        fa, ha, ra = per_pe(n, node, False, True, 0, endpoint_cost)
        _, _, rc = per_pe(n, node, False, True, n - node, endpoint_cost)
        print("%-8d %-40s %-40s" % (n, "%s / %s / %s" % (fmt(fb), fmt(hb), fmt(rb)),
                                    "%s / %s / %s | %s" % (fmt(fa), fmt(ha), fmt(ra), fmt(rc))))


if __name__ == "__main__":
    main()
