#!/usr/bin/env python3
"""PostgreSQL schema parity: feedline's PostgreSQL dialect against an SQLite database it made.

Used by scripts/pg-schema-check, which starts a throw-away PostgreSQL and sets PGHOST, PGPORT,
PGUSER and PGDATABASE. This script:

1. reads the PostgreSQL SQL out of the Swift sources (the `static let … = \"\"\"…\"\"\"` string
   literals, by constant name, `\\(name)` interpolations of other constants resolved) and applies
   it with psql -v ON_ERROR_STOP=1, one transaction per migration, in the order a store does:
   PostgresMigrations.core, then AirKorea statistics, OpenWeather ×2, OpenAQ, the cross-source view;
2. compares the schema with the SQLite database's: the same tables and views, the same columns
   in the same order, allowed type mappings, NOT NULL, defaults, primary/unique keys, foreign
   keys, indexes, CHECK counts and triggers; and the reference rows the migrations insert;
3. copies every table's rows from SQLite into PostgreSQL (COPY, NULL as \\N), then compares every
   table and every view row by row (NULLs, numbers within 1e-9, instants as ISO-8601 Z);
4. runs the same statements on both (triggers, identity after a copy, upserts, values a CHECK or
   type must refuse) and compares what they do.

Exits 1 on any difference, 2 on a usage or setup error.
"""
import csv
import io
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

CORE_FILE = "Sources/PostgresStorage/PostgresMigrations.swift"
FEED_MIGRATIONS = [  # (identifier, file, constant), in the order the composition root registers them
    ("airkorea-v1-station-stats-and-pm-alerts", "Sources/AirKorea/AirKoreaTables.swift", "statisticsPostgresSQL"),
    ("openweather-v1-air-pollution-and-weather", "Sources/OpenWeather/OpenWeatherTables.swift", "migrationPostgresSQL"),
    ("openweather-v2-place", "Sources/OpenWeather/OpenWeatherTables.swift", "placeMigrationPostgresSQL"),
    ("openaq-v1-locations-sensors-latest-hourly", "Sources/OpenAQ/OpenAQTables.swift", "migrationPostgresSQL"),
    ("cross-source-v1-air-quality-hourly", "Sources/App/CrossSourceViews.swift", "airQualityPostgresSQL"),
]

# Type mappings allowed (SQLite declared type -> PostgreSQL data_type).
ALLOWED_TYPES = {
    "INTEGER": {"bigint", "integer"},
    "REAL": {"double precision"},
    "TEXT": {"text", "timestamp with time zone", "date"},
}
# CHECK constraints that exist on one side only, on purpose (see Sources/PostgresStorage/README.md).
CHECK_COUNT_DIFFERENCES = {
    "station_daily_stats": -1,  # kst_date GLOB 'YYYY-MM-DD' -> the date type itself
}
# Keys that are UNIQUE on SQLite and PRIMARY KEY on PostgreSQL, on purpose.
UNIQUE_BECOMES_PRIMARY = {"measurement"}

failures = []


def fail(message):
    failures.append(message)
    print("  DIFF " + message)


# ---------------------------------------------------------------------------------------------
# Swift string literals


def swift_constants(path):
    """Every `static let name = \"\"\"…\"\"\"` or `= "…"` of a Swift file, escapes processed, raw."""
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    raw = {}
    for m in re.finditer(r'static let (\w+)\s*=\s*"""[ \t]*\n(.*?)\n([ \t]*)"""', text, re.S):
        name, body, indent = m.group(1), m.group(2), m.group(3)
        lines = []
        for line in body.split("\n"):
            if line.strip() and not line.startswith(indent):
                raise SystemExit(f"{path}: {name}: a line is indented less than its closing delimiter")
            lines.append(line[len(indent):])
        raw[name] = "\n".join(lines)
    for m in re.finditer(r'static let (\w+)\s*=\s*"((?:[^"\\\n]|\\.)*)"', text):
        raw.setdefault(m.group(1), m.group(2))
    return raw


