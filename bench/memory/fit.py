#!/usr/bin/env python3
"""Reads memory_probe's MEMORY lines and prints, per phase, the table (implementation x PEs x
figure, means per PE) and the per-peer slope of each figure: the least-squares line through the
points (PE count, figure) over the counts measured. KiB for memory, counts otherwise; -1 means the
runtime cannot tell (other implementations' registered memory and endpoints): printed as "-".
   fit.py MEMORY_FILE [--markdown]"""
import sys
from collections import defaultdict

FIGURES = ["rss", "pss", "private", "shm_files", "shm_mapped", "shm_rss", "sockets", "registered", "endpoints", "heap", "sym_heap"]


def parse(path):
    rows = defaultdict(dict)  # (impl, phase) -> {pes: {figure: value}}
    for line in open(path):
        if not line.startswith("MEMORY "):
            continue
        fields = dict(f.split("=", 1) for f in line.split()[1:])
        values = {k: float(v) for k, v in fields.items() if k not in ("impl", "phase")}
        rows[(fields["impl"], fields["phase"])][int(values["pes"])] = values
    return rows


def slope(points):
    """Least-squares slope of (x, y) points; None with fewer than two x values."""
    if len({x for x, _ in points}) < 2:
        return None
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    return sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)


def cell(v):
    return "-" if v is None or v < 0 else ("%.0f" % v if abs(v) >= 100 else "%.1f" % v)


def main():
    rows = parse(sys.argv[1])
    md = "--markdown" in sys.argv
    sep = " | " if md else "  "

    def row(cells):
        print(("| %s |" if md else "%s") % sep.join(cells))

    impls = []
    for impl, _ in rows:
        if impl not in impls:
            impls.append(impl)
    for phase in ("init", "alltoall"):
        print("\n## memory per PE after %s (means over PEs; KiB, counts)\n" % ("MPI_Init" if phase == "init" else "MPI_Init + MPI_Alltoall"))
        header = ["impl", "PEs"] + FIGURES
        row(header)
        if md:
            row(["---"] * len(header))
        for impl in impls:
            for pes, v in sorted(rows.get((impl, phase), {}).items()):
                row([impl, str(pes)] + [cell(v.get(f, -1)) for f in FIGURES])
        print("\n## per-peer slope after %s (least squares over the PE counts; KiB or count per added PE)\n" % phase)
        header = ["impl", "counts"] + FIGURES
        row(header)
        if md:
            row(["---"] * len(header))
        for impl in impls:
            points = rows.get((impl, phase), {})
            if not points:
                continue
            cells = []
            for f in FIGURES:
                pts = [(p, v.get(f, -1)) for p, v in points.items()]
                s = slope(pts) if all(y >= 0 for _, y in pts) else None
                cells.append("-" if s is None else "%.2f" % s)
            row([impl, ",".join(str(p) for p in sorted(points))] + cells)


if __name__ == "__main__":
    main()
