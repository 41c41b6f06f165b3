package tools

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"syscall"

	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/search"
)

// listPage is the directory page size of ls.
const listPage = 1000

// typeName names an entry's type (see search.Type).
func typeName(mode uint32) string { return search.Type(mode) }

// LsInput is the input of ls.
type LsInput struct {
	Path   string `json:"path,omitempty"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
	// Cursor continues a listing where a page ended (its NextCursor), at
	// the cost of one page; Offset re-reads what comes before it.
	Cursor string `json:"cursor,omitempty"`
}

// Entry is one entry of a listing.
type Entry struct {
	// Name is the entry's name (ls) or absolute path (find).
	Name string `json:"name,omitempty"`
	Path string `json:"path,omitempty"`
	// Type is "file", "dir", "symlink" or "other".
	Type string `json:"type"`
	Size int64  `json:"size"`
	// Mode is the permission bits in octal ("0755").
	Mode string `json:"mode,omitempty"`
	// Target is a symlink's target.
	Target string `json:"target,omitempty"`
}

// LsOutput is the output of ls.
type LsOutput struct {
	Path    string  `json:"path"`
	Entries []Entry `json:"entries"`
	// Truncated: more entries follow; call again with NextCursor (or
	// NextOffset, which costs more the further it is).
	Truncated  bool   `json:"truncated"`
	NextOffset int    `json:"next_offset,omitempty"`
	NextCursor string `json:"next_cursor,omitempty"`

	note string
}

func (o *LsOutput) content() []Content {
	var b strings.Builder
	if len(o.Entries) == 0 {
		b.WriteString("(empty directory)\n")
	}
	for _, e := range o.Entries {
		name := e.Name
		if name == "" {
			name = e.Path
		}
		switch e.Type {
		case "dir":
			b.WriteString(name + "/\n")
		case "symlink":
			fmt.Fprintf(&b, "%s\t-> %s\n", name, e.Target)
		default:
			fmt.Fprintf(&b, "%s\t%d\n", name, e.Size)
		}
	}
	if o.Truncated {
		fmt.Fprintf(&b, "[more entries follow: call ls with cursor=%q]\n", o.NextCursor)
	}
	b.WriteString(o.note)
	return []Content{TextContent(b.String())}
}

var lsSpec = &spec{
	limits: func(o Options) []string {
		return []string{
			"at most 500 entries by default (limit up to 5000)", fmt.Sprintf("at most %d entries by default (limit up to %d)", o.DefaultListLimit, o.MaxListLimit),
			`"maximum": 5000, "description": "Most entries to return. Default 500."`, fmt.Sprintf(`"maximum": %d, "description": "Most entries to return. Default %d."`, o.MaxListLimit, o.DefaultListLimit),
		}
	},
	Tool: Tool{
		Name:  "ls",
		Title: "List a directory",
		Description: `List a directory of the workspace in name order: one entry per line, directories with a trailing "/", files with a tab and their size in bytes, symlinks with a tab, "-> " and their target. Without path it lists /workspace, the directory commands run in. A name that is not printable UTF-8 (a newline, a byte that is not UTF-8) or that begins with a double quote is shown Go-quoted, "a\nb"; every tool takes it back as shown, in any path.

Paged: at most 500 entries by default (limit up to 5000); when more follow, the result gives next_cursor: pass it as cursor to get the next page (each page costs the same however far the listing goes; entries created or removed meanwhile are seen or not by where their names sort, and none is returned twice). To search a tree by name use find; to search contents use grep.`,
		InputSchema: schema(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory to list. Default /workspace; relative paths are taken from /workspace."},
    "offset": {"type": "integer", "minimum": 0, "description": "Entries to skip (from a previous page's next_offset). Default 0. Prefer cursor."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 5000, "description": "Most entries to return. Default 500."},
    "cursor": {"type": "string", "description": "Continue after the previous page: its next_cursor, as it is, with the same path. Not with offset."}
  },
  "additionalProperties": false
}`),
		OutputSchema: schema(`{
  "type": "object",
  "properties": {
    "path": {"type": "string"},
    "entries": {"type": "array", "items": {
      "type": "object",
      "properties": {
        "name": {"type": "string"},
        "type": {"type": "string", "enum": ["file", "dir", "symlink", "other"]},
        "size": {"type": "integer"},
        "mode": {"type": "string", "description": "Permission bits in octal."},
        "target": {"type": "string", "description": "A symlink's target."}
      },
      "required": ["name", "type", "size"]
    }},
    "truncated": {"type": "boolean", "description": "More entries follow: call again with cursor set to next_cursor."},
    "next_offset": {"type": "integer", "description": "The offset of the next page (costs more the further it is: prefer next_cursor)."},
    "next_cursor": {"type": "string", "description": "Set when truncated: pass as cursor to get the next page."}
  },
  "required": ["path", "entries", "truncated"]
}`),
		ReadOnly:   true,
		Idempotent: true,
		Scopes:     []string{ScopeRead},
	},
	call: typed((*Set).ls),
}

