package fsio

import (
	"archive/zip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"time"
)

// Zip extra fields fsio reads and writes (APPNOTE.TXT 4.5 and Info-ZIP's
// extrafld.txt), and desk's own.
const (
	zipNTFSID    = 0x000a // NTFS: mtime, atime, ctime in 100 ns ticks since 1601
	zipExtTimeID = 0x5455 // "UT": extended timestamp, seconds (archive/zip writes it)
	zipUnixID    = 0x7875 // "ux": Info-ZIP's uid and gid
	zipDeskLink  = 0x6b64 // "dk": desk's hard link field: the name of an earlier entry
)

// creatorUnix is the "version made by" high byte of Unix zips, whose
// external attributes hold the Unix mode in their upper 16 bits.
const (
	creatorUnix  = 3
	creatorMacOS = 19
)

// Unix file type bits, as zips store them.
const (
	sIFMT   = 0o170000
	sIFREG  = 0o100000
	sIFDIR  = 0o040000
	sIFLNK  = 0o120000
	sIFIFO  = 0o010000
	sIFCHR  = 0o020000
	sIFBLK  = 0o060000
	sIFSOCK = 0o140000
)

// ntfsEpoch is the NTFS time origin, 1601-01-01 UTC, in Unix seconds.
var ntfsEpoch = time.Date(1601, time.January, 1, 0, 0, 0, 0, time.UTC).Unix()

// openZip reads a zip's directory, refusing before it is read one whose
// entries or size go past the limits of opts (the directory is held in
// memory: it counts against MaxMetaBytes), and one whose files declare more
// content than MaxBytes.
func openZip(ra io.ReaderAt, size int64, opts *ImportOptions) (*zip.Reader, error) {
	records, dirSize, err := zipDirectory(ra, size)
	if err != nil {
		return nil, err
	}
	if records > uint64(opts.MaxEntries) {
		return nil, limitErr("MaxEntries", opts.MaxEntries, "entries")
	}
	// archive/zip keeps a File of about 200 bytes for each record, beside
	// the record's names and fields.
	if mem := dirSize + 256*records; mem > uint64(opts.MaxMetaBytes) {
		return nil, fmt.Errorf("%w: the zip's directory of %d entries in %d bytes would take more than %d bytes of memory (MaxMetaBytes)", ErrLimit, records, dirSize, opts.MaxMetaBytes)
	}
	zr, err := zip.NewReader(ra, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fmt.Errorf("%w: read zip: %v", ErrNotArchive, err)
	}
	var total uint64
	for _, f := range zr.File {
		if total += f.UncompressedSize64; total > uint64(opts.MaxBytes) || total < f.UncompressedSize64 {
			return nil, fmt.Errorf("%w: the zip's files declare more than %d bytes of content (MaxBytes)", ErrLimit, opts.MaxBytes)
		}
	}
	return zr, nil
}

// zipDirectory finds a zip's end of central directory record (and its
// zip64 record) and returns the number of entries and the directory's size.
func zipDirectory(ra io.ReaderAt, size int64) (records, dirSize uint64, err error) {
	const eocdLen, maxComment = 22, 65535
	n := min(size, eocdLen+maxComment)
	buf := make([]byte, n)
	if _, err := ra.ReadAt(buf, size-n); err != nil && err != io.EOF {
		return 0, 0, fmt.Errorf("read zip: %w", err)
	}
	at := -1
	for i := len(buf) - eocdLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(buf[i:]) == 0x06054b50 {
			at = i
			break
		}
	}
	if at < 0 {
		return 0, 0, fmt.Errorf("%w: a zip without its end of central directory record (cut short?)", ErrNotArchive)
	}
	eocd := buf[at:]
	records = uint64(binary.LittleEndian.Uint16(eocd[10:]))
	dirSize = uint64(binary.LittleEndian.Uint32(eocd[12:]))
	if records != 0xffff && dirSize != 0xffffffff && binary.LittleEndian.Uint32(eocd[16:]) != 0xffffffff {
		return records, dirSize, nil
	}
	// Zip64: a locator precedes the record, and points at the zip64 record.
	locAt := size - n + int64(at) - 20
	if locAt < 0 {
		return 0, 0, fmt.Errorf("%w: a zip64 archive without its locator", ErrNotArchive)
	}
	loc := make([]byte, 20)
	if _, err := ra.ReadAt(loc, locAt); err != nil {
		return 0, 0, fmt.Errorf("read zip: %w", err)
	}
	if binary.LittleEndian.Uint32(loc) != 0x07064b50 {
		return records, dirSize, nil // not zip64 after all: the values are what they say
	}
	off := binary.LittleEndian.Uint64(loc[8:])
	rec := make([]byte, 56)
	if off > uint64(size) || uint64(size)-off < 56 {
		return 0, 0, fmt.Errorf("%w: a zip64 locator pointing outside the archive", ErrNotArchive)
	}
	if _, err := ra.ReadAt(rec, int64(off)); err != nil {
		return 0, 0, fmt.Errorf("read zip: %w", err)
	}
	if binary.LittleEndian.Uint32(rec) != 0x06064b50 {
		return 0, 0, fmt.Errorf("%w: a zip64 locator pointing at no zip64 record", ErrNotArchive)
	}
	return binary.LittleEndian.Uint64(rec[32:]), binary.LittleEndian.Uint64(rec[40:]), nil
}

