// Package wsfile keeps small documents per workspace in files of a
// directory (DIR/WS/REL), outside the workspaces' stores: the policy store
// (internal/policy, DATA/policy) and the egress store (internal/egress,
// DATA/egress: policy, secrets, CA) are built on it. No execution, file read
// or export reaches these files; desk serve's front writes them and its
// workers read them.
//
// # Guarantees
//
//   - Atomic replace: Write puts the data in a temporary file (".tmp-*") of
//     the document's directory, syncs it, renames it over the document and
//     syncs the directory. A reader sees the old document or the new one,
//     never a part of either, and a crash at any point (kill -9, power loss
//     after the syncs) leaves one of the two whole. A temporary file a
//     crashed writer left is removed by the next Write to that directory:
//     a writer holds an exclusive flock on its temporary file until it is
//     renamed, and only unlocked ones are removed. List leaves temporary
//     files out.
//   - Modes: directories are made 0700, documents are 0600.
//   - Bounded size: a document is at most Options.MaxBytes (default
//     DefaultMaxBytes, 16 MiB). Write refuses a larger one and Read does not
//     read past the bound: a file made larger by other means (a hostile or
//     damaged file) gives an *fs.PathError with syscall.EFBIG after reading
//     at most MaxBytes+1 bytes. A directory or device where a document
//     should be gives syscall.EISDIR.
//   - Names: a workspace name is a single path element (not "", ".", ".."
//     and without "/" or NUL) and a document path is fs.ValidPath, not
//     naming a temporary file; other names give an error wrapping
//     Options.Invalid (ErrBadName by default), so a caller's errors.Is test
//     for its own "invalid" error holds. A missing document gives an error
//     wrapping fs.ErrNotExist.
//
// Version (size, modification time, inode) identifies a document's state:
// Read returns the Version of what it read (from the open file), Stat a
// cheap one, so a caller can cache what it parsed and check it with one
// stat (internal/policy does).
package wsfile
