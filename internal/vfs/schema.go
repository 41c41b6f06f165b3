package vfs

// schemaVersion is stored in PRAGMA user_version. Bump it with a migration.
const schemaVersion = 6

// migrations[v] takes a store of schema version v to v+1. Open runs the ones
// a store needs, in order, each in its own transaction with the new
// user_version, before anything else reads the store: a crash leaves the store
// at the version of the last migration that committed. schemaSQL always
// creates the newest schema, so a new store needs none of them.
var migrations = map[int64]string{
	// 1 → 2: device numbers of character and block devices (issue 21). A
	// column with a constant default: SQLite adds it without rewriting a row.
	1: `ALTER TABLE inodes ADD COLUMN rdev INTEGER NOT NULL DEFAULT 0`,
	// 2 → 3: small files inline in their inode row (issues 20, 21). Columns
	// without a default: existing rows read NULL (chunked) and nothing is
	// rewritten. The store's threshold is DefaultInlineMax from then on;
	// its small files move inline when they are next written.
	2: `ALTER TABLE inodes ADD COLUMN data BLOB;
		ALTER TABLE inodes ADD COLUMN data_hash BLOB;
		INSERT INTO meta(key, value) VALUES ('inline_max', ` + inlineMaxSQL + `)`,
	// 3 → 4: full-size chunks in the chunk file (issue 20, slots.go). A
	// column without a default: existing chunks read NULL (their bytes stay
	// in chunk_data, read as before); new full-size chunks take a slot.
	3: `ALTER TABLE chunks ADD COLUMN slot INTEGER`,
	// 4 → 5: each inode's xattr bytes kept by triggers (xattrBytesSQL), so
	// that a setxattr checks MaxXattrBytes without summing the inode's other
	// attributes; filled from the attributes already there.
	4: xattrBytesSQL + `
		INSERT INTO xattr_bytes(ino, bytes)
			SELECT ino, sum(length(CAST(name AS BLOB)) + length(value)) FROM xattrs GROUP BY ino`,
	// 5 → 6: each entry's file type in its row (issue 20), so that a
	// listing of names and types (ReadDirNames: find, du, ls) reads the
	// entries alone, not each one's inode row. A constant default: existing
	// entries read 0, "not recorded", and their listing looks the type up
	// in the inode row as before; nothing is rewritten.
	5: `ALTER TABLE dentries ADD COLUMN type INTEGER NOT NULL DEFAULT 0`,
}

// xattrBytesSQL keeps xattr_bytes: for every inode with extended attributes,
// the bytes of their names and values together (what MaxXattrBytes bounds),
// maintained by triggers on xattrs, so every way a row comes or goes (set,
// remove, an inode's deletion, a copy of rows) keeps it right. A set of a new
// attribute is one more row write; an inode with no attributes has no row and
// costs nothing. (setxattr updates a row in place, ON CONFLICT DO UPDATE:
// INSERT OR REPLACE would delete the old row without firing the delete
// trigger.)
const xattrBytesSQL = `
CREATE TABLE xattr_bytes (
	ino   INTEGER PRIMARY KEY,
	bytes INTEGER NOT NULL
) STRICT;

CREATE TRIGGER xattrs_insert AFTER INSERT ON xattrs BEGIN
	INSERT INTO xattr_bytes(ino, bytes) VALUES (new.ino, length(CAST(new.name AS BLOB)) + length(new.value))
		ON CONFLICT(ino) DO UPDATE SET bytes = bytes + excluded.bytes;
END;

CREATE TRIGGER xattrs_delete AFTER DELETE ON xattrs BEGIN
	UPDATE xattr_bytes SET bytes = bytes - length(CAST(old.name AS BLOB)) - length(old.value) WHERE ino = old.ino;
	DELETE FROM xattr_bytes WHERE ino = old.ino AND bytes = 0;
END;

CREATE TRIGGER xattrs_update AFTER UPDATE ON xattrs BEGIN
	UPDATE xattr_bytes SET bytes = bytes - length(CAST(old.name AS BLOB)) - length(old.value) WHERE ino = old.ino;
	INSERT INTO xattr_bytes(ino, bytes) VALUES (new.ino, length(CAST(new.name AS BLOB)) + length(new.value))
		ON CONFLICT(ino) DO UPDATE SET bytes = bytes + excluded.bytes;
	DELETE FROM xattr_bytes WHERE ino = old.ino AND bytes = 0;
END;
`

// inlineMaxSQL is DefaultInlineMax as SQL text, for the migration.
const inlineMaxSQL = "2048"