// zipExtras is what fsio reads from a zip entry's extra fields.
type zipExtras struct {
	mtime, atime time.Time
	uid, gid     int
	owners       bool
	link         string
	hasLink      bool
}

// parseZipExtras reads the fields fsio knows from a zip entry's extra data
// (the central directory's), ignoring the others and malformed ones. The
// NTFS field's times (100 ns) win over the extended timestamp's (seconds).
func parseZipExtras(extra []byte) zipExtras {
	var x zipExtras
	var utMtime time.Time
	for len(extra) >= 4 {
		id := binary.LittleEndian.Uint16(extra)
		n := int(binary.LittleEndian.Uint16(extra[2:]))
		if len(extra) < 4+n {
			break
		}
		d := extra[4 : 4+n]
		extra = extra[4+n:]
		switch id {
		case zipNTFSID:
			if len(d) < 4 {
				continue
			}
			for a := d[4:]; len(a) >= 4; {
				tag, size := binary.LittleEndian.Uint16(a), int(binary.LittleEndian.Uint16(a[2:]))
				if len(a) < 4+size {
					break
				}
				if tag == 1 && size == 24 {
					x.mtime = ntfsTime(binary.LittleEndian.Uint64(a[4:]))
					x.atime = ntfsTime(binary.LittleEndian.Uint64(a[12:]))
				}
				a = a[4+size:]
			}
		case zipExtTimeID:
			if len(d) >= 5 && d[0]&1 != 0 {
				utMtime = time.Unix(int64(binary.LittleEndian.Uint32(d[1:])), 0)
			}
		case zipUnixID:
			if len(d) < 2 || d[0] != 1 {
				continue
			}
			us := int(d[1])
			if len(d) < 2+us+1 {
				continue
			}
			gs := int(d[2+us])
			if len(d) < 3+us+gs || us > 8 || gs > 8 {
				continue
			}
			x.uid, x.gid, x.owners = int(leUint(d[2:2+us])), int(leUint(d[3+us:3+us+gs])), true
		case zipDeskLink:
			x.link, x.hasLink = string(d), true
		}
	}
	if x.mtime.IsZero() {
		x.mtime = utMtime
	}
	return x
}

