package vfs

import (
	"io/fs"
	"time"
)

// Attr is the full set of inode attributes. It is what FileInfo.Sys returns.
type Attr struct {
	Ino   uint64 // inode number, never reused within a store
	Gen   uint64 // generation: unique per inode lifetime (with Ino, a stable handle)
	Mode  uint32 // Unix mode: file type bits (S_IFREG, S_IFDIR, S_IFLNK, S_IFIFO, S_IFSOCK, S_IFCHR, S_IFBLK) and all 12 permission bits
	Nlink uint32 // number of names (directories: 2 + subdirectories)
	Uid   uint32
	Gid   uint32
	Size  int64 // bytes; for symlinks the target length; for directories 4096·pages, like ext4
	// Blocks is the number of 512-byte blocks backing the file (holes cost nothing).
	Blocks int64
	Atime  time.Time
	Mtime  time.Time
	Ctime  time.Time
	Btime  time.Time // birth time
	// Rdev is the device number of a character or block device (as
	// unix.Mkdev makes it); 0 for every other type.
	Rdev uint64
}

// Unix mode type bits, as in <sys/stat.h>.
const (
	S_IFMT   = 0o170000
	S_IFREG  = 0o100000
	S_IFDIR  = 0o040000
	S_IFLNK  = 0o120000
	S_IFIFO  = 0o010000
	S_IFSOCK = 0o140000
	S_IFCHR  = 0o020000
	S_IFBLK  = 0o060000
	S_ISUID  = 0o4000
	S_ISGID  = 0o2000
	S_ISVTX  = 0o1000
	permMask = 0o7777
)

// IsDir reports whether the attributes describe a directory.
func (a *Attr) IsDir() bool { return a.Mode&S_IFMT == S_IFDIR }

// IsRegular reports whether the attributes describe a regular file.
func (a *Attr) IsRegular() bool { return a.Mode&S_IFMT == S_IFREG }

// IsSymlink reports whether the attributes describe a symbolic link.
func (a *Attr) IsSymlink() bool { return a.Mode&S_IFMT == S_IFLNK }

// IsSpecial reports whether the attributes describe a FIFO, a socket or a
// device: an inode with no content in the store, which the kernel gives its
// meaning (see Mknod).
func (a *Attr) IsSpecial() bool { return isSpecialMode(a.Mode) }

func isSpecialMode(m uint32) bool {
	switch m & S_IFMT {
	case S_IFIFO, S_IFSOCK, S_IFCHR, S_IFBLK:
		return true
	}
	return false
}

// FileMode converts the Unix mode to an io/fs.FileMode.
func (a *Attr) FileMode() fs.FileMode { return UnixToFileMode(a.Mode) }

// UnixToFileMode converts a Unix mode (type + permission bits) to fs.FileMode.
func UnixToFileMode(m uint32) fs.FileMode {
	fm := fs.FileMode(m & 0o777)
	switch m & S_IFMT {
	case S_IFDIR:
		fm |= fs.ModeDir
	case S_IFLNK:
		fm |= fs.ModeSymlink
	case S_IFIFO:
		fm |= fs.ModeNamedPipe
	case S_IFSOCK:
		fm |= fs.ModeSocket
	case S_IFCHR:
		fm |= fs.ModeDevice | fs.ModeCharDevice
	case S_IFBLK:
		fm |= fs.ModeDevice
	}
	if m&S_ISUID != 0 {
		fm |= fs.ModeSetuid
	}
	if m&S_ISGID != 0 {
		fm |= fs.ModeSetgid
	}
	if m&S_ISVTX != 0 {
		fm |= fs.ModeSticky
	}
	return fm
}

// FileModeToUnix converts the permission and special bits of an fs.FileMode to Unix
// permission bits (the type bits are not included).
func FileModeToUnix(fm fs.FileMode) uint32 {
	m := uint32(fm.Perm())
	if fm&fs.ModeSetuid != 0 {
		m |= S_ISUID
	}
	if fm&fs.ModeSetgid != 0 {
		m |= S_ISGID
	}
	if fm&fs.ModeSticky != 0 {
		m |= S_ISVTX
	}
	return m
}

// FileInfo describes a file. It implements fs.FileInfo; Sys returns *Attr.
type FileInfo struct {
	name string
	attr Attr
}

var _ fs.FileInfo = (*FileInfo)(nil)

// NewFileInfo returns a FileInfo for name with the given attributes.
func NewFileInfo(name string, a Attr) *FileInfo { return &FileInfo{name: name, attr: a} }

// Name is the base name of the file.
func (fi *FileInfo) Name() string { return fi.name }

// Size is the length in bytes.
func (fi *FileInfo) Size() int64 { return fi.attr.Size }

