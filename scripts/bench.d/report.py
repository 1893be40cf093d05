#!/usr/bin/env python3
"""Summarise a scripts/bench run: medians, ratios, targets (PASS/MISS) and checks (ok/FAIL).

usage: report.py RESULTS.tsv META.env [--strict]

RESULTS.tsv has one line per timed run:
  phase  tool  rep  seconds  rows  rss_kb  bytes  changed  skipped  files  cpu_s  [server_cpu_s]
phase: xml | json | unchanged | unchanged-cold | force | rss | steady | day-first | live-N | startup | idle (SQLite);
pg | pg_unchanged (PostgreSQL, with the server's CPU). xml and json: tools feedline, python, limit,
limit-1txn and the floors, parse-floor and write-floor (seconds and cpu_s: the phase each floor program
times itself). startup: one line per `feedline --version` / `feedline query "select 1"` run (tool
version | query); idle: `feedline schedule` with nothing due (seconds = time measured, cpu = CPU in it);
live-N (N pages): tool live (`feedline run --live` from a loopback server; server_cpu_s = the page
server's CPU time during that run) or feedline (replay of that run's archive).
META.env holds KEY=VALUE lines written by scripts/bench (sizes, machine, check outcomes; the write
floor's time per table, floor_tables_PHASE_REP = TABLE=ROWS:SECONDS,…).
Exit status: 0, or 1 when a check failed (or, with --strict, a target was missed).
"""
import statistics
import sys

TARGETS = {
    "xml_vs_limit": 1.5,      # feedline rows/s ≥ 1.5 × the native limit's in one transaction (XML, wall)
    "xml_vs_limit_cpu": 1.0,  # feedline rows per CPU-second ≥ the one-transaction limit's (XML)
    "xml_vs_python": 3.0,     # feedline rows/s ≥ 3 × the Python peer's (XML)
    "json_vs_python": 4.0,    # feedline rows/s ≥ 4 × the Python peer's (JSON, wall)
    "json_vs_python_cpu": 2.0,  # feedline rows per CPU-second ≥ 2 × the Python peer's (JSON)
    "rss_mb_30d": 40.0,       # peak RSS (MiB) on a 30-day archive
    "working_set_mb": 20.0,   # the load's working set: peak RSS − `feedline --version`'s peak (MiB)
    "rss_growth": 1.05,       # flatness: 30-day RSS ≤ 1.05 × the 7-day (main XML runs) RSS
    "startup_ms": 30.0,       # `feedline --version`, `feedline query "select 1"`: median wall (ms)
    "idle_cpu_per_hour": 0.1, # idle scheduler: CPU seconds per hour of waiting
    "floor_wall": 1.5,        # feedline XML replay wall ≤ 1.5 × max(parse floor wall, write floor wall)
    "floor_cpu": 1.5,         # feedline XML replay CPU ≤ 1.5 × (parse floor CPU + write floor CPU)
    "live_rss_mib": 8.0,      # live peak RSS ≤ replay peak RSS + 8 MiB (each live size, medians)
    "live_cpu": 1.15,         # live CPU ≤ 1.15 × the replay's of the same pages
    "live_wall": 1.2,         # live wall ≤ 1.2 × the replay's + the page server's CPU time
    "rerun_share": 0.05,      # unchanged re-run ≤ 5 % of the first load's time
    "pg_vs_python": 3.0,      # PostgreSQL: feedline rows/s ≥ 3 × the Python peer's (psycopg)
    "pg_vs_limit": 0.5,       # PostgreSQL: feedline rows/s ≥ 0.5 × the native limit's (libpq COPY)
    "pg_rerun_share": 0.05,   # PostgreSQL: unchanged re-run ≤ 5 % of the first load's time
}
SQLITE_PHASES = {"xml", "json", "unchanged", "unchanged-cold", "force", "rss", "startup", "idle", "steady", "day-first"}
TOOLS = [("feedline", "feedline (release)"), ("live", "feedline run --live"), ("limit-1txn", "limit, 1 transaction"),
         ("limit", "limit, txn per page"), ("python", "Python peer"), ("parse-floor", "parse floor (C)"),
         ("write-floor", "write floor (C)")]


