#!/usr/bin/env python3
"""Summarise a scripts/bench run: medians, ratios, targets (PASS/MISS) and checks (ok/FAIL).

usage: report.py RESULTS.tsv META.env [--strict]

RESULTS.tsv has one line per timed run:
  phase  tool  rep  seconds  rows  rss_kb  bytes  changed  skipped  files  cpu_s  [server_cpu_s]
phase: xml | json | unchanged | force | rss (SQLite); pg | pg_unchanged (PostgreSQL, with the server's CPU)
META.env holds KEY=VALUE lines written by scripts/bench (sizes, machine, check outcomes).
Exit status: 0, or 1 when a check failed (or, with --strict, a target was missed).
"""
import statistics
import sys

TARGETS = {
    "xml_vs_limit": 0.7,      # feedline rows/s ≥ 0.7 × the native limit's (XML)
    "xml_vs_python": 3.0,     # feedline rows/s ≥ 3 × the Python peer's (XML)
    "json_vs_python": 2.0,    # feedline rows/s ≥ 2 × the Python peer's (JSON)
    "rss_mb_30d": 64.0,       # peak RSS on a 30-day archive
    "rss_growth": 1.2,        # 30-day RSS ≤ 1.2 × 1-day RSS
    "rerun_share": 0.05,      # unchanged re-run ≤ 5 % of the first load's time
    "pg_vs_python": 3.0,      # PostgreSQL: feedline rows/s ≥ 3 × the Python peer's (psycopg)
    "pg_vs_limit": 0.5,       # PostgreSQL: feedline rows/s ≥ 0.5 × the native limit's (libpq COPY)
    "pg_rerun_share": 0.05,   # PostgreSQL: unchanged re-run ≤ 5 % of the first load's time
}
SQLITE_PHASES = {"xml", "json", "unchanged", "force", "rss"}
TOOLS = [("feedline", "feedline (release)"), ("limit", "native limit (C)"), ("python", "Python peer")]


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
    return dict(n=len(rs), median=med, rows=rows, rows_s=rows / med, mb_s=mb(rs[0]["bytes"]) / med,
                rss_mb=max(r["rss_kb"] for r in rs) / 1024, secs=secs, all_rows={r["rows"] for r in rs},
                cpu=cpu, rows_cpu=rows / cpu if cpu else None, server_cpu=server)


def table(runs, phase, title, out, server=False):
    out.append(title)
    out.append(f"  {'tool':<20} {'median s':>9} {'rows':>10} {'rows/s':>10} {'MB/s':>7} {'peak RSS MiB':>13} {'CPU s':>7}"
               + (f" {'server CPU s':>13}" if server else "") + "   runs (s)")
    stats = {}
    for tool, name in TOOLS:
        s = summarise(runs, phase, tool)
        if not s:
            continue
        stats[tool] = s
        cpu = f"{s['cpu']:.2f}" if s["cpu"] is not None else "-"
        scpu = f" {s['server_cpu']:>13.2f}" if server and s["server_cpu"] is not None else (f" {'-':>13}" if server else "")
        out.append(f"  {name:<20} {s['median']:>9.2f} {s['rows']:>10,} {s['rows_s']:>10,.0f} {s['mb_s']:>7.1f} {s['rss_mb']:>13.1f} {cpu:>7}"
                   + scpu + "   " + " ".join(f"{x:.2f}" for x in s["secs"]))
    return stats


def cpu_ratio(a, b):
    """feedline ÷ peer by rows per CPU-second (user + system), less sensitive to a busy machine."""
    if a.get("rows_cpu") and b.get("rows_cpu"):
        return f"{a['rows_cpu'] / b['rows_cpu']:.2f}"
    return "-"