// Mode is the file's type and permission bits.
func (fi *FileInfo) Mode() fs.FileMode { return fi.attr.FileMode() }

// ModTime is the modification time.
func (fi *FileInfo) ModTime() time.Time { return fi.attr.Mtime }

// IsDir reports whether the file is a directory.
func (fi *FileInfo) IsDir() bool { return fi.attr.IsDir() }

// Sys returns the *Attr.
func (fi *FileInfo) Sys() any { return &fi.attr }

// Attr returns the file's full attributes.
func (fi *FileInfo) Attr() Attr { return fi.attr }

// DirEntry is one entry of a directory listing.
type DirEntry struct {
	Name string
	Ino  uint64
	Mode uint32 // Unix type and permission bits of the entry's inode
}

// RenameFlags select renameat2(2) semantics.
type RenameFlags uint32

const (
	// RenameNoReplace fails with EEXIST if the destination exists.
	RenameNoReplace RenameFlags = 1 << 0
	// RenameExchange atomically swaps source and destination, which must both exist.
	RenameExchange RenameFlags = 1 << 1
	// RenameWhiteout leaves a whiteout (a character device 0:0, owned by
	// the caller) at the source's name, in the same transaction: what
	// overlayfs asks of its upper layer (not with RenameExchange).
	RenameWhiteout RenameFlags = 1 << 2
)

// Xattr flags, as in setxattr(2).
const (
	XattrCreate  = 1 // fail with EEXIST if the attribute exists
	XattrReplace = 2 // fail with ENODATA if the attribute does not exist
)

// UtimeOmit and UtimeNow are special values for Utimens: leave the time as it is,
// or set it to the current time.
var (
	UtimeOmit = time.Unix(0, -2)
	UtimeNow  = time.Unix(0, -1)
)

// StatFS reports capacity, like statfs(2). The free space is the smallest of
// the quota left, the disk's free space and the data directory's bound left
// (LimitedBy says which); the size is the space used plus that.
type StatFS struct {
	BlockSize   int64 // fundamental block size (512)
	Blocks      int64 // total blocks: (UsedBytes + FreeBytes) / BlockSize
	BlocksFree  int64 // FreeBytes / BlockSize
	Files       int64 // inode limit
	FilesFree   int64 // inodes left (0 when there is no room for another)
	NameMax     int64
	ChunkSize   int64 // the store's chunk size, a good I/O size
	ReadOnly    bool
	QuotaBytes  int64
	UsedBytes   int64 // unique content bytes stored
	InodesInUse int64
	FreeBytes   int64  // what writes may still add
	LimitedBy   string // LimitQuota, LimitDisk or LimitDataDir
	// The filesystem holding the store: its size and its free space
	// (f_bavail, the reserve file not counted as free).
	DiskBytes     int64
	DiskFreeBytes int64
	// The Space's reserve (0: none) and whether it holds its blocks now.
	ReserveBytes int64
	ReserveHeld  bool
	// The Space's bound on the data directory (0: none) and the bytes below
	// it as measured last.
	DataDirLimit int64
	DataDirBytes int64
}

// Stats summarises the store's contents.
type Stats struct {
	Files       int64 // regular files
	Dirs        int64 // directories (including /)
	Symlinks    int64 // symbolic links
	Special     int64 // FIFOs, sockets and devices
	Bytes       int64 // logical bytes: sum of regular file sizes
	StoredBytes int64 // bytes referenced by files, before deduplication (holes excluded)
	UniqueBytes int64 // bytes of distinct chunks actually stored, and inline content
	// InlineFiles and InlineBytes are the files whose content is held in
	// their inode row and its bytes (in StoredBytes and UniqueBytes too).
	InlineFiles int64
	InlineBytes int64
	Chunks      int64 // distinct chunks
	// SlotChunks are the chunks whose bytes are in the chunk file (full-size
	// chunks, slots.go; in Chunks too), ChunkFileBytes the disk space the
	// chunk file takes (freed slots are hole-punched).
	SlotChunks     int64
	ChunkFileBytes int64
	DedupRatio     float64 // StoredBytes / UniqueBytes (1 when nothing is stored)
	JournalSeq     uint64  // sequence number of the newest change
	DBBytes        int64   // size of the database file and its WAL on disk
	// FileBytes and WALBytes are the database file's and the WAL's sizes
	// (DBBytes is their sum); LiveBytes is what the store's data and
	// metadata take in it (the pages in use), ReclaimableBytes its free
	// pages, which the store gives back to the filesystem in the background
	// (a store made before issue 21: after Compact).
	FileBytes        int64
	WALBytes         int64
	LiveBytes        int64
	ReclaimableBytes int64
}
