package api

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/glob"
	"github.com/desk-dev/desk/internal/search"
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

// searchLimits are the limits of package search that find and grep run
// with.
func (s *Server) searchLimits() search.Limits {
	return search.Limits{
		MaxEntries:      s.opts.MaxWalk,
		MaxBytes:        s.opts.MaxGrepBytes,
		MaxFileBytes:    s.opts.MaxGrepFileBytes,
		MaxPatternBytes: s.opts.MaxPatternBytes,
		MaxRegexpInsts:  s.opts.MaxRegexpInsts,
		MaxTime:         s.opts.MaxSearchTime,
	}
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
	out := client.FindResult{Matches: []client.DirEntryPath{}}
	err = search.Find(r.Context(), c.lease.Workspace().FS(), base, g, s.searchLimits(), func(p string, f *vfs.DirFile) bool {
		if len(out.Matches) == limit {
			out.Truncated = true
			return false
		}
		m := client.DirEntryPath{Path: quote.Path(p), Type: client.TypeOfMode(f.Attr.Mode)}
		if m.Type == client.TypeFile {
			m.Size = f.Attr.Size
		}
		out.Matches = append(out.Matches, m)
		return true
	})
	if errors.Is(err, search.ErrLimit) {
		out.Truncated, err = true, nil
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
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
	re, err := search.Compile(query, !isRegex, icase, s.searchLimits())
	if errors.Is(err, search.ErrRegexpTooLarge) {
		return errorf(http.StatusBadRequest, CodeInvalid, "query %q is too large: %v", query, err)
	} else if err != nil {
		return errorf(http.StatusBadRequest, CodeInvalid, "query %q is not a valid RE2 expression: %v", query, err)
	}
	g := &search.Grep{FS: c.lease.Workspace().FS(), Limits: s.searchLimits(), Re: re}
	if gs := q.Get("glob"); gs != "" {
		if g.Include, err = compileGlob(gs); err != nil {
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
	if a := q.Get("after"); a != "" {
		if g.After.Path, err = cleanPath(a); err != nil {
			return err
		}
	}
	afterLine, err := quint(r, "after_line")
	if err != nil {
		return err
	}
	g.After.Line = int(afterLine)
	out := client.GrepResult{Matches: []client.GrepMatch{}}
	g.Hit = func(h *search.Hit) bool {
		if len(out.Matches) == limit {
			return false
		}
		l := h.Text
		if len(l) > s.opts.MaxLineBytes {
			l = l[:s.opts.MaxLineBytes]
		}
		text := string(l)
		if !utf8.ValidString(text) {
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		out.Matches = append(out.Matches, client.GrepMatch{Path: quote.Path(h.Path), Line: h.N, Text: text})
		return true
	}
	err = g.Run(r.Context(), base)
	if errors.Is(err, search.ErrLimit) {
		err = nil
	}
	if err != nil {
		return err
	}
	out.Skipped = g.Skipped
	if g.Next.Path != "" {
		out.NextPath, out.NextLine = quote.Path(g.Next.Path), g.Next.Line
	}
	return writeJSON(w, http.StatusOK, out)
}
