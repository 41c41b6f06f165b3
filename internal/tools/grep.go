package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/glob"
	"github.com/desk-dev/desk/internal/search"
)

// GrepInput is the input of grep.
type GrepInput struct {
	Path       string `json:"path,omitempty"`
	Query      string `json:"query"`
	Regex      bool   `json:"regex,omitempty"`
	IgnoreCase bool   `json:"ignore_case,omitempty"`
	Include    string `json:"include,omitempty"`
	Context    int    `json:"context,omitempty"`
	Offset     int    `json:"offset,omitempty"`
	Limit      int    `json:"limit,omitempty"`
	// Cursor continues a search where a result ended (its NextCursor).
	Cursor string `json:"cursor,omitempty"`
}

// GrepLine is a numbered line.
type GrepLine struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// GrepMatch is one matching line with its context.
type GrepMatch struct {
	Path   string     `json:"path"`
	Line   int        `json:"line"`
	Text   string     `json:"text"`
	Before []GrepLine `json:"before,omitempty"`
	After  []GrepLine `json:"after,omitempty"`
}

// GrepOutput is the output of grep.
type GrepOutput struct {
	Matches []GrepMatch `json:"matches"`
	// Files is the number of files searched; Skipped those left out
	// (binary, or over the size cap).
	Files   int `json:"files"`
	Skipped int `json:"skipped"`
	// Truncated: more matches follow; call again with NextCursor (or
	// NextOffset).
	Truncated  bool `json:"truncated"`
	NextOffset int  `json:"next_offset,omitempty"`
	// Incomplete: the search stopped at a limit (MaxWalk, MaxGrepBytes,
	// MaxSearchTime) before the end of the tree; NextCursor goes on from
	// where it stopped.
	Incomplete bool `json:"incomplete,omitempty"`
	// NextCursor, set when Truncated or Incomplete, continues the search
	// at the line after the last one this call searched or returned.
	NextCursor string `json:"next_cursor,omitempty"`

	query string
	stop  string // why the search was incomplete
}

func (o *GrepOutput) content() []Content {
	var b strings.Builder
	if len(o.Matches) == 0 {
		fmt.Fprintf(&b, "no matches for %q (%s searched)\n", o.query, plural(int64(o.Files), "file"))
	}
	lastPath, lastLine := "", 0
	for _, m := range o.Matches {
		ctx := len(m.Before) > 0 || len(m.After) > 0
		if ctx && lastPath != "" && (m.Path != lastPath || m.Line-len(m.Before) > lastLine+1) {
			b.WriteString("--\n")
		}
		if m.Path != lastPath {
			lastLine = 0
		}
		for _, l := range m.Before {
			if l.Line > lastLine {
				fmt.Fprintf(&b, "%s-%d-%s\n", m.Path, l.Line, l.Text)
			}
		}
		if m.Line > lastLine {
			fmt.Fprintf(&b, "%s:%d:%s\n", m.Path, m.Line, m.Text)
		}
		lastLine = max(lastLine, m.Line)
		for _, l := range m.After {
			if l.Line > lastLine {
				fmt.Fprintf(&b, "%s-%d-%s\n", m.Path, l.Line, l.Text)
				lastLine = l.Line
			}
		}
		lastPath = m.Path
	}
	if o.Truncated {
		fmt.Fprintf(&b, "[more matches follow: call grep with cursor=%q]\n", o.NextCursor)
	}
	if o.Skipped > 0 {
		fmt.Fprintf(&b, "[%s skipped: binary or too large]\n", plural(int64(o.Skipped), "file"))
	}
	switch {
	case o.Incomplete && o.NextCursor != "":
		fmt.Fprintf(&b, "[the search stopped %s, before the end of the tree (%s searched): call grep with cursor=%q to go on, or narrow it with path or include]\n", o.stop, plural(int64(o.Files), "file"), o.NextCursor)
	case o.Incomplete:
		fmt.Fprintf(&b, "[the search stopped %s, before the end of the tree: call again, or narrow it with path or include]\n", o.stop)
	}
	return []Content{TextContent(b.String())}
}

