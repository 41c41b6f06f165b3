package search

import (
	"bytes"
	"context"
	"errors"
	"syscall"

	"github.com/desk-dev/desk/internal/glob"
	"github.com/desk-dev/desk/internal/vfs"
)

// sniffBytes is how much of a file is looked at for a NUL byte: a file with
// one there is binary and skipped (grep's and git's heuristic).
const sniffBytes = 8000

// Cursor is a place in a search: a path and a line of it (0: before its
// first line; EndLine: after its last, the file is done).
type Cursor struct {
	Path string
	Line int
}

// Line is a numbered line.
type Line struct {
	N    int
	Text []byte
}

// Hit is a matching line with its context. Its slices point into the file's
// content: copy what is kept past the Hit callback.
type Hit struct {
	Path string
	Line
	Before, After []Line
}

// Grep searches the lines of files for an expression: one file, or every
// regular file of a tree (in the order of Walk), skipping binary files and
// files over Limits.MaxFileBytes. Lines are split at "\n"; a trailing "\r"
// is not part of a line. It reads at most Limits.MaxBytes of content and
// visits at most Limits.MaxEntries entries, and stops at Limits.MaxTime.
type Grep struct {
	FS     *vfs.FS
	Limits Limits
	Re     *Regexp
	// Include, if set, limits the files of a tree searched to those whose
	// path relative to the root matches.
	Include *glob.Pattern
	// Context is the lines given before and after each hit.
	Context int
	// After, if set, resumes a search: what comes before After.Path in the
	// walk's order, and its lines up to After.Line, are not searched.
	After Cursor
	// Hit is called for each matching line; false stops the search.
	Hit func(h *Hit) bool

	// Files counts the files searched; Skipped the files left out (binary,
	// or over MaxFileBytes).
	Files, Skipped int
	// Next, when Run stopped early (Hit said so, or a limit), is the place
	// to go on from: pass it as After.
	Next Cursor

	read int64
}

// EndLine as a Cursor's Line means the whole file: a search resumed there
// goes on after the file without reading it.
const EndLine = 1 << 30

// errStop stops a walk from inside a file.
var errStop = errors.New("stop")

// Run searches root, a file or a directory. It returns nil when the search
// ended or Hit stopped it, a *LimitError (wrapping ErrLimit) when a limit
// did (Next says where to go on), ctx's error when it is done, and the
// store's error otherwise.
func (g *Grep) Run(ctx context.Context, root string) error {
	g.Limits = g.Limits.WithDefaults()
	tctx, cancel := context.WithTimeout(ctx, g.Limits.MaxTime)
	defer cancel()
	err := g.run(tctx, root)
	if errors.Is(err, errStop) {
		return nil
	}
	return timeLimit(ctx, err, g.Limits)
}

func (g *Grep) run(ctx context.Context, root string) error {
	fi, err := g.FS.Stat(ctx, root)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return g.file(ctx, root, &vfs.DirFile{Attr: fi.Attr()})
	}
	// The walk's own MaxTime is the caller's: ctx has its deadline.
	wl := g.Limits
	wl.MaxTime = 1 << 62
	w := &Walk{FS: g.FS, Limits: wl, Load: true, From: g.After.Path}
	w.Visit = func(p string, f *vfs.DirFile) (bool, error) {
		if !f.Attr.IsRegular() || g.Include != nil && !g.Include.Match(Rel(root, p)) {
			return true, nil
		}
		if err := g.file(ctx, p, f); err != nil {
			return false, err
		}
		return true, nil
	}
	err = w.Run(ctx, root)
	if err != nil && !errors.Is(err, errStop) && g.Next.Path == "" && w.Last != "" {
		// The walk stopped between files: go on after the last entry.
		g.Next = Cursor{w.Last, EndLine}
	}
	return err
}