// The schema. Invariants (verified by Check):
//   - inodes: one row per live inode; nlink counts dentries (directories: 2 + subdirs);
//     a row with nlink 0 exists only while a handle keeps an unlinked file open, and
//     is removed at the next Open after a crash.
//   - dentries: (parent, name) → ino; every directory but the root has exactly one.
//     type is the S_IFMT bits of the inode's mode (a type never changes), or 0
//     for an entry written before version 6 (the listing reads the inode then).
//     There is deliberately no index by ino: it would add a page write to every
//     namespace change, and nothing on a hot path needs ino → name.
//   - chunks: one row per distinct content chunk (SHA-256), refs = number of
//     file_chunks rows that point at it; a chunk whose refs reach 0 is deleted in the
//     same transaction. chunk_data holds the bytes apart so refcount updates never
//     rewrite the blob. A chunk of the full chunk size written since version
//     4 has a slot instead (chunks.slot, not NULL): its bytes are in the chunk
//     file at slot × chunk_size (slots.go), it has no chunk_data row, and no
//     two chunks share a slot.
//   - FIFOs, sockets and devices have no content, no target and size 0; only
//     devices have an rdev.
//   - file_chunks: (ino, idx) → chunk; idx*chunk_size < size; missing idx = hole.
//   - inodes.data: the content of a small regular file held in its row (inline)
//     instead of in chunks: 0 < length(data) <= size <= meta.inline_max (bytes
//     past length(data) read as zeros, as past a short last chunk), data_hash
//     its SHA-256, and no file_chunks rows. NULL (both) for everything else.
//     blocks counts it as it would count the chunk holding it.
//   - xattr_bytes: ino → the bytes of its xattrs' names and values, for every
//     inode with at least one (xattrBytesSQL).
//   - journal: every mutation, numbered, written in the mutation's transaction.
const schemaSQL = `
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value ANY
) STRICT, WITHOUT ROWID;

CREATE TABLE inodes (
	ino    INTEGER PRIMARY KEY,
	gen    INTEGER NOT NULL,
	mode   INTEGER NOT NULL,
	nlink  INTEGER NOT NULL,
	uid    INTEGER NOT NULL,
	gid    INTEGER NOT NULL,
	size   INTEGER NOT NULL,
	blocks INTEGER NOT NULL,
	atime  INTEGER NOT NULL, -- seconds since the epoch (times span 1901..2446 like ext4,
	atime_ns INTEGER NOT NULL, -- beyond the int64-nanosecond range)
	mtime  INTEGER NOT NULL,
	mtime_ns INTEGER NOT NULL,
	ctime  INTEGER NOT NULL,
	ctime_ns INTEGER NOT NULL,
	btime  INTEGER NOT NULL,
	btime_ns INTEGER NOT NULL,
	target BLOB, -- symlinks: the target
	rdev   INTEGER NOT NULL DEFAULT 0, -- character and block devices: the device number
	data   BLOB, -- a small regular file's content, inline (see above); last, so reading a row without it stops before it
	data_hash BLOB -- SHA-256 of data
) STRICT;

CREATE TABLE dentries (
	parent INTEGER NOT NULL,
	name   TEXT NOT NULL,
	ino    INTEGER NOT NULL,
	type   INTEGER NOT NULL DEFAULT 0, -- the inode's S_IFMT bits; 0: not recorded (before version 6)
	PRIMARY KEY (parent, name)
) STRICT, WITHOUT ROWID;

CREATE TABLE xattrs (
	ino   INTEGER NOT NULL,
	name  TEXT NOT NULL,
	value BLOB NOT NULL,
	PRIMARY KEY (ino, name)
) STRICT, WITHOUT ROWID;

CREATE TABLE chunks (
	id   INTEGER PRIMARY KEY,
	hash BLOB NOT NULL UNIQUE,
	size INTEGER NOT NULL,
	refs INTEGER NOT NULL,
	slot INTEGER -- the chunk file's slot holding the bytes (full-size chunks); NULL: in chunk_data
) STRICT;

CREATE TABLE chunk_data (
	id   INTEGER PRIMARY KEY,
	data BLOB NOT NULL
) STRICT;

CREATE TABLE file_chunks (
	ino   INTEGER NOT NULL,
	idx   INTEGER NOT NULL,
	chunk INTEGER NOT NULL,
	PRIMARY KEY (ino, idx)
) STRICT, WITHOUT ROWID;

CREATE TABLE journal (
	seq        INTEGER PRIMARY KEY,
	time       INTEGER NOT NULL,
	op         TEXT NOT NULL,
	ino        INTEGER NOT NULL,
	parent     INTEGER NOT NULL,
	name       TEXT NOT NULL,
	path       TEXT NOT NULL,
	old_parent INTEGER NOT NULL,
	old_name   TEXT NOT NULL,
	old_path   TEXT NOT NULL,
	off        INTEGER NOT NULL,
	len        INTEGER NOT NULL,
	actor      TEXT NOT NULL -- who made the change (WithActor): an execution id, a token, ...
) STRICT;

-- Records and their logs: durable values for the layers above the filesystem
-- (execution records and output, audit), outside the namespace and the journal.
CREATE TABLE records (
	kind    TEXT NOT NULL,
	id      TEXT NOT NULL,
	value   BLOB NOT NULL,
	updated INTEGER NOT NULL,
	PRIMARY KEY (kind, id)
) STRICT, WITHOUT ROWID;

-- The last sequence number of each log, so numbering survives trimming.
CREATE TABLE record_log_seq (
	kind TEXT NOT NULL,
	id   TEXT NOT NULL,
	last INTEGER NOT NULL,
	PRIMARY KEY (kind, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE record_log (
	kind TEXT NOT NULL,
	id   TEXT NOT NULL,
	seq  INTEGER NOT NULL,
	data BLOB NOT NULL,
	PRIMARY KEY (kind, id, seq)
) STRICT;
` + xattrBytesSQL
