// Package sqlite is desk's seam over the SQLite driver (github.com/ncruces/go-sqlite3,
// its native statement API). Everything the workspace store (internal/vfs) and the
// token store (internal/auth) need from SQLite goes through the few types here, so
// changing the driver touches only this package; internal/archtest checks that no
// other package imports the driver.
//
// Connections open their database through walVFS (wal.go), SQLite's own VFS with
// the write-ahead log's frames gathered into one write per commit; for a database
// not in WAL mode it is SQLite's own VFS unchanged.
//
// A Conn is not safe for concurrent use; callers pool or lock connections.
//
// Every file of a database (the database, -wal, -shm, journal) is created
// mode 0600 whatever the umask, and one found wider is narrowed when the
// database is opened (mode.go).
//
// Conn.Tx runs a write transaction; Conn.Claim opens a file as one of
// desk's own databases (Schema: its application_id, schema version and
// tables), refusing another application's file or a newer version. The
// share index and the artifact index use it.
package sqlite