// file searches one file: errStop when Hit stopped the search.
func (g *Grep) file(ctx context.Context, p string, f *vfs.DirFile) error {
	from := 1
	if p == g.After.Path {
		if g.After.Line >= EndLine {
			return nil // done before the cursor
		}
		from = g.After.Line + 1
	}
	if f.Attr.Size > g.Limits.MaxFileBytes {
		g.Skipped++
		return nil
	}
	if g.read > 0 && g.read+f.Attr.Size > g.Limits.MaxBytes {
		g.Next = Cursor{p, from - 1}
		return &LimitError{Limit: "MaxBytes", Value: g.Limits.MaxBytes}
	}
	data := f.Data
	if !f.Loaded {
		var err error
		if data, err = g.FS.ReadFile(ctx, p); errors.Is(err, syscall.ENOENT) {
			return nil // removed meanwhile
		} else if err != nil {
			return err
		}
	}
	g.read += int64(len(data))
	if bytes.IndexByte(data[:min(len(data), sniffBytes)], 0) >= 0 {
		g.Skipped++
		return nil
	}
	g.Files++
	// With a prefilter, next is where its literal next occurs: the lines
	// before it cannot match, and past its last occurrence none can.
	pre, text, next := g.Re.pre, []byte(nil), 0
	// A line is cut before a final "\r": a literal holding one is checked.
	exact := pre != nil && pre.Exact() && !bytes.Contains(pre.lit, []byte("\r"))
	if pre != nil {
		text = pre.Text(data)
		if next = pre.Index(text, 0); next < 0 {
			return nil
		}
	} else if ok, err := g.Re.mayMatch(ctx, data); !ok || err != nil {
		if err != nil {
			g.Next = Cursor{p, from - 1}
		}
		return err
	}
	var before []Line // the last Context lines, oldest first
	for n, rest := 1, data; len(rest) > 0; n++ {
		var l []byte
		l, rest = cut(rest)
		if n%1024 == 0 && ctx.Err() != nil {
			g.Next = Cursor{p, n - 1}
			return ctx.Err()
		}
		candidate := true
		if pre != nil {
			if next < 0 {
				break
			}
			end := len(data) - len(rest) // past the line's newline
			if candidate = next < end; candidate {
				next = pre.Index(text, end)
			}
		}
		if n >= from && candidate {
			ok, err := true, error(nil)
			if !exact {
				ok, err = g.Re.MatchLine(ctx, l)
			}
			if err != nil {
				g.Next = Cursor{p, n - 1}
				return err
			}
			if ok {
				h := &Hit{Path: p, Line: Line{n, l}, Before: before}
				for i, r := 1, rest; i <= g.Context && len(r) > 0; i++ {
					var a []byte
					a, r = cut(r)
					h.After = append(h.After, Line{n + i, a})
				}
				if !g.Hit(h) {
					g.Next = Cursor{p, n - 1}
					return errStop
				}
			}
		}
		if g.Context > 0 {
			if len(before) == g.Context {
				copy(before, before[1:])
				before = before[:len(before)-1]
			}
			before = append(before, Line{n, l})
		}
	}
	return nil
}

// cut returns the first line of data (without "\n" and a trailing "\r")
// and the rest.
func cut(data []byte) (line, rest []byte) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		line, rest = data[:i], data[i+1:]
	} else {
		line = data
	}
	return bytes.TrimSuffix(line, []byte("\r")), rest
}

// Find calls found for every entry of the tree under root (a directory)
// whose path relative to root matches g, in the order of Walk; found
// returning false stops. Its error is Walk.Run's.
func Find(ctx context.Context, fsys *vfs.FS, root string, g *glob.Pattern, l Limits, found func(p string, f *vfs.DirFile) bool) error {
	_, err := FindAfter(ctx, fsys, root, "", g, l, found)
	return err
}

// FindAfter is Find resuming after a path: with after set (a path below
// root that an earlier call visited, such as its last), entries up to it
// in the walk's order are neither read nor visited, so a resumed call
// costs what its own part of the walk costs. It returns the last entry
// visited (whether or not it matched): after a limit stopped the call
// (a *LimitError), passing it as after goes on where the walk stopped,
// with the limits afresh; after found stopped it, the last entry is the
// one found refused.
func FindAfter(ctx context.Context, fsys *vfs.FS, root, after string, g *glob.Pattern, l Limits, found func(p string, f *vfs.DirFile) bool) (last string, err error) {
	w := &Walk{FS: fsys, Limits: l, From: after, Visit: func(p string, f *vfs.DirFile) (bool, error) {
		if p == after || !g.Match(Rel(root, p)) {
			return true, nil
		}
		return found(p, f), nil
	}}
	err = w.Run(ctx, root)
	return w.Last, err
}
