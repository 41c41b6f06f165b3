package vfs

import (
	"context"
	"strings"
	"syscall"
)

// cleanPath makes name absolute and lexically clean: "." and ".." are resolved
// textually and ".." never climbs above "/". It reports whether the original
// had a trailing slash (which requires the result to be a directory).
func (f *FS) cleanPath(op, name string) (p string, dirOnly bool, err error) {
	if name == "" {
		return "", false, perr(op, name, syscall.ENOENT)
	}
	if strings.IndexByte(name, 0) >= 0 {
		return "", false, perr(op, name, syscall.EINVAL)
	}
	if len(name) > f.opts.MaxPathLen {
		return "", false, perr(op, name, syscall.ENAMETOOLONG)
	}
	dirOnly = len(name) > 1 && name[len(name)-1] == '/'
	if isClean(name) {
		for c, rest := "", name; rest != ""; {
			c, _ = nextComponent(&rest)
			if len(c) > f.opts.MaxNameLen {
				return "", false, perr(op, name, syscall.ENAMETOOLONG)
			}
		}
		return name, false, nil
	}
	parts, ok := cleanParts(name, f.opts.MaxNameLen)
	if !ok {
		return "", false, perr(op, name, syscall.ENAMETOOLONG)
	}
	if len(parts) == 0 {
		return "/", dirOnly, nil
	}
	return "/" + strings.Join(parts, "/"), dirOnly, nil
}

// cleanParts splits name into its components with "." and ".." resolved
// textually (".." never climbs above the root). ok is false if a component
// is longer than maxName (maxName <= 0: no limit).
func cleanParts(name string, maxName int) (parts []string, ok bool) {
	parts = make([]string, 0, 8)
	for _, c := range strings.Split(name, "/") {
		switch c {
		case "", ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			if maxName > 0 && len(c) > maxName {
				return nil, false
			}
			parts = append(parts, c)
		}
	}
	return parts, true
}

// Clean returns the cleaned absolute form of a workspace path.
func Clean(name string) string {
	parts, _ := cleanParts(name, 0)
	return "/" + strings.Join(parts, "/")
}

// resolved is the outcome of a path walk.
type resolved struct {
	parent uint64 // directory holding the final name (0 when the path is "/" or ends in "..")
	name   string // final component
	ino    uint64 // inode named; 0 if the final component does not exist
	path   string // canonical path of the result (symlinks resolved except a final unfollowed one)
	in     inode  // the inode, when ino != 0
}

// lookupFn returns the inode (parent, name) names (0 if none) and loads inodes
// (by value: the walk only reads them).
type lookupFn interface {
	lookup(parent uint64, name string) (uint64, error)
	peek(ino uint64) (inode, error)
}

// committed reads the applied state, for operations outside a transaction;
// ctx is the operation's, for the reads that need a database connection.
type committed struct {
	f   *FS
	ctx context.Context
}

func (c committed) lookup(parent uint64, name string) (uint64, error) {
	return c.f.getDent(dkey{parent, name})
}

func (c committed) peek(ino uint64) (inode, error) {
	in, ok, err := c.f.getInode(ino)
	if err != nil {
		return in, err
	}
	if !ok {
		return in, syscall.ENOENT
	}
	return in, nil
}