def is_sqlite_phase(phase):
    return phase in SQLITE_PHASES or phase.startswith("live-")


def live_pages(phase):
    """N of a live-N phase, or None."""
    if phase.startswith("live-") and phase[5:].isdigit():
        return int(phase[5:])
    return None


def read(path):
    runs = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip() or line.startswith("phase\t"):
                continue
            f = line.rstrip("\n").split("\t")
            runs.append(dict(phase=f[0], tool=f[1], rep=f[2], seconds=float(f[3]), rows=int(f[4]), rss_kb=int(f[5]),
                             bytes=int(f[6]), changed=f[7], skipped=f[8], files=f[9] if len(f) > 9 else "",
                             cpu=float(f[10]) if len(f) > 10 and f[10] else None,
                             server_cpu=float(f[11]) if len(f) > 11 and f[11] else None))
    return runs


def meta(path):
    out = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                out[k] = v
    return out


def mb(n):
    return n / 1e6


def summarise(runs, phase, tool):
    rs = [r for r in runs if r["phase"] == phase and r["tool"] == tool]
    if not rs:
        return None
    secs = [r["seconds"] for r in rs]
    med = statistics.median(secs)
    rows = rs[0]["rows"]
    cpus = [r["cpu"] for r in rs if r["cpu"] is not None]
    cpu = statistics.median(cpus) if cpus else None
    servers = [r["server_cpu"] for r in rs if r["server_cpu"] is not None]
    server = statistics.median(servers) if servers else None
    return dict(n=len(rs), median=med, rows=rows, rows_s=rows / med if med else 0.0, mb_s=mb(rs[0]["bytes"]) / med if med else 0.0,
                rss_mb=max(r["rss_kb"] for r in rs) / 1024, rss_med_mb=statistics.median(r["rss_kb"] for r in rs) / 1024,
                secs=secs, all_rows={r["rows"] for r in rs}, cpu=cpu, rows_cpu=rows / cpu if cpu else None, server_cpu=server)


def table(runs, phase, title, out, server=False, server_label="server CPU s"):
    out.append(title)
    out.append(f"  {'tool':<20} {'median s':>9} {'rows':>10} {'rows/s':>10} {'MB/s':>7} {'peak RSS MiB':>13} {'CPU s':>7}"
               + (f" {server_label:>13}" if server else "") + "   runs (s)")
    stats = {}
    for tool, name in TOOLS:
        s = summarise(runs, phase, tool)
        if not s:
            continue
        stats[tool] = s
        cpu = f"{s['cpu']:.2f}" if s["cpu"] is not None else "-"
        scpu = f" {s['server_cpu']:>13.2f}" if server and s["server_cpu"] is not None else (f" {'-':>13}" if server else "")
        mbs = "-" if tool == "write-floor" else f"{s['mb_s']:.1f}"   # the write floor reads no archive
        out.append(f"  {name:<20} {s['median']:>9.2f} {s['rows']:>10,} {s['rows_s']:>10,.0f} {mbs:>7} {s['rss_mb']:>13.1f} {cpu:>7}"
                   + scpu + "   " + " ".join(f"{x:.2f}" for x in s["secs"]))
    return stats


def cpu_ratio(a, b):
    """feedline ÷ peer by rows per CPU-second (user + system), less sensitive to a busy machine."""
    if a.get("rows_cpu") and b.get("rows_cpu"):
        return f"{a['rows_cpu'] / b['rows_cpu']:.2f}"
    return "-"


def verdict(ok):
    return "PASS" if ok else "MISS"


FLOOR_PARSE = {"xml": "libxml2 SAX2, empty callbacks", "json": "byte scan in C, every value's start and end"}


