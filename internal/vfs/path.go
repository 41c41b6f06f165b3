package vfs

import (
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
	var b strings.Builder
	b.Grow(len(name) + 1)
	parts := make([]string, 0, 8)
	for _, c := range strings.Split(name, "/") {
		switch c {
		case "", ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			if len(c) > f.opts.MaxNameLen {
				return "", false, perr(op, name, syscall.ENAMETOOLONG)
			}
			parts = append(parts, c)
		}
	}
	if len(parts) == 0 {
		return "/", dirOnly, nil
	}
	for _, c := range parts {
		b.WriteByte('/')
		b.WriteString(c)
	}
	return b.String(), dirOnly, nil
}

// Clean returns the cleaned absolute form of a workspace path.
func Clean(name string) string {
	parts := make([]string, 0, 8)
	for _, c := range strings.Split(name, "/") {
		switch c {
		case "", ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, c)
		}
	}
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

// lookupFn returns the inode (parent, name) names (0 if none) and loads inodes.
type lookupFn interface {
	lookup(parent uint64, name string) (uint64, error)
	inode(ino uint64) (*inode, error)
}

// committed reads the committed state (for operations outside a transaction).
type committed struct{ f *FS }

func (c committed) lookup(parent uint64, name string) (uint64, error) {
	return c.f.getDent(dkey{parent, name})
}

func (c committed) inode(ino uint64) (*inode, error) {
	in, ok, err := c.f.getInode(ino)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, syscall.ENOENT
	}
	return &in, nil
}

// walk resolves the cleaned absolute path p. Intermediate symlinks are always
// followed; the final one only when follow is set. Symlink targets are resolved
// physically (".." in a target goes to the real parent directory, as the kernel
// does), with at most 40 symlinks per walk (ELOOP). A missing final component is
// not an error: the result has ino 0 and the parent set. A missing intermediate
// component is ENOENT; a non-directory one ENOTDIR.
func (f *FS) walk(l lookupFn, p string, follow bool) (resolved, error) {
	type frame struct {
		ino  uint64
		name string
	}
	stack := make([]frame, 1, 8)
	stack[0] = frame{RootIno, ""}
	queue := splitPath(p)
	hops := 0
	pathOf := func(extra string) string {
		var b strings.Builder
		for _, fr := range stack[1:] {
			b.WriteByte('/')
			b.WriteString(fr.name)
		}
		if extra != "" {
			b.WriteByte('/')
			b.WriteString(extra)
		}
		if b.Len() == 0 {
			return "/"
		}
		return b.String()
	}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		switch c {
		case "", ".":
			if len(queue) == 0 && len(stack) > 0 {
				goto dirResult
			}
			continue
		case "..":
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			if len(queue) == 0 {
				goto dirResult
			}
			continue
		}
		{
			cur := stack[len(stack)-1].ino
			dir, err := l.inode(cur)
			if err != nil {
				return resolved{}, err
			}
			if !dir.IsDir() {
				return resolved{}, syscall.ENOTDIR
			}
			if len(c) > f.opts.MaxNameLen {
				return resolved{}, syscall.ENAMETOOLONG
			}
			ino, err := l.lookup(cur, c)
			if err != nil {
				return resolved{}, err
			}
			last := len(queue) == 0
			if ino == 0 {
				if last {
					return resolved{parent: cur, name: c, path: pathOf(c)}, nil
				}
				return resolved{}, syscall.ENOENT
			}
			in, err := l.inode(ino)
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
					stack = stack[:1]
				}
				parts := splitPath(t)
				if len(parts) == 0 || (len(parts) > 0 && strings.HasSuffix(t, "/")) {
					parts = append(parts, ".")
				}
				queue = append(parts, queue...)
				continue
			}
			if last {
				return resolved{parent: cur, name: c, ino: ino, path: pathOf(c), in: *in}, nil
			}
			if !in.IsDir() {
				return resolved{}, syscall.ENOTDIR
			}
			stack = append(stack, frame{ino, c})
			continue
		}
	dirResult:
		top := stack[len(stack)-1]
		in, err := l.inode(top.ino)
		if err != nil {
			return resolved{}, err
		}
		if !in.IsDir() {
			return resolved{}, syscall.ENOTDIR
		}
		r := resolved{ino: top.ino, path: pathOf(""), in: *in}
		if len(stack) > 1 {
			r.parent = stack[len(stack)-2].ino
			r.name = top.name
		}
		return r, nil
	}
	// The path was "/".
	in, err := l.inode(RootIno)
	if err != nil {
		return resolved{}, err
	}
	return resolved{ino: RootIno, path: "/", in: *in}, nil
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
