package vfs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"slices"

	"golang.org/x/sys/unix"
)

// CheckReport lists the invariant violations Check found.
type CheckReport struct {
	Problems []string
	Inodes   int64
	Chunks   int64
}

// OK reports whether the store is consistent.
func (r *CheckReport) OK() bool { return len(r.Problems) == 0 }

func (r *CheckReport) addf(format string, args ...any) {
	if len(r.Problems) < 1000 {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// Check verifies every invariant of the store (an fsck): SQLite's own integrity,
// directory structure, link counts, sizes, chunk reference counts, orphan rows,
// every chunk's hash, and inline content (its size, its hash, no chunks beside it). It reads a consistent snapshot and does not block writers.
func (f *FS) Check(ctx context.Context) (*CheckReport, error) {
	c, err := f.reader(ctx)
	if err != nil {
		return nil, err
	}
	defer f.putReader(c)
	// The snapshot is taken with no commit in progress, together with the set
	// of inodes that may legally have no name (open, or deleted by a commit
	// still to come), so the two agree.
	// Slots the snapshot names are not reused before Check ends (slots.go).
	e := f.slots.enter()
	defer f.slots.leave(e)
	f.wmu.Lock()
	err = c.Exec("BEGIN; SELECT 1 FROM inodes LIMIT 1")
	held := make(map[uint64]bool)
	if err == nil {
		f.omu.Lock()
		for ino := range f.opens {
			held[ino] = true
		}
		f.omu.Unlock()
		f.dmu.Lock()
		for ino := range f.drops {
			held[ino] = true
		}
		f.dmu.Unlock()
	}
	f.wmu.Unlock()
	if err != nil {
		return nil, err
	}
	defer c.Exec("COMMIT")
	rep := &CheckReport{}
	queries := []struct{ what, q string }{
		{"sqlite integrity", "SELECT 1 FROM pragma_quick_check WHERE quick_check != 'ok'"},
		{"root is not a directory", fmt.Sprintf("SELECT ino FROM inodes WHERE ino = 1 AND mode & %d != %d", S_IFMT, S_IFDIR)},
		{"root missing", "SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM inodes WHERE ino = 1)"},
		{"root has a name", "SELECT ino FROM dentries WHERE ino = 1"},
		{"entry points to missing inode", "SELECT d.ino FROM dentries d LEFT JOIN inodes i ON i.ino = d.ino WHERE i.ino IS NULL"},
		{"entry type differs from its inode's", fmt.Sprintf("SELECT d.ino FROM dentries d JOIN inodes i ON i.ino = d.ino WHERE d.type != 0 AND d.type != i.mode & %d", S_IFMT)},
		{"entry in a non-directory", fmt.Sprintf("SELECT d.parent FROM dentries d JOIN inodes p ON p.ino = d.parent WHERE p.mode & %d != %d", S_IFMT, S_IFDIR)},
		{"entry in missing directory", "SELECT d.parent FROM dentries d LEFT JOIN inodes p ON p.ino = d.parent WHERE p.ino IS NULL"},
		{"bad entry name", "SELECT d.parent FROM dentries d WHERE d.name = '' OR d.name = '.' OR d.name = '..' OR instr(d.name, '/') > 0"},
		{"directory with more than one name", fmt.Sprintf("SELECT d.ino FROM dentries d JOIN inodes i ON i.ino = d.ino WHERE i.mode & %d = %d GROUP BY d.ino HAVING count(*) > 1", S_IFMT, S_IFDIR)},
		{"file nlink differs from its names", fmt.Sprintf(`SELECT i.ino FROM inodes i LEFT JOIN (SELECT ino, count(*) AS n FROM dentries GROUP BY ino) d
			ON d.ino = i.ino WHERE i.mode & %d != %d AND i.nlink > 0 AND i.nlink != coalesce(d.n, 0)`, S_IFMT, S_IFDIR)},
		{"directory nlink is not 2 + subdirectories", fmt.Sprintf(`SELECT i.ino FROM inodes i WHERE i.mode & %[1]d = %[2]d AND i.nlink > 0 AND i.nlink != 2 +
			(SELECT count(*) FROM dentries d JOIN inodes c ON c.ino = d.ino WHERE d.parent = i.ino AND c.mode & %[1]d = %[2]d)`, S_IFMT, S_IFDIR)},
		{"unreachable inode (no name, not open)", `SELECT i.ino FROM inodes i LEFT JOIN (SELECT DISTINCT ino FROM dentries) d ON d.ino = i.ino
			WHERE i.ino != 1 AND i.nlink > 0 AND d.ino IS NULL`},
		{"unknown file type", fmt.Sprintf("SELECT ino FROM inodes WHERE mode & %d NOT IN (%d, %d, %d, %d, %d, %d, %d)", S_IFMT, S_IFREG, S_IFDIR, S_IFLNK, S_IFIFO, S_IFSOCK, S_IFCHR, S_IFBLK)},
		{"device number of a non-device", fmt.Sprintf("SELECT ino FROM inodes WHERE rdev != 0 AND mode & %d NOT IN (%d, %d)", S_IFMT, S_IFCHR, S_IFBLK)},
		{"special file with a size, blocks or a target", fmt.Sprintf("SELECT ino FROM inodes WHERE mode & %d IN (%d, %d, %d, %d) AND (size != 0 OR blocks != 0 OR target IS NOT NULL)", S_IFMT, S_IFIFO, S_IFSOCK, S_IFCHR, S_IFBLK)},
		{"symlink size differs from its target", fmt.Sprintf("SELECT ino FROM inodes WHERE mode & %d = %d AND (target IS NULL OR length(CAST(target AS BLOB)) != size)", S_IFMT, S_IFLNK)},
		{"negative size", "SELECT ino FROM inodes WHERE size < 0"},
		{"chunk rows of a missing inode", "SELECT DISTINCT fc.ino FROM file_chunks fc LEFT JOIN inodes i ON i.ino = fc.ino WHERE i.ino IS NULL"},
		{"chunk rows of a non-regular file", fmt.Sprintf("SELECT DISTINCT fc.ino FROM file_chunks fc JOIN inodes i ON i.ino = fc.ino WHERE i.mode & %d != %d", S_IFMT, S_IFREG)},
		{"file references missing chunk", "SELECT fc.ino FROM file_chunks fc LEFT JOIN chunks c ON c.id = fc.chunk WHERE c.id IS NULL"},
		{"chunk beyond end of file", fmt.Sprintf("SELECT fc.ino FROM file_chunks fc JOIN inodes i ON i.ino = fc.ino JOIN chunks c ON c.id = fc.chunk WHERE fc.idx * %[1]d >= i.size OR fc.idx * %[1]d + c.size > i.size OR fc.idx < 0", f.chunkSize)},
		{"chunk larger than the chunk size", fmt.Sprintf("SELECT id FROM chunks WHERE size > %d OR size <= 0", f.chunkSize)},
		{"chunk refcount wrong", `SELECT c.id FROM chunks c LEFT JOIN (SELECT chunk, count(*) AS n FROM file_chunks GROUP BY chunk) r
			ON r.chunk = c.id WHERE c.refs != coalesce(r.n, 0)`},
		{"chunk without data", "SELECT c.id FROM chunks c LEFT JOIN chunk_data d ON d.id = c.id WHERE d.id IS NULL AND c.slot IS NULL"},
		{"chunk with both a slot and data", "SELECT c.id FROM chunks c JOIN chunk_data d ON d.id = c.id WHERE c.slot IS NOT NULL"},
		{"chunk in a slot not of the chunk size", fmt.Sprintf("SELECT id FROM chunks WHERE slot IS NOT NULL AND (size != %d OR typeof(slot) != 'integer' OR slot < 0)", f.chunkSize)},
		{"slot shared by chunks", "SELECT slot FROM chunks WHERE slot IS NOT NULL GROUP BY slot HAVING count(*) > 1"},
		{"data without chunk", "SELECT d.id FROM chunk_data d LEFT JOIN chunks c ON c.id = d.id WHERE c.id IS NULL"},
		{"chunk data size wrong", "SELECT c.id FROM chunks c JOIN chunk_data d ON d.id = c.id WHERE length(d.data) != c.size"},
		{"xattr of missing inode", "SELECT x.ino FROM xattrs x LEFT JOIN inodes i ON i.ino = x.ino WHERE i.ino IS NULL"},
		{"xattr byte count wrong", `SELECT x.ino FROM (SELECT ino, sum(length(CAST(name AS BLOB)) + length(value)) AS n FROM xattrs GROUP BY ino) x
			LEFT JOIN xattr_bytes b ON b.ino = x.ino WHERE b.bytes IS NOT x.n
			UNION ALL SELECT b.ino FROM xattr_bytes b WHERE NOT EXISTS (SELECT 1 FROM xattrs x WHERE x.ino = b.ino)`},
		{"blocks count wrong", fmt.Sprintf(`SELECT i.ino FROM inodes i WHERE i.mode & %d = %d AND i.blocks !=
			coalesce((SELECT sum((c.size + 4095) / 4096 * 8) FROM file_chunks fc JOIN chunks c ON c.id = fc.chunk WHERE fc.ino = i.ino), 0) +
			coalesce((length(i.data) + 4095) / 4096 * 8, 0)`, S_IFMT, S_IFREG)},
		{"inline content of a non-regular file", fmt.Sprintf("SELECT ino FROM inodes WHERE (data IS NOT NULL OR data_hash IS NOT NULL) AND mode & %d != %d", S_IFMT, S_IFREG)},
		{"inline content with chunk rows", "SELECT DISTINCT i.ino FROM inodes i JOIN file_chunks fc ON fc.ino = i.ino WHERE i.data IS NOT NULL"},
		{"inline content size wrong", fmt.Sprintf("SELECT ino FROM inodes WHERE data IS NOT NULL AND (typeof(data) != 'blob' OR length(data) = 0 OR length(data) > size OR size > %d)", f.inlineMax)},
		{"inline content without its hash", "SELECT ino FROM inodes WHERE (data IS NULL) != (data_hash IS NULL) OR data_hash IS NOT NULL AND length(data_hash) != 32"},
	}
	for _, q := range queries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st, err := c.Prep(q.q)
		if err != nil {
			return nil, err
		}
		for st.Step() {
			rep.addf("%s: %d", q.what, st.Int64(0))
		}
		err = st.Err()
		st.Reset()
		if err != nil {
			return nil, fmt.Errorf("check %s: %w", q.what, err)
		}
	}
	// Orphans (nlink 0) are legal only while a handle holds them open.
	st, err := c.Prep("SELECT ino FROM inodes WHERE nlink = 0")
	if err != nil {
		return nil, err
	}
	for st.Step() {
		ino := uint64(st.Int64(0))
		if !held[ino] {
			rep.addf("unlinked inode not open: %d", ino)
		}
	}
	st.Reset()
	// Reachability: every directory must be reachable from the root (no cycles).
	unreached, err := queryInt(c, fmt.Sprintf(`WITH RECURSIVE tree(ino) AS (SELECT 1 UNION SELECT d.ino FROM dentries d JOIN tree t ON d.parent = t.ino)
		SELECT count(*) FROM inodes i WHERE i.nlink > 0 AND i.mode & %d = %d AND i.ino NOT IN (SELECT ino FROM tree)`, S_IFMT, S_IFDIR))
	if err != nil {
		return nil, err
	}
	if unreached > 0 {
		rep.addf("directories unreachable from the root: %d", unreached)
	}
	// Every chunk's content must match its hash, in chunk_data or in the
	// chunk file (the epoch entered before the snapshot keeps its slots).
	st, err = c.Prep("SELECT c.id, c.hash, d.data, c.slot FROM chunks c LEFT JOIN chunk_data d ON d.id = c.id AND c.slot IS NULL WHERE d.id IS NOT NULL OR c.slot IS NOT NULL")
	if err != nil {
		return nil, err
	}
	var buf []byte
	for st.Step() {
		rep.Chunks++
		if rep.Chunks%256 == 0 && ctx.Err() != nil {
			st.Reset()
			return nil, ctx.Err()
		}
		data := st.RawBlob(2)
		if !st.IsNull(3) {
			buf = slices.Grow(buf[:0], int(f.chunkSize))[:f.chunkSize]
			if err := f.slots.read(st.Int64(3), 0, buf); err != nil {
				rep.addf("chunk file slot unreadable: chunk %d: %v", st.Int64(0), err)
				continue
			}
			data = buf
		}
		sum := sha256.Sum256(data)
		if !bytes.Equal(sum[:], st.RawBlob(1)) {
			rep.addf("chunk hash mismatch: %d", st.Int64(0))
		}
	}
	err = st.Err()
	st.Reset()
	if err != nil {
		return nil, err
	}
	// And every inline content's.
	st, err = c.Prep("SELECT ino, data_hash, data FROM inodes WHERE data IS NOT NULL")
	if err != nil {
		return nil, err
	}
	n := 0
	for st.Step() {
		if n++; n%256 == 0 && ctx.Err() != nil {
			st.Reset()
			return nil, ctx.Err()
		}
		sum := sha256.Sum256(st.RawBlob(2))
		if !bytes.Equal(sum[:], st.RawBlob(1)) {
			rep.addf("inline content hash mismatch: %d", st.Int64(0))
		}
	}
	err = st.Err()
	st.Reset()
	if err != nil {
		return nil, err
	}
	if rep.Inodes, err = queryInt(c, "SELECT count(*) FROM inodes"); err != nil {
		return nil, err
	}
	return rep, nil
}

// Stats reports what the store holds.
func (f *FS) Stats(ctx context.Context) (Stats, error) {
	if err := ctx.Err(); err != nil {
		return Stats{}, err
	}
	// Deletions waiting for a commit are made, so the figures are exact.
	if err := f.commitDrops(ctx); err != nil {
		return Stats{}, err
	}
	c, err := f.reader(ctx)
	if err != nil {
		return Stats{}, err
	}
	defer f.putReader(c)
	var s Stats
	st, err := c.Prep(fmt.Sprintf(`SELECT
		coalesce(sum(mode & %[1]d = %[2]d), 0), coalesce(sum(mode & %[1]d = %[3]d), 0), coalesce(sum(mode & %[1]d = %[4]d), 0),
		coalesce(sum(CASE WHEN mode & %[1]d = %[2]d THEN size ELSE 0 END), 0),
		coalesce(sum(mode & %[1]d IN (%[5]d, %[6]d, %[7]d, %[8]d)), 0)
		FROM inodes WHERE nlink > 0`, S_IFMT, S_IFREG, S_IFDIR, S_IFLNK, S_IFIFO, S_IFSOCK, S_IFCHR, S_IFBLK))
	if err != nil {
		return s, err
	}
	if st.Step() {
		s.Files, s.Dirs, s.Symlinks, s.Bytes, s.Special = st.Int64(0), st.Int64(1), st.Int64(2), st.Int64(3), st.Int64(4)
	}
	err = st.Err()
	st.Reset()
	if err != nil {
		return s, err
	}
	if s.StoredBytes, err = queryInt(c, "SELECT coalesce(sum(c.size), 0) FROM file_chunks fc JOIN chunks c ON c.id = fc.chunk"); err != nil {
		return s, err
	}
	if s.UniqueBytes, err = queryInt(c, "SELECT coalesce(sum(size), 0) FROM chunks"); err != nil {
		return s, err
	}
	st, err = c.Prep("SELECT count(*), coalesce(sum(length(data)), 0) FROM inodes WHERE data IS NOT NULL")
	if err != nil {
		return s, err
	}
	if st.Step() {
		s.InlineFiles, s.InlineBytes = st.Int64(0), st.Int64(1)
	}
	err = st.Err()
	st.Reset()
	if err != nil {
		return s, err
	}
	s.StoredBytes += s.InlineBytes
	s.UniqueBytes += s.InlineBytes
	if s.Chunks, err = queryInt(c, "SELECT count(*) FROM chunks"); err != nil {
		return s, err
	}
	if s.SlotChunks, err = queryInt(c, "SELECT count(*) FROM chunks WHERE slot IS NOT NULL"); err != nil {
		return s, err
	}
	var cst unix.Stat_t
	if unix.Stat(f.path+ChunkFileSuffix, &cst) == nil {
		s.ChunkFileBytes = cst.Blocks * 512
	}
	s.DedupRatio = 1
	if s.UniqueBytes > 0 {
		s.DedupRatio = float64(s.StoredBytes) / float64(s.UniqueBytes)
	}
	s.JournalSeq = f.Seq()
	pages, err := queryInt(c, "PRAGMA page_count")
	if err != nil {
		return s, err
	}
	free, err := queryInt(c, "PRAGMA freelist_count")
	if err != nil {
		return s, err
	}
	ps, err := f.pageSize(c)
	if err != nil {
		return s, err
	}
	s.LiveBytes, s.ReclaimableBytes = (pages-free)*ps, free*ps
	if fi, err := os.Stat(f.path); err == nil {
		s.FileBytes = fi.Size()
	}
	if fi, err := os.Stat(f.path + "-wal"); err == nil {
		s.WALBytes = fi.Size()
	}
	s.DBBytes = s.FileBytes + s.WALBytes
	return s, nil
}
