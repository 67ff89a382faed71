/* What the hotkey path's SQLite work costs alone: open the store read-only, the version and
 * schema checks the CLI makes, and the current-session query. For Scripts/floors.sh. */
#include <sqlite3.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2) return 64;
    sqlite3 *db;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) return 1;
    const char *queries[] = {
        "PRAGMA user_version",
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
        "SELECT s.name, s.user_identifier, s.user_name, s.user_fields, s.token, s.base_url, s.environment,"
        " s.created_at_ms, s.updated_at_ms FROM current_session AS c JOIN sessions AS s ON s.id = c.session_id"
        " WHERE c.id = 1",
    };
    for (int i = 0; i < 3; i++) {
        sqlite3_stmt *statement;
        if (sqlite3_prepare_v2(db, queries[i], -1, &statement, NULL) != SQLITE_OK) return 2;
        while (sqlite3_step(statement) == SQLITE_ROW)
            if (i == 2) puts((const char *)sqlite3_column_text(statement, 1));
        sqlite3_finalize(statement);
    }
    sqlite3_close(db);
    return 0;
}
