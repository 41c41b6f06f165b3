package api

import (
	"bytes"
	"context"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/glob"
	"github.com/desk-dev/desk/internal/vfs"
)

// compileGlob compiles a search pattern (see package glob); a bad one is a
// 400 naming it.
func compileGlob(pattern string) (*glob.Pattern, error) {
	g, err := glob.Compile(pattern, false)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, CodeInvalid, "glob %q: %s", pattern, err)
	}
	return g, nil
}

// walker visits a tree depth first in name order without following
// symlinks, at most budget entries.
type walker struct {
	ctx    context.Context
	fsys   *vfs.FS
	budget int
	// skip, if set, prunes a path before it is visited (and, for a
	// directory, its subtree).
	skip func(p string) bool
	// visit is called for every entry below the root; returning false stops.
	visit func(p string, e vfs.DirEntry) bool
}

// walk returns false if the walk stopped early (visit said so, or the budget ran out).
func (w *walker) walk(dir string) (bool, error) {
	after := ""
	for {
		ents, err := w.fsys.ReadDirPage(w.ctx, dir, after, 1000)
		if err != nil {
			return false, err
		}
		for _, e := range ents {
			p := path.Join(dir, e.Name)
			if w.skip != nil && w.skip(p) {
				continue
			}
			if w.budget--; w.budget < 0 {
				return false, nil
			}
			if !w.visit(p, e) {
				return false, nil
			}
			if fileType(e.Mode) == client.TypeDir {
				if ok, err := w.walk(p); !ok || err != nil {
					return ok, err
				}
			}
		}
		if len(ents) < 1000 {
			return true, nil
		}
		after = ents[len(ents)-1].Name
	}
}

func rel(base, p string) string {
	if base == "/" {
		return p[1:]
	}
	return strings.TrimPrefix(p, base+"/")
}

func (s *Server) handleFind(w http.ResponseWriter, r *http.Request, c *call) error {
	q := r.URL.Query()
	pattern := q.Get("pattern")
	if len(pattern) > s.opts.MaxPatternBytes {
		return errorf(http.StatusBadRequest, CodeInvalid, "pattern longer than %d bytes", s.opts.MaxPatternBytes)
	}
	g, err := compileGlob(pattern)
	if err != nil {
		return err
	}
	base, err := cleanPath(q.Get("path"))
	if err != nil {
		return err
	}
	limit, err := s.limit(r)
	if err != nil {
		return err
	}
	fsys := c.lease.Workspace().FS()
	ctx := r.Context()
	out := client.FindResult{Matches: []client.DirEntryPath{}}
	wk := &walker{ctx: ctx, fsys: fsys, budget: s.opts.MaxWalk, visit: func(p string, e vfs.DirEntry) bool {
		if !g.Match(rel(base, p)) {
			return true
		}
		if len(out.Matches) == limit {
			out.Truncated = true
			return false
		}
		m := client.DirEntryPath{Path: quote.Path(p), Type: fileType(e.Mode)}
		if m.Type == client.TypeFile {
			if fi, err := fsys.Lstat(ctx, p); err == nil {
				m.Size = fi.Size()
			}
		}
		out.Matches = append(out.Matches, m)
		return true
	}}
	complete, err := wk.walk(base)
	if err != nil {
		return err
	}
	if !complete {
		out.Truncated = true
	}
	return writeJSON(w, http.StatusOK, out)
}

// cmpPath orders paths as the walk visits them: element by element.
func cmpPath(a, b string) int {
	return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
}