def floor(phase, stats, m, out, targets):
    """The floor lines of an XML or JSON table: parse floor, write floor, the bound, feedline ÷ bound.
    For XML the ratios are targets; for JSON they are printed for reference."""
    label = phase.upper()
    p, w, f = stats.get("parse-floor"), stats.get("write-floor"), stats.get("feedline")
    if not (p and w and p["cpu"] is not None and w["cpu"] is not None):
        if phase == "xml":
            for key, what in (("floor_wall", "wall"), ("floor_cpu", "CPU")):
                targets.append((None, f"XML: feedline replay {what} ≤ {TARGETS[key]:g} × the floor bound — not measured (--no-floor)"))
        return
    bound_wall, bound_cpu = max(p["median"], w["median"]), p["cpu"] + w["cpu"]
    out.append(f"  floor ({label}; medians of each program's own timed phase): parse floor ({FLOOR_PARSE[phase]}) "
               f"{p['median']:.3f} s wall / {p['cpu']:.3f} s CPU; write floor (the same rows typed in memory, prepared "
               f"inserts, one transaction, feedline's schema and first-load pragmas) {w['median']:.3f} s wall / {w['cpu']:.3f} s CPU")
    # The write floor's time per table inside its transaction (medians over the runs; the commit is in none).
    per = {}
    for key, value in m.items():
        if key.startswith(f"floor_tables_{phase}_"):
            for part in value.split(","):
                name, _, rest = part.partition("=")
                n, _, secs = rest.partition(":")
                try:
                    per.setdefault(name, (int(n), []))[1].append(float(secs))
                except ValueError:
                    pass
    if per:
        inserts = sum(statistics.median(v[1]) for v in per.values())
        out.append("    write floor by table (inserts, median s): " + ", ".join(
            f"{name} {n:,} rows {statistics.median(s):.3f}" for name, (n, s) in per.items())
            + f"; commit and the rest {max(w['median'] - inserts, 0):.3f} s")
    out.append(f"  bound: max(parse, write) = {bound_wall:.3f} s wall; parse + write = {bound_cpu:.3f} s CPU")
    if not f or f["cpu"] is None:
        return
    rw, rc = f["median"] / bound_wall, f["cpu"] / bound_cpu
    out.append(f"  feedline ÷ bound: {rw:.2f} × by wall ({f['median']:.3f} s), {rc:.2f} × by CPU ({f['cpu']:.3f} s)"
               + ("" if phase == "xml" else " (for reference; the targets are on XML)"))
    if phase == "xml":
        targets.append((rw <= TARGETS["floor_wall"], f"XML: feedline replay wall ≤ {TARGETS['floor_wall']:g} × the floor bound "
                        f"max(parse, write) — {rw:.2f} × ({f['median']:.3f} vs {bound_wall:.3f} s)"))
        targets.append((rc <= TARGETS["floor_cpu"], f"XML: feedline replay CPU ≤ {TARGETS['floor_cpu']:g} × the floor's parse + write "
                        f"CPU — {rc:.2f} × ({f['cpu']:.3f} vs {bound_cpu:.3f} s)"))