// Ls lists a directory: see the ls tool's description.
func (s *Set) Ls(ctx context.Context, in LsInput) (*LsOutput, error) {
	return goCall(s, ctx, in, in.Path, (*Set).ls)
}

func (s *Set) ls(ctx context.Context, in LsInput, _ *CallOptions) (*LsOutput, error) {
	p, err := s.resolve("ls", in.Path, true)
	if err != nil {
		return nil, err
	}
	offset, limit, err := pageArgs("ls", in.Offset, in.Limit, s.opts.DefaultListLimit, s.opts.MaxListLimit)
	if err != nil {
		return nil, err
	}
	out := &LsOutput{Path: quote.Path(p), Entries: []Entry{}}
	fi, err := s.fs.Stat(ctx, p)
	if err != nil {
		if in.Path == "" && errors.Is(err, syscall.ENOENT) {
			out.note = fmt.Sprintf("(%s does not exist yet: the workspace is empty)\n", quote.Path(p))
			return out, nil
		}
		return nil, AsError(err, p)
	}
	if !fi.IsDir() {
		lfi, err := s.fs.Lstat(ctx, p)
		if err != nil {
			return nil, AsError(err, p)
		}
		a := lfi.Attr()
		e := Entry{Name: quote.Name(path.Base(p)), Type: typeName(a.Mode), Size: a.Size, Mode: fmt.Sprintf("%04o", a.Mode&0o7777)}
		if e.Type == "symlink" {
			t, _ := s.fs.Readlink(ctx, p)
			e.Target = quote.Path(t)
		}
		out.Entries = append(out.Entries, e)
		return out, nil
	}
	cur, resume, err := pageStart("ls", p, offset, in.Cursor)
	if err != nil {
		return nil, err
	}
	// With a cursor the listing starts after its name: one page read
	// whatever the position. An offset reads (and drops) what it skips.
	after, skipped, before, last := cur.after, 0, cur.count, ""
	for {
		if err := ctx.Err(); err != nil {
			return nil, AsError(err, p)
		}
		n := listPage
		if resume || offset == 0 {
			n = limit + 1 // one more tells whether the listing goes on
		}
		ents, err := s.fs.ReadDirFiles(ctx, p, after, n, 0)
		if err != nil {
			return nil, AsError(err, p)
		}
		for i := range ents {
			if skipped < offset {
				skipped++
				continue
			}
			if len(out.Entries) == limit {
				out.Truncated, out.NextOffset = true, before+offset+limit
				out.NextCursor = cursor{tool: "ls", root: p, after: last, count: out.NextOffset}.String()
				return out, nil
			}
			a := ents[i].Attr
			e := Entry{Name: quote.Name(ents[i].Name), Type: typeName(a.Mode), Size: a.Size, Mode: fmt.Sprintf("%04o", a.Mode&0o7777)}
			if e.Type == "symlink" {
				t, _ := s.fs.Readlink(ctx, path.Join(p, ents[i].Name))
				e.Target = quote.Path(t)
			}
			if e.Type == "dir" {
				e.Size = 0
			}
			out.Entries = append(out.Entries, e)
			last = ents[i].Name
		}
		if len(ents) < n {
			break
		}
		after = ents[len(ents)-1].Name
	}
	if offset > 0 && skipped < offset {
		return nil, errorf(CodeInvalid, "offset %d is past the end of %s: it has %s", offset, quote.Path(p), plural(int64(skipped), "entry"))
	}
	return out, nil
}
