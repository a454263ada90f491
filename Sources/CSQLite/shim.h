#ifndef GAZETTEER_CSQLITE_SHIM_H
#define GAZETTEER_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