// walkPathAs resolves the cleaned absolute path p (walk adds the caller's
// Access check). Intermediate symlinks are always
// followed; the final one only when follow is set. Symlink targets are resolved
// physically (".." in a target goes to the real parent directory, as the kernel
// does), with at most 40 symlinks per walk (ELOOP). A missing final component is
// not an error: the result has ino 0 and the parent set. A missing intermediate
// component is ENOENT; a non-directory one ENOTDIR.
//
// The walk keeps the unresolved rest of the path as a string (symlink targets
// are spliced in front of it), so an ordinary lookup allocates only its result.
//
// With create set the walk is an open with O_CREAT's: a final symlink
// followed to a target ending in "/" names a file to create with a trailing
// slash, which is EISDIR once the target's parent directory is resolved, whether the name exists or not (the kernel's
// open_last_lookups checks the slash before it looks the name up).
func (f *FS) walkPathAs(l lookupFn, p string, follow, create bool) (resolved, error) {
	var buf [16]walkFrame
	w := walker{stack: append(buf[:0], walkFrame{RootIno, ""})}
	rest := p
	hops := 0
	slashed := false // the final component came from a target ending in "/"
	for {
		c, more := nextComponent(&rest)
		if c == "" && !more {
			break // end of path
		}
		switch c {
		case "", ".":
			if !more {
				return w.dirResult(l)
			}
			continue
		case "..":
			if len(w.stack) > 1 {
				w.stack = w.stack[:len(w.stack)-1]
			}
			if !more {
				return w.dirResult(l)
			}
			continue
		}
		cur := w.stack[len(w.stack)-1].ino
		dir, err := l.peek(cur)
		if err != nil {
			return resolved{}, err
		}
		if !dir.IsDir() {
			return resolved{}, syscall.ENOTDIR
		}
		if slashed && !more {
			return resolved{}, syscall.EISDIR
		}
		if len(c) > f.opts.MaxNameLen {
			return resolved{}, syscall.ENAMETOOLONG
		}
		ino, err := l.lookup(cur, c)
		if err != nil {
			return resolved{}, err
		}
		last := !more
		if ino == 0 {
			if last {
				return resolved{parent: cur, name: c, path: w.path(c)}, nil
			}
			return resolved{}, syscall.ENOENT
		}
		in, err := l.peek(ino)
		if err != nil {
			return resolved{}, err
		}
		if in.IsSymlink() && (!last || follow) {
			hops++
			if hops > maxSymlinkHops {
				return resolved{}, syscall.ELOOP
			}
			t := in.target
			if strings.HasPrefix(t, "/") {
				w.stack = w.stack[:1]
			}
			// A target that is "/" or ends in "/" must resolve to a directory
			// (or, for a create, is EISDIR: see walkPathAs).
			if trimmed := strings.TrimRight(t, "/"); trimmed == "" {
				t += "/."
			} else if strings.HasSuffix(t, "/") {
				if create && last {
					t, slashed = trimmed, true
				} else {
					t += "/."
				}
			}
			if rest != "" {
				rest = t + "/" + rest
			} else {
				rest = t
			}
			continue
		}
		if last {
			return resolved{parent: cur, name: c, ino: ino, path: w.path(c), in: in}, nil
		}
		if !in.IsDir() {
			return resolved{}, syscall.ENOTDIR
		}
		w.stack = append(w.stack, walkFrame{ino, c})
	}
	// The path was "/".
	in, err := l.peek(RootIno)
	if err != nil {
		return resolved{}, err
	}
	return resolved{ino: RootIno, path: "/", in: in}, nil
}

type walkFrame struct {
	ino  uint64
	name string
}

type walker struct {
	stack []walkFrame
}

// path is the canonical path of the directory on top of the stack, plus extra.
func (w *walker) path(extra string) string {
	n := len(extra) + 1
	for _, fr := range w.stack[1:] {
		n += len(fr.name) + 1
	}
	b := make([]byte, 0, n)
	for _, fr := range w.stack[1:] {
		b = append(b, '/')
		b = append(b, fr.name...)
	}
	if extra != "" {
		b = append(b, '/')
		b = append(b, extra...)
	}
	if len(b) == 0 {
		return "/"
	}
	return string(b)
}

// dirResult resolves to the directory on top of the stack (a path ending in
// "." or "..").
func (w *walker) dirResult(l lookupFn) (resolved, error) {
	top := w.stack[len(w.stack)-1]
	in, err := l.peek(top.ino)
	if err != nil {
		return resolved{}, err
	}
	if !in.IsDir() {
		return resolved{}, syscall.ENOTDIR
	}
	r := resolved{ino: top.ino, path: w.path(""), in: in}
	if len(w.stack) > 1 {
		r.parent = w.stack[len(w.stack)-2].ino
		r.name = top.name
	}
	return r, nil
}

// nextComponent takes the next component off the front of *rest, skipping
// empty ones; more reports whether anything follows it.
func nextComponent(rest *string) (c string, more bool) {
	r := *rest
	for len(r) > 0 && r[0] == '/' {
		r = r[1:]
	}
	if i := strings.IndexByte(r, '/'); i >= 0 {
		c, r = r[:i], r[i+1:]
		for len(r) > 0 && r[0] == '/' {
			r = r[1:]
		}
		*rest = r
		return c, r != ""
	}
	*rest = ""
	return r, false
}

func splitPath(p string) []string {
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, c := range parts {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// isClean reports whether name is already absolute and clean: no empty, "." or
// ".." components and no trailing slash (except "/" itself).
func isClean(name string) bool {
	if name == "/" {
		return true
	}
	if len(name) < 2 || name[0] != '/' || name[len(name)-1] == '/' {
		return false
	}
	start := 1
	for i := 1; i <= len(name); i++ {
		if i == len(name) || name[i] == '/' {
			c := name[start:i]
			if c == "" || c == "." || c == ".." {
				return false
			}
			start = i + 1
		}
	}
	return true
}