func leUint(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func ntfsTime(ticks uint64) time.Time {
	if ticks == 0 {
		return time.Time{}
	}
	return time.Unix(ntfsEpoch+int64(ticks/1e7), int64(ticks%1e7)*100)
}

func toNTFS(t time.Time) uint64 {
	if t.IsZero() || t.Unix() < ntfsEpoch {
		return 0
	}
	return uint64(t.Unix()-ntfsEpoch)*1e7 + uint64(t.Nanosecond()/100)
}

// readZip gives a zip's entries to s, in the directory's order.
func readZip(ctx context.Context, zr *zip.Reader, s sink, opts *ImportOptions) error {
	for _, f := range zr.File {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := addZipEntry(s, f, opts); err != nil {
			return err
		}
	}
	return nil
}

// addZipEntry converts a zip entry to an entry and gives it to s.
func addZipEntry(s sink, f *zip.File, opts *ImportOptions) error {
	rel, err := cleanEntryName(f.Name)
	if err != nil {
		return err
	}
	if f.Flags&0x1 != 0 {
		return &EntryError{f.Name, fmt.Errorf("%w: encrypted zip entries are not supported", ErrNotArchive)}
	}
	// The Unix mode when a Unix tool made the zip; else what unzip gives
	// under the usual umask.
	var mode uint32
	switch f.CreatorVersion >> 8 {
	case creatorUnix, creatorMacOS:
		mode = f.ExternalAttrs >> 16
	}
	isDir := strings.HasSuffix(f.Name, "/") || mode&sIFMT == sIFDIR
	switch {
	case mode&sIFMT == 0 && isDir, mode == 0 && isDir:
		mode = sIFDIR | 0o755
	case mode&sIFMT == 0 && mode&0o7777 == 0:
		mode = sIFREG | 0o644
	case mode&sIFMT == 0:
		mode |= sIFREG
	}
	x := parseZipExtras(f.Extra)
	e := &entry{
		src:   f.Name,
		rel:   rel,
		perm:  mode & 0o7777,
		atime: x.atime,
		mtime: x.mtime,
		size:  int64(f.UncompressedSize64),
	}
	if e.mtime.IsZero() && !f.Modified.IsZero() {
		e.mtime = f.Modified
	}
	if x.owners {
		e.uid, e.gid = x.uid, x.gid
	}
	switch mode & sIFMT {
	case sIFDIR:
		e.kind = kindDir
	case sIFREG:
		e.kind = kindFile
		if x.hasLink {
			target, err := cleanEntryName(x.link)
			if err != nil {
				return &EntryError{f.Name, fmt.Errorf("hard link target: %w", err)}
			}
			e.kind, e.target = kindHardlink, target
			break
		}
		e.open = f.Open
	case sIFLNK:
		if f.UncompressedSize64 == 0 {
			return &EntryError{f.Name, errors.New("symlink with an empty target")}
		}
		if f.UncompressedSize64 > MaxPathLen {
			return checkTarget(f.Name, strings.Repeat("x", MaxPathLen+1))
		}
		rc, err := f.Open()
		if err != nil {
			return &EntryError{f.Name, fmt.Errorf("read zip: %w", archiveErr(err))}
		}
		b, err := io.ReadAll(io.LimitReader(rc, MaxPathLen+1))
		rc.Close()
		if err != nil {
			return &EntryError{f.Name, fmt.Errorf("read zip: %w", archiveErr(err))}
		}
		if err := checkTarget(f.Name, string(b)); err != nil {
			return err
		}
		e.kind, e.target = kindSymlink, string(b)
	case sIFCHR:
		return special(s, f.Name, "character device", opts.SkipSpecial)
	case sIFBLK:
		return special(s, f.Name, "block device", opts.SkipSpecial)
	case sIFIFO:
		return special(s, f.Name, "FIFO", opts.SkipSpecial)
	case sIFSOCK:
		return special(s, f.Name, "socket", opts.SkipSpecial)
	default:
		return &EntryError{f.Name, fmt.Errorf("%w: unknown file type %#o", ErrNotArchive, mode&sIFMT)}
	}
	if e.rel == "" && e.kind != kindDir {
		return &EntryError{f.Name, errors.New("only a directory can be named \".\"")}
	}
	return s.add(e)
}

// zipSink writes entries to a zip archive.
type zipSink struct {
	zw   *zip.Writer
	prog *progress
	sum  *Summary
	opts ExportOptions
}

func newZipSink(w io.Writer, prog *progress, sum *Summary, opts ExportOptions) *zipSink {
	return &zipSink{zw: zip.NewWriter(w), prog: prog, sum: sum, opts: opts}
}

func (z *zipSink) skip(src, why string) {
	z.sum.Skipped++
	if z.opts.Warn != nil {
		z.opts.Warn(fmt.Sprintf("skipped %q: %s", src, why))
	}
}

// add writes one entry. A hard link is written with its content (what
// other readers extract) and desk's link field (what ImportArchive links).
func (z *zipSink) add(e *entry) error {
	if e.kind == kindSpecial || e.kind == kindHardlink && e.typ != 0 {
		// Info-ZIP's zip leaves them out too (without -FI), and no unzip
		// would make one: a zip cannot carry a device number.
		z.skip(e.src, "a zip cannot hold a "+specialName(e.typ))
		return nil
	}
	name := e.rel
	var typ uint32
	switch e.kind {
	case kindDir:
		typ = sIFDIR
		name += "/"
		if e.rel == "" {
			name = "./"
		}
	case kindFile, kindHardlink:
		typ = sIFREG
	case kindSymlink:
		typ = sIFLNK
	}
	mode := typ | e.perm&0o7777
	if e.kind == kindSymlink {
		mode = sIFLNK | 0o777
	}
	fh := &zip.FileHeader{
		Name:           name,
		Method:         zip.Store,
		CreatorVersion: creatorUnix << 8,
		ExternalAttrs:  mode << 16,
		Modified:       e.mtime.UTC(),
	}
	if e.kind == kindDir {
		fh.ExternalAttrs |= 0x10 // MS-DOS directory bit, as Info-ZIP sets it
	}
	if e.kind == kindFile || e.kind == kindHardlink {
		fh.Method = zip.Deflate
	}
	// NTFS times: mtime, atime, ctime (the mtime: no import restores it).
	ntfs := make([]byte, 4+4+32)
	binary.LittleEndian.PutUint16(ntfs, zipNTFSID)
	binary.LittleEndian.PutUint16(ntfs[2:], 32)
	binary.LittleEndian.PutUint16(ntfs[8:], 1)
	binary.LittleEndian.PutUint16(ntfs[10:], 24)
	binary.LittleEndian.PutUint64(ntfs[12:], toNTFS(e.mtime))
	binary.LittleEndian.PutUint64(ntfs[20:], toNTFS(e.atime))
	binary.LittleEndian.PutUint64(ntfs[28:], toNTFS(e.mtime))
	fh.Extra = append(fh.Extra, ntfs...)
	ux := []byte{0, 0, 0, 0, 1, 4, 0, 0, 0, 0, 4, 0, 0, 0, 0}
	binary.LittleEndian.PutUint16(ux, zipUnixID)
	binary.LittleEndian.PutUint16(ux[2:], 11)
	binary.LittleEndian.PutUint32(ux[6:], uint32(e.uid))
	binary.LittleEndian.PutUint32(ux[11:], uint32(e.gid))
	fh.Extra = append(fh.Extra, ux...)
	if e.kind == kindHardlink {
		if len(e.target) > 0xffff-4-len(fh.Extra)-64 {
			return &EntryError{e.rel, fmt.Errorf("hard link target too long for a zip extra field: %w", errno(syscall.ENAMETOOLONG))}
		}
		l := make([]byte, 4, 4+len(e.target))
		binary.LittleEndian.PutUint16(l, zipDeskLink)
		binary.LittleEndian.PutUint16(l[2:], uint16(len(e.target)))
		fh.Extra = append(l, e.target...)
		fh.Extra = append(fh.Extra, ntfs...)
		fh.Extra = append(fh.Extra, ux...)
	}
	if len(e.xattrs) > 0 && z.opts.Warn != nil {
		z.opts.Warn(fmt.Sprintf("%q: a zip cannot carry extended attributes; %d left out", e.rel, len(e.xattrs)))
	}
	w, err := z.zw.CreateHeader(fh)
	if err != nil {
		return fmt.Errorf("write zip header for %s: %w", e.rel, err)
	}
	z.prog.p.Entries++
	switch e.kind {
	case kindDir:
		z.sum.Dirs++
	case kindSymlink:
		z.sum.Symlinks++
		if _, err := io.WriteString(w, e.target); err != nil {
			return fmt.Errorf("write zip: %w", err)
		}
	case kindFile, kindHardlink:
		if e.kind == kindHardlink {
			z.sum.Hardlinks++
		}
		z.prog.p.Files++
		if err := copyContent(w, e, z.prog, z.sum); err != nil {
			return err
		}
		if e.kind == kindFile {
			z.sum.Files++
		}
	}
	z.prog.tick()
	return nil
}

// close writes the zip's central directory.
func (z *zipSink) close() error {
	if err := z.zw.Close(); err != nil {
		return fmt.Errorf("write zip: %w", err)
	}
	return nil
}