func (s *Server) handleGrep(w http.ResponseWriter, r *http.Request, c *call) error {
	q := r.URL.Query()
	query := q.Get("query")
	if query == "" {
		return errorf(http.StatusBadRequest, CodeInvalid, "grep needs query=TEXT")
	}
	if len(query) > s.opts.MaxPatternBytes {
		return errorf(http.StatusBadRequest, CodeInvalid, "query longer than %d bytes", s.opts.MaxPatternBytes)
	}
	isRegex, err := qbool(r, "regex")
	if err != nil {
		return err
	}
	icase, err := qbool(r, "ignore_case")
	if err != nil {
		return err
	}
	expr := query
	if !isRegex {
		expr = regexp.QuoteMeta(query)
	}
	if icase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return errorf(http.StatusBadRequest, CodeInvalid, "query %q is not a valid RE2 expression: %v", query, err)
	}
	var g *glob.Pattern
	if gs := q.Get("glob"); gs != "" {
		if g, err = compileGlob(gs); err != nil {
			return err
		}
	}
	base, err := cleanPath(q.Get("path"))
	if err != nil {
		return err
	}
	limit, err := s.limit(r)
	if err != nil {
		return err
	}
	after := ""
	if a := q.Get("after"); a != "" {
		if after, err = cleanPath(a); err != nil {
			return err
		}
	}
	afterLine, err := quint(r, "after_line")
	if err != nil {
		return err
	}
	fsys := c.lease.Workspace().FS()
	ctx := r.Context()
	out := client.GrepResult{Matches: []client.GrepMatch{}}
	readBytes := int64(0)

	// grepFile searches one file from line `from` on; false: the page is full.
	grepFile := func(p string, from int) (bool, error) {
		fi, err := fsys.Stat(ctx, p)
		if err != nil || !fi.Mode().IsRegular() {
			return true, nil // vanished or changed type meanwhile
		}
		if fi.Size() > s.opts.MaxGrepFileBytes {
			out.Skipped++
			return true, nil
		}
		if readBytes > 0 && readBytes+fi.Size() > s.opts.MaxGrepBytes {
			out.NextPath, out.NextLine = quote.Path(p), from-1
			return false, nil
		}
		data, err := fsys.ReadFile(ctx, p)
		if err != nil {
			return false, err
		}
		readBytes += int64(len(data))
		if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
			out.Skipped++
			return true, nil
		}
		line := 0
		for len(data) > 0 {
			line++
			l := data
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				l, data = data[:i], data[i+1:]
			} else {
				data = nil
			}
			if line < from || !re.Match(l) {
				continue
			}
			if len(out.Matches) == limit {
				out.NextPath, out.NextLine = quote.Path(p), line-1
				return false, nil
			}
			if len(l) > s.opts.MaxLineBytes {
				l = l[:s.opts.MaxLineBytes]
			}
			text := string(l)
			if !utf8.ValidString(text) {
				text = strings.ToValidUTF8(text, "\uFFFD")
			}
			out.Matches = append(out.Matches, client.GrepMatch{Path: quote.Path(p), Line: line, Text: strings.TrimSuffix(text, "\r")})
		}
		return true, nil
	}

	fi, err := fsys.Stat(ctx, base)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		from := 1
		if after == base {
			from = int(afterLine) + 1
		}
		if _, err := grepFile(base, from); err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, out)
	}
	var last string
	wk := &walker{ctx: ctx, fsys: fsys, budget: s.opts.MaxWalk}
	if after != "" {
		wk.skip = func(p string) bool {
			return cmpPath(p, after) < 0 && !strings.HasPrefix(after, p+"/")
		}
	}
	var ferr error
	wk.visit = func(p string, e vfs.DirEntry) bool {
		last = p
		if fileType(e.Mode) != client.TypeFile || (g != nil && !g.Match(rel(base, p))) {
			return true
		}
		from := 1
		if p == after {
			from = int(afterLine) + 1
		}
		ok, err := grepFile(p, from)
		ferr = err
		return ok && err == nil
	}
	complete, err := wk.walk(base)
	if err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	if !complete && out.NextPath == "" && last != "" {
		// The walk budget ran out: go on after the last entry visited.
		out.NextPath, out.NextLine = quote.Path(last), 1<<30
	}
	return writeJSON(w, http.StatusOK, out)
}
