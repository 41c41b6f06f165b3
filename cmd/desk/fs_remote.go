package main

import (
	"context"
	"io"
	"io/fs"
	"path"
	"strconv"
	"syscall"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/vfs"
)

// remoteStore is a fileStore over a workspace of a desk server, through the
// Go client. The API reports less than a local store: no owner, blocks,
// access/change/birth times or xattrs (fileInfo.attr is nil), and directory
// entries without link counts.
type remoteStore struct {
	c  *client.Client
	ws string
}

var _ fileStore = (*remoteStore)(nil)

// maxSymlinks bounds the symlinks Stat follows, as the kernel's MAXSYMLINKS.
const maxSymlinks = 40

// modeBits converts a wire type and octal permission string to a vfs mode.
func modeBits(typ, perm string) uint32 {
	p, err := strconv.ParseUint(perm, 8, 32)
	if err != nil {
		p = 0
	}
	return client.ModeOfType(typ) | uint32(p)&0o7777
}

func remoteInfo(fi client.FileInfo) fileInfo {
	return fileInfo{Mode: modeBits(fi.Type, fi.Mode), Size: fi.Size, Mtime: fi.Mtime, Ino: fi.Ino, Nlink: fi.Nlink, Target: fi.Target}
}

func (s *remoteStore) Lstat(ctx context.Context, p string) (fileInfo, error) {
	fi, err := s.c.Stat(ctx, s.ws, p)
	if err != nil {
		return fileInfo{}, err
	}
	return remoteInfo(fi), nil
}

// Stat follows a final symbolic link here; the server resolves the links
// in the leading path elements.
func (s *remoteStore) Stat(ctx context.Context, p string) (fileInfo, error) {
	for range maxSymlinks {
		fi, err := s.Lstat(ctx, p)
		if err != nil || !fi.IsSymlink() {
			return fi, err
		}
		if path.IsAbs(fi.Target) {
			p = path.Clean(fi.Target)
		} else {
			p = path.Join(path.Dir(p), fi.Target)
		}
	}
	return fileInfo{}, &fs.PathError{Op: "stat", Path: p, Err: syscall.ELOOP}
}

func (s *remoteStore) ReadDirPage(ctx context.Context, dir, after string, n int) ([]dirEntry, string, error) {
	l, err := s.c.ReadDir(ctx, s.ws, dir, after, n)
	if err != nil {
		return nil, "", err
	}
	out := make([]dirEntry, len(l.Entries))
	for i, e := range l.Entries {
		mode := modeBits(e.Type, e.Mode)
		out[i] = dirEntry{Name: e.Name, Mode: mode, info: &fileInfo{Mode: mode, Size: e.Size, Mtime: e.Mtime}}
	}
	return out, l.Next, nil
}

func (s *remoteStore) Readlink(ctx context.Context, p string) (string, error) {
	fi, err := s.Lstat(ctx, p)
	if err != nil {
		return "", err
	}
	if !fi.IsSymlink() {
		return "", &fs.PathError{Op: "readlink", Path: p, Err: syscall.EINVAL}
	}
	return fi.Target, nil
}

func (s *remoteStore) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	return s.c.Open(ctx, s.ws, p)
}

func (s *remoteStore) WriteFile(ctx context.Context, p string, r io.Reader, perm fs.FileMode) error {
	_, err := s.c.WriteFile(ctx, s.ws, p, r, client.WriteOptions{Mode: perm})
	return err
}

func (s *remoteStore) Chmod(ctx context.Context, p string, mode fs.FileMode) error {
	_, err := s.c.Chmod(ctx, s.ws, p, mode)
	return err
}

func (s *remoteStore) Mkdir(ctx context.Context, p string, perm fs.FileMode, parents bool) error {
	_, err := s.c.Mkdir(ctx, s.ws, p, perm, parents)
	return err
}

func (s *remoteStore) Remove(ctx context.Context, p string, recursive bool) error {
	return s.c.Remove(ctx, s.ws, p, recursive)
}

func (s *remoteStore) Rename(ctx context.Context, src, dst string, noReplace bool) error {
	_, err := s.c.Move(ctx, s.ws, src, dst, noReplace)
	return err
}

func (s *remoteStore) Check(ctx context.Context) (client.CheckReport, error) {
	return s.c.Check(ctx, s.ws)
}

func (s *remoteStore) Stats(ctx context.Context) (vfs.Stats, error) {
	ws, err := s.c.WorkspaceStats(ctx, s.ws)
	if err != nil {
		return vfs.Stats{}, err
	}
	st := ws.Store
	return vfs.Stats{
		Files: st.Files, Dirs: st.Dirs, Symlinks: st.Symlinks, Bytes: st.Bytes, StoredBytes: st.StoredBytes,
		UniqueBytes: st.UniqueBytes, Chunks: st.Chunks, DedupRatio: st.DedupRatio, JournalSeq: st.JournalSeq,
		DBBytes: st.DBBytes, Special: st.Special, LiveBytes: st.LiveBytes, FileBytes: st.FileBytes, WALBytes: st.WALBytes,
		ReclaimableBytes: st.ReclaimableBytes, InlineFiles: st.InlineFiles, InlineBytes: st.InlineBytes,
		SlotChunks: st.SlotChunks, ChunkFileBytes: st.ChunkFileBytes,
	}, nil
}

func (s *remoteStore) Close() error { return nil }
