#!/usr/bin/env python3
"""Compare the `measurement` rows of benchmark databases on the columns they share.

usage: compare.py LABEL=DB [LABEL=DB ...]
       (the first database is the reference; every other one is compared with it)

Two shapes are understood and recognised from the table's columns:
- the peers' (peer_python.py, limit.c): station, observed_at '2024-03-06T01:00+09:00' (end of the
  hour, KST, 24:00 -> next day 00:00), sido, network, pm10 … pm25_flag;
- feedline's: station_name, observed_at 'YYYY-MM-DDTHH:MM:SSZ' (end of the hour, UTC), kst_date,
  kst_hour (start of the hour, KST), data_time (AirKorea's label), sido, network, pm10 …

Both are brought to the peers' shape: feedline's observed_at is converted to KST, and flags are
compared with white space removed (feedline stores them in their documented spelling, e.g.
"점검및교정"). Values are compared exactly: nothing is rounded, so a difference is shown, not hidden.
For feedline databases it also checks that kst_date/kst_hour and data_time agree with
observed_at.

Exit status 0 when every database holds the same rows, 1 otherwise (the first differing rows are
printed), 2 on usage errors.
"""
import datetime
import re
import sqlite3
import sys

SHARED = ["station", "observed_at", "sido", "network", "pm10", "pm25", "o3", "no2", "co", "so2", "khai",
          "pm10_24h", "pm25_24h", "pm10_grade", "pm25_grade", "pm10_flag", "pm25_flag"]
VALUES = SHARED[2:]
FLAGS = {"pm10_flag", "pm25_flag"}
SHOW = 5          # differing rows printed per category
KST = datetime.timedelta(hours=9)
SPACE = re.compile(r"\s+")


def norm_flag(v):
    if v is None:
        return None
    v = SPACE.sub("", v)
    return v or None


def peer_label_to_observed(label):
    """AirKorea's 'YYYY-MM-DD HH:00' (HH 01..24) as the peers write it."""
    day, hm = label.split(" ")
    d, h = datetime.date.fromisoformat(day), int(hm[:2])
    if h == 24:
        d, h = d + datetime.timedelta(days=1), 0
    return f"{d.isoformat()}T{h:02d}:00+09:00"


def columns(con):
    return [r[1] for r in con.execute("PRAGMA table_info(measurement)")]


def load(label, path):
    """Returns (kind, {key: values tuple}, internal problems)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    cols = columns(con)
    if not cols:
        raise SystemExit(f"error: {label}: {path} has no measurement table")
    rows, problems = {}, []
    if "station_name" in cols:
        kind = "feedline"
        q = ("SELECT station_name, observed_at, sido, network, pm10, pm25, o3, no2, co, so2, khai, pm10_24h, pm25_24h,"
             " pm10_grade, pm25_grade, pm10_flag, pm25_flag, kst_date, kst_hour, data_time FROM measurement")
        for r in con.execute(q):
            utc = datetime.datetime.strptime(r[1], "%Y-%m-%dT%H:%M:%SZ")
            kst_end = utc + KST
            observed = kst_end.strftime("%Y-%m-%dT%H:%M") + "+09:00"
            start = kst_end - datetime.timedelta(hours=1)
            if (r[17], r[18]) != (start.date().isoformat(), start.hour):
                problems.append(f"{r[0]} {r[1]}: kst_date/kst_hour {r[17]} {r[18]} is not the start of the hour ending {observed}")
            elif peer_label_to_observed(r[19]) != observed:
                problems.append(f"{r[0]} {r[1]}: data_time '{r[19]}' does not name the hour ending {observed}")
            key = (r[0], observed)
            rows[key] = tuple(r[2:15]) + (norm_flag(r[15]), norm_flag(r[16]))
    elif "station" in cols:
        kind = "peer"
        q = "SELECT " + ", ".join(SHARED) + " FROM measurement"
        for r in con.execute(q):
            rows[(r[0], r[1])] = tuple(r[2:15]) + (norm_flag(r[15]), norm_flag(r[16]))
    else:
        raise SystemExit(f"error: {label}: {path}: measurement has neither station_name nor station")
    con.close()
    return kind, rows, problems


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return a == b


def show_row(key, values):
    return f"{key[0]} {key[1]} " + " ".join(f"{c}={v!r}" for c, v in zip(VALUES, values))


def compare(ref_label, ref, label, rows):
    ok = True
    only_ref = sorted(set(ref) - set(rows))
    only_new = sorted(set(rows) - set(ref))
    differing, by_column = [], {}
    for key in sorted(set(ref) & set(rows)):
        a, b = ref[key], rows[key]
        cols = [c for c, x, y in zip(VALUES, a, b) if not same(x, y)]
        if cols:
            differing.append((key, cols))
            for c in cols:
                by_column[c] = by_column.get(c, 0) + 1
    if not (only_ref or only_new or differing):
        print(f"  {label} = {ref_label}: {len(rows):,} rows, all {len(SHARED)} shared columns equal")
        return True
    ok = False
    print(f"  MISMATCH {label} vs {ref_label}: {len(rows):,} vs {len(ref):,} rows; "
          f"{len(only_ref):,} only in {ref_label}, {len(only_new):,} only in {label}, {len(differing):,} rows differ")
    if by_column:
        print("    differing columns: " + ", ".join(f"{c} ({n:,})" for c, n in sorted(by_column.items(), key=lambda x: -x[1])))
    for key, cols in differing[:SHOW]:
        print(f"    {key[0]} {key[1]}: " + ", ".join(
            f"{c}: {ref_label}={ref[key][VALUES.index(c)]!r} {label}={rows[key][VALUES.index(c)]!r}" for c in cols))
    for key in only_ref[:SHOW]:
        print(f"    only in {ref_label}: {show_row(key, ref[key])}")
    for key in only_new[:SHOW]:
        print(f"    only in {label}: {show_row(key, rows[key])}")
    return ok


def main(argv):
    pairs = []
    for arg in argv:
        if "=" not in arg:
            print(__doc__, file=sys.stderr)
            return 2
        pairs.append(tuple(arg.split("=", 1)))
    if len(pairs) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    loaded = []
    ok = True
    for label, path in pairs:
        kind, rows, problems = load(label, path)
        loaded.append((label, rows))
        if problems:
            ok = False
            print(f"  MISMATCH {label} (feedline) is not self-consistent in {len(problems):,} rows:")
            for p in problems[:SHOW]:
                print(f"    {p}")
    ref_label, ref = loaded[0]
    for label, rows in loaded[1:]:
        ok = compare(ref_label, ref, label, rows) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
