#ifndef FEEDLINE_CSQLITETUNING_H
#define FEEDLINE_CSQLITETUNING_H

/// Turns off SQLite's memory statistics for this process (SQLITE_CONFIG_MEMSTATUS = 0), so that
/// SQLite's allocations stop taking a global mutex each. `sqlite3_config` takes variable
/// arguments, which Swift cannot call, hence this function. It works only before SQLite is first
/// used in the process and only while no other thread uses SQLite; later it does nothing and
/// returns SQLITE_MISUSE (21). Returns SQLITE_OK (0) when the setting took.
int feedline_sqlite_memstatus_off(void);

#endif