def resolve(raw, name, seen=()):
    if name in seen:
        raise SystemExit(f"interpolation cycle at {name}")
    body = raw[name]
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            if n == "(":
                j = body.index(")", i)
                ref = body[i + 2:j]
                if not re.fullmatch(r"\w+", ref) or ref not in raw:
                    raise SystemExit(f"{name}: cannot resolve interpolation \\({ref}) outside Swift")
                out.append(resolve(raw, ref, seen + (name,)))
                i = j + 1
                continue
            if n == "\n":  # line continuation
                i += 2
                continue
            out.append({"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "0": "\0"}.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def load_migrations():
    core_raw = swift_constants(CORE_FILE)
    core_text = open(os.path.join(ROOT, CORE_FILE), encoding="utf-8").read()
    array = re.search(r"static let core: \[PostgresMigration\] = \[(.*?)\n    \]", core_text, re.S)
    if not array:
        raise SystemExit(f"{CORE_FILE}: no `core` array")
    migrations = []
    for m in re.finditer(r'PostgresMigration\("([^"]+)", sql: (\w+)\)', array.group(1)):
        migrations.append((m.group(1), CORE_FILE, resolve(core_raw, m.group(2))))
    for identifier, path, constant in FEED_MIGRATIONS:
        text = open(os.path.join(ROOT, path), encoding="utf-8").read()
        if f"postgres: {constant}" not in text:
            raise SystemExit(f"{path}: no SchemaMigration passes postgres: {constant}")
        migrations.append((identifier, path, resolve(swift_constants(path), constant)))
    # Every feed SchemaMigration in Sources carries a PostgreSQL dialect.
    for dirpath, _, files in os.walk(os.path.join(ROOT, "Sources")):
        for f in files:
            if not f.endswith(".swift") or f == "Records.swift":
                continue
            text = open(os.path.join(dirpath, f), encoding="utf-8").read()
            for m in re.finditer(r"SchemaMigration\((.*?)\)\s*[,\]\n]", text, re.S):
                if "sqlite:" in m.group(1) and "postgres:" not in m.group(1):
                    fail(f"{os.path.relpath(os.path.join(dirpath, f), ROOT)}: a SchemaMigration without postgres:")
    ids = [m[0] for m in migrations]
    if len(set(ids)) != len(ids):
        raise SystemExit("duplicate migration identifiers")
    return migrations


# ---------------------------------------------------------------------------------------------
# PostgreSQL through psql


def psql(sql, *, single_transaction=True, check=True):
    args = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", "-"]
    if single_transaction:
        args.insert(1, "--single-transaction")
    r = subprocess.run(args, input=sql, text=True, capture_output=True, env=dict(os.environ, PGTZ="UTC"))
    if check and r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    return r


def pg_rows(sql):
    r = subprocess.run(["psql", "-X", "-v", "ON_ERROR_STOP=1", "--csv", "-P", "null=\\N", "-c", sql],
                       text=True, capture_output=True, env=dict(os.environ, PGTZ="UTC"))
    if r.returncode != 0:
        raise RuntimeError(f"{sql}\n{r.stderr.strip()}")
    rows = list(csv.reader(io.StringIO(r.stdout)))
    return [[None if v == "\\N" else v for v in row] for row in rows[1:]]


# ---------------------------------------------------------------------------------------------
# Values compared across the stores

PG_INSTANT = re.compile(r"^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(\.\d+)?\+00$")


def norm(v):
    if v is None:
        return None
    if isinstance(v, bytes):
        return "x'" + v.hex() + "'"
    s = v if isinstance(v, str) else repr(v)
    m = PG_INSTANT.match(s)
    if m:
        return f"{m.group(1)}T{m.group(2)}{m.group(3) or ''}Z"
    if re.fullmatch(r"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", s):
        x = float(s)
        return "0" if x == 0 else format(x, ".12g")
    return s


def sort_key(row):
    return tuple("" if v is None else "\x01" + v for v in row)


def compare_rows(label, sqlite_rows, postgres_rows):
    a = sorted(([norm(v) for v in r] for r in sqlite_rows), key=sort_key)
    b = sorted(([norm(v) for v in r] for r in postgres_rows), key=sort_key)
    if len(a) != len(b):
        fail(f"{label}: {len(a)} rows on SQLite, {len(b)} on PostgreSQL")
        return False
    for x, y in zip(a, b):
        if x != y:
            fail(f"{label}: rows differ\n         sqlite:   {x}\n         postgres: {y}")
            return False
    return True


# ---------------------------------------------------------------------------------------------
# Schema

def strip_comments(sql):
    return re.sub(r"--[^\n]*", "", sql or "")


def sqlite_schema(db):
    objects = db.execute("""SELECT type, name, tbl_name, sql FROM sqlite_master
                            WHERE name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations' ORDER BY name""").fetchall()
    s = {"tables": {}, "views": {}, "indexes": {}, "triggers": {}}
    for type_, name, table, sql in objects:
        if type_ == "table":
            cols = db.execute(f'PRAGMA table_xinfo("{name}")').fetchall()
            keys = set()
            pk = [c[1] for c in sorted((c for c in cols if c[5]), key=lambda c: c[5])]
            primary = tuple(pk) if pk else None
            for _, idx, unique, origin, _ in db.execute(f'PRAGMA index_list("{name}")').fetchall():
                idx_cols = tuple(r[2] for r in db.execute(f'PRAGMA index_info("{idx}")').fetchall())
                if origin in ("pk", "u") and unique:
                    keys.add(idx_cols)
            if primary:
                keys.add(primary)
            fks = set()
            by_id = {}
            for fid, seq, ref, frm, to, _, on_delete, _ in db.execute(f'PRAGMA foreign_key_list("{name}")').fetchall():
                by_id.setdefault(fid, [ref, [], [], on_delete])
                by_id[fid][1].append(frm)
                by_id[fid][2].append(to)
            for ref, frm, to, on_delete in by_id.values():
                fks.add((tuple(frm), ref, tuple(to), on_delete.upper()))
            s["tables"][name] = {
                "columns": [(c[1], c[2].upper(), bool(c[3]) or c[5] > 0, c[4]) for c in cols],
                "primary": primary, "keys": keys, "fks": fks,
                "checks": len(re.findall(r"\bCHECK\s*\(", strip_comments(sql), re.I)),
            }
        elif type_ == "view":
            s["views"][name] = [c[1] for c in db.execute(f'PRAGMA table_xinfo("{name}")').fetchall()]
        elif type_ == "index" and sql:
            cols = tuple(r[2] for r in db.execute(f'PRAGMA index_info("{name}")').fetchall())
            s["indexes"][name] = (table, cols)
        elif type_ == "trigger":
            s["triggers"][name] = table
    return s


def postgres_schema():
    s = {"tables": {}, "views": {}, "indexes": {}, "triggers": {}}
    for name, kind in pg_rows("""SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                                  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v') ORDER BY 1"""):
        cols = pg_rows(f"""SELECT column_name, data_type, is_nullable, column_default, is_identity
                           FROM information_schema.columns WHERE table_schema = 'public' AND table_name = '{name}'
                           ORDER BY ordinal_position""")
        if kind == "v":
            s["views"][name] = [c[0] for c in cols]
            continue
        cons = pg_rows(f"""SELECT contype,
                                  (SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM unnest(conkey) WITH ORDINALITY k(n, i)
                                   JOIN pg_attribute a ON a.attrelid = conrelid AND a.attnum = k.n),
                                  confrelid::regclass::text,
                                  (SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM unnest(confkey) WITH ORDINALITY k(n, i)
                                   JOIN pg_attribute a ON a.attrelid = confrelid AND a.attnum = k.n),
                                  confdeltype
                           FROM pg_constraint WHERE conrelid = 'public.{name}'::regclass""")
        delete_action = {"a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"}
        primary = next((tuple(c[1].split(",")) for c in cons if c[0] == "p"), None)
        s["tables"][name] = {
            "columns": [(c[0], c[1], c[2] == "NO", c[3], c[4] == "YES") for c in cols],
            "primary": primary,
            "keys": {tuple(c[1].split(",")) for c in cons if c[0] in ("p", "u")},
            "fks": {(tuple(c[1].split(",")), c[2], tuple(c[3].split(",")), delete_action[c[4]]) for c in cons if c[0] == "f"},
            "checks": sum(1 for c in cons if c[0] == "c"),
        }
    for name, table, cols in pg_rows("""SELECT i.relname, t.relname,
                                               (SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM unnest(x.indkey) WITH ORDINALITY k(n, i)
                                                JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.n)
                                        FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
                                        JOIN pg_namespace n ON n.oid = t.relnamespace
                                        WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)"""):
        s["indexes"][name] = (table, tuple(cols.split(",")))
    for name, table in pg_rows("""SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                                  WHERE NOT t.tgisinternal"""):
        s["triggers"][name] = table
    return s


def sqlite_default(v):
    if v is None:
        return None
    return v.strip("()'")


def postgres_default(v):
    if v is None:
        return None
    return re.sub(r"::[a-z ]+$", "", v).strip("'")


def compare_schema(lite, pg):
    print("== Schema")
    for kind in ("tables", "views"):
        only_lite = sorted(set(lite[kind]) - set(pg[kind]))
        only_pg = sorted(set(pg[kind]) - set(lite[kind]))
        if only_lite:
            fail(f"{kind} only on SQLite: {', '.join(only_lite)}")
        if only_pg:
            fail(f"{kind} only on PostgreSQL: {', '.join(only_pg)}")
    type_use = {}
    for name in sorted(set(lite["tables"]) & set(pg["tables"])):
        a, b = lite["tables"][name], pg["tables"][name]
        names_a, names_b = [c[0] for c in a["columns"]], [c[0] for c in b["columns"]]
        if names_a != names_b:
            fail(f"table {name}: columns differ\n         sqlite:   {names_a}\n         postgres: {names_b}")
            continue
        for (col, t, nn_a, dflt_a), (_, pt, nn_b, dflt_b, identity) in zip(a["columns"], b["columns"]):
            type_use.setdefault((t, pt), []).append(f"{name}.{col}")
            if pt not in ALLOWED_TYPES.get(t, set()):
                fail(f"{name}.{col}: {t} mapped to {pt}")
            if nn_a != nn_b:
                fail(f"{name}.{col}: NOT NULL {nn_a} on SQLite, {nn_b} on PostgreSQL")
            if sqlite_default(dflt_a) != postgres_default(dflt_b):
                fail(f"{name}.{col}: default {dflt_a!r} on SQLite, {dflt_b!r} on PostgreSQL")
            if identity and a["primary"] != (col,):
                fail(f"{name}.{col}: identity on a column that is not SQLite's INTEGER PRIMARY KEY")
        if a["keys"] != b["keys"]:
            fail(f"table {name}: keys differ: sqlite {sorted(a['keys'])}, postgres {sorted(b['keys'])}")
        if a["primary"] != b["primary"] and not (name in UNIQUE_BECOMES_PRIMARY and b["primary"] in a["keys"]):
            fail(f"table {name}: primary key {a['primary']} on SQLite, {b['primary']} on PostgreSQL")
        if a["fks"] != b["fks"]:
            fail(f"table {name}: foreign keys differ: sqlite {sorted(a['fks'])}, postgres {sorted(b['fks'])}")
        expected = a["checks"] + CHECK_COUNT_DIFFERENCES.get(name, 0)
        if b["checks"] != expected:
            fail(f"table {name}: {a['checks']} CHECKs on SQLite, {b['checks']} on PostgreSQL (expected {expected})")
    for name in sorted(set(lite["views"]) & set(pg["views"])):
        if lite["views"][name] != pg["views"][name]:
            fail(f"view {name}: columns differ\n         sqlite:   {lite['views'][name]}\n         postgres: {pg['views'][name]}")
    if lite["indexes"] != pg["indexes"]:
        fail(f"indexes differ: only sqlite {sorted(set(lite['indexes'].items()) - set(pg['indexes'].items()))}, "
             f"only postgres {sorted(set(pg['indexes'].items()) - set(lite['indexes'].items()))}")
    if lite["triggers"] != pg["triggers"]:
        fail(f"triggers differ: sqlite {lite['triggers']}, postgres {pg['triggers']}")
    columns = sum(len(t["columns"]) for t in lite["tables"].values())
    print(f"  tables {len(lite['tables'])}/{len(pg['tables'])}, views {len(lite['views'])}/{len(pg['views'])}, "
          f"indexes {len(lite['indexes'])}/{len(pg['indexes'])}, triggers {len(lite['triggers'])}/{len(pg['triggers'])} "
          f"(SQLite/PostgreSQL), {columns} table columns")
    print("  type mapping used:")
    for (t, pt), cols in sorted(type_use.items()):
        print(f"    {t:8} -> {pt:25} {len(cols):4} columns")
    for (t, pt), cols in sorted(type_use.items()):
        if pt in ("timestamp with time zone", "date", "integer"):
            print(f"    {pt}: {', '.join(cols)}")


# ---------------------------------------------------------------------------------------------
# Data


def table_order(db, tables):
    """Parents before children (foreign keys)."""
    deps = {t: {r[2] for r in db.execute(f'PRAGMA foreign_key_list("{t}")').fetchall()} - {t} for t in tables}
    order, done = [], set()
    while len(order) < len(tables):
        ready = sorted(t for t in tables if t not in done and deps[t] <= done)
        if not ready:
            raise SystemExit("foreign key cycle")
        order += ready
        done |= set(ready)
    return order


def csv_cell(v):
    if v is None:
        return "\\N"
    if isinstance(v, float):
        v = repr(v)
    return '"' + str(v).replace('"', '""') + '"'


def copy_data(db, lite):
    print("== Copying the SQLite rows into PostgreSQL")
    tables = table_order(db, list(lite["tables"]))
    script = ["SET session_replication_role = replica;",  # copy as is: no triggers, no FK checks
              "TRUNCATE " + ", ".join(tables) + " RESTART IDENTITY CASCADE;"]
    for t in tables:
        cols = [c[0] for c in lite["tables"][t]["columns"]]
        rows = db.execute(f'SELECT {", ".join(chr(34) + c + chr(34) for c in cols)} FROM "{t}"').fetchall()
        if not rows:
            continue
        script.append(f"COPY {t} ({', '.join(cols)}) FROM STDIN WITH (FORMAT csv, NULL '\\N');")
        script.extend(",".join(csv_cell(v) for v in row) for row in rows)
        script.append("\\.")
    # A copy keeps the ids: the identities go on after them.
    for t, c in (("run", "id"), ("diagnostic", "id"), ("job_posting_status_history", "id")):
        script.append(f"SELECT setval(pg_get_serial_sequence('{t}', '{c}'), coalesce(max({c}), 0) + 1, false) FROM {t};")
    psql("\n".join(script) + "\n")


def compare_data(db, lite):
    print("== Tables, row by row")
    for t in sorted(lite["tables"]):
        cols = ", ".join(f'"{c[0]}"' for c in lite["tables"][t]["columns"])
        a = db.execute(f'SELECT {cols} FROM "{t}"').fetchall()
        b = pg_rows(f'SELECT {cols} FROM "{t}"')
        ok = compare_rows(f"table {t}", a, b)
        print(f"  {'ok  ' if ok else 'DIFF'} {t:32} {len(a):5} / {len(b):5}")
    print("== Views, row by row (count SQLite / PostgreSQL)")
    for v in sorted(lite["views"]):
        cols = ", ".join(f'"{c}"' for c in lite["views"][v])
        a = db.execute(f'SELECT {cols} FROM "{v}"').fetchall()
        b = pg_rows(f'SELECT {cols} FROM "{v}"')
        ok = compare_rows(f"view {v}", a, b)
        print(f"  {'ok  ' if ok else 'DIFF'} {v:32} {len(a):5} / {len(b):5}")


# ---------------------------------------------------------------------------------------------
# Behaviour: the same statements on both stores

SCENARIO = [
    # The station triggers: a province from the address, then carried to the measurements.
    "INSERT INTO station (name, address) VALUES ('parity-a', '경기도 수원시 장안구 정자로 1')",
    "INSERT INTO station (name, address) VALUES ('parity-b', '어딘가 1')",
    "INSERT INTO station (name) VALUES ('parity-c')",
    "INSERT INTO measurement (station_name, observed_at, kst_date, kst_hour, data_time, pm10) "
    "VALUES ('parity-c', '2030-01-01T00:00:00Z', '2030-01-01', 8, '2030-01-01 09:00', 12.5)",
    "UPDATE station SET address = '제주도 제주시 1' WHERE name = 'parity-c'",
    "INSERT INTO station (name, sido, address) VALUES ('parity-d', '서울', '부산 해운대구') ",
    # Upserts as the store writes them.
    "INSERT INTO measurement (station_name, observed_at, kst_date, kst_hour, data_time, pm10) "
    "VALUES ('parity-c', '2030-01-01T00:00:00Z', '2030-01-01', 8, '2030-01-01 09:00', 99) "
    "ON CONFLICT (station_name, observed_at) DO NOTHING",
    "UPDATE measurement SET pm10 = 13.5, revision = revision + 1 WHERE station_name = 'parity-c' "
    "AND observed_at = '2030-01-01T00:00:00Z' AND pm10 IS DISTINCT FROM 13.5",
    # A day with 20 hours (day flags of exceedance_daily, the hours mask).
    "INSERT INTO measurement (station_name, observed_at, kst_date, kst_hour, data_time, pm10, pm25) VALUES "
    + ", ".join(f"('parity-c', '2030-01-02T{h:02}:00:00Z', '2030-01-02', {h}, 'label', {40 + 5 * h}, {10 + h / 2})" for h in range(20)),
    # A new run after a copy takes the next id; a finished one has a duration.
    "INSERT INTO run (pipeline, mode, started_at, status) VALUES ('parity', 'live', '2030-01-01T00:00:00Z', 'running')",
    "INSERT INTO run (pipeline, mode, started_at, finished_at, status) "
    "VALUES ('parity', 'replay', '2030-01-01T00:00:00Z', '2030-01-01T01:01:01Z', 'succeeded')",
    "INSERT INTO diagnostic (run_id, code, message, location) "
    "VALUES ((SELECT max(id) FROM run), 'parity', 'm', 'l')",
    "INSERT INTO run_lock (pipeline, holder, pid, host, acquired_at, heartbeat_at) "
    "VALUES ('parity', 'h:1:u', 1, 'h', '2030-01-01T00:00:00Z', '2030-01-01T00:00:00Z')",
    "INSERT INTO run_lock (pipeline, holder, pid, host, acquired_at, heartbeat_at) "
    "VALUES ('parity', 'h:2:u', 2, 'h', '2030-01-01T00:10:00Z', '2030-01-01T00:10:00Z') "
    "ON CONFLICT (pipeline) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, host = excluded.host, "
    "acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at "
    "WHERE run_lock.heartbeat_at < '2030-01-01T00:05:00Z' OR run_lock.holder = 'nobody'",
    # grade_agreement with nothing to compare for one grade (last: it removes measurements).
    "DELETE FROM measurement WHERE khai_grade IS NOT NULL",
]
SCENARIO_QUERIES = [
    "SELECT name, sido FROM station WHERE name LIKE 'parity-%'",
    "SELECT station_name, observed_at, sido, pm10, revision FROM measurement WHERE station_name = 'parity-c'",
    "SELECT id, pipeline, status FROM run WHERE pipeline = 'parity'",
    "SELECT id, run_id, code FROM diagnostic WHERE code = 'parity'",
    "SELECT pipeline, holder, pid, acquired_at, heartbeat_at FROM run_lock",
    "SELECT * FROM run_history WHERE pipeline = 'parity'",
    "SELECT * FROM measurement_completeness WHERE station_name = 'parity-c'",
    "SELECT * FROM exceedance_daily WHERE station_name = 'parity-c'",
    "SELECT * FROM measurement_daily WHERE station_name = 'parity-c'",
    "SELECT * FROM grade_agreement",
]
# Values both stores must refuse (a CHECK, a key, a type).
REFUSED = [
    "INSERT INTO measurement (station_name, observed_at, kst_date, kst_hour, data_time) "
    "VALUES ('x', '2030-01-01T00:00:00Z', '2030-01-01', 24, 'x')",
    "INSERT INTO measurement (station_name, observed_at, kst_date, kst_hour, data_time, pm10_grade) "
    "VALUES ('x', '2030-01-01T00:00:00Z', '2030-01-01', 1, 'x', 5)",
    "INSERT INTO openweather_air_pollution (latitude, longitude, observed_at, kind) "
    "VALUES (1, 1, '2030-01-01T00:00:00.5Z', 'current')",
    "INSERT INTO openweather_air_pollution (latitude, longitude, observed_at, kind) "
    "VALUES (1, 1, '2030-01-01T00:00:00Z', 'past')",
    "INSERT INTO pm_alert (district, area, pollutant, level, issued_at, issued_kst) "
    "VALUES ('서울', '', 'PM10', 'advisory', '2030-01-01T00:00:00Z', '2030-01-01 09:00:00')",
    "INSERT INTO pm_alert (district, area, pollutant, level, issued_at, issued_kst, cleared_at) "
    "VALUES ('서울', '', 'PM10', 'advisory', '2030-01-01T00:00:00Z', '2030-01-01 09:00', '2030-01-01T01:00:00Z')",
    "INSERT INTO pm_alert (district, area, pollutant, level, issued_at, issued_kst, cleared_at, cleared_kst) "
    "VALUES ('서울', '', 'PM10', 'advisory', '2030-01-01T00:00:00Z', '2030-01-01 09:00', '2029-12-31T23:00:00Z', '2030-01-01 08:00')",
    "INSERT INTO station_monthly_stats (station_name, kst_month) VALUES ('x', '2030-1')",
    "INSERT INTO station_daily_stats (station_name, kst_date) VALUES ('', '2030-01-01')",
    "INSERT INTO place (query, resolved_at) VALUES ('  ', '2030-01-01T00:00:00Z')",
    "INSERT INTO place (query, latitude, resolved_at) VALUES ('q', 1, '2030-01-01T00:00:00Z')",
    "INSERT INTO openaq_hourly (sensor_id, datetime_to_utc, datetime_from_utc) "
    "VALUES (1, '2030-01-01T00:00:00Z', '2030-01-01T01:00:00Z')",
    "INSERT INTO openaq_hours_window (sensor_id, datetime_from_utc, datetime_to_utc, scanned_through_utc) "
    "VALUES (1, '2030-01-01T00:00:00Z', '2030-01-01T01:00:00Z', '2030-01-01T02:00:00Z')",
    "INSERT INTO job_posting_location (posting_id, ordinal) VALUES ((SELECT min(posting_id) FROM job_posting), 99)",
    "INSERT INTO job_posting (posting_id, open_ended) VALUES ('parity', 2)",
    "INSERT INTO run (pipeline, mode, started_at, status) VALUES ('p', 'live', '2030-01-01T00:00:00Z', 'paused')",
    "INSERT INTO check_result (run_id, ordinal, check_name, kind, severity, on_failure, status, message) "
    "VALUES ((SELECT min(id) FROM run), 0, 'c', 'sql', 'warn', 'keep', 'passed', 'm')",
    "INSERT INTO province_alias (name, province_code, kind) VALUES ('nowhere', '99', 'short')",
    "INSERT INTO forecast_region (inform_code, forecast_date, released_at, region, grade_text) "
    "VALUES ('PM10', '1999-01-01', '1999-01-01 05:00', '서울', '좋음')",
]


def compare_behaviour(sqlite_path):
    print("== The same statements on both stores")
    work = tempfile.mkdtemp()
    try:
        copy = os.path.join(work, "copy.sqlite")
        src = sqlite3.connect(f"file:{sqlite_path}?mode=ro", uri=True)
        dst = sqlite3.connect(copy)
        src.backup(dst)
        src.close()
        dst.execute("PRAGMA foreign_keys = ON")
        for stmt in SCENARIO:
            dst.execute(stmt)
        dst.commit()
        psql(";\n".join(SCENARIO) + ";\n")
        for q in SCENARIO_QUERIES:
            rows = dst.execute(q).fetchall()
            ok = compare_rows(q, rows, pg_rows(q))
            print(f"  {'ok  ' if ok else 'DIFF'} {len(rows):3} rows  {q}")
            if os.environ.get("PARITY_VERBOSE"):
                for r in rows:
                    print(f"             {r}")
        refused = 0
        for stmt in REFUSED:
            try:
                dst.execute("SAVEPOINT s")
                dst.execute(stmt)
                lite_refused = False
            except sqlite3.DatabaseError:
                lite_refused = True
            finally:
                dst.execute("ROLLBACK TO s")
                dst.execute("RELEASE s")
            pg_refused = psql(f"BEGIN;\n{stmt};\nROLLBACK;\n", single_transaction=False, check=False).returncode != 0
            if lite_refused and pg_refused:
                refused += 1
            else:
                fail(f"refused on SQLite: {lite_refused}, on PostgreSQL: {pg_refused}: {stmt}")
        print(f"  {refused}/{len(REFUSED)} invalid rows refused by both")
        dst.close()
    finally:
        shutil.rmtree(work)


def main():
    if len(sys.argv) != 2:
        print("usage: pg_schema_parity.py SQLITE_DATABASE (PGHOST, PGPORT, PGUSER, PGDATABASE set)", file=sys.stderr)
        return 2
    sqlite_path = sys.argv[1]
    migrations = load_migrations()
    print("== Applying the PostgreSQL migrations")
    for identifier, path, sql in migrations:
        try:
            psql(sql)
        except RuntimeError as e:
            print(f"  FAILED {identifier} ({path}):\n{e}")
            return 1
        print(f"  ok   {identifier:45} {path}")
    db = sqlite3.connect(f"file:{sqlite_path}?mode=ro", uri=True)
    lite = sqlite_schema(db)
    pg = postgres_schema()
    compare_schema(lite, pg)
    print("== Reference rows the migrations insert")
    for t in ("province", "province_alias", "activity_profile"):
        cols = ", ".join(c[0] for c in lite["tables"][t]["columns"])
        ok = compare_rows(f"reference rows of {t}", db.execute(f"SELECT {cols} FROM {t}").fetchall(), pg_rows(f"SELECT {cols} FROM {t}"))
        print(f"  {'ok  ' if ok else 'DIFF'} {t}")
    copy_data(db, lite)
    compare_data(db, lite)
    db.close()
    compare_behaviour(sqlite_path)
    print()
    if failures:
        print(f"FAILED: {len(failures)} difference(s)")
        return 1
    print("OK: the PostgreSQL schema matches the SQLite one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
