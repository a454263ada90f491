#ifndef GAZETTEER_CSQLITE_SHIM_H
#define GAZETTEER_CSQLITE_SHIM_H
#include <sqlite3.h>

/* sqlite3_config is variadic, which Swift cannot call. Turning off memory statistics removes
   a process-wide mutex taken on every allocation, which otherwise serialises threads that
   query through separate connections. Must run before SQLite initialises. */
static inline int gazetteer_sqlite_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