var grepSpec = &spec{
	limits: func(o Options) []string {
		return []string{
			"files over 8 MiB are skipped", "files over " + sizeText(int64(o.MaxGrepFileBytes)) + " are skipped",
			"lines longer than 500 bytes are cut", fmt.Sprintf("lines longer than %d bytes are cut", o.MaxGrepLineBytes),
			"100 matches by default (limit up to 1000)", fmt.Sprintf("%d matches by default (limit up to %d)", o.DefaultGrepLimit, o.MaxGrepLimit),
			`"maximum": 10, "description": "Lines of context`, fmt.Sprintf(`"maximum": %d, "description": "Lines of context`, o.MaxGrepContext),
			`"maximum": 1000, "description": "Most matches to return. Default 100."`, fmt.Sprintf(`"maximum": %d, "description": "Most matches to return. Default %d."`, o.MaxGrepLimit, o.DefaultGrepLimit),
		}
	},
	Tool: Tool{
		Name:  "grep",
		Title: "Search file contents",
		Description: `Search the contents of files for a text or a regular expression, under path (a directory, searched depth first in name order, or one file; default /workspace). Prints each matching line as path:line:text, with context lines as path-line-text.

query is plain text unless regex is true (RE2 syntax: no backreferences or lookaround). include limits the files searched by a glob ("*.go", "src/**/*.{ts,tsx}"; without "/" it matches names). Binary files and files over 8 MiB are skipped and counted; lines longer than 500 bytes are cut. Symlinks are not followed.

Paged: 100 matches by default (limit up to 1000); when more follow, the result gives next_cursor: pass it as cursor to continue (a page costs only its own part of the search). A call visits at most 100,000 entries and reads at most 64 MiB: past that (or its time limit) the result is incomplete, says how many files it searched, and next_cursor goes on from where it stopped. Prefer it to reading whole files to find where something is.`,
		InputSchema: schema(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory or file to search. Default /workspace; relative paths are taken from /workspace."},
    "query": {"type": "string", "description": "Text to find; a RE2 regular expression when regex is true."},
    "regex": {"type": "boolean", "description": "Treat query as a regular expression (RE2). Default false."},
    "ignore_case": {"type": "boolean", "description": "Match case-insensitively. Default false."},
    "include": {"type": "string", "description": "Only search files matching this glob (\"*.py\", \"src/**/*.{ts,tsx}\")."},
    "context": {"type": "integer", "minimum": 0, "maximum": 10, "description": "Lines of context before and after each match. Default 0."},
    "offset": {"type": "integer", "minimum": 0, "description": "Matches to skip (from a previous page's next_offset). Default 0. Prefer cursor."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Most matches to return. Default 100."},
    "cursor": {"type": "string", "description": "Continue a previous search: its next_cursor, as it is, with the same path. Not with offset."}
  },
  "required": ["query"],
  "additionalProperties": false
}`),
		OutputSchema: schema(`{
  "type": "object",
  "properties": {
    "matches": {"type": "array", "items": {
      "type": "object",
      "properties": {
        "path": {"type": "string"},
        "line": {"type": "integer"},
        "text": {"type": "string"},
        "before": {"type": "array", "items": {"type": "object", "properties": {"line": {"type": "integer"}, "text": {"type": "string"}}, "required": ["line", "text"]}},
        "after": {"type": "array", "items": {"type": "object", "properties": {"line": {"type": "integer"}, "text": {"type": "string"}}, "required": ["line", "text"]}}
      },
      "required": ["path", "line", "text"]
    }},
    "files": {"type": "integer", "description": "Files searched."},
    "skipped": {"type": "integer", "description": "Files skipped: binary or over the size cap."},
    "truncated": {"type": "boolean", "description": "More matches follow: call again with cursor set to next_cursor."},
    "next_offset": {"type": "integer", "description": "The offset of the next page (costs more the further it is: prefer next_cursor)."},
    "incomplete": {"type": "boolean", "description": "The search stopped at a limit (entries visited, bytes read, time) before the end of the tree: next_cursor goes on."},
    "next_cursor": {"type": "string", "description": "Set when truncated or incomplete: pass as cursor to continue."}
  },
  "required": ["matches", "files", "skipped", "truncated"]
}`),
		ReadOnly:   true,
		Idempotent: true,
		Scopes:     []string{ScopeRead},
	},
	call: typed((*Set).grep),
}

// Grep searches file contents: see the grep tool's description.
func (s *Set) Grep(ctx context.Context, in GrepInput) (*GrepOutput, error) {
	return goCall(s, ctx, in, in.Path, (*Set).grep)
}

func (s *Set) grep(ctx context.Context, in GrepInput, _ *CallOptions) (*GrepOutput, error) {
	base, err := s.resolve("grep", in.Path, true)
	if err != nil {
		return nil, err
	}
	if in.Query == "" {
		return nil, errorf(CodeInvalid, "grep needs a query")
	}
	if len(in.Query) > s.opts.MaxPatternBytes || len(in.Include) > s.opts.MaxPatternBytes {
		return nil, errorf(CodeInvalid, "query and include are limited to %d bytes", s.opts.MaxPatternBytes)
	}
	if in.Context < 0 || in.Context > s.opts.MaxGrepContext {
		return nil, errorf(CodeInvalid, "context must be between 0 and %d lines", s.opts.MaxGrepContext)
	}
	re, err := search.Compile(in.Query, !in.Regex, in.IgnoreCase, s.searchLimits())
	if errors.Is(err, search.ErrRegexpTooLarge) {
		return nil, errorf(CodeInvalid, "the query %q is too large (%s): simplify it", in.Query, strings.TrimPrefix(err.Error(), search.ErrLimit.Error()+": "))
	} else if err != nil {
		msg := err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[:i]
		}
		return nil, errorf(CodeInvalid, "the query %q is not a valid RE2 regular expression (%s); set regex to false to search for the text as it is", in.Query, strings.TrimPrefix(msg, "error parsing regexp: "))
	}
	var inc *glob.Pattern
	if in.Include != "" {
		if inc, err = compileGlob(in.Include); err != nil {
			return nil, err
		}
	}
	offset, limit, err := pageArgs("grep", in.Offset, in.Limit, s.opts.DefaultGrepLimit, s.opts.MaxGrepLimit)
	if err != nil {
		return nil, err
	}
	out := &GrepOutput{Matches: []GrepMatch{}, query: in.Query}
	if _, err := s.fs.Stat(ctx, base); err != nil {
		if in.Path == "" && errors.Is(err, syscall.ENOENT) {
			return out, nil
		}
		return nil, AsError(err, base)
	}
	cur, resume, err := pageStart("grep", base, offset, in.Cursor)
	if err != nil {
		return nil, err
	}
	seen := 0
	g := &search.Grep{FS: s.fs, Limits: s.searchLimits(), Re: re, Include: inc, Context: in.Context,
		After: search.Cursor{Path: cur.after, Line: cur.line},
		Hit: func(h *search.Hit) bool {
			if seen++; seen <= offset {
				return true
			}
			if len(out.Matches) == limit {
				out.Truncated, out.NextOffset = true, cur.count+offset+limit
				return false
			}
			m := GrepMatch{Path: quote.Path(h.Path), Line: h.N, Text: s.capLine(h.Text)}
			for _, l := range h.Before {
				m.Before = append(m.Before, GrepLine{l.N, s.capLine(l.Text)})
			}
			for _, l := range h.After {
				m.After = append(m.After, GrepLine{l.N, s.capLine(l.Text)})
			}
			out.Matches = append(out.Matches, m)
			return true
		}}
	err = g.Run(ctx, base)
	out.Files, out.Skipped = g.Files, g.Skipped
	if out.stop, err = incomplete(err); err != nil {
		return nil, AsError(err, base)
	}
	next := g.Next
	if out.Incomplete = out.stop != ""; out.Incomplete && next.Path == "" && resume {
		next = g.After // stopped before it moved
	}
	if (out.Truncated || out.Incomplete) && next.Path != "" {
		n := out.NextOffset
		if !out.Truncated {
			n = cur.count + seen
		}
		out.NextCursor = cursor{tool: "grep", root: base, after: next.Path, line: next.Line, count: n}.String()
	}
	return out, nil
}

// capLine returns a line as text, cut at MaxGrepLineBytes with a marker.
func (s *Set) capLine(l []byte) string {
	l = bytes.TrimSuffix(l, []byte("\r"))
	extra := 0
	if len(l) > s.opts.MaxGrepLineBytes {
		cut := s.opts.MaxGrepLineBytes
		for cut > 0 && !utf8.RuneStart(l[cut]) {
			cut--
		}
		extra = len(l) - cut
		l = l[:cut]
	}
	t := string(l)
	if !utf8.ValidString(t) {
		t = strings.ToValidUTF8(t, "\uFFFD")
	}
	if extra > 0 {
		t += fmt.Sprintf(" … [+%d bytes]", extra)
	}
	return t
}
