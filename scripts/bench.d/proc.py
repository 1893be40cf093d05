#!/usr/bin/env python3
"""Process measurements for scripts/bench that GNU time cannot make.

usage: proc.py repeat N LABEL -- COMMAND...
         Runs COMMAND N times in a row (output discarded) and prints one line per run:
         `LABEL REP WALL_S CPU_S MAXRSS_KB STATUS`, wall time from just before the spawn to the
         reap, CPU (user + system) and peak RSS from the kernel's rusage of the child.
       proc.py idle SECONDS SETTLE -- COMMAND...
         Starts COMMAND (a long-running process such as `feedline schedule`), lets it settle for
         SETTLE seconds, then measures the CPU time the process uses over SECONDS of waiting, read
         from its process CPU-time clock (clock_getcpuclockid: nanoseconds, every thread, those
         that ended included; /proc/PID/stat counts 10 ms ticks, too coarse for an idle process),
         then stops it with SIGTERM and prints
         `idle SECONDS CPU_S CPU_PER_HOUR_S MAXRSS_KB STATUS` (STATUS: its exit status after SIGTERM).
       proc.py split N LABEL -- COMMAND...
         Runs COMMAND N times in a row (output discarded), reading /proc/PID/status about every
         millisecond, and prints one line per run:
         `LABEL REP MAXRSS_KB SAMPLED_RSS_KB ANON_KB FILE_KB STATUS`: the kernel's peak RSS
         (rusage), and the highest RSS sampled with its anonymous part (RssAnon: heap, stacks,
         written data) and its file-backed part (RssFile: the code and read-only data of the
         executable and its libraries, as far as the process has touched them) at that moment.
         The two peaks differ by a little either way: a sample can miss the very peak, and the
         kernel brings its own peak figure up to date only now and then.
       proc.py cpu PID
         Prints the CPU time (user + system, seconds) process PID has used so far: every thread,
         those that ended included, from its process CPU-time clock (nanoseconds). scripts/bench
         reads it before and after each live run for the page server's share.
"""
import os
import signal
import subprocess
import sys
import time


def repeat(n, label, command):
    for rep in range(1, n + 1):
        t0 = time.perf_counter()
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        print(f"{label} {rep} {wall:.4f} {usage.ru_utime + usage.ru_stime:.4f} {usage.ru_maxrss} {proc.returncode}", flush=True)


def status_kb(pid):
    """VmRSS, RssAnon and RssFile of process `pid` in KiB, from /proc/PID/status (None once it has gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            fields = dict(line.split(":", 1) for line in fh if line.startswith(("VmRSS", "RssAnon", "RssFile")))
        return tuple(int(fields[k].split()[0]) for k in ("VmRSS", "RssAnon", "RssFile"))
    except (OSError, KeyError, ValueError):
        return None


def rss_by_kind(n, label, command):
    for rep in range(1, n + 1):
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = (0, 0, 0)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid != 0:
                break
            sample = status_kb(proc.pid)
            if sample and sample[0] > best[0]:
                best = sample
            time.sleep(0.001)
        proc.returncode = os.waitstatus_to_exitcode(status)
        print(f"{label} {rep} {usage.ru_maxrss} {best[0]} {best[1]} {best[2]} {proc.returncode}", flush=True)


def process_cpu_ns(pid):
    """The CPU time of process `pid` so far: its process CPU-time clock, as clock_getcpuclockid(3) makes it
    (MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED) in Linux's posix-cpu-timers)."""
    return time.clock_gettime_ns(((~pid) << 3) | 2)


def idle(seconds, settle, command):
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(settle)
    if proc.poll() is not None:
        print(f"error: {' '.join(command)} exited with status {proc.returncode} before it settled", file=sys.stderr)
        return 1
    before = process_cpu_ns(proc.pid)
    time.sleep(seconds)
    after = process_cpu_ns(proc.pid)
    proc.send_signal(signal.SIGTERM)
    _, status, usage = os.wait4(proc.pid, 0)
    cpu = (after - before) / 1e9
    print(f"idle {seconds} {cpu:.6f} {cpu * 3600 / seconds:.4f} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
    return 0


def main(argv):
    if argv[1:2] == ["cpu"] and len(argv) >= 3:
        print(f"{process_cpu_ns(int(argv[2])) / 1e9:.6f}")
        return 0
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    split = argv.index("--")
    args, command = argv[1:split], argv[split + 1:]
    if args[:1] == ["repeat"] and len(args) == 3:
        repeat(int(args[1]), args[2], command)
        return 0
    if args[:1] == ["split"] and len(args) == 3:
        rss_by_kind(int(args[1]), args[2], command)
        return 0
    if args[:1] == ["idle"] and len(args) == 3:
        return idle(float(args[1]), float(args[2]), command)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