def main(argv):
    strict = "--strict" in argv
    args = [a for a in argv if a != "--strict"]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    runs, m = read(args[0]), meta(args[1])
    out = []
    out.append(f"feedline benchmark  {m.get('date', '')}")
    out.append(f"  archive: {m.get('stations')} stations × {m.get('days')} days = {int(m.get('items', 0)):,} items; "
               f"XML {mb(int(m.get('xml_bytes', 0))):.1f} MB in {m.get('xml_files')} files"
               + (f"; JSON {mb(int(m['json_bytes'])):.1f} MB in {m.get('json_files')} files" if m.get("json_bytes") else ""))
    out.append(f"  machine: {m.get('cpus')} CPUs ({m.get('cpu_model')}), {m.get('mem')}; load average {m.get('load_start')} at start, "
               f"{m.get('load_end')} at end")
    out.append(f"  versions: {m.get('swift')}; libxml2 {m.get('libxml2')}; SQLite {m.get('sqlite')}; Python {m.get('python')} "
               f"(xmltodict {m.get('xmltodict')})"
               + (f"; PostgreSQL {m['postgres']} (psycopg {m.get('psycopg')})" if m.get("postgres") else ""))
    try:
        busy = float(m.get("load_start", "0").split()[0]) > 0.5 * int(m.get("cpus", "1"))
    except ValueError:
        busy = False
    if busy:
        out.append(f"  WARNING: the machine was busy (1-minute load {m.get('load_start').split()[0]} on {m.get('cpus')} CPUs): "
                   "wall times are inflated and noisy; compare the CPU-time ratios too, and re-run when it is idle")
    out.append(f"  method: end-to-end wall time of each process (start-up included; the floors: the phase each times itself), "
               f"{m.get('runs')} runs per tool, order rotated "
               f"every round, archive in the page cache, fresh database each run, all on {m.get('disk')}; MB = 10^6 bytes")
    out.append("")

    targets, checks = [], []

    if any(is_sqlite_phase(r["phase"]) for r in runs):
        xml = table(runs, "xml", "XML archive", out)
        if "feedline" in xml:
            f = xml["feedline"]
            for tool, label in (("limit-1txn", "the native limit, one transaction (like for like: the headline)"),
                                ("limit", "the native limit, one transaction per page"), ("python", "the Python peer")):
                if tool in xml:
                    out.append(f"  feedline ÷ {label}: {f['rows_s'] / xml[tool]['rows_s']:.2f} × by wall, "
                               f"{cpu_ratio(f, xml[tool])} × by CPU per row")
            if "limit-1txn" in xml:
                lim = xml["limit-1txn"]
                r = f["rows_s"] / lim["rows_s"]
                targets.append((r >= TARGETS["xml_vs_limit"], f"XML: feedline ≥ 1.5 × the one-transaction native limit by wall — {r:.2f} ×"
                                f" ({f['rows_s']:,.0f} vs {lim['rows_s']:,.0f} rows/s)"))
                if f.get("rows_cpu") and lim.get("rows_cpu"):
                    c = f["rows_cpu"] / lim["rows_cpu"]
                    targets.append((c >= TARGETS["xml_vs_limit_cpu"], f"XML: feedline ≥ 1.0 × the one-transaction native limit by CPU per row — "
                                    f"{c:.2f} × ({f['cpu']:.2f} vs {lim['cpu']:.2f} CPU s)"))
            if "python" in xml:
                r = f["rows_s"] / xml["python"]["rows_s"]
                targets.append((r >= TARGETS["xml_vs_python"], f"XML: feedline ≥ 3 × Python rows/s — {r:.2f} ×"
                                f" ({f['rows_s']:,.0f} vs {xml['python']['rows_s']:,.0f} rows/s)"))
        floor("xml", xml, m, out, targets)
        out.append("")

        js = table(runs, "json", "JSON archive", out)
        if "feedline" in js and "python" in js:
            jf, jp = js["feedline"], js["python"]
            r = jf["rows_s"] / jp["rows_s"]
            out.append(f"  feedline ÷ the Python peer: {r:.2f} × by wall, {cpu_ratio(jf, jp)} × by CPU per row")
            targets.append((r >= TARGETS["json_vs_python"], f"JSON: feedline ≥ 4 × Python by wall — {r:.2f} ×"
                            f" ({jf['rows_s']:,.0f} vs {jp['rows_s']:,.0f} rows/s)"))
            if jf.get("rows_cpu") and jp.get("rows_cpu"):
                c = jf["rows_cpu"] / jp["rows_cpu"]
                targets.append((c >= TARGETS["json_vs_python_cpu"], f"JSON: feedline ≥ 2 × Python by CPU per row — {c:.2f} ×"
                                f" ({jf['cpu']:.2f} vs {jp['cpu']:.2f} CPU s)"))
            floor("json", js, m, out, targets)
        elif not js:
            out.append("  (skipped: --no-json)")
            targets.append((None, "JSON: feedline ≥ 4 × Python by wall, ≥ 2 × by CPU — not measured (--no-json)"))
        out.append("")

        out.append("Re-runs of feedline onto the loaded XML database (rows changed = rows_inserted + rows_updated from the run ledger)")
        un = [r for r in runs if r["phase"] == "unchanged"]
        fo = [r for r in runs if r["phase"] == "force"]
        first = xml.get("feedline", {}).get("median")
        if un:
            med = statistics.median(r["seconds"] for r in un)
            changed = max(int(r["changed"]) for r in un)
            share = med / first if first else float("nan")
            cpu_un = [r["cpu"] for r in un if r["cpu"] is not None]
            cpu_first = xml.get("feedline", {}).get("cpu")
            cpu_note = (f" (by CPU time {statistics.median(cpu_un):.2f} s = {statistics.median(cpu_un) / cpu_first * 100:.1f} %)"
                        if cpu_un and cpu_first else "")
            out.append(f"  unchanged re-run: median {med:.3f} s = {share * 100:.1f} % of the first load ({first:.2f} s){cpu_note}; "
                       f"rows changed {changed}; payloads skipped {un[0]['skipped']} of {un[0]['files']}; "
                       f"peak RSS {max(r['rss_kb'] for r in un) / 1024:.1f} MiB; runs " + " ".join(f"{r['seconds']:.3f}" for r in un))
            targets.append((share <= TARGETS["rerun_share"] and changed == 0,
                            f"unchanged re-run ≤ 5 % of the first load's time, 0 rows changed — {share * 100:.1f} %, {changed} rows changed"))
            checks.append((changed == 0 and all(r["skipped"] == r["files"] for r in un),
                           f"unchanged re-run skipped every payload and changed no row ({changed} changed)"))
        cold = [r for r in runs if r["phase"] == "unchanged-cold"]
        if cold and first:
            med = statistics.median(r["seconds"] for r in cold)
            cpu_cold = [r["cpu"] for r in cold if r["cpu"] is not None]
            out.append(f"  unchanged re-run without remembered hashes (FEEDLINE_CACHE_DIR empty: every file read and hashed): "
                       f"median {med:.3f} s = {med / first * 100:.1f} % of the first load"
                       + (f", CPU {statistics.median(cpu_cold):.2f} s" if cpu_cold else "")
                       + "; runs " + " ".join(f"{r['seconds']:.3f}" for r in cold))
            checks.append((all(int(r["changed"]) == 0 and r["skipped"] == r["files"] for r in cold),
                           "unchanged re-run without remembered hashes skipped every payload and changed no row"))
        if fo:
            med = statistics.median(r["seconds"] for r in fo)
            changed = max(int(r["changed"]) for r in fo)
            cpu_fo = [r["cpu"] for r in fo if r["cpu"] is not None]
            out.append(f"  --force re-run:   median {med:.2f} s ({med / first * 100:.0f} % of the first load"
                       + (f"; CPU {statistics.median(cpu_fo):.2f} s" if cpu_fo else "") + "); "
                       f"rows inserted+updated {changed}; rows unchanged {fo[0]['rows']:,}; "
                       f"peak RSS {max(r['rss_kb'] for r in fo) / 1024:.1f} MiB")
            checks.append((changed == 0, f"--force re-run re-parsed everything and changed no row ({changed} inserted+updated)"))
        out.append("")

        steady, day_first = summarise(runs, "steady", "feedline"), summarise(runs, "day-first", "feedline")
        if steady and day_first:
            out.append("Steady state: one new day (XML) into a database already holding 30 days, against the same day into a new file")
            for label, st in (("into 30 days", steady), ("into a new file", day_first)):
                out.append(f"  {label:<16} median {st['median']:.3f} s, CPU {st['cpu']:.2f} s, {st['rows']:,} rows, {st['rows_s']:,.0f} rows/s, "
                           f"peak RSS {st['rss_mb']:.1f} MiB; runs " + " ".join(f"{x:.3f}" for x in st["secs"]))
            out.append(f"  steady ÷ new file: {steady['median'] / day_first['median']:.2f} × by wall, "
                       f"{steady['cpu'] / day_first['cpu']:.2f} × by CPU")
            out.append("")

        startup = {tool: [r for r in runs if r["phase"] == "startup" and r["tool"] == tool] for tool in ("version", "query")}
        base_kb = max((r["rss_kb"] for r in startup["version"]), default=None)
        ws = lambda kb: f"; working set {(kb - base_kb) / 1024:.1f} MiB" if base_kb else ""
        rss = {r["tool"]: r for r in runs if r["phase"] == "rss"}
        out.append("Peak RSS of feedline replay by archive size (XML, fresh database; working set = peak − the peak of "
                   + (f"`feedline --version`, {base_kb / 1024:.1f} MiB)" if base_kb else "`feedline --version`: not measured)"))
        for label in sorted(rss, key=lambda k: int(k.rstrip("d"))):
            r = rss[label]
            out.append(f"  {label:>4}: {r['rss_kb'] / 1024:6.1f} MiB{ws(r['rss_kb'])}  ({r['rows']:,} rows, {mb(r['bytes']):.0f} MB, {r['seconds']:.1f} s, "
                       f"{r['rows'] / r['seconds']:,.0f} rows/s" + (f", CPU {r['cpu']:.1f} s" if r["cpu"] is not None else "") + ")")
        if "feedline" in xml:
            out.append(f"  {m.get('days')}d (main XML runs): {xml['feedline']['rss_mb']:.1f} MiB{ws(xml['feedline']['rss_mb'] * 1024)}")
        if "feedline" in js:
            out.append(f"  {m.get('days')}d (main JSON runs): {js['feedline']['rss_mb']:.1f} MiB{ws(js['feedline']['rss_mb'] * 1024)}")
        big = m.get("rss_days", "30") + "d"
        # The working set by kind (scripts/bench's untimed runs sampled from /proc/PID/status):
        # "maxrss sampled anon file" in KiB for `--version` and each size.
        kinds = {k[len("split_"):]: [int(v) for v in m[k].split()] for k in m if k.startswith("split_") and len(m[k].split()) == 4}
        if "version" in kinds:
            base = kinds["version"]
            out.append("  By kind, at the highest RSS sampled about every millisecond (untimed runs; anonymous: heap, stacks, "
                       "written data; file-backed: the code and read-only data touched):")
            for label in ["version"] + sorted((k for k in kinds if k != "version"), key=lambda k: int(k.rstrip("d"))):
                _, sampled, anon, file = kinds[label]
                line = f"  {'--version' if label == 'version' else label:>9}: {sampled / 1024:5.1f} MiB = anonymous {anon / 1024:5.1f} + file-backed {file / 1024:5.1f}"
                if label != "version":
                    line += f"; working set {(sampled - base[1]) / 1024:.1f} MiB = anonymous +{(anon - base[2]) / 1024:.1f} + file-backed +{(file - base[3]) / 1024:.1f}"
                out.append(line)
        if big in rss and "feedline" in xml:
            peak = rss[big]["rss_kb"] / 1024
            growth = peak / xml["feedline"]["rss_mb"]
            targets.append((peak <= TARGETS["rss_mb_30d"], f"peak RSS ≤ 40 MiB on a {big} archive — {peak:.1f} MiB"))
            targets.append((growth <= TARGETS["rss_growth"], f"flatness: {big} RSS ≤ 1.05 × the {m.get('days')}-day RSS — {growth:.2f} ×"))
        else:
            targets.append((None, "peak RSS ≤ 40 MiB on a 30-day archive — not measured (run with --rss-scaling)"))
            targets.append((None, "flatness: 30-day RSS ≤ 1.05 × the 7-day RSS — not measured (run with --rss-scaling)"))
        # The working set on the largest archive loaded (the 30-day one with --rss-scaling).
        largest = rss.get(big) or ({"rss_kb": xml["feedline"]["rss_mb"] * 1024, "tool": m.get("days") + "d"} if "feedline" in xml else None)
        if base_kb and largest:
            size = largest["tool"]
            w = (largest["rss_kb"] - base_kb) / 1024
            targets.append((w <= TARGETS["working_set_mb"], f"the load's working set ≤ 20 MiB (peak − `feedline --version`'s peak, {size} XML) — "
                            f"{w:.1f} MiB ({largest['rss_kb'] / 1024:.1f} − {base_kb / 1024:.1f})"))
        else:
            targets.append((None, "the load's working set ≤ 20 MiB — not measured"))
        out.append("")

        if startup["version"] or startup["query"]:
            out.append("Start-up (10 runs each, one after the other; wall from spawn to reap)")
            for tool, command in (("version", "feedline --version"), ("query", 'feedline query "select 1" (small database)')):
                rs = startup[tool]
                if not rs:
                    continue
                med = statistics.median(r["seconds"] for r in rs) * 1000
                out.append(f"  {command:<45} median {med:5.1f} ms; CPU {statistics.median(r['cpu'] for r in rs) * 1000:.0f} ms; "
                           f"peak RSS {max(r['rss_kb'] for r in rs) / 1024:.1f} MiB; runs "
                           + " ".join(f"{r['seconds'] * 1000:.0f}" for r in rs))
                targets.append((med <= TARGETS["startup_ms"], f"start-up: {command} ≤ 30 ms (median of 10) — {med:.1f} ms"))
            out.append("")
        idle = [r for r in runs if r["phase"] == "idle"]
        if idle:
            r = idle[0]
            per_hour = r["cpu"] * 3600 / r["seconds"]
            out.append(f"Idle scheduler (feedline schedule, nothing due): {r['cpu'] * 1000:.2f} ms CPU over {r['seconds']:.0f} s = "
                       f"{per_hour:.3f} s per hour; peak RSS {r['rss_kb'] / 1024:.1f} MiB")
            targets.append((per_hour < TARGETS["idle_cpu_per_hour"], f"idle scheduler < 0.1 s CPU per hour — {per_hour:.3f} s "
                            f"(measured over {r['seconds']:.0f} s)"))
            out.append("")
        else:
            targets.append((None, "idle scheduler < 0.1 s CPU per hour — not measured (--no-idle)"))

        live_phases = sorted({r["phase"] for r in runs if live_pages(r["phase"])}, key=live_pages)
        for phase in live_phases:
            n = live_pages(phase)
            live = table(runs, phase, f"Live path, {n} pages: feedline run --live from a loopback server (page server CPU: its "
                         "process CPU time during that run) vs feedline replay of the pages that run archived", out,
                         server=True, server_label="page srv CPU s")
            if "live" not in live or "feedline" not in live:
                out.append("")
                continue
            lv, rp = live["live"], live["feedline"]
            srv = lv["server_cpu"] or 0.0
            c = lv["cpu"] / rp["cpu"] if lv["cpu"] and rp["cpu"] else float("nan")
            wall_line = TARGETS["live_wall"] * rp["median"] + srv
            out.append(f"  live ÷ replay (medians): {c:.2f} × the CPU, {lv['median'] / rp['median']:.2f} × the wall time; peak RSS "
                       f"{lv['rss_med_mb']:.1f} against {rp['rss_med_mb']:.1f} MiB ({lv['rss_med_mb'] - rp['rss_med_mb']:+.1f} MiB); "
                       f"the page server used {srv:.2f} s of CPU per live run")
            targets.append((lv["rss_med_mb"] <= rp["rss_med_mb"] + TARGETS["live_rss_mib"],
                            f"live, {n} pages: peak RSS ≤ the replay's + {TARGETS['live_rss_mib']:g} MiB — {lv['rss_med_mb']:.1f} vs "
                            f"{rp['rss_med_mb']:.1f} MiB ({lv['rss_med_mb'] - rp['rss_med_mb']:+.1f} MiB)"))
            targets.append((c <= TARGETS["live_cpu"], f"live, {n} pages: CPU ≤ {TARGETS['live_cpu']:g} × the replay's — {c:.2f} × "
                            f"({lv['cpu']:.2f} vs {rp['cpu']:.2f} s)"))
            targets.append((lv["median"] <= wall_line, f"live, {n} pages: wall ≤ {TARGETS['live_wall']:g} × the replay's + the page "
                            f"server's CPU — {lv['median']:.2f} vs {wall_line:.2f} s ({TARGETS['live_wall']:g} × {rp['median']:.2f} + {srv:.2f})"))
            out.append("")
        if not live_phases:
            targets.append((None, "live path (peak RSS ≤ replay + 8 MiB, CPU ≤ 1.15 ×, wall ≤ 1.2 × + page server CPU) — "
                            "not measured (--no-live)"))

    pg = table(runs, "pg", "PostgreSQL, XML archive (client process: wall, CPU, RSS; server CPU = the postmaster and its backends)",
               out, server=True) if any(r["phase"] == "pg" for r in runs) else {}
    if any(r["phase"] == "pg" for r in runs):
        if "feedline" in pg:
            f = pg["feedline"]
            parts = []
            for tool, key, label in (("python", "pg_vs_python", "Python"), ("limit", "pg_vs_limit", "native limit")):
                if tool not in pg:
                    continue
                r = f["rows_s"] / pg[tool]["rows_s"]
                parts.append(f"feedline ÷ {label} = {r:.2f}")
                targets.append((r >= TARGETS[key], f"PostgreSQL: feedline ≥ {TARGETS[key]:g} × {label} rows/s — {r:.2f} ×"
                                f" ({f['rows_s']:,.0f} vs {pg[tool]['rows_s']:,.0f} rows/s)"))
            out.append("  ratios (rows/s): " + ", ".join(parts))
            tot = lambda s: (s["cpu"] or 0) + (s["server_cpu"] or 0)
            cparts = [f"feedline ÷ {t} = {(f['rows'] / tot(f)) / (pg[t]['rows'] / tot(pg[t])):.2f}"
                      for t in ("python", "limit") if t in pg and tot(f) and tot(pg[t])]
            out.append("  by client + server CPU time (rows per CPU-second, for reference): " + ", ".join(cparts))
        else:
            out.append("  feedline: not measured (it failed: see Checks)")
            for key, label in (("pg_vs_python", "Python"), ("pg_vs_limit", "native limit")):
                targets.append((None, f"PostgreSQL: feedline ≥ {TARGETS[key]:g} × {label} rows/s — not measured (feedline failed)"))
        un = [r for r in runs if r["phase"] == "pg_unchanged"]
        first = pg.get("feedline", {}).get("median")
        if un and first:
            med = statistics.median(r["seconds"] for r in un)
            changed = max(int(r["changed"] or 0) for r in un)
            share = med / first
            out.append(f"  unchanged re-run: median {med:.3f} s = {share * 100:.1f} % of the first load ({first:.2f} s); "
                       f"rows changed {changed}; payloads skipped {un[0]['skipped']} of {un[0]['files']}; "
                       f"peak RSS {max(r['rss_kb'] for r in un) / 1024:.1f} MiB; runs " + " ".join(f"{r['seconds']:.3f}" for r in un))
            targets.append((share <= TARGETS["pg_rerun_share"] and changed == 0,
                            f"PostgreSQL: unchanged re-run ≤ 5 % of the first load's time, 0 rows changed — "
                            f"{share * 100:.1f} %, {changed} rows changed"))
            checks.append((changed == 0 and all(r["skipped"] == r["files"] for r in un),
                           f"PostgreSQL: unchanged re-run skipped every payload and changed no row ({changed} changed)"))
        else:
            targets.append((None, "PostgreSQL: unchanged re-run ≤ 5 % of the first load's time — not measured"))
        out.append("")

    for key, value in sorted(m.items()):
        if key.startswith("check_"):
            ok, _, text = value.partition(" ")
            checks.append((ok == "ok", text))

    out.append("Targets")
    for ok, text in targets:
        out.append(f"  {'SKIP' if ok is None else verdict(ok)}  {text}")
    out.append("Checks")
    for ok, text in checks:
        out.append(f"  {'ok  ' if ok else 'FAIL'}  {text}")
    print("\n".join(out))
    failed = any(not ok for ok, _ in checks)
    missed = any(ok is False for ok, _ in targets)
    return 1 if failed or (strict and missed) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