def verdict(ok):
    return "PASS" if ok else "MISS"


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
    out.append(f"  method: end-to-end wall time of each process (start-up included), {m.get('runs')} runs per tool, order rotated "
               f"every round, archive in the page cache, fresh database each run, all on {m.get('disk')}; MB = 10^6 bytes")
    out.append("")

    targets, checks = [], []

    if any(r["phase"] in SQLITE_PHASES for r in runs):
        xml = table(runs, "xml", "XML archive", out)
        if "feedline" in xml:
            f = xml["feedline"]
            parts = []
            if "limit" in xml:
                r = f["rows_s"] / xml["limit"]["rows_s"]
                parts.append(f"feedline ÷ limit = {r:.2f}")
                targets.append((r >= TARGETS["xml_vs_limit"], f"XML: feedline ≥ 0.7 × native limit rows/s — {r:.2f} ×"
                                f" ({f['rows_s']:,.0f} vs {xml['limit']['rows_s']:,.0f} rows/s)"))
            if "python" in xml:
                r = f["rows_s"] / xml["python"]["rows_s"]
                parts.append(f"feedline ÷ Python = {r:.2f}")
                targets.append((r >= TARGETS["xml_vs_python"], f"XML: feedline ≥ 3 × Python rows/s — {r:.2f} ×"
                                f" ({f['rows_s']:,.0f} vs {xml['python']['rows_s']:,.0f} rows/s)"))
            out.append("  ratios (rows/s): " + ", ".join(parts))
            cparts = [f"feedline ÷ {t} = {cpu_ratio(f, xml[t])}" for t in ("limit", "python") if t in xml]
            out.append("  by CPU time (rows per CPU-second, for reference): " + ", ".join(cparts))
        out.append("")

        js = table(runs, "json", "JSON archive", out)
        if "feedline" in js and "python" in js:
            r = js["feedline"]["rows_s"] / js["python"]["rows_s"]
            out.append(f"  ratio (rows/s): feedline ÷ Python = {r:.2f}; by CPU time {cpu_ratio(js['feedline'], js['python'])}")
            targets.append((r >= TARGETS["json_vs_python"], f"JSON: feedline ≥ 2 × Python rows/s — {r:.2f} ×"
                            f" ({js['feedline']['rows_s']:,.0f} vs {js['python']['rows_s']:,.0f} rows/s)"))
        elif not js:
            out.append("  (skipped: --no-json)")
            targets.append((None, "JSON: feedline ≥ 2 × Python rows/s — not measured (--no-json)"))
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

        rss = {r["tool"]: r for r in runs if r["phase"] == "rss"}
        out.append("Peak RSS of feedline replay by archive size (XML, fresh database)")
        for label in sorted(rss, key=lambda k: int(k.rstrip("d"))):
            r = rss[label]
            out.append(f"  {label:>4}: {r['rss_kb'] / 1024:6.1f} MiB  ({r['rows']:,} rows, {mb(r['bytes']):.0f} MB, {r['seconds']:.1f} s, "
                       f"{r['rows'] / r['seconds']:,.0f} rows/s" + (f", CPU {r['cpu']:.1f} s" if r["cpu"] is not None else "") + ")")
        if "feedline" in xml:
            out.append(f"  {m.get('days')}d (main XML runs): {xml['feedline']['rss_mb']:.1f} MiB")
        big = m.get("rss_days", "30") + "d"
        if big in rss and "1d" in rss:
            peak = rss[big]["rss_kb"] / 1024
            growth = rss[big]["rss_kb"] / rss["1d"]["rss_kb"]
            targets.append((peak <= TARGETS["rss_mb_30d"], f"peak RSS ≤ 64 MB on a {big} archive — {peak:.1f} MiB"))
            targets.append((growth <= TARGETS["rss_growth"], f"{big} RSS ≤ 1.2 × 1-day RSS — {growth:.2f} ×"))
        else:
            targets.append((None, "peak RSS ≤ 64 MB on a 30-day archive — not measured (run with --rss-scaling)"))
            targets.append((None, "30-day RSS ≤ 1.2 × 1-day RSS — not measured (run with --rss-scaling)"))
        out.append("")


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
