package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/search"
	"github.com/desk-dev/desk/internal/vfs"
)

// FindInput is the input of find.
type FindInput struct {
	Path    string `json:"path,omitempty"`
	Pattern string `json:"pattern"`
	Offset  int    `json:"offset,omitempty"`
	Limit   int    `json:"limit,omitempty"`
	// Cursor continues a search where a result ended (its NextCursor).
	Cursor string `json:"cursor,omitempty"`
}

// FindOutput is the output of find.
type FindOutput struct {
	Path    string  `json:"path"`
	Pattern string  `json:"pattern"`
	Matches []Entry `json:"matches"`
	// Truncated: more matches follow; call again with NextCursor (or
	// NextOffset).
	Truncated  bool `json:"truncated"`
	NextOffset int  `json:"next_offset,omitempty"`
	// Incomplete: the search stopped at a limit (MaxWalk, MaxSearchTime)
	// before the end of the tree; NextCursor goes on from where it stopped.
	Incomplete bool `json:"incomplete,omitempty"`
	// NextCursor, set when Truncated or Incomplete, continues the search
	// after the last entry this call returned or visited.
	NextCursor string `json:"next_cursor,omitempty"`

	stop string // why the search was incomplete
}

func (o *FindOutput) content() []Content {
	var b strings.Builder
	if len(o.Matches) == 0 {
		fmt.Fprintf(&b, "no paths under %s match %q\n", o.Path, o.Pattern)
	}
	for _, m := range o.Matches {
		b.WriteString(m.Path)
		if m.Type == "dir" {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	switch {
	case o.Truncated:
		fmt.Fprintf(&b, "[more matches follow: call find with cursor=%q]\n", o.NextCursor)
	case o.Incomplete && o.NextCursor != "":
		fmt.Fprintf(&b, "[the search stopped %s, before the end of the tree: call find with cursor=%q to go on, or narrow it with a deeper path]\n", o.stop, o.NextCursor)
	case o.Incomplete:
		fmt.Fprintf(&b, "[the search stopped %s, before the end of the tree: call again, or narrow it with a deeper path]\n", o.stop)
	}
	return []Content{TextContent(b.String())}
}

var findSpec = &spec{
	limits: func(o Options) []string {
		return []string{
			"500 matches by default (limit up to 5000)", fmt.Sprintf("%d matches by default (limit up to %d)", o.DefaultListLimit, o.MaxListLimit),
			`"maximum": 5000, "description": "Most matches to return. Default 500."`, fmt.Sprintf(`"maximum": %d, "description": "Most matches to return. Default %d."`, o.MaxListLimit, o.DefaultListLimit),
		}
	},
	Tool: Tool{
		Name:  "find",
		Title: "Find files by name",
		Description: `Find files and directories whose path matches a glob pattern, searching the tree under path (default /workspace) depth first in name order. Returns absolute paths, one per line (directories end with "/").

Patterns: * matches any characters but "/", ? one character, [abc] and [a-z] a class, {go,mod} alternatives, and ** as a whole segment any number of directories. A pattern without "/" matches names at any depth ("*.go", "Makefile"); with "/" it matches the path relative to path ("src/**/*_test.go", "cmd/*/main.go"). Symlinks are not followed.

Paged: 500 matches by default (limit up to 5000); when more follow, the result gives next_cursor: pass it as cursor to continue (each page costs only its own part of the walk). A call visits at most 100,000 entries: past that (or its time limit) the result is incomplete and next_cursor goes on from where it stopped. To search file contents use grep.`,
		InputSchema: schema(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory to search. Default /workspace; relative paths are taken from /workspace."},
    "pattern": {"type": "string", "description": "Glob: * ? [..] {a,b} within a name, ** for any number of directories. Without \"/\" it matches names at any depth."},
    "offset": {"type": "integer", "minimum": 0, "description": "Matches to skip (from a previous page's next_offset). Default 0. Prefer cursor."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 5000, "description": "Most matches to return. Default 500."},
    "cursor": {"type": "string", "description": "Continue a previous search: its next_cursor, as it is, with the same path. Not with offset."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`),
		OutputSchema: schema(`{
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "pattern": {"type": "string"},
    "matches": {"type": "array", "items": {
      "type": "object",
      "properties": {
        "path": {"type": "string"},
        "type": {"type": "string", "enum": ["file", "dir", "symlink", "other"]},
        "size": {"type": "integer"}
      },
      "required": ["path", "type", "size"]
    }},
    "truncated": {"type": "boolean", "description": "More matches follow: call again with cursor set to next_cursor."},
    "next_offset": {"type": "integer", "description": "The offset of the next page (costs more the further it is: prefer next_cursor)."},
    "incomplete": {"type": "boolean", "description": "The search stopped at a limit (entries visited, time) before the end of the tree: next_cursor goes on."},
    "next_cursor": {"type": "string", "description": "Set when truncated or incomplete: pass as cursor to continue."}
  },
  "required": ["path", "pattern", "matches", "truncated"]
}`),
		ReadOnly:   true,
		Idempotent: true,
		Scopes:     []string{ScopeRead},
	},
	call: typed((*Set).find),
}

// Find finds paths by glob: see the find tool's description.
func (s *Set) Find(ctx context.Context, in FindInput) (*FindOutput, error) {
	return goCall(s, ctx, in, in.Path, (*Set).find)
}

func (s *Set) find(ctx context.Context, in FindInput, _ *CallOptions) (*FindOutput, error) {
	base, err := s.resolve("find", in.Path, true)
	if err != nil {
		return nil, err
	}
	if len(in.Pattern) > s.opts.MaxPatternBytes {
		return nil, errorf(CodeInvalid, "the pattern is longer than %d bytes", s.opts.MaxPatternBytes)
	}
	if in.Pattern == "" {
		return nil, errorf(CodeInvalid, "find needs a pattern, such as \"*.go\" or \"src/**/*.ts\"")
	}
	g, err := compileGlob(in.Pattern)
	if err != nil {
		return nil, err
	}
	offset, limit, err := pageArgs("find", in.Offset, in.Limit, s.opts.DefaultListLimit, s.opts.MaxListLimit)
	if err != nil {
		return nil, err
	}
	out := &FindOutput{Path: quote.Path(base), Pattern: in.Pattern, Matches: []Entry{}}
	fi, err := s.fs.Stat(ctx, base)
	if err != nil {
		if in.Path == "" && errors.Is(err, syscall.ENOENT) {
			return out, nil
		}
		return nil, AsError(err, base)
	}
	if !fi.IsDir() {
		return nil, errorf(CodeNotDirectory, "%s is not a directory: find searches a directory tree", quote.Path(base))
	}
	cur, resume, err := pageStart("find", base, offset, in.Cursor)
	if err != nil {
		return nil, err
	}
	seen, lastMatch := 0, ""
	last, err := search.FindAfter(ctx, s.fs, base, cur.after, g, s.searchLimits(), func(p string, f *vfs.DirFile) bool {
		if seen++; seen <= offset {
			return true
		}
		if len(out.Matches) == limit {
			out.Truncated, out.NextOffset = true, cur.count+offset+limit
			out.NextCursor = cursor{tool: "find", root: base, after: lastMatch, count: out.NextOffset}.String()
			return false
		}
		e := Entry{Path: quote.Path(p), Type: search.Type(f.Attr.Mode)}
		if e.Type == "file" {
			e.Size = f.Attr.Size
		}
		out.Matches = append(out.Matches, e)
		lastMatch = p
		return true
	})
	if out.stop, err = incomplete(err); err != nil {
		return nil, AsError(err, base)
	}
	if out.Incomplete = out.stop != ""; out.Incomplete {
		// Go on after the last entry visited (matched or not).
		if last == "" && resume {
			last = cur.after
		}
		if last != "" {
			out.NextCursor = cursor{tool: "find", root: base, after: last, count: cur.count + seen}.String()
		}
	}
	return out, nil
}
